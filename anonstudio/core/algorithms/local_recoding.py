"""Utility-driven local recoding (``local``): cheapest-transformation-first publication, top-down specialization
of the classes, and the suppression budget.

ARX publishes a local recoding by repeating global recoding on the records the previous round suppressed (its
``optimizeIterativeFast``; Prasser, Eicher, Spengler, Bild & Kuhn, "Flexible data anonymization using ARX —
current status and challenges ahead", Softw. Pract. Exper. 50(7), 2020). This method takes that idea to the
single transformation, then refines what it publishes:

1. **Peel the lattice** (:func:`~anonstudio.core.kernels._local.peel`). A transformation gives every
   quasi-identifier one hierarchy level (Samarati 2001); its cost is the mean cost, under the quality model, of a
   record's cells at those levels. Transformations are taken cheapest first (ties: the lower, then the first in
   the lattice's order); at each, the records still unpublished are grouped by their generalized tuple and every
   group that meets the privacy limits (k records; l-diverse if asked) is published as a class and leaves the
   rest. So a record is published at the cheapest transformation at which enough records share its generalized
   tuple, and the records of sparse regions wait for coarser transformations, as ARX's rounds let them. A class's
   cells hold the lowest common ancestors of its records (they may be lower than the transformation's levels).
   The all-root transformation is not taken: it would publish suppressed records.
2. **Specialize** (:func:`~anonstudio.core.kernels._local.specialize`). Every class is split top-down along the
   hierarchies, each time by the split that lowers its cost most (Xu, Wang, Pei, Wang, Shi & Fu, "Utility-based
   anonymization using local recoding", KDD 2006), into the children of its lowest common ancestor on one
   attribute (LeFevre, DeWitt & Ramakrishnan, Mondrian, ICDE 2006). Children too small to stand alone are pooled,
   and a pool too small borrows the records that widen it least from children with records to spare (Mondrian's
   relaxed partitioning), until no split keeps every part within the limits.
3. **Leftovers**: records no transformation below the root published join, one at a time, the class whose cost
   grows least (Byun, Kamra, Bertino & Li, DASFAA 2007), keeping entropy l-diversity when it is asked.
4. **Re-split** (:func:`~anonstudio.core.kernels._local.resplit_pairs`). Classes publishing the same cells are
   merged; then, in rounds, each class and the overlapping classes whose union with it costs least are
   specialized anew together, and the parts replace the two only if the loss drops, the discernibility (Σ size²,
   DM without suppression) does not rise and no part publishes cells another class publishes — so the pass never
   raises NCP-like loss or DM. Rounds stop when one saves less than ``MIN_ROUND_GAIN`` of what the rounds before
   it saved, or after ``MAX_ROUNDS``.
5. **Suppression budget** (:mod:`anonstudio.core.algorithms._suppression`): within ``max_suppression``, the
   outliers whose suppression lowers the loss most are suppressed, as for every generalizing method.

The quality model (``quality``, with ``weights``) sets the cell costs of every step; for the class models (dm,
aecs), which have none, the classes are shaped with NCP's and no outlier is suppressed. The method is
deterministic: no step draws at random, every tie is broken by a fixed order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonstudio.core.algorithms._base import Result
from anonstudio.core.algorithms._model_repair import REPAIRED
from anonstudio.core.algorithms._tabular import GeneralizingMethod, models_param
from anonstudio.core.models import REPAIR, Description
from anonstudio.core.params import L_DIVERSITY, L_KIND, QUALITY, WEIGHTS, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table

#: transformations peeled at most (the cheapest ones; ARX's optimal search stops at 2^31); beyond, the remaining
#: records join classes as leftovers, and the report says so
MAX_TRANSFORMATIONS = 1_000_000
#: rounds of pairwise re-splitting at most, and the partners tried per class in a round
MAX_ROUNDS = 8
PARTNERS = 2
#: a round that lowers the loss by less than this share of what the rounds before it saved is the last
MIN_ROUND_GAIN = 0.02


def transformations_by_cost(level_cost: list, limit: int = MAX_TRANSFORMATIONS) -> tuple[np.ndarray, int]:
    """The lattice's transformations (a level per attribute) cheapest first, the all-root one left out, at most
    ``limit`` of them; ``level_cost[a][j]``: the cost of attribute ``a`` at level ``j`` (increasing in ``j``).
    Ties: the lower transformation (smaller sum of levels), then the lattice's order (last attribute fastest).
    Returns ``(levels int64[m, d], lattice size)``."""
    import heapq

    import numpy as np

    d = len(level_cost)
    spans = [len(c) for c in level_cost]
    size = int(np.prod(spans)) if d else 1
    if size <= 2_000_000:
        grid = np.indices(tuple(spans)).reshape(d, -1).T.astype(np.int64)
        cost = np.zeros(len(grid))
        for a in range(d):
            cost += np.asarray(level_cost[a])[grid[:, a]]
        order = np.lexsort((np.arange(len(grid)), grid.sum(axis=1), cost))
        order = order[order != size - 1]  # the all-root transformation is the last in the lattice's order
        return grid[order[:limit]], size
    # a lattice too large to enumerate: best-first from the bottom (costs only grow upwards)
    start = (0,) * d
    heap = [(0.0 + sum(c[0] for c in level_cost), 0, start)]
    seen = {start}
    out = []
    top = tuple(s - 1 for s in spans)
    while heap and len(out) < limit:
        cost, height, node = heapq.heappop(heap)
        if node != top:
            out.append(node)
        for a in range(d):
            if node[a] + 1 < spans[a]:
                nxt = node[:a] + (node[a] + 1,) + node[a + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    c = cost - level_cost[a][node[a]] + level_cost[a][node[a] + 1]
                    heapq.heappush(heap, (c, height + 1, nxt))
    return np.array(out, dtype=np.int64).reshape(-1, d), size


class LocalRecoding(GeneralizingMethod):
    """Utility-driven local recoding (see the module): k-anonymity with optional l-diversity, the quality model's
    loss minimized by peeling the lattice cheapest first, specializing the classes top-down, joining the
    leftovers and spending the suppression budget on outliers."""

    name = "local"
    title = "Local recoding (cheapest transformation first, specialized)"
    reference = ("F. Prasser et al.: Flexible data anonymization using ARX, Softw. Pract. Exper. 2020 (local "
                 "recoding by repeated global recoding); J. Xu et al.: Utility-based anonymization using local "
                 "recoding, KDD 2006; K. LeFevre et al.: Mondrian multidimensional k-anonymity, ICDE 2006")
    description = ("publishes every record at the cheapest hierarchy levels at which at least k records share its "
                   "generalized values, splits the classes further where the hierarchies allow, and suppresses "
                   "outliers within max_suppression when the quality model prefers it (k-anonymity, optional "
                   "l-diversity)")
    group_unit = "class"
    counts_people = True
    privacy_models = Description(("k-anonymity", "l-diversity (entropy or distinct, with l)"), REPAIR)
    enforced_models = REPAIRED
    parameters = ParamSet((
        Param("k", "int", 5, help="k-anonymity: every published class holds at least k records", low=2),
        L_DIVERSITY,
        L_KIND,
        models_param(REPAIRED),
        QUALITY,
        WEIGHTS,
    ))

    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None) -> Result:
        import numpy as np
        import pandas as pd

        from anonstudio.core.algorithms._suppression import cell_costs
        from anonstudio.core.kernels._generalize import class_lca
        from anonstudio.core.kernels._local import join_leftovers, peel, resplit_pairs, specialize
        from anonstudio.core.models import partition_limits

        packed, leaf_nodes, missing, idx = self.encoded(data, hierarchies)
        sens_all, n_sens = self.sensitive_codes(data)
        limits = partition_limits(self.models())
        k = int(limits["min_size"])
        min_distinct = int(limits.get("min_distinct", 1))
        log_l = float(limits.get("min_entropy", 0.0))
        sub = np.ascontiguousarray(leaf_nodes[idx], dtype=np.int32)
        sens = np.ascontiguousarray(sens_all[idx], dtype=np.int64)
        self.check_diversity(data, sens, n_sens, limits)
        costs = cell_costs(packed, sub, self.params["quality"], self.params.get("weights"))
        n, d = sub.shape
        # distinct (quasi-identifiers, sensitive value) tuples, numbered by first record
        key = np.zeros(n, dtype=np.int64)
        for a in range(d):
            key = pd.factorize(key * (int(sub[:, a].max()) + 1 if n else 1) + sub[:, a])[0].astype(np.int64)
        key = pd.factorize(key * (n_sens + 1) + (sens + 1))[0].astype(np.int64)
        n_tuples = int(key.max()) + 1 if n else 0
        first = np.full(n_tuples, n, dtype=np.int64)
        np.minimum.at(first, key, np.arange(n))
        tuple_leaf = np.ascontiguousarray(sub[first])
        tuple_count = np.bincount(key, minlength=n_tuples).astype(np.int64)
        tuple_sens = sens[first]
        # transformations, cheapest first: a level's cost is the mean cost of the records' cells at that level
        level_cost = [[float(costs.node_cost[packed.node_anc[sub[:, a], j]].mean()) if n else 0.0
                       for j in range(int(packed.heights[a]) + 1)] for a in range(d)]
        transformations, lattice = transformations_by_cost(level_cost)
        report(progress, 0.02, f"peeling {len(transformations):,} transformations")
        tuple_class = np.full(n_tuples, -1, dtype=np.int64)
        remaining = np.arange(n_tuples, dtype=np.int64)
        n_remaining, n_classes, done, chunk = n_tuples, 0, 0, 16
        while done < len(transformations) and n_remaining and tuple_count[remaining[:n_remaining]].sum() >= k:
            stop = min(done + chunk, len(transformations))
            n_remaining, n_classes = peel(tuple_leaf, tuple_count, tuple_sens, packed.node_anc, transformations, k,
                                          n_sens, min_distinct, log_l, tuple_class, remaining, n_remaining,
                                          n_classes, done, stop)
            done = stop
            # chunks grow by a fixed factor, not by the time a chunk took: the transformations counted in the report
            # ("done") must not depend on the machine's load (a run and its re-derivation gave 357 and 359)
            chunk = min(4096, chunk * 4)
            report(progress, 0.02 + 0.6 * (n - int(tuple_count[remaining[:n_remaining]].sum())) / max(n, 1),
                   f"{n_classes:,} classes after {done:,} transformations")
        labels = tuple_class[key] if n else np.zeros(0, dtype=np.int64)
        peeled = n_classes
        if n_classes == 0 and n >= k:  # no transformation below the root publishes: one class of every record
            labels = np.zeros(n, dtype=np.int64)
            n_classes = 1
        # specialize every class top-down
        report(progress, 0.65, f"specializing {n_classes:,} classes")
        kept = labels >= 0
        perm = np.argsort(np.where(kept, labels, n_classes), kind="stable").astype(np.int64)
        bounds = np.zeros(n_classes + 1, dtype=np.int64)
        bounds[1:] = np.cumsum(np.bincount(labels[kept], minlength=n_classes))
        final = np.full(n, -1, dtype=np.int64)
        fan = max_fan_out(packed)
        n_final = specialize(sub, perm, bounds[:-1].copy(), bounds[1:].copy(), packed.node_anc, packed.node_level,
                             costs.node_cost, sens, n_sens, k, min_distinct, log_l, fan, final)
        n_specialized = n_final
        # leftovers join the class whose cost grows least
        leftovers = np.flatnonzero(~kept)
        nodes = class_lca(sub, final, n_final, packed.node_anc, packed.node_level)
        sizes = np.bincount(final[final >= 0], minlength=n_final).astype(np.int64)
        class_sens = np.zeros((n_final, n_sens) if log_l > 0 else (1, 1), dtype=np.int64)
        if log_l > 0:
            present = (final >= 0) & (sens >= 0)
            np.add.at(class_sens, (final[present], sens[present]), 1)
        lost = 0
        if len(leftovers) and n_final:
            report(progress, 0.8, f"{len(leftovers):,} records join classes")
            lost = join_leftovers(sub, leftovers, final, nodes, sizes, n_final, packed.node_anc, packed.node_level,
                                  costs.node_cost, sens, class_sens, n_sens if log_l > 0 else 0, log_l, True)
        # classes that publish the same cells are one class (leftovers joining may make such), before the
        # re-split (which makes none: it measures each class's discernibility) and after it
        final, n_final, merged = merge_same_cells(sub, final, n_final, packed)
        # pairs of classes whose union costs least re-split together, while that lowers the cost
        scratch = np.full(n, -1, dtype=np.int64)
        node_rank = depth_first_ranks(packed.node_anc, packed.node_level)
        dirty = np.ones(max(n, 1), dtype=np.bool_)
        reach = np.full(max(n, 1), np.inf)
        pairs_resplit, rounds, saved_total = 0, 0, 0.0
        while rounds < MAX_ROUNDS:
            n_final, done_pairs, saved = resplit_pairs(sub, final, n_final, packed.node_anc, packed.node_level,
                                                   costs.node_cost, node_rank, sens, n_sens, k, min_distinct,
                                                   log_l, fan, PARTNERS, scratch, dirty, reach)
            rounds += 1
            pairs_resplit += done_pairs
            report(progress, 0.85 + 0.1 * rounds / MAX_ROUNDS, f"re-split {pairs_resplit:,} pairs of classes")
            saved_total += saved
            if not done_pairs or saved < MIN_ROUND_GAIN * saved_total:
                break
        final, n_final, merged_after = merge_same_cells(sub, final, n_final, packed)
        merged += merged_after
        report(progress, 0.95, "suppression budget")
        spent = self.settle_classes(data, hierarchies, packed, sub, final, sens, n_sens, limits, costs, missing,
                                       np.concatenate([sens_all[missing], sens[final < 0]]), already=lost)
        notes = [
            f"local recoding: {peeled:,} classes published over {done:,} of the lattice's {lattice:,} "
            f"transformations, cheapest first under '{costs.model}'; top-down specialization split them into "
            f"{n_specialized:,} classes; re-splitting {pairs_resplit:,} pairs of classes together in {rounds} "
            f"round(s) left {n_final:,}",
        ]
        if merged:
            notes.append(f"{merged:,} class{'es' if merged != 1 else ''} published the same cells as another and "
                         "joined it")
        if len(transformations) < lattice - 1:
            notes.append(f"the lattice has {lattice:,} transformations: only the {len(transformations):,} cheapest "
                         "were peeled; the records none of them published joined classes")
        if len(leftovers):
            joined = len(leftovers) - lost
            notes.append(f"{joined:,} record{'s' if joined != 1 else ''} that no transformation below the root "
                         "published joined the class whose loss grew least"
                         + (f"; {lost} found no class that stays l-diverse and were suppressed" if lost else ""))
        report(progress, 1.0, f"{n_final:,} classes")
        return self.finish(data, packed, idx, sub, spent.labels, missing,
                           metrics={"classes_peeled": peeled, "transformations_peeled": done,
                                    "lattice": lattice, "classes_specialized": n_specialized,
                                    "pairs_resplit": pairs_resplit, "leftovers": int(len(leftovers)),
                                    "suppressed_outliers": spent.suppressed, "quality_model": costs.model},
                           notes=notes + costs.notes + spent.notes)


def merge_same_cells(sub: np.ndarray, labels: np.ndarray, n_classes: int, packed) -> tuple[np.ndarray, int, int]:
    """Classes (``labels`` per record, -1 none) whose records' lowest common ancestors are the same cells joined
    into one, numbered by their first class. Returns ``(labels, classes, classes merged away)``."""
    import numpy as np

    from anonstudio.core.kernels._generalize import class_lca

    if not n_classes:
        return labels, n_classes, 0
    nodes = class_lca(sub, labels, n_classes, packed.node_anc, packed.node_level)
    _, first_class, same = np.unique(nodes, axis=0, return_index=True, return_inverse=True)
    if len(first_class) == n_classes:
        return labels, n_classes, 0
    _, canon = np.unique(first_class[same.ravel()], return_inverse=True)
    out = np.where(labels >= 0, canon.ravel()[np.maximum(labels, 0)], -1).astype(np.int64)
    return out, len(first_class), n_classes - len(first_class)


def depth_first_ranks(node_anc, node_level) -> np.ndarray:
    """Each packed node's place in a depth-first walk of its hierarchy (a node before its descendants, the
    subtrees of one node together): the nodes sorted by their ancestors from the root down."""
    import numpy as np

    height = node_anc.shape[1]
    above = np.arange(height)[None, :] >= np.asarray(node_level)[:, None]
    path = np.where(above, node_anc, -1)  # levels below a node: -1, so it sorts before its descendants
    order = np.lexsort([path[:, j] for j in range(height)])  # the last key (the root) is the primary one
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def max_fan_out(packed) -> int:
    """The most children any node of the packed hierarchies has."""
    import numpy as np

    most = 1
    for level in range(1, packed.node_anc.shape[1]):
        below = packed.node_level == level - 1
        parents = packed.node_anc[below, level]
        parents = parents[parents >= 0]
        if len(parents):
            most = max(most, int(np.bincount(parents).max()))
    return most
