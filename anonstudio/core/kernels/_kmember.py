"""Kernels of greedy k-member clustering (Byun, Kamra, Bertino & Li, DASFAA 2007); its last step, the leftovers
joining clusters, is :func:`anonstudio.core.kernels._local.join_leftovers`.

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
def _needs_more(size, k, ccount, distinct, total, min_distinct, log_l):
    """Whether a cluster of ``size`` records (sensitive counts ``ccount``: ``distinct`` values, ``total`` present)
    still needs records: below k, or not yet l-diverse."""
    if size < k:
        return True
    if min_distinct > 1 and distinct < min_distinct:
        return True
    if log_l > 0.0:
        if total == 0:
            return True
        h = 0.0
        for v in range(ccount.shape[0]):
            if ccount[v] > 0:
                p = ccount[v] / total
                h -= p * np.log(p)
        return h < log_l - 1e-12
    return False


@njit(cache=True, nogil=True)
def kmember_clusters(
    tnode, rec_start, rec_list, used, node_anc, node_level, node_ncp, attr_lo, attr_hi, k,
    rec_cluster, cluster_nodes, cluster_size, seed_t, n_clusters, remaining, max_new,
    tuple_sens, n_sens, min_distinct, log_l, cluster_ok,
):
    """Form up to ``max_new`` clusters of ``k`` records (Byun et al.'s greedy algorithm, main loop).

    ``seed_t``: tuple of the last seed record ``r``; the next seed is the remaining record furthest from it
    (distance: NCP of the pair). Each cluster grows by the record whose addition minimises the increase of
    IL, i.e. NCP of the union (ties: the lowest record index). ``attr_lo/attr_hi``: packed node range of
    each attribute (the NCP of a union is looked up in a per-class table). Returns
    ``(seed_t, n_clusters, remaining)``.

    l-diversity (``min_distinct > 1`` or ``log_l > 0``; tuples then hold one sensitive code each,
    ``tuple_sens``, -1 missing): a cluster grows on until it is l-diverse. Once it has ``k`` records, or when its
    free places up to ``k`` are no more than the distinct values it lacks, the next record is the one whose
    sensitive value the cluster holds least often (a value it lacks first; a missing value last), the IL
    increase deciding among those. A value the cluster lacks always raises its entropy. A cluster that runs out
    of records before it is diverse is marked ``cluster_ok`` False (its records become leftovers).
    """
    m, d = tnode.shape
    cn = np.empty(d, dtype=np.int32)
    tbl = np.empty(node_ncp.shape[0])
    vals = np.empty(m)
    diversity = min_distinct > 1 or log_l > 0.0
    ccount = np.zeros(max(n_sens, 1), dtype=np.int64)
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
        distinct = 0
        total = 0
        if diversity:
            ccount[:] = 0
            sv = tuple_sens[best]
            if sv >= 0:
                ccount[sv] += 1
                distinct += 1
                total += 1
        while _needs_more(size, k, ccount, distinct, total, min_distinct, log_l):
            _join_table(cn, attr_lo, attr_hi, node_anc, node_level, node_ncp, tbl)
            _join_costs(tnode, tbl, used, rec_start, vals)
            balance = diversity and (size >= k or k - size <= min_distinct - distinct)
            best = -1
            best_v = np.inf
            best_r = 0
            best_c = np.iinfo(np.int64).max
            for t in range(m):
                v = vals[t]
                if v == np.inf:
                    continue
                cnt = 0
                if balance:
                    sv = tuple_sens[t]
                    cnt = ccount[sv] if sv >= 0 else np.iinfo(np.int64).max - 1
                    if cnt > best_c:
                        continue
                    if cnt < best_c:
                        best_c = cnt
                        best_v = np.inf
                if v > best_v:
                    continue
                r = rec_list[rec_start[t] + used[t]]
                if v < best_v or r < best_r:
                    best_v = v
                    best = t
                    best_r = r
            if best < 0:  # no record left: the cluster is not l-diverse
                break
            r = _take(best, used, rec_start, rec_list)
            rec_cluster[r] = c
            remaining -= 1
            for a in range(d):
                cn[a] = lca_node(cn[a], tnode[best, a], node_anc, node_level)
            size += 1
            if diversity:
                sv = tuple_sens[best]
                if sv >= 0:
                    if ccount[sv] == 0:
                        distinct += 1
                    ccount[sv] += 1
                    total += 1
        for a in range(d):
            cluster_nodes[c, a] = cn[a]
        cluster_size[c] = size
        cluster_ok[c] = not _needs_more(size, k, ccount, distinct, total, min_distinct, log_l)
        n_clusters += 1
        made += 1
    return seed_t, n_clusters, remaining
