"""Issue 29, item 1: an interrupted publication is rolled forward or back by the next run, by ``anonstudio
verify`` and by the workbench's open — whichever comes first — from the journal it left."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anonstudio.core import jobs
from anonstudio.core.errors import OutputError
from anonstudio.core.io import JOURNAL_PREFIX

from tests.cli._small_job import JOB, write_small_job

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def interrupted(tmp_path, monkeypatch) -> Path:
    """A folder whose release k = 5 was being replaced by k = 9 when the disk failed twice: the report's rename
    and then its restore failed, so the journal is left, the report is missing and the output is the old one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    write_small_job(tmp_path, 300)
    (tmp_path / "job9.toml").write_text(JOB.format(k=9))
    jobs.run_job(jobs.load_job(tmp_path / "job.toml"))
    old = (tmp_path / "out" / "o.csv").read_bytes()
    real = os.replace

    def replace(src, dst, *a, **k):
        if Path(dst) == tmp_path / "out" / "o.json":
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OutputError, match="rolling back failed too"):
        jobs.run_job(jobs.load_job(tmp_path / "job9.toml"))
    monkeypatch.undo()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    out = tmp_path / "out"
    assert [p.name for p in out.iterdir() if p.name.startswith(JOURNAL_PREFIX)]
    assert not (out / "o.json").exists() and (out / "o.csv").read_bytes() == old
    return tmp_path


def _clean(folder: Path) -> bool:
    return not [p for p in (folder / "out").iterdir() if p.name.startswith(".anonstudio.")]


def test_verify_rolls_the_interrupted_publication_back_and_says_so(interrupted):
    done = subprocess.run([sys.executable, "-m", "anonstudio", "verify", "job.toml"], cwd=interrupted,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(interrupted / "xdg")),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "anonstudio: note: an interrupted publication was rolled back from its journal" in done.stderr
    assert json.loads((interrupted / "out" / "o.json").read_text())["parameters"]["k"] == 5
    assert _clean(interrupted)


def test_the_next_run_rolls_it_back_before_publishing(interrupted):
    outcome = jobs.run_job(jobs.load_job(interrupted / "job9.toml"))
    assert any("rolled back from its journal" in n for n in outcome.report["notes"])
    assert json.loads((interrupted / "out" / "o.json").read_text())["parameters"]["k"] == 9
    assert _clean(interrupted)


def test_the_workbench_open_rolls_it_back(interrupted):
    from anonstudio.core import workspace as proj

    table = proj.read_data(interrupted / "out" / "o.csv", "table")
    assert len(table.df) == 300
    assert json.loads((interrupted / "out" / "o.json").read_text())["parameters"]["k"] == 5
    assert _clean(interrupted)
