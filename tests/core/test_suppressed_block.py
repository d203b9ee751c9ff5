"""Issue 39 items 3 and 8: the suppressed block is a class (a block smaller than k publishes nothing but its count,
for every partitioning method, and a release whose block of one record publishes its sensitive value is refused),
and columns published unchanged are judged by the classes they make with the quasi-identifiers, not only uniques."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anonstudio.core import jobs
from anonstudio.core.release_verdict import release_verdict, risk_kind

SEX = "Male;*\nFemale;*\n"
AGE = "".join(f"{a};{a - a % 2}-{a - a % 2 + 1};*\n" for a in range(30, 34))


@pytest.fixture(autouse=True)
def _own_release_log(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def _rows(n: int = 40, missing_age: int | None = None) -> list[list[str]]:
    rows = []
    for i in range(n):
        # records with one (sex, age) share a household with exactly one other record of that (sex, age)
        rows.append(["Male" if i % 2 else "Female", "" if i == missing_age else str(30 + i % 4),
                     f"h{i % 4}-{i // 8}", ["Flu", "HIV", "Cold"][i % 3]])
    return rows


def _job(tmp_path: Path, rows: list[list[str]], alg: str, *, budget: float | None = None) -> Path:
    (tmp_path / "t.csv").write_text("sex;age;household;disease\n" + "".join(";".join(r) + "\n" for r in rows),
                                    encoding="utf-8")
    (tmp_path / "sex.csv").write_text(SEX, encoding="utf-8")
    (tmp_path / "age.csv").write_text(AGE, encoding="utf-8")
    extra = f"max_suppression = {budget}\n" if budget is not None else ""
    job = tmp_path / "job.toml"
    job.write_text('[input]\npath = "t.csv"\nquasi_identifiers = ["sex", "age"]\nsensitive = ["disease"]\n'
                   '[hierarchies]\nsex = "sex.csv"\nage = "age.csv"\n'
                   f'[algorithm]\n{alg}\n{extra}'
                   '[output]\npath = "out.csv"\nreport = "out.json"\nshuffle_rows = false\n', encoding="utf-8")
    return job


@pytest.mark.parametrize("alg", ['name = "mondrian"\nk = 4', 'name = "global"\nk = 4',
                                 'name = "kmember"\nk = 4', 'name = "local"\nk = 4', 'name = "mst"\nk = 4'])
def test_a_suppressed_block_smaller_than_k_publishes_nothing_but_its_count(tmp_path, alg):
    """One record with a missing age is suppressed (within max_suppression = 1 of 40): whoever is missing from the
    published classes is that record, so its household and disease are published '*' too — and the release
    verifies; put its disease back and verify refuses it (exit 1 from the command line)."""
    rows = _rows(missing_age=5)
    job = _job(tmp_path, rows, alg, budget=0.025)
    jobs.run_job(jobs.load_job(job))
    lines = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    assert lines[6] == "*;*;*;*"  # row 6 of the input (record 5): every cell '*'
    suppressed = [line for line in lines[1:] if line.startswith("*;*;")]
    assert suppressed == ["*;*;*;*"]
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert report["verification"]["passed"]
    assert report["verification"]["details"]["suppressed_blanked"] == 1
    assert any("suppressed block smaller than k = 4" in note for note in report["notes"])
    assert jobs.verify_job(jobs.load_job(job)).passed

    lines[6] = f"*;*;{rows[5][2]};{rows[5][3]}"  # the suppressed record's household and disease published
    (tmp_path / "out.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    verdict = jobs.verify_job(jobs.load_job(job))
    assert not verdict.passed
    assert any("is fully suppressed, in a block of 1 fully suppressed record(s)" in p and "'disease'" in p
               for p in verdict.problems), verdict.problems


def test_a_block_of_k_or_more_publishes_its_cells_and_is_judged_as_a_class(tmp_path):
    """Four records with a missing age (k = 4, within max_suppression): a block of k publishes its cells as they are,
    and l-diversity judges it as one class."""
    rows = _rows()
    for i in (1, 5, 9, 13):
        rows[i][1] = ""
    job = _job(tmp_path, rows, 'name = "mondrian"\nk = 4', budget=0.1)
    jobs.run_job(jobs.load_job(job))
    lines = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    block = [line for line in lines[1:] if line.startswith("*;*;")]
    assert len(block) == 4 and all(not line.endswith(";*") for line in block)
    assert sorted(line.split(";")[3] for line in block) == sorted(rows[i][3] for i in (1, 5, 9, 13))
    # the risk analysis counts that block as a class of 4 (issue 39 item 10), not as left out
    after = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["risk"]["after"]
    assert after["suppressed"] == 0 and after["records"] == 40
    assert 4 in after["class_sizes"]["sizes"]


def test_the_risk_of_a_block_of_one_that_publishes_its_value_is_one():
    """`anonstudio risk` on a release whose suppressed record publishes its disease: that record is a class of 1,
    its disease certain — the figures ARX computes (suppressed records left out) would say 1/4."""
    import pandas as pd

    from anonstudio.core.metrics import table_risk

    rows = [("*", "*", "HIV")] + [("Male", "30-31", d) for d in ("Flu", "HIV", "Cold", "Flu")]
    frame = pd.DataFrame(rows, columns=["sex", "age", "disease"], dtype=object)
    r = table_risk(frame, ["sex", "age"], sensitive=["disease"])
    assert r["prosecutor"]["highest"] == 1.0 and r["suppressed"] == 0 and r["records"] == 5
    assert r["attacks"]["inference"]["disease"]["homogeneous_records"] == pytest.approx(1 / 5)
    blanked = frame.copy()
    blanked.loc[0, "disease"] = "*"
    r = table_risk(blanked, ["sex", "age"], sensitive=["disease"])
    assert r["prosecutor"]["highest"] == 0.25 and r["suppressed"] == 1


def test_a_column_pairing_records_inside_each_class_is_a_risk_though_no_record_is_unique(tmp_path):
    """Issue 39 item 8: 'household' pairs records of one (sex, age): no record is unique on the quasi-identifiers
    with it, yet every record is in a class of 2 at k = 4 — the warning says so and the verdict is NOT safe."""
    job = _job(tmp_path, _rows(), 'name = "mondrian"\nk = 4')
    jobs.run_job(jobs.load_job(job))
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    said = [w for w in report["warnings"] if "together with the columns published unchanged" in w]
    assert len(said) == 1, report["warnings"]
    assert said[0].startswith("40 records (100.0%) are in classes of fewer than k = 4 records on the "
                              "quasi-identifiers together with the columns published unchanged (household)")
    assert "the smallest such class holds 2 records, 0 records are unique" in said[0]
    assert "Attributes pane" in said[0] and "quasi-identifying" in said[0]
    w = report["risk"]["after"]["with_unchanged"]  # the risk analysis says the same
    assert w["columns"] == ["household"] and w["smallest_class"] == 2 and w["highest"] == 0.5
    assert w["records_at_risk"] == 1.0 and w["unique"] == 0.0
    verdict = release_verdict(report, report["warnings"])
    assert verdict.model_holds and not verdict.safe_to_publish
    assert "columns published unchanged single out records" in [risk_kind(r) for r in verdict.risks]


def test_columns_set_to_insensitive_are_called_published_unchanged(tmp_path):
    """Issue 40: the verdict said 'unroled columns' when every column had a role (set to insensitive)."""
    from anonstudio.core.data import Role
    from anonstudio.core.workspace import Workspace

    job = _job(tmp_path, _rows(), 'name = "mondrian"\nk = 4')
    ws = Workspace.from_job(job)
    ws.set_role("household", "insensitive")
    assert ws.role("household") is Role.INSENSITIVE
    ws.run()
    text = " ".join(ws.warnings()) + " " + ws.release_verdict().headline()
    assert "columns published unchanged single out records" in ws.release_verdict().headline()
    assert "published unchanged" in text
    assert "unroled" not in text and "no role" not in text and "without a role" not in text
