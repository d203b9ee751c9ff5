"""Whole-column pandas operations done in slices of rows, so that no single call holds the interpreter lock
for long.

pandas' hashing, missing-value and membership tests on object (string) columns are one C call each that
keeps the lock: 50–70 ms for a million cells, twice that on a busy machine. On the workbench's worker thread
such a call freezes the window (issue 15 item 10b: no freeze over 100 ms at 1M rows). These helpers give the
same answers as the one-piece calls, slice by slice (:data:`ROWS` cells per call), with a
:func:`~anonstudio.core.progress.checkpoint` between slices so that a run can be cancelled inside them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.progress import checkpoint

#: cells per pandas call
ROWS = 131_072


def _values(values: Any) -> np.ndarray:
    return values.to_numpy(dtype=object) if isinstance(values, (pd.Series, pd.Index)) else np.asarray(values)


def slices(n: int, rows: int | None = None) -> Iterator[slice]:
    """``slice`` objects covering ``range(n)`` in steps of ``rows`` (default :data:`ROWS`), with a
    checkpoint after each."""
    step = rows or ROWS
    for start in range(0, n, step):
        yield slice(start, min(start + step, n))
        checkpoint()


def isna(values: Any) -> np.ndarray:
    """``pd.isna(values)`` as a bool array."""
    arr = _values(values)
    out = np.empty(len(arr), dtype=bool)
    for part in slices(len(arr)):
        out[part] = pd.isna(arr[part])
    return out


def isin(values: Any, tokens: Sequence[Any]) -> np.ndarray:
    """``pd.Series(values).isin(tokens)`` as a bool array."""
    arr = _values(values)
    out = np.empty(len(arr), dtype=bool)
    wanted = list(tokens)
    for part in slices(len(arr)):
        out[part] = pd.Series(arr[part], dtype=arr.dtype, copy=False).isin(wanted).to_numpy()
    return out


def factorize(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(values)``: ``(codes, uniques)``, codes numbered by first appearance, missing cells -1.

    Each slice is factorized on its own and its (few) distinct values are given their numbers in the whole
    column through a dictionary; a column with very many distinct values costs a Python loop over them,
    which gives the lock up as any Python code does."""
    arr = _values(values)
    n = len(arr)
    if n <= ROWS:
        codes, uniques = pd.factorize(arr)
        return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)
    numbers: dict[Any, int] = {}
    codes = np.empty(n, dtype=np.int64)
    for part in slices(n):
        local, uniques = pd.factorize(arr[part])
        if not len(uniques):
            codes[part] = -1
            continue
        mapping = np.fromiter((numbers.setdefault(u, len(numbers)) for u in uniques.tolist()), dtype=np.int64,
                              count=len(uniques))
        codes[part] = np.where(local >= 0, mapping[np.maximum(local, 0)], -1)
    uniques_all = np.empty(len(numbers), dtype=object)
    uniques_all[:] = list(numbers)
    return codes, uniques_all


def distinct(values: Any) -> np.ndarray:
    """The non-missing distinct values, first seen first (``pd.unique`` of the present cells)."""
    return factorize(values)[1]


def row_classes(columns: Sequence[Any], n: int) -> np.ndarray:
    """One ``int64`` id per row: rows with equal values in every one of ``columns`` (arrays of ``n`` cells;
    missing cells equal each other) share an id, ids numbered by first appearance. Each column is factorized
    in slices; the ids are a mixed-radix key of the columns' codes, re-factorized after each column so that
    it never overflows (one short integer call per column — never ``np.unique(axis=0)``, which held the lock
    for 1.9 s at 1M rows)."""
    key = np.zeros(n, dtype=np.int64)
    for column in columns:
        codes, uniques = factorize(column)
        key = pd.factorize(key * (len(uniques) + 1) + (codes + 1))[0].astype(np.int64)
        checkpoint()
    return key
