"""The ``anonstudio`` command as a process of its own (``cli.main.entry``, issue 17: a whole Mondrian run in
<= 1 s): kernels are loaded from numba's cache without readying numba's compiler, and the process leaves
without tearing the interpreter down. Both must change nothing a user sees: the same output files, exit
codes and messages as the engine run in-process, threads finished, ``atexit`` handlers run, both streams
complete."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from anonstudio.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "anonstudio" / "resources" / "demo"

#: counts the times numba readies its compiler (``BaseContext.refresh``: every typing and lowering registry)
_PROBE = """
import numba.core.base
readied = []
_refresh = numba.core.base.BaseContext.refresh
def refresh(self):
    readied.append(self)
    return _refresh(self)
numba.core.base.BaseContext.refresh = refresh
"""

#: runs ``anonstudio ARGS`` as the installed command does, and says at exit whether numba readied its compiler
_COMMAND = _PROBE + """
import atexit, sys
atexit.register(lambda: print("compiler readied:", bool(readied), file=sys.stderr))
sys.argv = ["anonstudio", *{args!r}]
from anonstudio.cli.main import entry
entry()
raise SystemExit("entry() returned")
"""


def _command(args: list[str], cwd: Path, code: str = _COMMAND, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONUNBUFFERED", None)  # the streams are buffered for a user: leaving must flush them
    return subprocess.run([sys.executable, "-X", "faulthandler", "-c", code.format(args=args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture()
def demo(tmp_path) -> Path:
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns("results", "*.py"))
    return folder


def _output_of(job: Path) -> Path:
    import tomllib

    return job.parent / tomllib.loads(job.read_text())["output"]["path"]


@pytest.mark.parametrize("job", ["table-mondrian.toml", "proteins-condensation.toml", "events-cbmsa.toml"])
def test_a_warm_command_runs_cached_kernels_without_numbas_compiler_and_writes_what_the_engine_writes(demo, job):
    path = demo / job
    first = _command(["run", job, "--quiet"], demo)  # compiles what the shared kernel cache lacks
    assert first.returncode == 0, first.stderr[-2000:]
    out = _output_of(path)
    out.unlink()
    warm = _command(["run", job, "--quiet"], demo)
    assert warm.returncode == 0, warm.stderr[-2000:]
    # the kernels came from the cache without numba's typing and lowering registries
    assert "compiler readied: False" in warm.stderr
    by_command = out.read_bytes()
    out.unlink()
    assert main(["run", str(path), "--quiet"]) == 0  # the engine in this process, numba's own loading
    assert out.read_bytes() == by_command


def test_a_kernel_compiled_after_a_lean_load_still_compiles_and_runs(tmp_path):
    code = _PROBE + """
import numpy as np
from anonstudio.core.kernels import lean_cache_loads
lean_cache_loads()
from anonstudio.core.kernels._generalize import lca_node
print(lca_node(0, 0, np.zeros((1, 1), np.int32), np.zeros(1, np.int32)))
print("compiler readied:", bool(readied))
from numba import njit
@njit
def fresh(a):
    return np.sort(a)[::-1][0] + len({1: 2.0})
print(fresh(np.array([3.0, 9.0, 1.0])))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = None
    for _ in range(2):  # the first may compile lca_node into the shared cache; the second loads it
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[1:3] == ["compiler readied: False", "10.0"]


def test_leaving_waits_for_threads_runs_exit_handlers_flushes_and_keeps_the_exit_code(tmp_path):
    """(An idle thread pool left open hung the quick exit, which joined its worker without the wake-up
    Python's own exit sends first.)"""
    code = """
import atexit, concurrent.futures, sys, threading, time
from pathlib import Path
def late():
    time.sleep(0.3)
    Path("thread-done").write_text("yes")
threading.Thread(target=late).start()
pool = concurrent.futures.ThreadPoolExecutor(1)  # left open and idle: its worker waits to be woken at exit
pool.submit(int).result()
atexit.register(lambda: sys.stdout.write("exit handler ran"))
sys.argv = ["anonstudio", *{args!r}]
from anonstudio.cli.main import entry
entry()
"""
    listed = _command(["methods"], tmp_path, code, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert (tmp_path / "thread-done").read_text() == "yes"
    assert listed.stdout.endswith("exit handler ran")
    for name in ("mondrian", "kmember", "mst", "ra", "anatomy", "condensation", "cbmsa"):
        assert name in listed.stdout  # the whole listing came out, not a buffer's first part

    missing = _command(["run", "no-such-job.toml"], tmp_path, code, timeout=120)
    assert missing.returncode == 2
    assert "no-such-job.toml" in missing.stderr and missing.stderr.count("\n") == 1
