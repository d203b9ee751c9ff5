"""Kernels of MST-based local recoding (Ramana & Kumari, paper 002).

- :func:`hdist_matrix`: the full integer HDist matrix (002 Eqs 1-4) for small inputs (tests, Figure 4).
- :func:`prim_chunk`: Prim's algorithm over *distinct* QI tuples, O(m^2) time and O(m) memory, distances
  computed on the fly. Edges are compared by the strict total order ``(weight, min rep, max rep)``; with it
  the minimum spanning tree is unique, so Prim returns exactly the tree of Kruskal's algorithm (002 §4.2)
  on the full record matrix with edges sorted by ``(weight, i, j)``.
- :func:`union_find_components`, :func:`kruskal_edges`: Kruskal on an edge list, components of a forest.
- :func:`k_aware_cut`: longest-first removal of edges whose removal leaves both sides with >= k records
  (Laszlo & Mukherjee 2005).
- :func:`merge_pass`: steps 15-21: a class below k merges with the class minimising NCP of the union.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit
from anonstudio.core.kernels._generalize import lca_node

INT64_MAX = np.iinfo(np.int64).max


@njit(cache=True, nogil=True)
def _lca_level(n1, n2, node_anc, node_level):
    return node_level[lca_node(n1, n2, node_anc, node_level)]


@njit(cache=True, nogil=True)
def hdist_matrix(leaf_nodes, w_level, node_anc, node_level):
    """``int64[n, n]`` HDist (Eq. 3) scaled by the lcm of the heights (see ``hdist_level_weights``)."""
    n, d = leaf_nodes.shape
    out = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            s = 0
            for a in range(d):
                s += w_level[a, _lca_level(leaf_nodes[i, a], leaf_nodes[j, a], node_anc, node_level)]
            out[i, j] = s
            out[j, i] = s
    return out


@njit(cache=True, nogil=True)
def prim_chunk(
    tleaf, pres_off, pres_node, rep, w_level, node_anc, node_level,
    in_tree, key_w, key_lo, key_hi, parent, row, next_v, steps,
):
    """Add up to ``steps`` vertices to the Prim tree, starting with ``next_v``; returns the next vertex
    to add (-1 when the tree spans every tuple).

    tleaf: int32[m, d] index of each tuple's value among the attribute's present leaves;
    pres_off: int64[d + 1]; pres_node: int32[sum P] packed node id of each present leaf;
    rep: int64[m] first record of each tuple; row: int64[sum P] scratch.
    """
    m, d = tleaf.shape
    u = next_v
    for _ in range(steps):
        if u < 0:
            return -1
        in_tree[u] = True
        for a in range(d):
            nu = pres_node[pres_off[a] + tleaf[u, a]]
            for j in range(pres_off[a], pres_off[a + 1]):
                row[j] = w_level[a, _lca_level(nu, pres_node[j], node_anc, node_level)]
        ru = rep[u]
        best = -1
        bw = INT64_MAX
        blo = INT64_MAX
        bhi = INT64_MAX
        for v in range(m):
            if in_tree[v]:
                continue
            w = 0
            for a in range(d):
                w += row[pres_off[a] + tleaf[v, a]]
            rv = rep[v]
            lo = ru if ru < rv else rv
            hi = rv if ru < rv else ru
            if w < key_w[v] or (w == key_w[v] and (lo < key_lo[v] or (lo == key_lo[v] and hi < key_hi[v]))):
                key_w[v] = w
                key_lo[v] = lo
                key_hi[v] = hi
                parent[v] = u
            kw = key_w[v]
            if kw < bw or (kw == bw and (key_lo[v] < blo or (key_lo[v] == blo and key_hi[v] < bhi))):
                bw = kw
                blo = key_lo[v]
                bhi = key_hi[v]
                best = v
        u = best
    return u


@njit(cache=True, nogil=True)
def _find(uf, x):
    root = x
    while uf[root] != root:
        root = uf[root]
    while uf[x] != root:
        nxt = uf[x]
        uf[x] = root
        x = nxt
    return root


@njit(cache=True, nogil=True)
def kruskal_edges(n, ei, ej, order):
    """Kruskal (002 §4.2): scan edges in ``order`` (ascending), keep those joining two trees.
    Returns a bool mask over the edges."""
    uf = np.arange(n)
    keep = np.zeros(len(ei), dtype=np.bool_)
    taken = 0
    for t in range(len(order)):
        e = order[t]
        a = _find(uf, ei[e])
        b = _find(uf, ej[e])
        if a != b:
            if a < b:
                uf[b] = a
            else:
                uf[a] = b
            keep[e] = True
            taken += 1
            if taken == n - 1:
                break
    return keep


@njit(cache=True, nogil=True)
def union_find_components(n, ei, ej, keep):
    """Component label (smallest member index) of every vertex of the forest of the kept edges."""
    uf = np.arange(n)
    for e in range(len(ei)):
        if keep[e]:
            a = _find(uf, ei[e])
            b = _find(uf, ej[e])
            if a != b:
                if a < b:
                    uf[b] = a
                else:
                    uf[a] = b
    out = np.empty(n, dtype=np.int64)
    for x in range(n):
        out[x] = _find(uf, x)
    return out


@njit(cache=True, nogil=True)
def k_aware_cut(n, ei, ej, order, k):
    """Remove tree edges in ``order`` (longest first) when both sides keep >= k vertices
    (Laszlo & Mukherjee 2005). Returns a bool mask of the edges kept."""
    n_e = len(ei)
    deg = np.zeros(n + 1, dtype=np.int64)
    for e in range(n_e):
        deg[ei[e] + 1] += 1
        deg[ej[e] + 1] += 1
    for x in range(n):
        deg[x + 1] += deg[x]
    adj = np.empty(2 * n_e, dtype=np.int64)
    fill = deg[:-1].copy()
    for e in range(n_e):
        adj[fill[ei[e]]] = ej[e]
        fill[ei[e]] += 1
        adj[fill[ej[e]]] = ei[e]
        fill[ej[e]] += 1
    parent = np.full(n, -1, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    bfs = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for s in range(n):  # a forest in general
        if seen[s]:
            continue
        seen[s] = True
        bfs[tail] = s
        tail += 1
        while head < tail:
            x = bfs[head]
            head += 1
            for t in range(deg[x], deg[x + 1]):
                y = adj[t]
                if not seen[y]:
                    seen[y] = True
                    parent[y] = x
                    bfs[tail] = y
                    tail += 1
    att = np.ones(n, dtype=np.int64)
    for t in range(n - 1, -1, -1):
        x = bfs[t]
        if parent[x] >= 0:
            att[parent[x]] += att[x]
    cut = np.zeros(n, dtype=np.bool_)  # cut[x]: the edge (parent[x], x) is removed
    keep = np.ones(n_e, dtype=np.bool_)
    for t in range(len(order)):
        e = order[t]
        u = ei[e]
        v = ej[e]
        if parent[v] == u:
            c = v
        else:
            c = u
        p = parent[c]
        r = p
        while not cut[r] and parent[r] >= 0:
            r = parent[r]
        s = att[c]
        if s >= k and att[r] - s >= k:
            cut[c] = True
            keep[e] = False
            x = p
            while True:
                att[x] -= s
                if x == r:
                    break
                x = parent[x]
    return keep


# The merge loop's state (arrays in, arrays out), built by ``merge_state`` and updated by ``merge_pass``:
# node tuples live in an open-addressing table of slots; each slot has its live class count and a doubly
# linked list of its live classes (``head`` per slot, ``nxt``/``prv`` per class);
# ``tl_*`` lists the slots that may have live classes (``in_tl``), with a dense copy of their nodes for the scan.
_ST_TL_N = 0  # state[0]: length of the tuple list


@njit(cache=True, nogil=True)
def _tuple_slot(memo_nodes, memo_used, tup):
    """Slot of node tuple ``tup`` (claimed if new)."""
    d = tup.shape[0]
    mask = memo_used.shape[0] - 1
    h = np.uint64(14695981039346656037)
    for a in range(d):
        h = (h ^ np.uint64(tup[a])) * np.uint64(1099511628211)
    h ^= h >> np.uint64(29)
    slot = np.int64(h & np.uint64(mask))
    while memo_used[slot]:
        same = True
        for a in range(d):
            if memo_nodes[slot, a] != tup[a]:
                same = False
                break
        if same:
            return slot
        slot = (slot + 1) & mask
    memo_used[slot] = True
    for a in range(d):
        memo_nodes[slot, a] = tup[a]
    return slot


@njit(cache=True, nogil=True)
def _listed(slot, memo_nodes, in_tl, tl_slot, tl_nodes, state):
    """Make sure ``slot`` is in the tuple list."""
    if in_tl[slot]:
        return
    in_tl[slot] = True
    t = state[_ST_TL_N]
    tl_slot[t] = slot
    for a in range(memo_nodes.shape[1]):
        tl_nodes[t, a] = memo_nodes[slot, a]
    state[_ST_TL_N] = t + 1


@njit(cache=True, nogil=True)
def merge_state(nodes, memo_nodes, memo_used, count, head, nxt, prv, cls_slot, in_tl, tl_slot, tl_nodes, state):
    """Fill the merge state for classes ``0..n_c-1``."""
    for c in range(nodes.shape[0] - 1, -1, -1):
        slot = _tuple_slot(memo_nodes, memo_used, nodes[c])
        cls_slot[c] = slot
        _link(c, slot, count, head, nxt, prv)
        _listed(slot, memo_nodes, in_tl, tl_slot, tl_nodes, state)


@njit(cache=True, nogil=True)
def _link(c, slot, count, head, nxt, prv):
    count[slot] += 1
    prv[c] = -1
    nxt[c] = head[slot]
    if head[slot] >= 0:
        prv[head[slot]] = c
    head[slot] = c


@njit(cache=True, nogil=True)
def _unlink(c, slot, count, head, nxt, prv):
    count[slot] -= 1
    if prv[c] >= 0:
        nxt[prv[c]] = nxt[c]
    else:
        head[slot] = nxt[c]
    if nxt[c] >= 0:
        prv[nxt[c]] = prv[c]


@njit(cache=True, nogil=True)
def _lowest_member(slot, exclude, head, nxt):
    """Lowest live class id with tuple ``slot`` other than ``exclude`` (-1 if none)."""
    best = -1
    c = head[slot]
    while c >= 0:
        if c != exclude and (best < 0 or c < best):
            best = c
        c = nxt[c]
    return best


@njit(cache=True, nogil=True)
def merge_pass(sizes, nodes, alive, target, node_anc, node_level, node_ncp, attr_lo, attr_hi, k, start, stop,
               memo_nodes, memo_used, memo_best, memo_cost, memo_asker, count, head, nxt, prv, cls_slot,
               in_tl, tl_slot, tl_nodes, state, ok, class_sens, min_distinct, log_l):
    """Steps 15-21 for classes ``start..stop-1``: each live class ``C`` below ``k`` merges with the live class
    ``C'`` minimising NCP(C ∪ C') (ties: lowest id); ``C'`` keeps its id. Returns the number of merges.

    ``ok[c]``: class ``c`` meets the limits (k records; with l-diversity, ``min_distinct > 1`` or ``log_l > 0``,
    also its sensitive counts ``class_sens[c]``): a class that does not merges, as one below k does (our
    extension of step 16 to l-diversity); a merge adds the counts and judges the union again.

    The same choices as scanning every class for every small class (the paper's step 17), found faster:

    - NCP(C ∪ C') depends on ``C'`` only through its node tuple: the scan runs over the distinct node
      tuples of the live classes (one table lookup per attribute, in a table of ``NCP(lca(x_a, ·))`` built
      per query), then takes the lowest live id among the tuples of least cost;
    - a memo per node tuple ``x`` keeps the last answer ``(C*, v)`` for a small class with that tuple.
      Merging only generalizes classes and removes them, so the least cost over the other classes never
      decreases: if ``C*`` is still live with cost ``v`` (and the class that asked then is gone), no class
      of lower id can have reached cost ``v`` meanwhile, and ``C*`` is the answer again.

    ``attr_lo/attr_hi``: packed node range of each attribute; the state arrays come from
    :func:`merge_state`; the table has a power-of-two length above twice the number of node tuples that can
    occur (initial classes + merges)."""
    d = nodes.shape[1]
    # compact the tuple list: drop slots without live classes
    n_t = 0
    for t in range(state[_ST_TL_N]):
        sl = tl_slot[t]
        in_tl[sl] = count[sl] > 0
        if count[sl] > 0:
            tl_slot[n_t] = sl
            for a in range(d):
                tl_nodes[n_t, a] = tl_nodes[t, a]
            n_t += 1
    state[_ST_TL_N] = n_t
    tbl = np.empty(node_ncp.shape[0])
    vals = np.empty(tl_slot.shape[0])
    tup = np.empty(d, np.int32)
    merges = 0
    for c in range(start, stop):
        if not alive[c] or ok[c]:
            continue
        x = cls_slot[c]
        for a in range(d):
            xa = nodes[c, a]
            for y in range(attr_lo[a], attr_hi[a]):
                tbl[y] = node_ncp[lca_node(xa, y, node_anc, node_level)]
        best = -1
        best_v = np.inf
        hint = memo_best[x]
        asker = memo_asker[x]
        if hint >= 0 and hint != c and alive[hint] and (asker == c or not alive[asker]):
            v = 0.0
            for a in range(d):
                v += tbl[nodes[hint, a]]
            if v == memo_cost[x]:
                best = hint
                best_v = v
        if best < 0:
            n_t = state[_ST_TL_N]
            for t in range(n_t):
                v = 0.0
                for a in range(d):
                    v += tbl[tl_nodes[t, a]]
                vals[t] = v
            for t in range(n_t):
                sl = tl_slot[t]
                if count[sl] - (1 if sl == x else 0) > 0 and vals[t] < best_v:
                    best_v = vals[t]
            for t in range(n_t):
                sl = tl_slot[t]
                if vals[t] == best_v and count[sl] - (1 if sl == x else 0) > 0:
                    m = _lowest_member(sl, c, head, nxt)
                    if m >= 0 and (best < 0 or m < best):
                        best = m
        if best < 0:
            continue
        memo_best[x] = best
        memo_cost[x] = best_v
        memo_asker[x] = c
        target[c] = best
        alive[c] = False
        _unlink(c, x, count, head, nxt, prv)
        sizes[best] += sizes[c]
        if min_distinct > 1 or log_l > 0.0:
            for v in range(class_sens.shape[1]):
                class_sens[best, v] += class_sens[c, v]
            ok[best] = sizes[best] >= k and sens_diverse(class_sens[best], min_distinct, log_l)
        else:
            ok[best] = sizes[best] >= k
        for a in range(d):
            tup[a] = lca_node(nodes[c, a], nodes[best, a], node_anc, node_level)
            nodes[best, a] = tup[a]
        old = cls_slot[best]
        new = _tuple_slot(memo_nodes, memo_used, tup)
        if new != old:
            _unlink(best, old, count, head, nxt, prv)
            _link(best, new, count, head, nxt, prv)
            _listed(new, memo_nodes, in_tl, tl_slot, tl_nodes, state)
            cls_slot[best] = new
        merges += 1
    return merges


@njit(cache=True, nogil=True)
def sens_diverse(counts, min_distinct, log_l):
    """Whether sensitive value counts ``counts`` hold ``min_distinct`` distinct values and entropy ``log_l``."""
    total = 0
    distinct = 0
    for v in range(counts.shape[0]):
        if counts[v] > 0:
            total += counts[v]
            distinct += 1
    if distinct < min_distinct:
        return False
    if log_l <= 0.0:
        return True
    h = 0.0
    for v in range(counts.shape[0]):
        if counts[v] > 0:
            p = counts[v] / total
            h -= p * np.log(p)
    return h >= log_l - 1e-12
