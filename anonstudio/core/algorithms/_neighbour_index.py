"""A neighbour index for the sequence methods: blocks of similar sequences instead of all pairs (issue 42).

Agglomerative clustering over all pairs (CBMSA, 004 §3) costs O(n²) alignments and a cached distance per
pair. Blocking (record linkage's answer to the same wall: M. A. Hernández, S. J. Stolfo, "The merge/purge
problem for large databases", SIGMOD 1995) only compares records that fall into the same block of similar
records; the blocks here are the leaves of a k-d tree (J. L. Bentley, "Multidimensional binary search trees
used for associative searching", CACM 18(9), 1975) built over a fixed-length signature of every sequence, each
node cut at the median of the coordinate of largest variance. Each sequence's candidate neighbours are the at most
``block`` sequences of its leaf, so a run costs O(n log n) to build the tree plus O(n · block) alignments and
O(block²) memory at a time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def sequence_signatures(leaf: np.ndarray, seq_off: np.ndarray, members: np.ndarray, packed) -> np.ndarray:
    """One row per sequence in ``members``: its length (unequal lengths cost suppressed events in the alignment),
    and per quasi-identifier the mean position of its values in the hierarchy's node order (0..1; leaves under
    one parent are adjacent, so sequences whose values generalize to the same ancestors lie close), each column
    scaled to unit spread."""
    import numpy as np

    starts = seq_off[members]
    lens = (seq_off[members + 1] - starts).astype(np.int64)
    idx = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens) + np.arange(int(lens.sum()))
    which = np.repeat(np.arange(len(members)), lens)
    cols = [lens.astype(np.float64)]
    for q in range(leaf.shape[1]):
        lo, hi = int(packed.offsets[q]), int(packed.offsets[q + 1])
        place = (leaf[idx, q] - lo) / max(hi - lo - 1, 1)
        cols.append(np.bincount(which, weights=place, minlength=len(members)) / np.maximum(lens, 1))
    sig = np.column_stack(cols)
    spread = sig.std(axis=0)
    return sig / np.where(spread > 0, spread, 1.0)


def kd_blocks(points: np.ndarray, block: int) -> list[np.ndarray]:
    """Rows of ``points`` split into blocks of at most ``block`` (and, when more than ``block`` rows, at least
    ``block // 2``) by a k-d tree: a node of more than ``block`` rows is cut at the median of its coordinate of
    largest variance (the widest range is at the mercy of one outlier). Blocks come out in tree order
    (neighbouring blocks are close), rows ascending within a block."""
    import numpy as np

    out: list[np.ndarray] = []
    stack = [np.arange(len(points), dtype=np.int64)]
    while stack:
        rows = stack.pop()
        if len(rows) <= block:
            out.append(np.sort(rows))
            continue
        sub = points[rows]
        dim = int(np.argmax(sub.var(axis=0)))
        half = len(rows) // 2
        order = np.argsort(sub[:, dim], kind="stable")  # ties keep input order: deterministic blocks
        stack.append(rows[order[half:]])
        stack.append(rows[order[:half]])
    return out
