"""Quality models of a generalized table: the loss a search minimizes and the figures every table report gives.

One small class per model, each with its definition and its paper. The same objects serve two callers:

- the global-recoding lattice search (:mod:`anonstudio.core.algorithms.global_recoding`) asks a model for
  its per-cell cost terms (additive models) or its value from class counts (class models), for a lower bound
  valid for a transformation and every generalization of it, and for the aggregate over attributes; and
- :func:`release_quality` measures every model on any table release (global or local recoding, suppression),
  from the input, the output and the hierarchies only.

Two kinds:

**Additive** models are, per quasi-identifier ``a``, a ratio of sums over records of a per-cell cost that
depends on the published node and the original leaf only: ``cost(r) = node_term[node(r)] - leaf_term[leaf(r)]``,
and ``x_a = Σ_r cost(r) / Σ_r cost_root(r)`` (the cost if every cell were published at the root), so
``0 ≤ x_a ≤ 1``. A fully suppressed record costs what its root costs. The attributes are combined with the
weights ``w`` (divided by the largest, as ARX does): :class:`Loss` by ARX's geometric form, the others by the
weighted mean. Generalizing a cell never lowers its cost, so the cost of a transformation without any
suppression is a lower bound for it and for every generalization of it.

**Class** models depend on the equivalence classes' sizes only (:class:`ClassSummary`): discernibility and
the average class size. Generalizing only merges classes, a kept class holds at least k records and a
suppressed record costs n ≥ k, so one transformation's classes before suppression give a floor
(:meth:`ClassModel.bound`) of its value and of every generalization's.

Records with a missing quasi-identifier are published fully suppressed: additive models count their cells as
generalized to the root (non-uniform entropy leaves them out: they hold no original value to lose).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

#: ARX compares its Loss with each attribute's value rounded down to 10 decimals (``Metric.round``): the
#: same rounding makes ties tie here too
_ROUND = 1e10


@dataclass(frozen=True)
class ClassSummary:
    """What the class models read from a release: ``n`` records, ``suppressed`` of them fully suppressed, the
    other records in ``kept_classes`` classes with ``Σ |E|² = kept_sumsq``."""

    n: int
    suppressed: int
    kept_classes: int
    kept_sumsq: float

    @classmethod
    def from_sizes(cls, sizes: np.ndarray, suppressed: int) -> ClassSummary:
        sizes = np.asarray(sizes, dtype=np.float64)
        return cls(int(sizes.sum()) + int(suppressed), int(suppressed), int(len(sizes)), float((sizes**2).sum()))


def normalized_weights(weights: np.ndarray) -> np.ndarray:
    """Attribute weights divided by the largest (ARX's convention); all zero → all one."""
    w = np.asarray(weights, dtype=np.float64)
    top = float(w.max()) if len(w) else 0.0
    return np.ones_like(w) if top <= 0 else w / top


def attribute_values(cost: np.ndarray, maximum: np.ndarray) -> np.ndarray:
    """``cost / maximum`` per attribute (0 where the maximum is 0: an attribute with nothing to lose)."""
    cost = np.asarray(cost, dtype=np.float64)
    maximum = np.broadcast_to(np.asarray(maximum, dtype=np.float64), cost.shape)
    out = np.zeros(cost.shape)
    np.divide(cost, maximum, out=out, where=maximum > 0)
    return np.clip(out, 0.0, 1.0)


class QualityModel(ABC):
    """A quality model: ``name`` (the job's ``quality`` value), ``title``, ``definition`` (the report's sentence),
    ``reference`` and whether per-attribute ``weights`` apply. Lower values are better for every model here."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: one line for a summary card; ``definition`` is the whole sentence
    meaning: ClassVar[str] = ""
    definition: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    additive: ClassVar[bool] = True
    uses_weights: ClassVar[bool] = True

    def describe(self) -> dict[str, str]:
        return {"title": self.title, "meaning": self.meaning, "definition": self.definition,
                "reference": self.reference}


class AdditiveModel(QualityModel):
    """A per-attribute ratio of sums of per-cell costs (see the module), combined by a weighted mean."""

    #: a record with a missing value in the attribute costs as much as its root (True) or is left out (False)
    missing_counts: ClassVar[bool] = True

    @abstractmethod
    def node_terms(self, hierarchy, leaf_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(node_term float64[n_nodes], leaf_term float64[n_leaves])`` of the hierarchy; ``leaf_counts`` holds
        the records (every quasi-identifier present) per leaf, in leaf order."""

    def aggregate(self, x: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The model's value from the per-attribute values ``x[..., d]`` (any leading shape: one transformation
        or all of a lattice at once): the weighted mean ``Σ w x / Σ w``."""
        w = normalized_weights(weights)
        total = float(w.sum())
        # (a product and a sum rather than numpy's dot, which goes through a BLAS that costs ms per call here)
        return (np.asarray(x, dtype=np.float64) * w).sum(axis=-1) / total if total > 0 else np.zeros(np.shape(x)[:-1])


class Loss(AdditiveModel):
    name = "loss"
    title = "Loss (ARX)"
    meaning = "ARX's default: share of each hierarchy lost per cell, attributes by geometric mean; 0 none – 1 all"
    definition = ("per attribute, the mean over records of (leaves under the published node − 1) / (leaves of the "
                  "hierarchy − 1), a suppressed record counting 1 (Iyengar's loss metric, LM); attributes combined "
                  "as ARX's default quality model Loss does: (Π (1 + w·LM))^(1/d) − 1, each LM rounded down to 10 "
                  "decimals, weights divided by the largest. 0 = nothing generalized, 1 = everything at the root")
    reference = ("V. S. Iyengar, Transforming data to satisfy privacy constraints, KDD 2002; F. Prasser, "
                 "F. Kohlmayer, Putting statistical disclosure control into practice: the ARX data anonymization "
                 "tool, 2015 (Loss, geometric mean)")

    def node_terms(self, hierarchy, leaf_counts):
        leaves = hierarchy.arrays.node_leaves.astype(np.float64)
        return leaves - 1.0, np.zeros(len(hierarchy.leaves))

    def aggregate(self, x, weights):
        x = np.floor(np.asarray(x, dtype=np.float64) * _ROUND) / _ROUND
        w = normalized_weights(weights)
        d = x.shape[-1]
        if d == 0:
            return np.zeros(x.shape[:-1])
        result = np.ones(x.shape[:-1])
        for a in range(d):  # in attribute order, one power at a time, as ARX multiplies them
            result = result * np.power(x[..., a] * w[a] + 1.0, 1.0 / d)
        return result - 1.0


class NCP(AdditiveModel):
    name = "ncp"
    title = "NCP (mean over cells)"
    meaning = "share of the hierarchy lost per cell, averaged over every quasi-identifier cell; 0 none – 1 all"
    definition = ("per attribute, the mean over records of (leaves under the published node − 1) / (leaves of the "
                  "hierarchy − 1), a suppressed record counting 1; attributes combined by the weighted mean, so with "
                  "equal weights it is that share averaged over every quasi-identifier cell. 0 = nothing "
                  "generalized, 1 = everything at the root")
    reference = ("V. S. Iyengar, KDD 2002 (loss metric); J. Xu, W. Wang, J. Pei et al., Utility-based anonymization "
                 "using local recoding, KDD 2006 (NCP)")

    def node_terms(self, hierarchy, leaf_counts):
        leaves = hierarchy.arrays.node_leaves.astype(np.float64)
        return leaves - 1.0, np.zeros(len(hierarchy.leaves))


class Precision(AdditiveModel):
    name = "precision"
    title = "Precision loss (height)"
    meaning = "hierarchy levels climbed per cell over the height, averaged; 1 − Sweeney's precision"
    definition = ("per attribute, the mean over records of (level of the published node) / (height of the "
                  "hierarchy), a suppressed record counting 1; attributes combined by the weighted mean. Sweeney's "
                  "precision is 1 minus this value")
    reference = ("L. Sweeney, Achieving k-anonymity privacy protection using generalization and suppression, "
                 "IJUFKS 10(5), 2002 (Prec)")

    def node_terms(self, hierarchy, leaf_counts):
        arr = hierarchy.arrays
        height = max(int(arr.height), 1)
        return arr.node_level.astype(np.float64) / height, np.zeros(len(hierarchy.leaves))


class NonUniformEntropy(AdditiveModel):
    name = "entropy"
    title = "Non-uniform entropy"
    meaning = "information (bits) lost per cell given the data's frequencies, over its most; 0 none – 1 all"
    definition = ("per attribute, Σ over records of log2(records under the published node / records with the "
                  "original value), divided by its value with every cell at the root (records with every "
                  "quasi-identifier present; a suppressed record counts as published at the root); attributes "
                  "combined by the weighted mean")
    reference = ("A. Gionis, T. Tassa, k-Anonymization with minimal loss of information, IEEE TKDE 21(2), 2009; "
                 "T. de Waal, L. Willenborg, Information loss through global recoding and local suppression, 1999")
    missing_counts = False

    def node_terms(self, hierarchy, leaf_counts):
        arr = hierarchy.arrays
        counts = np.asarray(leaf_counts, dtype=np.float64)
        per_node = np.zeros(hierarchy.n_nodes)
        for level in range(arr.height + 1):
            np.add.at(per_node, arr.ancestor[:, level], counts)
        with np.errstate(divide="ignore"):
            node_term = np.where(per_node > 0, np.log2(np.maximum(per_node, 1.0)), 0.0)
            leaf_term = np.where(counts > 0, np.log2(np.maximum(counts, 1.0)), 0.0)
        return node_term, leaf_term


class ClassModel(QualityModel):
    """A model of the class sizes only (see the module)."""

    additive = False
    uses_weights = False

    @abstractmethod
    def value(self, s: ClassSummary) -> float:
        """The model's value of a transformation's classes."""

    @abstractmethod
    def normalized(self, s: ClassSummary) -> float:
        """That value on 0–1."""

    @abstractmethod
    def bound(self, floor: ClassSummary) -> float:
        """A lower bound of a transformation's value, valid for every generalization of it too, from ``floor``:
        its classes before suppression as the least any generalization can reach — ``kept_sumsq`` is
        ``Σ |E| · max(|E|, k)`` (a record's class only grows, and a kept class holds k records, a suppressed
        record costs n ≥ k), ``kept_classes`` the most classes a generalization can keep (no more than these,
        nor than records / k), ``suppressed`` the records suppressed anyway."""


class Discernibility(ClassModel):
    name = "dm"
    title = "Discernibility (DM)"
    meaning = "Σ class size², a suppressed record costing n; normalized (DM − n)/(n² − n)"
    definition = ("Σ |E|² over the published classes plus n for every fully suppressed record (n records); "
                  "normalized: (DM − n) / (n² − n)")
    reference = ("R. J. Bayardo, R. Agrawal, Data privacy through optimal k-anonymization, ICDE 2005 (DM); ARX's "
                 "non-monotonic discernibility")

    def value(self, s):
        return float(s.kept_sumsq + float(s.n) * s.suppressed)

    def normalized(self, s):
        n = float(s.n)
        return float((self.value(s) - n) / (n * n - n)) if n > 1 else 0.0

    def bound(self, floor):
        # a record costs the size of its class, at least k when kept, or n ≥ k when suppressed
        return self.value(floor)


class AverageClassSize(ClassModel):
    name = "aecs"
    title = "Average class size"
    meaning = "records per published class (suppressed records one class); normalized (AECS − 1)/(n − 1)"
    definition = ("n / (published classes, plus one when records are suppressed: they form one more class); "
                  "normalized: (AECS − 1) / (n − 1)")
    reference = ("K. LeFevre, D. J. DeWitt, R. Ramakrishnan, Mondrian multidimensional k-anonymity, ICDE 2006 "
                 "(C_AVG); ARX's AECS")

    def value(self, s):
        groups = s.kept_classes + (1 if s.suppressed else 0)
        return float(s.n) / groups if groups else float(s.n)

    def normalized(self, s):
        return float((self.value(s) - 1.0) / (s.n - 1.0)) if s.n > 1 else 0.0

    def bound(self, floor):
        # kept classes can only be fewer (merging, suppressing), and suppression adds at most one group
        return float(floor.n) / (floor.kept_classes + 1)


#: every model by its name, in the order reports list them
MODELS: dict[str, QualityModel] = {m.name: m for m in (Loss(), NCP(), Discernibility(), AverageClassSize(),
                                                     NonUniformEntropy(), Precision())}


def weight_vector(weights: Any, attributes: list[str]) -> np.ndarray:
    """Per attribute its weight from a job's ``weights`` (``"equal"`` / ``None`` → all 1; a table names some
    attributes, the others weigh 1). Names that are not among ``attributes`` are the caller's to refuse."""
    if not isinstance(weights, dict):
        return np.ones(len(attributes))
    return np.array([float(weights.get(a, 1.0)) for a in attributes], dtype=np.float64)


# -------------------------------------------------------------------------------------------------------------
# measuring a release
def _lowest_level_nodes(hierarchy) -> dict[str, int]:
    """label → node id, the lowest level winning when a label appears on several levels."""
    order = np.argsort(np.asarray(hierarchy.node_level_list), kind="stable")
    out: dict[str, int] = {}
    for node in order:
        out.setdefault(hierarchy.node_labels[node], int(node))
    return out


def _published_nodes(output_column, hierarchy, attribute: str) -> np.ndarray:
    """Node id of every published cell (``*`` not in the hierarchy: its root)."""
    from anonstudio.core.data import text_cells
    from anonstudio.core.data._chunks import factorize
    from anonstudio.core.errors import HierarchyError

    table = _lowest_level_nodes(hierarchy)
    root = int(hierarchy.arrays.ancestor[0, hierarchy.height])
    table.setdefault("*", root)
    inv, uniques = factorize(text_cells(output_column, "*"))
    nodes = np.empty(len(uniques), dtype=np.int64)
    for u, label in enumerate(uniques):
        node = table.get(str(label))
        if node is None:
            row = int(np.flatnonzero(inv == u)[0])
            raise HierarchyError(f"output cell '{label}' is not a node of the hierarchy of '{attribute}'",
                                 record=row + 1, column=attribute)
        nodes[u] = node
    return nodes[inv] if len(uniques) else np.zeros(len(inv), dtype=np.int64)


def _original_leaves(input_column, hierarchy) -> np.ndarray:
    """Leaf index of every input cell, -1 where missing (or not a leaf)."""
    from anonstudio.core.data._chunks import factorize

    inv, uniques = factorize(input_column)
    leaf = np.array([hierarchy.leaf_index.get(str(v), -1) for v in uniques], dtype=np.int64)
    return np.where(inv >= 0, leaf[np.maximum(inv, 0)] if len(uniques) else -1, -1)


def release_quality(original, output, quasi_identifiers: list[str], hierarchies: dict, *, weights: Any = None,
                    classes: np.ndarray | None = None, suppressed: np.ndarray | None = None) -> dict[str, dict]:
    """Every model of :data:`MODELS` measured on a release: ``{name: {value, normalized, by_attribute (additive
    models), title, definition, reference}}``.

    ``original`` / ``output``: the input and the published table (same rows, same order); ``classes`` and
    ``suppressed`` as :func:`anonstudio.core.metrics.equivalence_classes` gives them (computed if not given);
    ``weights`` as the job's (``None``: equal). A cell label that is not a node of its hierarchy raises
    :class:`HierarchyError` naming the record and the column.
    """
    from anonstudio.core.metrics._table_metrics import _frame, class_sizes, equivalence_classes

    in_frame, out_frame = _frame(original), _frame(output)
    if classes is None or suppressed is None:
        classes, suppressed = equivalence_classes(output, quasi_identifiers, hierarchies)
    n = len(out_frame)
    hs = [hierarchies[a] for a in quasi_identifiers]
    leaves = [_original_leaves(in_frame[a], h) for a, h in zip(quasi_identifiers, hs)]
    present = np.ones(n, dtype=bool)
    for leaf in leaves:
        present &= leaf >= 0
    nodes = []
    for a, h in zip(quasi_identifiers, hs):
        node = _published_nodes(out_frame[a], h, a)
        node[suppressed | ~present] = int(h.arrays.ancestor[0, h.height])  # a suppressed record is at its roots
        nodes.append(node)
    w = weight_vector(weights, list(quasi_identifiers))
    summary = ClassSummary.from_sizes(class_sizes(classes), int(suppressed.sum()))
    out: dict[str, dict] = {}
    # per attribute, the records (every quasi-identifier present) per published node and per original leaf: every
    # additive model's sums are dot products with its per-node and per-leaf terms
    node_counts = [np.bincount(node[present], minlength=h.n_nodes).astype(np.float64) for node, h in zip(nodes, hs)]
    leaf_counts = [np.bincount(leaf[present], minlength=len(h.leaves)).astype(np.float64)
                   for leaf, h in zip(leaves, hs)]
    absent = int((~present).sum())
    for model in MODELS.values():
        entry: dict[str, Any] = {}
        if isinstance(model, AdditiveModel):
            x = np.zeros(len(hs))
            for a, h in enumerate(hs):
                cost, top = additive_sums(model, h, node_counts[a], leaf_counts[a], absent)
                x[a] = attribute_values(cost, top)
            value = float(model.aggregate(x, w))
            entry.update(value=value, normalized=value,
                         by_attribute={q: float(v) for q, v in zip(quasi_identifiers, x)})
        else:
            entry.update(value=model.value(summary), normalized=model.normalized(summary))
        entry.update(model.describe())
        out[model.name] = entry
    return out


def additive_sums(model: AdditiveModel, hierarchy, node_counts: np.ndarray, leaf_counts: np.ndarray,
                  absent: int) -> tuple[float, float]:
    """``(Σ cost, Σ cost at the root)`` of one attribute's cells, from the records with every quasi-identifier
    present per published node (``node_counts``) and per original leaf (``leaf_counts``, also the data
    frequencies), and ``absent`` records with a missing quasi-identifier (fully suppressed)."""
    node_term, leaf_term = model.node_terms(hierarchy, leaf_counts)
    root = int(hierarchy.arrays.ancestor[0, hierarchy.height])
    held = float((leaf_term * leaf_counts).sum())  # (products and sums: numpy's dot goes through a slow BLAS here)
    cost = float((node_term * node_counts).sum()) - held
    top = float(node_term[root]) * float(leaf_counts.sum()) - held
    if absent and model.missing_counts:
        cost += absent * float(node_term[root])
        top += absent * float(node_term[root])
    return cost, top
