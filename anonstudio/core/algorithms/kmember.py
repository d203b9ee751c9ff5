"""Greedy k-member clustering for k-anonymity (``kmember``), optionally l-diverse, with the suppression budget.

J.-W. Byun, A. Kamra, E. Bertino, N. Li, "Efficient k-anonymization using clustering techniques",
DASFAA 2007, pp. 188-200.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from anonstudio.core.algorithms._base import Result
from anonstudio.core.algorithms._model_repair import REPAIRED
from anonstudio.core.algorithms._tabular import GeneralizingMethod, models_param
from anonstudio.core.models import REPAIR, Description
from anonstudio.core.params import L_DIVERSITY, L_KIND, QUALITY, WEIGHTS, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    from anonstudio.core.data import Table

#: seconds of kernel work between two progress reports (a cancel is honoured at the next report)
_REPORT_EVERY = 0.1


class KMember(GeneralizingMethod):
    """Greedy k-member clustering (Byun, Kamra, Bertino & Li 2007).

    A random record ``r`` (from ``seed``) starts; repeatedly the remaining record furthest from ``r``
    becomes the new ``r`` and seeds a cluster, which grows to ``k`` records by adding, one at a time, the
    record whose addition increases the information loss least (Byun et al.'s ``IL(c) = |c| * D(c)``,
    with ``D`` the hierarchy-based NCP of 002 Eqs 5-6 summed over attributes; the distance of two records
    is the NCP of the pair). Fewer than ``k`` records left join, one by one, the cluster whose IL grows
    least. Ties go to the lowest record / cluster index. Every cluster's QI cells are generalized to the
    per-attribute lowest common ancestor.

    l-diversity (``l``, ``l_kind``; our extension, as Mondrian's): a cluster grows on until its sensitive values
    are l-diverse — once it has k records (or when its free places are no more than the distinct values it
    lacks), the next record is one whose sensitive value the cluster holds least often, the IL increase deciding
    among those (see :func:`~anonstudio.core.kernels._kmember.kmember_clusters`). A cluster that runs out of
    records before it is diverse is dissolved, and its records join other clusters as the leftovers do, each
    the cluster whose IL grows least among those that stay l-diverse.

    Then the suppression budget (:mod:`anonstudio.core.algorithms._suppression`): within ``max_suppression``,
    outliers are suppressed when that lowers the ``quality`` model's loss. Records with a missing
    quasi-identifier are suppressed (``*`` in every QI cell).
    """

    name = "kmember"
    group_unit = "cluster"
    counts_people = True
    title = "k-member clustering (Byun et al.)"
    reference = (
        "J.-W. Byun, A. Kamra, E. Bertino, N. Li: Efficient k-anonymization using clustering techniques. "
        "DASFAA 2007"
    )
    description = ("grows clusters of k records one at a time, each time adding the record that raises the cluster's "
                   "information loss least; cluster values are generalized to their common hierarchy node")
    privacy_models = Description(("k-anonymity", "l-diversity (entropy or distinct, with l)"), REPAIR)
    enforced_models = REPAIRED
    parameters = ParamSet(
        (
            Param("k", "int", 5, help="k-anonymity: every cluster holds at least k records", low=2),
            Param("seed", "int", 1, help="random seed choosing the first record", low=0),
            L_DIVERSITY,
            L_KIND,
            models_param(REPAIRED),
            QUALITY,
            WEIGHTS,
        )
    )

    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None) -> Result:
        import numpy as np

        from anonstudio.core.kernels._kmember import kmember_clusters
        from anonstudio.core.kernels._local import join_leftovers
        from anonstudio.core.models import partition_limits

        packed, leaf_nodes, missing, idx = self.encoded(data, hierarchies)
        codes, n_sens = self.sensitive_codes(data)
        limits = partition_limits(self.models())
        k = int(limits["min_size"])
        min_distinct = int(limits.get("min_distinct", 1))
        log_l = float(limits.get("min_entropy", 0.0))
        diversity = min_distinct > 1 or log_l > 0
        n = len(idx)
        sub = np.ascontiguousarray(leaf_nodes[idx], dtype=np.int32)
        sens = np.ascontiguousarray(codes[idx], dtype=np.int64)
        if diversity:
            self.check_diversity(data, sens, n_sens, limits)
        # distinct tuples (with l: quasi-identifiers and sensitive value), numbered in ascending tuple order
        if diversity:
            with_sens = np.column_stack([sub, sens + 1])
            uniq, inv = np.unique(with_sens, axis=0, return_inverse=True)
            tsens = np.ascontiguousarray(uniq[:, -1] - 1, dtype=np.int64)
            uniq = uniq[:, :-1]
        else:
            uniq, inv = np.unique(sub, axis=0, return_inverse=True)
            tsens = np.full(len(uniq), -1, dtype=np.int64)
        inv = inv.reshape(-1).astype(np.int64)
        tnode = np.ascontiguousarray(uniq, dtype=np.int32)
        rec_list = np.argsort(inv, kind="stable").astype(np.int64)  # records grouped by tuple, ascending
        rec_start = np.zeros(len(uniq) + 1, dtype=np.int64)
        rec_start[1:] = np.cumsum(np.bincount(inv, minlength=len(uniq)))
        used = np.zeros(len(uniq), dtype=np.int64)
        rec_cluster = np.full(n, -1, dtype=np.int64)
        max_c = n // k
        cluster_nodes = np.zeros((max(max_c, 1), packed.d), dtype=np.int32)
        cluster_size = np.zeros(max(max_c, 1), dtype=np.int64)
        cluster_ok = np.ones(max(max_c, 1), dtype=np.bool_)
        rng = np.random.default_rng(self.params["seed"])
        seed_t = int(inv[int(rng.integers(n))])
        n_clusters = 0
        remaining = n
        attr_lo = np.asarray(packed.offsets[:-1], dtype=np.int64)
        attr_hi = np.asarray(packed.offsets[1:], dtype=np.int64)
        chunk = 4  # clusters per kernel call, adapted so each call takes about _REPORT_EVERY seconds (early
        while remaining >= k:  # clusters scan many records, late ones few; the clusters do not depend on it)
            started = time.perf_counter()
            seed_t, n_clusters, remaining = kmember_clusters(
                tnode, rec_start, rec_list, used, packed.node_anc, packed.node_level, packed.node_ncp,
                attr_lo, attr_hi, k,
                rec_cluster, cluster_nodes, cluster_size, seed_t, n_clusters, remaining, chunk,
                tsens, n_sens, min_distinct, log_l, cluster_ok,
            )
            took = time.perf_counter() - started
            chunk = int(min(4096, max(1, chunk * min(4.0, _REPORT_EVERY / max(took, 1e-5)))))
            report(progress, 0.9 * (n - remaining) / n, f"k-member: {n_clusters} clusters")
        notes = []
        dissolved = np.flatnonzero(~cluster_ok[:n_clusters])
        if len(dissolved):  # clusters that ran out of records before they were l-diverse
            gone = np.isin(rec_cluster, dissolved)
            rec_cluster[gone] = -1
            keep = np.flatnonzero(cluster_ok[:n_clusters])
            new_id = np.full(n_clusters, -1, dtype=np.int64)
            new_id[keep] = np.arange(len(keep))
            rec_cluster = np.where(rec_cluster >= 0, new_id[np.maximum(rec_cluster, 0)], -1)
            cluster_nodes, cluster_size = cluster_nodes[keep], cluster_size[keep]
            notes.append(f"{len(dissolved)} cluster(s) ran out of records before they were l-diverse: their "
                         f"{int(gone.sum())} records joined other clusters as leftovers")
            n_clusters = len(keep)
        # the last step: every record left joins the cluster whose IL grows least (and that stays l-diverse)
        leftovers = np.flatnonzero(rec_cluster < 0)
        class_sens = np.zeros((n_clusters, n_sens) if log_l > 0 else (1, 1), dtype=np.int64)
        if log_l > 0:
            present = (rec_cluster >= 0) & (sens >= 0)
            np.add.at(class_sens, (rec_cluster[present], sens[present]), 1)
        lost = join_leftovers(sub, leftovers, rec_cluster, cluster_nodes, cluster_size, n_clusters, packed.node_anc,
                              packed.node_level, packed.node_ncp, sens, class_sens, n_sens if log_l > 0 else 0,
                              log_l, False) if len(leftovers) else 0
        if lost:
            notes.append(f"{lost} leftover record(s) found no cluster that stays l-diverse and were suppressed")
        report(progress, 0.95, "suppression budget")
        spent = self.settle_classes(data, hierarchies, packed, sub, rec_cluster, sens, n_sens, limits, None, missing,
                                       codes[missing], already=lost)
        report(progress, 1.0, f"{n_clusters} clusters")
        return self.finish(data, packed, idx, sub, spent.labels, missing,
                           metrics={"clusters": n_clusters, "suppressed_outliers": spent.suppressed},
                           notes=notes + spent.notes)
