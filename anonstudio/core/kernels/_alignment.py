"""numba kernels of global alignment (Needleman & Wunsch 1970; affine gaps after Gotoh 1982).

Used by the inter-group distance ordering of Aggarwal & Yu (DMKD 2008, Eq. 6). Sequences are symbol-code
arrays; the score matrices are indexed by those codes. Unit costs: Myers/Hyyrö bit-parallel
(:func:`unit_distance_bits`). Substitution matrix with affine gaps (gap of ``g`` residues costs
``open + g * extend``, BLAST's convention): :func:`affine_block_scores`, 64 sequences per SIMD pass
(:func:`affine_lanes`); :func:`nw_affine_score` is the scalar reference.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit

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
    """Global alignment score with a substitution ``matrix`` and affine gaps, Gotoh's recursion (1982) in
    linear memory.

    Gap convention of BLAST and of the BLOSUM62 11/1 tables users compare with: a gap of ``g`` residues
    costs ``gap_open + g * gap_extend`` (both given as positive penalties), so a one-residue gap costs
    12 under 11/1 (Biopython's ``PairwiseAligner`` with ``open_gap_score = -(open + extend)``,
    ``extend_gap_score = -extend``). End gaps cost the same as inner gaps; a gap in one sequence may follow
    a gap in the other directly. The reference for :func:`affine_block_scores`."""
    n = a.shape[0]
    m = b.shape[0]
    neg = -1e18
    first = gap_open + gap_extend  # the first residue of a gap
    M = np.empty(m + 1)  # ends in a match/mismatch
    X = np.empty(m + 1)  # ends in a gap in b (a consumed)
    Y = np.empty(m + 1)  # ends in a gap in a (b consumed)
    M[0] = 0.0
    X[0] = neg
    Y[0] = neg
    for j in range(1, m + 1):
        M[j] = neg
        X[j] = neg
        Y[j] = -gap_open - j * gap_extend
    for i in range(1, n + 1):
        dM = M[0]
        dX = X[0]
        dY = Y[0]
        M[0] = neg
        Y[0] = neg
        X[0] = -gap_open - i * gap_extend
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
            newX = upM - first
            x = upX - gap_extend
            if x > newX:
                newX = x
            x = upY - first
            if x > newX:
                newX = x
            # gap in a: from (i, j-1)
            newY = M[j - 1] - first
            x = Y[j - 1] - gap_extend
            if x > newY:
                newY = x
            x = X[j - 1] - first
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


#: sequences aligned at once by :func:`affine_lanes` (one SIMD lane each; 64 float32 = four AVX-512 vectors)
AFFINE_LANES = 64
_NEG32 = np.float32(-1e30)
#: float32 holds every integer below 2**24 exactly: scores (and penalties) stay below this bound
_EXACT32 = 2.0**24


@njit(cache=True, nogil=True)
def affine_lanes(a, prof, lens, gap_open, gap_extend, out):
    """Scores of ``a`` against :data:`AFFINE_LANES` sequences at once (inter-sequence SIMD, as in
    Rognes' SWIPE (2011) and parasail's batch mode), with the recursion and gap convention of
    :func:`nw_affine_score` in Gotoh's ``H/E/F`` form (``H`` the best score ending at a cell, ``E``/``F``
    ending in a gap; a gap opens from ``H``, which includes the other gap state).

    ``prof[c, j, l] = matrix[c, b_l[j]]`` (float32, padded columns anything); ``lens[l]`` the length of
    ``b_l`` (padding lanes: 0). The innermost loop runs over the lanes with no dependency between them, so
    LLVM vectorises it. Exact when every value is an integer below 2**24 in magnitude (the caller checks)."""
    n_sym, m_max, L = prof.shape
    first = gap_open + gap_extend
    H = np.empty((m_max + 1, AFFINE_LANES), np.float32)
    F = np.empty((m_max + 1, AFFINE_LANES), np.float32)
    diag = np.empty(AFFINE_LANES, np.float32)
    E = np.empty(AFFINE_LANES, np.float32)
    for l in range(AFFINE_LANES):
        H[0, l] = 0
    for j in range(1, m_max + 1):
        for l in range(AFFINE_LANES):
            H[j, l] = -(gap_open + np.float32(j) * gap_extend)
            F[j, l] = _NEG32
    for i in range(1, a.shape[0] + 1):
        pc = prof[a[i - 1]]
        for l in range(AFFINE_LANES):
            diag[l] = H[0, l]
            H[0, l] = -(gap_open + np.float32(i) * gap_extend)
            E[l] = _NEG32
        for j in range(1, m_max + 1):
            for l in range(AFFINE_LANES):
                f = max(H[j, l] - first, F[j, l] - gap_extend)
                e = max(H[j - 1, l] - first, E[l] - gap_extend)
                h = max(diag[l] + pc[j - 1, l], max(e, f))
                diag[l] = H[j, l]
                H[j, l] = h
                F[j, l] = f
                E[l] = e
    for l in range(AFFINE_LANES):
        out[l] = H[lens[l], l]


@njit(cache=True, nogil=True)
def _exact_in_float32(matrix, gap_open, gap_extend, longest):
    bound = gap_open + gap_extend
    for x in matrix.ravel():
        if x != np.floor(x):
            return False
        if abs(x) > bound:
            bound = abs(x)
    if gap_open != np.floor(gap_open) or gap_extend != np.floor(gap_extend):
        return False
    return 2.0 * (longest + 1) * bound < _EXACT32


@njit(cache=True, nogil=True)
def affine_block_scores(codes_a, off_a, idx_a, codes_b, off_b, idx_b, matrix, gap_open, gap_extend):
    """``S[u, v]`` = :func:`nw_affine_score` of sequence ``idx_a[u]`` of set A and ``idx_b[v]`` of set B.

    The larger of the two index lists goes on SIMD lanes (:func:`affine_lanes`), sorted by length so a
    batch pads little; the score matrix is symmetric in its two sequences when ``matrix`` is. Integer
    scores are computed exactly in float32; other inputs (or a non-symmetric matrix with A smaller) by the
    scalar kernel."""
    n_a = idx_a.shape[0]
    n_b = idx_b.shape[0]
    out = np.empty((n_a, n_b))
    longest = 0
    for u in range(n_a):
        longest = max(longest, off_a[idx_a[u] + 1] - off_a[idx_a[u]])
    for v in range(n_b):
        longest = max(longest, off_b[idx_b[v] + 1] - off_b[idx_b[v]])
    symmetric = True
    for x in range(matrix.shape[0]):
        for y in range(x):
            if matrix[x, y] != matrix[y, x]:
                symmetric = False
    lanes_on_b = n_b >= n_a or not symmetric
    n_q = n_a if lanes_on_b else n_b
    n_l = n_b if lanes_on_b else n_a
    if n_l < AFFINE_LANES // 8 or not _exact_in_float32(matrix, gap_open, gap_extend, longest):
        for u in range(n_a):
            a = codes_a[off_a[idx_a[u]] : off_a[idx_a[u] + 1]]
            for v in range(n_b):
                out[u, v] = nw_affine_score(a, codes_b[off_b[idx_b[v]] : off_b[idx_b[v] + 1]], matrix, gap_open,
                                            gap_extend)
        return out
    lane_len = np.empty(n_l, np.int64)
    for t in range(n_l):
        s = idx_b[t] if lanes_on_b else idx_a[t]
        lane_len[t] = (off_b[s + 1] - off_b[s]) if lanes_on_b else (off_a[s + 1] - off_a[s])
    order = np.argsort(lane_len, kind="mergesort")
    n_sym = matrix.shape[0]
    m32 = matrix.astype(np.float32)
    ga = np.float32(gap_open)
    ge = np.float32(gap_extend)
    scores = np.empty(AFFINE_LANES, np.float32)
    lens = np.zeros(AFFINE_LANES, np.int64)
    for start in range(0, n_l, AFFINE_LANES):
        stop = min(start + AFFINE_LANES, n_l)
        m_max = lane_len[order[stop - 1]]
        prof = np.zeros((n_sym, max(m_max, 1), AFFINE_LANES), np.float32)
        lens[:] = 0
        for l in range(stop - start):
            t = order[start + l]
            lens[l] = lane_len[t]
            s = idx_b[t] if lanes_on_b else idx_a[t]
            seq = codes_b[off_b[s] : off_b[s + 1]] if lanes_on_b else codes_a[off_a[s] : off_a[s + 1]]
            for j in range(seq.shape[0]):
                for c in range(n_sym):
                    prof[c, j, l] = m32[c, seq[j]]
        for q in range(n_q):
            sq = idx_a[q] if lanes_on_b else idx_b[q]
            qa = codes_a[off_a[sq] : off_a[sq + 1]] if lanes_on_b else codes_b[off_b[sq] : off_b[sq + 1]]
            affine_lanes(qa, prof, lens, ga, ge, scores)
            for l in range(stop - start):
                t = order[start + l]
                if lanes_on_b:
                    out[q, t] = scores[l]
                else:
                    out[t, q] = scores[l]
    return out


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
    ``unit``: NW unit-cost distance; otherwise the affine score (:func:`affine_block_scores`) turned into a
    distance ``(S(a,a) + S(b,b)) / 2 - S(a,b)``."""
    if not unit:
        out = affine_block_scores(codes_a, off_a, idx_a, codes_b, off_b, idx_b, matrix, gap_open, gap_extend)
        for u in range(idx_a.shape[0]):
            for v in range(idx_b.shape[0]):
                out[u, v] = 0.5 * (self_a[idx_a[u]] + self_b[idx_b[v]]) - out[u, v]
        return out
    out = np.empty((idx_a.shape[0], idx_b.shape[0]))
    n_sym = 1
    for p in range(codes_a.shape[0]):
        if codes_a[p] + 1 > n_sym:
            n_sym = codes_a[p] + 1
    for u in range(idx_a.shape[0]):
        sa = idx_a[u]
        a = codes_a[off_a[sa] : off_a[sa + 1]]
        peq = pattern_bits(a, n_sym)
        for v in range(idx_b.shape[0]):
            sb = idx_b[v]
            out[u, v] = unit_distance_bits(peq, a.shape[0], codes_b[off_b[sb] : off_b[sb + 1]])
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
