"""Mondrian multidimensional k-anonymity (``mondrian``), optionally with entropy or distinct l-diversity.

K. LeFevre, D. J. DeWitt, R. Ramakrishnan, "Mondrian multidimensional k-anonymity", ICDE 2006.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonstudio.core.algorithms._base import Result
from anonstudio.core.algorithms._tabular import GeneralizingMethod, models_param, renumber_by_first_record
from anonstudio.core.errors import ParameterError, PrivacyError
from anonstudio.core.models import SPLIT, Description, Enforced
from anonstudio.core.params import L_DIVERSITY, L_KIND, QUALITY, WEIGHTS, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, cancel_flag, report, subrange

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table


def entropy(counts: np.ndarray) -> float:
    """Shannon entropy (natural log) of a count vector."""
    import numpy as np

    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


#: the models it takes under ``models`` (every registered model declaring ``split``): its split test keeps them part by
#: part (a model's :meth:`~anonstudio.core.models.PrivacyModel.kernel_rule` or ``partition_limits``: average risk, sample
#: and population uniqueness and k-map with an estimator through a least class size — for the first two a sufficient
#: condition); a model whose ``split_rule()`` is ``"merge"`` (δ-presence and k-map against a population table, which
#: count the population under a part's cells) is kept after the partitioning by merging the failing parts
#: (:mod:`anonstudio.core.algorithms._model_repair`, as k-member, MST and local recoding do)
ENFORCED = Enforced(SPLIT)


class Mondrian(GeneralizingMethod):
    """Greedy strict multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan 2006).

    The records are split recursively: each partition is cut on the quasi-identifier of widest normalized
    range among those with an *allowable* cut (every part keeps at least ``k`` records; with ``l`` set, every
    part is also l-diverse on the sensitive attribute, Machanavajjhala et al. 2007: entropy
    ``-sum p log p >= log l`` or, with ``l_kind = "distinct"``, at least ``l`` distinct values; missing
    sensitive values are not values, as in the verifier). Numeric attributes are cut at the median value (``numeric_split =
    "median"``, width = value range / domain range) or, with ``"hierarchy"``, like categorical ones: into the
    children of the partition's lowest common ancestor in the hierarchy (width = leaves under the LCA /
    leaves of the root), LeFevre's top-down variant for categorical domains. A partition without an
    allowable cut is final; its QI cells are generalized to the per-attribute LCA label, so numeric ranges
    become the lowest hierarchy node covering the partition's values.

    Cuts (``cut``): LeFevre's paper defines *strict* multidimensional partitioning (every record with the
    same value on the cut attribute goes to the same side) and *relaxed* partitioning (a run of equal values
    may be split over both sides); its greedy algorithm cuts at the *median*. anonstudio partitions strictly
    only: relaxed parts would share their hierarchy labels and merge again in the output. ``"paper"`` does
    exactly the strict median cut (the median's run of equal values goes to whichever side leaves the
    halves closer to equal). ``"nearest"`` (the default) is still strict, but when the median cut is not allowable it takes
    the allowable value boundary nearest the median instead of giving the attribute up, and a categorical
    cut keeps every child of the LCA with an allowable part on its own while pooling the other children
    into one part (generalized to the LCA, a label no single-child part carries). On Adult with 8 QIs and
    k = 10 this lowers DM from 572,468 to 508,040 (anonypy, strict ``< median`` / ``>= median`` cuts and
    arbitrary halves of categorical value sets outside any hierarchy: 527,212).

    Records with a missing quasi-identifier are suppressed (``*`` in every QI cell).
    """

    name = "mondrian"
    group_unit = "partition"
    counts_people = True
    engines = ("local", "dask")
    title = "Mondrian multidimensional k-anonymity"
    reference = "K. LeFevre, D. J. DeWitt, R. Ramakrishnan: Mondrian multidimensional k-anonymity. ICDE 2006"
    description = ("splits the records recursively on the widest quasi-identifier until no allowed cut remains; each "
                   "part's values are generalized to their common hierarchy node (k-anonymity, optional l-diversity)")
    privacy_models = Description(("k-anonymity", "l-diversity (entropy or distinct, with l)"), SPLIT)
    titles = {"cut": "Where a part is cut", "numeric_split": "Numeric cuts"}
    parameters = ParamSet(
        (
            Param("k", "int", 5, help="k-anonymity: every partition holds at least k records", low=2),
            L_DIVERSITY,
            L_KIND,
            Param(
                "numeric_split",
                "choice",
                "median",
                help="numeric attributes: 'median' value cuts (LeFevre 2006) or cuts along the hierarchy",
                choices=("median", "hierarchy"),
            ),
            Param(
                "cut",
                "choice",
                "nearest",
                help="'paper': LeFevre's cuts only (median value; all children of the LCA); 'nearest': when "
                "those are not allowable, the allowable value boundary nearest the median, and the children "
                "too small to stand alone pooled into one part",
                choices=("paper", "nearest"),
            ),
            models_param(ENFORCED),
            QUALITY,
            WEIGHTS,
        )
    )
    enforced_models = ENFORCED

    def _sensitive_codes(self, data: Table) -> tuple[np.ndarray, int, float]:
        import numpy as np

        from anonstudio.core.data import value_codes

        l = self.params.get("l")
        n = data.n_rows
        if not self.needs_sensitive():
            return np.zeros(n, dtype=np.int32), 1, 0.0
        sens = data.sensitive
        if len(sens) != 1:
            what = "l-diversity" if l is not None else f"privacy model '{self.extra_models()[0].name}'"
            raise ParameterError(
                f"{what} needs exactly one sensitive attribute, the input has {len(sens)}"
                + (f" ({', '.join(sens)})" if sens else ""),
                file=data.source,
                key="algorithm.l" if l is not None else "input.sensitive",
            )
        self._sensitive = sens[0]
        # missing sensitive values are not values, and values that read alike (' HIV', 'hiv') are one (the
        # rules the verifier follows): code -1 is never counted
        codes, n_values = value_codes(data.df[sens[0]])
        return codes, max(n_values, 1), float(np.log(l)) if l is not None else 0.0

    def _rules(self, data: Table, hierarchies: dict, codes: np.ndarray, n_values: int) -> tuple:
        """The sensitive-distribution models as the kernel's rule arrays; a model the whole table already breaks
        (no split can mend it) is a :class:`PrivacyError`."""
        import numpy as np

        from anonstudio.core.data import coded_cells
        from anonstudio.core.kernels._distribution import no_rules, rules_hold
        from anonstudio.core.models._distribution import kernel_rules

        models = [m for m in self.extra_models() if m.has_kernel_rule()]
        if not models:
            return no_rules()
        column = self._sensitive
        cells = coded_cells(data.df[column], "").read_alike()
        present = codes >= 0
        firsts = np.full(n_values, -1, dtype=np.int64)
        firsts[codes[present][::-1]] = np.flatnonzero(present)[::-1]
        texts = [str(cells.texts[cells.codes[i]]) for i in firsts]
        totals = np.bincount(codes[present], minlength=n_values)
        rules = kernel_rules(models, tuple(texts), totals, hierarchies.get(column), column)
        for model in models:
            single = kernel_rules([model], tuple(texts), totals, hierarchies.get(column), column)
            if not rules_hold(totals.astype(np.int64), int(totals.sum()), single):
                raise PrivacyError(f"{model.label()} cannot be met: the whole table's '{column}' breaks it already",
                                   file=data.source, column=column)
        return rules

    def kernel_arguments(self, sub: np.ndarray, packed) -> tuple:
        """The kernel's arrays before the sensitive codes: ``(leaf_nodes, values, split_numeric, span,
        node_anc, node_level, node_leaves)`` for the records' packed leaves ``sub``."""
        import numpy as np

        split_numeric = packed.numeric & (self.params["numeric_split"] == "median")
        values = np.zeros(sub.shape, dtype=np.float64)
        span = np.zeros(packed.d)
        for a in range(packed.d):
            root = int(packed.node_anc[packed.offsets[a], -1])
            if split_numeric[a]:
                values[:, a] = packed.node_min[sub[:, a]]
                span[a] = packed.node_max[root] - packed.node_min[root]
            else:
                span[a] = packed.node_leaves[root]
        return sub, values, split_numeric, span, packed.node_anc, packed.node_level, packed.node_leaves

    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None, *,
            executor=None) -> Result:
        """Partition and generalize. With an ``executor`` (the Dask engine, see :func:`partition_on`) the
        subtrees below the top splits are partitioned as tasks; the result is the same."""
        import numpy as np

        from anonstudio.core.kernels._mondrian import mondrian_partition_rules
        from anonstudio.core.models import partition_limits

        k = self.params["k"]
        packed, leaf_nodes, missing, idx = self.encoded(data, hierarchies)
        codes, n_sens, _ = self._sensitive_codes(data)
        rules = self._rules(data, hierarchies, codes, n_sens)  # q: the whole table's distribution
        sens = codes[idx]
        # the split test asks the privacy models the job names what every part must keep
        limits = partition_limits(self.models(), records=data.n_rows)
        k = int(limits["min_size"])
        min_distinct = int(limits.get("min_distinct", 1))
        log_l = float(limits.get("min_entropy", 0.0))
        if min_distinct > 1:
            present = np.unique(sens[sens >= 0])
            if len(present) < min_distinct:
                raise PrivacyError(
                    (f"distinct l-diversity with l = {self.params['l']:g}" if self.params.get("l") is not None
                     else f"{min_distinct} distinct sensitive values per part") + f" cannot be met: '{self._sensitive}' has "
                    f"{len(present)} distinct value(s) in the whole table", file=data.source, column=self._sensitive)
        if log_l > 0:
            h = entropy(np.bincount(sens[sens >= 0], minlength=n_sens))
            if h < log_l - 1e-12:
                raise PrivacyError(
                    f"entropy l-diversity with l = {self.params['l']:g} cannot be met: the whole table's "
                    f"'{self._sensitive}' has entropy {h:.3f} < log l = {log_l:.3f}",
                    file=data.source,
                    column=self._sensitive,
                )
        sub = np.ascontiguousarray(leaf_nodes[idx])
        arguments = (*self.kernel_arguments(sub, packed), sens, n_sens, log_l, min_distinct, rules, k,
                     self.params["cut"] == "nearest")
        by_people = data.person is not None
        if by_people:
            # a person column: every part holds k distinct people (the split test counts them, a prefix count per
            # cut); the Dask engine's parts are not used for it (its top splits count records)
            from anonstudio.core.kernels._mondrian import mondrian_partition_people
            from anonstudio.core.privacy._people import person_codes

            people = np.ascontiguousarray(person_codes(data, idx))
            with cancel_flag(progress, 0.0, "partitioning", total=len(sub), end=0.9) as flag:
                labels = mondrian_partition_people(*arguments, people, flag)
        elif executor is None:
            # the kernel polls a flag that a watcher thread sets on Cancel: it stops within a segment's split
            # instead of the whole partitioning (2.7 s at 1M records); its partial labels are never used
            with cancel_flag(progress, 0.0, "partitioning", total=len(sub), end=0.9) as flag:
                labels = mondrian_partition_rules(*arguments, flag)
        else:
            report(progress, 0.0, "partitioning")
            labels = partition_on(executor, arguments, packed.node_min, subrange(progress, 0.0, 0.9))
        labels = renumber_by_first_record(labels)
        n_groups = int(labels.max()) + 1
        if any(m.split_rule() == "merge" for m in self.extra_models()) or by_people:
            # δ-presence and k-map count the population under a part's cells, which the split test does not hold:
            # the parts failing them are merged afterwards (the other models named are judged again on the way)
            report(progress, 0.92, "merging parts that fail a model counted over people" if by_people else
                   "merging parts that fail the population models")
            judged = sens.astype(np.int64) if self.needs_sensitive() else np.full(len(sens), -1, dtype=np.int64)
            blocked = codes[missing] if self.needs_sensitive() else np.full(int(missing.sum()), -1, dtype=np.int32)
            spent = self.settle_classes(data, hierarchies, packed, sub, labels, judged, n_sens, limits, None,
                                        missing, blocked)
            final, outliers, budget_notes = spent.labels, spent.suppressed, spent.notes
        elif self.extra_models():
            # suppressing a record changes its class's distribution, which the models named under models judge
            # (t-closeness, β-likeness, δ-disclosure …): the budget is not spent for them
            final, outliers = labels, 0
            budget_notes = ["the suppression budget is not spent when privacy models beyond k and l are named: "
                            "suppressing a record changes its class's distribution, which they judge"]
        else:
            report(progress, 0.92, "suppression budget")
            judged = sens.astype(np.int64) if self.needs_sensitive() else np.full(len(sens), -1, dtype=np.int64)
            blocked = codes[missing] if self.needs_sensitive() else np.full(int(missing.sum()), -1, dtype=np.int32)
            spent = self.spend_suppression(data, packed, sub, labels, judged, n_sens, limits, None, missing, blocked)
            final, outliers, budget_notes = spent.labels, spent.suppressed, spent.notes
        report(progress, 1.0, f"{n_groups} partitions")
        return self.finish(data, packed, idx, sub, final, missing,
                           metrics={"partitions": n_groups, "suppressed_outliers": outliers}, notes=budget_notes)



#: top-level parts per worker the Dask engine aims for (more parts even out the workers' loads)
PARTS_PER_WORKER = 2


def partition_on(executor, arguments: tuple, node_min: np.ndarray,
                 progress: ProgressCallback | None = None) -> np.ndarray:
    """:func:`~anonstudio.core.kernels._mondrian.mondrian_partition` with its subtrees run as tasks.

    The top splits are made on the whole table, level by level, until there are at least
    ``PARTS_PER_WORKER`` × workers parts (:func:`~anonstudio.core.kernels._mondrian.mondrian_top_splits`: the
    splits the recursion itself makes first); each part that can still be split is partitioned by the same
    kernel as one task, and the parts' partitions are joined. A partition is a set of records that depends
    only on the records of the part it comes from, so the join is the whole-table partition (the labels'
    numbering differs; the caller renumbers by first record). A task receives its records' leaves and
    sensitive codes and reads their numeric values from ``node_min`` (shared), as :meth:`Mondrian.kernel_arguments`
    does."""
    import numpy as np

    from anonstudio.core.kernels._mondrian import mondrian_top_splits

    leaf_nodes, values, *rest = arguments
    sens = rest[5]
    workers = executor.workers() if hasattr(executor, "workers") else 1
    report(progress, 0.0, "top splits")
    idx, starts, ends, final = mondrian_top_splits(*arguments, PARTS_PER_WORKER * max(int(workers), 1))
    labels = np.full(len(leaf_nodes), -1, dtype=np.int64)
    nxt = 0
    for s, e in zip(starts[final], ends[final]):
        labels[idx[s:e]] = nxt
        nxt += 1
    open_parts = [(int(s), int(e)) for s, e in zip(starts[~final], ends[~final])]
    items = [(leaf_nodes[idx[s:e]], sens[idx[s:e]]) for s, e in open_parts]
    shared = (node_min, rest[0], rest[1], rest[2], rest[3], rest[4], *rest[6:])
    parts = executor.map(_partition_part, items, shared=shared, progress=subrange(progress, 0.05, 1.0),
                         label="Mondrian part", scatter=True)
    for (s, e), part_labels in zip(open_parts, parts):
        labels[idx[s:e]] = part_labels + nxt
        nxt += int(part_labels.max()) + 1 if len(part_labels) else 0
    return labels


def _partition_part(item: tuple, shared: tuple, progress=None) -> np.ndarray:
    """One task: strict Mondrian on one part's records (module level: Dask sends it by reference)."""
    import numpy as np

    from anonstudio.core.kernels._mondrian import mondrian_partition_rules

    leaf_nodes, sens = item
    (node_min, split_numeric, span, node_anc, node_level, node_leaves, n_sens, log_l, min_distinct, rules, k,
     nearest) = shared
    values = np.zeros(leaf_nodes.shape, dtype=np.float64)
    for a in np.flatnonzero(split_numeric):
        values[:, a] = node_min[leaf_nodes[:, a]]
    return mondrian_partition_rules(leaf_nodes, values, split_numeric, span, node_anc, node_level, node_leaves, sens,
                                    n_sens, log_l, min_distinct, rules, k, nearest, np.zeros(2, dtype=np.int64))
