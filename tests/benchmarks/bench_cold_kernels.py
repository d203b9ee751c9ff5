"""First use after an install (empty kernel cache) against later uses, per method (issue 17 item 4).

Runs ``anonstudio warmup`` (each bundled demo job once, in a temporary folder) in fresh processes with
a fresh, empty ``NUMBA_CACHE_DIR``: the first process compiles every kernel (cold), the next ones load
them from that cache (warm). Prints each method's seconds cold and warm (median of the warm runs), their
ratio, the whole process's wall time, and the cache's size. Jobs run in name order, so a kernel several
methods share (the verifiers', the generalization kernels) is compiled by the first job that needs it.
Nothing outside a temporary folder is touched.

    PYTHONPATH=. python tests/benchmarks/bench_cold_kernels.py [--warm-runs 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^(\S+) \((\S+)\): ([0-9.]+) s$")


def warmup_once(cache: Path) -> tuple[dict[str, float], float]:
    """``{job: seconds}`` printed by one ``anonstudio warmup`` process, and its wall time."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(cache))
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "anonstudio", "warmup", "--quiet"], env=env, capture_output=True,
                         text=True, check=True).stdout
    wall = time.perf_counter() - t0
    times = {}
    for line in out.splitlines():
        m = LINE.match(line.strip())
        if m:
            times[f"{m.group(1)} ({m.group(2)})"] = float(m.group(3))
    return times, wall


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--warm-runs", type=int, default=3)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "numba"
        cold, cold_wall = warmup_once(cache)
        warm_runs = [warmup_once(cache) for _ in range(args.warm_runs)]
        size = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file())
    print(f"Per method, demo job, seconds: first use (empty cache) vs later (median of {args.warm_runs})")
    for job, sec in cold.items():
        warm = statistics.median(r[0][job] for r in warm_runs)
        print(f"  {job:<45} cold {sec:6.2f}   warm {warm:6.2f}   cold / warm {sec / warm:6.1f}x")
    warm_wall = statistics.median(r[1] for r in warm_runs)
    print(f"  whole `anonstudio warmup` process: cold {cold_wall:.1f} s, warm {warm_wall:.1f} s; "
          f"kernel cache {size / 2**20:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
