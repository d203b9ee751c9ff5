"""The numba kernel cache lives in the user's cache folder, never beside the installed package (which may
be read-only), and an unwritable home falls back to a temporary folder with a warning instead of failing
("no locator available" on 05ef630)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, **env) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    full.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=300)


_RUN_MONDRIAN = """
import os
from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.generate import adult_hierarchies, adult_like_table
qis = ["age", "sex", "education"]
table = Table(adult_like_table(300, seed=1)).with_roles(qis)
outcome = jobs.run(table, adult_hierarchies(qis), get("mondrian")(k=5))
assert outcome.verification.passed
print(os.environ["NUMBA_CACHE_DIR"])
"""


def test_kernels_are_cached_in_the_users_cache_folder(tmp_path):
    done = _run(_RUN_MONDRIAN, XDG_CACHE_HOME=str(tmp_path / "cache"), HOME=str(tmp_path))
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "cache" / "anonstudio" / "numba"
    assert done.stdout.strip() == str(folder)
    assert list(folder.rglob("*.nbi")), "no kernel was cached there"


def test_an_unwritable_cache_folder_falls_back_with_a_warning(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")  # XDG_CACHE_HOME under a file: nothing can be created there
    done = _run(_RUN_MONDRIAN, XDG_CACHE_HOME=str(blocker / "cache"), HOME=str(blocker))
    assert done.returncode == 0, done.stderr
    assert "cannot write the kernel cache" in done.stderr
    used = Path(done.stdout.strip())
    assert used.name.startswith("anonstudio-numba-") and not used.exists()  # removed at exit


def test_the_user_choice_wins(tmp_path):
    done = _run("import anonstudio, os; print(os.environ['NUMBA_CACHE_DIR'])", NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert done.stdout.strip() == str(tmp_path / "mine")
