"""k-member clustering (Byun et al. 2007): the tuple-level kernel makes exactly the clusters of a plain
record-by-record implementation of the greedy algorithm, every cluster has k records, seeds reproduce."""

from __future__ import annotations

import numpy as np
import pytest

from anonstudio.core import algorithms
from anonstudio.core.algorithms._tabular import encode_quasi_identifiers, pack_hierarchies
from anonstudio.core.algorithms.kmember import KMember
from anonstudio.core.errors import HierarchyError, ParameterError
from anonstudio.core.progress import Cancelled
from tests.core import _paper002 as P
from tests.core.algorithms.test_mst_recoding import _random_case


def _reference(t, hs, k, seed):
    """Byun et al.'s greedy k-member over records, in plain Python, NCP-based IL, ties to the lowest index."""
    packed = pack_hierarchies(t.quasi_identifiers, hs)
    leaf, _ = encode_quasi_identifiers(t, packed)
    anc, lev, ncp = packed.node_anc, packed.node_level, packed.node_ncp

    def lca(a, b):
        for level in range(max(lev[a], lev[b]), anc.shape[1]):
            if anc[a, level] == anc[b, level]:
                return anc[a, level]

    def join(nodes, r):
        return [lca(x, leaf[r, i]) for i, x in enumerate(nodes)]

    def cost(nodes):
        return sum(ncp[x] for x in nodes)

    n = len(t)
    rest = list(range(n))
    r = int(np.random.default_rng(seed).integers(n))
    clusters = []
    while len(rest) >= k:
        r = min(rest, key=lambda x: (-cost(join(list(leaf[r]), x)), x))
        rest.remove(r)
        members, nodes = [r], list(leaf[r])
        while len(members) < k:
            best = min(rest, key=lambda x: (cost(join(nodes, x)), x))
            rest.remove(best)
            members.append(best)
            nodes = join(nodes, best)
        clusters.append([members, nodes])
    for x in sorted(rest):
        c = min(range(len(clusters)), key=lambda c: (
            (len(clusters[c][0]) + 1) * cost(join(clusters[c][1], x)) - len(clusters[c][0]) * cost(clusters[c][1]), c))
        clusters[c][0].append(x)
        clusters[c][1] = join(clusters[c][1], x)
    groups = np.empty(n, dtype=int)
    for c, (members, _) in enumerate(clusters):
        groups[members] = c
    return groups


def _same_partition(a, b):
    return len(set(zip(a.tolist(), b.tolist()))) == len(set(a.tolist())) == len(set(b.tolist()))


def test_registered_under_its_job_name():
    assert algorithms.get("kmember") is KMember


@pytest.mark.parametrize("seed", range(8))
def test_matches_a_plain_record_level_implementation(seed):
    rng = np.random.default_rng(200 + seed)
    t, hs = _random_case(rng, int(rng.integers(10, 60)))
    k = int(rng.integers(2, 6))
    res = KMember(k=k, seed=seed, max_suppression=0).run(t, hs)
    assert _same_partition(res.groups, _reference(t, hs, k, seed))
    assert np.bincount(res.groups).min() >= k
    assert res.output.df.groupby(t.quasi_identifiers).size().min() >= k


def test_paper_example_and_seed_reproducibility():
    t = P.table()
    a = KMember(k=3, seed=4, max_suppression=0).run(t, P.hierarchies())
    b = KMember(k=3, seed=4, max_suppression=0).run(t, P.hierarchies())
    assert a.output.df.equals(b.output.df)
    assert np.bincount(a.groups).min() >= 3 and a.groups.max() == 2  # floor(10/3) clusters
    assert list(a.output.df.columns) == ["Gender", "Age", "Zip-code", "Disease"]


def test_bad_input_and_cancel():
    t = P.table(source="t.csv")
    with pytest.raises(ParameterError, match="k = 11 is larger"):
        KMember(k=11).run(t, P.hierarchies())
    with pytest.raises(ParameterError, match="'k' must be ≥ 2"):
        KMember(k=0)
    bad = P.table(source="t.csv")
    bad.df.loc[0, "Gender"] = "Other"
    with pytest.raises(HierarchyError, match="'Other'") as exc:
        KMember(k=3).run(bad, P.hierarchies())
    assert "t.csv:2" in str(exc.value)
    rng = np.random.default_rng(1)
    big, hs = _random_case(rng, 600)

    def cancel(fraction, message):
        raise Cancelled()

    with pytest.raises(Cancelled):
        KMember(k=2).run(big, hs, cancel)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["distinct", "entropy"])
def test_l_diverse_clusters_on_random_tables(seed, kind):
    from tests.core.algorithms.test_mst_recoding import _with_sensitive, assert_l_diverse

    rng = np.random.default_rng(950 + seed)
    t, hs = _random_case(rng, int(rng.integers(40, 200)))
    t = _with_sensitive(t, rng)
    res = KMember(k=3, l=2, l_kind=kind, seed=seed, max_suppression=0.05).run(t, hs)
    assert_l_diverse(t, res, hs, 3, 2, kind)
