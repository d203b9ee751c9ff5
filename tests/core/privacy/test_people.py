"""People, not rows (issue 39 item 2): with a person column every model counts distinct people per class, every
partitioning method's classes hold k people, and the verifier checks it (:mod:`anonstudio.core.privacy._people`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonstudio.core import privacy
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.errors import AnonStudioError, InputError
from anonstudio.core.generate import adult_hierarchies, visits_table
from anonstudio.core.jobs import anonymize as run_in_memory
from anonstudio.core.privacy._people import distinct_people, people_per_value, repeated_record_share

QIS = ["sex", "age", "race", "marital-status"]
PARTITIONING = ("mondrian", "global", "local", "kmember", "mst")


def _visits(people: int, max_visits: int, seed: int, *, person: bool = True):
    frame = visits_table(people, max_visits, seed=seed)[["patient_id", *QIS, "diagnosis"]]
    table = Table(frame).with_roles(QIS, sensitive=["diagnosis"], identifying=["patient_id"])
    hs = {q: h for q, h in adult_hierarchies().items() if q in QIS}
    return (replace(table, person="patient_id") if person else table), hs


def _people_per_class(table: Table, output) -> np.ndarray:
    """The distinct people of each published class (fully suppressed records left out), counted here from
    scratch with pandas."""
    frame = output.df if isinstance(output, Table) else output
    suppressed = np.all(np.column_stack([frame[q].astype(str).isin(["*"]) for q in QIS]), axis=1)
    keys = frame.loc[~suppressed, QIS].astype(str).agg("|".join, axis=1)
    who = table.df["patient_id"].to_numpy()[~suppressed]
    return pd.DataFrame({"c": keys.to_numpy(), "p": who}).groupby("c")["p"].nunique().to_numpy()


def test_the_issues_visits_case_rows_fail_and_people_pass():
    """600 patients with 1-6 visits each, Mondrian at k = 5: counted over rows, most classes hold fewer than 5
    patients (the issue: 86 of 269 one patient only); counted over people every class holds 5, and the verifier
    refuses the row-level release when the person column is named."""
    people, hs = _visits(600, 6, 3)
    rows = replace(people, person=None)
    row_release = get("mondrian")(k=5).run(rows, hs)
    counts = _people_per_class(people, row_release.output)
    assert (counts < 5).sum() > len(counts) / 2 and (counts == 1).sum() > 20
    row_spec = {"model": "k-anonymity", "k": 5, "max_suppression": 0.1}
    assert privacy.verify_output(row_spec, rows, row_release.output, hs).passed
    judged = privacy.verify_output({**row_spec, "person": "patient_id"}, people, row_release.output, hs)
    assert not judged.passed
    assert "person(s) ('patient_id')" in judged.problems[0] and "fewer than k = 5 people" in judged.problems[0]

    outcome = run_in_memory(people, hs, get("mondrian")(k=5))
    assert outcome.verification.passed and outcome.model["person"] == "patient_id"
    assert outcome.verification.details["counted"] == "people"
    assert _people_per_class(people, outcome.result.output).min() >= 5


@pytest.mark.parametrize("method", PARTITIONING)
def test_every_partitioning_method_holds_k_people_per_class(method):
    table, hs = _visits(150, 6, 11)
    params = {"k": 4} if method != "global" else {"k": 4}
    outcome = run_in_memory(table, hs, get(method)(**params))
    assert outcome.verification.passed
    assert _people_per_class(table, outcome.result.output).min() >= 4


@pytest.mark.parametrize("method", ("mondrian", "local", "kmember", "mst", "global"))
def test_l_diversity_is_counted_over_people(method):
    """One person's visits with one diagnosis count once: a class is l-diverse over its people's values."""
    table, hs = _visits(150, 6, 5)
    outcome = run_in_memory(table, hs, get(method)(k=3, l=2, l_kind="distinct"))
    assert outcome.verification.passed
    frame = outcome.result.output.df
    keys = frame[QIS].astype(str).agg("|".join, axis=1).to_numpy()
    pairs = pd.DataFrame({"c": keys, "p": table.df["patient_id"].to_numpy(), "v": frame["diagnosis"].to_numpy()})
    assert pairs.groupby("c")["v"].nunique().min() >= 2


def test_verify_refuses_a_class_of_k_rows_but_fewer_people():
    """A crafted release: one class of five records of two people, generalized faithfully."""
    frame = pd.DataFrame({"patient_id": ["a", "a", "a", "b", "b", "c", "d", "e", "f", "g"],
                          "sex": ["Male"] * 5 + ["Female"] * 5,
                          "age": ["30", "30", "30", "31", "31", "40", "41", "42", "43", "44"],
                          "race": ["White"] * 10, "marital-status": ["Divorced"] * 10,
                          "diagnosis": ["flu", "flu", "cold", "flu", "asthma", "flu", "cold", "flu", "asthma", "x"]})
    table = replace(Table(frame).with_roles(QIS, sensitive=["diagnosis"], identifying=["patient_id"]),
                    person="patient_id")
    hs = {q: h for q, h in adult_hierarchies().items() if q in QIS}
    out = frame.drop(columns=["patient_id"]).assign(age="*")
    spec = {"model": "k-anonymity", "k": 5, "max_suppression": 0.0}
    assert privacy.verify_output(spec, replace(table, person=None), out, hs).passed  # 5 rows each
    verdict = privacy.verify_output({**spec, "person": "patient_id"}, table, out, hs)
    assert not verdict.passed and "5 record(s) of 2 person(s)" in verdict.problems[0]
    # l-diversity over people: the men's class holds flu (a, b), cold (a), asthma (b): 3 values of 2 people
    ld = privacy.verify_output({"model": "k-anonymity", "k": 2, "l": 3, "l_kind": "distinct", "sensitive":
                                "diagnosis", "person": "patient_id", "max_suppression": 0.0}, table, out, hs)
    assert ld.passed
    entropy = privacy.verify_output({"model": "k-anonymity", "k": 2, "l": 2.9, "l_kind": "entropy", "sensitive":
                                     "diagnosis", "person": "patient_id", "max_suppression": 0.0}, table, out, hs)
    assert not entropy.passed  # flu held by 2 people, cold and asthma by 1: entropy < log 2.9


def test_the_counting_helpers():
    classes = np.array([0, 0, 0, 1, 1, -1])
    people = np.array([7, 7, 8, 9, 9, 7])
    assert distinct_people(classes, people).tolist() == [2, 1]
    c, v, n = people_per_value(classes, people, np.array([1, 1, 1, 2, 3, 1]), np.ones(6, dtype=bool) & (classes >= 0))
    assert sorted(zip(c.tolist(), v.tolist(), n.tolist())) == [(0, 1, 2), (1, 2, 1), (1, 3, 1)]
    frame = pd.DataFrame({"id": ["1", "2", "3", "4"], "a": ["x", "x", "y", "x"]})
    assert repeated_record_share(frame, ["id"]) == (2, 0.5)


def test_methods_that_cannot_count_people_refuse_the_person_column():
    table, hs = _visits(60, 3, 2)
    for method, params in (("anatomy", {"l": 2}), ("ra", {}), ("safepub", {})):
        with pytest.raises(AnonStudioError) as caught:
            run_in_memory(table, hs, get(method)(**params))
        assert caught.value.exit_code == 2 and "cannot count people" in str(caught.value)


def test_a_missing_person_id_is_refused_naming_the_line(tmp_path):
    from anonstudio.core.jobs import load_data
    from anonstudio.core.jobs._schema import InputSpec

    path = tmp_path / "visits.csv"
    path.write_text("patient_id,sex,age\np1,Male,30\n,Female,31\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_data(InputSpec(path=path, format="table", quasi_identifiers=["sex", "age"], identifying=["patient_id"],
                            person="patient_id"))
    assert caught.value.line == 3 and "no id" in str(caught.value)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), people=st.integers(12, 40), visits=st.integers(1, 5), k=st.integers(2, 4),
       method=st.sampled_from(PARTITIONING))
def test_property_every_class_holds_k_people(seed, people, visits, k, method):
    """On small random visits tables, every method's every published class holds k distinct people (counted
    here with pandas), and the verifier agrees."""
    table, hs = _visits(people, visits, seed)
    try:
        outcome = run_in_memory(table, hs, get(method)(k=k))
    except AnonStudioError as exc:  # refused (exit 1: no transformation within the budget), never published
        assert exc.exit_code == 1
        return
    assert outcome.verification.passed
    counts = _people_per_class(table, outcome.result.output)
    assert not len(counts) or counts.min() >= k


def test_the_person_column_is_never_published():
    """A script that names a person column without making it identifying: the run refuses it, and the verifier fails
    a release that publishes it."""
    table, hs = _visits(40, 3, 9)
    loose = replace(table, roles={c: r for c, r in table.roles.items() if c != "patient_id"})
    with pytest.raises(AnonStudioError) as caught:
        run_in_memory(loose, hs, get("mondrian")(k=2))
    assert caught.value.exit_code == 2 and "must be identifying" in str(caught.value)
    release = get("mondrian")(k=2).run(loose, hs).output
    assert "patient_id" in release.df.columns
    verdict = privacy.verify_output({"model": "k-anonymity", "k": 2, "max_suppression": 0.1, "person": "patient_id"},
                                    loose, release, hs)
    assert not verdict.passed and any("a person's id is never published" in p for p in verdict.problems)


def test_without_a_person_column_repeated_records_make_the_release_not_safe_to_publish():
    """The issue's visits table run counting records: the model holds, the verdict names several records per
    person (the identifying patient_id repeats, and whole records repeat beyond 10 %), each warning with its share."""
    from anonstudio.core.release_verdict import release_verdict, risk_kind

    table, hs = _visits(300, 6, 3, person=False)
    outcome = run_in_memory(table, hs, get("mondrian")(k=5))
    mine = [w for w in outcome.report["warnings"] if "several records per person" in w]
    assert len(mine) == 2 and all("%" in w for w in mine)
    verdict = release_verdict(outcome.report, outcome.report["warnings"])
    assert verdict.model_holds and not verdict.safe_to_publish
    assert "several records per person, counted as different people" in [risk_kind(r) for r in verdict.risks]
    counted = run_in_memory(replace(table, person="patient_id"), hs, get("mondrian")(k=5))
    assert not any("several records per person" in w for w in counted.report["warnings"])


def test_risk_is_counted_per_person():
    """``anonstudio risk`` and the report's risk: a class of five records of one person is a risk of 1, not 1/5."""
    from anonstudio.core.metrics import release_risk, table_risk

    frame = pd.DataFrame({"pid": ["a"] * 5 + ["b", "c", "d", "e", "f"], "sex": ["M"] * 5 + ["F"] * 5,
                          "age": ["30-39"] * 10})
    rows = table_risk(frame, ["sex", "age"], identifying=["pid"])
    people = table_risk(frame, ["sex", "age"], person="pid")
    assert rows["prosecutor"]["highest"] == pytest.approx(0.2) and rows["counted"] == "records"
    assert people["prosecutor"]["highest"] == 1.0 and people["counted"] == "people"
    assert people["sample_uniques"] == pytest.approx(1 / 6)  # one of six person-in-class entries is alone
    table, hs = _visits(200, 6, 3)
    release = get("mondrian")(k=5).run(replace(table, person=None), hs).output
    risk = release_risk(table, release)
    assert risk["after"]["counted"] == "people" and risk["after"]["prosecutor"]["highest"] == 1.0
    assert release_risk(replace(table, person=None), release)["after"]["prosecutor"]["highest"] <= 0.2


def test_a_job_with_a_person_column_runs_verifies_and_saves_it_again(tmp_path):
    """``[input] person`` end to end without Qt: the job runs, ``verify`` re-derives and passes, a saved job keeps
    the person column."""
    import subprocess
    import sys

    from anonstudio.core.io import write_hierarchy
    from anonstudio.core.workspace import Workspace

    visits_table(120, 4, seed=8)[["patient_id", "sex", "age", "race"]].to_csv(tmp_path / "visits.csv", index=False)
    for q, h in adult_hierarchies(["sex", "age", "race"]).items():
        write_hierarchy(h, tmp_path / f"{q}.csv")
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "visits.csv"\nquasi_identifiers = ["sex", "age", "race"]\nperson = "patient_id"\n'
        '[hierarchies]\nsex = "sex.csv"\nage = "age.csv"\nrace = "race.csv"\n'
        '[algorithm]\nname = "kmember"\nk = 4\n[output]\npath = "out.csv"\nreport = "out.json"\n', encoding="utf-8")
    ws = Workspace.from_job(tmp_path / "job.toml")
    assert ws.person() == "patient_id" and ws.role("patient_id").value == "identifying"
    ws.run()
    ws.publish()
    done = subprocess.run([sys.executable, "-m", "anonstudio", "verify", "job.toml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "patient_id" not in (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()[0]
    ws.save_job(tmp_path / "again.toml")
    assert 'person = "patient_id"' in (tmp_path / "again.toml").read_text(encoding="utf-8")
    assert Workspace.from_job(tmp_path / "again.toml").person() == "patient_id"


def test_a_suppressed_block_is_sized_by_its_people():
    """The suppressed block is a class (item 3) counted in people (item 2): five suppressed visits of one patient
    publishing their diagnoses are one person to find among the missing, not five records — refused; the same
    block with its diagnoses '*' passes; the method blanks such a block itself."""
    frame = pd.DataFrame({"patient_id": ["a"] * 5 + [f"p{i}" for i in range(45)],
                          "sex": ["Male"] * 5 + ["Female"] * 45,
                          "age": ["30"] * 5 + ["40"] * 45,
                          "race": ["White"] * 50, "marital-status": ["Divorced"] * 50,
                          "diagnosis": ["flu"] * 5 + ["cold", "asthma", "flu"] * 15})
    table = replace(Table(frame).with_roles(QIS, sensitive=["diagnosis"], identifying=["patient_id"]),
                    person="patient_id")
    hs = {q: h for q, h in adult_hierarchies().items() if q in QIS}
    out = frame.drop(columns=["patient_id"])
    out.loc[:4, QIS] = "*"
    spec = {"model": "k-anonymity", "k": 5, "max_suppression": 0.1}
    assert privacy.verify_output(spec, replace(table, person=None), out, hs).passed  # a block of 5 records
    people_spec = {**spec, "person": "patient_id"}
    assert not privacy.verify_output(people_spec, table, out, hs).passed  # ... of one person
    blanked = out.copy()
    blanked.loc[:4, "diagnosis"] = "*"
    assert privacy.verify_output(people_spec, table, blanked, hs).passed
    outcome = run_in_memory(table, hs, get("global")(k=5, max_suppression=0.1))
    assert outcome.verification.passed
    published = outcome.result.output.df
    alone = published["sex"].to_numpy() == "*"
    assert not alone.any() or (published.loc[alone, "diagnosis"] == "*").all()


@pytest.mark.parametrize("name", ["PID", "visit_owner"])
def test_an_id_column_repeating_ids_warns_whatever_its_name(name):
    """A hunt dodged the several-records-per-person warning by calling the id column 'PID' (the event demo's
    name): an id abbreviation, or any identifying column with many distinct values, is read as ids."""
    frame = visits_table(300, 6, seed=4)[["patient_id", *QIS, "diagnosis"]].rename(columns={"patient_id": name})
    table = Table(frame).with_roles(QIS, sensitive=["diagnosis"], identifying=[name])
    from anonstudio.core.privacy._people import person_warnings

    warned = person_warnings(table)
    assert any(f"the identifying column '{name}'" in w for w in warned), warned
    # a category marked identifying to leave it out (the SafePub demo's race, native-country) is no id column
    categories = Table(frame).with_roles(QIS[:2], sensitive=["diagnosis"], identifying=[name, *QIS[2:]])
    assert not any("'race'" in w or "'marital-status'" in w for w in person_warnings(categories))


def _split_ids(frame: pd.DataFrame, first: str, second: str, width: int) -> pd.DataFrame:
    number = frame["patient_id"].str[1:].astype(int)
    return frame.assign(**{first: [f"{first[0]}{n % width}" for n in number],
                           second: [f"{second[0]}{n // width}" for n in number],
                           "visit": [f"v{i}" for i in range(len(frame))]}).drop(columns=["patient_id"])


@pytest.mark.parametrize(("first", "second"), [("ward", "bed"), ("first_name", "last_name"), ("id_a", "id_b")])
def test_an_id_split_over_two_columns_warns(first, second):
    """A second hunt dodged the warning with an id split over two identifying columns (``ward`` + ``bed``): each
    column alone repeats like a category, the two together hold a person's few visits. The warning names both and
    the fix ([input] person); the verdict is NOT safe to publish."""
    from anonstudio.core.privacy._people import person_warnings
    from anonstudio.core.release_verdict import release_verdict

    frame = _split_ids(visits_table(600, 6, seed=5)[["patient_id", *QIS, "diagnosis"]], first, second, 23)
    table = Table(frame).with_roles(QIS, sensitive=["diagnosis"], identifying=[first, second])
    warned = person_warnings(table)
    pair = [w for w in warned if f"'{first}' + '{second}' together look like a person's id" in w]
    assert pair or any(f"the identifying column '{first}'" in w for w in warned), warned
    assert all("[input] person" in w for w in pair)
    verdict = release_verdict({"verification": {"passed": True}}, warned)
    assert not verdict.safe_to_publish and "several records per person" in verdict.headline()


def test_a_person_held_by_few_distinct_values_warns():
    """The hunt's ``holder`` column: 40 people × 25 visits, 4 % distinct values (below the 5 % of an id column)."""
    from anonstudio.core.privacy._people import person_warnings

    frame = visits_table(40, 1, seed=6)
    frame = frame.loc[frame.index.repeat(25)].reset_index(drop=True)
    frame = frame.assign(holder=frame["patient_id"].str.replace("p", "h"), visit=[f"v{i}" for i in range(len(frame))])
    frame = frame[["holder", "visit", *QIS, "diagnosis"]]
    table = Table(frame).with_roles(QIS, sensitive=["diagnosis"], identifying=["holder"])
    assert any("'holder'" in w for w in person_warnings(table)), person_warnings(table)


def test_names_and_categories_of_one_record_per_person_do_not_warn():
    """One record per person with first and last names identifying (shared by chance: many people are called
    Smith), or categories marked identifying to leave them out: no several-records warning."""
    from anonstudio.core.generate import adult_like_table
    from anonstudio.core.privacy._people import person_warnings

    rng = np.random.default_rng(7)
    frame = adult_like_table(2000, 8)
    frame = frame.assign(first_name=rng.choice([f"f{i}" for i in range(60)], len(frame)),
                         last_name=rng.choice([f"l{i}" for i in range(400)], len(frame)))
    table = Table(frame).with_roles(["age", "sex"], sensitive=["occupation"],
                                    identifying=["first_name", "last_name", "race", "native-country"])
    assert [w for w in person_warnings(table) if "person's id" in w or "identifying column" in w] == []
