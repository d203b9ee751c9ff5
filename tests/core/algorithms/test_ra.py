"""Random anonymization (Yang & Qiao 2010, paper 001) and Anatomy (Xiao & Tao 2006): the methods, their
independent verifiers and the paper's privacy formulas, on Adult (occupation sensitive, the other eight
columns quasi-identifiers, as §7)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.errors import ParameterError, PrivacyError
from anonstudio.core.generate import adult_hierarchies, adult_like_table
from anonstudio.core.metrics._ra import (
    attribute_entropy,
    max_probabilistic_anonymity,
    probabilistic_anonymity,
    uniform_anonymity_estimate,
)
from anonstudio.core.privacy import verify_anatomy, verify_output


@pytest.fixture(scope="module")
def adult(shared_data):
    from anonstudio.core.io import read_table

    t = read_table(shared_data / "adult" / "adult.csv")
    return t.with_roles([c for c in t.df.columns if c != "occupation"], ["occupation"])


@pytest.mark.realdata
def test_algorithm_1_redraws_exactly_one_quasi_identifier_per_record(adult):
    outcome = jobs.anonymize(adult, {}, get("ra")(seed=3))
    redrawn = outcome.result.details["redrawn"]
    assert (redrawn.sum(axis=1) == 1).all()
    qis = adult.quasi_identifiers
    differ = (adult.df[qis].astype(str).to_numpy() != outcome.result.output.df[qis].astype(str).to_numpy())
    assert differ.sum(axis=1).max() <= 1 and (differ <= redrawn).all()  # only redrawn cells can differ
    assert outcome.report["verification"]["passed"] and outcome.report["verification"]["model"] == "random anonymization"
    assert (outcome.result.output.df["occupation"] == adult.df["occupation"]).all()  # non-QI untouched


@pytest.mark.realdata
def test_algorithm_2_redraws_attributes_per_record(adult):
    outcome = jobs.anonymize(adult, {}, get("ra-enhanced")(attributes_per_record=3, seed=3))
    assert (outcome.result.details["redrawn"].sum(axis=1) == 3).all()
    assert outcome.report["verification"]["details"]["most_changed_in_a_record"] <= 3
    with pytest.raises(ParameterError, match="attributes_per_record = 9 is more than the 8 quasi-identifiers"):
        jobs.anonymize(adult, {}, get("ra-enhanced")(attributes_per_record=9))


@pytest.mark.realdata
def test_probabilistic_anonymity_formulas(adult):
    """Eq. 1 at Proposition 7's weights equals Σ e^{H_i}; Eq. 1 at uniform weights equals Eq. 3."""
    outcome = jobs.anonymize(adult, {}, get("ra")())
    m = outcome.report["metrics"]
    assert abs(m["probabilistic_anonymity"] - m["probabilistic_anonymity_max"]) < 1e-9
    h = outcome.result.details["entropies"]
    uniform = np.full(len(h), 1 / len(h))
    assert abs(probabilistic_anonymity(uniform, h) - uniform_anonymity_estimate(h)) < 1e-9
    assert probabilistic_anonymity(uniform, h) < max_probabilistic_anonymity(h)
    assert m["probabilistic_anonymity_max"] == pytest.approx(70.877, abs=1e-3)  # paper: 34 on its copy (§7.2.2)
    assert attribute_entropy(np.array([0.5, 0.5])) == pytest.approx(np.log(2))


@pytest.mark.realdata
@pytest.mark.parametrize(("weights", "bound"), [("uniform", 0.01), ("entropy", 0.025)])
def test_marginal_distributions_stay_close(adult, weights, bound):
    """The issue's target is TV ≤ 0.01 per attribute. Uniform weights meet it (measured max 0.007); with
    Proposition 7's weights age (72 values) is chosen for about half the records and its i.i.d. redraws
    move its marginal by 0.014–0.018 — the multinomial sampling noise of Algorithm 1 as the paper states
    it, not a bias (the expected marginal is the original's). Reported, not hidden."""
    outcome = jobs.anonymize(adult, {}, get("ra")(weights=weights, seed=1))
    assert outcome.report["metrics"]["total_variation_max"] <= bound


def test_seeded_and_faithful_on_generated_data():
    frame = adult_like_table(500, seed=2)
    t = Table(frame).with_roles(["age", "sex", "education", "workclass"], ["salary-class"])
    a = get("ra")(seed=5).run(t, {}).output.df
    b = get("ra")(seed=5).run(t, {}).output.df
    c = get("ra")(seed=6).run(t, {}).output.df
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    for col in ("race", "marital-status", "native-country", "occupation", "salary-class"):
        assert a[col].tolist() == t.df[col].tolist()


def test_a_level_publishes_banded_values_drawn_from_the_bands():
    frame = adult_like_table(400, seed=2)
    t = Table(frame).with_roles(["age", "sex"], [])
    hs = adult_hierarchies(["age", "sex"])
    outcome = jobs.anonymize(t, hs, get("ra")(level={"age": 1}, seed=1))
    bands = {hs["age"].generalize(str(v), 1) for v in frame["age"]}
    assert set(outcome.result.output.df["age"]) <= bands
    assert outcome.report["verification"]["passed"]


def test_weights_are_validated_and_normalised(tmp_path):
    frame = adult_like_table(200, seed=2)
    t = Table(frame).with_roles(["age", "sex"], [])
    with pytest.raises(ParameterError, match="must be non-negative"):
        get("ra")(weights={"age": -1, "sex": 2})
    outcome = jobs.anonymize(t, {}, get("ra")(weights={"age": 3, "sex": 1}))
    assert any("summed to 4; they were divided by that sum" in n for n in outcome.report["notes"])
    assert outcome.result.metrics["weights"] == {"age": 0.75, "sex": 0.25}
    with pytest.raises(ParameterError, match="not a quasi-identifier"):
        jobs.anonymize(t, {}, get("ra")(weights={"zip": 1}))


def test_a_constant_quasi_identifier_is_explained():
    frame = adult_like_table(200, seed=2)
    frame["country"] = "X"
    t = Table(frame).with_roles(["age", "country"], [])
    outcome = jobs.anonymize(t, {}, get("ra")())
    assert any("country has one value only (entropy 0)" in n for n in outcome.report["notes"])
    assert outcome.report["verification"]["passed"]


def test_the_ra_verifier_catches_what_ra_may_not_do():
    frame = adult_like_table(300, seed=4)
    t = Table(frame).with_roles(["age", "sex", "education"], ["salary-class"])
    alg = get("ra")(seed=1)
    out = alg.run(t, {}).output
    model = {**alg.privacy_model(), "quasi_identifiers": ["age", "sex", "education"]}
    assert verify_output(model, t, out, {}).passed
    two = out.df.copy()
    row = int(np.flatnonzero((two["age"] == t.df["age"]) & (two["sex"] == t.df["sex"]))[0])
    two.loc[row, "age"] = next(v for v in t.df["age"].unique() if v != t.df.loc[row, "age"])
    two.loc[row, "sex"] = "Male" if t.df.loc[row, "sex"] == "Female" else "Female"
    bad = verify_output(model, t, two, {})
    assert not bad.passed and any("quasi-identifier values differ from the original, more than the 1" in p for p in bad.problems)
    alien = out.df.copy()
    alien.loc[0, "education"] = "Klingon-academy"
    assert any("is not a value of 'education'" in p for p in verify_output(model, t, alien, {}).problems)
    assert verify_output(model, t, out, {}).model == "random anonymization"  # never "k-anonymity"


@pytest.mark.realdata
@pytest.mark.parametrize("l", [5, 7])
def test_anatomy_groups_are_l_diverse_and_the_st_matches(adult, l):
    outcome = jobs.anonymize(adult, {}, get("anatomy")(l=l))
    assert outcome.report["verification"]["passed"] and outcome.report["verification"]["model"] == "anatomy"
    qit, st = outcome.result.output.df, outcome.result.side_outputs["sensitive"]
    assert "occupation" not in qit.columns and "group" in qit.columns
    merged = pd.DataFrame({"group": qit["group"], "s": adult.df["occupation"]})
    for _, members in merged.groupby("group"):
        assert len(members) >= l and members["s"].value_counts().max() * l <= len(members)
    counts = merged.groupby(["group", "s"]).size()
    assert st["count"].astype(int).sum() == len(adult.df)
    assert all(counts[(g, s)] == int(c) for g, s, c in st[["group", "occupation", "count"]].itertuples(index=False))


@pytest.mark.realdata
def test_anatomy_refuses_an_l_the_data_cannot_give_and_the_verifier_catches_a_bad_grouping(adult):
    with pytest.raises(PrivacyError, match="'Prof-specialty' is 4,038 of 30,162 records, more than 1/l"):
        jobs.anonymize(adult, {}, get("anatomy")(l=10))
    outcome = jobs.anonymize(adult, {}, get("anatomy")(l=5))
    qit = outcome.result.output.df.copy()
    same = adult.df.index[adult.df["occupation"] == adult.df["occupation"].iloc[0]][:5]
    qit.loc[same, "group"] = "999999"  # five records with one occupation in one group
    v = verify_anatomy(adult, qit, 5, sensitive="occupation")
    assert not v.passed


def test_breach_measures_follow_the_papers_formulas_on_a_hand_example():
    """§4.2.2 and Proposition 10 on four records with two QIs, computed by hand."""
    from anonstudio.core.metrics._ra import breach_measures

    frame = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["1", "2", "1", "1"]}, dtype=object)
    [m] = breach_measures(frame, ["a", "b"], [("x", "1")])
    # supp(x,1) = 1/4; P(a=x) = 1/2, P(b=1) = 3/4, sum 5/4. Neighbours: (x,2) differs in b: supp 1/4, P(b=1) = 3/4
    # -> (1/4 * 5/4) / (1/4 * 3/4) = 5/3; (y,1) differs in a: supp 1/2, P(a=x) = 1/2 -> (5/16) / (1/4) = 5/4
    assert m["c_amplification"] == pytest.approx(5 / 3)
    # Prop. 10: supp(x,1)/min(supp(a=x), supp(b=1)) = (1/4)/(1/2) = 1/2; max_i P / sum = (3/4)/(5/4) = 3/5
    assert m["guess_bound"] == pytest.approx(3 / 5)


def test_ra_and_anatomy_jobs_need_no_hierarchies_and_verify_from_the_cli(tmp_path, monkeypatch):
    """Random anonymization and Anatomy publish values as read: a job without [hierarchies] runs, and
    `anonstudio verify` re-checks it (found by running the CLI on an anatomy job)."""
    from anonstudio.cli.main import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    adult_like_table(400, seed=2).to_csv(tmp_path / "t.csv", sep=";", index=False)
    for name, extra in (("anatomy", "l = 4"), ("ra", "bias_runs = 2"), ("ra-enhanced", "attributes_per_record = 2")):
        job = tmp_path / f"{name}.toml"
        job.write_text('[input]\npath = "t.csv"\nquasi_identifiers = ["age", "sex", "education"]\n'
                       f'sensitive = ["occupation"]\n[algorithm]\nname = "{name}"\n{extra}\n'
                       f'[output]\npath = "{name}.csv"\nreport = "{name}.json"\n', encoding="utf-8")
        assert main(["run", str(job), "--quiet"]) == 0, name
        assert main(["verify", str(job)]) == 0, name  # the draws came from this machine's release key
        if name == "ra-enhanced":  # on a machine without the key: model only
            monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "elsewhere"))
            assert main(["verify", str(job)]) == 2, name  # cannot be re-derived
            assert main(["verify", str(job), "--model-only"]) == 0, name
    assert (tmp_path / "anatomy.sensitive.csv").is_file()


@pytest.mark.realdata
def test_shuffled_draws_keep_every_marginal_exactly(adult):
    """``draws = "shuffle"`` meets the issue's TV ≤ 0.01 at Proposition 7's weights too (exactly 0), still
    changes at most one QI per record, and keeps the cells that were chosen but drew their own value."""
    outcome = jobs.anonymize(adult, {}, get("ra")(weights="entropy", draws="shuffle", seed=1, bias_runs=0))
    m = outcome.report["metrics"]
    assert m["total_variation_max"] == 0 and outcome.report["verification"]["passed"]
    qis = outcome.result.details["attributes"]
    changed = (outcome.result.output.df[qis].astype(str) != adult.df[qis].astype(str)).sum(axis=1)
    assert changed.max() == 1 and 0.8 < changed.mean() < 1.0
    for a in qis:
        assert sorted(outcome.result.output.df[a].astype(str)) == sorted(adult.df[a].astype(str))
    independent = jobs.anonymize(adult, {}, get("ra")(weights="entropy", seed=1, bias_runs=0))
    assert independent.report["metrics"]["total_variation_max"] > 0.01  # the paper's i.i.d. draws: noise
