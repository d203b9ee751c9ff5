"""Issue 11 items 12, 14 and 16: one `suppressed` number, a bound on suppression, no l-diversity exemption
for the suppressed block, shuffled rows, and the warnings a privacy officer needs (identifier-like and
unique records beside the QIs, unused or wrong hierarchies, row order kept, a second release)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from anonstudio.core import jobs
from anonstudio.core.errors import JobError, PrivacyError

SEX = "Male;*\nFemale;*\n"


def _table(rows: list[tuple]) -> str:
    return "id;sex;age;race;disease\n" + "".join(";".join(map(str, r)) + "\n" for r in rows)


ROWS = [(f"p{i}", "Male" if i % 2 else "Female", 30 + i % 4, "White" if i % 3 else "Black",
         ["Flu", "HIV", "Cold"][i % 3]) for i in range(40)]


@pytest.fixture(autouse=True)
def _own_release_log(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def _job(tmp_path: Path, rows=ROWS, *, alg='name = "mondrian"\nk = 4', out="", inp="", hier="") -> Path:
    (tmp_path / "t.csv").write_text(_table(rows), encoding="utf-8")
    (tmp_path / "sex.csv").write_text(SEX, encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(f'[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\nsensitive = ["disease"]\n{inp}\n'
                   f'[hierarchies]\nsex = "sex.csv"\n{hier}\n[algorithm]\n{alg}\n'
                   f'[output]\npath = "out.csv"\nreport = "out.json"\n{out}\n', encoding="utf-8")
    return job


def test_one_suppressed_number_everywhere(tmp_path, capsys):
    from anonstudio.cli.main import main

    rows = [r if i >= 3 else (r[0], "", r[2], r[3], r[4]) for i, r in enumerate(ROWS)]  # 3 missing QIs
    assert main(["run", str(_job(tmp_path, rows)), "--quiet"]) == 0
    rep = json.loads((tmp_path / "out.json").read_text())
    assert rep["suppressed"] == rep["metrics"]["suppressed"] == rep["verification"]["details"]["suppressed"] == 3
    assert "3 records suppressed" in capsys.readouterr().out


def test_suppression_beyond_max_suppression_is_refused(tmp_path):
    rows = [r if i >= 6 else (r[0], "", r[2], r[3], r[4]) for i, r in enumerate(ROWS)]  # 6 of 40 = 15 %
    with pytest.raises(PrivacyError, match=r"6 records \(15.0%\) are fully suppressed, more than max_suppression = 10.0%"):
        jobs.run_job(jobs.load_job(_job(tmp_path, rows)))
    assert not (tmp_path / "out.csv").exists()
    outcome = jobs.run_job(jobs.load_job(_job(tmp_path, rows, alg='name = "mondrian"\nk = 4\nmax_suppression = 0.2')))
    assert outcome.report["verification"]["details"]["max_suppression"] == 0.2


def test_the_suppressed_block_is_not_exempt_from_l_diversity(tmp_path):
    # five records with a missing QI are suppressed, and all five have HIV: their block is one class
    rows = [r if i >= 5 else (r[0], "", r[2], r[3], "HIV") for i, r in enumerate(ROWS)]
    job = _job(tmp_path, rows, alg='name = "mondrian"\nk = 4\nl = 2\nl_kind = "distinct"\nmax_suppression = 0.2')
    with pytest.raises(PrivacyError, match="1 distinct value"):
        jobs.run_job(jobs.load_job(job))


def test_shuffled_rows_verify_with_the_key_and_a_written_shuffle_seed_is_refused(tmp_path, monkeypatch):
    # issue 39 item 1: the order comes from the release key (made on first use), never from a seed in the job
    seeded = _job(tmp_path, out="shuffle_rows = true\nshuffle_seed = 7")
    with pytest.raises(JobError, match="remove output.shuffle_seed"):
        jobs.run_job(jobs.load_job(seeded))
    assert not (tmp_path / "out.csv").exists()
    job = _job(tmp_path, out="shuffle_rows = true")
    jobs.run_job(jobs.load_job(job))
    published = (tmp_path / "out.csv").read_text().splitlines()[1:]
    original = (tmp_path / "t.csv").read_text().splitlines()[1:]
    assert [line.split(";")[-1] for line in published] != [line.split(";")[-1] for line in original]
    assert sorted(line.split(";")[-1] for line in published) == sorted(line.split(";")[-1] for line in original)
    assert jobs.verify_job(jobs.load_job(job)).passed  # the key is here: the order is re-derived
    report = json.loads((tmp_path / "out.json").read_text())
    assert len(report["key"]["fingerprint"]) == 16
    assert not any("input's order" in w for w in report["warnings"])
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "another-machine"))  # no key there
    with pytest.raises(JobError, match="shuffled in an order drawn from the release key"):
        jobs.verify_job(jobs.load_job(job))


def test_warnings_for_identifiers_unique_records_hierarchies_and_order(tmp_path, capsys):
    from anonstudio.cli.main import main

    (tmp_path / "race.csv").write_text("White;*\nBlack;*\n")
    (tmp_path / "age.csv").write_text("30;30-31;*\n31;30-31;*\n32;30-31;*\n33;32-33;*\n")  # 32 is not in 30-31
    job = _job(tmp_path, hier='race = "race.csv"\nage = "age.csv"')
    assert main(["run", str(job), "--quiet"]) == 0
    warnings = json.loads((tmp_path / "out.json").read_text())["warnings"]
    text = "\n".join(warnings)
    assert "column 'id' is published unchanged and holds a different value in every record" in text
    assert "on the quasi-identifiers together with the columns published unchanged (id, race)" in text
    assert "a hierarchy is given for 'race', which is not a quasi-identifier" in text
    assert "age.csv:3: 32 is under '30-31'" in text
    assert "rows keep the input's order" in text
    err = capsys.readouterr().err
    assert err.count("anonstudio: warning:") == len(warnings)


def test_a_second_release_with_other_settings_is_warned_about(tmp_path):
    jobs.run_job(jobs.load_job(_job(tmp_path)))
    again = jobs.run_job(jobs.load_job(_job(tmp_path)))  # same settings: no warning
    assert not any("published before" in w for w in again.report["warnings"])
    other = jobs.run_job(jobs.load_job(_job(tmp_path, alg='name = "mst"\nk = 4')))
    assert any("this input was published before with other settings (mondrian" in w for w in other.report["warnings"])
    assert Path(os.environ["XDG_DATA_HOME"], "anonstudio", "releases.json").is_file()


def test_report_paths_are_relative_to_the_report(tmp_path):
    job = _job(tmp_path)
    jobs.run_job(jobs.load_job(job))
    rep = json.loads((tmp_path / "out.json").read_text())
    assert rep["input"]["path"] == "t.csv" and rep["output"]["path"] == "out.csv"
    assert str(tmp_path) not in (tmp_path / "out.json").read_text()


def test_an_event_log_release_numbers_its_sequence_ids_1_to_n(tmp_path):
    """Issue 39 item 7: the input's sequence ids were published as they were (with a warning), and the ids
    missing from 1..n were the sequences CBMSA removed — mostly carriers of the highly-sensitive value. A release
    numbers them 1..n as published; no warning is needed, and the removed ones leave no gap."""
    import shutil

    from anonstudio.resources import demo_folder as demo_dir

    for name in ("events-cbmsa.toml", "events.csv"):
        shutil.copy(demo_dir() / name, tmp_path / name)
    shutil.copytree(demo_dir() / "hierarchies", tmp_path / "hierarchies")
    outcome = jobs.run_job(jobs.load_job(tmp_path / "events-cbmsa.toml"))
    assert not any("are published as they are: if they are record numbers" in w for w in outcome.report["warnings"])
    report = json.loads((tmp_path / "results" / "events-cbmsa-k5.report.json").read_text())
    assert report["warnings"] == outcome.report["warnings"]
    published = pd.read_csv(tmp_path / "results" / "events-cbmsa-k5.csv", dtype=str)["PID"]
    ids = list(dict.fromkeys(published))
    assert ids == [str(i) for i in range(1, len(ids) + 1)]


@pytest.mark.parametrize("index", ["patient_id", None, "range"])
def test_a_parquet_files_stored_index_that_was_not_read_is_said(tmp_path, index):
    """A Parquet input written from a frame indexed by 'patient_id' was read without that column and said
    nothing: the user saw a table without their ids and could not tell why (nothing was published)."""
    import pandas as pd

    frame = pd.DataFrame([r[1:] for r in ROWS], columns=["sex", "age", "race", "disease"])
    if index == "patient_id":
        frame.index = pd.Index([r[0] for r in ROWS], name="patient_id")
    elif index is None:
        frame.index = pd.Index([(7 * i) % 40 for i in range(40)])  # unnamed, no plain row count: a stored column
    frame.astype(str).to_parquet(tmp_path / "t.parquet")
    job = _job(tmp_path)
    job.write_text(job.read_text().replace('"t.csv"', '"t.parquet"'), encoding="utf-8")
    outcome = jobs.run_job(jobs.load_job(job))
    said = [w for w in outcome.report["warnings"] if "Parquet" in w]
    if index == "range":
        assert said == []
    else:
        stored = "'patient_id'" if index else "'__index_level_0__'"
        assert len(said) == 1 and stored in said[0] and "not read" in said[0] and "t.parquet" in said[0]
    published = pd.read_csv(tmp_path / "out.csv")
    assert list(published.columns) == ["sex", "age", "race", "disease"]


def test_a_random_anonymization_release_that_singles_people_out_is_not_safe_to_publish(tmp_path):
    """Issue 39: RA redraws one quasi-identifier per record and publishes the others as they are; on a generated
    table of 1,000 records (rows shuffled, so no other risk) many records have exactly one published record within
    one change of their own values. The warning says how many, the report's metrics give the figure, and the
    verdict is NOT safe to publish; redrawing three per record (ra-enhanced) leaves too few singled out to warn."""
    from anonstudio.core.data import Table
    from anonstudio.core.generate import adult_like_table
    from anonstudio.core.io import write_table
    from anonstudio.core.metrics._ra_linkage import brute_force
    from anonstudio.core.release_verdict import release_verdict

    frame = adult_like_table(1000, seed=3)
    write_table(Table(frame), tmp_path / "adult.csv", delimiter=";")
    qis = [c for c in frame.columns if c != "occupation"]
    job = tmp_path / "ra.toml"

    def run(algorithm: str):
        job.write_text(f'[input]\npath = "adult.csv"\nquasi_identifiers = {json.dumps(qis)}\nsensitive = ["occupation"]\n'
                       f'[algorithm]\n{algorithm}\nbias_runs = 0\n'
                       '[output]\nshuffle_rows = true\npath = "out.csv"\nreport = "out.json"\n', encoding="utf-8")
        outcome = jobs.run_job(jobs.load_job(job))
        return outcome, json.loads((tmp_path / "out.json").read_text())

    outcome, report = run('name = "ra"')
    figure = report["metrics"]["singled_out_one_change"]
    assert figure["computed"] and figure["records"] == 1000 and figure["max_changed"] == 1
    # measured, not assumed: the same figures from all pairs of the run's output (in the input's order)
    slow = brute_force(outcome.data.df, outcome.result.output.df, qis, 1, ["occupation"])
    assert {k: figure[k] for k in slow} == slow
    assert figure["singled_out_correct"] == figure["singled_out"] > 100  # 185-204 over five keys
    near = [w for w in report["warnings"] if "singled out by a near match" in w]
    assert len(near) == 1, report["warnings"]
    assert near[0].startswith(f"{figure['singled_out_correct']} records ({figure['share']:.1%}) are singled out by a "
                              "near match: exactly one published record lies within one changed quasi-identifier")
    assert f"the sensitive value of {figure['sensitive_certain']} records is then certain" in near[0]
    verdict = release_verdict(report, report["warnings"])
    assert verdict.model_holds and not verdict.safe_to_publish
    assert verdict.headline() == "the model holds — NOT safe to publish: records are singled out by a near match"
    assert "NOT safe to publish" in report["release_verdict"]

    _, report = run('name = "ra-enhanced"\nattributes_per_record = 3')
    figure = report["metrics"]["singled_out_one_change"]
    assert figure["computed"] and figure["max_changed"] == 3 and figure["share"] <= 0.01  # 0-3 records over five keys
    assert not any("singled out by a near match" in w for w in report["warnings"])
