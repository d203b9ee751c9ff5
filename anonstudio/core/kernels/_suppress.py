"""Kernel of the suppression budget (:mod:`anonstudio.core.algorithms._suppression`): which records of each class
would be cheaper suppressed than generalized.

For a class ``A`` with lowest common ancestors ``g`` and an attribute ``b`` on which ``g_b`` is not a leaf, the
records outside the child of ``g_b`` that holds most of ``A`` (ties: the child met first in ``A``'s order) are the
records that force ``A``'s generalization on ``b``: the *outliers* on ``b``. Suppressing them (every cell ``*``, a
cell at the root) leaves ``A'``, whose ancestors ``g'`` may drop on every attribute. The removal's gain is the
cost before minus the cost after: ``|A| c(g) - |A'| c(g') - |S| c_root``, ``c`` the cost of a record's cells. A
removal must leave ``A'`` within the privacy limits (``k`` records; the l-diversity limits on the sensitive
codes, ``-1`` missing).
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._generalize import lca_node
from anonstudio.core.kernels._jit import njit
from anonstudio.core.kernels._local import diverse


@njit(cache=True, nogil=True)
def best_removals(leaf, order, cstart, class_nodes, node_anc, node_level, node_cost, suppress_cost, k, sens, n_sens,
                  min_distinct, log_l, gain, attr, removed):
    """For every class ``c`` (members ``order[cstart[c]:cstart[c + 1]]``, ancestors ``class_nodes[c]``) the removal
    of highest gain per suppressed record, if any gains: ``gain[c]`` (0: none), ``attr[c]`` its attribute,
    ``removed[c]`` the records it suppresses."""
    n_classes, d = class_nodes.shape
    nn = node_level.shape[0]
    slot_of = np.full(nn, -1, dtype=np.int64)
    child = np.empty(max(len(order), 1), dtype=np.int64)
    cnt = np.zeros(max(len(order), 1), dtype=np.int64)
    counts = np.zeros(max(n_sens, 1), dtype=np.int64)
    buf = np.empty(max(len(order), 1), dtype=np.int64)
    g = np.empty(d, dtype=np.int32)
    for c in range(n_classes):
        s = cstart[c]
        e = cstart[c + 1]
        size = e - s
        gain[c] = 0.0
        attr[c] = -1
        removed[c] = 0
        if size <= k:
            continue
        base = 0.0
        for b in range(d):
            base += node_cost[class_nodes[c, b]]
        base *= size
        best_rate = 0.0
        for b in range(d):
            top = class_nodes[c, b]
            lev = node_level[top]
            if lev == 0:
                continue
            ns = 0
            for t in range(s, e):
                ch = node_anc[leaf[order[t], b], lev - 1]
                sl = slot_of[ch]
                if sl < 0:
                    sl = ns
                    slot_of[ch] = sl
                    child[sl] = ch
                    cnt[sl] = 0
                    ns += 1
                cnt[sl] += 1
            major = 0
            for sl in range(1, ns):
                if cnt[sl] > cnt[major]:
                    major = sl
            keep = cnt[major]
            major_node = child[major]
            for sl in range(ns):
                slot_of[child[sl]] = -1
            out = size - keep
            if keep < k or out == 0:
                continue
            m = 0
            first = True
            for t in range(s, e):
                r = order[t]
                if node_anc[leaf[r, b], lev - 1] != major_node:
                    continue
                buf[m] = sens[r]
                m += 1
                for bb in range(d):
                    g[bb] = leaf[r, bb] if first else lca_node(g[bb], leaf[r, bb], node_anc, node_level)
                first = False
            after = 0.0
            for bb in range(d):
                after += node_cost[g[bb]]
            net = base - keep * after - out * suppress_cost
            if net <= 1e-9 or net / out <= best_rate:
                continue
            if not diverse(counts, buf, m, min_distinct, log_l):
                continue
            best_rate = net / out
            gain[c] = net
            attr[c] = b
            removed[c] = out


@njit(cache=True, nogil=True)
def mark_removal(leaf, order, cstart, c, b, class_nodes, node_anc, node_level, labels):
    """Suppress the outliers of class ``c`` on attribute ``b`` (see :func:`best_removals`): ``labels`` -1."""
    s = cstart[c]
    e = cstart[c + 1]
    top = class_nodes[c, b]
    lev = node_level[top]
    nn = node_level.shape[0]
    cnt = np.zeros(nn, dtype=np.int64)
    firsts = np.full(nn, -1, dtype=np.int64)
    for t in range(s, e):
        ch = node_anc[leaf[order[t], b], lev - 1]
        if firsts[ch] < 0:
            firsts[ch] = t
        cnt[ch] += 1
    major = -1
    for t in range(s, e):
        ch = node_anc[leaf[order[t], b], lev - 1]
        if firsts[ch] == t and (major < 0 or cnt[ch] > cnt[major]):
            major = ch
    out = 0
    for t in range(s, e):
        r = order[t]
        if node_anc[leaf[r, b], lev - 1] != major:
            labels[r] = -1
            out += 1
    return out
