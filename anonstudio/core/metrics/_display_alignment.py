"""A global alignment of two strings for display (original above pseudo-string).

This is the Needleman–Wunsch recurrence with a linear gap cost, as used by Aggarwal & Yu (2008), Sect. 4,
for their inter-string distances; here it only lays two strings out under each other with gaps so a
person can compare them. The distance metrics use the numba kernel in ``core.kernels``.

Each DP row is computed with numpy: with a linear gap ``g`` (< 0) the left dependency
``H[i, j] = max(T[j], H[i, j-1] + g)`` unrolls to ``g·j + cummax_j (T[j] − g·j)``, so no Python loop runs
over the cells; the traceback walks at most ``len(a) + len(b)`` steps.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: longest strings aligned for display (the DP table is len(a) × len(b) int32)
MAX_DISPLAY_LENGTH = 3000

GAP = "-"


def align_for_display(
    a: Sequence[str],
    b: Sequence[str],
    *,
    match: int = 2,
    mismatch: int = -1,
    gap: int = -2,
) -> tuple[list[str], list[str], int]:
    """Globally align ``a`` and ``b`` (sequences of symbols).

    Parameters
    ----------
    a, b:
        The strings, as strings or lists of symbols (item tokens). Only the first
        :data:`MAX_DISPLAY_LENGTH` symbols of each are aligned.
    match, mismatch, gap:
        Scores of a match, a mismatch and a gap (linear gap cost; ``gap`` must be negative).

    Returns
    -------
    (row_a, row_b, score):
        Two equally long lists of symbols with ``"-"`` at the gaps, and the optimal score.
    """
    if gap >= 0:
        raise ValueError("gap must be negative")
    a = list(a)[:MAX_DISPLAY_LENGTH]
    b = list(b)[:MAX_DISPLAY_LENGTH]
    n, m = len(a), len(b)
    symbols = {s: i for i, s in enumerate(dict.fromkeys(a + b))}
    ca = np.array([symbols[s] for s in a], dtype=np.int64)
    cb = np.array([symbols[s] for s in b], dtype=np.int64)
    H = np.empty((n + 1, m + 1), dtype=np.int32)
    jg = gap * np.arange(m + 1, dtype=np.int32)
    H[0] = jg
    for i in range(1, n + 1):
        sub = np.where(cb == ca[i - 1], match, mismatch)
        t = np.empty(m + 1, dtype=np.int32)
        t[0] = gap * i
        t[1:] = np.maximum(H[i - 1, :-1] + sub, H[i - 1, 1:] + gap)
        H[i] = jg + np.maximum.accumulate(t - jg)
    row_a: list[str] = []
    row_b: list[str] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and H[i, j] == H[i - 1, j - 1] + (match if ca[i - 1] == cb[j - 1] else mismatch):
            row_a.append(a[i - 1])
            row_b.append(b[j - 1])
            i -= 1
            j -= 1
        elif i > 0 and H[i, j] == H[i - 1, j] + gap:
            row_a.append(a[i - 1])
            row_b.append(GAP)
            i -= 1
        else:
            row_a.append(GAP)
            row_b.append(b[j - 1])
            j -= 1
    row_a.reverse()
    row_b.reverse()
    return row_a, row_b, int(H[n, m])
