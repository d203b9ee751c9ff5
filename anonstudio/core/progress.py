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
def phase(progress: ProgressCallback | None, fraction: float, message: str) -> Iterator[None]:
    """Report ``fraction``/``message`` and, for the block, let :func:`checkpoint` calls on this thread repeat
    that report — so a step that reports nothing itself (verification, preparing views: code shared by every
    method, with no progress argument) can still be cancelled between its chunks."""
    report(progress, fraction, message)
    previous = getattr(_LOCAL, "hook", None)
    _LOCAL.hook = None if progress is None else (lambda: report(progress, fraction, message))
    try:
        yield
    finally:
        _LOCAL.hook = previous


def checkpoint() -> None:
    """A point inside a long loop (one pass per chunk of rows) where a run may stop: calls the progress
    callback of the enclosing :func:`phase` on this thread, which raises :class:`Cancelled` once the run was
    cancelled. Without an enclosing phase it does nothing."""
    hook = getattr(_LOCAL, "hook", None)
    if hook is not None:
        hook()
