"""Kernels of utility-driven local recoding (``local``) and of the re-splitting other methods borrow.

- :func:`peel`: cheapest-transformation-first publication. Transformations (one hierarchy level per attribute)
  are taken in increasing order of their cost; at each, the remaining records are grouped by their generalized
  tuple and every group that meets the privacy limits is published as a class and leaves the remainder. ARX
  reaches local recoding the same way, by global recoding repeated on the records the last round suppressed
  (Prasser, Eicher, Spengler, Bild & Kuhn, "Flexible data anonymization using ARX — current status and
  challenges ahead", Softw. Pract. Exper. 2020); here every transformation of the lattice is one round, so a
  record is published at the cheapest transformation at which enough records share its generalized tuple.
- :func:`specialize`: relaxed top-down specialization of classes (LeFevre, DeWitt & Ramakrishnan, Mondrian,
  ICDE 2006, along the hierarchy; relaxed as their relaxed partitioning), choosing at every step the split that
  lowers the cost most (Xu, Wang, Pei, Wang, Shi & Fu, "Utility-based anonymization using local recoding", KDD
  2006). A class splits on an attribute into the children of its lowest common ancestor; children that cannot
  stand alone are pooled at the ancestor, and a pool too small borrows the records cheapest to move from the
  children that have more than they need.
- :func:`resplit_pairs`: pairs of overlapping classes specialized anew together, the parts kept only if they lower
  the loss without raising Σ size² or publishing another class's cells.
- :func:`join_leftovers`: records no class took join, one at a time, the class whose cost grows least (Byun,
  Kamra, Bertino & Li, DASFAA 2007, the last step of greedy k-member clustering).

Costs: ``node_cost[node]`` is what one cell published at ``node`` costs under the quality model (see
:mod:`anonstudio.core.algorithms._suppression`); a class of ``m`` records with lowest common ancestors ``g``
costs ``m * sum(node_cost[g])``. Privacy limits: ``k`` records, and on the sensitive codes (``-1`` missing, not
a value) at least ``min_distinct`` distinct values and an entropy of at least ``log_l`` (0: not asked).
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._generalize import lca_node
from numba import types
from numba.typed import Dict

from anonstudio.core.kernels._jit import njit, prange


@njit(cache=True, nogil=True)
def diverse(counts, values, m, min_distinct, log_l):
    """Whether the sensitive values ``values[:m]`` (codes into ``counts``, a zeroed scratch array that is left
    zeroed; ``-1`` = missing) hold ``min_distinct`` distinct values and an entropy of ``log_l``."""
    if min_distinct <= 1 and log_l <= 0.0:
        return True
    total = 0
    distinct = 0
    for i in range(m):
        v = values[i]
        if v >= 0:
            if counts[v] == 0:
                distinct += 1
            counts[v] += 1
            total += 1
    h = 0.0
    for i in range(m):
        v = values[i]
        if v >= 0 and counts[v] > 0:
            p = counts[v] / total
            h -= p * np.log(p)
            counts[v] = 0
    if distinct < min_distinct:
        return False
    return log_l <= 0.0 or h >= log_l - 1e-12


# ---------------------------------------------------------------------------------------------------------
# peeling the lattice
@njit(cache=True, nogil=True)
def _hash(codes, d):
    h = np.int64(1469598103934665603)
    for a in range(d):
        h = (h ^ np.int64(codes[a])) * np.int64(1099511628211)
    return h


@njit(cache=True, nogil=True)
def peel(tuple_leaf, tuple_count, tuple_sens, node_anc, transformations, k, n_sens, min_distinct, log_l,
         tuple_class, remaining, n_remaining, n_classes, start, stop):
    """Publish, for the transformations ``start..stop-1`` (rows of ``transformations``: a level per attribute,
    cheapest first), every group of remaining tuples that shares its generalized tuple and meets the limits.

    ``tuple_leaf[t]``: the packed leaf nodes of distinct tuple ``t`` (records with equal quasi-identifiers and
    equal sensitive value), held by ``tuple_count[t]`` records of sensitive code ``tuple_sens[t]``.
    ``tuple_class[t]`` receives the class of every published tuple; ``remaining[:n_remaining]`` lists the others
    (ascending; updated in place). Returns ``(n_remaining, n_classes)``.
    """
    d = tuple_leaf.shape[1]
    size = 1
    while size < 2 * max(n_remaining, 1):
        size *= 2
    slot_rep = np.full(size, -1, dtype=np.int64)
    slot_group = np.empty(size, dtype=np.int64)
    group_of = np.empty(max(n_remaining, 1), dtype=np.int64)
    group_count = np.zeros(max(n_remaining, 1), dtype=np.int64)
    counts = np.zeros(max(n_sens, 1), dtype=np.int64)
    order = np.empty(max(n_remaining, 1), dtype=np.int64)
    gstart = np.zeros(max(n_remaining, 1) + 1, dtype=np.int64)
    codes = np.empty(d, dtype=np.int64)
    other = np.empty(d, dtype=np.int64)
    for ti in range(start, stop):
        if n_remaining == 0:
            break
        total = 0
        for i in range(n_remaining):
            total += tuple_count[remaining[i]]
        if total < k:
            break
        # group the remaining tuples by their generalized tuple (open addressing on the node ids)
        slot_rep[:] = -1
        groups = 0
        for i in range(n_remaining):
            t = remaining[i]
            for a in range(d):
                codes[a] = node_anc[tuple_leaf[t, a], transformations[ti, a]]
            s = _hash(codes, d) & (size - 1)
            while True:
                rep = slot_rep[s]
                if rep < 0:
                    slot_rep[s] = t
                    slot_group[s] = groups
                    group_count[groups] = 0
                    g = groups
                    groups += 1
                    break
                same = True
                for a in range(d):
                    other[a] = node_anc[tuple_leaf[rep, a], transformations[ti, a]]
                    if other[a] != codes[a]:
                        same = False
                        break
                if same:
                    g = slot_group[s]
                    break
                s = (s + 1) & (size - 1)
            group_of[i] = g
            group_count[g] += tuple_count[t]
        big = False
        for g in range(groups):
            if group_count[g] >= k:
                big = True
                break
        if not big:
            continue
        # members of every group together (counting sort), then publish the groups that meet the limits
        gstart[: groups + 1] = 0
        for i in range(n_remaining):
            gstart[group_of[i] + 1] += 1
        for g in range(groups):
            gstart[g + 1] += gstart[g]
        for i in range(n_remaining):
            g = group_of[i]
            order[gstart[g]] = remaining[i]
            gstart[g] += 1
        published = 0
        lo = 0
        for g in range(groups):
            hi = gstart[g]
            if group_count[g] >= k:
                ok = True
                if min_distinct > 1 or log_l > 0.0:
                    tot = 0
                    dist = 0
                    for j in range(lo, hi):
                        v = tuple_sens[order[j]]
                        if v >= 0:
                            if counts[v] == 0:
                                dist += 1
                            counts[v] += tuple_count[order[j]]
                            tot += tuple_count[order[j]]
                    h = 0.0
                    for j in range(lo, hi):
                        v = tuple_sens[order[j]]
                        if v >= 0 and counts[v] > 0:
                            p = counts[v] / tot
                            h -= p * np.log(p)
                            counts[v] = 0
                    ok = dist >= min_distinct and (log_l <= 0.0 or h >= log_l - 1e-12)
                if ok:
                    for j in range(lo, hi):
                        tuple_class[order[j]] = n_classes
                    n_classes += 1
                    published += 1
            lo = hi
        if published:
            m = 0
            for i in range(n_remaining):
                t = remaining[i]
                if tuple_class[t] < 0:
                    remaining[m] = t
                    m += 1
            n_remaining = m
    return n_remaining, n_classes


# ---------------------------------------------------------------------------------------------------------
# relaxed top-down specialization
@njit(cache=True, nogil=True)
def _part_diverse(sens, perm, s, e, part, p, counts, buf, min_distinct, log_l):
    m = 0
    for t in range(s, e):
        if part[t - s] == p:
            buf[m] = sens[perm[t]]
            m += 1
    return diverse(counts, buf, m, min_distinct, log_l)


@njit(cache=True, nogil=True)
def _split(leaf, perm, s, e, a, lev, node_anc, node_level, node_cost, sens, k, min_distinct, log_l, slot_of,
           child, cnt, part, key, cand, counts, buf, g, gp, pc):
    """Split records ``perm[s:e]`` on attribute ``a`` into the children (at level ``lev``) of their LCA: a child
    with enough records (and diverse) is a part of its own, the others are pooled, and a pool too small takes,
    from children with records to spare, those that widen it least (relaxed partitioning). ``part[t - s]``
    receives each record's part (children ``0..``, the pool ``n_children``). Returns ``(parts, cost, Σ size²)``;
    fewer than 2 parts: no split."""
    d = leaf.shape[1]
    ns = 0
    for t in range(s, e):
        c = node_anc[leaf[perm[t], a], lev]
        sl = slot_of[c]
        if sl < 0:
            sl = ns
            slot_of[c] = sl
            child[sl] = c
            cnt[sl] = 0
            ns += 1
        cnt[sl] += 1
        part[t - s] = sl
    for i in range(ns):
        slot_of[child[i]] = -1
    pool = ns
    checks = min_distinct > 1 or log_l > 0.0
    pooled = 0
    for sl in range(ns):
        ok = cnt[sl] >= k
        if ok and checks:
            ok = _part_diverse(sens, perm, s, e, part, sl, counts, buf, min_distinct, log_l)
        if not ok:
            pooled += cnt[sl]
            cnt[sl] = 0  # the child joins the pool
    if pooled > 0:
        for t in range(s, e):
            if cnt[part[t - s]] == 0:
                part[t - s] = pool
    pool_ok = pooled == 0 or (pooled >= k and (not checks or _part_diverse(sens, perm, s, e, part, pool, counts, buf,
                                                                            min_distinct, log_l)))
    if not pool_ok:
        # borrow the records that widen the pool least from children with records to spare
        first = True
        for t in range(s, e):
            if part[t - s] == pool:
                r = perm[t]
                for b in range(d):
                    g[b] = leaf[r, b] if first else lca_node(g[b], leaf[r, b], node_anc, node_level)
                first = False
        nc = 0
        for t in range(s, e):
            if part[t - s] != pool and cnt[part[t - s]] > k:
                r = perm[t]
                v = 0.0
                for b in range(d):
                    v += node_cost[lca_node(g[b], leaf[r, b], node_anc, node_level)]
                key[nc] = v
                cand[nc] = t
                nc += 1
        order = np.argsort(key[:nc], kind="mergesort")
        for j in range(nc):
            t = cand[order[j]]
            sl = part[t - s]
            if cnt[sl] <= k:
                continue
            part[t - s] = pool
            if checks and not _part_diverse(sens, perm, s, e, part, sl, counts, buf, min_distinct, log_l):
                part[t - s] = sl
                continue
            cnt[sl] -= 1
            pooled += 1
            if pooled >= k and (not checks or _part_diverse(sens, perm, s, e, part, pool, counts, buf, min_distinct,
                                                            log_l)):
                pool_ok = True
                break
        if not pool_ok:
            return 0, 0.0, 0.0
    parts = 1 if pooled > 0 else 0
    for sl in range(ns):
        if cnt[sl] > 0:
            parts += 1
    if parts < 2:
        return 0, 0.0, 0.0
    # every part's LCA in one pass over the records (``gp[p]``, ``pc[p]`` records)
    for p in range(ns + 1):
        pc[p] = 0
    for t in range(s, e):
        p = part[t - s]
        r = perm[t]
        if pc[p] == 0:
            for b in range(d):
                gp[p, b] = leaf[r, b]
        else:
            for b in range(d):
                gp[p, b] = lca_node(gp[p, b], leaf[r, b], node_anc, node_level)
        pc[p] += 1
    cost = 0.0
    sq = 0.0
    for p in range(ns + 1):
        if pc[p] == 0:
            continue
        c = 0.0
        for b in range(d):
            c += node_cost[gp[p, b]]
        cost += pc[p] * c
        sq += float(pc[p]) * pc[p]
    return parts, cost, sq


@njit(cache=True, nogil=True)
def specialize(leaf, perm, seg_start, seg_end, node_anc, node_level, node_cost, sens, n_sens, k, min_distinct,
               log_l, max_fan, labels):
    """Split every segment ``perm[seg_start[i]:seg_end[i]]`` (a class meeting the limits) top-down, each time by
    the split of least cost (ties: the smaller Σ size², then the first attribute), until no split keeps every
    part within the limits. ``labels[r]`` receives the final class of every record of the segments; ``perm`` is
    reordered within each segment. Returns the number of classes."""
    longest = 1
    total = 0
    for i in range(len(seg_start)):
        longest = max(longest, seg_end[i] - seg_start[i])
        total += seg_end[i] - seg_start[i]
    ws = _workspace(leaf.shape[1], node_level.shape[0], n_sens, max_fan, longest, total + len(seg_start) + 1)
    return _specialize(leaf, perm, seg_start, seg_end, node_anc, node_level, node_cost, sens, k, min_distinct, log_l,
                       max_fan, labels, ws)


@njit(cache=True, nogil=True)
def _workspace(d, nn, n_sens, max_fan, longest, stack):
    """Scratch arrays of :func:`_specialize` for segments of at most ``longest`` records (``stack``: segments
    pending at most), allocated once per caller."""
    return (np.empty(stack, dtype=np.int64), np.empty(stack, dtype=np.int64), np.full(nn, -1, dtype=np.int64),
            np.empty(max_fan + 1, dtype=np.int64), np.zeros(max_fan + 1, dtype=np.int64),
            np.empty(longest, dtype=np.int64), np.empty(longest), np.empty(longest, dtype=np.int64),
            np.zeros(max(n_sens, 1), dtype=np.int64), np.empty(longest, dtype=np.int64), np.empty(d, dtype=np.int32),
            np.empty(d, dtype=np.int32), np.empty(longest, dtype=np.int64), np.zeros(max_fan + 3, dtype=np.int64),
            np.empty((max_fan + 2, d), dtype=np.int32), np.zeros(max_fan + 2, dtype=np.int64),
            np.empty(longest, dtype=np.int64))


@njit(cache=True, nogil=True)
def _specialize(leaf, perm, seg_start, seg_end, node_anc, node_level, node_cost, sens, k, min_distinct, log_l,
                max_fan, labels, ws):
    """:func:`specialize` with the scratch arrays ``ws`` of :func:`_workspace`."""
    d = leaf.shape[1]
    (stack_s, stack_e, slot_of, child, cnt, part, key, cand, counts, buf, g, lca, tmp, pstart, gp, pc,
     best_part) = ws
    top = 0
    for i in range(len(seg_start) - 1, -1, -1):
        stack_s[top] = seg_start[i]
        stack_e[top] = seg_end[i]
        top += 1
    n_classes = 0
    while top > 0:
        top -= 1
        s = stack_s[top]
        e = stack_e[top]
        for a in range(d):
            lca[a] = leaf[perm[s], a]
        for t in range(s + 1, e):
            for a in range(d):
                lca[a] = lca_node(lca[a], leaf[perm[t], a], node_anc, node_level)
        best = -1
        best_cost = np.inf
        best_sq = np.inf
        if e - s >= 2 * k:
            for a in range(d):
                lev = node_level[lca[a]]
                if lev == 0:
                    continue
                parts, cost, sq = _split(leaf, perm, s, e, a, lev - 1, node_anc, node_level, node_cost, sens, k,
                                         min_distinct, log_l, slot_of, child, cnt, part, key, cand, counts, buf, g,
                                         gp, pc)
                if parts < 2:
                    continue
                if cost < best_cost - 1e-9 or (cost <= best_cost + 1e-9 and sq < best_sq):
                    best = a
                    best_cost = cost
                    best_sq = sq
                    for t in range(e - s):
                        best_part[t] = part[t]
        if best < 0:
            for t in range(s, e):
                labels[perm[t]] = n_classes
            n_classes += 1
            continue
        # order the segment by part (a stable counting sort) and push the parts
        parts_n = max_fan + 2
        pstart[: parts_n + 1] = 0
        for t in range(s, e):
            pstart[best_part[t - s] + 1] += 1
        for p in range(parts_n):
            pstart[p + 1] += pstart[p]
        for p in range(parts_n - 1, -1, -1):
            if pstart[p + 1] > pstart[p]:
                stack_s[top] = s + pstart[p]
                stack_e[top] = s + pstart[p + 1]
                top += 1
        for t in range(s, e):
            p = best_part[t - s]
            tmp[pstart[p]] = perm[t]
            pstart[p] += 1
        for t in range(s, e):
            perm[t] = tmp[t - s]
    return n_classes


# ---------------------------------------------------------------------------------------------------------
# leftovers
@njit(cache=True, nogil=True)
def join_leftovers(leaf, records, labels, class_nodes, class_size, n_classes, node_anc, node_level, node_cost,
                   sens, class_sens, n_sens, log_l, avoid_root):
    """Each record of ``records`` (in order) joins the class whose cost grows least, ``(|c| + 1) * cost(c ∪ r)
    - |c| * cost(c)`` (ties: the lowest class); with ``avoid_root``, never one the join would generalize to the
    root of every attribute while another class can take it (such a class is published as suppressed). With entropy
    l-diversity (``log_l > 0``) a class is taken only if it stays diverse (``class_sens[c, v]``: records of
    sensitive code ``v`` in class ``c``); joining never lowers a class's size or its distinct values. Updates
    ``labels``, ``class_nodes``, ``class_size``, ``class_sens``; returns the number of records that found no
    class (``labels`` -1)."""
    d = leaf.shape[1]
    top = node_anc.shape[1] - 1
    lost = 0
    for i in range(len(records)):
        r = records[i]
        best = -1
        best_v = np.inf
        best_root = True
        for c in range(n_classes):
            own = 0.0
            joined = 0.0
            root = True
            for b in range(d):
                own += node_cost[class_nodes[c, b]]
                x = lca_node(class_nodes[c, b], leaf[r, b], node_anc, node_level)
                joined += node_cost[x]
                if x != node_anc[x, top] or not avoid_root:
                    root = False
            v = (class_size[c] + 1) * joined - class_size[c] * own
            if (root and not best_root) or (root == best_root and v >= best_v):
                continue
            if log_l > 0.0 and not _stays_diverse(class_sens, c, sens[r], n_sens, log_l):
                continue
            best_v = v
            best = c
            best_root = root
        labels[r] = best
        if best < 0:
            lost += 1
            continue
        class_size[best] += 1
        if sens[r] >= 0 and n_sens > 0:
            class_sens[best, sens[r]] += 1
        for b in range(d):
            class_nodes[best, b] = lca_node(class_nodes[best, b], leaf[r, b], node_anc, node_level)
    return lost


@njit(cache=True, nogil=True)
def _stays_diverse(class_sens, c, v, n_sens, log_l):
    """Entropy of class ``c``'s sensitive values with one more record of code ``v`` (``-1``: missing) ≥ log_l."""
    total = 0.0
    for u in range(n_sens):
        total += class_sens[c, u]
    if v >= 0:
        total += 1
    if total <= 0:
        return False
    h = 0.0
    for u in range(n_sens):
        x = class_sens[c, u] + (1 if u == v else 0)
        if x > 0:
            p = x / total
            h -= p * np.log(p)
    return h >= log_l - 1e-12


# ---------------------------------------------------------------------------------------------------------
# pairwise re-splitting
#: cheapest unions kept per class beyond the partners tried (for the classes touched before its turn)
LIST_SPARE = 4
#: changed classes x classes x attributes up to which a changed class weighs every class as a partner; beyond, the
#: WINDOW classes either side of it in each attribute's order (:func:`window_orders`)
EXACT_WORK = 8_000_000
WINDOW = 8


@njit(cache=True, nogil=True)
def resplit_pairs(leaf, labels, n_classes, node_anc, node_level, node_cost, node_rank, sens, n_sens, k,
                  min_distinct, log_l, max_fan, partners, scratch, dirty, reach):
    """One round of pairwise re-splitting: for every class ``A`` (in order) not touched yet this round, the
    ``partners`` classes ``B`` whose union with ``A`` costs least more than the two apart are tried in turn: the
    records of ``A ∪ B`` are specialized top-down anew (:func:`specialize`) and, if the parts cost less than
    ``A`` and ``B`` and their discernibility (Σ size²) is not larger, replace them (the first part keeps ``A``'s
    id, the second ``B``'s, the others get new ids). Both are then left alone until the next round. So a round
    never raises the loss or the discernibility of the classes (the privacy limits hold: every part meets them).

    Partners: only classes whose cells overlap ``A``'s (on every attribute one class's node is an ancestor of
    the other's, or equal), since two classes apart on an attribute split apart again; among them every class
    while ``changed classes · classes · attributes <= EXACT_WORK``, beyond that the classes near ``A`` in each attribute's order
    (:func:`window_orders`, ``node_rank``: a node's depth-first place). The cheapest unions of every class are
    listed at the round's start in parallel (:func:`_partner_lists`).

    ``labels[r]``: class of record ``r`` (-1: none; updated); ``scratch``: an int64 array of ``len(labels)``.
    ``dirty[c]``: class ``c`` changed since it was last tried (every class, the first round); on return it marks
    the classes this round made. A class that did not change tries only the classes that did, and only those
    whose union with it costs no more than its ``partners``-th cheapest union the last time it looked at every
    class (``reach[c]``, kept between rounds; its other pairs were tried and failed). Returns ``(classes, pairs
    re-split, cost saved)``."""
    n, d = leaf.shape
    size = np.zeros(n_classes, dtype=np.int64)
    nodes = np.empty((n_classes, d), dtype=np.int32)
    for r in range(n):
        c = labels[r]
        if c < 0:
            continue
        if size[c] == 0:
            for b in range(d):
                nodes[c, b] = leaf[r, b]
        else:
            for b in range(d):
                nodes[c, b] = lca_node(nodes[c, b], leaf[r, b], node_anc, node_level)
        size[c] += 1
    cost = np.empty(n_classes)
    for c in range(n_classes):
        v = 0.0
        for b in range(d):
            v += node_cost[nodes[c, b]]
        cost[c] = v
    start = np.zeros(n_classes + 1, dtype=np.int64)
    for r in range(n):
        if labels[r] >= 0:
            start[labels[r] + 1] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    members = np.empty(start[n_classes], dtype=np.int64)
    fill = start[:n_classes].copy()
    for r in range(n):
        c = labels[r]
        if c >= 0:
            members[fill[c]] = r
            fill[c] += 1
    touched = np.zeros(n_classes, dtype=np.bool_)
    was_dirty = dirty[:n_classes].copy()
    dirty[:] = False
    changed = np.flatnonzero(was_dirty)
    best = np.empty(max(partners, 1), dtype=np.int64)
    seg_s = np.zeros(1, dtype=np.int64)
    seg_e = np.zeros(1, dtype=np.int64)
    perm = np.empty(n, dtype=np.int64)
    longest = 1
    for c in range(n_classes):
        longest = max(longest, size[c])
    ws = _workspace(d, node_level.shape[0], n_sens, max_fan, 2 * longest, 2 * longest + 2)
    part_nodes = np.empty((2 * longest, d), dtype=np.int32)
    part_size = np.zeros(2 * longest, dtype=np.int64)
    total = n_classes
    done = 0
    saved = 0.0
    # the published tuple of every class, by its hash (the first class of a tuple; see _clashes)
    registry = Dict.empty(key_type=types.int64, value_type=types.int64)
    for c in range(n_classes):
        if size[c] > 0:
            h = _hash(nodes[c], d)
            if h not in registry:
                registry[h] = c
    # every class's cheapest unions at the round's start (in parallel); a class whose list runs out of untouched
    # classes before it has its ``partners`` looks again over every class (the same choice, later)
    n_list = partners + LIST_SPARE
    lists = np.full((n_classes, n_list), -1, dtype=np.int64)
    lists_delta = np.full((n_classes, n_list), np.inf)
    window = 0 if len(changed) * n_classes * d <= EXACT_WORK else WINDOW
    if window > 0:
        orders, ranks = window_orders(nodes, node_rank)
    else:
        orders = np.zeros((0, 0), dtype=np.int64)
        ranks = np.zeros((0, 0), dtype=np.int64)
    _partner_lists(nodes, size, cost, node_anc, node_level, node_cost, was_dirty, changed, orders, ranks, window,
                   touched, lists, lists_delta)
    for a_cls in range(n_classes):
        if was_dirty[a_cls]:
            reach[a_cls] = lists_delta[a_cls, partners - 1] if partners > 0 else -np.inf
    list_delta = np.empty(max(partners, 1))
    for a_cls in range(n_classes):
        if touched[a_cls] or size[a_cls] == 0:
            continue
        found = 0
        for j in range(n_list):
            c = lists[a_cls, j]
            if c < 0 or found == partners or (not was_dirty[a_cls] and lists_delta[a_cls, j] > reach[a_cls]):
                break
            if not touched[c]:
                best[found] = c
                found += 1
        if found < partners and lists[a_cls, n_list - 1] >= 0 and (
                was_dirty[a_cls] or lists_delta[a_cls, n_list - 1] <= reach[a_cls]):
            found = _cheapest_unions(a_cls, nodes, size, cost, node_anc, node_level, node_cost, was_dirty[a_cls],
                                     changed, orders, ranks, window, touched, best, list_delta)
            while found > 0 and not was_dirty[a_cls] and list_delta[found - 1] > reach[a_cls]:
                found -= 1
        for j in range(found):
            b_cls = best[j]
            m = 0
            for t in range(start[a_cls], start[a_cls + 1]):
                perm[m] = members[t]
                m += 1
            for t in range(start[b_cls], start[b_cls + 1]):
                perm[m] = members[t]
                m += 1
            seg_s[0] = 0
            seg_e[0] = m
            parts = _specialize(leaf, perm[:m], seg_s, seg_e, node_anc, node_level, node_cost, sens, k,
                                min_distinct, log_l, max_fan, scratch, ws)
            if parts < 2:
                continue
            # cost of the parts (``scratch`` holds each record's part)
            new_cost = _parts_cost(leaf, perm, m, scratch, parts, node_anc, node_level, node_cost, part_nodes,
                                   part_size)
            old_cost = size[a_cls] * cost[a_cls] + size[b_cls] * cost[b_cls]
            if new_cost >= old_cost - 1e-9:
                continue
            # and never a larger discernibility (DM: Σ class size²) than the two classes had
            dm = 0
            for p in range(parts):
                dm += part_size[p] * part_size[p]
            if dm > size[a_cls] * size[a_cls] + size[b_cls] * size[b_cls]:
                continue
            # and no part published as another class is (or as another part): the classes stay the distinct
            # published tuples, so Σ size² is the release's discernibility
            if _clashes(part_nodes, parts, registry, a_cls, b_cls):
                continue
            for c in (a_cls, b_cls):
                h = _hash(nodes[c], d)
                if h in registry and registry[h] == c:
                    del registry[h]
            for p in range(parts):
                registry[_hash(part_nodes[p], d)] = a_cls if p == 0 else (b_cls if p == 1 else total + p - 2)
            saved += old_cost - new_cost
            done += 1
            for t in range(m):
                r = perm[t]
                p = scratch[r]
                labels[r] = a_cls if p == 0 else (b_cls if p == 1 else total + p - 2)
            for c in range(total, total + parts - 2):
                dirty[c] = True
            total += parts - 2
            touched[a_cls] = True
            touched[b_cls] = True
            dirty[a_cls] = True
            dirty[b_cls] = True
            break
    return total, done, saved


@njit(cache=True, nogil=True)
def _clashes(part_nodes, parts, registry, a_cls, b_cls):
    """Whether a part's cells (rows of ``part_nodes``) equal another part's, or (by hash: a collision counts as a
    clash) a class's other than ``a_cls`` and ``b_cls`` (``registry``: tuple hash -> class)."""
    d = part_nodes.shape[1]
    for p in range(parts):
        h = _hash(part_nodes[p], d)
        if h in registry:
            c = registry[h]
            if c != a_cls and c != b_cls:
                return True
        for q in range(p):
            same = True
            for b in range(d):
                if part_nodes[p, b] != part_nodes[q, b]:
                    same = False
                    break
            if same:
                return True
    return False


@njit(cache=True, nogil=True)
def _cheapest_unions(a_cls, nodes, size, cost, node_anc, node_level, node_cost, a_dirty, changed, orders, ranks,
                     window, touched, out, out_delta):
    """The ``len(out)`` classes whose union with ``a_cls`` costs least more than the two apart, cheapest first
    (ties: the lower class), into ``out``; returns how many were found. A class that did not change (``a_dirty``
    false) looks only at the ``changed`` classes (its other pairs were tried and failed); one that did looks at
    every class (``window`` 0) or at the ``window`` classes either side of it in each of the ``orders`` (rows:
    the classes sorted with one attribute last, see :func:`window_orders`; ``ranks``: each class's place in
    them). Classes ``touched``, empty or ``a_cls`` itself are left out."""
    d = nodes.shape[1]
    n_classes = nodes.shape[0]
    want = len(out)
    found = 0
    sa = size[a_cls]
    ca = sa * cost[a_cls]
    if not a_dirty:
        n_cand = len(changed)
    elif window <= 0:
        n_cand = n_classes
    else:
        n_cand = d * (2 * window + 1)
    for i in range(n_cand):
        if not a_dirty:
            c = changed[i]
        elif window <= 0:
            c = i
        else:
            o = i // (2 * window + 1)
            j = ranks[o, a_cls] - window + i % (2 * window + 1)
            if j < 0 or j >= n_classes:
                continue
            c = orders[o, j]
        if c == a_cls or touched[c] or size[c] == 0:
            continue
        u = 0.0
        apart = False
        for b in range(d):
            x = lca_node(nodes[a_cls, b], nodes[c, b], node_anc, node_level)
            if x != nodes[a_cls, b] and x != nodes[c, b]:
                apart = True
                break
            u += node_cost[x]
        if apart:
            continue
        v = (sa + size[c]) * u - ca - size[c] * cost[c]
        if found == want and v >= out_delta[found - 1]:
            continue
        if window > 0:  # the orders meet the same class more than once
            seen = False
            for j in range(found):
                if out[j] == c:
                    seen = True
                    break
            if seen:
                continue
        pos = found if found < want else want - 1
        while pos > 0 and (out_delta[pos - 1] > v or (out_delta[pos - 1] == v and out[pos - 1] > c)):
            if pos < want:
                out[pos] = out[pos - 1]
                out_delta[pos] = out_delta[pos - 1]
            pos -= 1
        out[pos] = c
        out_delta[pos] = v
        if found < want:
            found += 1
    return found


@njit(cache=True, nogil=True)
def window_orders(nodes, node_rank):
    """For each attribute ``b``, the classes (rows of ``nodes``) sorted by their nodes' ranks (``node_rank``: a
    node's place in a depth-first walk of its hierarchy) on the other attributes in turn, then on ``b``: classes
    that differ on ``b`` alone, or on the last attributes, are neighbours. Returns ``(orders, ranks)``, int64
    ``[d, classes]``: ``orders[b]`` the sorted classes, ``ranks[b, c]`` the place of class ``c``."""
    n, d = nodes.shape
    orders = np.empty((d, n), dtype=np.int64)
    ranks = np.empty((d, n), dtype=np.int64)
    key = np.empty(n, dtype=np.int64)
    for b in range(d):
        order = np.arange(n)
        # least significant key first, each sort stable: b, then the others from the last to the first
        for step in range(d):
            a = b if step == 0 else (d - step if d - step > b else d - step - 1)
            for i in range(n):
                key[i] = node_rank[nodes[order[i], a]]
            order = order[np.argsort(key, kind="mergesort")]
        orders[b] = order
        for i in range(n):
            ranks[b, order[i]] = i
    return orders, ranks


@njit(cache=True, nogil=True, parallel=True)
def _partner_lists(nodes, size, cost, node_anc, node_level, node_cost, was_dirty, changed, orders, ranks, window,
                   touched, lists, lists_delta):
    """:func:`_cheapest_unions` of every non-empty class into its row of ``lists`` (-1: fewer found), in
    parallel."""
    n_classes = nodes.shape[0]
    width = lists.shape[1]
    for a_cls in prange(n_classes):
        if size[a_cls] == 0:
            continue
        out = np.empty(width, dtype=np.int64)
        out_delta = np.empty(width)
        found = _cheapest_unions(a_cls, nodes, size, cost, node_anc, node_level, node_cost, was_dirty[a_cls], changed,
                                 orders, ranks, window, touched, out, out_delta)
        for j in range(found):
            lists[a_cls, j] = out[j]
            lists_delta[a_cls, j] = out_delta[j]


@njit(cache=True, nogil=True)
def _parts_cost(leaf, perm, m, part_of, parts, node_anc, node_level, node_cost, nodes, size):
    """Cost of the parts ``0..parts-1`` of the records ``perm[:m]`` (``part_of[r]``: record ``r``'s part), each
    part's size times the cost of its LCAs, in one pass (``nodes``, ``size``: scratch of ``parts`` rows)."""
    d = leaf.shape[1]
    size[:parts] = 0
    for t in range(m):
        r = perm[t]
        p = part_of[r]
        if size[p] == 0:
            for b in range(d):
                nodes[p, b] = leaf[r, b]
        else:
            for b in range(d):
                nodes[p, b] = lca_node(nodes[p, b], leaf[r, b], node_anc, node_level)
        size[p] += 1
    total = 0.0
    for p in range(parts):
        c = 0.0
        for b in range(d):
            c += node_cost[nodes[p, b]]
        total += size[p] * c
    return total
