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


def test_a_worker_object_never_changes_thread_and_hundreds_of_back_to_back_tasks_finish(qtbot):
    """The worker object stays on the GUI thread (only its run executes on the task's thread): moving it there
    and back made the task thread take Qt's affinity locks while holding the interpreter lock, and the
    workbench froze for good. Hundreds of short tasks, each started as the last one ends, all deliver their
    result to a GUI-thread receiver and leave no thread behind."""
    from PySide6.QtCore import QObject, QThread, Slot

    from anonstudio.gui.workers import RunWorker, TaskRunner

    make_application()
    runner = TaskRunner()
    gui_thread = QThread.currentThread()
    threads_seen: list[bool] = []

    class Receiver(QObject):
        def __init__(self):
            super().__init__()
            self.results: list[int] = []

        @Slot(object)
        def got(self, value):
            self.results.append(value)
            if len(self.results) < 300:
                start(len(self.results))

    receiver = Receiver()

    def task(i, progress):
        progress(0.5, "half")
        return i

    def start(i):
        worker = RunWorker(task, i)
        worker.finished.connect(receiver.got)  # before the start: a task this short may end at once
        runner.start_worker(worker)
        threads_seen.append(worker.thread() is gui_thread)

    start(0)
    qtbot.waitUntil(lambda: len(receiver.results) == 300 and not runner.busy, timeout=60_000)
    assert receiver.results == list(range(300))
    assert all(threads_seen)


def test_what_a_task_was_given_is_freed_on_the_gui_thread_even_when_its_pane_let_go_first(qtbot):
    """A pane closed while its task still runs lets go of the runner; the task thread must not then hold the
    last reference to what the task was given (a Qt object freed there deadlocked the workbench: the reading
    thread in a QObject destructor waiting for the interpreter lock). It is freed on the GUI thread."""
    import time

    from PySide6.QtCore import QObject

    from anonstudio.gui.workers import RunWorker, TaskRunner

    make_application()
    freed_on_gui_thread: list[bool] = []

    class Probe(QObject):
        def __del__(self):
            freed_on_gui_thread.append(threading.current_thread() is threading.main_thread())

    def task(probe, progress):
        time.sleep(0.3)

    runner = TaskRunner()
    runner.start_worker(RunWorker(task, Probe()))
    runner._threads.clear()  # the pane and its runner are gone (as after a shutdown whose wait timed out)
    del runner
    qtbot.waitUntil(lambda: bool(freed_on_gui_thread), timeout=10_000)
    assert freed_on_gui_thread == [True]
