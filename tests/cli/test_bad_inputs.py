"""The bad-input corpus (``tests/bad_inputs/cases.csv``): one line per case, run through the real CLI."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "bad_inputs"


def _cases() -> list:
    with open(CORPUS / "cases.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [pytest.param(r["case"], r["command"], int(r["exit"]), r["message"], id=r["case"]) for r in rows]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("case", "command", "code", "message"), _cases())
def test_bad_input(case, command, code, message, tmp_path):
    work = tmp_path / case
    source = CORPUS / case
    if source.is_dir():
        shutil.copytree(source, work)
    else:
        work.mkdir()
    before = _snapshot(work)
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-m", "anonstudio", *command.split()], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    err = done.stderr
    assert done.returncode == code, f"exit {done.returncode}, expected {code}: {err[-1500:]}"
    assert message in err or message in done.stdout, f"{message!r} not in: {err[-1500:]}"
    if command.split()[0] in ("run", "verify"):
        assert done.returncode != 3, err
    if code == 2:
        lines = [line for line in err.splitlines() if line.startswith("anonstudio:")]
        assert len(lines) == 1, err
    after = _snapshot(work)
    for name, data in before.items():
        assert after.get(name) == data, f"{name} was changed"
    leftovers = [p.name for p in work.rglob(".*") if (".part" in p.name or p.name.startswith(".anonstudio."))
                 and str(p.relative_to(work)) not in before]  # (a case may plant one: it is the case's input)
    assert not leftovers, leftovers
    if code != 0:
        assert sorted(after) == sorted(before), f"a failed run wrote {sorted(set(after) - set(before))}"


def test_every_case_folder_is_listed():
    listed = {r.values[0] for r in _cases()}
    folders = {p.name for p in CORPUS.iterdir() if p.is_dir()}
    assert folders <= listed, f"case folders not in cases.csv: {sorted(folders - listed)}"


def test_a_line_longer_than_the_bound_is_exit_2_with_its_line(tmp_path):
    """(Generated here: a 1 MB file does not belong in the corpus folder.)"""
    (tmp_path / "t.csv").write_text("sex;age\nMale;" + "3" * (1 << 20) + "\n", encoding="utf-8")
    (tmp_path / "job.toml").write_text('[input]\npath = "t.csv"\nquasi_identifiers = ["sex"]\n'
                                       '[algorithm]\nname = "mondrian"\nk = 2\n[output]\npath = "o.csv"\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "t.csv:2" in done.stderr and "line 2 is 1,048,581 bytes long" in done.stderr
    assert len(done.stderr) < 400  # the cell is not echoed
