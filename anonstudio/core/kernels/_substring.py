"""Longest common substring of query strings against a set of texts, by a suffix automaton.

A suffix automaton of the concatenated texts (Blumer et al. 1985) is built once in O(N); each query is then
scanned once, tracking the length of the longest suffix of the query prefix that occurs in some text (the
"matching statistics"); its maximum is the query's longest shared substring.

Transitions: a state starts with a short linked list of edges (sparse: item alphabets of thousands of
symbols work); once it has ``dense_from`` edges it moves to a dense row of ``sigma`` targets, while a pool of
``max_dense`` rows lasts. The root is always dense. Busy states (short contexts, visited most) thus get O(1)
look-ups without a dense table for every state.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit, prange
from anonstudio.core.kernels import parallel_runtime

parallel_runtime()  # before any kernel of this module is loaded (see parallel_runtime)


@njit(cache=True, nogil=True)
def _step(state, c, head, e_sym, e_to, e_next, dense_row, dense):
    r = dense_row[state]
    if r >= 0:
        return dense[r, c]
    e = head[state]
    while e != -1:
        if e_sym[e] == c:
            return e_to[e]
        e = e_next[e]
    return -1


@njit(cache=True, nogil=True)
def build_suffix_automaton(text, sigma, dense_from, max_dense):
    """Suffix automaton of ``text`` (``int32`` codes in ``[0, sigma)``; put a separator code between texts).

    Parameters
    ----------
    text:
        ``int32[n]`` symbol codes.
    sigma:
        Alphabet size (codes ``0 .. sigma-1``).
    dense_from:
        A state gets a dense row when it reaches this many transitions (≥ 1).
    max_dense:
        Number of dense rows available (≥ 1: row 0 is the root's).

    Returns
    -------
    tuple
        ``(length, link, head, e_sym, e_to, e_next, dense_row, dense)``: per-state longest-substring
        length and suffix link, the sparse edge lists and the dense rows (``dense_row[s]`` = -1 when sparse).
        :func:`build_suffix_automaton_prefixes` also returns, per text position, the state of the text's
        prefix ending there.
    """
    return build_suffix_automaton_prefixes(text, sigma, dense_from, max_dense)[:8]


@njit(cache=True, nogil=True)
def build_suffix_automaton_prefixes(text, sigma, dense_from, max_dense):
    """:func:`build_suffix_automaton`, and ``int32[n]``: the state created for each text position (the state
    whose end positions include that position and every one of whose suffix-link ancestors does too)."""
    n = text.shape[0]
    max_states = 2 * n + 2
    max_edges = 3 * n + 8
    length = np.zeros(max_states, np.int32)
    prefix_state = np.empty(n, np.int32)
    link = np.full(max_states, -1, np.int32)
    head = np.full(max_states, -1, np.int32)
    degree = np.zeros(max_states, np.int32)
    dense_row = np.full(max_states, -1, np.int32)
    e_sym = np.empty(max_edges, np.int32)
    e_to = np.empty(max_edges, np.int32)
    e_next = np.empty(max_edges, np.int32)
    n_rows = min(max(max_dense, 1), max_states)
    dense = np.full((n_rows, sigma), -1, np.int32)
    dense_row[0] = 0
    used_rows = 1
    n_states = 1
    n_edges = 0
    last = 0
    for i in range(n):
        c = text[i]
        cur = n_states
        n_states += 1
        length[cur] = length[last] + 1
        p = last
        while p != -1 and _step(p, c, head, e_sym, e_to, e_next, dense_row, dense) == -1:
            # add transition p --c--> cur
            r = dense_row[p]
            if r >= 0:
                dense[r, c] = cur
            elif degree[p] + 1 >= dense_from and used_rows < n_rows:
                r = used_rows
                used_rows += 1
                dense_row[p] = r
                e = head[p]
                while e != -1:
                    dense[r, e_sym[e]] = e_to[e]
                    e = e_next[e]
                head[p] = -1
                dense[r, c] = cur
            else:
                e_sym[n_edges] = c
                e_to[n_edges] = cur
                e_next[n_edges] = head[p]
                head[p] = n_edges
                n_edges += 1
            degree[p] += 1
            p = link[p]
        if p == -1:
            link[cur] = 0
        else:
            q = _step(p, c, head, e_sym, e_to, e_next, dense_row, dense)
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = n_states
                n_states += 1
                length[clone] = length[p] + 1
                degree[clone] = degree[q]
                rq = dense_row[q]
                if rq >= 0 and used_rows < n_rows:
                    rc = used_rows
                    used_rows += 1
                    dense_row[clone] = rc
                    for s in range(sigma):
                        dense[rc, s] = dense[rq, s]
                elif rq >= 0:
                    for s in range(sigma):
                        if dense[rq, s] != -1:
                            e_sym[n_edges] = s
                            e_to[n_edges] = dense[rq, s]
                            e_next[n_edges] = head[clone]
                            head[clone] = n_edges
                            n_edges += 1
                else:
                    e = head[q]
                    while e != -1:
                        e_sym[n_edges] = e_sym[e]
                        e_to[n_edges] = e_to[e]
                        e_next[n_edges] = head[clone]
                        head[clone] = n_edges
                        n_edges += 1
                        e = e_next[e]
                link[clone] = link[q]
                # redirect p --c--> q to clone along the suffix links
                while p != -1:
                    r = dense_row[p]
                    if r >= 0:
                        if dense[r, c] != q:
                            break
                        dense[r, c] = clone
                    else:
                        e = head[p]
                        found = False
                        while e != -1:
                            if e_sym[e] == c:
                                if e_to[e] == q:
                                    e_to[e] = clone
                                    found = True
                                break
                            e = e_next[e]
                        if not found:
                            break
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur
        prefix_state[i] = cur
    return (length[:n_states], link[:n_states], head[:n_states], e_sym[:n_edges], e_to[:n_edges], e_next[:n_edges],
            dense_row[:n_states], dense[:used_rows], prefix_state)


@njit(cache=True, nogil=True, inline="always")
def _count_ancestors(p, d, link, mark, count):
    """Count text ``d`` once for state ``p`` and its suffix-link ancestors, stopping at the first one already
    marked by ``d`` (its ancestors are marked too)."""
    while p > 0 and mark[p] != d:
        mark[p] = d
        count[p] += 1
        p = link[p]


@njit(cache=True, nogil=True)
def document_counts(length, link, head, e_sym, e_to, e_next, dense_row, dense, text, starts, ends):
    """``int32[n_states]``: in how many of the texts ``text[starts[d]:ends[d]]`` each state's substrings
    occur (all substrings of one state share their end positions, hence their texts).

    Each text is read from the root; after every symbol the state of the text's prefix and its suffix-link
    ancestors (the prefix's suffixes) are marked with the text's number, stopping at the first state
    already marked by it, so each (state, text) pair is counted once."""
    n_states = length.shape[0]
    count = np.zeros(n_states, np.int32)
    mark = np.full(n_states, -1, np.int32)
    for d in range(starts.shape[0]):
        v = 0
        for i in range(starts[d], ends[d]):
            v = _step(v, text[i], head, e_sym, e_to, e_next, dense_row, dense)
            _count_ancestors(v, d, link, mark, count)
    return count


@njit(cache=True, nogil=True)
def rare_fragments(length, link, head, e_sym, e_to, e_next, dense_row, dense, doc_count, codes, offsets,
                   min_length, k):
    """The k-anonymous fragment rule, per query string: a substring of length ≥ ``min_length`` that occurs
    in at least one but fewer than ``k`` texts is a leak.

    While scanning a query with the matching statistics, the longest match ending at a position has the
    fewest texts among the matches ending there (a longer substring occurs in no more texts than its
    suffixes), so a position leaks exactly when its longest match is ≥ ``min_length`` long and lies in
    fewer than ``k`` texts. Returns, per query, ``(longest_leak, texts_of_longest_leak, first_leak_end,
    leaking_positions, longest_match)``; ``first_leak_end`` is the query position (relative to its start)
    where the first leaking match ends, -1 if none."""
    nq = offsets.shape[0] - 1
    longest_leak = np.zeros(nq, np.int64)
    leak_texts = np.zeros(nq, np.int64)
    first_end = np.full(nq, -1, np.int64)
    positions = np.zeros(nq, np.int64)
    longest = np.zeros(nq, np.int64)
    sigma = dense.shape[1]
    for qi in range(nq):
        v = 0
        cur = 0
        for j in range(offsets[qi], offsets[qi + 1]):
            c = codes[j]
            if c < 0 or c >= sigma:
                v = 0
                cur = 0
                continue
            t = _step(v, c, head, e_sym, e_to, e_next, dense_row, dense)
            while t == -1 and v != 0:
                v = link[v]
                cur = length[v]
                t = _step(v, c, head, e_sym, e_to, e_next, dense_row, dense)
            if t == -1:
                v = 0
                cur = 0
                continue
            v = t
            cur += 1
            if cur > longest[qi]:
                longest[qi] = cur
            if cur >= min_length:
                u = v  # the state of the match itself: walk up while the match is too short for u
                while link[u] > 0 and length[link[u]] >= cur:
                    u = link[u]
                texts = doc_count[u]
                if texts < k:
                    positions[qi] += 1
                    if first_end[qi] < 0:
                        first_end[qi] = j - offsets[qi]
                    if cur > longest_leak[qi]:
                        longest_leak[qi] = cur
                        leak_texts[qi] = texts
    return longest_leak, leak_texts, first_end, positions, longest


@njit(cache=True, nogil=True)
def longest_shared(length, link, head, e_sym, e_to, e_next, dense_row, dense, codes, offsets):
    """For each query ``codes[offsets[i]:offsets[i+1]]`` (codes < 0 or ≥ sigma: a symbol absent from the
    texts), the length of its longest substring that occurs in the automaton's text: ``int64[n_queries]``
    (the matching statistics of :func:`rare_fragments`, with no fragment rule to check)."""
    no_counts = np.zeros(1, np.int32)
    return rare_fragments(length, link, head, e_sym, e_to, e_next, dense_row, dense, no_counts, codes, offsets,
                          np.iinfo(np.int64).max, 0)[4]


# ---------------------------------------------------------------------------------------------------------
# The compact layout the scans read: one 16-byte row per state and each state's edges side by side, so a
# transition costs about two cache misses instead of five (the automaton of yeast's 2.9M residues has 5.9M
# states, far larger than the caches: the scans are bound by memory latency).


@njit(cache=True, nogil=True)
def document_counts_from_prefixes(link, prefix_state, starts, ends):
    """:func:`document_counts` from the build's prefix states: the states whose end positions include text
    position ``i`` are the suffix-link ancestors of ``prefix_state[i]``, so no transition is followed. States
    whose substrings all span a separator get counts too (no query reaches them); every other state gets the
    count :func:`document_counts` gives it (a state's substrings share their end positions)."""
    n_states = link.shape[0]
    count = np.zeros(n_states, np.int32)
    mark = np.full(n_states, -1, np.int32)
    for d in range(starts.shape[0]):
        for i in range(starts[d], ends[d]):
            _count_ancestors(prefix_state[i], d, link, mark, count)
    return count


@njit(cache=True, nogil=True)
def compact_automaton(length, link, head, e_sym, e_to, e_next, dense_row):
    """``(node, edges)``: ``node[s] = (length, link, first edge, degree)`` with the first edge ``-(row + 1)``
    for a state with a dense row, and ``edges`` = ``symbol << 32 | target`` grouped by state."""
    n_states = length.shape[0]
    node = np.empty((n_states, 4), np.int32)
    edges = np.empty(e_sym.shape[0], np.int64)
    n_edges = 0
    for s in range(n_states):
        node[s, 0] = length[s]
        node[s, 1] = link[s]
        r = dense_row[s]
        if r >= 0:
            node[s, 2] = -(r + 1)
            node[s, 3] = 0
            continue
        node[s, 2] = n_edges
        e = head[s]
        while e != -1:
            edges[n_edges] = (np.int64(e_sym[e]) << 32) | np.int64(e_to[e])
            n_edges += 1
            e = e_next[e]
        node[s, 3] = n_edges - node[s, 2]
    return node, edges[:n_edges]


@njit(cache=True, nogil=True, inline="always")
def _go(node, edges, dense, v, c):
    r = node[v, 2]
    if r < 0:
        return dense[-r - 1, c]
    key = np.int64(c)
    for e in range(r, r + node[v, 3]):
        x = edges[e]
        if (x >> 32) == key:
            return np.int32(x & 0xFFFFFFFF)
    return np.int32(-1)


@njit(cache=True, nogil=True)
def _scan_one(node, edges, dense, doc_count, codes, lo, hi, min_length, k, out, qi):
    sigma = dense.shape[1]
    v = 0
    cur = 0
    longest = 0
    for j in range(lo, hi):
        c = codes[j]
        if c < 0 or c >= sigma:
            v = 0
            cur = 0
            continue
        t = _go(node, edges, dense, v, c)
        while t == -1 and v != 0:
            v = node[v, 1]
            cur = node[v, 0]
            t = _go(node, edges, dense, v, c)
        if t == -1:
            v = 0
            cur = 0
            continue
        v = t
        cur += 1
        if cur > longest:
            longest = cur
        if cur >= min_length:
            u = v  # the state of the match itself: walk up while the match is too short for u
            while node[u, 1] > 0 and node[node[u, 1], 0] >= cur:
                u = node[u, 1]
            texts = doc_count[u]
            if texts < k:
                out[3, qi] += 1
                if out[2, qi] < 0:
                    out[2, qi] = j - lo
                if cur > out[0, qi]:
                    out[0, qi] = cur
                    out[1, qi] = texts
    out[4, qi] = longest


@njit(cache=True, nogil=True, parallel=True)
def rare_fragments_compact(node, edges, dense, doc_count, codes, offsets, min_length, k):
    """:func:`rare_fragments` on the compact layout, query strings spread over the cores: ``int64[5, n]``
    rows ``longest_leak, texts_of_longest_leak, first_leak_end, leaking_positions, longest_match``."""
    nq = offsets.shape[0] - 1
    out = np.zeros((5, nq), np.int64)
    out[2, :] = -1
    for qi in prange(nq):
        _scan_one(node, edges, dense, doc_count, codes, offsets[qi], offsets[qi + 1], min_length, k, out, qi)
    return out


# ---------------------------------------------------------------------------------------------------------
# The k-mer side of the index: every text position's next ``w`` symbols packed into one integer and sorted.
# The longest common prefix of a query window with any text window is its common prefix with one of its two
# neighbours in that order, so one merge of the sorted query windows with the sorted text windows gives every
# query position's longest match starting there, capped at ``w`` — exact below the cap.


@njit(cache=True, nogil=True, inline="always")
def _first_window(values, lo, hi, bits, w, pad):
    """``values[lo:lo + w]`` packed ``bits`` bits each, first symbol highest, ``pad`` past ``hi``."""
    p = np.int64(0)
    for t in range(w):
        v = values[lo + t] if lo + t < hi else pad
        p = (p << bits) | v
    return p


@njit(cache=True, nogil=True)
def pack_windows(values, starts, ends, bits, w, pad):
    """``int64[sum(ends - starts)]``: for each position ``i`` of each range ``values[starts[d]:ends[d]]``,
    ``values[i], values[i+1], …`` (``w`` of them, ``pad`` past the range's end) packed ``bits`` bits each,
    first symbol highest. ``bits * w`` must be ≤ 63."""
    total = 0
    for d in range(starts.shape[0]):
        total += ends[d] - starts[d]
    out = np.empty(total, np.int64)
    mask = (np.int64(1) << (bits * w)) - 1
    o = 0
    for d in range(starts.shape[0]):
        lo, hi = starts[d], ends[d]
        if hi <= lo:
            continue
        p = _first_window(values, lo, hi, bits, w, pad)
        out[o] = p
        o += 1
        for i in range(lo + 1, hi):
            v = values[i + w - 1] if i + w - 1 < hi else pad
            p = ((p << bits) & mask) | v
            out[o] = p
            o += 1
    return out


@njit(cache=True, nogil=True, inline="always")
def _common_symbols(a, b, bits, w):
    x = a ^ b
    if x == 0:
        return w
    sym = (np.int64(1) << bits) - 1
    for t in range(w):
        if (x >> (bits * (w - 1 - t))) & sym:
            return t
    return w


@njit(cache=True, nogil=True, inline="always")
def _neighbour_match(sorted_text, x, p, bits, w):
    """Symbols window ``x`` shares with its sorted neighbours, ``p`` being its insertion point: the longest
    prefix it shares with any text window."""
    m = 0
    if p < sorted_text.shape[0]:
        m = _common_symbols(x, sorted_text[p], bits, w)
    if p > 0:
        m2 = _common_symbols(x, sorted_text[p - 1], bits, w)
        if m2 > m:
            m = m2
    return m


@njit(cache=True, nogil=True)
def window_directory(sorted_text, shift, size):
    """``int64[size + 1]``: ``out[b]`` = first index of ``sorted_text`` whose value ``>> shift`` is ``≥ b``
    (the windows are non-negative and sorted): the sorted windows starting with each ``b`` are
    ``out[b]:out[b + 1]``."""
    out = np.empty(size + 1, np.int64)
    b = 0
    for i in range(sorted_text.shape[0]):
        top = sorted_text[i] >> shift
        while b <= top:
            out[b] = i
            b += 1
    while b <= size:
        out[b] = sorted_text.shape[0]
        b += 1
    return out


@njit(cache=True, nogil=True)
def gram_bitset(values, starts, ends, rank, n, g):
    """``uint8`` bitset over the ``n**g`` strings of ``g`` symbols of the texts ``values[starts[d]:ends[d]]``
    (symbol ``v`` counted as ``rank[v] - 1`` in ``0..n-1``, first symbol highest): bit set when a text holds
    that ``g``-gram."""
    size = np.int64(n) ** g
    out = np.zeros((size + 7) // 8, np.uint8)
    for d in range(starts.shape[0]):
        idx = np.int64(0)
        run = 0
        for i in range(starts[d], ends[d]):
            idx = (idx * n + (rank[values[i]] - 1)) % size
            run += 1
            if run >= g:
                out[idx >> 3] |= np.uint8(1 << (idx & 7))
    return out


@njit(cache=True, nogil=True, parallel=True)
def capped_longest_direct(sorted_text, directory, shift, values, offsets, bits, w, pad, grams, rank, n, g):
    """``int64[n_queries]``: per query string ``values[offsets[q]:offsets[q + 1]]`` (symbols as
    :func:`pack_windows` takes them), its longest substring found in the text, capped at ``w`` (exact when below
    ``w``); query strings spread over the cores: each window is packed on the fly and found by a binary search
    inside its block of :func:`window_directory` — the insertion point ``np.searchsorted`` gives — so no query
    window is stored or sorted.

    ``grams`` (:func:`gram_bitset` with ``rank``, ``n``; ``g = 0``: none; ``rank[v] = 0`` for a symbol no
    text holds) spares most searches: a
    position whose next ``g`` symbols occur in no text shares at most ``g - 1`` with any text, so once the
    string's best is ``g - 1`` or more it cannot raise it."""
    nq = offsets.shape[0] - 1
    best = np.zeros(nq, np.int64)
    mask = (np.int64(1) << (bits * w)) - 1
    for q in prange(nq):
        lo = offsets[q]
        hi = offsets[q + 1]
        if hi <= lo:
            continue
        x = _first_window(values, lo, hi, bits, w, pad)
        m_best = 0
        for i in range(lo, hi):
            if i > lo:
                v = values[i + w - 1] if i + w - 1 < hi else pad
                x = ((x << bits) & mask) | v
            if g > 0 and m_best >= g - 1 and i + g <= hi:
                idx = np.int64(0)
                held = True
                for t in range(g):
                    r = rank[values[i + t]]
                    if r == 0:  # a symbol no text holds
                        held = False
                        break
                    idx = idx * n + (r - 1)
                if not held or not (grams[idx >> 3] >> (idx & 7)) & 1:
                    continue
            b = x >> shift
            a = directory[b]
            z = directory[b + 1]
            while a < z:  # first position with sorted_text[.] >= x
                mid = (a + z) >> 1
                if sorted_text[mid] < x:
                    a = mid + 1
                else:
                    z = mid
            m = _neighbour_match(sorted_text, x, a, bits, w)
            if m > m_best:
                m_best = m
                if m_best == w:
                    break
        best[q] = m_best
    return best


@njit(cache=True, nogil=True, inline="always")
def _hash_slot(x, table_bits):
    """Fibonacci hashing: the top ``table_bits`` bits of ``x`` times 2^64 / golden ratio."""
    return np.int64((np.uint64(x) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - table_bits))


@njit(cache=True, nogil=True)
def texts_holding(text_values, starts, ends, windows, bits, w):
    """``bool[len(starts)]``: which texts ``text_values[starts[d]:ends[d]]`` hold at least one of ``windows``
    (packed as :func:`pack_windows` packs ``w`` symbols; a text window running past its text's end never
    counts). The windows go into an open-addressing hash set; each text window is looked up once."""
    table_bits = 1
    while (1 << table_bits) < 2 * windows.shape[0] + 2:
        table_bits += 1
    mask = (np.int64(1) << table_bits) - 1
    table = np.full(1 << table_bits, -1, np.int64)  # windows are non-negative
    for u in range(windows.shape[0]):
        x = windows[u]
        h = _hash_slot(x, table_bits)
        while table[h] != -1 and table[h] != x:
            h = (h + 1) & mask
        table[h] = x
    out = np.zeros(starts.shape[0], np.bool_)
    if windows.shape[0] == 0:
        return out
    top = np.int64(1) << (bits * w)
    for d in range(starts.shape[0]):
        lo = starts[d]
        hi = ends[d]
        if hi - lo < w:
            continue
        x = _first_window(text_values, lo, hi, bits, w, 0)
        for i in range(lo, hi - w + 1):
            if i > lo:
                x = ((x << bits) & (top - 1)) | text_values[i + w - 1]
            h = _hash_slot(x, table_bits)
            while table[h] != -1 and table[h] != x:
                h = (h + 1) & mask
            if table[h] == x:
                out[d] = True
                break
    return out
