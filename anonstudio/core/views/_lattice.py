"""The lattice view of a ``global`` run, Qt-free: the transformations the search learnt about as a graph.

Nodes are level vectors, laid out by height (the sum of their levels: the bottom row is the original data, the
top the all-root transformation) and, within a height, in the order of their level vectors; an edge joins a
transformation to each direct successor (one attribute one level higher), as ARX draws its lattice (Prasser &
Kohlmayer, ARX, Medical Data Privacy Handbook 2015, §4; Samarati, IEEE TKDE 13(6) 2001, §4 for the lattice).
A lattice may hold up to two million transformations: at most :data:`MAX_DRAWN` are drawn — the checked ones
first, then those fewest level steps from the optimum — and :attr:`LatticeGraph.note` says how many were left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from anonstudio.core.algorithms._lattice_search import (ANONYMOUS, FAILS, NOT_ANONYMOUS, PASSES, STATUS_WORDS, UNKNOWN,
                                                        LatticeNodes)

#: the most transformations drawn (a denser graph is neither readable nor quick to draw)
MAX_DRAWN = 1500
#: the colours of each status (RGB): passing nodes are shaded from dark (least loss) to light green (most);
#: pale blue: passes by monotonicity, loss not measured
COLOURS = {PASSES: (27, 94, 32), FAILS: (198, 40, 40), ANONYMOUS: (144, 202, 249), NOT_ANONYMOUS: (239, 154, 154),
           UNKNOWN: (210, 210, 210)}
PALE_PASS = (165, 214, 167)


@dataclass
class LatticeGraph:
    """What the lattice view draws: per drawn node its ``node`` index, ``levels`` (``[m, d]``), ``x`` / ``y``
    (``y`` = height), ``status`` and ``loss`` (NaN when not measured); ``edges`` (``[e, 2]`` positions among the
    drawn nodes, from a transformation to a direct successor); the positions of the ``optimum`` and of the
    ``chosen`` transformation (``-1``: not drawn / none); ``total`` transformations in the lattice."""

    nodes: np.ndarray
    levels: np.ndarray
    x: np.ndarray
    y: np.ndarray
    status: np.ndarray
    loss: np.ndarray
    edges: np.ndarray
    optimum: int
    chosen: int
    total: int
    attributes: list[str]
    heights: list[int]
    quality_model: str
    note: str

    def position(self, node: int) -> int:
        """Where transformation ``node`` is among the drawn ones (``-1``: not drawn)."""
        hit = np.flatnonzero(self.nodes == node)
        return int(hit[0]) if len(hit) else -1

    def passes(self, i: int) -> bool:
        """Whether drawn node ``i`` may be published: checked and passing, or anonymous by monotonicity (the
        re-run at that transformation checks it)."""
        return int(self.status[i]) in (PASSES, ANONYMOUS)

    def describe(self, i: int) -> str:
        """Drawn node ``i`` in words: its levels, what is known of it, its loss."""
        levels = " · ".join(f"{a} {int(v)}/{h}" for a, v, h in zip(self.attributes, self.levels[i], self.heights))
        words = STATUS_WORDS[int(self.status[i])]
        loss = f"; {self.quality_model} {self.loss[i]:.4g}" if np.isfinite(self.loss[i]) else ""
        marks = (" — the optimum" if i == self.optimum else "") + (" — the transformation published" if i == self.chosen
                                                                  else "")
        return f"{levels}: {words}{loss}{marks}"

    def colours(self) -> np.ndarray:
        """RGB per drawn node (``uint8[m, 3]``): passing ones shaded by loss (darkest = least), see :data:`COLOURS`."""
        rgb = np.array([COLOURS[int(s)] for s in self.status], dtype=float).reshape(-1, 3)
        passing = self.status == PASSES
        if passing.any():
            loss = self.loss[passing]
            lo, hi = float(np.nanmin(loss)), float(np.nanmax(loss))
            t = (loss - lo) / (hi - lo) if hi > lo else np.zeros(len(loss))
            rgb[passing] = (1 - t)[:, None] * np.array(COLOURS[PASSES]) + t[:, None] * np.array(PALE_PASS)
        return rgb.round().astype(np.uint8)


def lattice_view(outcome: Any) -> LatticeGraph | None:
    """The graph of a ``global`` run's lattice (``None``: none), computed once per outcome (``prepare_views``
    computes it on the worker thread: a lattice of two million transformations takes a second or two)."""
    from anonstudio.core.views._cache import cached_view

    nodes = lattice_nodes_of(outcome)
    return None if nodes is None else cached_view("lattice_graph", (outcome,), lambda: lattice_graph(nodes))


def lattice_nodes_of(outcome: Any) -> LatticeNodes | None:
    """The lattice a ``global`` run's result holds (``None``: another method, or an outcome without one)."""
    details = getattr(getattr(outcome, "result", None), "details", None) or {}
    nodes = details.get("lattice_nodes")
    return nodes if isinstance(nodes, LatticeNodes) else None


def _drawn(nodes: LatticeNodes, cap: int) -> np.ndarray:
    """The node indices drawn: all when they fit, else the optimum and the chosen one, the checked ones (passing
    first, by loss), then the rest fewest level steps from the optimum."""
    if nodes.size <= cap:
        return np.arange(nodes.size, dtype=np.int64)
    first = np.array([n for n in (nodes.optimum, nodes.chosen) if n >= 0], dtype=np.int64)
    order = np.argsort(nodes.loss, kind="stable")  # inf (failing) last
    picked = _in_order(np.concatenate([first, nodes.checked[order]]))[:cap]
    if len(picked) < cap:
        target = nodes.levels_of([nodes.optimum])[0]
        # the rest by their steps from the optimum (a ball around it, whose edges are drawn), looked for in slices
        rest = []
        want = cap - len(picked)
        for start in range(0, nodes.size, 1 << 18):
            ids = np.arange(start, min(start + (1 << 18), nodes.size), dtype=np.int64)
            steps = np.abs(nodes.levels_of(ids) - target).sum(axis=1)
            near = np.argpartition(steps, min(want + len(picked), len(steps) - 1))[:want + len(picked)]
            rest.append(np.stack([steps[near], ids[near]], axis=1))
        cand = np.concatenate(rest)
        cand = cand[np.lexsort((cand[:, 1], cand[:, 0]))][:, 1]
        cand = cand[~np.isin(cand, picked)][:want]
        picked = np.concatenate([picked, cand])
    return np.sort(picked)


def _in_order(ids: np.ndarray) -> np.ndarray:
    """``ids`` without repeats, each at its first place."""
    _, first = np.unique(ids, return_index=True)
    return ids[np.sort(first)]


def lattice_graph(nodes: LatticeNodes, cap: int = MAX_DRAWN) -> LatticeGraph:
    """The graph of ``nodes`` (see the module), at most ``cap`` transformations."""
    drawn = _drawn(nodes, cap)
    levels = nodes.levels_of(drawn)
    height = levels.sum(axis=1)
    # within a height, by level vector; centred on 0, one unit apart (scaled so the widest row spans its height)
    order = np.lexsort(tuple(levels[:, a] for a in range(levels.shape[1] - 1, -1, -1)) + (height,))
    x = np.zeros(len(drawn))
    rows = np.unique(height)
    widest = max((int((height == h).sum()) for h in rows), default=1)
    span = max(float(rows.max() - rows.min()) if len(rows) else 1.0, 1.0) * 2.0
    scale = span / max(widest - 1, 1)
    for h in rows:
        members = order[height[order] == h]
        x[members] = (np.arange(len(members)) - (len(members) - 1) / 2) * scale
    status = nodes.status[drawn].astype(np.int8)
    loss = np.full(len(drawn), np.nan)
    at = np.searchsorted(nodes.checked, drawn)
    found = (at < len(nodes.checked)) & (nodes.checked[np.minimum(at, max(len(nodes.checked) - 1, 0))] == drawn) \
        if len(nodes.checked) else np.zeros(len(drawn), dtype=bool)
    loss[found] = nodes.loss[at[found]]
    loss[~np.isfinite(loss)] = np.nan
    # edges: each drawn node to its drawn direct successors
    spans = nodes.high - nodes.low + 1
    strides = np.ones(len(spans), dtype=np.int64)
    for a in range(len(spans) - 2, -1, -1):
        strides[a] = strides[a + 1] * spans[a + 1]
    pairs = []
    for a in range(len(spans)):
        can = levels[:, a] < nodes.high[a]
        succ = drawn[can] + strides[a]
        pos = np.searchsorted(drawn, succ)
        ok = (pos < len(drawn)) & (drawn[np.minimum(pos, len(drawn) - 1)] == succ)
        pairs.append(np.stack([np.flatnonzero(can)[ok], pos[ok]], axis=1))
    edges = np.concatenate(pairs) if pairs else np.zeros((0, 2), dtype=np.int64)
    checked = len(nodes.checked)
    note = (f"{nodes.size:,} transformations, {checked:,} checked by the search"
            + ("" if len(drawn) == nodes.size else
               f"; showing {len(drawn):,} of them (the checked ones first, then those fewest steps from the optimum): "
               "a lattice this large is not drawn whole"))
    graph = LatticeGraph(nodes=drawn, levels=levels, x=x, y=height.astype(float), status=status, loss=loss,
                         edges=edges.astype(np.int64), optimum=-1, chosen=-1, total=nodes.size,
                         attributes=list(nodes.attributes), heights=list(nodes.heights),
                         quality_model=nodes.quality_model, note=note)
    graph.optimum = graph.position(nodes.optimum)
    graph.chosen = graph.position(nodes.chosen) if nodes.chosen >= 0 else -1
    return graph
