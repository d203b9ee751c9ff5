"""The MST partition drawing: the records (or distinct tuples) of an MST method's tree laid out class by class, the
kept and removed edges, and hover labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from anonstudio.core.views._cache import cached_view
from anonstudio.core.views._classes import class_sizes, frame_of

#: most nodes the MST pane lays out; above it whole classes are sampled
MST_MAX_NODES = 1000


@dataclass
class MstView:
    """What the MST pane draws: node positions, class per node, kept and removed edges (node indices into
    the drawn nodes), and labels for hover text."""

    pos: np.ndarray
    node_class: np.ndarray
    node_ids: np.ndarray
    kept: np.ndarray
    removed: np.ndarray
    n_total: int
    unit: str
    labels: list[str]
    class_size: dict[int, int]

    @property
    def sampled(self) -> bool:
        return len(self.node_ids) < self.n_total


def _as_edges(a: Any) -> np.ndarray:
    arr = np.asarray(a if a is not None else np.zeros((0, 2)), dtype=np.int64)
    return arr.reshape(-1, 2) if arr.size else np.zeros((0, 2), dtype=np.int64)


def mst_view(outcome: Any, *, max_nodes: int = MST_MAX_NODES, seed: int = 0) -> MstView | None:
    """Lay out the MST of ``outcome.result.details`` in 2-D, or ``None`` when the method has no MST.

    Nodes are records, or distinct quasi-identifier tuples when ``details["tuple_of_record"]`` maps records
    to tuples. ``details["removed_edges"]`` is either indices into ``mst_edges`` or an m×2 array of node
    pairs, or a boolean mask over ``mst_edges``. Above ``max_nodes`` nodes, whole classes are sampled at random (fixed seed) until the limit.
    Layout: :func:`class_packed_layout` — each class by :func:`force_layout` of its tree edges (weighted by
    ``1 / (1 + weight)``), the classes packed on a grid.
    """
    return cached_view(f"mst_view:{max_nodes}:{seed}", (outcome,), lambda: _mst_view(outcome, max_nodes, seed))


def _mst_view(outcome: Any, max_nodes: int, seed: int) -> MstView | None:
    result = outcome.result
    details = result.details or {}
    if details.get("mst_edges") is None:
        return None
    edges = _as_edges(details["mst_edges"])
    weights = np.asarray(details.get("mst_weights", np.ones(len(edges))), dtype=float).reshape(-1)
    if len(weights) != len(edges):
        weights = np.ones(len(edges))
    removed_raw = details.get("removed_edges")
    removed_mask = np.zeros(len(edges), dtype=bool)
    if removed_raw is not None and np.size(removed_raw):
        raw = np.asarray(removed_raw)
        r = raw.astype(np.int64)
        if raw.dtype == bool and raw.ndim == 1 and len(raw) == len(edges):  # a mask over mst_edges
            removed_mask = raw.copy()
        elif r.ndim == 2:
            pairs = {(min(a, b), max(a, b)) for a, b in r}
            removed_mask = np.array([(min(a, b), max(a, b)) in pairs for a, b in edges], dtype=bool)
        else:
            removed_mask[r[(r >= 0) & (r < len(edges))]] = True

    groups = np.asarray(result.groups, dtype=np.int64)
    tor = details.get("tuple_of_record")
    frame = frame_of(outcome.data)
    qis = list(getattr(outcome.data, "quasi_identifiers", []) or [])
    if tor is not None:
        tor = np.asarray(tor, dtype=np.int64)
        n_total = int(max(tor.max(initial=-1), edges.max(initial=-1)) + 1)
        node_class = np.full(n_total, -1, dtype=np.int64)
        first_record = np.full(n_total, -1, dtype=np.int64)
        multiplicity = np.bincount(tor[tor >= 0], minlength=n_total)
        order = np.arange(len(tor))[::-1]
        first_record[tor[order]] = order  # the first record of each tuple wins (written last)
        valid = first_record >= 0
        node_class[valid] = groups[first_record[valid]]
        unit = "tuples"
    else:
        n_total = int(max(len(groups), edges.max(initial=-1) + 1))
        node_class = np.full(n_total, -1, dtype=np.int64)
        node_class[: len(groups)] = groups
        first_record = np.arange(n_total)
        multiplicity = np.ones(n_total, dtype=np.int64)
        unit = "records"

    # choose the nodes to draw
    rng = np.random.default_rng(seed)
    if n_total <= max_nodes:
        chosen = np.arange(n_total)
    else:
        classes = np.unique(node_class)
        rng.shuffle(classes)
        members = {int(c): np.flatnonzero(node_class == c) for c in classes}
        picked: list[np.ndarray] = []
        total = 0
        for c in classes:
            m = members[int(c)]
            if c < 0:  # suppressed nodes are sampled singly
                m = m[: max(0, min(len(m), (max_nodes - total) // 10))]
            if total + len(m) > max_nodes and total > 0:
                continue
            picked.append(m)
            total += len(m)
            if total >= max_nodes:
                break
        chosen = np.sort(np.concatenate(picked)) if picked else np.zeros(0, dtype=np.int64)
    local = np.full(n_total, -1, dtype=np.int64)
    local[chosen] = np.arange(len(chosen))
    keep_edge = (local[edges[:, 0]] >= 0) & (local[edges[:, 1]] >= 0) if len(edges) else np.zeros(0, dtype=bool)
    e_local = local[edges[keep_edge]] if len(edges) else np.zeros((0, 2), dtype=np.int64)
    w_local = weights[keep_edge]
    rem_local = removed_mask[keep_edge]

    node_class_c = node_class[chosen]
    pos = class_packed_layout(node_class_c, e_local, 1.0 / (1.0 + np.maximum(w_local, 0.0)), seed=seed)
    ids, sizes = class_sizes(groups)
    class_size = {int(c): int(s) for c, s in zip(ids, sizes)}
    labels: list[str] = []
    values = frame[qis].astype("string").fillna("").to_numpy(dtype=object) if frame is not None and qis else None
    for n in chosen:
        rec = int(first_record[n])
        cls = int(node_class[n])
        head = f"record {rec + 1}" if unit == "records" else f"tuple {n} (first record {rec + 1}, ×{multiplicity[n]})"
        body = ""
        if values is not None and 0 <= rec < len(values):
            body = "\n" + ", ".join(f"{q}={v}" for q, v in zip(qis, values[rec]))
        cls_text = "suppressed" if cls < 0 else f"class {cls} ({class_size.get(cls, 0)} records)"
        labels.append(f"{head}{body}\n{cls_text}")
    return MstView(
        pos=pos,
        node_class=node_class_c,
        node_ids=chosen,
        kept=e_local[~rem_local],
        removed=e_local[rem_local],
        n_total=n_total,
        unit=unit,
        labels=labels,
        class_size=class_size,
    )


def class_packed_layout(node_class: np.ndarray, edges: np.ndarray, weights: np.ndarray, *, seed: int = 0) -> np.ndarray:
    """Each class laid out on its own (:func:`force_layout` of its vertices and the tree edges inside it), the
    classes then packed on a grid in class order, each in a cell scaled by the square root of its size — so
    classes read as separate clusters and the removed edges between them as the cuts. Returns ``float[n, 2]``."""
    n = len(node_class)
    pos = np.zeros((n, 2))
    if n == 0:
        return pos
    classes = list(dict.fromkeys(node_class.tolist()))
    cols = int(np.ceil(np.sqrt(len(classes))))
    a = edges[:, 0] if len(edges) else np.zeros(0, dtype=np.int64)
    b = edges[:, 1] if len(edges) else np.zeros(0, dtype=np.int64)
    largest = max(int((node_class == c).sum()) for c in classes)
    for i, c in enumerate(classes):
        members = np.flatnonzero(node_class == c)
        local = np.full(n, -1, dtype=np.int64)
        local[members] = np.arange(len(members))
        inside = (local[a] >= 0) & (local[b] >= 0) if len(a) else np.zeros(0, dtype=bool)
        sub_edges = np.stack([local[a[inside]], local[b[inside]]], 1) if inside.any() else np.zeros((0, 2), dtype=np.int64)
        p = force_layout(len(members), sub_edges, np.asarray(weights)[inside] if len(a) else np.zeros(0), seed=seed)
        p = p - p.mean(0)
        extent = np.abs(p).max() or 1.0
        radius = 0.42 * np.sqrt(len(members) / largest)
        pos[members] = p / extent * radius + np.array([i % cols, -(i // cols)], dtype=float)
    return pos


def force_layout(n: int, edges: np.ndarray, weights: np.ndarray, *, iterations: int = 60, seed: int = 0) -> np.ndarray:
    """Fruchterman & Reingold's force-directed placement (Softw. Pract. Exper. 21(11), 1991): all pairs
    repel with k²/d, edge ends attract with w·d²/k, moves capped by a cooling temperature.

    The same algorithm as networkx's ``spring_layout``, vectorised over all pairs with numpy (float32
    n×n per iteration), which is ~30× faster for the ≤ 1000 vertices drawn here. Returns ``float[n, 2]``.
    """
    rng = np.random.default_rng(seed)
    if n == 0:
        return np.zeros((0, 2))
    x = rng.random(n).astype(np.float32)
    y = rng.random(n).astype(np.float32)
    if n == 1:
        return np.stack([x, y], 1).astype(float)
    k2 = np.float32(1.0 / n)
    k = float(np.sqrt(k2))
    a = edges[:, 0].astype(np.int64) if len(edges) else np.zeros(0, dtype=np.int64)
    b = edges[:, 1].astype(np.int64) if len(edges) else np.zeros(0, dtype=np.int64)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    t = 0.1
    dt = t / (iterations + 1)
    for _ in range(iterations):
        dx = x[:, None] - x[None, :]
        dy = y[:, None] - y[None, :]
        f = dx * dx
        f += dy * dy
        np.maximum(f, np.float32(1e-6), out=f)
        np.divide(k2, f, out=f)
        disp_x = (dx * f).sum(1, dtype=np.float64)
        disp_y = (dy * f).sum(1, dtype=np.float64)
        if len(a):
            ex = (x[a] - x[b]).astype(np.float64)
            ey = (y[a] - y[b]).astype(np.float64)
            d = np.sqrt(ex * ex + ey * ey) * w / k
            disp_x -= np.bincount(a, ex * d, n) - np.bincount(b, ex * d, n)
            disp_y -= np.bincount(a, ey * d, n) - np.bincount(b, ey * d, n)
        length = np.sqrt(disp_x * disp_x + disp_y * disp_y) + 1e-9
        step = np.minimum(length, t) / length
        x += (disp_x * step).astype(np.float32)
        y += (disp_y * step).astype(np.float32)
        t -= dt
    return np.stack([x, y], 1).astype(float)

