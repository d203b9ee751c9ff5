"""A kernel that calls a parallel kernel runs from numba's cache in a new process, even when it was compiled
in a process that had loaded that callee from the cache.

numba 0.68 then caches the caller without the hook that starts its parallel runtime, and the caller, loaded
first in a new process, jumped into a runtime never started: a segmentation fault, seen in a fresh-clone CI
run (``seed_pass_block`` calls the parallel ``block_distances``). Kernel modules with parallel loops start the
runtime when they are imported (:func:`anonstudio.core.kernels.parallel_runtime`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_ARRAYS = """
import numpy as np
from anonstudio.core.kernels import _condensation as K
n, L, W, B = 4, 2, 3, 2
tsym = np.full((n, L, W), -1, np.int32); tsym[:, :, 0] = 0
tval = np.ones((n, L, W)); cents = np.zeros((L, 1, B)); block = np.zeros((n, B))
order, remaining = np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64)
assigned, labels, row_of = np.zeros(n, np.bool_), np.full(n, -1, np.int64), np.zeros(n, np.int64)
"""
# 1: the parallel callee alone, compiled and cached
_CALLEE = _ARRAYS + "K.block_distances(tsym, tval, order, n, cents, B, block)\n"
# 2: the caller compiled (no group made: nothing runs) while the callee comes from the cache
_CALLER = _ARRAYS + "K.seed_pass_block(tsym, tval, 2, order, 0, remaining, n, assigned, labels, 0, 0, cents, block, row_of)\n"
# 3: a new process whose first kernel is the cached caller, running the callee's parallel loop
_RUN = _ARRAYS + """
pos, n_rem, g = K.seed_pass_block(tsym, tval, 2, order, 0, remaining, n, assigned, labels, 0, 2, cents, block,
                                  row_of)
print(g, sorted(labels.tolist()))
"""


def _python(code: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)


def test_a_cached_caller_of_a_parallel_kernel_runs_in_a_new_process(tmp_path):
    cache = tmp_path / "numba"
    for step in (_CALLEE, _CALLER):
        done = _python(step, cache)
        assert done.returncode == 0, done.stderr[-2000:]
    run = _python(_RUN, cache)
    assert run.returncode == 0, run.stderr[-2000:]  # -11 (a segmentation fault) before the fix
    assert run.stdout.split() == ["2", "[0,", "0,", "1,", "1]"]
