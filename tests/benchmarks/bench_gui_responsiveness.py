"""GUI responsiveness figures (run on demand, not collected by the suite).

    QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_gui_responsiveness.py [--rows 1000000]

Prints, for a table of ``--rows`` rows: the time to show it in the data pane, the median and worst time
to scroll to a new position and repaint, and the largest event-loop gap while a run (a method that
sleeps between chunks on the worker thread) is in progress — the number that says whether the window
freezes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--scrolls", type=int, default=50)
    args = ap.parse_args()

    import numpy as np
    import pandas as pd
    from PySide6.QtCore import QSettings

    from anonstudio.core import algorithms
    from anonstudio.core.data import Table
    from anonstudio.core.hierarchy import Hierarchy
    from anonstudio.gui.app import make_application
    from anonstudio.gui.main_window import MainWindow
    from anonstudio.gui.workers import measure_responsiveness

    app = make_application()  # noqa: F841 (kept alive while the window runs)
    rng = np.random.default_rng(0)
    n = args.rows
    df = pd.DataFrame({
        "age": rng.integers(17, 90, n).astype(str),
        "sex": rng.choice(["Male", "Female"], n),
        "zip": rng.integers(10000, 99999, n).astype(str),
        "salary": rng.choice(["<=50K", ">50K"], n),
    })
    settings = QSettings(str(Path(os.environ.get("TMPDIR", "/tmp")) / "anonstudio-bench.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(1400, 900)
    window.show()

    t = time.perf_counter()
    window.state.set_data(Table(df), "bench.csv")
    window.grab()
    show_s = time.perf_counter() - t

    view = window.panes["Data"].table_view
    bar = view.verticalScrollBar()
    times = []
    for v in rng.integers(0, bar.maximum(), args.scrolls):
        t = time.perf_counter()
        bar.setValue(int(v))
        view.viewport().grab()
        times.append((time.perf_counter() - t) * 1000)

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gui"))
    from tests.gui.conftest import GeneraliseAll

    algorithms.register(GeneraliseAll)
    window.state.set_role("sex", "quasi-identifying")
    window.state.set_hierarchy("sex", Hierarchy("sex", [["Male", "*"], ["Female", "*"]]))
    stats = measure_responsiveness(lambda: window.start_run("test-root", {"k": 2, "delay": 0.05}),
                                   until=lambda: not window.runner.busy and window.worker is None, timeout_s=120)
    print(f"rows: {n:,}")
    print(f"show table in data pane: {show_s * 1000:.0f} ms")
    print(f"scroll + repaint: median {statistics.median(times):.1f} ms, worst {max(times):.1f} ms over {len(times)} jumps")
    print(f"event loop during a run: max gap {stats['max_gap_ms']:.1f} ms, median gap {stats['median_gap_ms']:.1f} ms, "
          f"run {stats['elapsed_s']:.2f} s")
    window.state.dirty = False
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
