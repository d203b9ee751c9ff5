"""Group-by counts of a published table, computed as tasks (the Dask engine) and summed.

The verifiers of ``_tables`` judge equivalence classes from their statistics (:class:`ClassStats`): class sizes
and, for l-diversity, the count of each (class, sensitive value) pair. On the Dask engine those counts are the
only part computed elsewhere: each task counts the distinct tuples of one block of rows and where each first
occurs; the partial counts are summed here and the tuples ordered by first occurrence — the order in which
the whole-table verifier numbers its classes and pairs — so the statistics are the very arrays it would
compute, and the models judge them here, with the same rules (nothing about the rules lives in this module).

The tuples are counted on integer codes (one ``pd.factorize`` per column, done by the caller), so what
travels to the workers is small integers, never text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: rows of one counting task (fewer tasks on smaller tables: at least one per worker when rows allow)
BLOCK_ROWS = 1 << 20


def _tuple_ids(columns: list[np.ndarray], n: int) -> np.ndarray:
    """Id per row of its tuple of codes, ids in order of first occurrence (a mixed-radix key re-factorized
    after each column, so it never overflows)."""
    key = np.zeros(n, dtype=np.int64)
    for col in columns:
        codes, uniques = pd.factorize(col)
        key = pd.factorize(key * max(len(uniques), 1) + codes)[0].astype(np.int64)
    return key


def _distinct(codes: np.ndarray, counts: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of ``codes`` with equal tuples joined: ``(tuples, summed counts, least first)``, tuples in order
    of their least ``first``."""
    n, d = codes.shape
    ids = _tuple_ids([codes[:, a] for a in range(d)], n)
    g = int(ids.max()) + 1 if n else 0
    total = np.bincount(ids, weights=counts, minlength=g).astype(np.int64)
    least = np.full(g, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(least, ids, first)
    rep = np.empty(g, dtype=np.int64)
    rep[ids] = np.arange(n)  # a row of each tuple (any: they are equal)
    order = np.argsort(least, kind="stable")
    return codes[rep[order]], total[order], least[order]


def partial_counts(item: tuple, shared=None, progress=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One task: ``(tuples, counts, first)`` of the block ``item = (offset, codes int[rows, d])``; ``first`` is
    the position (``offset`` + row) of each tuple's first row. Module level: Dask sends it by reference."""
    offset, codes = item
    n = len(codes)
    return _distinct(codes, np.ones(n, dtype=np.int64), offset + np.arange(n, dtype=np.int64))


def grouped_counts(executor, codes: np.ndarray, progress=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``codes`` (``int[n, d]``), their counts and first positions, in order of first
    position — as blocks counted by ``executor``'s tasks and summed here."""
    n = len(codes)
    if n == 0:
        return codes[:0], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    workers = executor.workers() if hasattr(executor, "workers") else 1
    block = max(1, min(BLOCK_ROWS, -(-n // max(int(workers), 1))))
    items = [(start, codes[start:start + block]) for start in range(0, n, block)]
    parts = executor.map(partial_counts, items, progress=progress, label="block of rows", scatter=True)
    if len(parts) == 1:
        return parts[0]
    return _distinct(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                     np.concatenate([p[2] for p in parts]))


def class_sizes(executor, texts: list[np.ndarray], progress=None) -> tuple[np.ndarray, np.ndarray]:
    """``(sizes, tuples)``: the size of each class — rows with equal texts in every column — numbered by first
    row (the numbering of ``_tables._class_ids_of``), and each class's tuple of per-column codes."""
    codes = _codes(texts)
    tuples, counts, _ = grouped_counts(executor, codes, progress)
    return counts, tuples


def pair_counts(executor, class_tuples: np.ndarray, texts: list[np.ndarray], values: np.ndarray,
                present: np.ndarray, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """``(value_class, value_count)`` of :class:`ClassStats`: per (class, present value) pair, in order of the
    pair's first row, the class (an index into ``class_tuples`` as :func:`class_sizes` returned them) and its
    count. ``texts``: the classes' columns; ``values``: the sensitive column's codes; ``present``: its rows
    that hold a value."""
    codes = _codes(texts)
    value_codes = pd.factorize(values)[0].astype(np.int32)
    pairs = np.concatenate([codes[present], value_codes[present, None]], axis=1)
    tuples, counts, _ = grouped_counts(executor, pairs, progress)
    # each pair's class: its QI part looked up among the classes' tuples
    d = codes.shape[1]
    joint = np.concatenate([class_tuples, tuples[:, :d]])
    ids = _tuple_ids([joint[:, a] for a in range(d)], len(joint))
    class_of_id = np.full(int(ids.max()) + 1 if len(ids) else 0, -1, dtype=np.int64)
    class_of_id[ids[: len(class_tuples)]] = np.arange(len(class_tuples))
    return class_of_id[ids[len(class_tuples):]], counts


def _codes(columns: list) -> np.ndarray:
    """Per column (``CodedCells`` or an array of text) its cells' codes, numbered by first appearance."""
    n = len(columns[0]) if columns else 0
    out = np.zeros((n, len(columns)), dtype=np.int32)
    for a, col in enumerate(columns):
        out[:, a] = pd.factorize(getattr(col, "codes", col))[0]
    return out
