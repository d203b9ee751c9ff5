"""Global (full-domain) recoding with an optimal search of the generalization lattice (``global``).

Every value of a quasi-identifier is generalized to the same hierarchy level; a *transformation* is one level
per attribute, and the transformations form a lattice (Samarati 2001; LeFevre, DeWitt & Ramakrishnan,
Incognito, SIGMOD 2005). Records in classes smaller than ``k`` (or not l-diverse) are suppressed, as ARX
suppresses them: a transformation is *anonymous* when those records are at most ``max_suppression`` of the
table (Prasser & Kohlmayer 2015). The method publishes the anonymous transformation of least loss under the
chosen quality model (:mod:`anonstudio.core.metrics._quality`).

The search (:func:`search_lattice`) is exact. It rests on two monotonicities:

- *anonymity*: generalizing merges classes, so records in classes of at least ``k`` records (or l-diverse:
  distinct l-diversity and entropy l-diversity both survive a union of classes that hold them) stay so, and
  the suppressed records can only become fewer. An anonymous transformation's generalizations are anonymous
  and a failing one's specializations fail (Flash, Kohlmayer et al. 2012; OLA, El Emam et al. 2009); one check
  decides a whole cone of the lattice (:func:`~anonstudio.core.kernels._lattice.mark_closure`).
- *a lower bound of the loss*: suppression never lowers a cell's cost, so an additive model's value without
  suppression bounds the transformation and every generalization of it (ARX's bound for Loss); for the
  class models, the value of a transformation's classes before suppression bounds every generalization.

Transformations are taken in increasing order of their lower bound (then of their height). One whose bound
exceeds the best loss found ends the search: every later one is at least as costly. Otherwise an undecided
one is decided Flash-style, by a binary search for the lowest anonymous transformation on a path of
undecided generalizations above it (each check decides a cone), and an anonymous one is evaluated unless a
lower bound known from its specializations already exceeds the best. Ties go to the lower transformation (the
smaller sum of levels, as ARX's tie rule), then to the earlier one in attribute order.

The output is an ordinary table release: generalized cells hold hierarchy labels and a suppressed record has
``*`` in every quasi-identifier cell, so the k-anonymity / l-diversity verifier checks it unchanged. The
verifier judges the suppressed records as one more class for l-diversity and counts a record published at the
root of every hierarchy as suppressed; the search publishes only transformations it would accept (ARX does
neither; on Adult the optimum is ARX's in every setting measured, see docs/measured.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonstudio.core.algorithms._base import Result
from anonstudio.core.algorithms._lattice_search import LatticeSearch, fixed_node, search_lattice
from anonstudio.core.algorithms._tabular import (
    GeneralizingMethod,
    blanked_note,
    generalized_output,
    models_param,
    renumber_by_first_record,
)
from anonstudio.core.errors import ParameterError, PrivacyError
from anonstudio.core.models import LATTICE, Description, Enforced
from anonstudio.core.params import L_DIVERSITY, L_KIND, QUALITY, WEIGHTS, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table

#: the largest lattice searched: beyond it the job must narrow the levels (ARX's optimal search stops at 2^31)
MAX_TRANSFORMATIONS = 2_000_000


class _Lattice:
    """The records reduced to distinct tuples, the lattice of transformations and the scratch space of the
    evaluation kernel; :meth:`evaluate` runs it for one transformation."""

    def __init__(self, leaves: np.ndarray, sens: np.ndarray, n_sens: int, hierarchies: list, low: np.ndarray,
                 high: np.ndarray, model, weights: np.ndarray, limits: dict, n_missing: int,
                 missing_sens: np.ndarray, budget: int, people: np.ndarray | None = None) -> None:
        import numpy as np

        self.hierarchies = hierarchies
        self.model = model
        self.weights = weights
        self.d = d = len(hierarchies)
        self.low = low.astype(np.int64)
        self.high = high.astype(np.int64)
        self.k = int(limits["min_size"])
        self.min_distinct = int(limits.get("min_distinct", 1))
        self.log_l = float(limits.get("min_entropy", 0.0))
        self.n_missing = int(n_missing)
        self.budget = int(budget)
        #: the registered models beyond k and l (:meth:`_judge_extra`); with them the lattice is not searched by
        #: monotonicity (a union of classes may break a model its parts keep once failing classes are suppressed)
        self.extra: list = []
        self.monotone = True
        # distinct (leaves, sensitive value) tuples with their counts, ordered by sensitive code
        key = np.zeros(len(sens), dtype=np.int64)
        for a in range(d):
            key = np.unique(key * (len(hierarchies[a].leaves) + 1) + leaves[:, a], return_inverse=True)[1]
        key = np.unique(key * (n_sens + 2) + (sens.astype(np.int64) + 1), return_inverse=True)[1]
        if people is not None:  # a person column: tuples are told apart by person too, whose people are counted
            key = np.unique(key * (int(people.max(initial=0)) + 1) + people, return_inverse=True)[1]
        _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(sens[first], kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        self.record_tuple = rank[inverse]
        self.tuple_leaves = leaves[first[order]]
        #: each tuple's person (a person column; ``None``: records are counted)
        self.tuple_people = None if people is None else np.asarray(people, dtype=np.int64)[first[order]]
        cnt = counts[order].astype(np.int64)
        self.n_sens = max(int(n_sens), 1)
        self.n_present = int(cnt.sum())
        self.n = self.n_present + self.n_missing
        t = len(cnt)
        top = max(int(h.height) for h in hierarchies) + 1
        tcode = np.zeros((d, top, t), dtype=np.int32)
        self.cards = np.ones((d, top), dtype=np.int64)
        self.tops = np.array([h.height for h in hierarchies], dtype=np.int64)
        self.additive = bool(model.additive)
        cost = np.zeros((d, top, t) if self.additive else (d, 1, 1))
        self.level_cost = np.zeros((d, top))
        self.maximum = np.ones(d)
        self.missing_cost = np.zeros(d)
        weights_f = cnt.astype(np.float64)
        for a, h in enumerate(hierarchies):
            anc = h.arrays.ancestor
            lf = self.tuple_leaves[:, a]
            for level in range(h.height + 1):
                codes, dense = np.unique(anc[lf, level], return_inverse=True)
                tcode[a, level] = dense
                self.cards[a, level] = max(len(codes), 1)
            if self.additive:
                per_leaf = np.bincount(lf, weights=weights_f, minlength=len(h.leaves))
                node_term, leaf_term = model.node_terms(h, per_leaf)
                root = int(anc[0, h.height])
                for level in range(h.height + 1):
                    cost[a, level] = weights_f * (node_term[anc[lf, level]] - leaf_term[lf])
                    self.level_cost[a, level] = float(cost[a, level].sum())
                if model.missing_counts:
                    self.missing_cost[a] = self.n_missing * float(node_term[root])
                self.maximum[a] = self.level_cost[a, h.height] + self.missing_cost[a]
        self.tcode, self.cnt, self.cost = tcode, cnt, cost
        self.sens = np.ascontiguousarray(sens[first[order]], dtype=np.int32)
        self.block_base = np.zeros(self.n_sens, dtype=np.int64)
        if len(missing_sens):
            present = missing_sens[missing_sens >= 0]
            self.block_base += np.bincount(present, minlength=self.n_sens).astype(np.int64)
        # the lattice: node index = Σ (level - low) · stride, the last attribute fastest
        spans = self.high - self.low + 1
        self.size = int(np.prod(spans))
        self.strides = np.ones(d, dtype=np.int64)
        for a in range(d - 2, -1, -1):
            self.strides[a] = self.strides[a + 1] * spans[a + 1]
        self.levels = (np.indices(tuple(int(s) for s in spans)).reshape(d, -1).T + self.low).astype(np.int16)
        self.top_index = self.size - 1
        self.all_root = bool(np.all(self.high == self.tops))
        # scratch of the kernel
        self.keys = np.zeros(t, dtype=np.int64)
        self.direct = np.zeros(2 * max(4 * t, 1 << 15), dtype=np.int64)
        self.hashed = np.zeros(2 * (1 << max(int(np.ceil(np.log2(max(1.5 * t, 2)))), 4)), dtype=np.int64)
        self.stamp = np.zeros(1, dtype=np.int64)
        self.class_arrays = [np.zeros(t, dtype=np.int64) for _ in range(5)]
        self.cplogp = np.zeros(t)
        self.outlier = np.zeros(t, dtype=np.int8)
        self.tmask = np.zeros(t)
        self.sup_extra = np.zeros(d)
        self.block = np.zeros(self.n_sens, dtype=np.int64)

    # -- bounds -------------------------------------------------------------------------------------------------
    def attribute_values(self, levels: np.ndarray, extra: np.ndarray | float = 0.0) -> np.ndarray:
        """Per attribute the additive model's value (``levels[..., d]``), with ``extra`` cost from suppression."""
        import numpy as np

        from anonstudio.core.metrics._quality import attribute_values

        cost = self.level_cost[np.arange(self.d), levels] + extra + self.missing_cost
        return attribute_values(cost, self.maximum)

    def static_bounds(self) -> np.ndarray:
        """A lower bound of every transformation's value (and of its generalizations') known before any check."""
        import numpy as np

        if self.additive:
            return self.model.aggregate(self.attribute_values(self.levels.astype(np.int64)), self.weights)
        return np.zeros(self.size)

    # -- one transformation ---------------------------------------------------------------------------------
    def evaluate(self, node: int) -> dict:
        """Check one transformation: its classes, outliers, value under the model and lower bound. Afterwards the
        kernel's arrays describe its classes (``keys``: each tuple's class; ``outlier``: which are suppressed)."""
        import numpy as np

        from anonstudio.core.kernels._lattice import evaluate_transformation
        from anonstudio.core.metrics._quality import ClassSummary

        levels = self.levels[node].astype(np.int64)
        all_out = self.all_root and node == self.top_index
        c = self.class_arrays
        n_out, n_classes, sumsq_all, published, kept, kept_sumsq, block_ok = evaluate_transformation(
            levels, self.tcode, self.cards, self.cnt, self.sens, self.n_sens, self.k, self.min_distinct,
            self.log_l, self.cost, self.tops, self.additive, self.budget, self.block_base, all_out, self.keys,
            self.direct, self.hashed, self.stamp, c[0], c[1], c[2], c[3], c[4],
            self.cplogp, self.outlier, self.tmask, self.sup_extra, self.block)
        if self.extra:
            n_out, published, kept, kept_sumsq, block_ok = self._judge_extra(levels, int(n_classes), all_out,
                                                                             int(n_out), int(published), block_ok)
        suppressed = int(published) + self.n_missing
        acceptable = int(published) <= self.budget and bool(block_ok)
        if not acceptable:  # (the kernel leaves the suppression costs out beyond the budget)
            value = np.inf
        elif self.additive:
            value = float(self.model.aggregate(self.attribute_values(levels, self.sup_extra), self.weights))
        else:
            value = self.model.value(ClassSummary(self.n, suppressed, int(kept), float(kept_sumsq)))
        bound = 0.0
        if not self.additive:  # the least any generalization can cost (see the kernel): a floor of the model
            floor = ClassSummary(self.n, self.n_missing, min(int(n_classes), self.n_present // self.k),
                                 float(sumsq_all))
            bound = self.model.bound(floor)
        return {"anonymous": int(n_out) <= self.budget,
                "acceptable": acceptable,
                "value": value, "bound": bound, "outliers": int(n_out), "suppressed": suppressed,
                "classes": int(kept), "block_ok": bool(block_ok)}


    # -- the registered models a job names under ``models`` ------------------------------------------------------
    def with_models(self, models: list, totals, texts: tuple, value_hierarchy, population_leaves) -> None:
        """Judge ``models`` too (every class they fail is suppressed): the sensitive values' ``totals`` over the
        whole table and ``texts``, the sensitive column's hierarchy and, for the population models, the population
        records' leaf indices per attribute (``int64[P, d]``)."""
        import numpy as np

        self.extra = list(models)
        self.monotone = not self.extra
        self.totals = np.asarray(totals, dtype=float)
        self.texts = tuple(texts)
        self.value_hierarchy = value_hierarchy
        self.population_leaves = population_leaves
        if population_leaves is not None:
            # the population's distinct tuples of leaves with their records, and per attribute and level each
            # leaf's rank among that level's nodes: a transformation's cells are then one mixed-radix number
            tuples, weights = (np.unique(population_leaves, axis=0, return_counts=True) if len(population_leaves)
                               else (np.zeros((0, len(self.hierarchies)), dtype=np.int64), np.zeros(0)))
            self.pop_tuples, self.pop_weights = tuples.astype(np.int64), weights.astype(np.float64)
            self.level_ranks = []
            for h in self.hierarchies:
                ranks = []
                for level in range(h.arrays.ancestor.shape[1]):
                    _, inverse = np.unique(h.arrays.ancestor[:, level], return_inverse=True)
                    ranks.append((inverse.ravel().astype(np.int64), int(inverse.max()) + 1 if inverse.size else 1))
                self.level_ranks.append(ranks)

    def _stats(self, classes: np.ndarray, sizes: np.ndarray, n: int, levels: np.ndarray, reps: np.ndarray):
        """:class:`ClassStats` of ``n`` classes, tuple ``t`` in class ``classes[t]`` (-1: none); ``reps`` one tuple
        of each class (for the population counts)."""
        import numpy as np

        from anonstudio.core.models import POPULATION, SENSITIVE, ClassStats

        stats = ClassStats(sizes.astype(np.int64), records=self.n)  # the whole table (k-map's estimators)
        needs = set().union(*(m.needs for m in self.extra))
        if self.tuple_people is not None:  # classes judged by their distinct people (privacy._people)
            from anonstudio.core.privacy._people import distinct_people, people_per_value

            stats.sizes = distinct_people(classes, self.tuple_people, n)
            if SENSITIVE in needs:
                sel = (classes >= 0) & (self.sens >= 0)
                v_class, v_code, v_people = people_per_value(classes, self.tuple_people, self.sens, sel)
                stats.value_class, stats.value_code = v_class, v_code
                stats.value_count = v_people.astype(float)
                stats.value_total = self.totals
                stats.value_texts = self.texts
                stats.value_hierarchy = self.value_hierarchy
            if POPULATION in needs:
                stats.population = self._population_counts(levels, reps)
            return stats
        if SENSITIVE in needs:
            sel = (classes >= 0) & (self.sens >= 0)
            key = classes[sel].astype(np.int64) * self.n_sens + self.sens[sel]
            pairs, inverse = np.unique(key, return_inverse=True)
            stats.value_class = pairs // self.n_sens
            stats.value_code = pairs % self.n_sens
            stats.value_count = np.bincount(inverse, weights=self.cnt[sel].astype(float), minlength=len(pairs))
            stats.value_total = self.totals
            stats.value_texts = self.texts
            stats.value_hierarchy = self.value_hierarchy
        if POPULATION in needs:
            stats.population = self._population_counts(levels, reps)
        return stats

    def _population_counts(self, levels: np.ndarray, reps: np.ndarray) -> np.ndarray:
        """Per class (its tuple ``reps[i]``), the population records whose every value generalizes, at ``levels``,
        to the class's cell: the cells as one mixed-radix number of the nodes' ranks at those levels, the
        population's numbers counted (densely when the space is small, else sorted) and looked up."""
        import numpy as np
        import pandas as pd

        pop, weights = self.pop_tuples, self.pop_weights
        mine = np.zeros(len(reps), dtype=np.int64)
        theirs = np.zeros(len(pop), dtype=np.int64)
        space = 1
        for a in range(len(self.hierarchies)):
            rank, n = self.level_ranks[a][int(levels[a])]
            if space * n >= 2**62:  # numbered again, densely, before the number could overflow
                dense = pd.factorize(np.concatenate((mine, theirs)))[0].astype(np.int64)
                mine, theirs = dense[:len(mine)], dense[len(mine):]
                space = int(dense.max()) + 1 if len(dense) else 1
            mine = mine * n + rank[self.tuple_leaves[reps, a]]
            theirs = theirs * n + rank[pop[:, a]]
            space *= n
        if not len(reps):
            return np.zeros(0, dtype=np.int64)
        if space <= max(4 * len(pop), 1 << 16):
            return np.bincount(theirs, weights=weights, minlength=space)[mine].astype(np.int64)
        keys, inverse = np.unique(theirs, return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=weights, minlength=len(keys))
        at = np.minimum(np.searchsorted(keys, mine), max(len(keys) - 1, 0))
        found = (keys[at] == mine) if len(keys) else np.zeros(len(mine), dtype=bool)
        return np.where(found, counts[at] if len(keys) else 0, 0).astype(np.int64)

    def _judge_extra(self, levels, n_classes: int, all_out: bool, n_out: int, published: int, block_ok: bool):
        """Suppress the kept classes the extra models fail; the suppressed records together (one class for the
        verifier) must keep the distribution models. Updates the kernel's ``outlier`` and ``sup_extra``."""
        import numpy as np

        from anonstudio.core.models import SENSITIVE

        outlier = self.outlier
        csize = self.class_arrays[0][:n_classes]
        if not all_out:
            kept_ids = np.flatnonzero(outlier[:n_classes] == 0)
            remap = np.full(n_classes, -1, dtype=np.int64)
            remap[kept_ids] = np.arange(len(kept_ids))
            classes = remap[self.keys]
            reps = np.zeros(len(kept_ids), dtype=np.int64)
            reps[classes[classes >= 0][::-1]] = np.flatnonzero(classes >= 0)[::-1]
            stats = self._stats(classes, csize[kept_ids], len(kept_ids), levels, reps)
            failed = np.unique(np.concatenate([np.asarray(m.failing(stats), dtype=np.int64) for m in self.extra]))
            if len(failed):
                gone = kept_ids[failed]
                outlier[gone] = 1
                extra = int(csize[gone].sum())
                n_out += extra
                published += extra
        kept = outlier[:n_classes] == 0
        kept_classes = int(kept.sum())
        kept_sumsq = float((csize[kept].astype(float) ** 2).sum())
        tmask = (outlier[self.keys] != 0).astype(float)
        if self.additive:
            for a in range(self.d):
                self.sup_extra[a] = float((tmask * (self.cost[a, self.tops[a]] - self.cost[a, levels[a]])).sum())
        sensitive_models = [m for m in self.extra if SENSITIVE in m.needs]
        if sensitive_models and published <= self.budget and (published + self.n_missing) > 0:
            block = np.where(tmask > 0, 0, -1)
            stats = self._stats(block, np.array([published + self.n_missing]), 1, levels, np.zeros(1, dtype=np.int64))
            base = self.block_base.astype(float)
            counts = np.bincount(stats.value_code, weights=stats.value_count, minlength=self.n_sens) + base
            stats.value_code = np.flatnonzero(counts > 0)
            stats.value_class = np.zeros(len(stats.value_code), dtype=np.int64)
            stats.value_count = counts[stats.value_code]
            if any(len(m.failing(stats)) for m in sensitive_models):
                block_ok = False
        return n_out, published, kept_classes, kept_sumsq, block_ok


#: every registered model declaring ``lattice``: the lattice judges each transformation's classes by its class
#: predicate (``failing``), and the records of the classes a model fails are suppressed, within the budget
ENFORCED = Enforced(LATTICE)


def lattice_bounds(params: dict, qis: list[str], hierarchies: list) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest level of each quasi-identifier the search may choose (``min_level`` / ``max_level``
    of ``params``, checked against the hierarchies), refused when the lattice they span holds more than
    :data:`MAX_TRANSFORMATIONS` nodes. Shared by ``global`` and ``safepub`` (the same keys, the same checks)."""
    import numpy as np

    low = np.zeros(len(qis), dtype=np.int64)
    high = np.array([h.height for h in hierarchies], dtype=np.int64)
    for key, target in (("min_level", low), ("max_level", high)):
        for attr, level in (params.get(key) or {}).items():
            if attr not in qis:
                raise ParameterError(f"{key} names '{attr}', which is not a quasi-identifier "
                                     f"({', '.join(qis)})", key=f"algorithm.{key}")
            h = hierarchies[qis.index(attr)]
            if level > h.height:
                raise ParameterError(f"{key} of '{attr}' is {level}, above its hierarchy's height {h.height}",
                                     key=f"algorithm.{key}")
            target[qis.index(attr)] = level
    for a, attr in enumerate(qis):
        if low[a] > high[a]:
            raise ParameterError(f"min_level of '{attr}' ({low[a]}) is above its max_level ({high[a]})",
                                 key="algorithm.min_level")
    size = int(np.prod(high - low + 1))
    if size > MAX_TRANSFORMATIONS:
        raise ParameterError(f"the lattice of transformations has {size:,} nodes, more than the "
                             f"{MAX_TRANSFORMATIONS:,} searched: narrow it with min_level / max_level",
                             key="algorithm.max_level")
    return low, high


class GlobalRecoding(GeneralizingMethod):
    """Full-domain generalization with suppression, optimal over the lattice of hierarchy levels (see the module).

    Parameters: ``k``; optional ``l`` with ``l_kind`` (distinct or entropy l-diversity of the one sensitive
    attribute, as Mondrian's); ``quality`` (the model minimized, :data:`anonstudio.core.params.QUALITY_MODELS`); ``weights``
    (attribute = weight, for the additive models; unnamed attributes weigh 1 — ARX gives them 0.5, so name
    every attribute to compare weighted results with ARX's); ``min_level`` / ``max_level``
    (attribute = level: the levels the search may choose, as ARX's per-attribute limits). The suppression limit
    is the pipeline's ``max_suppression``.
    """

    name = "global"
    group_unit = "class"
    counts_people = True
    title = "Global recoding (optimal full-domain generalization)"
    reference = ("F. Kohlmayer, F. Prasser, C. Eckert, A. Kemper, K. A. Kuhn: Flash: efficient, stable and optimal "
                 "k-anonymity. PASSAT 2012; K. El Emam et al.: A globally optimal k-anonymity method for the "
                 "de-identification of health data. JAMIA 2009")
    description = ("generalizes every value of a quasi-identifier to the same hierarchy level, suppressing the "
                   "records of classes smaller than k within max_suppression; the levels are the lattice "
                   "optimum for the chosen quality model (k-anonymity, optional l-diversity)")
    privacy_models = Description(("k-anonymity", "l-diversity (entropy or distinct, with l)"), LATTICE)
    reported_metrics = ("transformation", "quality_value", "NCP_total", "GCP", "DM", "CAVG", "quality")
    parameters = ParamSet((
        Param("k", "int", 5, help="k-anonymity: every published class holds at least k records", low=2),
        L_DIVERSITY,
        L_KIND,
        QUALITY,
        WEIGHTS,
        Param("min_level", "levels", None, help="lowest hierarchy level the search may give an attribute, e.g. "
              "age=1", title="Lowest level per attribute"),
        Param("max_level", "levels", None, help="highest hierarchy level the search may give an attribute, e.g. "
              "native-country=1", title="Highest level per attribute"),
        models_param(ENFORCED),
        Param("transformation", "levels", None, help="publish this transformation instead of the optimum: one "
              "hierarchy level per quasi-identifier, e.g. age=2, sex=0 (empty: the lattice optimum)",
              title="Publish transformation (levels)"),
    ))
    enforced_models = ENFORCED
    counts_population = True


    def privacy_model(self) -> dict:
        """The tabular model, and ``full_domain``: the release is one hierarchy level per quasi-identifier
        (global recoding, Samarati 2001; LeFevre et al. 2005) within ``min_level`` / ``max_level`` — a property of
        the release itself, so ``verify --model-only`` checks it too (a release with one column's records at two
        levels passed it: issue 39)."""
        model = super().privacy_model()
        model["full_domain"] = {key: {str(a): int(v) for a, v in (self.params.get(key) or {}).items()}
                                for key in ("min_level", "max_level")}
        return model
    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.search: LatticeSearch | None = None

    # -- parameters the data must agree with ----------------------------------------------------------------
    def _weights(self, qis: list[str], model) -> tuple[np.ndarray, list[str]]:

        from anonstudio.core.metrics._quality import weight_vector

        weights = self.params.get("weights")
        notes: list[str] = []
        if isinstance(weights, dict):
            unknown = [a for a in weights if a not in qis]
            if unknown:
                raise ParameterError(f"weights name '{unknown[0]}', which is not a quasi-identifier "
                                     f"({', '.join(qis)})", key="algorithm.weights")
            if not any(weights.get(a, 1.0) > 0 for a in qis):
                raise ParameterError("weights must give some quasi-identifier a positive weight",
                                     key="algorithm.weights")
            if not model.uses_weights:
                notes.append(f"weights have no effect on the quality model '{model.name}' (it counts classes, not "
                             "attributes)")
        return weight_vector(weights, qis), notes

    def _sensitive_codes(self, data: Table) -> tuple[np.ndarray, int]:
        import numpy as np

        from anonstudio.core.data import value_codes

        if not self.needs_sensitive():
            return np.full(data.n_rows, -1, dtype=np.int32), 1
        sens = data.sensitive
        if len(sens) != 1:
            what = "l-diversity" if self.params.get("l") is not None else \
                f"privacy model '{self.extra_models()[0].name}'"
            raise ParameterError(f"{what} needs exactly one sensitive attribute, the input has {len(sens)}"
                                 + (f" ({', '.join(sens)})" if sens else ""), file=data.source,
                                 key="algorithm.l" if self.params.get("l") is not None else "input.sensitive")
        self._sensitive = sens[0]
        codes, n_values = value_codes(data.df[sens[0]])
        return codes, max(n_values, 1)

    # -- the run ----------------------------------------------------------------------------------------------
    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None) -> Result:
        import math

        import numpy as np

        from anonstudio.core.metrics._quality import MODELS
        from anonstudio.core.models import partition_limits
        from anonstudio.core.params import DEFAULT_MAX_SUPPRESSION

        packed, leaf_nodes, missing, idx = self.encoded(data, hierarchies)
        qis = packed.attributes
        hs = packed.hierarchies
        model = MODELS[self.params["quality"]]
        low, high = lattice_bounds(self.params, qis, hs)
        size = int(np.prod(high - low + 1))
        weights, notes = self._weights(qis, model)
        sens_all, n_sens = self._sensitive_codes(data)
        limits = partition_limits(self.models())
        n = data.n_rows
        share = float(self.pipeline.get("max_suppression", DEFAULT_MAX_SUPPRESSION))
        allowed = math.floor(share * n + 1e-9)
        n_missing = int(missing.sum())
        if n_missing > allowed:
            raise PrivacyError(f"{n_missing} records have a missing quasi-identifier and must be suppressed, more "
                               f"than max_suppression = {share:.1%} of {n} records allows", file=data.source)
        # each attribute's leaf index (row of its hierarchy) per present record
        leaves = np.zeros((len(idx), len(qis)), dtype=np.int64)
        for a, h in enumerate(hs):
            node_to_leaf = np.full(h.n_nodes, -1, dtype=np.int64)
            node_to_leaf[h.arrays.ancestor[:, 0]] = np.arange(len(h.leaves))
            leaves[:, a] = node_to_leaf[leaf_nodes[idx, a] - packed.offsets[a]]
        report(progress, 0.02, f"lattice of {size:,} transformations")
        people = None
        if data.person is not None:
            from anonstudio.core.privacy._people import person_codes

            people = person_codes(data)
        lattice = _Lattice(leaves, sens_all[idx], n_sens, hs, low, high, model, weights, limits, n_missing,
                           sens_all[missing], allowed - n_missing, people=None if people is None else people[idx])
        if self.extra_models() or people is not None:
            # with a person column, k and l are judged again over people: a class whose records hold fewer than k
            # people is suppressed (the kernel's count of records is only a first filter: people <= records)
            self._judge_models(lattice, data, hierarchies, sens_all, n_sens, packed, people)
        what = f"k = {self.params['k']}" + (f" and {self.params['l_kind']} l-diversity with l = "
                                             f"{self.params['l']:g}" if self.params.get("l") is not None else "")
        what += "".join(f", {m.label()}" for m in self.extra_models())
        spans = tuple(int(s) for s in high - low + 1)
        chosen: list[int] | None = None
        chosen_value = 0.0
        if self.params.get("transformation"):  # a transformation the job names: checked before any search
            chosen = fixed_node(self.params["transformation"], qis, hs, low, high)
            res = lattice.evaluate(int(np.ravel_multi_index(tuple(np.array(chosen) - low), spans)))
            if not res["acceptable"]:
                named = ", ".join(f"{q} = {v}" for q, v in zip(qis, chosen))
                why = f"it would suppress {res['suppressed']}"
                if res["suppressed"] <= allowed and not res["block_ok"]:
                    # within the budget, but the suppressed records' own block fails the models (hunt 2 C): the
                    # '*' rows publish the sensitive values of everyone suppressed, so they must be diverse too
                    block = what.split(" and ", 1)[1] if " and " in what else what.split(", ", 1)[-1]
                    why = (f"its {res['suppressed']} suppressed records fit the budget, but the block of suppressed "
                           f"rows would itself fail {block} (the '*' rows still show the suppressed people's "
                           "sensitive values): name a coarser transformation, or leave it out to search")
                raise PrivacyError(f"the transformation named ({named}) does not meet {what} with at most {allowed} "
                                   f"records ({share:.1%}) suppressed: {why}", file=data.source)
            chosen_value = float(res["value"])
        found = search_lattice(lattice, progress)
        if found is None:
            raise PrivacyError(f"no transformation within the level limits meets {what} with at most {allowed} "
                               f"records ({share:.1%}) suppressed", file=data.source)
        self.search = found
        nodes = found.nodes
        if nodes is not None:
            nodes.attributes, nodes.heights, nodes.quality_model = list(qis), [int(h.height) for h in hs], model.name
            nodes.chosen = -1 if chosen is None else nodes.node_of(chosen)
        published_levels = found.levels if chosen is None else chosen
        report(progress, 0.96, "building the output")
        node = int(np.ravel_multi_index(tuple(np.array(published_levels) - low), spans))
        lattice.evaluate(node)  # leaves the chosen transformation's classes in the kernel's arrays
        tuple_class = lattice.keys[lattice.record_tuple]
        kept = lattice.outlier[tuple_class] == 0
        labels = np.where(kept, tuple_class, -1)
        labels = renumber_by_first_record(labels)
        groups = np.full(n, -1, dtype=np.int64)
        groups[idx] = labels
        n_groups = int(labels.max()) + 1 if len(labels) and labels.max() >= 0 else 0
        class_nodes = np.zeros((n_groups, len(qis)), dtype=np.int64)
        if n_groups:
            _, first = np.unique(labels, return_index=True)
            first = first[1:] if labels[first[0]] < 0 else first
            rep_leaves = lattice.tuple_leaves[lattice.record_tuple[first]]
            for a, h in enumerate(hs):
                class_nodes[:, a] = h.arrays.ancestor[rep_leaves[:, a], published_levels[a]] + packed.offsets[a]
        suppressed = int((groups < 0).sum())
        transformation = {q: int(v) for q, v in zip(qis, published_levels)}
        outliers = suppressed - n_missing
        in_words = ", ".join(f"{q} at level {v} of {h.height}" for q, v, h in zip(qis, published_levels, hs))
        notes = notes + [
            "global recoding: " + in_words if chosen is None else
            f"global recoding, the transformation the job names: {in_words} (its {model.name} {chosen_value:.4g}; "
            "the optimum " + ", ".join(f"{q} = {v}" for q, v in zip(qis, found.levels))
            + f" has {found.value:.4g})",
            f"the lattice search checked {found.checked:,} of {found.transformations:,} transformations "
            f"(the rest decided by monotonicity or the {model.name} lower bound); the "
            f"{'result' if chosen is None else 'optimum'} is optimal for "
            f"'{model.name}' with at most {allowed} records ({share:.1%}) suppressed",
        ]
        if outliers:
            notes.append(f"{outliers} records were suppressed: their classes had fewer than k = {self.params['k']} "
                         "records" + (" or were not l-diverse" if self.params.get("l") is not None else ""))
        if n_missing:
            notes.append(f"{n_missing} records with a missing quasi-identifier were suppressed")
        report(progress, 1.0, f"{n_groups} classes")
        output = generalized_output(data, packed, groups, class_nodes, k=int(self.params["k"]))
        notes += blanked_note(output, packed, int(self.params["k"]), data)
        return Result(
            output=output,
            groups=groups,
            suppressed=suppressed,
            metrics={"transformation": transformation, "quality_model": model.name,
                     "quality_value": found.value if chosen is None else chosen_value,
                     "suppressed_records": suppressed, "lattice": {
                         "transformations": found.transformations, "checked": found.checked,
                         "skipped_by_bound": found.skipped_by_bound,
                         "skipped_as_not_anonymous": found.skipped_as_not_anonymous}},
            details={"transformation": transformation, "lattice_low": low.tolist(), "lattice_high": high.tolist(),
                     "lattice_nodes": nodes},
            notes=notes,
        )

    def _judge_models(self, lattice: _Lattice, data: Table, hierarchies: dict, codes: np.ndarray, n_values: int,
                      packed, people: np.ndarray | None = None) -> None:
        """Hand the lattice the job's extra models and what they judge with."""
        import numpy as np

        from anonstudio.core.data import coded_cells

        texts: tuple = ()
        totals = np.zeros(0)
        column = self._sensitive
        if column is not None:
            cells = coded_cells(data.df[column], "").read_alike()
            present = codes >= 0
            firsts = np.full(n_values, -1, dtype=np.int64)
            firsts[codes[present][::-1]] = np.flatnonzero(present)[::-1]
            texts = tuple(str(cells.texts[cells.codes[i]]) for i in firsts)
            totals = np.bincount(codes[present], minlength=n_values)
            if people is not None:
                from anonstudio.core.privacy._people import people_per_value_total

                totals = people_per_value_total(people, codes, present, n_values)
        population = self.population_leaves(packed, data)
        models = self.models() if people is not None else self.extra_models()
        lattice.with_models(models, totals, texts, hierarchies.get(column) if column else None,
                            population)

