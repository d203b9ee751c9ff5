"""numba kernels of global alignment (Needleman & Wunsch 1970; affine gaps after Gotoh 1982).

Used by the inter-group distance ordering of Aggarwal & Yu (DMKD 2008, Eq. 6). Sequences are symbol-code
arrays; the score matrices are indexed by those codes.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def nw_unit_distance(a, b):
    """Needleman–Wunsch distance with unit costs (match 0, mismatch 1, gap 1): the minimal number of
    substitutions, insertions and deletions turning ``a`` into ``b``. Linear memory."""
    n = a.shape[0]
    m = b.shape[0]
    if n < m:  # keep the row the shorter one
        a, b = b, a
        n, m = m, n
    row = np.empty(m + 1, np.int64)
    for j in range(m + 1):
        row[j] = j
    for i in range(1, n + 1):
        diag = row[0]
        row[0] = i
        ai = a[i - 1]
        for j in range(1, m + 1):
            up = row[j]
            best = diag + (0 if ai == b[j - 1] else 1)
            x = up + 1
            if x < best:
                best = x
            x = row[j - 1] + 1
            if x < best:
                best = x
            row[j] = best
            diag = up
    return row[m]


_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)
_HIGH = np.uint64(1) << np.uint64(63)


@njit(cache=True, nogil=True)
def pattern_bits(a, n_symbols):
    """Match bit-vectors of pattern ``a`` for :func:`unit_distance_bits`: ``peq[c, w]`` has bit ``i % 64`` of
    word ``i // 64`` set where ``a[i] == c``."""
    m = a.shape[0]
    nb = (m + 63) // 64
    peq = np.zeros((n_symbols, max(nb, 1)), np.uint64)
    for i in range(m):
        peq[a[i], i // 64] |= _ONE << np.uint64(i % 64)
    return peq


@njit(cache=True, nogil=True)
def unit_distance_bits(peq, m, b):
    """Unit-cost Needleman–Wunsch (Levenshtein) distance of the pattern encoded in ``peq`` (length ``m``) and
    ``b``, with Myers' bit-parallel recursion in Hyyrö's block form (64 DP cells per word operation); the same
    value as :func:`nw_unit_distance`."""
    n = b.shape[0]
    if m == 0:
        return n
    if n == 0:
        return m
    nb = (m + 63) // 64
    n_sym = peq.shape[0]
    pv_arr = np.empty(nb, np.uint64)
    mv_arr = np.zeros(nb, np.uint64)
    for w in range(nb):
        pv_arr[w] = _ONES
    last = _ONE << np.uint64((m - 1) % 64)
    score = m
    zero = np.uint64(0)
    for j in range(n):
        c = b[j]
        hin = 1
        for w in range(nb):
            eq = peq[c, w] if c < n_sym else zero
            pv = pv_arr[w]
            mv = mv_arr[w]
            xv = eq | mv
            if hin < 0:
                eq |= _ONE
            xh = (((eq & pv) + pv) ^ pv) | eq
            ph = mv | ~(xh | pv)
            mh = pv & xh
            bit = last if w == nb - 1 else _HIGH
            hout = 0
            if ph & bit:
                hout = 1
            elif mh & bit:
                hout = -1
            ph = ph << _ONE
            mh = mh << _ONE
            if hin < 0:
                mh |= _ONE
            elif hin > 0:
                ph |= _ONE
            pv_arr[w] = mh | ~(xv | ph)
            mv_arr[w] = ph & xv
            hin = hout
        score += hin
    return score


@njit(cache=True, nogil=True)
def nw_affine_score(a, b, matrix, gap_open, gap_extend):
    """Global alignment score with a substitution ``matrix`` and affine gaps (a gap of length ``g`` costs
    ``gap_open + (g-1) * gap_extend``; both given as positive penalties). Gotoh's three-state recursion,
    linear memory."""
    n = a.shape[0]
    m = b.shape[0]
    neg = -1e18
    M = np.empty(m + 1)  # ends in a match/mismatch
    X = np.empty(m + 1)  # ends in a gap in b (a consumed)
    Y = np.empty(m + 1)  # ends in a gap in a (b consumed)
    M[0] = 0.0
    X[0] = neg
    Y[0] = neg
    for j in range(1, m + 1):
        M[j] = neg
        X[j] = neg
        Y[j] = -gap_open - (j - 1) * gap_extend
    for i in range(1, n + 1):
        dM = M[0]
        dX = X[0]
        dY = Y[0]
        M[0] = neg
        Y[0] = neg
        X[0] = -gap_open - (i - 1) * gap_extend
        ai = a[i - 1]
        for j in range(1, m + 1):
            upM = M[j]
            upX = X[j]
            upY = Y[j]
            best_diag = dM
            if dX > best_diag:
                best_diag = dX
            if dY > best_diag:
                best_diag = dY
            newM = best_diag + matrix[ai, b[j - 1]]
            # gap in b: came from (i-1, j)
            newX = upM - gap_open
            x = upX - gap_extend
            if x > newX:
                newX = x
            x = upY - gap_open
            if x > newX:
                newX = x
            # gap in a: from (i, j-1)
            newY = M[j - 1] - gap_open
            x = Y[j - 1] - gap_extend
            if x > newY:
                newY = x
            x = X[j - 1] - gap_open
            if x > newY:
                newY = x
            dM = upM
            dX = upX
            dY = upY
            M[j] = newM
            X[j] = newX
            Y[j] = newY
    best = M[m]
    if X[m] > best:
        best = X[m]
    if Y[m] > best:
        best = Y[m]
    return best


@njit(cache=True, nogil=True)
def self_scores(codes, offsets, matrix):
    """Score of every sequence aligned with itself (sum of the diagonal entries)."""
    n = offsets.shape[0] - 1
    out = np.empty(n)
    for s in range(n):
        t = 0.0
        for p in range(offsets[s], offsets[s + 1]):
            t += matrix[codes[p], codes[p]]
        out[s] = t
    return out


@njit(cache=True, nogil=True)
def block_distances(codes_a, off_a, idx_a, codes_b, off_b, idx_b, matrix, gap_open, gap_extend, self_a, self_b,
                    unit):
    """Distances between sequences ``idx_a`` of set A and ``idx_b`` of set B (a len(idx_a) x len(idx_b) array).
    ``unit``: NW unit-cost distance; otherwise the affine score turned into a distance
    ``(S(a,a) + S(b,b)) / 2 - S(a,b)``."""
    out = np.empty((idx_a.shape[0], idx_b.shape[0]))
    n_sym = 1
    if unit:
        for p in range(codes_a.shape[0]):
            if codes_a[p] + 1 > n_sym:
                n_sym = codes_a[p] + 1
    for u in range(idx_a.shape[0]):
        sa = idx_a[u]
        a = codes_a[off_a[sa] : off_a[sa + 1]]
        if unit:
            peq = pattern_bits(a, n_sym)
        for v in range(idx_b.shape[0]):
            sb = idx_b[v]
            b = codes_b[off_b[sb] : off_b[sb + 1]]
            if unit:
                out[u, v] = unit_distance_bits(peq, a.shape[0], b)
            else:
                out[u, v] = 0.5 * (self_a[sa] + self_b[sb]) - nw_affine_score(a, b, matrix, gap_open, gap_extend)
    return out


@njit(cache=True, nogil=True)
def _mix(h):
    """Finaliser of splitmix64: spreads a polynomial hash over all 64 bits (for the open-addressing table)."""
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h | np.uint64(1)  # 0 marks an empty slot


_BASE = np.uint64(1099511628211)


@njit(cache=True, nogil=True)
def prefix_hashes(codes):
    """Polynomial prefix hashes ``H[i] = Σ_{p<i} (codes[p] + 1) B^{i-1-p}`` (mod 2^64) of a concatenation: the
    hash of ``codes[a:a+m]`` is ``H[a+m] - H[a] B^m``."""
    n = codes.shape[0]
    h = np.zeros(n + 1, np.uint64)
    for p in range(n):
        h[p + 1] = h[p] * _BASE + np.uint64(codes[p]) + np.uint64(1)
    return h


@njit(cache=True, nogil=True)
def _insert(table, key):
    mask = np.uint64(table.shape[0] - 1)
    slot = key & mask
    while table[slot] != 0 and table[slot] != key:
        slot = (slot + np.uint64(1)) & mask
    table[slot] = key


@njit(cache=True, nogil=True)
def _contains(table, key):
    mask = np.uint64(table.shape[0] - 1)
    slot = key & mask
    while table[slot] != 0:
        if table[slot] == key:
            return True
        slot = (slot + np.uint64(1)) & mask
    return False


@njit(cache=True, nogil=True)
def _table(n_keys):
    size = 16
    while size < 2 * n_keys:
        size *= 2
    return np.zeros(size, np.uint64)


@njit(cache=True, nogil=True)
def shared_kgram_step(h_orig, cand, cand_end, h_query, q_off, active, lam):
    """One step of the longest-shared-substring search at length ``lam``.

    ``cand`` are start positions in the originals (``cand_end``: end of their string) whose ``lam-1``-gram
    occurs in some active query string; ``active`` are query strings that shared a ``lam-1``-gram. Returns
    ``(hit, new_cand, new_end)``: which active queries share a ``lam``-gram with an original, and the original
    positions whose ``lam``-gram occurs in an active query."""
    pw = np.uint64(1)
    for _ in range(lam):
        pw = pw * _BASE
    n_q = 0
    for u in range(active.shape[0]):
        s = active[u]
        m = q_off[s + 1] - q_off[s] - lam + 1
        if m > 0:
            n_q += m
    qt = _table(n_q)
    for u in range(active.shape[0]):
        s = active[u]
        for a in range(q_off[s], q_off[s + 1] - lam + 1):
            _insert(qt, _mix(h_query[a + lam] - h_query[a] * pw))
    keep = np.zeros(cand.shape[0], np.bool_)
    n_keep = 0
    for c in range(cand.shape[0]):
        a = cand[c]
        if a + lam <= cand_end[c] and _contains(qt, _mix(h_orig[a + lam] - h_orig[a] * pw)):
            keep[c] = True
            n_keep += 1
    new_cand = np.empty(n_keep, np.int64)
    new_end = np.empty(n_keep, np.int64)
    ot = _table(n_keep)
    j = 0
    for c in range(cand.shape[0]):
        if keep[c]:
            a = cand[c]
            new_cand[j] = a
            new_end[j] = cand_end[c]
            j += 1
            _insert(ot, _mix(h_orig[a + lam] - h_orig[a] * pw))
    hit = np.zeros(active.shape[0], np.bool_)
    if n_keep == 0:
        return hit, new_cand, new_end
    for u in range(active.shape[0]):
        s = active[u]
        for a in range(q_off[s], q_off[s + 1] - lam + 1):
            if _contains(ot, _mix(h_query[a + lam] - h_query[a] * pw)):
                hit[u] = True
                break
    return hit, new_cand, new_end
