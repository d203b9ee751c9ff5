"""The suppression budget every generalizing table method spends, and the cell costs of a quality model.

A local recoding generalizes a whole class to the lowest common ancestors of its records, so one record far from
the others (an *outlier*: the only non-U.S. native country of a class) makes every record of its class pay.
ARX trades such records for suppression within its suppression limit (Prasser & Kohlmayer 2015); so does
:func:`spend_budget`, for mondrian, kmember, mst and local (global suppresses within its lattice search): within
``max_suppression`` of the records (the job's pipeline key, less the records a missing quasi-identifier
suppresses anyway), it suppresses the outliers whose suppression lowers the chosen quality model's loss most per
record suppressed, until no removal lowers it or the budget is spent (:mod:`anonstudio.core.kernels._suppress`
finds each class's best removal; one removal per class per round, rounds until none gains).

**Cell costs** (:func:`cell_costs`). The additive quality models (:mod:`anonstudio.core.metrics._quality`) are,
per attribute ``a``, a sum of per-cell costs ``node_term[node] - leaf_term[leaf]`` over the records, divided by
its value with every cell at the root, and the attributes are combined by their weights. Here a cell published
at ``node`` costs ``node_cost[node] = d · w_a / Σw · node_term[node] / (mean root cost of a)`` (the leaf terms
cancel in every comparison a method makes: they do not depend on how records are grouped or whether one is
suppressed), so a record at the root of every attribute costs about ``d``, and the loss of a release is the sum
of its cells' costs over ``n · d``. A suppressed record costs its root cells. ARX's Loss combines the attributes
by a geometric mean: the methods minimize its weighted sum (the same per-attribute shares; the first-order form of
the geometric mean). The class models (dm, aecs) have no cell costs: a suppressed record costs ``n`` under DM
(and suppressing shrinks no class below k), so a removal never lowers them; methods that need cell costs to shape
classes use NCP's then, and suppress no outlier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: declaring a method imports no numpy (issue 17)
    import numpy as np

    from anonstudio.core.algorithms._tabular import PackedHierarchies


@dataclass
class CellCosts:
    """Per packed node the cost of one cell published there (``node_cost``), a suppressed record's cost
    (``suppress``: its cells at the roots) and whether the quality model can prefer suppression (``trades``)."""

    node_cost: np.ndarray
    suppress: float
    trades: bool
    model: str
    notes: list[str] = field(default_factory=list)


def cell_costs(packed: PackedHierarchies, leaf_nodes: np.ndarray, quality: str, weights) -> CellCosts:
    """The cell costs of the quality model ``quality`` for the records whose packed leaves are ``leaf_nodes``
    (every quasi-identifier present), at the job's ``weights`` (see the module)."""
    import numpy as np

    from anonstudio.core.metrics._quality import MODELS, AdditiveModel, weight_vector

    model = MODELS[quality]
    additive = isinstance(model, AdditiveModel)
    shaping = model if additive else MODELS["ncp"]
    w = weight_vector(weights if additive else None, packed.attributes)
    if not np.any(w > 0):
        w = np.ones(packed.d)
    share = packed.d * w / w.sum()
    node_cost = np.zeros(len(packed.node_level))
    suppress = 0.0
    for a, h in enumerate(packed.hierarchies):
        off = int(packed.offsets[a])
        leaves = (leaf_nodes[:, a] - off) if len(leaf_nodes) else np.zeros(0, dtype=np.int64)
        # local node id -> leaf index (the hierarchy's leaf order)
        leaf_of_node = np.full(h.n_nodes, -1, dtype=np.int64)
        leaf_of_node[h.arrays.ancestor[:, 0]] = np.arange(len(h.leaves))
        per_leaf = np.bincount(leaf_of_node[leaves], minlength=len(h.leaves)).astype(np.float64)
        node_term, leaf_term = shaping.node_terms(h, per_leaf)
        root = int(h.arrays.ancestor[0, h.height])
        present = float(per_leaf.sum())
        mean_root = (float(node_term[root]) - float((leaf_term * per_leaf).sum()) / present) if present else 0.0
        if mean_root <= 0:  # nothing to lose on this attribute (one value): its cells cost nothing
            continue
        node_cost[off : off + h.n_nodes] = share[a] * np.asarray(node_term, dtype=np.float64) / mean_root
        suppress += float(node_cost[off + root])
    notes = []
    if not additive:
        notes.append(f"the quality model '{model.name}' counts classes, not cells: the classes were shaped with "
                     "NCP's cell costs, and no outlier was suppressed (a suppressed record costs n under DM)")
    return CellCosts(node_cost, suppress, additive, model.name, notes)


@dataclass
class Spent:
    """What :func:`spend_budget` did: the records' classes afterwards (-1 suppressed), how many outliers it
    suppressed and the budget it had, and the report's sentences."""

    labels: np.ndarray
    suppressed: int
    budget: int
    notes: list[str]


def budget_of(share: float, n: int, already: int) -> int:
    """Records a method may still suppress: ``share`` of ``n`` less the ``already`` suppressed (a missing
    quasi-identifier; more than the share is for the verifier to refuse)."""
    return max(math.floor(share * n + 1e-9) - already, 0)


def spend_budget(leaf: np.ndarray, labels: np.ndarray, packed: PackedHierarchies, costs: CellCosts, budget: int,
                 limits: dict, sens: np.ndarray, n_sens: int, blocked_sens: np.ndarray | None = None,
                 max_rounds: int = 64) -> Spent:
    """Suppress outliers (see the module) of the classes ``labels`` (per record of ``leaf``; -1: suppressed
    already) within ``budget`` records. ``limits``: :func:`~anonstudio.core.models.partition_limits` of
    the job's models; ``sens``: sensitive codes per record (-1 missing). With l-diversity the verifier judges the
    suppressed records as one more class: the outliers are suppressed only if that class is then l-diverse
    together with ``blocked_sens`` (the sensitive codes of records suppressed otherwise); if not, the last
    removals are undone until it is."""
    import numpy as np

    from anonstudio.core.kernels._generalize import class_lca
    from anonstudio.core.kernels._suppress import best_removals, mark_removal
    from anonstudio.core.progress import checkpoint

    labels = np.array(labels, dtype=np.int64, copy=True)
    k = int(limits["min_size"])
    min_distinct = int(limits.get("min_distinct", 1))
    log_l = float(limits.get("min_entropy", 0.0))
    if not costs.trades or budget <= 0 or not len(labels):
        return Spent(labels, 0, max(budget, 0), [])
    sens = np.ascontiguousarray(sens, dtype=np.int64)
    used = 0
    accepted: list[tuple[np.ndarray, int]] = []  # (records suppressed, their former class)
    for _ in range(max_rounds):
        kept = labels >= 0
        n_classes = int(labels.max()) + 1 if kept.any() else 0
        if n_classes == 0:
            break
        nodes = class_lca(leaf, labels, n_classes, packed.node_anc, packed.node_level)
        order = np.argsort(np.where(kept, labels, n_classes), kind="stable")[: int(kept.sum())]
        cstart = np.zeros(n_classes + 1, dtype=np.int64)
        cstart[1:] = np.cumsum(np.bincount(labels[kept], minlength=n_classes))
        gain = np.zeros(n_classes)
        attr = np.zeros(n_classes, dtype=np.int64)
        removed = np.zeros(n_classes, dtype=np.int64)
        best_removals(leaf, order, cstart, nodes.astype(np.int32), packed.node_anc, packed.node_level,
                      costs.node_cost, costs.suppress, k, sens, n_sens, min_distinct, log_l, gain, attr, removed)
        candidates = np.flatnonzero(gain > 0)
        if not len(candidates):
            break
        # most gain per suppressed record first (ties: the lower class), while the budget lasts
        rate = gain[candidates] / removed[candidates]
        candidates = candidates[np.lexsort((candidates, -rate))]
        taken = 0
        for c in candidates.tolist():
            if used + removed[c] > budget:
                continue
            before = labels < 0
            used += mark_removal(leaf, order, cstart, c, int(attr[c]), nodes.astype(np.int32), packed.node_anc,
                                 packed.node_level, labels)
            accepted.append((np.flatnonzero((labels < 0) & ~before), c))
            taken += 1
        checkpoint()
        if not taken or used >= budget:
            break
    if accepted and (min_distinct > 1 or log_l > 0):
        from anonstudio.core.kernels._local import diverse

        blocked = np.zeros(0, dtype=np.int64) if blocked_sens is None else np.asarray(blocked_sens, dtype=np.int64)
        scratch = np.zeros(max(n_sens, 1), dtype=np.int64)
        while accepted:
            block = np.concatenate([blocked] + [sens[r] for r, _ in accepted])
            if diverse(scratch, block, len(block), min_distinct, log_l):
                break
            undone, former = accepted.pop()
            used -= len(undone)
            labels[undone] = former
    notes = []
    if used:
        notes.append(f"{used} record{'s were' if used != 1 else ' was'} suppressed as outlier"
                     f"{'s' if used != 1 else ''}: each forced its class to a wider "
                     f"generalization, and suppressing it costs less under the quality model '{costs.model}' "
                     f"(budget: {budget} record{'s' if budget != 1 else ''} within max_suppression)")
    return Spent(labels, used, budget, notes)

