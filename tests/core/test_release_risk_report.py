"""Issue 32 items 3-4: the report of every table release carries ``risk`` — the input and the release on the same
quasi-identifiers, the attack figures — and a view can take its distribution as plain frames."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from anonstudio.core import jobs
from anonstudio.core.metrics import record_risks, risk_comparison_frame, risk_distribution_frame
from anonstudio.core.risk import RISK_BINS

SEX = "Male;*\nFemale;*\n"
AGE = "".join(f"{a};{a - a % 10}-{a - a % 10 + 9};*\n" for a in range(30, 40))
ROWS = [(f"p{i}", "Male" if i % 2 else "Female", 30 + i % 7, "White" if i % 3 else "Black",
         ["Flu", "HIV", "Cold"][i % 3] if i % 5 else "Flu") for i in range(60)]


@pytest.fixture(autouse=True)
def _own_release_log(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def _job(tmp_path: Path, alg: str) -> Path:
    (tmp_path / "t.csv").write_text("id;sex;age;race;disease\n" + "".join(";".join(map(str, r)) + "\n" for r in ROWS),
                                    encoding="utf-8")
    (tmp_path / "sex.csv").write_text(SEX, encoding="utf-8")
    (tmp_path / "age.csv").write_text(AGE, encoding="utf-8")
    job = tmp_path / "job.toml"
    job.write_text(f'[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\nsensitive = ["disease"]\n'
                   f'[hierarchies]\nsex = "sex.csv"\nage = "age.csv"\n[algorithm]\n{alg}\n'
                   f'[output]\npath = "out.csv"\nreport = "out.json"\n', encoding="utf-8")
    return job


def _report(tmp_path: Path, alg: str) -> dict:
    jobs.run_job(jobs.load_job(_job(tmp_path, alg)))
    return json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))


def test_a_generalized_release_reports_its_risk_before_and_after(tmp_path):
    rep = _report(tmp_path, 'name = "mondrian"\nk = 6')
    risk = rep["risk"]
    assert risk["quasi_identifiers"] == ["sex", "age"] and risk["sensitive"] == ["disease"]
    assert risk["population"]["size"] == 317_238_626 and risk["threshold"] == 0.2
    before, after = risk["before"], risk["after"]
    # before: 14 classes (i mod 14) of 4 or 5; after: every class has at least k = 6 records
    assert before["classes"] == 14 and before["prosecutor"]["highest"] == pytest.approx(1 / 4)
    assert before["prosecutor"]["records_at_risk"] == pytest.approx(40 / 60)  # the classes of 4: risk 0.25 > 0.2
    assert after["prosecutor"]["highest"] <= 1 / 6 and after["records"] + after["suppressed"] == 60
    assert after["prosecutor"]["records_at_risk"] == 0.0 and after["sample_uniques"] == 0.0
    assert after["population_uniques"]["dankar"]["model"] == "none"  # no sample uniques left
    # the columns published without a role: id (and race) — every record is unique with them
    assert after["attacks"]["unique_with_unroled"] == {"share": 1.0, "columns": ["id", "race"]}
    m = after["attacks"]["inference"]["disease"]
    assert m["base_rate"] == pytest.approx(sum(r[4] == "Flu" for r in ROWS) / 60)
    assert m["base_rate"] <= m["inference_rate"] <= 1.0
    assert before["attacks"]["inference"]["disease"]["inference_rate"] >= m["inference_rate"]


def test_anatomy_is_judged_by_its_groups_sensitive_table(tmp_path):
    rep = _report(tmp_path, 'name = "anatomy"\nl = 2')
    m = rep["risk"]["after"]["attacks"]["inference"]["disease"]
    assert m["classes_are"] == "groups of the sensitive table" and m["records"] == 60
    assert m["homogeneous_classes"] == 0.0  # every group is 2-diverse
    assert m["inference_rate"] <= 0.5 + 1e-12  # no value above 1/l of a group
    # the QIT publishes the quasi-identifiers unchanged: the re-identification risk is the input's
    assert rep["risk"]["after"]["prosecutor"] == rep["risk"]["before"]["prosecutor"]


def test_the_distribution_as_frames_for_a_view(tmp_path):
    rep = _report(tmp_path, 'name = "mondrian"\nk = 6')
    frame = risk_distribution_frame(rep["risk"])
    assert list(frame.columns) == ["low", "high", "label", "before", "after"] and len(frame) == len(RISK_BINS)
    assert frame["before"].sum() == pytest.approx(1.0) and frame["after"].sum() == pytest.approx(1.0)
    assert frame.loc[frame["high"] == 0.25, "before"].item() == pytest.approx(40 / 60)  # the 1/4 risks
    assert frame.loc[frame["low"] >= 1 / 6, "after"].sum() == 0.0
    figures = risk_comparison_frame(rep["risk"])
    assert list(figures.columns) == ["figure", "before", "after"]
    row = figures.set_index("figure").loc["prosecutor highest"]
    assert row["before"] == pytest.approx(1 / 4) and row["after"] <= 1 / 6
    table = jobs.load_data(jobs.load_job(_job(tmp_path, 'name = "mondrian"\nk = 6')).input)
    risks = record_risks(table, ["sex", "age"])  # per input record: 1/4 or 1/5
    assert np.nanmax(risks) == pytest.approx(1 / 4) and len(risks) == 60


def test_release_without_sensitive_column_reports_no_inference(tmp_path):
    job = _job(tmp_path, 'name = "mondrian"\nk = 6')
    job.write_text(job.read_text(encoding="utf-8").replace('sensitive = ["disease"]\n', ""), encoding="utf-8")
    jobs.run_job(jobs.load_job(job))
    risk = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["risk"]
    assert risk["sensitive"] == [] and risk["after"]["attacks"]["inference"] == {}
    assert risk["after"]["attacks"]["unique_with_unroled"]["columns"] == ["id", "race", "disease"]
