"""MST-based local recoding for k-anonymity (``mst``).

K. Venkata Ramana & V. Valli Kumari, "Graph based local recoding for data anonymization",
International Journal of Database Management Systems 5(4), 2013 (paper 002 in ``shared/papers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonstudio.core.algorithms._base import Result
from anonstudio.core.algorithms._model_repair import REPAIRED
from anonstudio.core.algorithms._tabular import (
    GeneralizingMethod,
    PackedHierarchies,
    models_param,
    renumber_by_first_record,
)
from anonstudio.core.models import REPAIR, Description
from anonstudio.core.params import L_DIVERSITY, L_KIND, QUALITY, WEIGHTS, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report, subrange

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table

#: tree vertices added per Prim kernel call between progress reports
_PRIM_CHUNK = 2048
#: small classes handled per merge kernel call between progress reports
_MERGE_CHUNK = 4096


@dataclass
class SpanningTree:
    """A spanning tree over records ``0..n-1``: edge ``e`` joins ``lo[e] < hi[e]`` with integer weight
    ``weight[e]``; the HDist of the edge is ``weight[e] / scale`` (002 Eq. 3)."""

    lo: np.ndarray
    hi: np.ndarray
    weight: np.ndarray
    scale: int

    @property
    def total(self) -> float:
        return float(self.weight.sum()) / self.scale

    def edge_set(self) -> set[tuple[int, int]]:
        return set(zip(self.lo.tolist(), self.hi.tolist()))


def hdist_matrix(leaf_nodes: np.ndarray, packed: PackedHierarchies) -> np.ndarray:
    """The distance matrix ``D_T`` (002 Eq. 4) of HDist (Eqs 1-3) values, as floats. O(n^2) memory:
    for small inputs only (tests, the GUI's matrix view)."""
    import numpy as np

    from anonstudio.core.kernels._mst import hdist_matrix as kernel

    w_level, scale = packed.hdist_level_weights()
    m = kernel(np.ascontiguousarray(leaf_nodes, dtype=np.int32), w_level, packed.node_anc, packed.node_level)
    return m / scale


def kruskal_tree(leaf_nodes: np.ndarray, packed: PackedHierarchies) -> SpanningTree:
    """Kruskal's algorithm on the full distance matrix, as the paper builds the tree (002 §4.2), edges
    taken in order of ``(weight, i, j)``. O(n^2) memory: the reference for small inputs."""
    import numpy as np

    from anonstudio.core.kernels._mst import hdist_matrix as kernel
    from anonstudio.core.kernels._mst import kruskal_edges

    w_level, scale = packed.hdist_level_weights()
    n = len(leaf_nodes)
    mat = kernel(np.ascontiguousarray(leaf_nodes, dtype=np.int32), w_level, packed.node_anc, packed.node_level)
    ei, ej = np.triu_indices(n, 1)
    w = mat[ei, ej]
    order = np.lexsort((ej, ei, w))
    keep = kruskal_edges(n, ei.astype(np.int64), ej.astype(np.int64), order.astype(np.int64))
    return SpanningTree(ei[keep].astype(np.int64), ej[keep].astype(np.int64), w[keep], scale)


def prim_tree(
    leaf_nodes: np.ndarray, packed: PackedHierarchies, progress: ProgressCallback | None = None
) -> SpanningTree:
    """The same minimum spanning tree as :func:`kruskal_tree` in O(n^2) time and O(n) memory.

    Prim's algorithm runs over the *distinct* QI tuples (their multiplicities joined to the tuple's first
    record by weight-0 edges), computing HDist on the fly. Edges compare by ``(weight, lo, hi)`` with ``lo``/
    ``hi`` the first records of the two tuples: a strict total order, so the minimum spanning tree is unique
    and equals Kruskal's on the full record matrix (ties included).
    """
    import numpy as np

    from anonstudio.core.kernels._mst import prim_chunk

    n, d = leaf_nodes.shape
    w_level, scale = packed.hdist_level_weights()
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return SpanningTree(empty, empty, empty, scale)
    import pandas as pd

    # tuple id per record in order of first record: a mixed-radix key factorized column by column (short calls;
    # np.unique(axis=0) held the interpreter lock for seconds at 1M rows and froze the workbench)
    tuple_of = np.zeros(n, dtype=np.int64)
    for a in range(d):
        col = leaf_nodes[:, a].astype(np.int64)
        tuple_of = pd.factorize(tuple_of * (int(col.max()) + 1) + col)[0].astype(np.int64)
    rep = np.unique(tuple_of, return_index=True)[1].astype(np.int64)  # first record of each tuple
    tuples = leaf_nodes[rep]
    m = len(tuples)
    tleaf = np.empty((m, d), dtype=np.int32)
    pres_nodes = []
    pres_off = np.zeros(d + 1, dtype=np.int64)
    for a in range(d):
        vals, tinv = np.unique(tuples[:, a], return_inverse=True)
        tleaf[:, a] = tinv.reshape(-1)
        pres_nodes.append(vals)
        pres_off[a + 1] = pres_off[a] + len(vals)
    pres_node = np.concatenate(pres_nodes).astype(np.int32) if d else np.zeros(0, dtype=np.int32)
    in_tree = np.zeros(m, dtype=np.bool_)
    big = np.iinfo(np.int64).max
    key_w = np.full(m, big, dtype=np.int64)
    key_lo = np.full(m, big, dtype=np.int64)
    key_hi = np.full(m, big, dtype=np.int64)
    parent = np.full(m, -1, dtype=np.int64)
    row = np.zeros(max(int(pres_off[-1]), 1), dtype=np.int64)
    nxt = 0
    done = 0
    while nxt >= 0:
        steps = min(_PRIM_CHUNK, m - done)
        nxt = prim_chunk(
            tleaf, pres_off, pres_node, rep, w_level, packed.node_anc, packed.node_level,
            in_tree, key_w, key_lo, key_hi, parent, row, nxt, steps,
        )
        done += steps
        report(progress, done / m, f"spanning tree: {done}/{m} distinct tuples")
    tree_v = np.arange(1, m)
    lo = [key_lo[tree_v]]
    hi = [key_hi[tree_v]]
    w = [key_w[tree_v]]
    dup = np.ones(n, dtype=bool)
    dup[rep] = False
    dup_rec = np.flatnonzero(dup)
    lo.append(rep[tuple_of[dup_rec]])
    hi.append(dup_rec.astype(np.int64))
    w.append(np.zeros(len(dup_rec), dtype=np.int64))
    return SpanningTree(np.concatenate(lo), np.concatenate(hi), np.concatenate(w), scale)


def removal_order(tree: SpanningTree) -> np.ndarray:
    """Edge indices in priority-queue order (002 Table 2): weight decreasing, then ``(lo, hi)`` increasing."""
    import numpy as np

    return np.lexsort((tree.hi, tree.lo, -tree.weight)).astype(np.int64)


def cut_tree(tree: SpanningTree, n: int, k: int, cut: str = "paper") -> np.ndarray:
    """Mask of the edges kept after removing the longest ones.

    ``"paper"``: the ``floor(n/k) - 1`` longest edges (002 steps 8-11). ``"k-aware"``: longest first, an
    edge only if both sides keep at least ``k`` records (Laszlo & Mukherjee 2005).
    """
    import numpy as np

    from anonstudio.core.kernels._mst import k_aware_cut

    order = removal_order(tree)
    if cut == "k-aware":
        return k_aware_cut(n, tree.lo, tree.hi, order, k)
    keep = np.ones(len(tree.lo), dtype=bool)
    remove = max(n // k - 1, 0)
    keep[order[:remove]] = False
    return keep


def merge_small_classes(
    labels: np.ndarray,
    leaf_nodes: np.ndarray,
    packed: PackedHierarchies,
    k: int,
    progress: ProgressCallback | None = None,
    *,
    sens: np.ndarray | None = None,
    n_sens: int = 1,
    min_distinct: int = 1,
    log_l: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, int]:
    """GenEquiClass + steps 15-21: classes (component ids 0..C-1 in ``labels``) get their per-attribute LCA;
    while a class has fewer than ``k`` records (or, with l-diversity, ``sens`` codes not l-diverse) it merges
    with the class minimising NCP of the union.
    Returns ``(final class per record renumbered, LCA nodes per final class, merges)``."""
    import numpy as np

    from anonstudio.core.kernels._generalize import class_lca
    from anonstudio.core.kernels._mst import merge_pass, merge_state, sens_diverse

    n_c = int(labels.max()) + 1 if len(labels) else 0
    nodes = class_lca(leaf_nodes, labels, n_c, packed.node_anc, packed.node_level)
    sizes = np.bincount(labels, minlength=n_c).astype(np.int64)
    diversity = sens is not None and (min_distinct > 1 or log_l > 0)
    class_sens = np.zeros((n_c, n_sens) if diversity else (1, 1), dtype=np.int64)
    if diversity:
        present = sens >= 0
        np.add.at(class_sens, (labels[present], sens[present]), 1)
        ok = np.array([sizes[c] >= k and sens_diverse(class_sens[c], min_distinct, log_l) for c in range(n_c)],
                      dtype=np.bool_)
    else:
        ok = sizes >= k
    alive = np.ones(n_c, dtype=np.bool_)
    target = np.arange(n_c, dtype=np.int64)
    d = leaf_nodes.shape[1]
    cap = 2 * n_c + 1  # node tuples that can occur: one per initial class, one more per merge
    memo_len = 1 << max(4, int(2 * cap).bit_length())
    memo_nodes = np.empty((memo_len, d), dtype=np.int32)
    memo_used = np.zeros(memo_len, dtype=np.bool_)
    memo_best = np.full(memo_len, -1, dtype=np.int64)
    memo_cost = np.zeros(memo_len)
    memo_asker = np.full(memo_len, -1, dtype=np.int64)
    count = np.zeros(memo_len, dtype=np.int64)
    head = np.full(memo_len, -1, dtype=np.int64)
    nxt = np.full(n_c, -1, dtype=np.int64)
    prv = np.full(n_c, -1, dtype=np.int64)
    cls_slot = np.zeros(n_c, dtype=np.int64)
    in_tl = np.zeros(memo_len, dtype=np.bool_)
    tl_slot = np.zeros(cap, dtype=np.int64)
    tl_nodes = np.zeros((cap, d), dtype=np.int32)
    state = np.zeros(1, dtype=np.int64)
    merge_state(nodes, memo_nodes, memo_used, count, head, nxt, prv, cls_slot, in_tl, tl_slot, tl_nodes, state)
    attr_lo = np.asarray(packed.offsets[:-1], dtype=np.int64)
    attr_hi = np.asarray(packed.offsets[1:], dtype=np.int64)
    merges = 0
    small0 = max(int((~ok).sum()), 1)
    while True:
        small = np.flatnonzero(alive & ~ok)
        if len(small) == 0 or alive.sum() <= 1:
            break
        for s in range(0, len(small), _MERGE_CHUNK):
            chunk = small[s : s + _MERGE_CHUNK]
            merges += merge_pass(
                sizes, nodes, alive, target, packed.node_anc, packed.node_level, packed.node_ncp,
                attr_lo, attr_hi, k, int(chunk[0]), int(chunk[-1]) + 1,
                memo_nodes, memo_used, memo_best, memo_cost, memo_asker, count, head, nxt, prv, cls_slot, in_tl,
                tl_slot, tl_nodes, state, ok, class_sens, min_distinct, float(log_l),
            )
            report(progress, min(merges / small0, 1.0), f"merging small classes: {merges} merges")
    # follow merge targets to the surviving class
    final = target.copy()
    for c in range(n_c):
        t = c
        while not alive[t]:
            t = target[t]
        final[c] = t
    rec = final[labels]
    renum = renumber_by_first_record(rec)
    class_nodes = np.empty((int(renum.max()) + 1 if len(renum) else 0, leaf_nodes.shape[1]), dtype=np.int32)
    class_nodes[renum] = nodes[rec]
    return renum, class_nodes, merges


class MSTRecoding(GeneralizingMethod):
    """Minimum-spanning-tree partitioning for local-recoding k-anonymity (Ramana & Kumari, paper 002).

    1. Distances: concept-hierarchical distance CHD (Eq. 1), effort CHE (Eq. 2) and the record distance
       ``HDist(r1, r2) = CHE(r1, r12) + CHE(r2, r12)`` (Eq. 3) through each attribute's hierarchy (numeric
       attributes through their interval hierarchies), forming the matrix of Eq. 4 — never materialised:
       Prim's algorithm over distinct QI tuples computes them on the fly (O(n^2) time, O(n) memory) and
       returns exactly the tree Kruskal's algorithm (§4.2) builds with edges ordered by (weight, i, j).
    2. Steps 8-11: remove the ``floor(n/k) - 1`` longest edges (priority queue of Table 2: weight
       decreasing, ties by record ids); the subtrees are the initial clusters. Option ``cut = "k-aware"``
       removes, longest first, only edges leaving both sides with >= k records (Laszlo & Mukherjee 2005).
    3. GenEquiClass: each cluster's QI cells generalize to the per-attribute lowest common ancestor.
    4. Steps 15-21: while a class has fewer than k records, it merges with the class minimising the NCP
       (Eqs 5-6, summed over attributes) of the union (ties: lowest class id, classes numbered by first record).
       With ``l`` (our extension, as Mondrian's): a class that is not l-diverse merges too, until it is.
    5. Re-split (ours, issue 31): merging can snowball — on Adult with 8 quasi-identifiers and k = 50 the paper's
       steps merge 596 of 603 clusters into one class of 29,637 records at the root of every hierarchy, which
       the verifier counts as suppressed. A class the merges generalized to the root of every quasi-identifier
       (``resplit = "collapsed"``, the default: the paper's steps otherwise) — or every class they grew to 2k
       records or more (``"large"``) — is split again top-down along the hierarchies, relaxed, each time by the split
       that lowers its NCP most (:func:`~anonstudio.core.kernels._local.specialize`), into classes that meet k
       (and l). The report's notes say how many classes were re-split and into how many.
    6. The suppression budget (:mod:`anonstudio.core.algorithms._suppression`): within ``max_suppression``,
       outliers are suppressed when that lowers the ``quality`` model's loss.

    Records with a missing quasi-identifier are suppressed (``*`` in every QI cell).
    """

    name = "mst"
    group_unit = "cluster"
    counts_people = True
    result_view = "MST partition"
    title = "MST local recoding (Ramana & Kumari)"
    reference = (
        "K. Venkata Ramana, V. Valli Kumari: Graph based local recoding for data anonymization. "
        "IJDMS 5(4), 2013"
    )
    description = ("builds a minimum spanning tree over the records with a hierarchy-aware distance, cuts its longest "
                   "edges into classes of at least k and merges small ones; class values are generalized locally")
    privacy_models = Description(("k-anonymity", "l-diversity (entropy or distinct, with l)"), REPAIR)
    enforced_models = REPAIRED
    titles = {"cut": "Edge removal"}
    parameters = ParamSet(
        (
            Param("k", "int", 5, help="k-anonymity: every equivalence class holds at least k records (002 Def. 3)", low=2),
            L_DIVERSITY,
            L_KIND,
            Param(
                "cut",
                "choice",
                "paper",
                help="edge removal: 'paper' removes the floor(n/k)-1 longest MST edges (002 steps 8-11); "
                "'k-aware' removes only edges leaving both sides with >= k records (Laszlo & Mukherjee 2005)",
                choices=("paper", "k-aware"),
            ),
            Param(
                "resplit",
                "choice",
                "collapsed",
                help="classes split again top-down after the merges: 'collapsed' a class merged to the root of "
                "every quasi-identifier (the paper's steps otherwise); 'large' every class the merges grew to 2k "
                "records or more",
                choices=("collapsed", "large"),
            ),
            models_param(REPAIRED),
            QUALITY,
            WEIGHTS,
        )
    )

    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None) -> Result:
        import numpy as np

        from anonstudio.core.kernels._mst import union_find_components
        from anonstudio.core.models import partition_limits

        packed, leaf_nodes, missing, idx = self.encoded(data, hierarchies)
        codes, n_sens = self.sensitive_codes(data)
        limits = partition_limits(self.models())
        k = int(limits["min_size"])
        min_distinct = int(limits.get("min_distinct", 1))
        log_l = float(limits.get("min_entropy", 0.0))
        n = len(idx)
        sub = np.ascontiguousarray(leaf_nodes[idx], dtype=np.int32)
        sens = np.ascontiguousarray(codes[idx], dtype=np.int64)
        if min_distinct > 1 or log_l > 0:
            self.check_diversity(data, sens, n_sens, limits)
        report(progress, 0.0, "building the minimum spanning tree")
        tree = prim_tree(sub, packed, subrange(progress, 0.0, 0.7))
        keep = cut_tree(tree, n, k, self.params["cut"])
        comp = union_find_components(n, tree.lo, tree.hi, keep)
        labels = renumber_by_first_record(comp)
        n_initial = int(labels.max()) + 1
        report(progress, 0.75, f"{n_initial} initial clusters")
        final, class_nodes, merges = merge_small_classes(labels, sub, packed, k, subrange(progress, 0.75, 0.9),
                                                         sens=sens, n_sens=n_sens, min_distinct=min_distinct,
                                                         log_l=log_l)
        report(progress, 0.9, "re-splitting merged classes")
        final, notes = self._resplit(sub, labels, final, class_nodes, packed, k, sens, n_sens, min_distinct, log_l)
        report(progress, 0.95, "suppression budget")
        spent = self.settle_classes(data, hierarchies, packed, sub, final, sens, n_sens, limits, None, missing, codes[missing])
        report(progress, 1.0, "done")
        return self.finish(
            data, packed, idx, sub, spent.labels, missing,
            metrics={"initial_clusters": n_initial, "merges": merges, "mst_weight": tree.total,
                     "suppressed_outliers": spent.suppressed},
            notes=notes + spent.notes,
            details={
                "mst_edges": np.column_stack([idx[tree.lo], idx[tree.hi]]),
                "mst_weights": tree.weight / tree.scale,
                "removed_edges": ~keep,
            },
        )

    def _resplit(self, sub, initial, final, class_nodes, packed, k, sens, n_sens, min_distinct, log_l):
        """Step 5 (see the class): the classes the merges made too large (or collapsed) split again top-down.
        Returns the classes per record and the report's sentences."""
        import numpy as np

        from anonstudio.core.algorithms.local_recoding import max_fan_out
        from anonstudio.core.kernels._local import specialize

        n_final = len(class_nodes)
        sizes = np.bincount(final, minlength=n_final)
        pairs = np.unique(final * (int(initial.max()) + 1) + initial)
        merged = np.bincount(pairs // (int(initial.max()) + 1), minlength=n_final) > 1
        roots = np.array([packed.node_anc[packed.offsets[a], -1] for a in range(packed.d)])
        collapsed = merged & np.all(class_nodes == roots, axis=1)
        chosen = collapsed if self.params["resplit"] == "collapsed" else merged & (sizes >= 2 * k)
        picked = np.flatnonzero(chosen)
        if not len(picked):
            return final, []
        members = np.flatnonzero(np.isin(final, picked))
        perm = members[np.argsort(final[members], kind="stable")].astype(np.int64)
        counts = sizes[picked]
        ends = np.cumsum(counts)
        starts = ends - counts
        split = np.full(len(final), -1, dtype=np.int64)
        made = specialize(sub, perm, starts.astype(np.int64), ends.astype(np.int64), packed.node_anc,
                          packed.node_level, packed.node_ncp, sens, max(n_sens, 1), k, min_distinct, log_l,
                          max_fan_out(packed), split)
        out = final.copy()
        out[members] = n_final + split[members]
        largest = int(counts.max())
        what = ("merged to the root of every quasi-identifier" if self.params["resplit"] == "collapsed" else
                f"grown by the merges to 2k = {2 * k} records or more")
        notes = [f"{len(picked)} class(es) {what} (the largest: {largest:,} records"
                 + (", at the root of every quasi-identifier" if collapsed[picked].any() else "")
                 + f") were split again top-down along the hierarchies into {made:,} classes"]
        return out, notes
