"""Issue 44 item 10: an I/O error where a publication reads back its staged output, to verify it, is an I/O
error (exit 2, naming the failure), never a privacy verdict: it was reported as "k-anonymity: FAILED … cannot be
read: Input/output error" (exit 1) for a table and escaped as an internal error (exit 3) for FASTA.

The error is injected in the real command: a wrapper makes every read of a staging file
(``.anonstudio.part.…``) fail with ``EIO`` (the reader's ``open``), the rest of the run is untouched. Nothing is
published, no staging file is left, and the next run without the fault publishes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults import _sweep

pytestmark = pytest.mark.faults

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = """
import builtins, errno, os, sys
from anonstudio.core.io import _common
def failing_open(file, *args, **kwargs):
    if os.path.basename(os.fspath(file)).startswith(".anonstudio.part."):
        raise OSError(errno.EIO, os.strerror(errno.EIO), os.fspath(file))
    return builtins.open(file, *args, **kwargs)
_common.open = failing_open
from anonstudio.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("job", ["table-mondrian.toml", "proteins-condensation.toml"])
def test_an_io_error_reading_back_the_staged_output_is_exit_2_and_publishes_nothing(tmp_path, job):
    from anonstudio.resources import demo_folder

    work = tmp_path / "demo"
    shutil.copytree(demo_folder(), work, ignore=shutil.ignore_patterns("*.py", "__pycache__", "results"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", WRAPPER, "run", job], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    said = [line for line in done.stderr.splitlines() if line.startswith("anonstudio:")]
    assert len(said) == 1, done.stderr[-2000:]
    assert "could not be read back to verify it as written: cannot be read: Input/output error" in said[0]
    assert ".anonstudio.part." not in said[0]  # it names the release's file, not the staging file
    assert "FAILED" not in done.stderr and "internal error" not in done.stderr
    results = work / "results"
    assert not results.exists() or [p.name for p in results.iterdir()] == [], "a release was published"
    assert _sweep.leftovers(results) == [] if results.exists() else True
    again = subprocess.run([sys.executable, "-m", "anonstudio", "run", job], cwd=work, env=env, capture_output=True,
                           text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
