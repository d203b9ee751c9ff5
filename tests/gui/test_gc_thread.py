"""Cyclic garbage is collected in the GUI thread only: a worker thread never runs the collector."""

from __future__ import annotations

import gc
import threading

from anonstudio.gui.app import make_application
from anonstudio.gui.workers import collect_garbage_in_gui_thread


def test_the_application_turns_automatic_collection_off_and_collects_on_its_timer(qtbot):
    app = make_application()
    collector = collect_garbage_in_gui_thread()
    assert collect_garbage_in_gui_thread() is collector  # one per process
    assert not gc.isenabled() and collector.timer.isActive()
    # a worker allocating many cycles does not trigger a collection in its own thread
    seen = []

    def callback(phase, info):
        seen.append(threading.current_thread().name)

    gc.callbacks.append(callback)
    try:
        def churn():
            for _ in range(50_000):
                a = []
                a.append(a)

        t = threading.Thread(target=churn, name="worker")
        t.start()
        t.join()
        assert "worker" not in seen
        qtbot.waitUntil(lambda: "MainThread" in seen, timeout=5_000)  # the GUI thread's timer collects them
    finally:
        gc.callbacks.remove(callback)
    assert app is not None


def test_the_application_freezes_the_preloaded_modules_out_of_the_collector_and_tests_do_not(monkeypatch):
    """After the start-up preload the application calls gc.freeze(): a full collection no longer walks the
    ~160,000 objects of the imported modules (70-130 ms on the GUI thread). Only when asked (app.main)."""
    from anonstudio.gui import workers

    monkeypatch.setattr(workers, "_preload", lambda: None)
    monkeypatch.setattr(workers, "preload_state", workers.preload_state)
    gc.unfreeze()
    try:
        for asked in (False, True):
            monkeypatch.setattr(workers, "_preload_thread", None)
            monkeypatch.setattr(workers, "_FREEZE_AFTER_PRELOAD", asked)
            workers.preload_engine().join(30)
            assert workers.preload_state == "done"
            assert (gc.get_freeze_count() > 0) is asked
    finally:
        gc.unfreeze()
