"""Whole-column operations in slices of rows (core.data._chunks): the answers of the one-piece pandas calls,
with no call longer than a slice (issue 15 item 10b: the workbench's worker never holds the lock long)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.data import _chunks


@pytest.fixture
def small_slices(monkeypatch):
    monkeypatch.setattr(_chunks, "ROWS", 7)


def _column() -> np.ndarray:
    rng = np.random.default_rng(3)
    values = np.array(["a", "b", "NA", "?", "", "10", "c d"], dtype=object)[rng.integers(0, 7, 100)]
    values[rng.integers(0, 100, 12)] = None
    values[5] = pd.NA
    values[6] = np.nan
    return values


def test_factorize_in_slices_equals_pandas_in_one_piece(small_slices):
    values = _column()
    codes, uniques = _chunks.factorize(values)
    want_codes, want_uniques = pd.factorize(values)
    np.testing.assert_array_equal(codes, want_codes)
    assert uniques.tolist() == list(want_uniques) and uniques.dtype == object
    assert _chunks.distinct(pd.Series(values, dtype=object)).tolist() == list(pd.unique(values[~pd.isna(values)]))
    codes, uniques = _chunks.factorize(np.array([None] * 20, dtype=object))  # nothing but missing cells
    assert (codes == -1).all() and len(uniques) == 0


def test_isna_and_isin_in_slices_equal_pandas(small_slices):
    values = _column()
    np.testing.assert_array_equal(_chunks.isna(values), pd.isna(values))
    np.testing.assert_array_equal(_chunks.isin(pd.Series(values, dtype=object), ["NA", "?", ""]),
                                  pd.Series(values, dtype=object).isin(["NA", "?", ""]).to_numpy())


def test_row_classes_number_equal_rows_by_first_appearance(small_slices):
    a = np.array(["x", "y", "x", "x", None, "y", None, "x"] * 3, dtype=object)
    b = np.array(["1", "1", "1", "2", "2", "1", "2", "1"] * 3, dtype=object)
    ids = _chunks.row_classes([a, b], len(a))
    want = pd.DataFrame({"a": a, "b": b}).fillna("\0").groupby(["a", "b"], sort=False).ngroup().to_numpy()
    np.testing.assert_array_equal(ids, want)
    assert ids[:8].tolist() == [0, 1, 0, 2, 3, 1, 3, 0]


def test_slices_are_cancellable_between_them(small_slices):
    from anonstudio.core.progress import Cancelled, phase

    calls = []

    def progress(fraction, message):
        calls.append(message)
        if len(calls) == 3:
            raise Cancelled("cancelled by the user")

    with pytest.raises(Cancelled), phase(progress, 0.5, "verifying"):
        _chunks.factorize(_column())
    assert calls == ["verifying"] * 3
