"""Near-copies: windows of a query string that lie within a few edits of a stretch of some text.

A *window* is ``L`` consecutive symbols of a query string; a text *holds* it when some stretch of that text is
within ``e`` edits of it (unit-cost substitutions, insertions and deletions; the text side may start and end
anywhere, the window is aligned whole). For every window of every query string the kernels count the distinct
texts holding it, stopping at ``k`` (a window held by ``k`` texts names none of them). The search is exact:

- *Seeds.* Each query string is cut into fixed tiles of ``q`` symbols (positions 0, q, 2q, …). A window holds
  at least ``⌊(L + 1)/q⌋ - 1`` whole tiles and each edit spoils at most one, so a window within ``e`` edits of a
  stretch shares at least ``h = ⌊(L + 1)/q⌋ - 1 - e`` whole tiles with it exactly, on diagonals (text position
  minus query position) at most ``e`` apart, since all of them lie on one alignment — the pigeonhole argument
  of partitioned exact search (Wu & Manber 1992; Baeza-Yates & Navarro 1999). ``q`` is the largest that keeps
  ``h ≥ 2`` (:func:`seed_length`), and a window is looked at only where ``h`` tile hits of one text agree within
  ``e`` diagonals and one window (BLAST's two-hit rule, Altschul et al. 1997, made exact by the bound). The
  texts' grams of ``q`` symbols are sorted with their places (:func:`gram_keys`); each text remembers its last
  :data:`RING` hits while a string is scanned, and a hit it must forget becomes a candidate on its own.
- *Filter.* At least ``L - e`` symbols of a window within ``e`` edits equal the text symbol they face on one of
  the seeds' diagonals; a window with fewer such *matchable* symbols is not aligned (one sliding pass a block).
- *Extension.* Each remaining window is aligned against the text its seeds' diagonals point at (``e`` symbols
  of slack each side) with Myers' bit-vector algorithm for approximate string matching (Myers, J. ACM 46(3),
  1999; Hyyrö's formulation, 2001): the window is one 64-bit word and the text is scanned once. Neighbouring
  windows differ by one symbol dropped and one added, so a window's distance bounds its neighbours' (at most
  1 apart to any stretch): a window at distance ``D ≤ e`` makes the next ``e − D`` held without aligning them,
  and one at ``D > e`` from the stretches at its block's offsets spares the next ``D − e − 1`` (as far apart to
  those). A window aligned against a stretch identical to one it was aligned against (near-identical inputs
  of a family share long stretches) takes the distance already found.

Symbols are ranks ``0..n-1`` of the symbols the texts hold; ``-1`` marks a query symbol no text holds (it never
matches). Query strings are spread over the cores.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit, prange
from anonstudio.core.kernels import parallel_runtime

parallel_runtime()  # before any kernel of this module is loaded (see parallel_runtime)

#: bits of a gram (from its first symbol) that index the directory of the sorted gram keys
DIRECTORY_BITS = 20
#: consecutive windows filtered and aligned together (on the diagonals of all of them)
BLOCK = 32
#: bits of the direct-mapped table of alignments already made for a string (window, stretch → distance)
MEMO_BITS = 14


def seed_length(window: int, edits: int, q_max: int = 12) -> tuple[int, int]:
    """``(q, h)`` for tiles laid end to end (stride ``q``): the largest ``q ≤ q_max`` whose ``h`` (see
    :func:`tiles_held`) is at least 2, or 1 when none gives two (``q = 1`` at worst)."""
    for want in (2, 1):
        for q in range(min(window, max(q_max, 1)), 0, -1):
            h = tiles_held(window, edits, q, q)
            if h >= want:
                return q, h
    return 1, window - edits


def tiles_held(window: int, edits: int, q: int, stride: int) -> int:
    """``h``: how many whole tiles (``q`` symbols, starting every ``stride``) a window of ``window`` symbols within
    ``edits`` edits of a stretch shares with it exactly. The window holds at least ``⌊(window − q + 1)/stride⌋``
    whole tiles, and an edit spoils the tiles over its symbol (or over the gap it is inserted in): at most
    ``⌈q/stride⌉``."""
    return (window - q + 1) // stride - edits * (-(-q // stride))


def seed_plan(window: int, edits: int, q_max: int, text_symbols: int, match: float) -> tuple[int, int, int]:
    """``(q, stride, h)``: the tiles expected to cost least, among those every near window shares ``h ≥ 2`` of
    (``h ≥ 1`` when none does). Per string position: ``1/stride`` look-ups with ``text_symbols · match**q``
    places each (``match``, Σp²: the chance that two text symbols are equal), and the chance runs of
    ``q + (h' − 1)·stride`` symbols (``h' = min(h, RING + 1)`` tiles agreeing by chance) that each make a
    candidate a stretch of windows must be filtered for. Measured on random DNA (4 letters, 250 kb and 1 Mb)
    and yeast: proteins take 6-grams end to end (``h = 3``), DNA 8-grams at every position (``h = 5``)."""
    best = None
    for q in range(1, max(q_max, 1) + 1):
        for stride in range(1, q + 1):
            h = tiles_held(window, edits, q, stride)
            if h < 2:
                continue
            places = text_symbols * float(match) ** q
            chance = text_symbols * float(match) ** (q + (min(h, RING + 1) - 1) * stride)
            cost = (1.0 + 0.3 * places) / stride + 20.0 * chance
            key = (cost, -h)
            if best is None or key < best[0]:
                best = (key, (q, stride, h))
    if best is None:
        q, h = seed_length(window, edits, q_max)
        return q, q, h
    return best[1]


def key_layout(n: int, total: int) -> tuple[int, int, int]:
    """``(bits, pos_bits, q_max)`` of :func:`gram_keys` for texts of ``total`` symbols over ``n`` symbols: bits a
    symbol, bits a position, and the longest gram that fits beside a position in 63 bits."""
    bits = max(1, int(n - 1).bit_length())
    pos_bits = max(1, int(total).bit_length())
    return bits, pos_bits, max(1, (63 - pos_bits) // bits)


@njit(cache=True, nogil=True)
def gram_keys(text, starts, ends, q, bits, pos_bits):
    """``int64``: for every place of the texts ``text[starts[d]:ends[d]]`` (ranks) whose ``q`` next symbols lie
    inside its text, those symbols packed ``bits`` bits each (first highest) above the place's position in
    ``text`` (``pos_bits`` bits): sorted, the places of each gram are one run, in text order."""
    total = 0
    for d in range(starts.shape[0]):
        if ends[d] - starts[d] >= q:
            total += ends[d] - starts[d] - q + 1
    out = np.empty(total, np.int64)
    mask = (np.int64(1) << (bits * q)) - 1
    o = 0
    for d in range(starts.shape[0]):
        lo = starts[d]
        hi = ends[d]
        if hi - lo < q:
            continue
        g = np.int64(0)
        for i in range(lo, lo + q - 1):
            g = (g << bits) | text[i]
        for i in range(lo, hi - q + 1):
            g = ((g << bits) | text[i + q - 1]) & mask
            out[o] = (g << pos_bits) | i
            o += 1
    return out


@njit(cache=True, nogil=True, inline="always")
def _postings(keys, directory, dir_shift, pos_bits, g):
    """``(lo, hi)``: the run of ``keys`` (sorted :func:`gram_keys`) holding gram ``g``; ``directory`` (from
    :func:`~anonstudio.core.kernels._substring.window_directory` with ``dir_shift``) narrows the search to a
    block, a binary search finds the run's start and a walk its end (runs are short: most grams a few places)."""
    b = (g << pos_bits) >> dir_shift
    first = g << pos_bits
    last = (g + 1) << pos_bits
    lo = directory[b]
    hi = directory[b + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < first:
            lo = mid + 1
        else:
            hi = mid
    end = lo
    n = keys.shape[0]
    while end < n and keys[end] < last:
        end += 1
    return lo, end


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
def _tile_gram(query, lo, t, q, bits):
    """Tile ``query[lo + t : lo + t + q]`` packed ``bits`` bits a symbol; -1 when it holds a symbol no text
    holds."""
    g = np.int64(0)
    for i in range(q):
        c = query[lo + t + i]
        if c < 0:
            return np.int64(-1)
        g = (g << bits) | c
    return g


#: earlier hits remembered per text (more are kept as candidates of their own)
RING = 8


@njit(cache=True, nogil=True, inline="always")
def _add_candidate(cand, n_cand, open_c, doc, x0, x1, d_lo, d_hi, edits):
    """Record candidate windows ``x0..x1`` of text ``doc`` on diagonals ``d_lo..d_hi``, merged into the text's
    last candidate when their windows touch and the merged diagonals stay within ``2·edits``; returns the new
    count (-1: ``cand`` is full)."""
    c = open_c[doc]
    if c >= 0 and cand[c, 2] + 1 >= x0 and cand[c, 1] <= x1 + 1 and \
            max(cand[c, 4], d_hi) - min(cand[c, 3], d_lo) <= 2 * edits:
        cand[c, 1] = min(cand[c, 1], x0)
        cand[c, 2] = max(cand[c, 2], x1)
        cand[c, 3] = min(cand[c, 3], d_lo)
        cand[c, 4] = max(cand[c, 4], d_hi)
        return n_cand
    if n_cand >= cand.shape[0]:
        return -1
    cand[n_cand, 0] = doc
    cand[n_cand, 1] = x0
    cand[n_cand, 2] = x1
    cand[n_cand, 3] = d_lo
    cand[n_cand, 4] = d_hi
    open_c[doc] = n_cand
    return n_cand + 1


@njit(cache=True, nogil=True)
def _seed_candidates(keys, directory, dir_shift, pos_bits, doc_of, starts, query, lo, m, bits, q, stride, tiles, window, edits, n_windows, qi,
                     stamp, ring_t, ring_d, ring_n, open_c, cand):
    """Windows the tile hits point at, as candidates ``cand[c] = (text, first window, last window, lowest
    diagonal, highest diagonal)``; returns ``(candidates, hits)`` (candidates -1: ``cand`` is full).

    With ``tiles`` ≥ 2, a hit makes a candidate only with hits of ``tiles - 1`` earlier tiles of the same text
    within ``edits`` diagonals and one window (at most :data:`RING`): each text remembers its last :data:`RING` hits (``ring_t``/``ring_d``, valid for
    this string while ``stamp[text] == qi``); a hit pushed out while a later tile could still pair with it
    becomes a candidate on its own (every window holding its tile, on its diagonal), so no pair is lost."""
    reach = window - q  # the farthest two tiles of one window
    pos_mask = (np.int64(1) << pos_bits) - 1
    part = np.empty(RING, np.int64)
    n_cand = 0
    n_hits = 0
    for t in range(0, m - q + 1, stride):
        g = _tile_gram(query, lo, t, q, bits)
        if g < 0:
            continue
        a, z = _postings(keys, directory, dir_shift, pos_bits, g)
        n_hits += z - a
        x0 = max(0, t + q - window)
        for u in range(a, z):
            gp = keys[u] & pos_mask
            doc = doc_of[gp]
            d = gp - starts[doc] - t
            if stamp[doc] != qi:
                stamp[doc] = qi
                ring_n[doc] = 0
                open_c[doc] = -1
            if tiles <= 1:
                n_cand = _add_candidate(cand, n_cand, open_c, doc, x0, min(t, n_windows - 1), d, d, edits)
                if n_cand < 0:
                    return -1, n_hits
                continue
            # the earlier tiles of this text within `edits` diagonals and one window, latest first
            n_part = 0
            d_lo = d
            d_hi = d
            for r in range(ring_n[doc]):
                te = ring_t[doc, r]
                de = ring_d[doc, r]
                if te < t and t - te <= reach and abs(de - d) <= edits:
                    d_lo = min(d_lo, de)
                    d_hi = max(d_hi, de)
                    seen = False
                    for v in range(n_part):
                        seen = seen or part[v] == te
                    if not seen:
                        part[n_part] = te
                        n_part += 1
            if n_part >= tiles - 1:
                part[:n_part].sort()
                # a window holding this tile and `tiles - 1` earlier ones starts no later than the
                # (tiles - 1)-th latest of them
                n_cand = _add_candidate(cand, n_cand, open_c, doc, x0,
                                        min(part[n_part - (tiles - 1)], n_windows - 1), d_lo, d_hi, edits)
                if n_cand < 0:
                    return -1, n_hits
        if tiles <= 1:
            continue
        # then remember this tile's hits (after all of them looked: one must not push out another's partner)
        for u in range(a, z):
            gp = keys[u] & pos_mask
            doc = doc_of[gp]
            d = gp - starts[doc] - t
            k = ring_n[doc]
            kept = 0
            for r in range(k):  # drop hits no later tile can pair with
                if t + stride - ring_t[doc, r] <= reach:
                    ring_t[doc, kept] = ring_t[doc, r]
                    ring_d[doc, kept] = ring_d[doc, r]
                    kept += 1
            if kept == RING:  # full of live hits: the oldest becomes a candidate of its own
                te = ring_t[doc, 0]
                de = ring_d[doc, 0]
                n_cand = _add_candidate(cand, n_cand, open_c, doc, max(0, te + q - window),
                                        min(te, n_windows - 1), de, de, edits)
                if n_cand < 0:
                    return -1, n_hits
                for r in range(1, RING):
                    ring_t[doc, r - 1] = ring_t[doc, r]
                    ring_d[doc, r - 1] = ring_d[doc, r]
                kept -= 1
            ring_t[doc, kept] = t
            ring_d[doc, kept] = d
            ring_n[doc] = kept + 1
    return n_cand, n_hits


@njit(cache=True, nogil=True)
def _align_text(query, lo, text, s_lo, s_len, n_windows, window, edits, k, cand, c0, c1, doc,
                holders, near, near_doc, band_lo, band_hi, marked, grams, seen, peq, counters, qi, memo):
    """Align the windows candidates ``cand[c0:c1]`` (one text, ``doc``) point at, counting the text as a holder
    of each window within ``edits`` edits of one of its stretches (``memo``: the distances of string ``qi``'s
    windows to the stretches already aligned)."""
    one = np.uint64(1)
    memo_q, memo_x, memo_len, memo_start, memo_d = memo
    x_first = n_windows
    x_last = -1
    for c in range(c0, c1):
        for x in range(cand[c, 1], cand[c, 2] + 1):
            if holders[x] >= k:
                continue
            if not marked[x]:
                marked[x] = True
                band_lo[x] = cand[c, 3]
                band_hi[x] = cand[c, 4]
                x_first = min(x_first, x)
                x_last = max(x_last, x)
            else:
                band_lo[x] = min(band_lo[x], cand[c, 3])
                band_hi[x] = max(band_hi[x], cand[c, 4])
    # marked windows in order, a block of at most BLOCK windows at a time: the diagonals of a block stay close
    # together even where the text's diagonal drifts along the string
    x = x_first
    while x <= x_last:
        if not marked[x]:
            x += 1
            continue
        b0 = x
        b1 = x
        dd0 = band_lo[x]
        dd1 = band_hi[x]
        n_marked = 0
        y = x
        while y <= x_last and y < b0 + BLOCK:
            if marked[y]:
                b1 = y
                n_marked += 1
                dd0 = min(dd0, band_lo[y])
                dd1 = max(dd1, band_hi[y])
            y += 1
        # matchable filter: in an alignment within `edits` edits at least window - edits symbols of the window
        # equal the text symbol they face, on a diagonal of the block's band widened by `edits`; a symbol that no
        # text symbol of those diagonals equals is never one of them. The text symbols of a position's diagonals
        # slide along with it (a count per symbol), so a block costs one pass.
        counters[2] += n_marked
        r0 = b0
        r1 = b1 + window
        t_lo = r0 + dd0 - edits  # the text stretch position r0 faces
        t_hi = r0 + dd1 + edits
        for j in range(max(t_lo, 0), min(t_hi + 1, s_len)):
            seen[text[s_lo + j]] += 1
        grams[r0] = 0
        for pos in range(r0, r1):
            c = query[lo + pos]
            grams[pos + 1] = grams[pos] + (1 if c >= 0 and seen[c] > 0 else 0)
            if 0 <= t_lo < s_len:
                seen[text[s_lo + t_lo]] -= 1
            t_lo += 1
            t_hi += 1
            if 0 <= t_hi < s_len:
                seen[text[s_lo + t_hi]] += 1
        for j in range(max(t_lo, 0), min(t_hi + 1, s_len)):  # leave the counts at zero
            seen[text[s_lo + j]] -= 1
        # align the windows that pass, each against the text its block's diagonals point at (widened by `edits`:
        # every alignment of a marked window within `edits` edits lies there). Two neighbouring windows differ by
        # one symbol dropped and one added, so their distances differ by at most 1, to the whole text and to the
        # stretches at one offset from each window (the block's): dropping the first symbol with what it faces
        # costs nothing more, facing the added one with the next text symbol (or deleting it) at most 1. So a
        # window at distance D ≤ edits makes the next edits - D held, one at D > edits the next D - edits - 1
        # not held
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
                bound = held_dist + x2 - held_at  # at most this far (the caller measures the reported one)
                if bound < near[x2]:
                    near[x2] = bound
                    near_doc[x2] = doc
                continue
            if x2 <= skip_free:
                continue
            if grams[x2 + window] - grams[x2] < window - edits:
                counters[3] += 1
                continue
            a_lo = max(0, x2 + dd0 - edits)
            a_hi = min(s_len, x2 + window + dd1 + edits)
            # the same window against the same text (near-identical inputs of a family share long stretches)
            # gives the same distance: kept in a direct-mapped table, the text compared symbol by symbol
            span = a_hi - a_lo
            h = np.uint64(x2) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(span)
            for j in range(s_lo + a_lo, s_lo + a_hi):
                h = (h ^ np.uint64(text[j] + 1)) * np.uint64(0x100000001B3)
            slot = np.int64(h >> np.uint64(64 - MEMO_BITS))
            dist = -1
            if memo_q[slot] == qi and memo_x[slot] == x2 and memo_len[slot] == span:
                same = True
                o = memo_start[slot] - (s_lo + a_lo)
                for j in range(s_lo + a_lo, s_lo + a_hi):
                    if text[j] != text[j + o]:
                        same = False
                        break
                if same:
                    dist = memo_d[slot]
                    counters[0] += 1
            if dist < 0:
                for r in range(window):
                    c = query[lo + x2 + r]
                    if c >= 0:
                        peq[c] |= one << np.uint64(r)
                dist = window_distance(peq, window, text, s_lo + a_lo, s_lo + a_hi) if span > 0 else window
                counters[1] += 1
                for r in range(window):
                    c = query[lo + x2 + r]
                    if c >= 0:
                        peq[c] = 0
                memo_q[slot] = qi
                memo_x[slot] = x2
                memo_len[slot] = span
                memo_start[slot] = s_lo + a_lo
                memo_d[slot] = dist
            if dist <= edits:
                holders[x2] += 1
                if dist < near[x2]:
                    near[x2] = dist
                    near_doc[x2] = doc
                skip_held = x2 + edits - dist
                held_at = x2
                held_dist = dist
            else:
                skip_free = x2 + (dist - edits - 1)
        x = b1 + 1


@njit(cache=True, nogil=True)
def _scan_query(keys, directory, dir_shift, pos_bits, doc_of, text, starts, ends, query, lo, hi, n, bits, q, stride, tiles, window, edits, k,
                exact, out, qi, work):
    """One query string (see :func:`near_copies`); ``work`` = (per text: stamp, remembered tiles and diagonals,
    their number, last candidate; the candidates; per window: holders, distance, nearest text, diagonals,
    mark, matchable prefix sums) reused between the strings of a chunk, grown when a string needs more."""
    m = hi - lo
    out[qi, 0] = -1
    out[qi, 1] = 0
    out[qi, 2] = -1
    out[qi, 3] = window + 1
    out[qi, 4] = 0
    out[qi, 5] = window + 1
    out[qi, 6] = -1
    out[qi, 7] = -1
    out[qi, 8] = 0
    out[qi, 9] = 0
    out[qi, 10] = 0
    out[qi, 11] = 0
    out[qi, 12] = -1
    out[qi, 13] = -1
    if m < window:
        return work
    n_windows = m - window + 1
    stamp, ring_t, ring_d, ring_n, open_c, cand, holders, near, near_doc, band_lo, band_hi, marked, grams, memo = work
    while True:
        n_cand, n_hits = _seed_candidates(keys, directory, dir_shift, pos_bits, doc_of, starts, query, lo, m, bits,
                                          q, stride, tiles, window, edits,
                                          n_windows, qi, stamp, ring_t, ring_d, ring_n, open_c, cand)
        if n_cand >= 0:
            break
        cand = np.empty((2 * cand.shape[0], 5), np.int64)
        stamp[:] = -1
    out[qi, 8] = n_hits
    if holders.shape[0] < n_windows:  # the per-window arrays, grown for a longer string
        size = max(n_windows, 2 * holders.shape[0])
        holders = np.zeros(size, np.int32)
        near = np.empty(size, np.int32)
        near_doc = np.empty(size, np.int32)
        band_lo = np.empty(size, np.int64)
        band_hi = np.empty(size, np.int64)
        marked = np.zeros(size, np.bool_)  # left all False by every call of _align_text
        grams = np.empty(size + window + 1, np.int32)
    work = (stamp, ring_t, ring_d, ring_n, open_c, cand, holders, near, near_doc, band_lo, band_hi, marked, grams,
            memo)
    if n_cand == 0:
        return work
    # texts in order of their candidates, most first: a window held by k texts stops being aligned once it is,
    # and a string is usually nearest to the texts that hold the most of its tiles
    doc_key = np.empty(n_cand, np.int64)
    for c in range(n_cand):
        doc_key[c] = cand[c, 0]
    by_doc = np.argsort(doc_key, kind="mergesort")
    sorted_cand = np.empty((n_cand, 5), np.int64)
    for c in range(n_cand):
        sorted_cand[c] = cand[by_doc[c]]
    n_groups = 0
    for c in range(n_cand):
        if c == 0 or sorted_cand[c, 0] != sorted_cand[c - 1, 0]:
            n_groups += 1
    group_start = np.empty(n_groups + 1, np.int64)
    g = 0
    for c in range(n_cand):
        if c == 0 or sorted_cand[c, 0] != sorted_cand[c - 1, 0]:
            group_start[g] = c
            g += 1
    group_start[n_groups] = n_cand
    group_size = np.empty(n_groups, np.int64)
    for g in range(n_groups):
        group_size[g] = group_start[g] - group_start[g + 1]
    group_order = np.argsort(group_size, kind="mergesort")
    holders[:n_windows] = 0
    near[:n_windows] = window + 1
    near_doc[:n_windows] = -1
    seen = np.zeros(n, np.int32)
    peq = np.zeros(n, np.uint64)
    counters = np.zeros(4, np.int64)
    for gi in range(n_groups):
        c0 = group_start[group_order[gi]]
        c1 = group_start[group_order[gi] + 1]
        doc = sorted_cand[c0, 0]
        _align_text(query, lo, text, starts[doc], ends[doc] - starts[doc], n_windows, window, edits, k,
                    sorted_cand, c0, c1, doc, holders, near, near_doc, band_lo, band_hi, marked, grams, seen, peq,
                    counters, qi, memo)
    out[qi, 9] = counters[1]
    out[qi, 10] = counters[2]
    out[qi, 11] = counters[0]
    if exact:  # each failing window's distance to the text it was found near, over that whole text
        one = np.uint64(1)
        for x in range(n_windows):
            if 0 < holders[x] < k:
                for r in range(window):
                    c = query[lo + x + r]
                    if c >= 0:
                        peq[c] |= one << np.uint64(r)
                doc = near_doc[x]
                near[x] = window_distance(peq, window, text, starts[doc], ends[doc])
                for r in range(window):
                    c = query[lo + x + r]
                    if c >= 0:
                        peq[c] = 0
    for x in range(n_windows):
        if holders[x] > 0 and near[x] < out[qi, 5]:
            out[qi, 5] = near[x]
            out[qi, 6] = near_doc[x]
            out[qi, 7] = x
        if 0 < holders[x] < k:
            if out[qi, 0] < 0 or near[x] < out[qi, 3]:  # the nearest of the failing windows, first of equals
                out[qi, 0] = x
                out[qi, 1] = holders[x]
                out[qi, 2] = near_doc[x]
                out[qi, 3] = near[x]
            out[qi, 4] += 1
            out[qi, 12] = x
            if out[qi, 13] < 0:
                out[qi, 13] = x
    return work


@njit(cache=True, nogil=True, parallel=True)
def near_copies(keys, directory, dir_shift, pos_bits, doc_of, text, starts, ends, query, offsets, n, bits, q, stride, tiles, window, edits, k,
                exact, chunks):
    """``int64[nq, 14]``: per query string ``query[offsets[i]:offsets[i + 1]]`` (ranks, ``-1``: a symbol no text
    holds), its windows of ``window`` symbols held by texts within ``edits`` edits, counted up to ``k``
    distinct texts per window:

    0. the window held by 1..k-1 texts nearest to one of them (start, 0-based; the first of equals; -1: none),
    1. how many texts hold it,
    2. the nearest of them, 3. its edit distance (with ``exact``, over that whole text; else an upper bound),
    4. how many windows are held by 1..k-1 texts, 5. the smallest distance (an upper bound) of any window to a text holding it (``window + 1``: no
    window is held), 6. that text, 7. that window, 8. tile hits looked at, 9. windows aligned, 10. windows
    a seed pointed at (per text), 11. alignments found already made (the same window and stretch), 12. and 13. the last and the
    first window held by 1..k-1 texts (-1: none).

    ``keys`` are the texts' sorted :func:`gram_keys` (grams of ``q`` symbols, ``bits`` bits each, above
    ``pos_bits`` bits of position in ``text``) with their ``directory`` (``dir_shift``); ``doc_of[p]`` is the text
    of position ``p`` (texts ``text[starts[d]:ends[d]]``, ``n`` symbols); tiles of ``q`` symbols start every
    ``stride``; ``tiles``: look only where that many tiles of one window hit a text within ``edits`` diagonals
    (sound up to the ``h`` of :func:`tiles_held`; at most :data:`RING` + 1). ``exact``: measure each failing window's distance to the text it was found near over
    that whole text (the scan's own distances may be upper bounds). Query strings go ``chunks`` at a time to
    the cores, string ``i`` to chunk ``i % chunks`` (neighbouring strings, often alike in cost, are
    spread over the cores)."""
    nq = offsets.shape[0] - 1
    out = np.empty((nq, 14), np.int64)
    for ch in prange(chunks):
        n_docs = starts.shape[0]
        work = (np.full(n_docs, -1, np.int64), np.empty((n_docs, RING), np.int64), np.empty((n_docs, RING), np.int64),
                np.zeros(n_docs, np.int64), np.full(n_docs, -1, np.int64), np.empty((1024, 5), np.int64),
                np.zeros(0, np.int32), np.empty(0, np.int32), np.empty(0, np.int32), np.empty(0, np.int64),
                np.empty(0, np.int64), np.zeros(0, np.bool_), np.empty(0, np.int32),
                (np.full(1 << MEMO_BITS, -1, np.int64), np.empty(1 << MEMO_BITS, np.int64),
                 np.empty(1 << MEMO_BITS, np.int64), np.empty(1 << MEMO_BITS, np.int64),
                 np.empty(1 << MEMO_BITS, np.int64)))
        for qi in range(ch, nq, chunks):
            work = _scan_query(keys, directory, dir_shift, pos_bits, doc_of, text, starts, ends, query, offsets[qi],
                               offsets[qi + 1], n, bits, q, stride, tiles, window, edits, k, exact, out, qi, work)
    return out

