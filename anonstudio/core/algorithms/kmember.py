"""Greedy k-member clustering for k-anonymity (``kmember``).

J.-W. Byun, A. Kamra, E. Bertino, N. Li, "Efficient k-anonymization using clustering techniques",
DASFAA 2007, pp. 188-200.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from anonstudio.core.algorithms._base import Result
from anonstudio.core.algorithms._tabular import (
    GeneralizingMethod,
    tabular_result,
    renumber_by_first_record,
)
from anonstudio.core.params import Param, ParamSet
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

    Records with a missing quasi-identifier are suppressed (``*`` in every QI cell).
    """

    name = "kmember"
    group_unit = "cluster"
    title = "k-member clustering (Byun et al.)"
    reference = (
        "J.-W. Byun, A. Kamra, E. Bertino, N. Li: Efficient k-anonymization using clustering techniques. "
        "DASFAA 2007"
    )
    description = ("grows clusters of k records one at a time, each time adding the record that raises the cluster's "
                   "information loss least; cluster values are generalized to their common hierarchy node")
    privacy_models = ("k-anonymity",)
    parameters = ParamSet(
        (
            Param("k", "int", 5, help="k-anonymity: every cluster holds at least k records", low=2),
            Param("seed", "int", 1, help="random seed choosing the first record", low=0),
        )
    )

    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None) -> Result:
        import numpy as np

        from anonstudio.core.kernels._kmember import kmember_clusters, kmember_leftovers

        k = self.params["k"]
        packed, leaf_nodes, missing, idx = self.encoded(data, hierarchies)
        n = len(idx)
        sub = leaf_nodes[idx]
        uniq, inv = np.unique(sub, axis=0, return_inverse=True)
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
            )
            took = time.perf_counter() - started
            chunk = int(min(4096, max(1, chunk * min(4.0, _REPORT_EVERY / max(took, 1e-5)))))
            report(progress, 0.95 * (n - remaining) / n, f"k-member: {n_clusters} clusters")
        kmember_leftovers(
            tnode, inv, rec_cluster, cluster_nodes, cluster_size, n_clusters,
            packed.node_anc, packed.node_level, packed.node_ncp,
        )
        labels = renumber_by_first_record(rec_cluster)
        old_of_new = np.empty(n_clusters, dtype=np.int64)
        old_of_new[labels] = rec_cluster
        class_nodes = cluster_nodes[old_of_new]
        report(progress, 1.0, f"{n_clusters} clusters")
        return tabular_result(data, packed, idx, labels, class_nodes, missing, metrics={"clusters": n_clusters})

