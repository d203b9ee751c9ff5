"""The workbench with large tables (issue 15 item 10b): the longest GUI freeze in each step, at several sizes.

For each size an Adult-like table with real diversity (``core.generate.adult_like_table``: 9 columns, ages,
hours, countries … drawn independently, not resampled rows) is written to CSV and driven through the window as a
user would: **open** it (read on a worker), set 5 quasi-identifiers and their hierarchies (**roles**), **run**
Mondrian (k = 10) until its results are on screen, **save** the project and **reopen** it. A 20 ms timer runs
throughout; printed per step: its duration and the longest gap between two ticks (a freeze the user feels),
and the process's peak memory. Targets: no gap over 100 ms, peak ≤ 1.5 GB at 1M rows.

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. python tests/benchmarks/bench_gui_scale.py [--rows 30000,300000,1000000]

Each size runs in its own process (peak memory is per size).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

QIS = ["age", "workclass", "education", "sex", "native-country"]


def one(rows: int) -> None:
    from PySide6.QtCore import QSettings

    from anonstudio.core.generate import adult_hierarchies, adult_like_table
    from anonstudio.gui.app import make_application
    from anonstudio.gui.main_window import MainWindow
    from anonstudio.gui.workers import measure_responsiveness

    app = make_application([])
    folder = Path(tempfile.mkdtemp(prefix="anonstudio-scale-"))
    path = folder / f"adult-{rows}.csv"
    adult_like_table(rows, 7).to_csv(path, sep=";", index=False)
    window = MainWindow(settings=QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat))
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    steps = []
    marks: dict = {}
    present_next = window._present_next  # looked up by the window when the worker is done (GUI thread)

    def first_pane(*args) -> None:  # from the first result pane on, results are being drawn
        marks.setdefault("drawing", time.perf_counter())
        present_next(*args)

    window._present_next = first_pane

    def step(name: str, action, until) -> None:
        blocked: list[float] = []

        def timed() -> None:  # the action's own time on the GUI thread is a freeze too
            started = time.perf_counter()
            action()
            blocked.append((time.perf_counter() - started) * 1000)
            if singles:  # several user actions: each is its own freeze
                blocked[0] = max(singles)
                singles.clear()

        print(f"  … {name}", file=sys.stderr, flush=True)
        stats = measure_responsiveness(timed, until=until, tick_ms=20, timeout_s=900)
        where = ""
        if "drawing" in marks and stats["max_gap_ms"] > blocked[0]:
            where = "while results were drawn" if stats["worst_gap_at"] >= marks["drawing"] else "while the worker ran"
        steps.append((name, stats["elapsed_s"], max(stats["max_gap_ms"], blocked[0]), where))
        marks.clear()

    singles: list[float] = []

    def measure_one(action) -> None:
        started = time.perf_counter()
        action()
        app.processEvents()  # what the action queued for the next turn of the event loop belongs to it
        singles.append((time.perf_counter() - started) * 1000)

    opened: list = []
    window.dataOpened.connect(opened.append)
    step("open", lambda: window.open_data_async(path, "table"), lambda: bool(opened))

    # each role and each hierarchy is one user action (a click, a drop): the freeze a user feels is the longest one
    actions = [lambda c=col: window.state.set_role(c, "quasi-identifying") for col in QIS]
    actions += [lambda a=attr, h=h: window.panes["Hierarchies"].set_hierarchy(a, h, None)
                for attr, h in adult_hierarchies(QIS).items()]
    step("roles + hierarchies (longest of 10 actions)", lambda: [measure_one(a) for a in actions], lambda: True)
    done: list = []
    window.runFinished.connect(done.append)
    step("run Mondrian k = 10 (method, verify, metrics, views)", lambda: window.start_run("mondrian", {"k": 10}),
         lambda: bool(done) and not window.runner.busy)
    ok = bool(done) and window.state.outcome is not None
    project = folder / "p.anonstudio.json"
    step("save project", lambda: window.save_project_to(project), lambda: True)
    reopened: list = []
    window.projectOpened.connect(reopened.append)
    step("reopen project", lambda: window.open_project(project, wait=False), lambda: bool(reopened) and not window.runner.busy)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{rows:,} rows × 9 columns{'' if ok else ' (the run did not finish)'}: peak memory {peak:,.0f} MB")
    for name, seconds, gap, where in steps:
        print(f"  {name:<55} {seconds:7.2f} s   longest freeze {gap:6.0f} ms{'' if gap <= 100 else '  > 100 ms'} {where}")
    window.state.dirty = False
    window.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="30000,300000,1000000")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(args.one)
        return
    for rows in [int(r) for r in args.rows.split(",")]:
        subprocess.run([sys.executable, __file__, "--one", str(rows)], check=False)


if __name__ == "__main__":
    main()
