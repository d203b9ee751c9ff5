"""Kernel of strict multidimensional Mondrian partitioning (LeFevre, DeWitt & Ramakrishnan, ICDE 2006).

A stack of segments of a record permutation; each segment is split on the allowable attribute of widest
normalized range: numeric attributes at the median value (records ``<= v`` / ``> v``, ``v`` the distinct-value
boundary nearest the middle), categorical ones along the hierarchy into the children of the segment's LCA
(LeFevre's categorical variant). A split is allowable when every part keeps ``>= k`` records and, if asked,
is entropy l-diverse on the sensitive codes (Machanavajjhala et al. 2007).
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit
from anonstudio.core.kernels._distribution import no_rules, rules_hold
from anonstudio.core.kernels._generalize import lca_node


@njit(cache=True, nogil=True)
def _diverse_ok(sens, idx, s, e, counts, log_l, min_distinct, rules):
    """l-diversity of records ``idx[s:e]`` on their sensitive codes (-1: missing, not a value): entropy
    ``-Σ p log p ≥ log_l`` over the present values (when ``log_l > 0``), and at least ``min_distinct``
    distinct present values (when ``min_distinct > 1``). A part with no present value has entropy 0 and no
    distinct value."""
    if log_l <= 0.0 and min_distinct <= 1 and len(rules[0]) == 0:
        return True
    total = 0
    for t in range(s, e):
        c = sens[idx[t]]
        if c >= 0:
            counts[c] += 1
            total += 1
    ok = len(rules[0]) == 0 or rules_hold(counts, total, rules)
    h = 0.0
    distinct = 0
    for t in range(s, e):
        c = sens[idx[t]]
        if c >= 0 and counts[c] > 0:
            p = counts[c] / total
            h -= p * np.log(p)
            distinct += 1
            counts[c] = 0
    if not ok or (log_l > 0.0 and h < log_l - 1e-12):
        return False
    return distinct >= min_distinct


@njit(cache=True, nogil=True)
def _people_in(people, idx, s, e, seen, stamp):
    """Distinct people among records ``idx[s:e]`` (``people``: each record's person code; ``seen``/``stamp``:
    scratch, one stamp per count)."""
    stamp[0] += 1
    mark = stamp[0]
    n = 0
    for t in range(s, e):
        p = people[idx[t]]
        if seen[p] != mark:
            seen[p] = mark
            n += 1
    return n


@njit(cache=True, nogil=True)
def _people_prefix(people, idx, s, size, seen, stamp, pre, suf):
    """``pre[t]``: distinct people among ``idx[s:s+t]``; ``suf[t]``: among ``idx[s+t:s+size]`` (t = 0..size), so
    every numeric cut of the ordered segment is judged in O(1)."""
    stamp[0] += 1
    mark = stamp[0]
    n = 0
    pre[0] = 0
    for t in range(size):
        p = people[idx[s + t]]
        if seen[p] != mark:
            seen[p] = mark
            n += 1
        pre[t + 1] = n
    stamp[0] += 1
    mark = stamp[0]
    n = 0
    suf[size] = 0
    for t in range(size - 1, -1, -1):
        p = people[idx[s + t]]
        if seen[p] != mark:
            seen[p] = mark
            n += 1
        suf[t] = n


@njit(cache=True, nogil=True)
def _part_small(people, idx, s, e, k, seen, stamp):
    """Whether the part ``idx[s:e]`` holds fewer than ``k`` records — or, with a person column (``people`` not
    empty), fewer than ``k`` distinct people."""
    if e - s < k:
        return True
    if len(people) == 0:
        return False
    return _people_in(people, idx, s, e, seen, stamp) < k


@njit(cache=True, nogil=True)
def _parts_allowed(sens, idx, s, e, left, k, counts, log_l, min_distinct, rules, pre, suf):
    if left < k or (e - s) - left < k:
        return False
    if len(pre) > 0 and (pre[left] < k or suf[left] < k):
        return False
    return _diverse_ok(sens, idx, s, s + left, counts, log_l, min_distinct, rules) and _diverse_ok(sens, idx, s + left, e, counts, log_l, min_distinct, rules)


@njit(cache=True, nogil=True)
def _numeric_cut(sv, cands, size, k, nearest, sens, idx, s, counts, log_l, min_distinct, rules, pre, suf):
    """Left part's size of the numeric cut (0: none allowable). ``sv``: the partition's sorted values."""
    for ci in range(2):
        if _parts_allowed(sens, idx, s, s + size, cands[ci], k, counts, log_l, min_distinct, rules, pre, suf):
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
        if 0 < left < size and _parts_allowed(sens, idx, s, s + size, left, k, counts, log_l, min_distinct, rules,
                                              pre, suf):
            return left
        if take_lo:
            lo -= 1
        else:
            hi += 1
    return 0


@njit(cache=True, nogil=True)
def _groups_allowed(sk, size, k, sens, idx, s, counts, log_l, min_distinct, rules, people, seen, stamp):
    """Every run of equal keys (a part) holds >= k records (people) and is l-diverse; at least two parts."""
    start = 0
    parts = 0
    for t in range(1, size + 1):
        if t == size or sk[t] != sk[start]:
            if _part_small(people, idx, s + start, s + t, k, seen, stamp) or not _diverse_ok(sens, idx, s + start, s + t, counts, log_l, min_distinct, rules):
                return False
            parts += 1
            start = t
    return parts > 1


@njit(cache=True, nogil=True)
def _pool_small(sk, size, k, sens, idx, s, counts, log_l, min_distinct, rules, people, seen, stamp):
    """Give the children whose part is not allowable the key -1 (one pooled part); if the pool itself is too
    small, the smallest allowable child joins it. Returns whether a split into >= 2 parts remains."""
    start = 0
    pooled = 0
    for t in range(1, size + 1):
        if t == size or sk[t] != sk[start]:
            if _part_small(people, idx, s + start, s + t, k, seen, stamp) or not _diverse_ok(sens, idx, s + start, s + t, counts, log_l, min_distinct, rules):
                for u in range(start, t):
                    sk[u] = -1
                pooled += t - start
            start = t
    if pooled == 0 or pooled == size:
        return False
    small = pooled < k
    if not small and len(people) > 0:  # the pool's distinct people
        stamp[0] += 1
        mark = stamp[0]
        n = 0
        for t in range(size):
            if sk[t] == -1:
                p = people[idx[s + t]]
                if seen[p] != mark:
                    seen[p] = mark
                    n += 1
        small = n < k
    if small:
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
def _order_by_key(keys, size, perm):
    """``perm[:size] = np.argsort(keys[:size], kind="mergesort")`` for integer keys: a counting sort when the
    keys span at most a few times ``size`` values (stable like the merge sort, so the very same order, in
    O(size + span) instead of O(size log size)), else the merge sort."""
    lo = keys[0]
    hi = keys[0]
    for t in range(1, size):
        v = keys[t]
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    span = hi - lo + 1
    if span > 4 * size + 64:
        perm[:size] = np.argsort(keys[:size], kind="mergesort")
        return
    start = np.zeros(span + 1, dtype=np.int64)
    for t in range(size):
        start[keys[t] - lo + 1] += 1
    for j in range(span):
        start[j + 1] += start[j]
    for t in range(size):
        j = keys[t] - lo
        perm[start[j]] = t
        start[j] += 1


@njit(cache=True, nogil=True)
def _reorder(idx, s, size, perm):
    """``idx[s:s + size] = idx[s:s + size][perm[:size]]``."""
    seg = idx[s : s + size].copy()
    for t in range(size):
        idx[s + t] = seg[perm[t]]


@njit(cache=True, nogil=True)
def value_ranks(values, split_numeric):
    """Dense rank of each record's value per numeric attribute (equal values, equal ranks; order kept), so
    that a segment is ordered by integer keys (:func:`_order_by_key`) rather than by sorting floats."""
    n, d = values.shape
    ranks = np.zeros((n, d), dtype=np.int64)
    for a in range(d):
        if not split_numeric[a] or n == 0:
            continue
        order = np.argsort(values[:, a], kind="mergesort")
        r = 0
        ranks[order[0], a] = 0
        for t in range(1, n):
            if values[order[t], a] != values[order[t - 1], a]:
                r += 1
            ranks[order[t], a] = r
    return ranks


@njit(cache=True, nogil=True)
def depth_first_ranks(node_anc, node_level):
    """Each packed node's place in a depth-first order of its hierarchy: nodes sorted by their ancestors from
    the root down (stable sorts from the lowest level up), so the leaves under any node hold consecutive
    ranks. The LCA of a set of leaves is then the LCA of its lowest- and highest-ranked leaves — two
    comparisons per record instead of a climb of the hierarchy."""
    m, top = node_anc.shape
    order = np.arange(m)
    keys = np.empty(m, dtype=np.int64)
    for level in range(top):
        for i in range(m):
            node = order[i]
            keys[i] = node_anc[node, level] if level >= node_level[node] else -1
        order = order[np.argsort(keys, kind="mergesort")]
    ranks = np.empty(m, dtype=np.int64)
    for i in range(m):
        ranks[order[i]] = i
    return ranks


@njit(cache=True, nogil=True)
def _split_segment(idx, s, e, leaf_nodes, values, ranks, dfs, split_numeric, span, node_anc, node_level, node_leaves, sens,
                   log_l, min_distinct, rules, k, nearest, counts, width, lca, perm, keys, cuts, cancel, people, seen,
                   stamp, pre, suf):
    """Split the segment ``idx[s:e]`` the way strict Mondrian splits a partition.

    Returns the number of parts ``p`` (0: no allowable cut, the segment is final). When ``p > 0``, ``idx[s:e]``
    is reordered so every part is contiguous and ``cuts[0..p]`` holds their bounds (``cuts[0] = s``,
    ``cuts[p] = e``), parts in order (numeric: ``<= v`` then ``> v``; categorical: by child key, pool last).
    Which records go to which part depends only on the segment's *set* of records, never on their order in
    ``idx`` (cuts fall between distinct values or between hierarchy children), so a segment split here on its
    own gives the parts the whole-table recursion gives it.

    ``cancel[0] != 0`` (set by another thread) stops it before the next attribute is tried: it returns 0 and
    the caller, which polls the same flag, stops too (a large segment sorts once per attribute tried).

    ``people`` (each record's person code; empty: none): every part must hold ``k`` distinct people, not records
    (:mod:`anonstudio.core.privacy._people`); ``seen``/``stamp``/``pre``/``suf`` are its scratch.
    """
    d = leaf_nodes.shape[1]
    size = e - s
    if size < 2 * k:
        return 0
    by_people = len(people) > 0
    if by_people and _people_in(people, idx, s, e, seen, stamp) < 2 * k:
        return 0
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
        else:  # the LCA of the segment's leaves: that of its first and last leaf in depth-first order
            low = high = leaf_nodes[idx[s], a]
            low_rank = high_rank = dfs[low]
            for t in range(s + 1, e):
                leaf = leaf_nodes[idx[t], a]
                r = dfs[leaf]
                if r < low_rank:
                    low_rank = r
                    low = leaf
                elif r > high_rank:
                    high_rank = r
                    high = leaf
            node = lca_node(low, high, node_anc, node_level)
            lca[a] = node
            width[a] = (node_leaves[node] / span[a]) if node_level[node] > 0 else 0.0
    order = np.argsort(-width, kind="mergesort")
    for oi in range(d):
        a = order[oi]
        if width[a] <= 0.0 or cancel[0] != 0:
            break
        if split_numeric[a]:
            # ordered by the values' dense ranks: equal ranks are equal values, so every boundary below is
            # where it would be on the values themselves
            for t in range(s, e):
                keys[t - s] = ranks[idx[t], a]
            _order_by_key(keys, size, perm)
            _reorder(idx, s, size, perm)
            sv = keys[:size][perm[:size]]
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
            if by_people:
                _people_prefix(people, idx, s, size, seen, stamp, pre, suf)
                left = _numeric_cut(sv, cands, size, k, nearest, sens, idx, s, counts, log_l, min_distinct, rules,
                                    pre, suf)
            else:
                left = _numeric_cut(sv, cands, size, k, nearest, sens, idx, s, counts, log_l, min_distinct, rules,
                                    pre[:0], suf[:0])
            if left > 0:
                cuts[0] = s
                cuts[1] = s + left
                cuts[2] = e
                return 2
        else:
            lv = node_level[lca[a]] - 1
            for t in range(s, e):
                keys[t - s] = node_anc[leaf_nodes[idx[t], a], lv]
            _order_by_key(keys, size, perm)
            _reorder(idx, s, size, perm)
            sk = keys[:size][perm[:size]]
            ok = _groups_allowed(sk, size, k, sens, idx, s, counts, log_l, min_distinct, rules, people, seen, stamp)
            if not ok and nearest and _pool_small(sk, size, k, sens, idx, s, counts, log_l, min_distinct, rules, people,
                                                  seen, stamp):
                # the pooled children share key -1: sort again so each part is contiguous
                _order_by_key(sk, size, perm)
                _reorder(idx, s, size, perm)
                sk = sk[perm[:size]]
                ok = _groups_allowed(sk, size, k, sens, idx, s, counts, log_l, min_distinct, rules, people, seen,
                                     stamp)
            if ok:
                p = 0
                cuts[0] = s
                for t in range(1, size + 1):
                    if t == size or sk[t - 1] != sk[t]:
                        p += 1
                        cuts[p] = s + t
                return p
    return 0


@njit(cache=True, nogil=True)
def mondrian_partition(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens, n_sens, log_l,
                       min_distinct, k, nearest):
    """:func:`mondrian_partition_until` that is never cancelled."""
    return mondrian_partition_until(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens,
                                    n_sens, log_l, min_distinct, k, nearest, np.zeros(2, dtype=np.int64))


@njit(cache=True, nogil=True)
def mondrian_partition_until(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens, n_sens,
                             log_l, min_distinct, k, nearest, cancel):
    """:func:`mondrian_partition_rules` with no distribution rules (k and l-diversity only)."""
    return mondrian_partition_rules(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens,
                                    n_sens, log_l, min_distinct, no_rules(), k, nearest, cancel)


@njit(cache=True, nogil=True)
def mondrian_partition_rules(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens, n_sens,
                             log_l, min_distinct, rules, k, nearest, cancel):
    """:func:`mondrian_partition_people` counting records (no person column)."""
    return mondrian_partition_people(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens,
                                     n_sens, log_l, min_distinct, rules, k, nearest, np.zeros(0, dtype=np.int64),
                                     cancel)


@njit(cache=True, nogil=True)
def mondrian_partition_people(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens, n_sens,
                              log_l, min_distinct, rules, k, nearest, people, cancel):
    """Partition ids (int64[n], numbered in creation order) of strict Mondrian.

    ``rules``: the sensitive-distribution models every part keeps (:mod:`._distribution`; ``no_rules()``: none).

    ``nearest`` False: LeFevre's cuts only — a numeric attribute at its median value (either side of the
    run of records equal to it), a categorical one into all children of the partition's LCA. True: when
    those are not allowable, a numeric attribute is cut at the allowable distinct-value boundary nearest
    the middle, and a categorical one keeps each child with an allowable part apart and pools the other
    children into one part (generalized to the LCA, a label none of the single-child parts has).

    leaf_nodes: int32[n, d] packed leaves; values: float64[n, d] numeric values (used where
    ``split_numeric[a]``); span: float64[d] domain width (numeric range, or leaf count of the root);
    sens: int32[n] sensitive codes in 0..n_sens-1 (-1 missing); log_l: ln(l) of entropy l-diversity, 0 for none;
    min_distinct: l of distinct l-diversity, 1 for none; people: int64[n] each record's person code 0..P-1 (a
    table's person column: every part holds ``k`` distinct people), or empty (parts hold ``k`` records).

    cancel: int64[2], shared with another thread (:func:`anonstudio.core.progress.cancel_flag`). ``cancel[0]``
    is polled before each segment and each attribute tried on it: once it is non-zero the kernel stops and
    returns the labels so far (records not yet labelled keep -1), which the caller discards. ``cancel[1]``
    counts the records labelled so far (the progress a watcher reports).
    """
    n, d = leaf_nodes.shape
    idx = np.arange(n)
    labels = np.full(n, -1, dtype=np.int64)
    counts = np.zeros(max(n_sens, 1), dtype=np.int64)
    st_s = np.empty(n + 1, dtype=np.int64)
    st_e = np.empty(n + 1, dtype=np.int64)
    st_s[0] = 0
    st_e[0] = n
    top = 1
    width = np.empty(d)
    lca = np.empty(d, dtype=np.int64)
    nxt = 0
    ranks = value_ranks(values, split_numeric)
    dfs = depth_first_ranks(node_anc, node_level)
    perm = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    cuts = np.empty(n + 1, dtype=np.int64)
    n_people = 0
    for t in range(len(people)):
        if people[t] + 1 > n_people:
            n_people = people[t] + 1
    seen = np.zeros(max(n_people, 1), dtype=np.int64)
    stamp = np.zeros(1, dtype=np.int64)
    pre = np.empty(n + 1 if len(people) > 0 else 1, dtype=np.int64)
    suf = np.empty(n + 1 if len(people) > 0 else 1, dtype=np.int64)
    while top > 0:
        if cancel[0] != 0:
            break
        top -= 1
        s = st_s[top]
        e = st_e[top]
        p = _split_segment(idx, s, e, leaf_nodes, values, ranks, dfs, split_numeric, span, node_anc, node_level,
                           node_leaves, sens, log_l, min_distinct, rules, k, nearest, counts, width, lca, perm, keys, cuts,
                           cancel, people, seen, stamp, pre, suf)
        if cancel[0] != 0:
            break
        if p == 0:
            for t in range(s, e):
                labels[idx[t]] = nxt
            nxt += 1
            cancel[1] += e - s
        else:
            # push the parts in reverse so that they pop in order
            for q in range(p - 1, -1, -1):
                st_s[top] = cuts[q]
                st_e[top] = cuts[q + 1]
                top += 1
    return labels


@njit(cache=True, nogil=True)
def mondrian_top_splits(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens, n_sens,
                        log_l, min_distinct, rules, k, nearest, min_parts):
    """The first levels of :func:`mondrian_partition`'s recursion, for running its subtrees apart.

    Splits level by level (every open segment of a level once) until there are at least ``min_parts``
    segments or none can be split. Returns ``(idx, starts, ends, final)``: the records reordered so that each
    segment is ``idx[starts[j]:ends[j]]``, and whether the segment is already final (no allowable cut). The
    splits are exactly the recursion's (see :func:`_split_segment`), so :func:`mondrian_partition` run on
    each open segment's records, with the final segments kept whole, gives the whole-table partition.
    """
    n, d = leaf_nodes.shape
    idx = np.arange(n)
    counts = np.zeros(max(n_sens, 1), dtype=np.int64)
    width = np.empty(d)
    lca = np.empty(d, dtype=np.int64)
    ranks = value_ranks(values, split_numeric)
    dfs = depth_first_ranks(node_anc, node_level)
    perm = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    cuts = np.empty(n + 1, dtype=np.int64)
    open_s = np.empty(n + 1, dtype=np.int64)
    open_e = np.empty(n + 1, dtype=np.int64)
    fin_s = np.empty(n + 1, dtype=np.int64)
    fin_e = np.empty(n + 1, dtype=np.int64)
    open_s[0] = 0
    open_e[0] = n
    n_open = 1
    n_fin = 0
    new_s = np.empty(n + 1, dtype=np.int64)
    new_e = np.empty(n + 1, dtype=np.int64)
    never = np.zeros(2, dtype=np.int64)
    no_people = np.zeros(0, dtype=np.int64)
    seen = np.zeros(1, dtype=np.int64)
    stamp = np.zeros(1, dtype=np.int64)
    pre = np.empty(1, dtype=np.int64)
    while n_open > 0 and n_open + n_fin < min_parts:
        n_new = 0
        for j in range(n_open):
            s = open_s[j]
            e = open_e[j]
            p = _split_segment(idx, s, e, leaf_nodes, values, ranks, dfs, split_numeric, span, node_anc, node_level,
                               node_leaves, sens, log_l, min_distinct, rules, k, nearest, counts, width, lca, perm, keys,
                               cuts, never, no_people, seen, stamp, pre, pre)
            if p == 0:
                fin_s[n_fin] = s
                fin_e[n_fin] = e
                n_fin += 1
            else:
                for q in range(p):
                    new_s[n_new] = cuts[q]
                    new_e[n_new] = cuts[q + 1]
                    n_new += 1
        for j in range(n_new):
            open_s[j] = new_s[j]
            open_e[j] = new_e[j]
        n_open = n_new
    m = n_open + n_fin
    starts = np.empty(m, dtype=np.int64)
    ends = np.empty(m, dtype=np.int64)
    final = np.zeros(m, dtype=np.bool_)
    for j in range(n_fin):
        starts[j] = fin_s[j]
        ends[j] = fin_e[j]
        final[j] = True
    for j in range(n_open):
        starts[n_fin + j] = open_s[j]
        ends[n_fin + j] = open_e[j]
    return idx, starts, ends, final
