"""First run on an empty kernel cache against a warm one (issue 41 item 3; issue 17 item 4): Mondrian on the
Adult-like demo table (``table-mondrian.toml``), whole ``anonstudio run`` processes.

Three figures, each the median of ``--runs`` processes:

- **cold**: a fresh, empty ``NUMBA_CACHE_DIR`` per process, the package without a shipped kernel cache: every
  kernel the job calls is compiled;
- **warm**: one cache folder the first (untimed) run filled;
- **cold, shipped cache**: the package copied to a second folder (a different path, fresh file times — what a
  fresh install is) after ``packaging/build-kernel-cache``'s step was done in the first one (here for this job:
  its run with ``NUMBA_CACHE_DIR`` at ``anonstudio/resources/kernel_cache``), then a fresh, empty
  ``NUMBA_CACHE_DIR`` per process: numba loads the shipped kernels if it accepts them, else compiles.

Prints the medians and the ratios cold / warm (goal ≤ 2). With ``--warmup`` it also times one cold and one warm
``anonstudio warmup`` (every demo job). Nothing outside a temporary folder is touched.

    PYTHONPATH=. python tests/benchmarks/bench_cold_kernels.py [--runs 3] [--warmup]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JOB = "table-mondrian.toml"


def env_for(package_root: Path, cache: Path, tmp: Path) -> dict:
    """A process of the package under ``package_root`` with kernel cache ``cache``; the release log and key in
    ``tmp``; byte code in a folder of its own (a pip install has it compiled: none is compiled in the timing)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), XDG_DATA_HOME=str(tmp / "xdg"),
               PYTHONPYCACHEPREFIX=str(tmp / f"pyc-{package_root.name}"))
    env["PYTHONPATH"] = str(package_root)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(cmd: list[str], env: dict, cwd: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True, text=True)
    return time.perf_counter() - t0


def copy_package(dest: Path, *, shipped_from: Path | None = None) -> Path:
    """``dest/anonstudio``: this checkout's package without its shipped cache (or with ``shipped_from``'s), files
    copied without their times (a fresh install's are new)."""
    shutil.copytree(ROOT / "anonstudio", dest / "anonstudio", copy_function=shutil.copyfile,
                    ignore=shutil.ignore_patterns("__pycache__", "kernel_cache", "results"))
    if shipped_from is not None:
        shutil.copytree(shipped_from, dest / "anonstudio" / "resources" / "kernel_cache",
                        copy_function=shutil.copyfile)
    return dest


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--warmup", action="store_true", help="also time `anonstudio warmup` cold and warm")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as name:
        tmp = Path(name)
        demo = tmp / "demo"
        shutil.copytree(ROOT / "anonstudio" / "resources" / "demo", demo,
                        ignore=shutil.ignore_patterns("*.py", "results", "__pycache__"))
        run = [sys.executable, "-m", "anonstudio", "run", JOB, "--quiet"]
        plain = copy_package(tmp / "plain")
        subprocess.run(run, env=env_for(plain, tmp / "c-untimed", tmp), cwd=demo, check=True, capture_output=True)
        cold = [timed(run, env_for(plain, tmp / f"c-cold-{i}", tmp), demo) for i in range(args.runs)]
        warm = [timed(run, env_for(plain, tmp / "c-untimed", tmp), demo) for _ in range(args.runs)]
        # packaging: the job's kernels compiled into the built package's shipped cache
        build = copy_package(tmp / "build")
        shipped = build / "anonstudio" / "resources" / "kernel_cache"
        subprocess.run(run, env=env_for(build, shipped, tmp), cwd=demo, check=True, capture_output=True)
        size = sum(f.stat().st_size for f in shipped.rglob("*") if f.is_file())
        install = copy_package(tmp / "install", shipped_from=shipped)
        subprocess.run(run, env=env_for(install, tmp / "c-untimed-install", tmp), cwd=demo, check=True,
                       capture_output=True)  # byte code of the second copy, so its timing holds none
        seeded = [timed(run, env_for(install, tmp / f"c-seeded-{i}", tmp), demo) for i in range(args.runs)]
        c, w, s = statistics.median(cold), statistics.median(warm), statistics.median(seeded)
        print(f"Mondrian, demo table ({JOB}), whole `anonstudio run` processes, median of {args.runs}:")
        print(f"  cold (empty cache, nothing shipped)   {c:6.2f} s   {' '.join(f'{t:.2f}' for t in cold)}")
        print(f"  warm                                  {w:6.2f} s   {' '.join(f'{t:.2f}' for t in warm)}")
        print(f"  cold, shipped cache ({size / 2**20:.1f} MB)       {s:6.2f} s   {' '.join(f'{t:.2f}' for t in seeded)}")
        print(f"  ratio cold / warm: {c / w:.1f} without a shipped cache, {s / w:.1f} with one (goal <= 2)")
        if args.warmup:
            cmd = [sys.executable, "-m", "anonstudio", "warmup", "--quiet"]
            wc = timed(cmd, env_for(plain, tmp / "c-warmup", tmp), tmp)
            ww = timed(cmd, env_for(plain, tmp / "c-warmup", tmp), tmp)
            print(f"  `anonstudio warmup` (every demo job): cold {wc:.1f} s, warm {ww:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
