"""Kernel of the sensitive-distribution privacy models for partitioning methods: does a part's distribution of
sensitive values keep every rule? The rules are those of ``anonstudio.core.models._distribution`` (each
cites its paper), handed over as arrays by its ``kernel_rules``; the verifier judges the release with its own
numpy code. Every test here is stricter than the verifier's by ``MARGIN``, so that rounding can never let a part
pass here that the verifier refuses.

``rules = (kinds int64[r], pars float64[r, 2], q float64[m], order int64[m], anc int64[m, L], buffers float64[4,
nodes])``: kinds 1 recursive (c,l) (c, l), 2/3/4 t-closeness equal / ordered / hierarchical (t), 5 δ-disclosure
(δ), 6/7 β-likeness basic / enhanced (β), 8 (α,k)'s α (α, value code or -1); ``q`` the table's shares of the m
values, ``order`` the values in the ordered distance's order, ``anc`` each value's hierarchy node per level.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit

MARGIN = 1e-9


@njit(cache=True, nogil=True)
def no_rules():
    """The empty rule set (only k and l-diversity limit a part)."""
    return (np.zeros(0, dtype=np.int64), np.zeros((0, 2)), np.zeros(1), np.zeros(1, dtype=np.int64),
            np.zeros((1, 1), dtype=np.int64), np.zeros((4, 1)))


@njit(cache=True, nogil=True)
def _hierarchical(counts, total, q, anc, buf):
    """Li et al.'s hierarchical EMD: Σ over inner nodes N of level(N)/H · min(pos(N), neg(N)), where pos / neg add
    up the positive / negative extra (Σ of p − q over the leaves below) of N's children. ``buf`` rows: extra,
    pos, neg, seen (zero on entry and on return, indexed by node id; a node id belongs to one level)."""
    m, levels = anc.shape
    height = levels - 1
    if height <= 0:
        return 0.0
    extra = buf[0]
    pos = buf[1]
    neg = buf[2]
    seen = buf[3]
    d = 0.0
    for j in range(1, levels):
        for v in range(m):
            extra[anc[v, j - 1]] += counts[v] / total - q[v]
        for v in range(m):
            child = anc[v, j - 1]
            if seen[child] == 0.0:
                seen[child] = 1.0
                parent = anc[v, j]
                if extra[child] > 0:
                    pos[parent] += extra[child]
                else:
                    neg[parent] -= extra[child]
        for v in range(m):
            parent = anc[v, j]
            if seen[parent] == 0.0:
                seen[parent] = 1.0
                d += j / height * min(pos[parent], neg[parent])
        for v in range(m):
            for node in (anc[v, j - 1], anc[v, j]):
                extra[node] = 0.0
                pos[node] = 0.0
                neg[node] = 0.0
                seen[node] = 0.0
    return d


@njit(cache=True, nogil=True)
def rules_hold(counts, total, rules):
    """Whether a part whose present sensitive values are counted in ``counts`` (int64[m], ``total`` of them)
    keeps every rule. A part with no present value keeps every rule but recursive (c,l)-diversity."""
    kinds, pars, q, order, anc, buf = rules
    m = len(q)
    for r in range(len(kinds)):
        kind = kinds[r]
        a = pars[r, 0]
        if total == 0:
            if kind == 1:
                return False
            continue
        if kind == 1:  # recursive (c,l): r1 < c (r_l + ... + r_m)
            l = int(pars[r, 1])
            vals = np.empty(m, dtype=np.int64)
            nv = 0
            for v in range(m):
                if counts[v] > 0:
                    vals[nv] = counts[v]
                    nv += 1
            if nv < l:
                return False
            vals = -np.sort(-vals[:nv])
            tail = 0
            for i in range(l - 1, nv):
                tail += vals[i]
            if vals[0] >= a * tail - MARGIN:
                return False
        elif kind == 2:
            d = 0.0
            for v in range(m):
                d += abs(counts[v] / total - q[v])
            if 0.5 * d > a - MARGIN:
                return False
        elif kind == 3:
            if m > 1:
                cum = 0.0
                d = 0.0
                for i in range(m):
                    v = order[i]
                    cum += counts[v] / total - q[v]
                    d += abs(cum)
                if d / (m - 1) > a - MARGIN:
                    return False
        elif kind == 4:
            if _hierarchical(counts, total, q, anc, buf) > a - MARGIN:
                return False
        else:
            code = int(pars[r, 1])
            for v in range(m):
                if counts[v] == 0 or (kind == 8 and code >= 0 and v != code):
                    continue
                p = counts[v] / total
                if kind == 5:
                    if abs(np.log2(p / q[v])) >= a - MARGIN:
                        return False
                elif kind == 6 or kind == 7:
                    limit = a
                    if kind == 7:
                        limit = min(a, -np.log(q[v]))
                    if (p - q[v]) / q[v] > limit - MARGIN:
                        return False
                elif kind == 8:
                    if p > a - MARGIN:
                        return False
    return True
