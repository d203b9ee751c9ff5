"""The Mondrian kernel orders a segment by integer keys (hierarchy nodes, dense ranks of numeric values) with
a counting sort where the keys span few values. It must give exactly the merge sort's order — the partition
depends on which records end up on which side of a cut, and ties keep their order — on both of its branches."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.kernels._mondrian import _order_by_key, value_ranks


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(-3, 40), min_size=1, max_size=60), spread=st.sampled_from([1, 10_000]))
def test_order_by_key_is_the_stable_merge_sort(keys, spread):
    arr = np.array(keys, dtype=np.int64) * spread  # spread: keys spanning far more than the size (merge sort)
    perm = np.full(len(arr) + 3, -7, dtype=np.int64)
    _order_by_key(arr, len(arr), perm)
    assert perm[: len(arr)].tolist() == np.argsort(arr, kind="mergesort").tolist()


def test_value_ranks_are_dense_and_keep_ties():
    values = np.array([[3.5, 1.0], [1.0, 1.0], [3.5, 2.0], [-2.0, 9.0]])
    ranks = value_ranks(values, np.array([True, False]))
    assert ranks[:, 0].tolist() == [2, 1, 2, 0]
    assert ranks[:, 1].tolist() == [0, 0, 0, 0]  # not numeric: not ranked
