"""numba kernels of string condensation (Aggarwal & Yu, DMKD 2008; ``core.algorithms.condensation``).

Templates are stored sparsely with a fixed width ``W`` per position: ``tsym[t, i, w]`` (symbol code, -1 when the
slot is empty) and ``tval[t, i, w]`` (its normalised frequency ``f_{i,sym}(T_t)``). A *dense* scratch array
``dense[L, n_symbols]`` holds one centroid at a time; it is filled by :func:`add_centroid` and emptied again by
:func:`clear_centroid`, so that memory never grows with the number of groups.

Because every template position and every centroid position sums to one, the distance of Eq. 3 between a
template ``T`` and a centroid ``C`` is ``sum_i sum_r |f_ir(T) - c_ir| = 2 L - 2 sum_i sum_{r in T_i} min(f_ir, c_ir)``:
only the template's non-zero symbols have to be looked up (:func:`template_distance`).
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit, prange
from anonstudio.core.kernels import parallel_runtime

parallel_runtime()  # before any kernel of this module is loaded (see parallel_runtime)

_TOL = 1e-9


# ---------------------------------------------------------------------------------------------------------
# HomogenizeLength (Fig. 1) and the optimal segmentation (§4.5)
@njit(cache=True, nogil=True)
def homogenize_greedy(sorted_lengths, k, eps):
    """Fig. 1 on lengths sorted ascending: segment id per position (-1 = suppressed), and the segment count."""
    n = sorted_lengths.shape[0]
    seg = np.full(n, -1, np.int64)
    i = 0
    s = 0
    while i < n:
        hi = (1.0 + eps) * sorted_lengths[i] + _TOL
        j = i
        while j < n and sorted_lengths[j] <= hi:
            j += 1
        if j - i >= k:
            for u in range(i, j):
                seg[u] = s
            s += 1
            i = j
        else:
            i += 1  # the smallest length is an outlier: suppress it
    return seg, s


@njit(cache=True, nogil=True)
def homogenize_optimal(sorted_lengths, k, eps):
    """§4.5: segmentation of the sorted lengths into contiguous ranges ``[l_a, l_b]`` with ``l_b <= (1+eps) l_a``
    and at least ``k`` strings each that suppresses as few strings as possible (dynamic programming).

    ``best[i]`` = most strings covered among the first ``i``: either string ``i`` is suppressed (``best[i-1]``) or
    a segment ``j .. i-1`` ends there, ``best[j] + i - j`` with ``j`` in ``[j_min(i), i - k]``. Both window ends
    only move right, so the maximum of ``best[j] - j`` comes from a monotone deque: O(N) overall. Among the
    segmentations that suppress the fewest strings the one with the fewest segments is kept (ranges as wide
    as Fig. 1's), so the segmentation differs from the greedy one only where that saves strings."""
    n = sorted_lengths.shape[0]
    best = np.zeros(n + 1, np.int64)
    nseg = np.zeros(n + 1, np.int64)
    start = np.full(n + 1, -1, np.int64)  # start index (0-based) of the segment ending at i-1, -1: suppressed
    dq = np.empty(n + 1, np.int64)
    head = 0
    tail = 0
    j_min = 0
    for i in range(1, n + 1):
        li = sorted_lengths[i - 1]
        while sorted_lengths[j_min] * (1.0 + eps) + _TOL < li:
            j_min += 1
        jn = i - k
        if jn >= 0:
            while tail > head:
                jb = dq[tail - 1]
                vb = best[jb] - jb
                vn = best[jn] - jn
                if vb < vn or (vb == vn and nseg[jb] >= nseg[jn]):
                    tail -= 1
                else:
                    break
            dq[tail] = jn
            tail += 1
        while tail > head and dq[head] < j_min:
            head += 1
        best[i] = best[i - 1]
        nseg[i] = nseg[i - 1]
        if tail > head:
            j = dq[head]
            cand = best[j] + i - j
            if cand > best[i] or (cand == best[i] and nseg[j] + 1 < nseg[i]):
                best[i] = cand
                nseg[i] = nseg[j] + 1
                start[i] = j
    seg = np.full(n, -1, np.int64)
    i = n
    count = 0
    while i > 0:
        if start[i] >= 0:
            count += 1
            i = start[i]
        else:
            i -= 1
    s = count
    i = n
    while i > 0:
        if start[i] >= 0:
            s -= 1
            for u in range(start[i], i):
                seg[u] = s
            i = start[i]
        else:
            i -= 1
    return seg, count


# ---------------------------------------------------------------------------------------------------------
# ConvertLength (§3, Fig. 2)
@njit(cache=True, nogil=True)
def span_frequencies(codes, p, q, out_sym, out_val):
    """Normalised symbol frequencies of ``codes`` over the real interval ``[p, q]`` (string position ``m``,
    1-based, covers ``[m-1, m]``; end positions contribute the fraction they overlap). Writes distinct symbols to
    ``out_sym``/``out_val`` (unused slots: -1 / 0) and returns how many there are."""
    for w in range(out_sym.shape[0]):
        out_sym[w] = -1
        out_val[w] = 0.0
    n = codes.shape[0]
    used = 0
    total = 0.0
    m0 = int(np.floor(p))
    m1 = int(np.ceil(q))
    if m1 <= m0:
        m1 = m0 + 1
    for m in range(m0, m1):
        if m < 0 or m >= n:
            continue
        lo = p if p > m else float(m)
        hi = q if q < m + 1 else float(m + 1)
        frac = hi - lo
        if q <= p:  # degenerate interval inside one position: that symbol alone
            frac = 1.0
        if frac <= 1e-12:
            continue
        c = np.int32(codes[m])
        found = False
        for w in range(used):
            if out_sym[w] == c:
                out_val[w] += frac
                found = True
                break
        if not found:
            out_sym[used] = c
            out_val[used] = frac
            used += 1
        total += frac
    for w in range(used):
        out_val[w] /= total
    return used


@njit(cache=True, nogil=True)
def build_templates(codes, offsets, members, L, W):
    """ConvertLength(S, L) for every string index in ``members``: templates of length ``L``, width ``W``."""
    n = members.shape[0]
    tsym = np.full((n, L, W), -1, np.int32)
    tval = np.zeros((n, L, W), np.float64)
    for t in range(n):
        s = members[t]
        a = offsets[s]
        lj = offsets[s + 1] - a
        seq = codes[a : a + lj]
        step = lj / L
        for i in range(L):
            span_frequencies(seq, i * step, (i + 1) * step, tsym[t, i], tval[t, i])
    return tsym, tval


# ---------------------------------------------------------------------------------------------------------
# centroids and the distance of Eq. 3
@njit(cache=True, nogil=True)
def add_centroid(tsym, tval, members, count, dense):
    """dense += average of templates ``members[:count]`` (the centroid of a group)."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    inv = 1.0 / count
    for u in range(count):
        t = members[u]
        for i in range(L):
            for w in range(W):
                c = tsym[t, i, w]
                if c >= 0:
                    dense[i, c] += tval[t, i, w] * inv


@njit(cache=True, nogil=True)
def clear_centroid(tsym, members, count, dense):
    """Zero the cells of ``dense`` that :func:`add_centroid` touched for the same members."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    for u in range(count):
        t = members[u]
        for i in range(L):
            for w in range(W):
                c = tsym[t, i, w]
                if c >= 0:
                    dense[i, c] = 0.0


@njit(cache=True, nogil=True)
def template_distance(tsym, tval, t, dense):
    """Eq. 3 between template ``t`` and the centroid held in ``dense``."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    sim = 0.0
    for i in range(L):
        for w in range(W):
            c = tsym[t, i, w]
            if c < 0:
                break
            f = tval[t, i, w]
            d = dense[i, c]
            sim += f if f < d else d
    v = 2.0 * L - 2.0 * sim
    return v if v > 0.0 else 0.0


@njit(cache=True, nogil=True)
def pair_distance(tsym, tval, a, b):
    """Eq. 3 between two templates (sparse against sparse)."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    total = 0.0
    for i in range(L):
        # sum_r |fa - fb| = sum fa + sum fb - 2 sum min; each sums to 1
        sim = 0.0
        for wa in range(W):
            ca = tsym[a, i, wa]
            if ca < 0:
                break
            for wb in range(W):
                cb = tsym[b, i, wb]
                if cb < 0:
                    break
                if ca == cb:
                    fa = tval[a, i, wa]
                    fb = tval[b, i, wb]
                    sim += fa if fa < fb else fb
        total += 2.0 - 2.0 * sim
    return total if total > 0.0 else 0.0


@njit(cache=True, nogil=True)
def build_index(tsym, tval, n_symbols, subset):
    """Inverted index of the templates ``subset`` for large alphabets: for key ``i * n_symbols + c`` the
    templates with symbol ``c`` at position ``i`` (``post_t``) and its frequency (``post_f``), CSR over ``iptr``.
    Rebuilt on the templates still unassigned as a pass goes on, so that postings shrink with them."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    counts = np.zeros(L * n_symbols + 1, np.int64)
    for u in range(subset.shape[0]):
        t = subset[u]
        for i in range(L):
            for w in range(W):
                c = tsym[t, i, w]
                if c < 0:
                    break
                counts[i * n_symbols + c + 1] += 1
    iptr = np.cumsum(counts)
    fill = iptr[:-1].copy()
    post_t = np.empty(iptr[-1], np.int64)
    post_f = np.empty(iptr[-1], np.float64)
    for u in range(subset.shape[0]):
        t = subset[u]
        for i in range(L):
            for w in range(W):
                c = tsym[t, i, w]
                if c < 0:
                    break
                key = i * n_symbols + c
                post_t[fill[key]] = t
                post_f[fill[key]] = tval[t, i, w]
                fill[key] += 1
    return iptr, post_t, post_f


@njit(cache=True, nogil=True)
def _centroid_keys(tsym, members, count, dense, keys):
    """Distinct non-zero cells ``i * n_symbols + c`` of the centroid held in ``dense`` (members' symbols)."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    l = dense.shape[1]
    nk = 0
    for u in range(count):
        t = members[u]
        for i in range(L):
            for w in range(W):
                c = tsym[t, i, w]
                if c < 0:
                    break
                if dense[i, c] > 0.0:
                    keys[nk] = i * l + c
                    nk += 1
                    dense[i, c] = -dense[i, c]  # mark as collected
    for e in range(nk):
        key = keys[e]
        dense[key // l, key % l] = -dense[key // l, key % l]
    return nk


@njit(cache=True, nogil=True)
def _distances(tsym, tval, dense, remaining, n_rem, dist, use_index, iptr, post_t, post_f, members, count, keys,
               skip, sim):
    """Eq. 3 distance of ``remaining[:n_rem]`` to the centroid in ``dense`` into ``dist``: directly, or through
    the inverted index (only templates sharing a (position, symbol) cell with the centroid are touched; ``skip``
    marks templates to leave out, ``sim`` is zero on entry and on exit)."""
    L = tsym.shape[1]
    if not use_index:
        for u in range(n_rem):
            dist[u] = template_distance(tsym, tval, remaining[u], dense)
        return
    l = dense.shape[1]
    nk = _centroid_keys(tsym, members, count, dense, keys)
    for e in range(nk):
        key = keys[e]
        v = dense[key // l, key % l]
        for p in range(iptr[key], iptr[key + 1]):
            t = post_t[p]
            if not skip[t]:
                f = post_f[p]
                sim[t] += f if f < v else v
    for u in range(n_rem):
        t = remaining[u]
        d = 2.0 * L - 2.0 * sim[t]
        dist[u] = d if d > 0.0 else 0.0
        sim[t] = 0.0


@njit(cache=True, nogil=True)
def _take_nearest(dist, remaining, n_rem, assigned, need, out):
    """Pick the ``need`` templates of ``remaining[:n_rem]`` with the smallest ``dist`` (ties: lower position
    first); mark them assigned, write them to ``out`` and compact ``remaining``. Returns the new ``n_rem``."""
    best_d = np.full(need, np.inf)
    best_t = np.full(need, -1, np.int64)
    worst = 0
    filled = 0
    for u in range(n_rem):
        t = remaining[u]
        d = dist[u]
        if filled < need:
            best_d[filled] = d
            best_t[filled] = t
            filled += 1
            if filled == need:
                worst = 0
                for v in range(1, need):
                    if best_d[v] > best_d[worst]:
                        worst = v
        elif d < best_d[worst]:
            best_d[worst] = d
            best_t[worst] = t
            worst = 0
            for v in range(1, need):
                if best_d[v] > best_d[worst]:
                    worst = v
    for v in range(filled):
        assigned[best_t[v]] = True
        out[v] = best_t[v]
    m = 0
    for u in range(n_rem):
        t = remaining[u]
        if not assigned[t]:
            remaining[m] = t
            m += 1
    return m


@njit(cache=True, nogil=True, inline="always")
def _take_seed(t, remaining, n_rem, assigned):
    """Mark seed ``t`` assigned and drop it from ``remaining[:n_rem]`` (order kept); returns the new count."""
    assigned[t] = True
    m = 0
    for u in range(n_rem):
        if remaining[u] != t:
            remaining[m] = remaining[u]
            m += 1
    return m


@njit(cache=True, nogil=True, inline="always")
def _label_group(labels, seed, chosen, count, group):
    """Label the seed (if ``seed >= 0``) and ``chosen[:count]`` with ``group``."""
    if seed >= 0:
        labels[seed] = group
    for v in range(count):
        labels[chosen[v]] = group


@njit(cache=True, nogil=True)
def seed_pass_chunk(tsym, tval, k, order, pos, remaining, n_rem, assigned, labels, next_group, max_groups, dense,
                    use_index, iptr, post_t, post_f, keys, sim):
    """First pass of CreateGroups (Fig. 3), resumable: walk ``order`` (a random permutation) from ``pos``; each
    unassigned template seeds a group with its ``k-1`` nearest unassigned templates. Stops after ``max_groups``
    groups or when fewer than ``k`` templates remain. Returns ``(pos, n_rem, next_group)``."""
    n = tsym.shape[0]
    one = np.empty(1, np.int64)
    out = np.empty(k, np.int64)
    dist = np.empty(n, np.float64)
    made = 0
    while pos < n and n_rem >= k and made < max_groups:
        t = order[pos]
        pos += 1
        if assigned[t]:
            continue
        n_rem = _take_seed(t, remaining, n_rem, assigned)
        one[0] = t
        add_centroid(tsym, tval, one, 1, dense)
        _distances(tsym, tval, dense, remaining, n_rem, dist, use_index, iptr, post_t, post_f, one, 1, keys,
                   assigned, sim)
        n_rem = _take_nearest(dist, remaining, n_rem, assigned, k - 1, out)
        clear_centroid(tsym, one, 1, dense)
        _label_group(labels, t, out, k - 1, next_group)
        next_group += 1
        made += 1
    return pos, n_rem, next_group


@njit(cache=True, nogil=True)
def centroid_pass_chunk(tsym, tval, k, prev_ptr, prev_members, seed_order, pos, remaining, n_rem, assigned,
                        labels, next_group, max_groups, dense, use_index, iptr, post_t, post_f, keys, sim):
    """A later pass of CreateGroups (Fig. 3), resumable: for the previous groups in ``seed_order`` from ``pos``,
    the ``k`` unassigned templates nearest to that group's centroid form a new group. Returns
    ``(pos, n_rem, next_group)``."""
    g_count = seed_order.shape[0]
    out = np.empty(k, np.int64)
    dist = np.empty(tsym.shape[0], np.float64)
    made = 0
    while pos < g_count and n_rem >= k and made < max_groups:
        g = seed_order[pos]
        pos += 1
        a = prev_ptr[g]
        cnt = prev_ptr[g + 1] - a
        mem = prev_members[a : a + cnt]
        add_centroid(tsym, tval, mem, cnt, dense)
        _distances(tsym, tval, dense, remaining, n_rem, dist, use_index, iptr, post_t, post_f, mem, cnt, keys,
                   assigned, sim)
        n_rem = _take_nearest(dist, remaining, n_rem, assigned, k, out)
        clear_centroid(tsym, mem, cnt, dense)
        _label_group(labels, -1, out, k, next_group)
        next_group += 1
        made += 1
    return pos, n_rem, next_group


# ---------------------------------------------------------------------------------------------------------
# distances to a block of centroids at once (the dense alphabets' path of CreateGroups)
@njit(cache=True, nogil=True)
def fill_block(tsym, tval, ptr, members, groups, nb, cents):
    """``cents[i, c, b]`` = centroid of group ``groups[b]`` (members ``ptr``/``members``), ``b < nb``, summed
    in the order of :func:`add_centroid` so that every value is bit-identical to it; the rest of ``cents`` is
    zeroed. A template is its own centroid (``ptr = [0, 1]``, a group of one)."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    cents[:] = 0.0
    for b in range(nb):
        g = groups[b]
        a = ptr[g]
        cnt = ptr[g + 1] - a
        inv = 1.0 / cnt
        for u in range(cnt):
            t = members[a + u]
            for i in range(L):
                for w in range(W):
                    c = tsym[t, i, w]
                    if c >= 0:
                        cents[i, c, b] += tval[t, i, w] * inv


@njit(cache=True, nogil=True, parallel=True)
def block_distances(tsym, tval, rows, n_rows, cents, nb, out):
    """``out[u, b]`` = Eq. 3 distance of template ``rows[u]`` (``u < n_rows``) to centroid ``b < nb`` of
    ``cents`` (:func:`fill_block`), for both cores (``prange`` over the templates).

    The same sums as :func:`template_distance` — ``2L - 2 sum_i sum_{r in T_i} min(f_ir, c_ir)`` over the
    template's slots in the same order — so each distance is bit-identical to it; only the loop over
    centroids is innermost, which leaves the block's sums independent of each other (vector instructions,
    no chain of dependent additions) instead of one centroid's long chain at a time."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    for u in prange(n_rows):
        t = rows[u]
        sim = np.zeros(nb)
        for i in range(L):
            for w in range(W):
                c = tsym[t, i, w]
                if c < 0:
                    break
                f = tval[t, i, w]
                cc = cents[i, c]
                for b in range(nb):
                    d = cc[b]
                    sim[b] += f if f < d else d
        for b in range(nb):
            v = 2.0 * L - 2.0 * sim[b]
            out[u, b] = v if v > 0.0 else 0.0


@njit(cache=True, nogil=True)
def seed_pass_block(tsym, tval, k, order, pos, remaining, n_rem, assigned, labels, next_group, max_groups, cents,
                    block, row_of):
    """:func:`seed_pass_chunk` with the distances computed a block of seeds at a time (same groups, same
    order): the next ``B`` unassigned templates of ``order`` are the next seeds unless an earlier seed of the
    block takes them, so their distances to the templates still unassigned are computed together
    (:func:`block_distances`); a seed taken meanwhile is skipped, as the walk would skip it. ``cents`` is
    ``L x n_symbols x B`` and ``block`` ``n x B`` scratch, ``row_of`` ``n`` scratch."""
    n = tsym.shape[0]
    B = block.shape[1]
    singles = np.arange(B + 1)  # group b of the block = seeds[b] alone
    seeds = np.empty(B, np.int64)
    after = np.empty(B, np.int64)
    out = np.empty(k, np.int64)
    dist = np.empty(n, np.float64)
    rows = np.empty(n, np.int64)
    made = 0
    while pos < n and n_rem >= k and made < max_groups:
        nb = 0
        p = pos
        while p < n and nb < B:
            t = order[p]
            p += 1
            if not assigned[t]:
                seeds[nb] = t
                after[nb] = p
                nb += 1
        if nb == 0:
            pos = p
            break
        fill_block(tsym, tval, singles, seeds, singles, nb, cents)  # the block's centroids: one template each
        for u in range(n_rem):
            rows[u] = remaining[u]
            row_of[remaining[u]] = u
        block_distances(tsym, tval, rows, n_rem, cents, nb, block)
        for b in range(nb):
            if not (n_rem >= k and made < max_groups):
                break
            t = seeds[b]
            pos = after[b]
            if assigned[t]:
                continue
            n_rem = _take_seed(t, remaining, n_rem, assigned)
            for u in range(n_rem):
                dist[u] = block[row_of[remaining[u]], b]
            n_rem = _take_nearest(dist, remaining, n_rem, assigned, k - 1, out)
            _label_group(labels, t, out, k - 1, next_group)
            next_group += 1
            made += 1
    return pos, n_rem, next_group


@njit(cache=True, nogil=True)
def centroid_pass_block(tsym, tval, k, prev_ptr, prev_members, seed_order, pos, remaining, n_rem, assigned,
                        labels, next_group, max_groups, cents, block, row_of):
    """:func:`centroid_pass_chunk` with the distances to the next ``B`` previous centroids of ``seed_order``
    computed together (:func:`block_distances`), then the groups formed one by one as before: same groups."""
    g_count = seed_order.shape[0]
    n = tsym.shape[0]
    B = block.shape[1]
    out = np.empty(k, np.int64)
    dist = np.empty(n, np.float64)
    rows = np.empty(n, np.int64)
    made = 0
    while pos < g_count and n_rem >= k and made < max_groups:
        nb = min(B, g_count - pos, max_groups - made)
        fill_block(tsym, tval, prev_ptr, prev_members, seed_order[pos : pos + nb], nb, cents)
        for u in range(n_rem):
            rows[u] = remaining[u]
            row_of[remaining[u]] = u
        block_distances(tsym, tval, rows, n_rem, cents, nb, block)
        for b in range(nb):
            if n_rem < k:
                break
            pos += 1
            for u in range(n_rem):
                dist[u] = block[row_of[remaining[u]], b]
            n_rem = _take_nearest(dist, remaining, n_rem, assigned, k, out)
            _label_group(labels, -1, out, k, next_group)
            next_group += 1
            made += 1
    return pos, n_rem, next_group


@njit(cache=True, nogil=True)
def best_other_block(tsym, tval, labels, ptr, members, g0, g1, best_g, best_d, cents, block):
    """:func:`best_other_centroids` over groups ``g0 .. g1-1``, ``B`` centroids at a time
    (:func:`block_distances`); the groups are visited in the same order with the same strict test, so the
    same nearest other centroid wins."""
    n = tsym.shape[0]
    B = block.shape[1]
    everyone = np.arange(n)
    groups = np.arange(g0, g1)
    for s in range(0, g1 - g0, B):
        nb = min(B, g1 - g0 - s)
        fill_block(tsym, tval, ptr, members, groups[s : s + nb], nb, cents)
        block_distances(tsym, tval, everyone, n, cents, nb, block)
        for t in range(n):
            lt = labels[t]
            if lt < 0:
                continue
            for b in range(nb):
                g = g0 + s + b
                if lt == g or ptr[g + 1] == ptr[g]:
                    continue
                d = block[t, b]
                if d < best_d[t]:
                    best_d[t] = d
                    best_g[t] = g


@njit(cache=True, nogil=True)
def group_members(labels, n_groups):
    """CSR of group membership: ``ptr[g]:ptr[g+1]`` in ``members`` are the templates of group ``g``."""
    counts = np.zeros(n_groups + 1, np.int64)
    for t in range(labels.shape[0]):
        if labels[t] >= 0:
            counts[labels[t] + 1] += 1
    ptr = np.cumsum(counts)
    fill = ptr[:-1].copy()
    members = np.empty(ptr[-1], np.int64)
    for t in range(labels.shape[0]):
        g = labels[t]
        if g >= 0:
            members[fill[g]] = t
            fill[g] += 1
    return ptr, members


@njit(cache=True, nogil=True)
def nearest_centroids(tsym, tval, ptr, members, queries, dense):
    """For each template in ``queries``: nearest group centroid (among groups ``ptr``) and its distance."""
    q = queries.shape[0]
    best_g = np.full(q, -1, np.int64)
    best_d = np.full(q, np.inf)
    for g in range(ptr.shape[0] - 1):
        a = ptr[g]
        cnt = ptr[g + 1] - a
        if cnt == 0:
            continue
        mem = members[a : a + cnt]
        add_centroid(tsym, tval, mem, cnt, dense)
        for u in range(q):
            d = template_distance(tsym, tval, queries[u], dense)
            if d < best_d[u]:
                best_d[u] = d
                best_g[u] = g
        clear_centroid(tsym, mem, cnt, dense)
    return best_g, best_d


@njit(cache=True, nogil=True)
def own_distances(tsym, tval, ptr, members, dense):
    """Distance of every template to its own group's centroid (templates not in a group: NaN)."""
    n = tsym.shape[0]
    out = np.full(n, np.nan)
    for g in range(ptr.shape[0] - 1):
        a = ptr[g]
        cnt = ptr[g + 1] - a
        if cnt == 0:
            continue
        mem = members[a : a + cnt]
        add_centroid(tsym, tval, mem, cnt, dense)
        for u in range(cnt):
            out[mem[u]] = template_distance(tsym, tval, mem[u], dense)
        clear_centroid(tsym, mem, cnt, dense)
    return out


@njit(cache=True, nogil=True)
def best_other_centroids(tsym, tval, labels, ptr, members, g0, g1, best_g, best_d, dense, use_index, iptr, post_t,
                         post_f, keys, sim):
    """Update, for every template, the nearest centroid *other than its own* among groups ``g0 .. g1-1``
    (resumable over chunks of groups)."""
    n = tsym.shape[0]
    everyone = np.arange(n)
    dist = np.empty(n, np.float64)
    skip = np.zeros(n, np.bool_)
    for g in range(g0, g1):
        a = ptr[g]
        cnt = ptr[g + 1] - a
        if cnt == 0:
            continue
        mem = members[a : a + cnt]
        add_centroid(tsym, tval, mem, cnt, dense)
        _distances(tsym, tval, dense, everyone, n, dist, use_index, iptr, post_t, post_f, mem, cnt, keys, skip, sim)
        for t in range(n):
            if labels[t] == g or labels[t] < 0:
                continue
            if dist[t] < best_d[t]:
                best_d[t] = dist[t]
                best_g[t] = g
        clear_centroid(tsym, mem, cnt, dense)


@njit(cache=True, nogil=True)
def reassign(labels, n_groups, k, group_order, own_d, best_g, best_d):
    """§4.2 re-assignment test against fixed centroids. For each group (in ``group_order``): if re-assigning all
    its templates to their nearest other centroids lowers their summed distance, the group is dissolved into
    those groups; otherwise templates of a group larger than ``k`` move to a nearer group (most improving
    first) while the group keeps at least ``k``. Receiving groups only grow. Returns (moved, dissolved)."""
    n = labels.shape[0]
    size = np.zeros(n_groups, np.int64)
    for t in range(n):
        if labels[t] >= 0:
            size[labels[t]] += 1
    alive = size > 0
    received = np.zeros(n_groups, np.bool_)  # a group that took in templates is never dissolved afterwards
    ptr, members = group_members(labels, n_groups)
    moved = 0
    dissolved = 0
    for gi in range(group_order.shape[0]):
        g = group_order[gi]
        if not alive[g]:
            continue
        a = ptr[g]
        cnt = ptr[g + 1] - a
        own = 0.0
        other = 0.0
        ok = True
        for u in range(cnt):
            t = members[a + u]
            if labels[t] != g:
                continue
            own += own_d[t]
            if best_g[t] < 0 or not alive[best_g[t]]:
                ok = False
                break
            other += best_d[t]
        live = 0
        for h in range(n_groups):
            if alive[h]:
                live += 1
        if ok and live > 1 and not received[g] and other < own - 1e-12:
            for u in range(cnt):
                t = members[a + u]
                if labels[t] == g:
                    labels[t] = best_g[t]
                    size[best_g[t]] += 1
                    received[best_g[t]] = True
                    moved += 1
            size[g] = 0
            alive[g] = False
            dissolved += 1
            continue
        if size[g] > k:
            # candidates: members whose nearest other (alive) centroid is nearer than their own
            gains = np.empty(cnt)
            idx = np.empty(cnt, np.int64)
            m = 0
            for u in range(cnt):
                t = members[a + u]
                if labels[t] == g and best_g[t] >= 0 and alive[best_g[t]] and best_d[t] < own_d[t] - 1e-12:
                    gains[m] = own_d[t] - best_d[t]
                    idx[m] = t
                    m += 1
            if m > 0:
                order = np.argsort(-gains[:m])
                for v in range(m):
                    if size[g] <= k:
                        break
                    t = idx[order[v]]
                    labels[t] = best_g[t]
                    size[best_g[t]] += 1
                    received[best_g[t]] = True
                    size[g] -= 1
                    moved += 1
    return moved, dissolved


@njit(cache=True, nogil=True)
def relabel(labels):
    """Renumber group labels 0..g-1 in order of first appearance; returns (labels, g)."""
    mx = -1
    for t in range(labels.shape[0]):
        if labels[t] > mx:
            mx = labels[t]
    new = np.full(mx + 1, -1, np.int64)
    g = 0
    out = labels.copy()
    for t in range(labels.shape[0]):
        o = labels[t]
        if o < 0:
            continue
        if new[o] < 0:
            new[o] = g
            g += 1
        out[t] = new[o]
    return out, g


# ---------------------------------------------------------------------------------------------------------
# statistics (Eqs. 1, 2, 4) and generation (§4.3, §4.6)
@njit(cache=True, nogil=True)
def _lookup(tsym, tval, t, i, c):
    W = tsym.shape[2]
    for w in range(W):
        s = tsym[t, i, w]
        if s < 0:
            return 0.0
        if s == c:
            return tval[t, i, w]
    return 0.0


@njit(cache=True, nogil=True)
def order_statistics(tsym, tval, mem, s, r, max_out):
    """Eq. 4 (Eq. 2 for ``s = 1``, Eq. 1 for ``s = 2``): the non-zero ``O_s(q_1..q_s, r, G)`` of the group's
    templates ``mem`` at start position ``r`` (0-based), as rows of symbols and values (sparse: summed over the
    groups's templates, one entry per distinct symbol tuple). Returns (symbols[n, s], values[n])."""
    W = tsym.shape[2]
    syms = np.empty((max_out, s), np.int32)
    vals = np.zeros(max_out)
    n_out = 0
    idx = np.zeros(s, np.int64)
    tup = np.empty(s, np.int32)
    for u in range(mem.shape[0]):
        t = mem[u]
        # odometer over the W^s slot combinations of positions r..r+s-1
        for v in range(s):
            idx[v] = 0
        while True:
            prod = 1.0
            valid = True
            for v in range(s):
                c = tsym[t, r + v, idx[v]]
                if c < 0:
                    valid = False
                    break
                tup[v] = c
                prod *= tval[t, r + v, idx[v]]
            if valid and prod > 0.0:
                found = -1
                for e in range(n_out):
                    same = True
                    for v in range(s):
                        if syms[e, v] != tup[v]:
                            same = False
                            break
                    if same:
                        found = e
                        break
                if found >= 0:
                    vals[found] += prod
                elif n_out < max_out:
                    for v in range(s):
                        syms[n_out, v] = tup[v]
                    vals[n_out] = prod
                    n_out += 1
            v = s - 1
            while v >= 0:
                idx[v] += 1
                if idx[v] < W:
                    break
                idx[v] = 0
                v -= 1
            if v < 0:
                break
    return syms[:n_out].copy(), vals[:n_out].copy()


@njit(cache=True, nogil=True, inline="always")
def _first_order(tsym, tval, mem, i, prob, touched):
    """``Fs_i`` of the group (Eq. 2, unnormalised) added into ``prob`` (zero on entry), its symbols in
    ``touched`` in the order first met; returns how many and their total."""
    W = tsym.shape[2]
    nt = 0
    total = 0.0
    for j in range(mem.shape[0]):
        t = mem[j]
        for w in range(W):
            c = tsym[t, i, w]
            if c < 0:
                break
            if prob[c] == 0.0:
                touched[nt] = c
                nt += 1
            prob[c] += tval[t, i, w]
            total += tval[t, i, w]
    return nt, total


@njit(cache=True, nogil=True, inline="always")
def _biased_die(prob, touched, nt, target):
    """The biased die of §4.3: the first ``e`` whose cumulative ``prob[touched[:e + 1]]`` exceeds ``target``
    (= a uniform draw times the total; the last one if rounding leaves none)."""
    acc = 0.0
    for e in range(nt):
        acc += prob[touched[e]]
        if target < acc:
            return e
    return nt - 1


@njit(cache=True, nogil=True)
def generate_group(tsym, tval, mem, order, uniforms, n_symbols, out):
    """Generate ``out.shape[0]`` pseudo-strings of length ``L`` from the group's templates ``mem`` (§4.3, §4.6).

    Position 1 is drawn from ``Fs_1p / n(G)`` (Eq. 2). Position ``i+1`` is drawn with the conditional
    probability ``O_m(q_1..q_m, r, G) / O_{m-1}(q_1..q_{m-1}, r, G)`` of Eq. 4 with ``m = min(order, i+1)``,
    the context ``q_1..q_{m-1}`` being the symbols already generated (``m = 2``: ``Sc_ipq / Fs_ip``, Eq. 1/2).
    The statistics are evaluated on demand for the context at hand: ``O_m(..q, r) = sum_j w_j f_{i+1,q}(T_j)``
    with ``w_j = prod f(T_j)`` over the context, and ``O_{m-1} = sum_j w_j`` (each position sums to one), which
    equals the sparse tables' ratio exactly without storing ``l^s`` entries. ``uniforms[s, i]`` in [0, 1) drive
    the biased die for string ``s`` at position ``i``."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    n = mem.shape[0]
    weight = np.empty(n)
    prob = np.zeros(n_symbols)
    touched = np.empty(n * W, np.int64)
    for s in range(out.shape[0]):
        for i in range(L):
            m = order if order < i + 1 else i + 1
            # context weights
            for j in range(n):
                t = mem[j]
                w = 1.0
                for v in range(m - 1):
                    pos = i - (m - 1) + v
                    w *= _lookup(tsym, tval, t, pos, out[s, pos])
                    if w == 0.0:
                        break
                weight[j] = w
            nt = 0
            total = 0.0
            for j in range(n):
                if weight[j] == 0.0:
                    continue
                t = mem[j]
                for w in range(W):
                    c = tsym[t, i, w]
                    if c < 0:
                        break
                    x = weight[j] * tval[t, i, w]
                    if prob[c] == 0.0:
                        touched[nt] = c
                        nt += 1
                    prob[c] += x
                    total += x
            if nt == 0:  # cannot happen for contexts the group generated; fall back to first order
                nt, total = _first_order(tsym, tval, mem, i, prob, touched)
            out[s, i] = touched[_biased_die(prob, touched, nt, uniforms[s, i] * total)]
            for e in range(nt):
                prob[touched[e]] = 0.0


@njit(cache=True, nogil=True)
def generate_group_order2(tsym, tval, mem, uniforms, n_symbols, out):
    """:func:`generate_group` for ``order = 2`` (§4.3), with the group's statistics tabulated once per
    position instead of once per string and position: the same draws, in ``n(G)`` times fewer operations.

    Position 1 is drawn from ``Fs_1p`` (Eq. 2), position ``i+1`` from ``Sc_ipq / Fs_ip`` (Eqs. 1–2) for the
    symbol ``p`` generated at ``i``. For each position the table holds, per context symbol ``p`` present
    there, ``Sc_ipq = sum_j f_ip(T_j) f_{i+1,q}(T_j)`` and its row total ``sum_j sum_q f_ip(T_j) f_{i+1,q}(T_j)``
    (``= Fs_ip``, each position summing to one), accumulated over the members and their slots in the order
    :func:`generate_group` uses, with the symbols of each row in the order it meets them — so every die is
    bit-identical to that function's and the strings equal for the same ``uniforms``."""
    L = tsym.shape[1]
    W = tsym.shape[2]
    n = mem.shape[0]
    cap = min(n * W, n_symbols) + 1  # distinct context symbols at a position (+1: none, position 1)
    width = min(n * W, n_symbols)  # distinct symbols at a position
    row_of = np.full(n_symbols, -1, np.int64)
    col_of = np.full(n_symbols, -1, np.int64)
    prob = np.zeros((cap, width))
    total = np.zeros(cap)
    touched = np.empty((cap, width), np.int64)  # per row, columns in the order first met
    nt = np.zeros(cap, np.int64)
    col_sym = np.empty(width, np.int64)
    ctx_sym = np.empty(cap, np.int64)
    for i in range(L):
        n_rows = 0
        n_cols = 0
        for j in range(n):
            t = mem[j]
            for w1 in range(W if i > 0 else 1):
                if i > 0:
                    p = tsym[t, i - 1, w1]
                    if p < 0:
                        break
                    fp = tval[t, i - 1, w1]
                    r = row_of[p]
                    if r < 0:
                        r = n_rows
                        row_of[p] = r
                        ctx_sym[r] = p
                        n_rows += 1
                else:
                    fp = 1.0
                    r = 0
                    n_rows = 1
                for w in range(W):
                    c = tsym[t, i, w]
                    if c < 0:
                        break
                    col = col_of[c]
                    if col < 0:
                        col = n_cols
                        col_of[c] = col
                        col_sym[col] = c
                        n_cols += 1
                    x = fp * tval[t, i, w]
                    if prob[r, col] == 0.0:
                        touched[r, nt[r]] = col
                        nt[r] += 1
                    prob[r, col] += x
                    total[r] += x
        for s in range(out.shape[0]):
            r = 0 if i == 0 else row_of[out[s, i - 1]]
            if r < 0 or nt[r] == 0:  # cannot happen for a context the group generated: first order
                fo = np.zeros(n_symbols)
                seen = np.empty(n * W, np.int64)
                m, tot = _first_order(tsym, tval, mem, i, fo, seen)
                out[s, i] = seen[_biased_die(fo, seen, m, uniforms[s, i] * tot)]
                continue
            out[s, i] = col_sym[touched[r, _biased_die(prob[r], touched[r], nt[r], uniforms[s, i] * total[r])]]
        for r in range(n_rows):
            for e in range(nt[r]):
                prob[r, touched[r, e]] = 0.0
            nt[r] = 0
            total[r] = 0.0
        for r in range(n_rows):
            if i > 0:
                row_of[ctx_sym[r]] = -1
        for col in range(n_cols):
            col_of[col_sym[col]] = -1
