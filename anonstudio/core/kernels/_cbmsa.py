"""Kernels of CBMSA, clustering-based multidimensional sequence anonymization (Sehatkar & Matwin, 004 §3).

State is plain arrays, owned by :mod:`anonstudio.core.algorithms.cbmsa`:

- ``rep int32[E, Q]``: packed hierarchy node of every representative event. Cluster ``c`` (named after its
  first sequence) keeps its representative in the slots ``start[c] .. start[c] + rlen[c]``; a merge never
  lengthens a representative (every aligned pair yields one event), so it is rewritten in place.
- ``tab = (table, roff, loc, fsum, sup)``: per representative event its coordinates in the per-attribute
  ``frac[lca]`` tables, ``Σ_q frac`` and its suppression cost (:func:`set_events` refreshes them when a
  merge rewrites a representative); ``climb`` is ``None`` unless an attribute is too large for a table.
- ``pos int32[E]``: for every original event, its index in its cluster's representative, ``-1`` when the
  event is suppressed.
- ``dist float32[n(n-1)/2]``: condensed matrix of cached cluster distances (Eq. 6); a merge recomputes
  only the row of the merged cluster.
- ``nn, nnd``: each active cluster's nearest neighbour and its key, the distance plus :data:`BIG` when the
  merge would break the confidence bound c (merges that keep it are preferred, 004 §3).

Costs are Loss Metric fractions (004 Eq. 3): generalizing node ``x`` to its ancestor ``g`` costs
``frac[g] - frac[x]`` with ``frac = leaves / |domain|``; suppressing an event costs ``1 - frac[x]`` per QI
(every value generalized to the root). Because LM telescopes along a path, the loss of a member sequence is
the loss of its representative plus the representative's further loss, so the merge distance of Eq. 6 is
``|X|·IL(X̃→M) + |Y|·IL(Ỹ→M)`` (Eq. 7 with IL measured from the current representatives), which is what
the alignment minimises.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from anonstudio.core.kernels._jit import njit, prange
from anonstudio.core.kernels import parallel_runtime
from anonstudio.core.kernels._generalize import lca_node

parallel_runtime()  # before any kernel of this module is loaded (see parallel_runtime)

#: added to a pair's distance when merging it would put the share of highly-sensitive sequences above c
BIG = 1.0e18

ACTIVE = 1
FROZEN = 2
MERGED = 0
REMOVED = 3

_DIAG = 0
_UP = 1  # suppress the event of the first representative
_LEFT = 2  # suppress the event of the second representative


@njit(cache=True, nogil=True, inline="always")
def _pidx(i, j, n):
    """Condensed index of the pair ``i < j`` of ``n`` clusters."""
    return i * (2 * n - i - 1) // 2 + (j - i - 1)


@njit(cache=True, nogil=True)
def lca_fraction_table(lo, hi, node_anc, node_level, frac, out):
    """``out[(a - lo) * (hi - lo) + (b - lo)] = frac[lca(a, b)]`` for every pair of nodes of one attribute
    (packed ids ``lo .. hi``): the generalization cost of a pair becomes one lookup."""
    m = hi - lo
    for a in range(lo, hi):
        for b in range(lo, hi):
            out[(a - lo) * m + (b - lo)] = frac[lca_node(a, b, node_anc, node_level)]


@njit(cache=True, nogil=True, inline="always")
def _gen_cost(x, y, wa, wb, tab, climb):
    """Weighted loss of generalizing representative events ``x`` and ``y`` to their per-QI LCA:
    ``(wa + wb)·Σ_q frac[lca] - wa·Σ_q frac[x_q] - wb·Σ_q frac[y_q]`` (no branch: equal values cost 0).

    ``tab = (table, roff, loc, fsum, sup)``: ``table[roff[x, q] + loc[y, q]] = frac[lca(x_q, y_q)]`` from the
    per-attribute tables of :func:`lca_fraction_table`, ``fsum[e] = Σ_q frac[e_q]``. ``climb`` is ``None``
    when every attribute has a table (numba prunes the branch at compile time, which keeps the inner loop
    tight); otherwise ``(size, rep, node_anc, node_level, frac)`` and attributes with ``size[q] == 0`` find
    their LCA by climbing."""
    table, roff, loc, fsum, _ = tab
    g = 0.0
    for q in range(roff.shape[1]):
        if climb is None:
            g += table[roff[x, q] + loc[y, q]]
        else:
            size, rep, node_anc, node_level, frac = climb
            if size[q] > 0:
                g += table[roff[x, q] + loc[y, q]]
            else:
                g += frac[lca_node(rep[x, q], rep[y, q], node_anc, node_level)]
    return (wa + wb) * g - wa * fsum[x] - wb * fsum[y]


@njit(cache=True, nogil=True)
def set_events(lo, hi, rep, frac, att_off, base, size, tab):
    """Refresh the lookup columns of representative events ``lo .. hi`` after ``rep`` changed:
    ``loc``/``roff`` (table coordinates), ``fsum`` and ``sup = Σ_q (1 - frac)`` (the loss of suppressing
    the event: every value generalized to the root)."""
    _, roff, loc, fsum, sup = tab
    for e in range(lo, hi):
        f = 0.0
        for q in range(rep.shape[1]):
            v = rep[e, q]
            f += frac[v]
            loc[e, q] = v - att_off[q]
            roff[e, q] = base[q] + (v - att_off[q]) * size[q]
        fsum[e] = f
        sup[e] = rep.shape[1] - f


@njit(cache=True, nogil=True, inline="always")
def align_cost(tab, climb, sa, la, wa, sb, lb, wb, row):
    """Minimum weighted loss of aligning two representatives (004 §3 dynamic programme, two rows).

    Three moves per cell: generalize ``x_i`` and ``y_j`` to their LCA, suppress ``x_i``, suppress ``y_j``;
    the cost of a move is the sum over all QIs (one matrix holding the sum of the paper's per-QI score
    matrices, which share one move matrix). ``row`` is scratch of length ``2 * (lb + 1)``.
    """
    sup = tab[4]
    prev = row[: lb + 1]
    cur = row[lb + 1 : 2 * (lb + 1)]
    prev[0] = 0.0
    for j in range(1, lb + 1):
        prev[j] = prev[j - 1] + wb * sup[sb + j - 1]
    for i in range(1, la + 1):
        x = sa + i - 1
        su = wa * sup[x]
        cur[0] = prev[0] + su
        for j in range(1, lb + 1):
            y = sb + j - 1
            best = prev[j - 1] + _gen_cost(x, y, wa, wb, tab, climb)
            v = prev[j] + su
            if v < best:
                best = v
            v = cur[j - 1] + wb * sup[y]
            if v < best:
                best = v
            cur[j] = best
        prev, cur = cur, prev
    return prev[lb]


@njit(cache=True, nogil=True)
def _splitmix(x):
    x = (x + np.uint64(0x9E3779B97F4A7C15)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    z = x
    z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    return x, z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def _baseline_keep(long_len, short_len, key, keep):
    """The baseline's random suppression (004 §4): which ``short_len`` of ``long_len`` events of the longer
    representative stay, as ascending indices in ``keep[:short_len]``. The draw is a function of ``key``
    (seed, the two clusters and their versions), so the cost and the merge see the same matching."""
    for t in range(long_len):
        keep[t] = t
    state = np.uint64(key)
    for t in range(short_len):  # partial Fisher-Yates: the first short_len slots are a uniform subset
        state, r = _splitmix(state)
        u = t + np.int64(r % np.uint64(long_len - t))
        tmp = keep[t]
        keep[t] = keep[u]
        keep[u] = tmp
    for t in range(1, short_len):  # insertion sort keeps the events in order
        v = keep[t]
        s = t - 1
        while s >= 0 and keep[s] > v:
            keep[s + 1] = keep[s]
            s -= 1
        keep[s + 1] = v


@njit(cache=True, nogil=True)
def _pair_key(seed, a, b, va, vb):
    h = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
    for v in (a, b, va, vb):
        h, _ = _splitmix(h ^ np.uint64(v))
    _, z = _splitmix(h)
    return z


@njit(cache=True, nogil=True)
def baseline_cost(tab, climb, sa, la, wa, sb, lb, wb, key, keep):
    """The baseline's loss (004 §4): equal lengths are generalized event by event; otherwise
    ``|la - lb|`` random events of the longer are suppressed first."""
    if la >= lb:
        s_long, w_long, n_long, s_short, w_short, n_short = sa, wa, la, sb, wb, lb
    else:
        s_long, w_long, n_long, s_short, w_short, n_short = sb, wb, lb, sa, wa, la
    _baseline_keep(n_long, n_short, key, keep)
    sup = tab[4]
    cost = 0.0
    t = 0
    for i in range(n_long):
        if t < n_short and keep[t] == i:
            cost += _gen_cost(s_long + i, s_short + t, w_long, w_short, tab, climb)
            t += 1
        else:
            cost += w_long * sup[s_long + i]
    return cost


@njit(cache=True, nogil=True, parallel=True)
def initial_distances(r0, r1, n, tab, climb, start, rlen, size, ver, baseline, seed, max_len, dist):
    """Distances of every pair ``(i, j)``, ``r0 <= i < r1``, ``i < j < n``, between singleton clusters
    (the ``baseline`` test sits outside the inner loop so the alignment loop stays tight)."""
    for i in prange(r0, r1):
        row = np.empty(2 * (max_len + 1))
        keep = np.empty(max_len + 1, dtype=np.int64)
        if baseline:
            for j in range(i + 1, n):
                dist[_pidx(i, j, n)] = baseline_cost(tab, climb, start[i], rlen[i], size[i], start[j], rlen[j],
                                                     size[j], _pair_key(seed, i, j, ver[i], ver[j]), keep)
        else:
            for j in range(i + 1, n):
                dist[_pidx(i, j, n)] = align_cost(tab, climb, start[i], rlen[i], size[i], start[j], rlen[j], size[j],
                                                  row)


@njit(cache=True, nogil=True)
def _key(i, j, n, dist, size, high, c):
    lo = i if i < j else j
    hi = j if i < j else i
    d = np.float64(dist[_pidx(lo, hi, n)])
    if high[i] + high[j] > c * (size[i] + size[j]) + 1e-9:
        d += BIG
    return d


@njit(cache=True, nogil=True)
def _rescan(i, n, status, dist, size, high, c, nn, nnd):
    best = np.inf
    who = -1
    for j in range(n):
        if j != i and status[j] == ACTIVE:
            v = _key(i, j, n, dist, size, high, c)
            if v < best:
                best = v
                who = j
    nn[i] = who
    nnd[i] = best


@njit(cache=True, nogil=True)
def nearest_neighbours(n, status, dist, size, high, c, nn, nnd):
    """Each active cluster's nearest active cluster (ties: lowest index)."""
    for i in range(n):
        if status[i] == ACTIVE:
            _rescan(i, n, status, dist, size, high, c, nn, nnd)


@njit(cache=True, nogil=True)
def _align_moves(tab, climb, sa, la, wa, sb, lb, wb, map_a, map_b):
    """Best alignment of two representatives with traceback: ``map_a[i]`` / ``map_b[j]`` = index of the
    merged event, -1 when suppressed. Returns the number of merged events. Same recurrence and tie order
    as :func:`align_cost`."""
    sup = tab[4]
    score = np.empty((la + 1, lb + 1))
    move = np.empty((la + 1, lb + 1), dtype=np.int8)
    score[0, 0] = 0.0
    for j in range(1, lb + 1):
        score[0, j] = score[0, j - 1] + wb * sup[sb + j - 1]
        move[0, j] = _LEFT
    for i in range(1, la + 1):
        x = sa + i - 1
        su = wa * sup[x]
        score[i, 0] = score[i - 1, 0] + su
        move[i, 0] = _UP
        for j in range(1, lb + 1):
            y = sb + j - 1
            best = score[i - 1, j - 1] + _gen_cost(x, y, wa, wb, tab, climb)
            m = _DIAG
            v = score[i - 1, j] + su
            if v < best:
                best = v
                m = _UP
            v = score[i, j - 1] + wb * sup[y]
            if v < best:
                best = v
                m = _LEFT
            score[i, j] = best
            move[i, j] = m
    # traceback from (la, lb) to (0, 0); pairs come out reversed
    i, j = la, lb
    count = 0
    while i > 0 or j > 0:
        m = move[i, j]
        if m == _DIAG:
            map_a[i - 1] = count
            map_b[j - 1] = count
            count += 1
            i -= 1
            j -= 1
        elif m == _UP:
            map_a[i - 1] = -1
            i -= 1
        else:
            map_b[j - 1] = -1
            j -= 1
    for i in range(la):
        if map_a[i] >= 0:
            map_a[i] = count - 1 - map_a[i]
    for j in range(lb):
        if map_b[j] >= 0:
            map_b[j] = count - 1 - map_b[j]
    return count


@njit(cache=True, nogil=True)
def _baseline_moves(la, lb, key, keep, map_a, map_b):
    """The baseline's matching as maps (see :func:`_align_moves`): the longer side keeps the events
    :func:`_baseline_keep` draws, matched in order to every event of the shorter side."""
    if la >= lb:
        _keep_maps(la, lb, key, keep, map_a, map_b)
        return lb
    _keep_maps(lb, la, key, keep, map_b, map_a)
    return la


@njit(cache=True, nogil=True)
def _keep_maps(n_long, n_short, key, keep, map_long, map_short):
    _baseline_keep(n_long, n_short, key, keep)
    for i in range(n_long):
        map_long[i] = -1
    for t in range(n_short):
        map_long[keep[t]] = t
        map_short[t] = t


@njit(cache=True, nogil=True)
def _recount(c, head, nxt, seq_off, pos, ev_high, hi_flag):
    """Number of member sequences of cluster ``c`` that still publish a highly-sensitive event
    (004's HighSensList after suppression)."""
    h = 0
    s = head[c]
    while s >= 0:
        f = False
        for e in range(seq_off[s], seq_off[s + 1]):
            if pos[e] >= 0 and ev_high[e]:
                f = True
                break
        hi_flag[s] = f
        if f:
            h += 1
        s = nxt[s]
    return h


@njit(cache=True, nogil=True)
def _repoint(first, nxt, seq_off, pos, mapping):
    """Move the events of the member sequences ``first, nxt[first], …`` to their new representative slot."""
    s = first
    while s >= 0:
        for e in range(seq_off[s], seq_off[s + 1]):
            if pos[e] >= 0:
                pos[e] = mapping[pos[e]]
        s = nxt[s]


@njit(cache=True, nogil=True)
def merge(a, b, tab, climb, meta, start, rlen, size, high, status, ver, head, nxt, tail, seq_off, pos, ev_high,
          hi_flag, baseline, seed, k, c, map_a, map_b, keep, tmp):
    """Merge cluster ``b`` into ``a`` (004 §3): align their representatives, rewrite ``a``'s representative
    as the generalized aligned events, re-point every member event (suppressed events get -1), update the
    HighSensList counts, and freeze the cluster when it satisfies (k,c)-privacy. Returns the merged length."""
    rep, frac, node_anc, node_level, att_off, base, asize = meta
    la = rlen[a]
    lb = rlen[b]
    if baseline:
        lo, hi = (a, b) if a < b else (b, a)
        cnt = _baseline_moves(la, lb, _pair_key(seed, lo, hi, ver[lo], ver[hi]), keep, map_a, map_b)
    else:
        cnt = _align_moves(tab, climb, start[a], la, size[a], start[b], lb, size[b], map_a, map_b)
    # new representative events (written to scratch first: they overwrite a's slots)
    for i in range(la):
        if map_a[i] >= 0:
            t = map_a[i]
            for q in range(rep.shape[1]):
                tmp[t, q] = rep[start[a] + i, q]
    for j in range(lb):
        t = map_b[j]
        if t >= 0:
            for q in range(rep.shape[1]):
                tmp[t, q] = lca_node(tmp[t, q], rep[start[b] + j, q], node_anc, node_level)
    for t in range(cnt):
        for q in range(rep.shape[1]):
            rep[start[a] + t, q] = tmp[t, q]
    rlen[a] = cnt
    set_events(start[a], start[a] + cnt, rep, frac, att_off, base, asize, tab)
    # members follow their representative
    _repoint(head[a], nxt, seq_off, pos, map_a)
    _repoint(head[b], nxt, seq_off, pos, map_b)
    nxt[tail[a]] = head[b]
    tail[a] = tail[b]
    head[b] = -1
    size[a] += size[b]
    size[b] = 0
    high[b] = 0
    status[b] = MERGED
    ver[a] += 1
    high[a] = _recount(a, head, nxt, seq_off, pos, ev_high, hi_flag)
    if size[a] >= k and high[a] <= c * size[a] + 1e-9:
        status[a] = FROZEN
    return cnt


@njit(cache=True, nogil=True, parallel=True)
def _row(a, targets, n, tab, climb, start, rlen, size, ver, baseline, seed, max_len, dist):
    """Recompute the cached distances between cluster ``a`` and ``targets`` (after ``a`` changed)."""
    m = targets.shape[0]
    chunks = min(m, 64)
    for ch in prange(chunks):
        row = np.empty(2 * (max_len + 1))
        keep = np.empty(max_len + 1, dtype=np.int64)
        for t in range(ch * m // chunks, (ch + 1) * m // chunks):
            j = targets[t]
            lo = a if a < j else j
            hi = j if a < j else a
            if baseline:
                d = baseline_cost(tab, climb, start[lo], rlen[lo], size[lo], start[hi], rlen[hi], size[hi],
                                  _pair_key(seed, lo, hi, ver[lo], ver[hi]), keep)
            else:
                d = align_cost(tab, climb, start[lo], rlen[lo], size[lo], start[hi], rlen[hi], size[hi], row)
            dist[_pidx(lo, hi, n)] = d


@njit(cache=True, nogil=True)
def _active_list(n, status, skip, out):
    m = 0
    for j in range(n):
        if j != skip and status[j] == ACTIVE:
            out[m] = j
            m += 1
    return m


@njit(cache=True, nogil=True)
def _after_merge(a, b, n, status, dist, size, high, c, nn, nnd):
    """Nearest neighbours after ``b`` merged into ``a``: clusters that pointed at ``a`` or ``b`` rescan their
    (cached) row; the others only compare their current best with the new ``a``."""
    a_active = status[a] == ACTIVE
    for i in range(n):
        if status[i] != ACTIVE or i == a:
            continue
        if nn[i] == a or nn[i] == b:
            _rescan(i, n, status, dist, size, high, c, nn, nnd)
        elif a_active:
            v = _key(i, a, n, dist, size, high, c)
            if v < nnd[i] or (v == nnd[i] and a < nn[i]):
                nn[i] = a
                nnd[i] = v
    if a_active:
        _rescan(a, n, status, dist, size, high, c, nn, nnd)


@njit(cache=True, nogil=True)
def _closest(n, status, nnd):
    best = np.inf
    who = -1
    for i in range(n):
        if status[i] == ACTIVE and nnd[i] < best:
            best = nnd[i]
            who = i
    return who


@contextmanager
def one_thread():
    """Kernels run on one thread inside: a block of a thousand sequences makes a thousand short parallel
    row updates, whose thread start-ups cost more than the rows (1.1 s one-threaded vs 11-25 s two-threaded
    for 1,000 sequences on a loaded 2-core machine)."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def merge_rounds(max_rounds, n, tab, climb, meta, start, rlen, size, high, status, ver, head, nxt, tail, seq_off,
                 pos, ev_high, hi_flag, baseline, seed, k, c, max_len, dist, nn, nnd, targets, map_a, map_b, keep,
                 tmp):
    """Up to ``max_rounds`` agglomerative merges of the two closest active clusters (004 §3). Returns the
    number of active clusters left (the caller stops at one or none, reports progress and checks for
    cancellation between calls). Plain Python driving three compiled steps, so the row recomputation can
    use both cores."""
    active = int(np.count_nonzero(status == ACTIVE))
    for _ in range(max_rounds):
        if active <= 1:
            break
        i = _closest(n, status, nnd)
        j = int(nn[i])
        a, b = (i, j) if i < j else (j, i)
        merge(a, b, tab, climb, meta, start, rlen, size, high, status, ver, head, nxt, tail, seq_off, pos, ev_high,
              hi_flag, baseline, seed, k, c, map_a, map_b, keep, tmp)
        active -= 1
        if status[a] == ACTIVE:
            m = _active_list(n, status, a, targets)
            if m:
                _row(a, targets[:m], n, tab, climb, start, rlen, size, ver, baseline, seed, max_len, dist)
        else:
            active -= 1
        _after_merge(a, b, n, status, dist, size, high, c, nn, nnd)
    return active
