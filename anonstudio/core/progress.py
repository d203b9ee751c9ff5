"""Progress reporting and cancellation.

A long engine function takes ``progress=None``: a callable ``(fraction, message) -> None`` with
``fraction`` in [0, 1]. Cancelling is the callback raising :class:`Cancelled`; nothing else is threaded
through. Sub-steps get a slice of the range with :func:`subrange`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
