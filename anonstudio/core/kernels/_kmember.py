"""Kernels of greedy k-member clustering (Byun, Kamra, Bertino & Li, DASFAA 2007).

They work over *distinct* QI tuples with multiplicities: records of one tuple are interchangeable, so a
scan over tuples (ties broken by the tuple's lowest remaining record index) picks exactly the record a scan
over records with lowest-index tie-breaking would pick. Information loss uses the hierarchies: the NCP
(002 Eqs 5-6, summed over attributes) of a cluster's per-attribute LCA nodes; ``IL(c) = |c| * NCP(c)``.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit
from anonstudio.core.kernels._generalize import lca_node


@njit(cache=True, nogil=True)
def _ncp_join(cnodes, tnode, t, node_anc, node_level, node_ncp, bound):
    """NCP of the union of a class (LCA nodes ``cnodes``) and tuple ``t``; stops early above ``bound``."""
    v = 0.0
    for a in range(cnodes.shape[0]):
        v += node_ncp[lca_node(cnodes[a], tnode[t, a], node_anc, node_level)]
        if v > bound:
            return v
    return v


@njit(cache=True, nogil=True)
def _take(t, used, rec_start, rec_list):
    r = rec_list[rec_start[t] + used[t]]
    used[t] += 1
    return r


@njit(cache=True, nogil=True)
def _join_table(cn, attr_lo, attr_hi, node_anc, node_level, node_ncp, tbl):
    """``tbl[y] = NCP(lca(cn[a], y))`` for every node ``y`` of every attribute ``a``: the NCP of a union with
    a class of LCA nodes ``cn`` becomes one lookup per attribute."""
    for a in range(cn.shape[0]):
        for y in range(attr_lo[a], attr_hi[a]):
            tbl[y] = node_ncp[lca_node(cn[a], y, node_anc, node_level)]


@njit(cache=True, nogil=True)
def _join_costs(tnode, tbl, used, rec_start, vals):
    """``vals[t]`` = NCP of the union of the table's class and tuple ``t`` (inf for used-up tuples)."""
    m, d = tnode.shape
    for t in range(m):
        v = 0.0
        for a in range(d):
            v += tbl[tnode[t, a]]
        vals[t] = v if used[t] < rec_start[t + 1] - rec_start[t] else np.inf


@njit(cache=True, nogil=True)
def kmember_clusters(
    tnode, rec_start, rec_list, used, node_anc, node_level, node_ncp, attr_lo, attr_hi, k,
    rec_cluster, cluster_nodes, cluster_size, seed_t, n_clusters, remaining, max_new,
):
    """Form up to ``max_new`` clusters of ``k`` records (Byun et al.'s greedy algorithm, main loop).

    ``seed_t``: tuple of the last seed record ``r``; the next seed is the remaining record furthest from it
    (distance: NCP of the pair). Each cluster grows by the record whose addition minimises the increase of
    IL, i.e. NCP of the union (ties: the lowest record index). ``attr_lo/attr_hi``: packed node range of
    each attribute (the NCP of a union is looked up in a per-class table). Returns
    ``(seed_t, n_clusters, remaining)``.
    """
    m, d = tnode.shape
    cn = np.empty(d, dtype=np.int32)
    tbl = np.empty(node_ncp.shape[0])
    vals = np.empty(m)
    made = 0
    while remaining >= k and made < max_new:
        # furthest tuple from the last seed
        _join_table(tnode[seed_t], attr_lo, attr_hi, node_anc, node_level, node_ncp, tbl)
        _join_costs(tnode, tbl, used, rec_start, vals)
        best = -1
        best_v = -1.0
        best_r = 0
        for t in range(m):
            v = vals[t]
            if v == np.inf:
                continue
            r = rec_list[rec_start[t] + used[t]]
            if v > best_v or (v == best_v and r < best_r):
                best_v = v
                best = t
                best_r = r
        seed_t = best
        c = n_clusters
        r = _take(best, used, rec_start, rec_list)
        rec_cluster[r] = c
        remaining -= 1
        for a in range(d):
            cn[a] = tnode[best, a]
        size = 1
        while size < k:
            _join_table(cn, attr_lo, attr_hi, node_anc, node_level, node_ncp, tbl)
            _join_costs(tnode, tbl, used, rec_start, vals)
            best = -1
            best_v = np.inf
            best_r = 0
            for t in range(m):
                v = vals[t]
                if v > best_v or v == np.inf:
                    continue
                r = rec_list[rec_start[t] + used[t]]
                if v < best_v or r < best_r:
                    best_v = v
                    best = t
                    best_r = r
            r = _take(best, used, rec_start, rec_list)
            rec_cluster[r] = c
            remaining -= 1
            for a in range(d):
                cn[a] = lca_node(cn[a], tnode[best, a], node_anc, node_level)
            size += 1
        for a in range(d):
            cluster_nodes[c, a] = cn[a]
        cluster_size[c] = size
        n_clusters += 1
        made += 1
    return seed_t, n_clusters, remaining


@njit(cache=True, nogil=True)
def kmember_leftovers(
    tnode, tuple_of, rec_cluster, cluster_nodes, cluster_size, n_clusters, node_anc, node_level, node_ncp
):
    """Byun et al.'s greedy algorithm, last loop: each remaining record (in record order) joins the cluster whose IL
    grows least, ``(|c|+1) * NCP(c ∪ r) - |c| * NCP(c)`` (ties: lowest cluster id)."""
    n = len(rec_cluster)
    d = tnode.shape[1]
    for r in range(n):
        if rec_cluster[r] >= 0:
            continue
        t = tuple_of[r]
        best = -1
        best_v = np.inf
        for c in range(n_clusters):
            own = 0.0
            for a in range(d):
                own += node_ncp[cluster_nodes[c, a]]
            joined = _ncp_join(cluster_nodes[c], tnode, t, node_anc, node_level, node_ncp, np.inf)
            v = (cluster_size[c] + 1) * joined - cluster_size[c] * own
            if v < best_v:
                best_v = v
                best = c
        rec_cluster[r] = best
        cluster_size[best] += 1
        for a in range(d):
            cluster_nodes[best, a] = lca_node(cluster_nodes[best, a], tnode[t, a], node_anc, node_level)
