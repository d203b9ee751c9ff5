"""Where compiled kernels are cached (issue 17 item 4): the user's cache folder, never the package;
a temporary folder with a warning when nothing is writable; `warm_up` runs the methods' kernels."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import warnings
warnings.simplefilter("always")
import numba  # imported first on purpose: the folder must still be applied
from anonstudio.core import kernels
print(kernels.cache_dir())
print(numba.config.CACHE_DIR)
print(kernels.CACHE_WARNING or "")
"""


def _probe(tmp_path: Path, **env_extra: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "ANONSTUDIO_CACHE_DIR")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(tmp_path / "home"), **env_extra)
    proc = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=120,
                          check=True)
    return proc.stdout.splitlines()


def test_cache_goes_to_the_xdg_cache_folder(tmp_path):
    chosen, numba_dir, warning = _probe(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert chosen == numba_dir == str(tmp_path / "xdg" / "anonstudio" / "numba")
    assert warning == ""
    assert (tmp_path / "xdg" / "anonstudio" / "numba").is_dir()


def test_explicit_folder_wins(tmp_path):
    chosen, _, _ = _probe(tmp_path, ANONSTUDIO_CACHE_DIR=str(tmp_path / "mine"))
    assert chosen == str(tmp_path / "mine" / "numba")


def test_unwritable_cache_falls_back_to_a_temporary_folder_with_a_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")  # a folder below a regular file cannot be made, not even by root
    chosen, numba_dir, warning = _probe(tmp_path, ANONSTUDIO_CACHE_DIR=str(blocker / "cache"))
    assert chosen == numba_dir and not chosen.startswith(str(blocker))
    assert os.path.isdir(chosen) is False  # removed again when that process ended
    assert "cannot write the kernel cache folder" in warning and str(blocker) in warning


def test_warm_up_runs_the_demo_job_of_a_method():
    from anonstudio.core.warmup import warm_up

    ran = warm_up(methods={"mondrian"})
    assert [m.method for m in ran] == ["mondrian"]
    assert ran[0].skipped is None and ran[0].seconds > 0
