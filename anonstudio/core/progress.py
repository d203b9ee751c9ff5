"""Progress reporting and cancellation.

A long engine function takes ``progress=None``: a callable ``(fraction, message) -> None`` with
``fraction`` in [0, 1]. Cancelling is the callback raising :class:`Cancelled`; nothing else is threaded
through. Sub-steps get a slice of the range with :func:`subrange`.
"""

from __future__ import annotations

from collections.abc import Callable

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
