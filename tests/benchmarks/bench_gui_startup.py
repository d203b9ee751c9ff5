"""How long ``anonstudio gui`` takes to show its window (issue 17: ≤ 1.5 s on a warm numba cache).

Spawns ``python -m anonstudio gui`` (offscreen) N times with ``ANONSTUDIO_EXIT_AFTER_SHOW=1``: the app
prints ``shown after X.XXX s`` (from the process's start to the window painted) and quits. The same with
``--demo`` (the demo copied and its table job opened). Settings go to a temporary home, never the user's.

    QT_QPA_PLATFORM=offscreen /work/venv/bin/python tests/benchmarks/bench_gui_startup.py [N]
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET_S = 1.5


def start_once(*extra: str, home: str) -> tuple[float, float]:
    """(seconds the app reports, wall seconds until the process ended) for one start."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
               ANONSTUDIO_EXIT_AFTER_SHOW="1", HOME=home, XDG_CONFIG_HOME=home, XDG_DATA_HOME=home)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "anonstudio", "gui", *extra], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    wall = time.perf_counter() - t
    m = re.search(r"shown after ([0-9.]+) s", proc.stdout)
    if proc.returncode != 0 or m is None:
        raise SystemExit(f"anonstudio gui {' '.join(extra)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return float(m.group(1)), wall


def main(n: int = 5) -> int:
    worst = 0.0
    with tempfile.TemporaryDirectory() as home:
        start_once(home=home)  # warm the OS file cache and the numba cache
        for extra in ((), ("--demo",)):
            shown, wall = zip(*(start_once(*extra, home=home) for _ in range(n)))
            label = "anonstudio gui " + " ".join(extra)
            print(f"{label:<24} shown after: median {statistics.median(shown):.3f} s, max {max(shown):.3f} s; "
                  f"process wall: median {statistics.median(wall):.3f} s  (n = {n}, target ≤ {TARGET_S} s)")
            worst = max(worst, max(shown))
    print("OK" if worst <= TARGET_S else f"SLOW: {worst:.3f} s > {TARGET_S} s")
    return 0 if worst <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
