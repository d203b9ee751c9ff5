"""Condensation driven the way users drive it: a job file through ``anonstudio run`` / ``verify``."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from anonstudio.cli.main import main

LETTERS = np.array(list("ACDEFGHIKLMNPQRSTVWY"))


def write_fasta(path, n=90, seed=0, lo=40, hi=90, extra=""):
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for i in range(n):
            fh.write(f">sp|P{i:05d}|TEST_{i} some protein OS=Testus\n")
            fh.write("".join(rng.choice(LETTERS, int(rng.integers(lo, hi)))) + "\n")
        fh.write(extra)
    return path


def write_job(folder, algorithm: str, input_name="in.fasta", input_extra=""):
    job = folder / "job.toml"
    job.write_text(
        f'[input]\npath = "{input_name}"\n{input_extra}\n'
        f'[algorithm]\nname = "condensation"\n{algorithm}\n'
        '[output]\npath = "out.fasta"\nreport = "out.report.json"\n'
    )
    return job


def test_run_writes_fasta_and_report_then_verify_passes(tmp_path, capsys):
    write_fasta(tmp_path / "in.fasta")
    job = write_job(tmp_path, "k = 10\nepsilon = 1.0\norder = 3\nseed = 4")
    assert main(["run", str(job), "--quiet"]) == 0
    text = (tmp_path / "out.fasta").read_text()
    headers = [line[1:] for line in text.splitlines() if line.startswith(">")]
    assert headers and all(re.fullmatch(r"pseudo_\d+ segment=\d+ group=\d+", h) for h in headers)
    assert "TEST_" not in text and "sp|" not in text
    assert all(len(line) <= 60 for line in text.splitlines() if not line.startswith(">"))
    report = json.loads((tmp_path / "out.report.json").read_text())
    assert report["algorithm"] == "condensation"
    assert report["parameters"]["order"] == 3
    assert report["verification"]["passed"] is True and report["verification"]["model"] == "pseudo-strings"
    assert report["groups"]["min_size"] >= 10
    m = report["metrics"]
    assert 0 <= m["CD"] < 0.2 and m["exact_copies"] == 0
    assert 0 <= m["distance_order_preserved"] <= 1
    assert report["output"]["records"] == len(headers) == 90 - report["suppressed"]
    capsys.readouterr()
    assert main(["verify", str(job)]) == 0
    assert "passed" in capsys.readouterr().out


def test_set_override_and_same_seed_same_file(tmp_path):
    write_fasta(tmp_path / "in.fasta")
    job = write_job(tmp_path, "k = 10\nseed = 1")
    assert main(["run", str(job), "--quiet", "--set", "algorithm.seed=9"]) == 0
    first = (tmp_path / "out.fasta").read_text()
    assert main(["run", str(job), "--quiet", "--set", "algorithm.seed=9"]) == 0
    assert (tmp_path / "out.fasta").read_text() == first
    report = json.loads((tmp_path / "out.report.json").read_text())
    assert "seed" not in report["parameters"]  # a seed is kept in the job only
    assert "the seed is not published in this report" in report["notes"]


@pytest.mark.parametrize(
    "algorithm, words",
    [
        ("k = 1", ["job.toml", "'k'", "≥ 2"]),
        ("k = 10\nepsilon = 0", ["job.toml", "'epsilon'", "> 0"]),
        ("k = 10\norder = 1", ["job.toml", "'order'", "≥ 2"]),
        ("k = 500", ["in.fasta", "k = 500", "90"]),
    ],
)
def test_bad_parameters_exit_2_naming_the_file(tmp_path, capsys, algorithm, words):
    write_fasta(tmp_path / "in.fasta")
    job = write_job(tmp_path, algorithm)
    assert main(["run", str(job)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    for w in words:
        assert w in err
    assert not (tmp_path / "out.fasta").exists()


def test_alphabet_mismatch_exit_2_naming_record_and_line(tmp_path, capsys):
    write_fasta(tmp_path / "in.fasta", n=30, extra=">odd one\nACDEBZ\n")
    job = write_job(tmp_path, "k = 5", input_extra='alphabet = "protein-20"')
    assert main(["run", str(job)]) == 2
    err = capsys.readouterr().err
    assert "in.fasta" in err and "odd" in err and "'B'" in err and ":62" in err
    assert not (tmp_path / "out.fasta").exists()


def test_two_files_one_class_each_report_knn_accuracy(tmp_path):
    # class A from hydrophobic letters, class B from charged ones: k-NN separates them, trained either way
    rng = np.random.default_rng(3)
    for name, letters in (("a.fasta", list("AILMFVW")), ("b.fasta", list("DEKRHNQ"))):
        with open(tmp_path / name, "w") as fh:
            for i in range(40):
                fh.write(f">{name[0]}{i}\n{''.join(rng.choice(letters, int(rng.integers(30, 50))))}\n")
    job = tmp_path / "job.toml"
    job.write_text('[input]\npath = ["a.fasta", "b.fasta"]\nlabels = ["A", "B"]\n'
                   '[algorithm]\nname = "condensation"\nk = 5\n'
                   '[output]\npath = "out.fasta"\nreport = "out.report.json"\n')
    assert main(["run", str(job), "--quiet"]) == 0
    m = json.loads((tmp_path / "out.report.json").read_text())["metrics"]
    assert m["knn_accuracy_original"] == 1.0 and m["knn_accuracy_pseudo"] == 1.0
