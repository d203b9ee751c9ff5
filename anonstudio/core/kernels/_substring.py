"""Longest common substring of query strings against a set of texts, by a suffix automaton.

A suffix automaton of the concatenated texts (Blumer et al. 1985) is built once in O(N); each query is then
scanned once, tracking the length of the longest suffix of the query prefix that occurs in some text (the
"matching statistics"); its maximum is the query's longest shared substring. Transitions are kept as a
linked list per state while building (sparse: works for item alphabets of thousands of symbols); for
queries the states with many transitions (the root and the short-context states visited most) get dense
rows (:func:`densify`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _go(state, c, head, e_sym, e_to, e_next, root_go):
    if state == 0:
        return root_go[c]
    e = head[state]
    while e != -1:
        if e_sym[e] == c:
            return e_to[e]
        e = e_next[e]
    return -1


@njit(cache=True, nogil=True)
def build_suffix_automaton(text, sigma):
    """Suffix automaton of ``text`` (``int32`` codes in ``[0, sigma)``; use a separator code between texts).

    Returns ``(length, link, head, e_sym, e_to, e_next, root_go, n_states)`` as numpy arrays (+ count).
    """
    n = text.shape[0]
    max_states = 2 * n + 2
    max_edges = 3 * n + 8
    length = np.zeros(max_states, np.int32)
    link = np.full(max_states, -1, np.int32)
    head = np.full(max_states, -1, np.int32)
    e_sym = np.empty(max_edges, np.int32)
    e_to = np.empty(max_edges, np.int32)
    e_next = np.empty(max_edges, np.int32)
    root_go = np.full(sigma, -1, np.int32)
    n_states = 1
    n_edges = 0
    last = 0
    for i in range(n):
        c = text[i]
        cur = n_states
        n_states += 1
        length[cur] = length[last] + 1
        p = last
        while p != -1 and _go(p, c, head, e_sym, e_to, e_next, root_go) == -1:
            if p == 0:
                root_go[c] = cur
            else:
                e_sym[n_edges] = c
                e_to[n_edges] = cur
                e_next[n_edges] = head[p]
                head[p] = n_edges
                n_edges += 1
            p = link[p]
        if p == -1:
            link[cur] = 0
        else:
            q = _go(p, c, head, e_sym, e_to, e_next, root_go)
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = n_states
                n_states += 1
                length[clone] = length[p] + 1
                e = head[q]
                while e != -1:
                    e_sym[n_edges] = e_sym[e]
                    e_to[n_edges] = e_to[e]
                    e_next[n_edges] = head[clone]
                    head[clone] = n_edges
                    n_edges += 1
                    e = e_next[e]
                link[clone] = link[q]
                while p != -1:
                    if p == 0:
                        if root_go[c] != q:
                            break
                        root_go[c] = clone
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
    return length, link, head, e_sym, e_to, e_next, root_go, n_states


@njit(cache=True, nogil=True)
def densify(head, e_sym, e_to, e_next, root_go, n_states, min_degree):
    """Dense transition rows for the states with at least ``min_degree`` transitions (the root included):
    ``(dense_row int32[n_states], dense int32[n_dense, sigma])``; -1 where there is no row / transition."""
    sigma = root_go.shape[0]
    degree = np.zeros(n_states, np.int32)
    for st in range(1, n_states):
        e = head[st]
        while e != -1:
            degree[st] += 1
            e = e_next[e]
    dense_row = np.full(n_states, -1, np.int32)
    m = 1
    for st in range(1, n_states):
        if degree[st] >= min_degree:
            dense_row[st] = m
            m += 1
    dense = np.full((m, sigma), -1, np.int32)
    dense[0, :] = root_go
    dense_row[0] = 0
    for st in range(1, n_states):
        r = dense_row[st]
        if r >= 0:
            e = head[st]
            while e != -1:
                dense[r, e_sym[e]] = e_to[e]
                e = e_next[e]
    return dense_row, dense


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
def longest_shared(length, link, head, e_sym, e_to, e_next, dense_row, dense, codes, offsets):
    """For each query ``codes[offsets[i]:offsets[i+1]]`` (codes < 0: symbol absent from the texts), the
    length of its longest substring that occurs in the automaton's text. ``int64[n_queries]``.

    ``dense_row``/``dense`` come from :func:`densify`."""
    nq = offsets.shape[0] - 1
    out = np.zeros(nq, np.int64)
    sigma = dense.shape[1]
    for qi in range(nq):
        v = 0
        cur = 0
        best = 0
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
            else:
                v = t
                cur += 1
            if cur > best:
                best = cur
        out[qi] = best
    return out
