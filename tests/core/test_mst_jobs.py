"""The three tabular methods through job files and the CLI: verified outputs, reports, bad input."""

from __future__ import annotations

import json
import textwrap

import pandas as pd
import pytest

from anonstudio.cli.main import main
from tests.core import _paper002 as P


@pytest.fixture
def workdir(tmp_path):
    P.TABLE_1A.to_csv(tmp_path / "table1.csv", sep=";", index=False)
    for name, rows in (("age", P.AGE_ROWS), ("gender", P.GENDER_ROWS), ("zip", P.ZIP_ROWS)):
        (tmp_path / f"{name}.csv").write_text("\n".join(";".join(r) for r in rows) + "\n")
    return tmp_path


def _job(folder, algorithm: str, hierarchies: str | None = None, extra_input: str = "") -> str:
    if hierarchies is None:
        hierarchies = 'Age = "age.csv"\nGender = "gender.csv"\n"Zip-code" = "zip.csv"'
    body = textwrap.dedent(
        """
        [input]
        path = "table1.csv"
        quasi_identifiers = ["Gender", "Age", "Zip-code"]
        identifying = ["ID"]
        sensitive = ["Disease"]
        {extra_input}

        [hierarchies]
        {hierarchies}

        [algorithm]
        {algorithm}

        [output]
        path = "out.csv"
        report = "out.report.json"
        """
    ).format(algorithm=algorithm, hierarchies=hierarchies, extra_input=extra_input)
    path = folder / "job.toml"
    path.write_text(body)
    return str(path)


def test_mst_job_writes_table_1c_and_a_verified_report(workdir, capsys):
    # the paper's steps exactly: no outlier suppressed (the suppression budget, issue 31, would trade one)
    assert main(["run", _job(workdir, 'name = "mst"\nk = 3\nmax_suppression = 0'), "--quiet"]) == 0
    out = pd.read_csv(workdir / "out.csv", sep=";", dtype=str)
    assert list(out.columns) == ["Gender", "Age", "Zip-code", "Disease"]
    for col, expected in P.TABLE_1C.items():
        assert out[col].tolist() == expected
    report = json.loads((workdir / "out.report.json").read_text())
    assert report["verification"]["passed"] is True and report["verification"]["model"] == "k-anonymity"
    assert report["groups"] == {"count": 3, "min_size": 3, "max_size": 4}
    assert report["metrics"]["classes"] == 3
    assert report["metrics"]["DM"] == 34 and 0 < report["metrics"]["GCP"] < 1
    assert report["metrics"]["CAVG"] == pytest.approx(10 / 9)
    assert "verification: passed" in capsys.readouterr().out
    # the same job again with the k-aware cut, through --set
    assert main(["run", _job(workdir, 'name = "mst"\nk = 3'), "--quiet", "--set", 'algorithm.cut="k-aware"']) == 0


@pytest.mark.parametrize("algorithm", ['name = "mondrian"\nk = 3\nl = 2', 'name = "kmember"\nk = 3\nseed = 2'])
def test_mondrian_with_l_and_kmember_jobs_pass_verification(workdir, algorithm):
    assert main(["run", _job(workdir, algorithm), "--quiet"]) == 0
    report = json.loads((workdir / "out.report.json").read_text())
    assert report["verification"]["passed"] is True
    assert report["groups"]["min_size"] >= 3
    if "mondrian" in algorithm:
        assert report["verification"]["details"]["l"] == 2


def test_bad_input_exits_2_naming_file_line_and_column(workdir, capsys):
    data = (workdir / "table1.csv").read_text().replace("Female;32;535288", "Female;33;535288")
    (workdir / "table1.csv").write_text(data)
    assert main(["run", _job(workdir, 'name = "mst"\nk = 3')]) == 2
    err = capsys.readouterr().err
    assert "table1.csv" in err and "'33'" in err and "Age" in err
    assert not (workdir / "out.csv").exists()


def test_k_larger_than_n_and_missing_hierarchies(workdir, capsys):
    assert main(["run", _job(workdir, 'name = "kmember"\nk = 11')]) == 2
    assert "k = 11 is larger than the number of records" in capsys.readouterr().err
    no_gender = 'Age = "age.csv"\n"Zip-code" = "zip.csv"'
    assert main(["run", _job(workdir, 'name = "mst"\nk = 3', hierarchies=no_gender)]) == 2
    assert "'Gender'" in capsys.readouterr().err
    # a numeric quasi-identifier without a hierarchy gets a default interval hierarchy, said in the report
    no_age = 'Gender = "gender.csv"\n"Zip-code" = "zip.csv"'
    assert main(["run", _job(workdir, 'name = "mst"\nk = 3', hierarchies=no_age), "--quiet"]) == 0
    report = json.loads((workdir / "out.report.json").read_text())
    assert report["verification"]["passed"] is True
    assert any("Age" in note for note in report["notes"])
