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


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_the_lca_of_a_set_of_leaves_is_the_lca_of_its_depth_first_extremes(data):
    """Mondrian finds a segment's LCA per attribute from its lowest- and highest-ranked leaves in depth-first
    order; that must be the LCA of all of them (the fold of pairwise LCAs), on real hierarchy shapes."""
    from anonstudio.core.algorithms._tabular import pack_hierarchies
    from anonstudio.core.generate import adult_hierarchies
    from anonstudio.core.kernels._generalize import lca_node
    from anonstudio.core.kernels._mondrian import depth_first_ranks

    attrs = ["age", "workclass", "education", "native-country"]
    packed = pack_hierarchies(attrs, adult_hierarchies(attrs))
    ranks = depth_first_ranks(packed.node_anc, packed.node_level)
    assert sorted(ranks.tolist()) == list(range(len(ranks)))
    a = data.draw(st.integers(0, len(attrs) - 1))
    leaves = [n for n in range(packed.offsets[a], packed.offsets[a + 1]) if packed.node_level[n] == 0]
    chosen = data.draw(st.lists(st.sampled_from(leaves), min_size=1, max_size=12))
    folded = chosen[0]
    for leaf in chosen[1:]:
        folded = lca_node(folded, leaf, packed.node_anc, packed.node_level)
    low = min(chosen, key=lambda n: ranks[n])
    high = max(chosen, key=lambda n: ranks[n])
    assert lca_node(low, high, packed.node_anc, packed.node_level) == folded
