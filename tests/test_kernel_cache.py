"""The numba kernel cache lives in the user's cache folder, never beside the installed package (which may
be read-only), and an unwritable home falls back to a temporary folder with a warning instead of failing
("no locator available" on 05ef630)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
outcome = jobs.anonymize(table, adult_hierarchies(qis), get("mondrian")(k=5))
assert outcome.verification.passed
from anonstudio.core.kernels import _CACHE, cache_folder
print(_CACHE["fallback"] or cache_folder())
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
    done = _run("from anonstudio.core.kernels import cache_folder; print(cache_folder())",
                NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert done.stdout.strip() == str(tmp_path / "mine")


def _package_copy(tmp_path: Path) -> Path:
    """A copy of the package in a folder of its own, as an installation would be: numba must write nothing there."""
    import shutil

    target = tmp_path / "site"
    shutil.copytree(ROOT / "anonstudio", target / "anonstudio",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return target


def _cached_beside_the_package(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*") if p.suffix in (".nbi", ".nbc"))


def _blocker(tmp_path: Path) -> Path:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    return blocker


@pytest.mark.parametrize("chosen", ["a file", "under a file", "under /proc"])
def test_an_unusable_numba_cache_dir_falls_back_once_and_never_beside_the_package(tmp_path, chosen):
    """Issue 29: an unusable ``NUMBA_CACHE_DIR`` made numba cache 13 kernels in ``anonstudio/core/kernels/
    __pycache__``. Now: a temporary folder, one warning, nothing written beside the package."""
    folder = {"a file": _blocker(tmp_path), "under a file": _blocker(tmp_path) / "cache",
              "under /proc": Path("/proc/anonstudio-cache")}[chosen]
    site = _package_copy(tmp_path)
    full = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    full.update(PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(folder), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", _RUN_MONDRIAN], env=full, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("cannot write the kernel cache") == 1, done.stderr
    assert _cached_beside_the_package(site) == []
    used = Path(done.stdout.strip())
    assert used.name.startswith("anonstudio-numba-") and not used.exists()  # removed at exit


def test_a_cache_folder_that_breaks_after_start_falls_back_too(tmp_path):
    """The folder worked when anonstudio was imported and is gone (a file in its place) when the first kernel
    is compiled: numba's own fallback would be the package's ``__pycache__``; ours is a temporary folder."""
    site = _package_copy(tmp_path)
    folder = tmp_path / "cache"
    code = ("import os, shutil\n"
            "from anonstudio.core.kernels import cache_folder\ncache_folder()\n"  # decided (and made) here
            f"shutil.rmtree({str(folder)!r})\nopen({str(folder)!r}, 'w').close()\n"
            + _RUN_MONDRIAN)
    full = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    full.update(PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(folder), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("cannot write the kernel cache") == 1, done.stderr
    assert _cached_beside_the_package(site) == []


def test_the_command_line_says_it_in_one_line(tmp_path):
    site = _package_copy(tmp_path)
    full = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    full.update(PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(_blocker(tmp_path)), PYTHONDONTWRITEBYTECODE="1")
    (tmp_path / "t.csv").write_text("sex,age\n" + "".join(f"{s},{a}\n" for s in ("Male", "Female") for a in range(20, 40)))
    (tmp_path / "job.toml").write_text('[input]\npath = "t.csv"\nquasi_identifiers = ["age"]\n[algorithm]\n'
                                       'name = "mondrian"\nk = 4\n[output]\npath = "o.csv"\n')
    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml", "--quiet"], cwd=tmp_path,
                          env=full, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "kernel cache" in line]
    assert len(lines) == 1 and lines[0].startswith("anonstudio: warning: cannot write the kernel cache")
    assert "warnings.warn" not in done.stderr  # no Python source line after it
    assert _cached_beside_the_package(site) == []
