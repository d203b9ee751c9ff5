"""Near-copies: windows of a query string that lie within a few edits of a substring of some text.

A *window* is ``L`` consecutive symbols of a query string; it is *held* by a text when some substring of that text
is within ``e`` edits of it (unit-cost substitutions, insertions and deletions: the text side is free to start
and end anywhere, the window is aligned whole). For every window of every query string the kernels count the
distinct texts holding it, stopping at ``k`` (a window held by ``k`` texts names none of them).

Seed and extend, exact for every window:

- *Seeds.* Each query string is cut into fixed tiles of ``q`` symbols (positions 0, q, 2q, …). A window holds
  at least ``⌊(L + 1)/q⌋ - 1`` whole tiles and each edit spoils at most one of them, so a window within ``e``
  edits of a text substring shares at least ``h = ⌊(L + 1)/q⌋ - 1 - e`` whole tiles with it exactly, on
  diagonals (text position minus query position) no more than ``e`` apart — the pigeonhole argument of
  partitioned exact search (Baeza-Yates & Navarro 1999; Myers 1994's "q-gram partition"). ``q`` is chosen as
  large as keeps ``h ≥ 2`` (``h ≥ 1`` if that is impossible): with ``h ≥ 2`` a window is only looked at when two
  tile hits of one text lie within ``e`` diagonals and one window of each other (BLAST's two-hit rule,
  Altschul et al. 1997, made exact by the bound). The texts' ``q``-grams are in an index sorted by gram
  (:func:`gram_postings`).
- *Extension.* Each window a seed pair points at is aligned against the text around the pair's diagonals
  (``e`` symbols of slack each side) with Myers' bit-vector algorithm for approximate string matching (Myers,
  J. ACM 46(3), 1999; Hyyrö's formulation, 2001): the window is one 64-bit word, the text is scanned once, and
  the smallest edit distance of the window to any substring ending at each text position falls out.

Symbols are ranks ``0..n-1`` of the symbols the texts hold; ``-1`` marks a query symbol no text holds (it
never matches). Query strings run on both cores.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit, prange
from anonstudio.core.kernels import parallel_runtime

parallel_runtime()  # before any kernel of this module is loaded (see parallel_runtime)

#: directory size from which grams are found by binary search instead of a direct table
DIRECT_MAX = 1 << 22
#: consecutive windows whose grams are counted together (on the diagonals of all of them)
BLOCK = 32


def count_filter(window: int, edits: int, q: int, match: float) -> tuple[int, int]:
    """``(qc, need)`` of the count filter: a window of ``window`` symbols within ``edits`` edits of a stretch shares
    at least ``need = window + 1 - qc·(edits + 1)`` of its grams of ``qc`` symbols with it (the q-gram lemma).
    ``qc ≤ q`` is chosen to leave the most margin over what chance gives: ``match`` is the chance that two
    symbols drawn from the texts are equal (Σ p², about 0.06 for proteins, 0.25 for DNA), and a gram is
    looked for on about ``2·edits + 1`` diagonals. ``need ≤ 0``: no filter."""
    best = (1, window - edits)
    best_margin = -1.0
    for qc in range(1, max(q, 1) + 1):
        need = window + 1 - qc * (edits + 1)
        if need <= 0:
            break
        chance = (window - qc + 1) * min(1.0, (2 * edits + 1) * match ** qc)
        margin = need - 2.0 * chance
        if margin > best_margin:
            best, best_margin = (qc, need), margin
    return best


def seed_length(window: int, edits: int) -> tuple[int, int]:
    """``(q, h)``: the tile length ``q`` and the number ``h`` of exact tiles every window of ``window`` symbols
    within ``edits`` edits of a text substring shares with it — the largest ``q`` with ``h ≥ 2``, or with
    ``h ≥ 1`` when no ``q`` gives two."""
    best = (1, window - edits)
    for want in (2, 1):
        for q in range(window, 0, -1):
            h = (window + 1) // q - 1 - edits
            if h >= want:
                return q, h
    return best


@njit(cache=True, nogil=True)
def gram_postings(text, starts, ends, n, q, direct):
    """The index of the ``q``-grams of the texts ``text[starts[d]:ends[d]]`` (ranks ``0..n-1``).

    Returns ``(keys, ptr, post)``: ``post`` holds every text position whose ``q`` next symbols lie inside its
    text, ordered by gram (packed base ``n``, first symbol highest); the positions of gram ``g`` are
    ``post[ptr[i]:ptr[i + 1]]`` with ``i = g`` when ``direct`` (``ptr`` has ``n**q + 1`` entries, ``keys`` is
    empty) or ``keys[i] = g`` otherwise (``keys`` sorted)."""
    total = 0
    for d in range(starts.shape[0]):
        if ends[d] - starts[d] >= q:
            total += ends[d] - starts[d] - q + 1
    codes = np.empty(total, np.int64)
    where = np.empty(total, np.int32)
    size = np.int64(n) ** q
    o = 0
    for d in range(starts.shape[0]):
        lo = starts[d]
        hi = ends[d]
        if hi - lo < q:
            continue
        g = np.int64(0)
        for i in range(lo, lo + q - 1):
            g = g * n + text[i]
        for i in range(lo, hi - q + 1):
            g = (g * n + text[i + q - 1]) % size
            codes[o] = g
            where[o] = i
            o += 1
    if direct:
        ptr = np.zeros(size + 1, np.int64)
        for i in range(total):
            ptr[codes[i] + 1] += 1
        for i in range(size):
            ptr[i + 1] += ptr[i]
        fill = ptr[:-1].copy()
        post = np.empty(total, np.int32)
        for i in range(total):
            c = codes[i]
            post[fill[c]] = where[i]
            fill[c] += 1
        return np.zeros(0, np.int64), ptr, post
    order = np.argsort(codes, kind="mergesort")
    post = where[order]
    sorted_codes = codes[order]
    n_keys = 0
    for i in range(total):
        if i == 0 or sorted_codes[i] != sorted_codes[i - 1]:
            n_keys += 1
    keys = np.empty(n_keys, np.int64)
    ptr = np.empty(n_keys + 1, np.int64)
    j = 0
    for i in range(total):
        if i == 0 or sorted_codes[i] != sorted_codes[i - 1]:
            keys[j] = sorted_codes[i]
            ptr[j] = i
            j += 1
    ptr[n_keys] = total
    return keys, ptr, post


@njit(cache=True, nogil=True, inline="always")
def _postings(keys, ptr, g):
    """``(lo, hi)``: where gram ``g``'s positions are in the posting list."""
    if keys.shape[0] == 0:
        return ptr[g], ptr[g + 1]
    a = 0
    z = keys.shape[0]
    while a < z:
        mid = (a + z) >> 1
        if keys[mid] < g:
            a = mid + 1
        else:
            z = mid
    if a < keys.shape[0] and keys[a] == g:
        return ptr[a], ptr[a + 1]
    return 0, 0


@njit(cache=True, nogil=True)
def window_distance(peq, length, text, lo, hi):
    """The smallest edit distance between a pattern of ``length`` ≤ 64 symbols (``peq[c]``: bit ``i`` set where
    the pattern holds symbol ``c``) and any substring of ``text[lo:hi]`` — Myers' bit-vector algorithm, one word
    per text symbol (Myers 1999; Hyyrö 2001). Text symbols ``< 0`` match nothing."""
    one = np.uint64(1)
    top = one << np.uint64(length - 1)
    pv = ~np.uint64(0)
    mv = np.uint64(0)
    score = length
    best = length
    for j in range(lo, hi):
        c = text[j]
        eq = peq[c] if c >= 0 else np.uint64(0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | ~(xh | pv)
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
            if score < best:
                best = score
        ph <<= one
        mh <<= one
        pv = mh | ~(xv | ph)
        mv = ph & xv
    return best


@njit(cache=True, nogil=True, inline="always")
def _tile_gram(query, lo, t, q, n):
    """Tile ``query[lo + t : lo + t + q]`` packed base ``n``; -1 when it holds a symbol no text holds."""
    g = np.int64(0)
    for i in range(q):
        c = query[lo + t + i]
        if c < 0:
            return np.int64(-1)
        g = g * n + c
    return g


@njit(cache=True, nogil=True)
def _scan_query(keys, ptr, post, text, doc_of, starts, ends, query, lo, hi, n, q, pairs, window, edits, k,
                qc, need, out, qi):
    m = hi - lo
    out[qi, 0] = -1  # first failing window
    out[qi, 1] = 0  # its holders
    out[qi, 2] = -1  # a text holding it (the nearest)
    out[qi, 3] = window + 1  # that text's distance
    out[qi, 4] = 0  # failing windows
    out[qi, 5] = window + 1  # smallest distance seen to any holder of any window
    out[qi, 6] = -1  # the text of that distance
    out[qi, 7] = -1  # the window of that distance
    out[qi, 8] = 0  # tile hits
    out[qi, 9] = 0  # windows aligned
    if m < window:
        return
    n_windows = m - window + 1
    # 1. tile hits: (text, diagonal, tile start)
    n_hits = 0
    for t in range(0, m - q + 1, q):
        g = _tile_gram(query, lo, t, q, n)
        if g >= 0:
            a, z = _postings(keys, ptr, g)
            n_hits += z - a
    out[qi, 8] = n_hits
    if n_hits == 0:
        return
    doc_h = np.empty(n_hits, np.int32)
    diag_h = np.empty(n_hits, np.int64)
    tile_h = np.empty(n_hits, np.int64)
    sort_key = np.empty(n_hits, np.int64)
    o = 0
    for t in range(0, m - q + 1, q):
        g = _tile_gram(query, lo, t, q, n)
        if g < 0:
            continue
        a, z = _postings(keys, ptr, g)
        for u in range(a, z):
            p = post[u]
            d = doc_of[p]
            doc_h[o] = d
            diag_h[o] = (p - starts[d]) - t
            tile_h[o] = t
            sort_key[o] = np.int64(d) * (np.int64(1) << 40) + diag_h[o] + m
            o += 1
    order = np.argsort(sort_key)
    holders = np.zeros(n_windows, np.int32)
    near = np.full(n_windows, window + 1, np.int32)
    near_doc = np.full(n_windows, -1, np.int32)
    band_lo = np.zeros(n_windows, np.int64)
    band_hi = np.zeros(n_windows, np.int64)
    marked = np.zeros(n_windows, np.bool_)
    todo = np.empty(n_windows, np.int64)
    grams = np.zeros(m + 1, np.int32)  # prefix sums of the count filter's matching grams
    found = np.zeros(m, np.bool_)
    peq = np.zeros(n, np.uint64)
    one = np.uint64(1)
    # texts in order of their hits, most first: a window held by k texts stops being aligned once it is, and
    # the texts it is nearest to hold the most of its tiles
    n_groups = 0
    for a in range(n_hits):
        if a == 0 or doc_h[order[a]] != doc_h[order[a - 1]]:
            n_groups += 1
    group_start = np.empty(n_groups + 1, np.int64)
    g = 0
    for a in range(n_hits):
        if a == 0 or doc_h[order[a]] != doc_h[order[a - 1]]:
            group_start[g] = a
            g += 1
    group_start[n_groups] = n_hits
    group_size = np.empty(n_groups, np.int64)
    for g in range(n_groups):
        group_size[g] = -(group_start[g + 1] - group_start[g])
    group_order = np.argsort(group_size, kind="mergesort")
    for gi in range(n_groups):
        i = group_start[group_order[gi]]
        j = group_start[group_order[gi] + 1]
        doc = doc_h[order[i]]
        # 2. the windows of this text that seeds point at: a hit with a partner (another tile, within `edits`
        # diagonals and one window) marks the windows holding both, to be aligned around their diagonals
        n_todo = 0
        for a in range(i, j):
            ha = order[a]
            ta = tile_h[ha]
            da = diag_h[ha]
            x0 = n_windows
            x1 = -1
            d_lo = da
            d_hi = da
            if not pairs:
                x0 = max(0, ta + q - window)
                x1 = min(ta, n_windows - 1)
            else:
                for step in (-1, 1):
                    b = a + step
                    while i <= b < j and abs(diag_h[order[b]] - da) <= edits:
                        hb = order[b]
                        tb = tile_h[hb]
                        if tb != ta and abs(tb - ta) <= window - q:
                            x0 = min(x0, max(0, max(ta, tb) + q - window))
                            x1 = max(x1, min(ta, tb, n_windows - 1))
                            d_lo = min(d_lo, diag_h[hb])
                            d_hi = max(d_hi, diag_h[hb])
                        b += step
            for x in range(x0, x1 + 1):
                if holders[x] >= k:
                    continue
                if not marked[x]:
                    marked[x] = True
                    band_lo[x] = d_lo
                    band_hi[x] = d_hi
                    todo[n_todo] = x
                    n_todo += 1
                else:
                    band_lo[x] = min(band_lo[x], d_lo)
                    band_hi[x] = max(band_hi[x], d_hi)
        if n_todo == 0:
            i = j
            continue
        s_lo = starts[doc]
        s_len = ends[doc] - s_lo
        x_first = n_windows
        x_last = -1
        for u in range(n_todo):
            x_first = min(x_first, todo[u])
            x_last = max(x_last, todo[u])
        # marked windows in order, a block of at most BLOCK windows at a time: the diagonals of a block stay
        # close together even where the text's diagonal drifts along the string
        x = x_first
        while x <= x_last:
            if not marked[x]:
                x += 1
                continue
            b0 = x
            b1 = x
            dd0 = band_lo[x]
            dd1 = band_hi[x]
            y = x
            while y <= x_last and y < b0 + BLOCK:
                if marked[y]:
                    b1 = y
                    dd0 = min(dd0, band_lo[y])
                    dd1 = max(dd1, band_hi[y])
                y += 1
            # 3. count filter (the q-gram lemma, Jokinen & Ukkonen 1991): a window within `edits` edits of a
            # stretch shares at least `need` of its grams of `qc` symbols with it, each on a diagonal of the
            # window's band widened by `edits`
            if need > 0:
                r0 = b0
                r1 = b1 + window
                for d in range(dd0 - edits, dd1 + edits + 1):
                    run = 0
                    p0 = max(r0, -d)
                    p1 = min(r1, s_len - d)
                    for pos in range(p0, p1):
                        c = query[lo + pos]
                        if c >= 0 and c == text[s_lo + pos + d]:
                            run += 1
                            if run >= qc:
                                found[pos - qc + 1] = True
                        else:
                            run = 0
                grams[r0] = 0
                for pos in range(r0, r1):
                    grams[pos + 1] = grams[pos] + (1 if found[pos] else 0)
                    found[pos] = False
            # 4. align the windows that pass, each against the text its block's diagonals point at (widened by
            # `edits`: every alignment of a marked window within `edits` edits lies there). Two neighbouring
            # windows differ by one symbol dropped and one added, so their distances to the text differ by at
            # most 1 (to any stretch) and at most 2 (to the block's stretches): a window at distance D ≤ edits
            # makes the next edits - D held, one at D > edits the next (D - edits - 1) // 2 not held
            skip_held = -1
            skip_free = -1
            held_at = 0
            held_dist = 0
            for x2 in range(b0, b1 + 1):
                if not marked[x2]:
                    continue
                marked[x2] = False
                if x2 <= skip_held:
                    holders[x2] += 1
                    bound = held_dist + x2 - held_at  # at most this far from the text (exact: see scan)
                    if bound < near[x2]:
                        near[x2] = bound
                        near_doc[x2] = doc
                    continue
                if x2 <= skip_free:
                    continue
                if need > 0 and grams[x2 + window - qc + 1] - grams[x2] < need:
                    continue
                for r in range(window):
                    c = query[lo + x2 + r]
                    if c >= 0:
                        peq[c] |= one << np.uint64(r)
                a_lo = max(0, x2 + dd0 - edits)
                a_hi = min(s_len, x2 + window + dd1 + edits)
                dist = window_distance(peq, window, text, s_lo + a_lo, s_lo + a_hi) if a_hi > a_lo else window
                out[qi, 9] += 1
                for r in range(window):
                    c = query[lo + x2 + r]
                    if c >= 0:
                        peq[c] = 0
                if dist <= edits:
                    holders[x2] += 1
                    if dist < near[x2]:
                        near[x2] = dist
                        near_doc[x2] = doc
                    skip_held = x2 + edits - dist
                    held_at = x2
                    held_dist = dist
                else:
                    skip_free = x2 + (dist - edits - 1) // 2
            x = b1 + 1
        i = j
    for x in range(n_windows):
        if holders[x] > 0 and near[x] < out[qi, 5]:
            out[qi, 5] = near[x]
            out[qi, 6] = near_doc[x]
            out[qi, 7] = x
        if 0 < holders[x] < k:
            if out[qi, 0] < 0:
                out[qi, 0] = x
                out[qi, 1] = holders[x]
                out[qi, 2] = near_doc[x]
                out[qi, 3] = near[x]
            out[qi, 4] += 1


@njit(cache=True, nogil=True, parallel=True)
def near_copies(keys, ptr, post, text, doc_of, starts, ends, query, offsets, n, q, pairs, window, edits, k, qc, need):
    """``int64[nq, 10]``: per query string ``query[offsets[i]:offsets[i + 1]]`` (ranks, ``-1``: a symbol no text
    holds), its windows of ``window`` symbols held by texts within ``edits`` edits, counted up to ``k``
    distinct texts per window:

    0. the first window held by 1..k-1 texts (start, 0-based; -1: none), 1. how many texts hold it,
    2. the nearest of them, 3. its edit distance, 4. how many windows are held by 1..k-1 texts,
    5. the smallest distance of any window to a text holding it (``window + 1``: no window is held),
    6. that text, 7. that window, 8. tile hits looked at, 9. windows aligned.

    ``keys, ptr, post`` is the texts' :func:`gram_postings` with gram length ``q``; ``doc_of[p]`` the text of
    position ``p`` of ``text`` (texts ``text[starts[d]:ends[d]]``); ``pairs``: look only where two tile hits
    agree (sound when :func:`seed_length` gives ``h ≥ 2``). ``qc``, ``need``: a window is aligned only when at
    least ``need`` of its grams of ``qc`` symbols occur in the text on the diagonals its seeds point at
    (``need ≤ 0``: every window the seeds point at; :func:`count_filter`)."""
    nq = offsets.shape[0] - 1
    out = np.empty((nq, 10), np.int64)
    for qi in prange(nq):
        _scan_query(keys, ptr, post, text, doc_of, starts, ends, query, offsets[qi], offsets[qi + 1], n, q, pairs,
                    window, edits, k, qc, need, out, qi)
    return out
