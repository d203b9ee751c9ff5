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
def _parts_allowed(sens, idx, s, e, left, k, counts, log_l, min_distinct):
    if left < k or (e - s) - left < k:
        return False
    return _diverse_ok(sens, idx, s, s + left, counts, log_l, min_distinct) and _diverse_ok(sens, idx, s + left, e, counts, log_l, min_distinct)


@njit(cache=True, nogil=True)
def _numeric_cut(sv, cands, size, k, nearest, sens, idx, s, counts, log_l, min_distinct):
    """Left part's size of the numeric cut (0: none allowable). ``sv``: the partition's sorted values."""
    for ci in range(2):
        if _parts_allowed(sens, idx, s, s + size, cands[ci], k, counts, log_l, min_distinct):
            return cands[ci]
    if not nearest:
        return 0
    # distinct-value boundaries (cuts between two different values) outwards from the middle
    half = size / 2.0
    lo = int(half)  # candidate boundaries <= half, walking down
    hi = lo + 1  # > half, walking up
    while lo > 0 or hi < size:
        while lo > 0 and sv[lo - 1] == sv[lo]:
            lo -= 1
        while hi < size and sv[hi - 1] == sv[hi]:
            hi += 1
        take_lo = lo > 0 and (hi >= size or half - lo <= hi - half)
        left = lo if take_lo else hi
        if 0 < left < size and _parts_allowed(sens, idx, s, s + size, left, k, counts, log_l, min_distinct):
            return left
        if take_lo:
            lo -= 1
        else:
            hi += 1
    return 0


@njit(cache=True, nogil=True)
def _groups_allowed(sk, size, k, sens, idx, s, counts, log_l, min_distinct):
    """Every run of equal keys (a part) holds >= k records (and is entropy l-diverse); at least two parts."""
    start = 0
    parts = 0
    for t in range(1, size + 1):
        if t == size or sk[t] != sk[start]:
            if t - start < k or not _diverse_ok(sens, idx, s + start, s + t, counts, log_l, min_distinct):
                return False
            parts += 1
            start = t
    return parts > 1


@njit(cache=True, nogil=True)
def _pool_small(sk, size, k, sens, idx, s, counts, log_l, min_distinct):
    """Give the children whose part is not allowable the key -1 (one pooled part); if the pool itself is too
    small, the smallest allowable child joins it. Returns whether a split into >= 2 parts remains."""
    start = 0
    pooled = 0
    for t in range(1, size + 1):
        if t == size or sk[t] != sk[start]:
            if t - start < k or not _diverse_ok(sens, idx, s + start, s + t, counts, log_l, min_distinct):
                for u in range(start, t):
                    sk[u] = -1
                pooled += t - start
            start = t
    if pooled == 0 or pooled == size:
        return False
    if pooled < k:
        best_start = -1
        best_len = size + 1
        start = 0
        for t in range(1, size + 1):
            if t == size or sk[t] != sk[start]:
                if sk[start] != -1 and t - start < best_len:
                    best_len = t - start
                    best_start = start
                start = t
        if best_len + pooled == size:
            return False
        for u in range(best_start, best_start + best_len):
            sk[u] = -1
    return True


@njit(cache=True, nogil=True)
def mondrian_partition(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens, n_sens, log_l,
                       min_distinct, k, nearest):
    """Partition ids (int64[n], numbered in creation order) of strict Mondrian.

    ``nearest`` False: LeFevre's cuts only — a numeric attribute at its median value (either side of the
    run of records equal to it), a categorical one into all children of the partition's LCA. True: when
    those are not allowable, a numeric attribute is cut at the allowable distinct-value boundary nearest
    the middle, and a categorical one keeps each child with an allowable part apart and pools the other
    children into one part (generalized to the LCA, a label none of the single-child parts has).

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
                    left = _numeric_cut(sv, cands, size, k, nearest, sens, idx, s, counts, log_l, min_distinct)
                    if left > 0:
                        st_s[top] = s + left
                        st_e[top] = e
                        top += 1
                        st_s[top] = s
                        st_e[top] = s + left
                        top += 1
                        done = True
                else:
                    lv = node_level[lca[a]] - 1
                    for t in range(s, e):
                        keys[t - s] = node_anc[leaf_nodes[idx[t], a], lv]
                    perm = np.argsort(keys[:size], kind="mergesort")
                    seg = idx[s:e].copy()
                    for t in range(size):
                        idx[s + t] = seg[perm[t]]
                    sk = keys[:size][perm]
                    ok = _groups_allowed(sk, size, k, sens, idx, s, counts, log_l, min_distinct)
                    if not ok and nearest and _pool_small(sk, size, k, sens, idx, s, counts, log_l, min_distinct):
                        # the pooled children share key -1: sort again so each part is contiguous
                        perm = np.argsort(sk, kind="mergesort")
                        seg = idx[s:e].copy()
                        for t in range(size):
                            idx[s + t] = seg[perm[t]]
                        sk = sk[perm]
                        ok = _groups_allowed(sk, size, k, sens, idx, s, counts, log_l, min_distinct)
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
