"""Progress reporting and cancellation.

A long engine function takes ``progress=None``: a callable ``(fraction, message) -> None`` with
``fraction`` in [0, 1]. Cancelling is the callback raising :class:`Cancelled`; nothing else is threaded
through. Sub-steps get a slice of the range with :func:`subrange`; a long ``nogil`` kernel polls the flag
of :func:`cancel_flag`, which a watcher thread sets when the callback raises.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

ProgressCallback = Callable[[float, str], None]


class Cancelled(Exception):
    """Raised from a progress callback to stop a run. Outputs are not written."""


def report(progress: ProgressCallback | None, fraction: float, message: str = "") -> None:
    """Call ``progress`` if there is one, clamping ``fraction`` to [0, 1]."""
    if progress is not None:
        progress(min(1.0, max(0.0, float(fraction))), message)


def subrange(progress: ProgressCallback | None, start: float, end: float) -> ProgressCallback | None:
    """A callback mapping [0, 1] of a sub-step onto [start, end] of ``progress``."""
    if progress is None:
        return None
    span = end - start

    def sub(fraction: float, message: str = "") -> None:
        progress(start + span * min(1.0, max(0.0, float(fraction))), message)

    return sub


_LOCAL = threading.local()


@contextmanager
def phase(progress: ProgressCallback | None, fraction: float, message: str) -> Iterator[ProgressCallback | None]:
    """Report ``fraction``/``message`` and, for the block, let :func:`checkpoint` calls on this thread repeat
    the latest report — so a step that reports nothing itself (verification, preparing views: code shared by
    every method, with no progress argument) can still be cancelled between its chunks. Yields a callback to
    hand to the step's own reporting (a sub-step's later fractions are then what a checkpoint repeats, so the
    bar never moves back)."""
    report(progress, fraction, message)
    latest = [float(fraction), message]

    def tracked(f: float, m: str = "") -> None:
        latest[0], latest[1] = max(latest[0], float(f)), m or latest[1]
        report(progress, latest[0], latest[1])

    previous = getattr(_LOCAL, "hook", None)
    _LOCAL.hook = None if progress is None else (lambda: report(progress, latest[0], latest[1]))
    try:
        yield None if progress is None else tracked
    finally:
        _LOCAL.hook = previous


def checkpoint() -> None:
    """A point inside a long loop (one pass per chunk of rows) where a run may stop: calls the progress
    callback of the enclosing :func:`phase` on this thread, which raises :class:`Cancelled` once the run was
    cancelled. Without an enclosing phase it does nothing."""
    hook = getattr(_LOCAL, "hook", None)
    if hook is not None:
        hook()


@contextmanager
def cancel_flag(progress: ProgressCallback | None, fraction: float, message: str, *, total: int = 0,
                end: float | None = None, interval: float = 0.02) -> Iterator[Any]:
    """A cancel flag (and progress counter) for a ``nogil`` kernel that runs longer than a user should wait
    for Cancel.

    Yields ``flag``, an ``int64[2]`` array: the kernel polls ``flag[0]`` in its main loop and stops early
    when it is not 0; it may count the units of work it has done (records, …) in ``flag[1]``. While the
    block runs, a watcher thread reports ``(fraction, message)`` every ``interval`` seconds — the kernel
    holds no interpreter lock, so it can — moved towards ``end`` as ``flag[1]`` approaches ``total`` (when
    both are given), and sets ``flag[0] = 1`` when that report raises (:class:`Cancelled`, or a stop signal
    the callback raises). After the block the same exception is raised on the caller's thread, so a
    stopped kernel's partial output is never used. Without a ``progress`` callback the flag stays 0 and no
    thread is started.
    """
    import numpy as np

    flag = np.zeros(2, dtype=np.int64)
    report(progress, fraction, message)
    if progress is None:
        yield flag
        return
    stop = threading.Event()
    raised: list[BaseException] = []
    share = (end - fraction) / total if end is not None and total > 0 else 0.0

    def watch() -> None:
        while not stop.wait(interval):
            try:
                report(progress, fraction + share * min(int(flag[1]), total), message)
            except BaseException as exc:  # noqa: BLE001 — handed to the caller's thread below
                raised.append(exc)
                flag[0] = 1
                return

    watcher = threading.Thread(target=watch, name="anonstudio-cancel-watch", daemon=True)
    watcher.start()
    try:
        yield flag
    finally:
        stop.set()
        watcher.join()
    if raised:
        raise raised[0]


#: a stop (a signal's exception) kept while :func:`stops_deferred` blocks are open
_DEFERRED: dict[str, Any] = {"depth": 0, "stop": None}


@contextmanager
def stops_deferred() -> Iterator[None]:
    """A block a stop signal must not cut in two (the swap of a publication: issue 29). A signal handler that
    asks :func:`defer_stop` keeps its stop for later while such a block is open; the block itself looks at
    :func:`stop_pending` when it is safe to, and :func:`raise_deferred_stop` raises the kept stop."""
    _DEFERRED["depth"] += 1
    try:
        yield
    finally:
        _DEFERRED["depth"] -= 1


def defer_stop(stop: Callable[[], None]) -> bool:
    """For a signal handler: inside a :func:`stops_deferred` block keep ``stop`` (a callable that raises the
    stop's exception) and return True — the handler then returns without raising; outside, return False."""
    if _DEFERRED["depth"] > 0:
        _DEFERRED["stop"] = stop
        return True
    return False


def stop_pending() -> bool:
    """Whether a stop was kept by :func:`defer_stop` and not raised yet."""
    return _DEFERRED["stop"] is not None


def raise_deferred_stop() -> None:
    """Raise the stop kept by :func:`defer_stop`, if any (and forget it)."""
    stop, _DEFERRED["stop"] = _DEFERRED["stop"], None
    if stop is not None:
        stop()
