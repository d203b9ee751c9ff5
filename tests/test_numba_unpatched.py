"""numba's internals unpatched (issue 44 item 8): the pin on numba (``TESTED_NUMBA``) exists for the patches in
:mod:`anonstudio.core.kernels`; whether a newer numba works without them is what decides if the pin can move.
``$ANONSTUDIO_NUMBA_UNPATCHED`` leaves numba's internals alone on any version (always checked, quickly); the
``numba_unpatched`` test runs every algorithm's contract and the kernels' own tests that way, compiling every kernel
cold — opt-in (``ANONSTUDIO_NUMBA_UNPATCHED_TESTS=1``), run by ``scripts/numba-newest`` in a venv of its own with
the newest numba the registry has."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_numba_patches import _python

ROOT = Path(__file__).resolve().parents[1]
#: the tests run with the patches off: each method's contract (output verified, seed reproduces, cancel stops) and
#: the kernels' own tests
UNPATCHED_SUITE = ("tests/core/algorithms/test_algorithm_contract.py",
                   "tests/core/algorithms/test_condensation_kernels.py")


def test_the_switch_leaves_numbas_internals_alone_on_a_tested_numba(tmp_path):
    code = """
from numba.core import caching
chain, load = list(caching.CacheImpl._locator_classes), caching.Cache.load_overload
from anonstudio.core.kernels import disk_cache, lean_cache_loads, patches_on
import anonstudio.core.kernels._mondrian  # a kernel module loads: where the patches would go in
lean_cache_loads()
assert not patches_on() and not disk_cache()
assert caching.CacheImpl._locator_classes == chain, "a locator was installed"
assert caching.Cache.load_overload is load, "numba's cache loading was replaced"
print("ok")
"""
    done = _python(code, tmp_path, ANONSTUDIO_NUMBA_UNPATCHED="1")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert "$ANONSTUDIO_NUMBA_UNPATCHED is set: kernels are compiled for this process only" in done.stderr
    on = _python("from anonstudio.core.kernels import patches_on\nprint(patches_on())", tmp_path,
                 ANONSTUDIO_NUMBA_UNPATCHED="0")
    assert on.stdout.strip() == "True", on.stderr  # "0" is off: the patches stay on a tested numba


@pytest.mark.numba_unpatched
@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("ANONSTUDIO_NUMBA_UNPATCHED_TESTS"),
                    reason="opt-in: ANONSTUDIO_NUMBA_UNPATCHED_TESTS=1 (scripts/numba-newest)")
def test_every_method_and_kernel_passes_with_numbas_internals_unpatched(tmp_path):
    import numba

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "ANONSTUDIO_NUMBA_UNPATCHED_TESTS")}
    env.update(ANONSTUDIO_NUMBA_UNPATCHED="1", XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT),
               QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *UNPATCHED_SUITE],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000)
    tail = "\n".join(done.stdout.splitlines()[-15:])
    assert done.returncode == 0, f"numba {numba.__version__}, patches off:\n{tail}\n{done.stderr[-2000:]}"
