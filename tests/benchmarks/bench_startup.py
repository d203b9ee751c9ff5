"""How long the light commands take, whole process (issue 17 item 3: ≤ 0.15 s wall on a warm file cache).

Spawns ``python -m anonstudio --help``, ``… methods`` and ``… run --help`` N times each (7 by default) after
one unmeasured warm-up run per command, and prints the median wall time and whether it meets the target.
Settings and caches go to a temporary home, never the user's. Not a test: run it by hand::

    /work/venv/bin/python tests/benchmarks/bench_startup.py [N]
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
TARGET_S = 0.15
COMMANDS = (("--help",), ("methods",), ("run", "--help"))


def run_once(argv: tuple[str, ...], home: str) -> float:
    """Wall seconds of one ``python -m anonstudio <argv>``, from spawning to the process's end."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=home, XDG_CACHE_HOME=os.path.join(home, "cache"))
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "anonstudio", *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"anonstudio {' '.join(argv)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return wall


def main(n: int = 7) -> int:
    slow = []
    with tempfile.TemporaryDirectory() as home:
        for argv in COMMANDS:
            run_once(argv, home)  # warm the OS file cache and the bytecode
            walls = [run_once(argv, home) for _ in range(n)]
            median = statistics.median(walls)
            verdict = "meets" if median <= TARGET_S else "MISSES"
            label = "anonstudio " + " ".join(argv)
            print(f"{label:<22} median {median:.3f} s (min {min(walls):.3f}, max {max(walls):.3f}; n = {n}): "
                  f"{verdict} the {TARGET_S} s target")
            if median > TARGET_S:
                slow.append(label)
    print("OK" if not slow else f"SLOW: {', '.join(slow)}")
    return 0 if not slow else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 7))
