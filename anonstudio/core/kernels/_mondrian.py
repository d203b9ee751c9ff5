"""Kernel of strict multidimensional Mondrian partitioning (LeFevre, DeWitt & Ramakrishnan, ICDE 2006).

A stack of segments of a record permutation; each segment is split on the allowable attribute of widest
normalized range: numeric attributes at the median value (records ``<= v`` / ``> v``, ``v`` the distinct-value
boundary nearest the middle), categorical ones along the hierarchy into the children of the segment's LCA
(LeFevre's categorical variant). A split is allowable when every part keeps ``>= k`` records and, if asked,
is entropy l-diverse on the sensitive codes (Machanavajjhala et al. 2007).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from anonstudio.core.kernels._generalize import lca_node


@njit(cache=True, nogil=True)
def _diverse_ok(sens, idx, s, e, counts, log_l, min_distinct):
    """l-diversity of records ``idx[s:e]`` on their sensitive codes (-1: missing, not a value): entropy
    ``-Σ p log p ≥ log_l`` over the present values (when ``log_l > 0``), and at least ``min_distinct``
    distinct present values (when ``min_distinct > 1``). A part with no present value has entropy 0 and no
    distinct value."""
    if log_l <= 0.0 and min_distinct <= 1:
        return True
    total = 0
    for t in range(s, e):
        c = sens[idx[t]]
        if c >= 0:
            counts[c] += 1
            total += 1
    h = 0.0
    distinct = 0
    for t in range(s, e):
        c = sens[idx[t]]
        if c >= 0 and counts[c] > 0:
            p = counts[c] / total
            h -= p * np.log(p)
            distinct += 1
            counts[c] = 0
    if log_l > 0.0 and h < log_l - 1e-12:
        return False
    return distinct >= min_distinct


@njit(cache=True, nogil=True)
def mondrian_partition(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens, n_sens, log_l,
                       min_distinct, k):
    """Partition ids (int64[n], numbered in creation order) of strict Mondrian.

    leaf_nodes: int32[n, d] packed leaves; values: float64[n, d] numeric values (used where
    ``split_numeric[a]``); span: float64[d] domain width (numeric range, or leaf count of the root);
    sens: int32[n] sensitive codes in 0..n_sens-1 (-1 missing); log_l: ln(l) of entropy l-diversity, 0 for none;
    min_distinct: l of distinct l-diversity, 1 for none.
    """
    n, d = leaf_nodes.shape
    idx = np.arange(n)
    labels = np.full(n, -1, dtype=np.int64)
    counts = np.zeros(max(n_sens, 1), dtype=np.int64)
    st_s = np.empty(n + 1, dtype=np.int64)
    st_e = np.empty(n + 1, dtype=np.int64)
    top = 0
    st_s[0] = 0
    st_e[0] = n
    top = 1
    width = np.empty(d)
    lca = np.empty(d, dtype=np.int64)
    nxt = 0
    buf = np.empty(n)
    keys = np.empty(n, dtype=np.int64)
    while top > 0:
        top -= 1
        s = st_s[top]
        e = st_e[top]
        size = e - s
        for a in range(d):
            if split_numeric[a]:
                mn = np.inf
                mx = -np.inf
                for t in range(s, e):
                    v = values[idx[t], a]
                    if v < mn:
                        mn = v
                    if v > mx:
                        mx = v
                width[a] = (mx - mn) / span[a] if span[a] > 0 else 0.0
            else:
                node = leaf_nodes[idx[s], a]
                for t in range(s + 1, e):
                    node = lca_node(node, leaf_nodes[idx[t], a], node_anc, node_level)
                lca[a] = node
                width[a] = (node_leaves[node] / span[a]) if node_level[node] > 0 else 0.0
        order = np.argsort(-width, kind="mergesort")
        done = False
        if size >= 2 * k:
            for oi in range(d):
                a = order[oi]
                if width[a] <= 0.0:
                    break
                if split_numeric[a]:
                    for t in range(s, e):
                        buf[t - s] = values[idx[t], a]
                    perm = np.argsort(buf[:size], kind="mergesort")
                    seg = idx[s:e].copy()
                    for t in range(size):
                        idx[s + t] = seg[perm[t]]
                    sv = buf[:size][perm]
                    mid = (size - 1) // 2
                    # boundaries: after the last record equal to sv[mid] (lo side <= median), or before its first
                    up = mid
                    while up + 1 < size and sv[up + 1] == sv[mid]:
                        up += 1
                    down = mid
                    while down - 1 >= 0 and sv[down - 1] == sv[mid]:
                        down -= 1
                    cands = np.empty(2, dtype=np.int64)
                    cands[0] = up + 1  # left size with '<= median'
                    cands[1] = down  # left size with '< median'
                    if abs(cands[1] - size / 2) < abs(cands[0] - size / 2):
                        cands[0], cands[1] = cands[1], cands[0]
                    for ci in range(2):
                        left = cands[ci]
                        if left < k or size - left < k:
                            continue
                        if not _diverse_ok(sens, idx, s, s + left, counts, log_l, min_distinct):
                            continue
                        if not _diverse_ok(sens, idx, s + left, e, counts, log_l, min_distinct):
                            continue
                        st_s[top] = s + left
                        st_e[top] = e
                        top += 1
                        st_s[top] = s
                        st_e[top] = s + left
                        top += 1
                        done = True
                        break
                else:
                    lv = node_level[lca[a]] - 1
                    for t in range(s, e):
                        keys[t - s] = node_anc[leaf_nodes[idx[t], a], lv]
                    perm = np.argsort(keys[:size], kind="mergesort")
                    seg = idx[s:e].copy()
                    for t in range(size):
                        idx[s + t] = seg[perm[t]]
                    sk = keys[:size][perm]
                    ok = True
                    start = 0
                    for t in range(1, size + 1):
                        if t == size or sk[t] != sk[start]:
                            if t - start < k or not _diverse_ok(sens, idx, s + start, s + t, counts, log_l, min_distinct):
                                ok = False
                                break
                            start = t
                    if ok:
                        # push the groups in reverse so that they pop in key order
                        end = size
                        for t in range(size - 1, -1, -1):
                            if t == 0 or sk[t - 1] != sk[t]:
                                st_s[top] = s + t
                                st_e[top] = s + end
                                top += 1
                                end = t
                        done = True
                if done:
                    break
        if not done:
            for t in range(s, e):
                labels[idx[t]] = nxt
            nxt += 1
    return labels
