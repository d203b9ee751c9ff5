"""Background work for the workbench — the only module that creates threads.

A task is a plain, Qt-free function taking a ``progress(fraction, message)`` callback (STYLE.md #3), for
example :func:`anonstudio.core.jobs.run`. :class:`RunWorker` runs it on a :class:`QThread` (STYLE.md #4):
the callback forwards progress as a signal and raises
:class:`~anonstudio.core.progress.Cancelled` once :meth:`RunWorker.cancel` was called, which stops the
engine at its next chunk. Exactly one of ``finished(result)``, ``failed(exception)`` or ``cancelled()``
is emitted per run; then its thread ends and is deleted. The worker object lives on the GUI thread the whole
time (only its ``run`` executes on the worker thread: see :class:`_TaskThread`), so it is freed there.

:class:`SweepWorker` runs one task per parameter point and emits ``point(dict)`` as each one arrives.

Use :func:`start` (or :meth:`TaskRunner.start`) rather than building workers by hand::

    runner = TaskRunner(parent)
    worker = RunWorker(jobs.run, request)     # a RunRequest (Workspace.request())
    worker.finished.connect(show)            # progress / failed / cancelled likewise: BEFORE the start,
    runner.start_worker(worker)              # or a short task may end before its receivers are connected
    ...
    runner.shutdown()                        # on close: cancel, quit(), wait()

Connect the signals to bound methods of objects that live in the GUI thread (widgets, panes): Qt then
queues each call to the GUI thread. A lambda or plain function has no thread and would run on the worker
thread, where touching a widget crashes. The same holds in tests: ``qtbot.waitSignal(worker.finished)``
runs pytest-qt's slot on the worker thread (an intermittent segfault); wait on the main window's
``runFinished`` / ``sweepFinished`` / ``dataOpened`` or on a GUI-thread receiver instead.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QObject, QThread, Signal, Slot

from anonstudio.core.progress import Cancelled


#: the GUI-thread garbage collector, once installed (see :func:`collect_garbage_in_gui_thread`)
_COLLECTOR: Any = None
#: whether the start-up preload ends with ``gc.freeze()`` (see :func:`collect_garbage_in_gui_thread`)
_FREEZE_AFTER_PRELOAD = False


def collect_garbage_in_gui_thread(interval: float = 0.5, *, freeze_after_preload: bool = False) -> Any:
    """Let Python's cyclic garbage collector run only in the GUI thread, on a timer (pyqtgraph's
    ``GarbageCollector``: automatic collection off, ``gc.collect`` every ``interval`` seconds from a QTimer).

    Without it a worker thread that happens to trigger a collection destroys Qt objects left over from closed
    windows or dialogs in the worker thread; that thread then holds a Qt lock while it waits for the
    interpreter lock, which the GUI thread holds while it waits for the Qt lock: the application freezes
    for good (seen as a hang of the experiments window's worker in ``read_table``). Idempotent; returns the
    collector, whose ``timer`` can be stopped (tests restore ``gc.enable()`` afterwards).

    ``freeze_after_preload`` (the application, not the tests): when :func:`preload_engine` has imported the
    engine, ``gc.freeze()`` moves the ~160,000 objects of the imported modules out of the collector's reach.
    They are never garbage, but a full collection walked them all: 70–130 ms on the GUI thread every few
    seconds (a freeze the workbench benchmark saw at 1M rows). Garbage cycles that exist at that moment (none
    at start-up) would never be collected."""
    global _COLLECTOR, _FREEZE_AFTER_PRELOAD
    _FREEZE_AFTER_PRELOAD = _FREEZE_AFTER_PRELOAD or freeze_after_preload
    if _COLLECTOR is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _COLLECTOR = GarbageCollector(interval=interval)
    return _COLLECTOR


def stop_gui_thread_collection() -> None:
    """Undo :func:`collect_garbage_in_gui_thread` (collect once now, automatic collection back on)."""
    import gc

    global _COLLECTOR
    if _COLLECTOR is not None:
        _COLLECTOR.timer.stop()
        _COLLECTOR = None
    gc.collect()
    gc.enable()


class RunWorker(QObject):
    """Runs ``func(*args, progress=callback, **kwargs)`` on a worker thread.

    Signals
    -------
    progress(float, str):
        Fraction done in [0, 1] and what is happening. Emitted at most every 50 ms (and always for 0 and 1),
        so a chatty engine cannot flood the event loop.
    finished(object):
        The function's return value.
    failed(object):
        The exception it raised (anything but ``Cancelled``).
    cancelled():
        The run stopped because :meth:`cancel` was called.
    done():
        Emitted last, after any of the three above.
    """

    progress = Signal(float, str)
    finished = Signal(object)
    failed = Signal(object)
    cancelled = Signal()
    done = Signal()

    #: minimum seconds between two progress signals
    THROTTLE = 0.05

    def __init__(self, func: Callable[..., Any], *args: Any, progress_kw: str = "progress", **kwargs: Any) -> None:
        super().__init__()
        self._func = func
        self._args = args
        self._kwargs = kwargs
        self._progress_kw = progress_kw
        self._cancel = threading.Event()
        self._last_emit = 0.0
        self.elapsed = QElapsedTimer()

    # -- called from the GUI thread ----------------------------------------------------------------------
    def cancel(self) -> None:
        """Ask the run to stop; it raises ``Cancelled`` at its next progress report."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    # -- runs on the worker thread -----------------------------------------------------------------------
    def _callback(self, fraction: float, message: str = "") -> None:
        if self._cancel.is_set():
            raise Cancelled("cancelled by the user")
        now = time.monotonic()
        if fraction <= 0.0 or fraction >= 1.0 or now - self._last_emit >= self.THROTTLE:
            self._last_emit = now
            self.progress.emit(float(fraction), str(message))

    #: whether the task runs kernels, and so first waits while the start-up preload compiles them
    #: (:func:`wait_for_kernels`); readers do not
    runs_kernels = True

    @Slot()
    def run(self) -> None:
        self.elapsed.start()
        try:
            if self._cancel.is_set():
                raise Cancelled("cancelled before it started")
            if self.runs_kernels:
                wait_for_kernels(self._callback)
            kwargs = dict(self._kwargs)
            if self._progress_kw:  # "" or None: the function takes no progress callback
                kwargs[self._progress_kw] = self._callback
            result = self._func(*self._args, **kwargs)
        except Cancelled:
            self.cancelled.emit()
        except Exception as exc:  # noqa: BLE001 — every failure goes to the GUI as a dialog
            self.failed.emit(exc)
        else:
            self.finished.emit(result)
        self.done.emit()


class ReadWorker(RunWorker):
    """A :class:`RunWorker` that reads a file (no kernels): it starts at once, even on a first start."""

    runs_kernels = False


def wait_for_kernels(progress: Callable[[float, str], None]) -> None:
    """On a worker thread: wait while the start-up preload compiles the kernels (first start after an install
    only), saying so and honouring Cancel (``progress`` raises once cancelled).

    numba adding code to its JIT on one thread while another thread runs a kernel can crash the process
    (numba issues 10563 and 10614, open), and a run started meanwhile would compile the same kernels
    anyway: it loses nothing by waiting."""
    thread = _preload_thread
    while thread is not None and thread.is_alive() and preload_state == "compiling":
        progress(0.0, "preparing kernels… (first start: compiling them once)")
        thread.join(0.1)


class SweepWorker(RunWorker):
    """Runs ``func(point, progress=...)`` for each parameter point and emits ``point(dict)`` per result.

    ``func`` returns a dict of figures for one point (e.g. ``{"k": 5, "NCP": 0.21}``); the emitted dict is
    ``{**point, **figures}``. A point that raises an :class:`~anonstudio.core.errors.AnonStudioError` is
    emitted with an ``"error"`` key and the sweep goes on; ``finished`` carries the list of all rows.
    """

    point = Signal(object)  # object, not dict: a QVariantMap would sort the keys

    def __init__(self, func: Callable[..., dict], points: Iterable[dict]) -> None:
        super().__init__(self._sweep, progress_kw="progress")
        self._point_func = func
        self._points = [dict(p) for p in points]

    def _sweep(self, progress: Callable[[float, str], None]) -> list[dict]:
        from anonstudio.core.errors import AnonStudioError
        from anonstudio.core.progress import subrange

        rows: list[dict] = []
        n = max(1, len(self._points))
        for i, p in enumerate(self._points):
            progress(i / n, f"point {i + 1} of {n}: {p}")
            try:
                figures = self._point_func(p, progress=subrange(progress, i / n, (i + 1) / n))
                row = {**p, **(figures or {})}
            except AnonStudioError as exc:
                row = {**p, "error": str(exc)}
            rows.append(row)
            self.point.emit(row)
        progress(1.0, "sweep done")
        return rows


class _Reaper(QObject):
    """Holds every task thread (and through it its worker) until its ``finished`` reaches the GUI thread.

    The task thread's ``run`` frame holds the thread object, and the thread its worker, and the worker what its
    function was given; if the GUI side let go first (a pane closed mid-read, a runner shut down after its wait
    timed out), the task thread would drop the last reference as ``run`` returns and destroy Qt objects there —
    holding Qt's locks while it waits for the interpreter lock the GUI thread holds while it waits for those
    locks: the workbench froze for good (seen under gdb: the reading thread deep in a ``QObject`` destructor
    called from a Python deallocation). Created on the GUI thread; never deleted."""

    def __init__(self) -> None:
        super().__init__()
        self.live: set[QThread] = set()

    def keep(self, thread: QThread) -> None:
        self.live.add(thread)
        thread.finished.connect(self.reap)  # queued: this object lives on the GUI thread

    @Slot()
    def reap(self) -> None:
        """Let go of the thread that finished (its Python wrapper owns it: thread and worker are freed here)."""
        thread = self.sender()
        if isinstance(thread, QThread):
            thread.wait()  # finished is emitted just before the thread ends: let it end (the wait frees the GIL)
        self.live = {t for t in self.live if t is not thread}


_REAPER: _Reaper | None = None


def _reaper() -> _Reaper:
    global _REAPER
    if _REAPER is None:
        _REAPER = _Reaper()
    return _REAPER


class _TaskThread(QThread):
    """A thread whose ``run`` is one worker's :meth:`RunWorker.run`, then ends (no event loop).

    The worker object never changes thread: it is created, connected and freed on the GUI thread, and only
    its ``run`` executes here; the signals it emits from here reach GUI-thread receivers queued (Qt picks the
    connection type by the receiver's thread at emit time). Moving it to the thread and back, as the
    worker-object pattern does, made the worker thread take Qt's thread-affinity locks while holding the
    interpreter lock, and the GUI thread, holding a Qt lock, wait for the interpreter lock: the workbench froze
    for good (seen under gdb in a thread named ``anonstudio-ReadWorker``)."""

    def __init__(self, worker: RunWorker) -> None:
        super().__init__()
        self._worker = worker

    def run(self) -> None:
        self._worker.run()


class TaskRunner(QObject):
    """Owns the threads of running workers and stops them on close.

    Signals
    -------
    idle():
        The last running task's thread has finished (``busy`` is now False).
    """

    idle = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._threads: dict[RunWorker, QThread] = {}

    @property
    def busy(self) -> bool:
        return bool(self._threads)

    @property
    def current(self) -> RunWorker | None:
        return next(iter(self._threads), None)

    def start_worker(self, worker: RunWorker) -> RunWorker:
        """Run ``worker`` on a new thread (the worker object itself stays on the GUI thread: see
        :class:`_TaskThread`)."""
        thread = _TaskThread(worker)
        thread.setObjectName(f"anonstudio-{type(worker).__name__}")
        _reaper().keep(thread)  # the last reference is let go on the GUI thread, never on the task's
        thread.finished.connect(self._forget)  # queued to this (GUI) thread
        self._threads[worker] = thread
        thread.start()
        return worker

    @Slot()
    def _forget(self) -> None:
        thread = self.sender()
        for worker, t in list(self._threads.items()):
            if t is thread or t.isFinished():
                t.wait()  # ended, or ending: its finished signal is emitted just before
                del self._threads[worker]  # the last reference to the thread object: freed here or by the reaper
        if not self._threads:
            self.idle.emit()

    def start(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> RunWorker:
        """Run ``func(*args, progress=..., **kwargs)`` on a new thread."""
        return self.start_worker(RunWorker(func, *args, **kwargs))

    def start_sweep(self, func: Callable[..., dict], points: Iterable[dict]) -> SweepWorker:
        worker = SweepWorker(func, points)
        self.start_worker(worker)
        return worker

    def cancel(self) -> None:
        for worker in list(self._threads):
            worker.cancel()

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel every task, ``quit()`` and ``wait()`` its thread; True if all stopped in time."""
        ok = True
        for worker, thread in list(self._threads.items()):
            worker.cancel()
            thread.quit()
            ok = thread.wait(timeout_ms) and ok
        QCoreApplication.processEvents()
        self._threads.clear()
        return ok


_preload_thread: threading.Thread | None = None


def _preload() -> None:
    global preload_state
    import importlib
    import pkgutil

    from anonstudio.core import kernels

    for info in pkgutil.iter_modules(kernels.__path__):
        importlib.import_module(f"{kernels.__name__}.{info.name}")  # numba, scipy's BLAS, the kernels
    # numba's one-time set-up before it loads a cached kernel, under numba's compiler lock: a run's worker may be
    # loading its kernels meanwhile (unlocked, the two raced: "ValueError: generator already executing")
    kernels.ready_compiler()
    from anonstudio.core import algorithms, metrics, privacy  # noqa: F401

    algorithms.available()  # every method's module: the Method pane lists them when data is first opened
    from anonstudio.core.warmup import kernel_cache_is_cold, warm_up

    if kernel_cache_is_cold() and not os.environ.get("ANONSTUDIO_NO_WARMUP"):
        # first start after an install: compile now, not during the user's first run
        preload_state = "compiling"
        warm_up()


#: what the start-up preload is doing: "idle", "importing", "compiling" (kernels, first start only), "done"
preload_state = "idle"


def preload_engine() -> threading.Thread:
    """Import the engine's compiled parts (numba, its kernels) on a background thread, once per process.

    Importing numba and loading its set-up holds the GIL for up to ~0.1 s at a time (extension modules
    initialising): done lazily by the first run, it would freeze the GUI thread in the middle of that run.
    The main window starts this when it is first shown; a run waits for nothing (the import lock orders
    them). On a first start (empty kernel cache) it also compiles the kernels by running the bundled demo
    jobs in a temporary folder (:func:`anonstudio.core.warmup.warm_up`; not with ``ANONSTUDIO_NO_WARMUP``
    set, as the test suite does); :data:`preload_state` says which step it is at. Returns the (possibly finished) thread.
    """
    global _preload_thread
    if _preload_thread is None:
        def target() -> None:
            global preload_state
            preload_state = "importing"
            # an optional speed-up: if anything fails here, the first run imports what it needs itself
            with contextlib.suppress(Exception):
                _preload()
            if _FREEZE_AFTER_PRELOAD:
                import gc

                gc.freeze()  # the imported modules: never garbage, no longer walked by each full collection
            preload_state = "done"

        _preload_thread = threading.Thread(target=target, name="anonstudio-preload", daemon=True)
        _preload_thread.start()
    return _preload_thread


def measure_responsiveness(action: Callable[[], Any], *, until: Callable[[], bool], timeout_s: float = 30.0,
                           tick_ms: int = 10) -> dict[str, float]:
    """How responsive the event loop stays while something runs.

    Calls ``action()`` and then spins the event loop until ``until()`` is true, with a timer firing every
    ``tick_ms``. Returns ``{"max_gap_ms", "median_gap_ms", "ticks", "elapsed_s"}``: the largest and typical
    gap between timer ticks (``worst_gap_at``: the ``time.perf_counter()`` at which the longest began).
    A frozen GUI shows as a large ``max_gap_ms`` (a kernel holding the GIL, a
    pane doing heavy work in a slot). Where the longest gap's time went: ``worst_gui_cpu_ms`` (this thread
    on a CPU: work in a slot), ``worst_other_cpu_ms`` (the other threads on a CPU: a worker holding the
    interpreter lock in a long call, or a ``nogil`` kernel) and ``worst_idle_ms`` (neither: this thread waited
    for a CPU on a busy machine, or for a lock). Used by the GUI tests and benchmarks::

        stats = measure_responsiveness(lambda: window.start_run(), until=lambda: not window.runner.busy)
        assert stats["max_gap_ms"] < 250
    """
    from PySide6.QtCore import QEventLoop, QTimer

    stamps: list[tuple[float, float, float]] = []  # wall clock, this thread's CPU time, the process's
    timer = QTimer()
    timer.setInterval(tick_ms)
    timer.timeout.connect(lambda: stamps.append((time.perf_counter(), time.thread_time(), time.process_time())))
    start = time.perf_counter()
    timer.start()
    action()
    loop_deadline = start + timeout_s
    app = QCoreApplication.instance()
    while not until():
        if time.perf_counter() > loop_deadline:
            timer.stop()
            raise TimeoutError(f"still running after {timeout_s} s")
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.001)
    timer.stop()
    app.processEvents()
    pairs = list(zip(stamps, stamps[1:]))
    gaps = sorted((b[0] - a[0]) * 1000 for a, b in pairs)
    first = (start, time.thread_time(), time.process_time())
    a, b = max(pairs, key=lambda ab: ab[1][0] - ab[0][0], default=(first, first))
    gui, total = (b[1] - a[1]) * 1000, (b[2] - a[2]) * 1000
    return {
        "max_gap_ms": gaps[-1] if gaps else 0.0,
        "worst_gap_at": a[0],  # perf_counter() when the longest began
        "worst_gui_cpu_ms": gui,
        "worst_other_cpu_ms": max(total - gui, 0.0),
        "worst_idle_ms": max((b[0] - a[0]) * 1000 - max(total - gui, 0.0) - gui, 0.0),
        "median_gap_ms": gaps[len(gaps) // 2] if gaps else 0.0,
        "ticks": float(len(stamps)),
        "elapsed_s": time.perf_counter() - start,
    }
