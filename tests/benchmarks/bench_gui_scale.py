"""The workbench with large tables (issue 15 item 10b): the longest GUI freeze in each step, at several sizes.

For each size an Adult-like table with real diversity (``core.generate.adult_like_table``: 9 columns, ages,
hours, countries … drawn independently, not resampled rows) is written to CSV and driven through the window as a
user would: **open** it (read on a worker), set 5 quasi-identifiers and their hierarchies (**roles**), **run**
Mondrian (k = 10) until its results are on screen, **save** the project and **reopen** it. A 20 ms timer runs
throughout; printed per step: its duration and the longest gap between two ticks (a freeze the user feels) with where its
time went — CPU time of the GUI thread (work in a slot), of the other threads (a worker holding the interpreter
lock, or a nogil kernel) and the rest (our threads waited for a CPU: the machine was busy) — and the process's
peak memory. Targets: no gap over 100 ms, peak ≤ 1.5 GB at 1M rows.

Before the first step the window waits for its start-up preload (the engine's imports on a background thread,
:func:`anonstudio.gui.workers.preload_engine`), as a user does while choosing a file; the preload's own
longest freeze is printed as a step of its own ("start-up"). After the save, a second run is **cancelled**
inside the Mondrian kernel: printed is the time from Cancel to "Cancelled" on screen, and whether the first
run's result is still the one shown.

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. python tests/benchmarks/bench_gui_scale.py [--rows 30000,300000,1000000] [--repeat 3]

Each size runs in its own process (peak memory is per size); with ``--repeat`` each size runs that many times
and the median of each figure is printed after the single runs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import statistics
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
    from anonstudio.gui.workers import collect_garbage_in_gui_thread, measure_responsiveness

    app = make_application([])
    collect_garbage_in_gui_thread(freeze_after_preload=True)  # as anonstudio.gui.app.main does
    folder = Path(tempfile.mkdtemp(prefix="anonstudio-scale-"))
    path = folder / f"adult-{rows}.csv"
    adult_like_table(rows, 7).to_csv(path, sep=";", index=False)
    from PySide6.QtWidgets import QMessageBox

    for kind in ("question", "warning", "critical"):  # a dialog would wait for a user forever: say so instead
        setattr(QMessageBox, kind, staticmethod(lambda *a, kind=kind, **k: print(f"  (dialog: {kind}: {a[1:3]})")
                                                 or QMessageBox.StandardButton.Discard))
    window = MainWindow(settings=QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat))
    window.resize(1400, 900)
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
            ended = stats["worst_gap_at"] + stats["max_gap_ms"] / 1000  # the gap holds the first pane's drawing
            where = "while results were drawn" if ended >= marks["drawing"] else "while the worker ran"
        if stats["max_gap_ms"] > blocked[0]:  # where the longest gap's time went (CPU time of the threads)
            where += (f" (GUI thread {stats['worst_gui_cpu_ms']:.0f}, other threads {stats['worst_other_cpu_ms']:.0f}"
                      f", no thread of ours on a CPU {stats['worst_idle_ms']:.0f} ms)")
        else:
            where += " (the action itself, on the GUI thread)"
        steps.append((name, stats["elapsed_s"], max(stats["max_gap_ms"], blocked[0]), where))
        marks.clear()

    singles: list[float] = []

    def measure_one(action) -> None:
        started = time.perf_counter()
        action()
        app.processEvents()  # what the action queued for the next turn of the event loop belongs to it
        singles.append((time.perf_counter() - started) * 1000)

    from anonstudio.gui import workers

    step("start-up (window shown, engine preloaded)", window.show, lambda: workers.preload_state == "done")
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
    cancel_ms, kept = cancel_inside_the_kernel(window, app)
    if cancel_ms is None:  # the run finished before Cancel could land in the kernel: save its result too
        window.save_project_to(project)
    reopened: list = []
    window.projectOpened.connect(reopened.append)
    step("reopen project", lambda: window.open_project(project, wait=False), lambda: bool(reopened) and not window.runner.busy)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{rows:,} rows × 9 columns{'' if ok else ' (the run did not finish)'}: peak memory {peak:,.0f} MB")
    for name, seconds, gap, where in steps:
        print(f"  {name:<55} {seconds:7.2f} s   longest freeze {gap:6.0f} ms{'' if gap <= 100 else '  > 100 ms'} {where}")
    if cancel_ms is None:
        print(f"  {'cancel inside the Mondrian kernel':<55} not measured: the kernel finished before the bar moved")
    else:
        print(f"  {'cancel inside the Mondrian kernel':<55} 'Cancelled' after {cancel_ms:6.0f} ms"
              f"{'' if cancel_ms <= 500 else '  > 500 ms'}; the previous state {'intact' if kept else 'CHANGED'}")
    figures = {name: gap for name, _, gap, _ in steps} | {"peak memory (MB)": peak}
    if cancel_ms is not None:
        figures["cancel (ms)"] = cancel_ms
    print("FIGURES " + json.dumps(figures), flush=True)
    window.state.dirty = False
    window.close()


def cancel_inside_the_kernel(window, app) -> tuple[float | None, bool]:
    """Start the same run again, press Cancel once the kernel has labelled records (the bar moves past 0 %
    in "partitioning"), and time Cancel → "Cancelled". Returns (ms, whether the previous state — result shown,
    unsaved changes — is intact); ms is None when the run finished first (a small table)."""
    previous, dirty = window.state.outcome, window.state.dirty
    done: list = []
    window.runFinished.connect(done.append)
    window.start_run(window.state.method, dict(window.state.params))  # Run again, as the Method pane says
    deadline = time.perf_counter() + 600
    while time.perf_counter() < deadline:
        message = window.statusBar().currentMessage()
        if ("partitioning" in message and "(0%)" not in message) or done:
            break
        app.processEvents()
        time.sleep(0.002)
    pressed = time.perf_counter()
    window.cancel_run()
    while not done and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.001)
    waited = (time.perf_counter() - pressed) * 1000
    while window.runner.busy and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.002)
    window.runFinished.disconnect(done.append)
    if done and done[0] is not None:
        return None, True
    return waited, done == [None] and window.state.outcome is previous and window.state.dirty == dirty


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="30000,300000,1000000")
    ap.add_argument("--repeat", type=int, default=1, help="runs per size (medians are printed after them)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(args.one)
        return
    sizes = [int(r) for r in args.rows.split(",")]
    runs: dict[int, list[dict]] = {rows: [] for rows in sizes}
    for _ in range(max(args.repeat, 1)):
        for rows in sizes:
            done = subprocess.run([sys.executable, __file__, "--one", str(rows)], check=False, text=True,
                                  stdout=subprocess.PIPE)
            for line in done.stdout.splitlines():
                if line.startswith("FIGURES "):
                    runs[rows].append(json.loads(line[len("FIGURES "):]))
                else:
                    print(line, flush=True)
    if args.repeat > 1:
        print(f"\nmedians of {args.repeat} runs (longest freeze per step, ms; cancel, ms; peak memory, MB):")
        for rows in sizes:
            names = list(runs[rows][0]) if runs[rows] else []
            medians = {n: statistics.median(r[n] for r in runs[rows] if n in r) for n in names}
            print(f"  {rows:>9,}: " + "; ".join(f"{n} {v:,.0f}" for n, v in medians.items()))


if __name__ == "__main__":
    main()
