"""Kernels of the global-recoding lattice search (:mod:`anonstudio.core.algorithms.global_recoding`).

The records are first reduced to their distinct *tuples* (leaf of every quasi-identifier and the sensitive
code), each with its count, ordered by sensitive code. A transformation (one hierarchy level per attribute)
is then evaluated on the tuples alone (:func:`evaluate_transformation`): each tuple's generalized codes are
combined into one integer key, the keys are numbered densely (a direct table when the key space is small, an
open-addressing hash table otherwise), and one more pass over the tuples counts each class's records and, for
l-diversity, its distinct sensitive values and entropy (the tuples' order by sensitive code puts a class's
equal values next to each other). A class smaller than ``k`` or not l-diverse is an *outlier*, suppressed as
ARX suppresses (Prasser & Kohlmayer 2015).

:func:`mark_closure` spreads what one check tells about the lattice: a k-anonymous transformation's
generalizations are all k-anonymous and a failing one's specializations all fail (the generalization
property, LeFevre, DeWitt & Ramakrishnan, Incognito, SIGMOD 2005; used by Flash, Kohlmayer et al. 2012, and OLA,
El Emam et al. 2009).
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit

#: keys are combined while their product stays below this; beyond it the codes so far are renumbered first
_KEY_LIMIT = 1 << 61
#: golden-ratio multiplier of the hash (Fibonacci hashing)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def _dense_ids(keys, n, space, direct, hashed, stamp):
    """Number ``keys[:n]`` densely in order of first appearance, in place; returns how many distinct.

    Keys below ``space`` go through the ``direct`` table (``direct[2 key]`` the stamp, ``direct[2 key + 1]`` the id)
    when it is large enough, else through the open-addressing table ``hashed`` (``hashed[2 h]`` the key,
    ``hashed[2 h + 1]`` the stamp · 2³² + the id; a power of two of slots, at least 1.5 n): one cache line per
    lookup either way. ``stamp[0]`` is bumped for each call so the tables never need clearing: an entry counts
    only if its stamp is the current one."""
    stamp[0] += 1
    s = stamp[0]
    nxt = 0
    if 2 * space <= len(direct):
        for t in range(n):
            key = keys[t]
            if direct[2 * key] != s:
                direct[2 * key] = s
                direct[2 * key + 1] = nxt
                nxt += 1
            keys[t] = direct[2 * key + 1]
        return nxt
    size = len(hashed) // 2
    mask = size - 1
    bits = 0
    while (1 << bits) < size:
        bits += 1
    shift = np.uint64(64 - bits)
    high = s << 32
    for t in range(n):
        key = keys[t]
        h = np.int64((np.uint64(key) * _GOLDEN) >> shift) & mask
        while True:
            meta = hashed[2 * h + 1]
            if (meta >> 32) != s:
                hashed[2 * h] = key
                hashed[2 * h + 1] = high | nxt
                keys[t] = nxt
                nxt += 1
                break
            if hashed[2 * h] == key:
                keys[t] = meta & 0xFFFFFFFF
                break
            h = (h + 1) & mask
    return nxt


@njit(cache=True, nogil=True)
def evaluate_transformation(levels, tcode, cards, cnt, sens, n_sens, k, min_distinct, log_l, cost, tops, with_cost,
                            budget, block_base, all_out, keys, direct, hashed, stamp, csize,
                            cpresent, cdistinct, clast, crun, cplogp, outlier, tmask, sup_extra, block):
    """Classes, outliers and the figures the quality models need, of one transformation.

    Parameters: ``levels int64[d]`` the transformation; ``tcode int32[d, L, T]`` each tuple's dense code at each
    level of each attribute and ``cards int64[d, L]`` how many codes there are; ``cnt int64[T]`` records per
    tuple; ``sens int32[T]`` sensitive code (-1 missing, not a value; tuples ordered by it); ``k``,
    ``min_distinct`` (1: none), ``log_l`` (0: none) the privacy models; ``cost float64[d, L, T]`` the tuple's
    records' summed cell cost at each level (additive quality models) and ``tops int64[d]`` each attribute's
    root level, used when ``with_cost``; ``budget`` the records that may be suppressed (the suppression costs and
    the suppressed block's diversity are worked out only when the published outliers fit in it);
    ``block_base int64[n_sens]`` sensitive counts of the records suppressed anyway (a missing
    quasi-identifier); ``all_out``: publish every class suppressed (the all-root transformation). The rest are
    scratch arrays of size ≥ T (``keys``, the ``c*`` class arrays, ``outlier``, ``tmask``), the id tables
    ``direct``, ``hashed`` and ``stamp`` (see :func:`_dense_ids`), ``sup_extra float64[d]`` and
    ``block int64[n_sens]``.

    On return ``keys[t]`` is tuple ``t``'s class, ``csize``/``outlier`` describe the classes, and
    ``sup_extra[a]`` is what suppressing the outliers adds to attribute ``a``'s cost (when they fit the budget).
    Returns ``(n_out, n_classes, sumsq_all, published_out, kept_classes, kept_sumsq, block_ok)``: records in
    outlier classes (ARX's count, monotone over the lattice), classes and ``Σ |E| · max(|E|, k)`` before
    suppression (in this transformation and every generalization of it, a record's class holds at least its
    class here and, kept, at least k records, or it is suppressed at the cost of n ≥ k: a floor of DM), then what
    is published: records suppressed (every record when ``all_out``), classes kept and their Σ|E|², and whether
    the suppressed records together are l-diverse (the verifier judges them as one class).
    """
    d = len(levels)
    n = len(cnt)
    for t in range(n):
        keys[t] = 0
    space = 1
    for a in range(d):
        m = cards[a, levels[a]]
        if m == 1:  # one code (the root, or a level with one value): nothing to tell apart
            continue
        if space > _KEY_LIMIT // m:
            space = _dense_ids(keys, n, space, direct, hashed, stamp)
        lv = levels[a]
        for t in range(n):
            keys[t] = keys[t] * m + tcode[a, lv, t]
        space *= m
    n_classes = _dense_ids(keys, n, space, direct, hashed, stamp)
    diverse = min_distinct > 1 or log_l > 0.0
    for c in range(n_classes):
        csize[c] = 0
        cpresent[c] = 0
        cdistinct[c] = 0
        clast[c] = -1
        crun[c] = 0
        cplogp[c] = 0.0
    for t in range(n):
        c = keys[t]
        csize[c] += cnt[t]
        if diverse:
            s = sens[t]
            if s >= 0:
                cpresent[c] += cnt[t]
                if clast[c] == s:
                    crun[c] += cnt[t]
                else:
                    if clast[c] >= 0:
                        cdistinct[c] += 1
                        cplogp[c] += crun[c] * np.log(crun[c])
                    clast[c] = s
                    crun[c] = cnt[t]
    n_out = 0
    sumsq_all = 0.0  # Σ |E| · max(|E|, k): what DM can reach at least, here and above (see the docstring)
    kept_classes = 0
    kept_sumsq = 0.0
    for c in range(n_classes):
        size = csize[c]
        sumsq_all += float(size) * float(max(size, k))
        bad = size < k
        if diverse:
            if clast[c] >= 0:
                cdistinct[c] += 1
                cplogp[c] += crun[c] * np.log(crun[c])
            if cdistinct[c] < min_distinct:
                bad = True
            if log_l > 0.0:
                p = cpresent[c]
                h = np.log(p) - cplogp[c] / p if p > 0 else 0.0
                if h < log_l - 1e-9:
                    bad = True
        if bad:
            n_out += size
        else:
            kept_classes += 1
            kept_sumsq += float(size) * float(size)
        outlier[c] = 1 if (bad or all_out) else 0
    published_out = n_out
    if all_out:
        published_out = 0
        for c in range(n_classes):
            published_out += csize[c]
        kept_classes = 0
        kept_sumsq = 0.0
    for a in range(d):
        sup_extra[a] = 0.0
    if with_cost and 0 < published_out <= budget:
        for t in range(n):
            tmask[t] = 1.0 if outlier[keys[t]] != 0 else 0.0
        for a in range(d):  # one attribute at a time: two rows of ``cost`` read in order
            top_row = cost[a, tops[a]]
            row = cost[a, levels[a]]
            total = 0.0
            for t in range(n):
                total += tmask[t] * (top_row[t] - row[t])
            sup_extra[a] = total
    block_ok = True
    if diverse and published_out <= budget:
        total = 0
        for s in range(n_sens):
            block[s] = block_base[s]
            total += block_base[s]
        if published_out > 0:
            for t in range(n):
                if outlier[keys[t]] != 0:
                    total += cnt[t]
                    if sens[t] >= 0:
                        block[sens[t]] += cnt[t]
        if total > 0:
            present = 0
            distinct = 0
            plogp = 0.0
            for s in range(n_sens):
                if block[s] > 0:
                    present += block[s]
                    distinct += 1
                    plogp += block[s] * np.log(block[s])
            h = np.log(present) - plogp / present if present > 0 else 0.0
            if distinct < min_distinct or (log_l > 0.0 and h < log_l - 1e-9):
                block_ok = False
    return n_out, n_classes, sumsq_all, published_out, kept_classes, kept_sumsq, block_ok


@njit(cache=True, nogil=True)
def mark_closure(state, start, value, levels, strides, low, high, up, stack):
    """Give ``value`` to every node above ``start`` (``up``: its generalizations) or below it (its
    specializations) whose ``state`` is still 0, ``start`` included; a node already decided stops the walk
    (what lies beyond it was decided with it). ``levels int16[N, d]`` per node, ``strides`` of the node index,
    ``low``/``high`` the level limits. Returns how many nodes were marked."""
    d = len(strides)
    top = 0
    marked = 0
    if state[start] == 0:
        state[start] = value
        marked += 1
    stack[top] = start
    top += 1
    while top > 0:
        top -= 1
        node = stack[top]
        for a in range(d):
            lv = levels[node, a]
            if up and lv < high[a]:
                nb = node + strides[a]
            elif not up and lv > low[a]:
                nb = node - strides[a]
            else:
                continue
            if state[nb] == 0:
                state[nb] = value
                marked += 1
                stack[top] = nb
                top += 1
    return marked

