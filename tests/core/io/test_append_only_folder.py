"""Issue 44 item 10: an append-only output folder collected a new staging file per failed run.

A folder whose entries cannot be removed or renamed is refused before anything is written there, with one
message naming the folder; the real attribute (``chattr +a``, root on ext4 and the like) is used where it can be
set, and the flag reader is replaced by a double elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from anonstudio.core.errors import OutputError
from anonstudio.core.io import _atomic, _folder_flags
from anonstudio.core.io._atomic import Publication, atomic_write

ROOT = Path(__file__).resolve().parents[3]
JOB = """[input]
path = "people.csv"
quasi_identifiers = ["age"]
[algorithm]
name = "mst"
k = 3
[output]
path = "out/release.csv"
report = "out/release.json"
"""


@pytest.fixture
def append_only(tmp_path):
    """A real append-only folder (``chattr +a``), or a skip where the attribute cannot be set here."""
    folder = tmp_path / "out"
    folder.mkdir()
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed")
    done = subprocess.run(["chattr", "+a", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make an append-only folder here: {done.stderr.strip()[:120]}")
    yield folder
    subprocess.run(["chattr", "-a", str(folder)], check=False)


def test_the_command_refuses_an_append_only_folder_and_leaves_nothing(append_only, tmp_path):
    from anonstudio.core.generate import adult_like_table

    adult_like_table(200, seed=4).to_csv(tmp_path / "people.csv", index=False)
    (tmp_path / "job.toml").write_text(JOB)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    for _ in range(3):  # run after failed run: still nothing left in the folder
        done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "append-only" in lines[0] and str(append_only) in lines[0], done.stderr
        assert os.listdir(append_only) == []


def test_a_publication_and_a_single_file_refuse_before_creating_anything(monkeypatch, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    monkeypatch.setattr(_folder_flags, "undeletable_reason", lambda f: "append-only")
    with pytest.raises(OutputError, match="append-only") as caught:
        with Publication(folder / "a.csv", folder / "a.json") as pub:
            pub.stage(folder / "a.csv").write_text("x\n")
    assert caught.value.file == str(folder)
    with pytest.raises(OutputError, match="append-only"):
        with atomic_write(folder / "b.csv") as fh:
            fh.write("x\n")
    assert os.listdir(folder) == []


def test_recovery_still_reads_such_a_folder(monkeypatch, tmp_path):
    """verify and the workbench's open recover folders without writing a release: an append-only folder is
    no reason to refuse them."""
    monkeypatch.setattr(_folder_flags, "undeletable_reason", lambda f: "append-only")
    assert _atomic.recover(tmp_path / "x.csv") == []


def test_an_ordinary_folder_is_not_taken_for_append_only(tmp_path):
    assert _folder_flags.undeletable_reason(tmp_path) is None
    assert _folder_flags.undeletable_reason(tmp_path / "missing") is None
