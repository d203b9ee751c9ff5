"""Job files: every malformed job is refused with the file, the key and the problem (exit 2)."""

from __future__ import annotations

import textwrap

import pytest

from anonstudio.cli.main import main
from anonstudio.core import algorithms
from anonstudio.core.algorithms import Algorithm, Result
from anonstudio.core.errors import JobError, NotAvailableError, ParameterError
from anonstudio.core.jobs import load_job
from anonstudio.core.params import Param, ParamSet


class _Toy(Algorithm):
    """A test-only method used to exercise job parsing without any real method."""

    name = "toy"
    parameters = ParamSet((Param("k", "int", 2, low=2), Param("seed", "int", 1)))

    def run(self, data, hierarchies, progress=None):
        return Result(output=data, groups=None)


@pytest.fixture
def toy():
    with algorithms.registered(_Toy):
        yield


def write_job(tmp_path, body: str):
    path = tmp_path / "job.toml"
    path.write_text(textwrap.dedent(body))
    return path


GOOD = """
[input]
path = "data.csv"
quasi_identifiers = ["age"]

[algorithm]
name = "toy"
k = 3

[output]
path = "out.csv"
report = "out.report.json"
"""


def test_good_job_resolves_paths_against_the_job_file(tmp_path, toy):
    job = load_job(write_job(tmp_path, GOOD))
    assert job.input.path == (tmp_path / "data.csv").resolve()
    assert job.input.format == "table"
    assert job.output_path == (tmp_path / "out.csv").resolve()
    assert job.params == {"k": 3}
    assert job.make_algorithm().params == {"k": 3, "seed": 1}


def test_set_overrides_a_key_with_a_typed_value(tmp_path, toy):
    job = load_job(write_job(tmp_path, GOOD), ["algorithm.k=10", "output.path=other.csv"])
    assert job.params["k"] == 10
    assert job.output_path.name == "other.csv"


@pytest.mark.parametrize(
    ("edit", "error", "message"),
    [
        (lambda s: s.replace('quasi_identifiers', 'quasi_identifier'), JobError, "unknown key 'input.quasi_identifier'"),
        (lambda s: s + "\n[extra]\nx = 1\n", JobError, r"unknown section \[extra\]"),
        (lambda s: s.replace("[output]", "[outputs]"), JobError, r"unknown section \[outputs\]"),
        (lambda s: s.replace("k = 3", "k = 1"), ParameterError, "'k' must be ≥ 2, got 1"),
        (lambda s: s.replace("k = 3", 'k = "many"'), ParameterError, "whole number"),
        (lambda s: s.replace("k = 3", "kk = 3"), ParameterError, "unknown parameter 'kk'"),
        (lambda s: s.replace('"toy"', '"nonsense"'), ParameterError, "unknown method 'nonsense'"),
        (lambda s: s.replace('"out.csv"', '"data.csv"'), JobError, "inputs are never overwritten"),
        (lambda s: s.replace('path = "data.csv"', 'path = "data.xyz"'), JobError, "set input.format"),
    ],
)
def test_bad_jobs_name_the_file_and_the_key(tmp_path, toy, edit, error, message):
    path = write_job(tmp_path, edit(GOOD))
    with pytest.raises(error, match=message) as exc:
        load_job(path)
    assert str(path) in str(exc.value)


def test_a_contract_method_missing_from_this_build_is_not_available_yet(tmp_path, toy):
    path = write_job(tmp_path, GOOD.replace('"toy"', '"cbmsa-baseline"'))
    with algorithms.registered(None, name="cbmsa-baseline"), \
            pytest.raises(NotAvailableError, match="not available yet") as exc:
        load_job(path)
    assert str(path) in str(exc.value)


def test_invalid_toml_names_the_line(tmp_path):
    path = write_job(tmp_path, "[input]\npath = \n")
    with pytest.raises(JobError, match="not valid TOML") as exc:
        load_job(path)
    assert exc.value.line == 2 and f"{path}:2" in str(exc.value)


def test_cli_bad_job_is_one_line_and_exit_2(tmp_path, toy, capsys):
    path = write_job(tmp_path, GOOD.replace("k = 3", "k = 0"))
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and "'k'" in err[0]
    assert "Traceback" not in err[0]


def test_cli_missing_job_file_exit_2(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    assert "job file not found" in capsys.readouterr().err


def test_cli_bad_set_syntax(tmp_path, toy, capsys):
    path = write_job(tmp_path, GOOD)
    assert main(["run", str(path), "--set", "k10"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


def test_fasta_job_with_one_label_per_file(tmp_path):
    from anonstudio.core.jobs import load_data, parse_job

    (tmp_path / "a.fasta").write_text(">a1\nACDE\n>a2\nACDF\n")
    (tmp_path / "b.fasta").write_text(">b1\nWWYY\n")
    raw = {
        "input": {"path": ["a.fasta", "b.fasta"], "labels": ["yeast", "mouse"]},
        "algorithm": {"name": "cbmsa"},
        "output": {"path": "out.fasta"},
    }
    with algorithms.registered(None, name="cbmsa"), pytest.raises(NotAvailableError):
        parse_job(raw, base=tmp_path)  # parsing validates the method last: paths and labels passed
    raw["input"]["labels"] = ["yeast"]
    with pytest.raises(JobError, match="1 labels for 2 files"):
        parse_job(raw, base=tmp_path)
    from anonstudio.core.jobs import InputSpec

    spec = InputSpec(path=tmp_path / "a.fasta", format="fasta", more_paths=[tmp_path / "b.fasta"], labels=["yeast", "mouse"])
    data = load_data(spec)
    assert data.ids == ["a1", "a2", "b1"] and data.labels == ["yeast", "yeast", "mouse"]
    assert data.sequence(2) == "WWYY"
    (tmp_path / "c.fasta").write_text(">a1\nAAAA\n")
    spec.more_paths = [tmp_path / "c.fasta"]
    with pytest.raises(Exception, match="'a1' appears in two files"):
        load_data(spec)
