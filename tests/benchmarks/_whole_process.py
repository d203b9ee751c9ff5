"""Whole-process timing of ``anonstudio run JOB`` for the benchmarks: the median wall time of n runs, and
where one run's time goes (one extra run under cProfile, whose cumulative times are split by phase).

    PYTHONPATH=. python tests/benchmarks/_whole_process.py JOB.toml [n]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (label, file suffix, function name) of the phases, as cProfile names them
PHASES = [
    ("read input", "core/jobs.py", "load_data"),
    ("read hierarchies", "core/jobs.py", "load_hierarchies"),
    ("algorithm", "core/algorithms/", "run"),
    ("verification", "core/privacy/__init__.py", "verify_output"),
    ("metrics", "core/algorithms/", "evaluate"),
    ("write output + report", "core/jobs.py", "write_outputs"),
]


#: compiled bytecode of the measured processes: pip compiles an installed package's modules when it installs
#: it, so a user's command never compiles anonstudio's source on start; this checkout runs from source, and
#: a machine with PYTHONDONTWRITEBYTECODE set (these build machines) would compile ~50 modules on every run
_PYCACHE = Path(tempfile.gettempdir()) / "anonstudio-bench-pycache"

#: the profiled run: what ``anonstudio`` (``cli.main.entry``) does, but returning, so cProfile can write
_PROFILED = """
import sys
from anonstudio.cli.main import main, prepare_process
prepare_process(sys.argv[1:])
sys.exit(main(sys.argv[1:]))
"""


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
    return env


def whole_process(job: Path, n: int = 5) -> tuple[float, list[float]]:
    """Median wall seconds of ``n`` ``anonstudio run JOB --quiet`` processes (after one untimed run, which
    also writes the bytecode cache, :data:`_PYCACHE`)."""
    cmd = [sys.executable, "-m", "anonstudio", "run", str(job), "--quiet"]
    subprocess.run(cmd, check=True, capture_output=True, cwd=job.parent, env=_env())
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, cwd=job.parent, env=_env())
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def phase_split(job: Path) -> dict[str, float]:
    """Seconds per phase of one run under cProfile: start-up (interpreter, imports, job file), the phases of
    :data:`PHASES`, and — inside them — numba loading compiled kernels from its cache."""
    with tempfile.TemporaryDirectory() as tmp:
        prof = Path(tmp) / "run.prof"
        script = Path(tmp) / "anonstudio_run.py"
        script.write_text(_PROFILED)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(prof), str(script), "run", str(job), "--quiet"],
                       check=True, capture_output=True, cwd=job.parent, env=_env())
        wall = time.perf_counter() - t0
        import pstats

        stats = pstats.Stats(str(prof)).stats
    out: dict[str, float] = {"whole process (profiled)": wall}
    by_name: dict[tuple[str, str], float] = {}
    for (file, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.items():
        f = file.replace(os.sep, "/")
        for label, suffix, fn in PHASES:
            if name == fn and suffix in f and "/anonstudio/" in f:
                by_name[(label, f)] = max(by_name.get((label, f), 0.0), ct)
        if name == "run_job" and f.endswith("core/jobs.py"):
            out["_run_job"] = ct
        if name == "_compile_for_args" and "numba" in f:
            out["numba cache loads (inside the phases)"] = ct
    for label, _suffix, _fn in PHASES:
        out[label] = max((v for (lab, _f), v in by_name.items() if lab == label), default=0.0)
    out["start-up and exit (interpreter, imports, job file)"] = wall - out.pop("_run_job", 0.0)
    return out


def print_report(job: Path, n: int = 5, target: float | None = None, label: str = "anonstudio run") -> float:
    med, times = whole_process(job, n)
    goal = f" (target <= {target:g} s)" if target is not None else ""
    print(f"  {label}, whole process: median {med:.2f} s of {n} [{', '.join(f'{t:.2f}' for t in times)}]{goal}")
    split = phase_split(job)
    for k, v in split.items():
        print(f"    {k:<45} {v:7.3f} s")
    return med


if __name__ == "__main__":
    job = Path(sys.argv[1]).resolve()
    print_report(job, int(sys.argv[2]) if len(sys.argv) > 2 else 5)
