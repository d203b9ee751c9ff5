"""Privacy models over each class's distribution of sensitive values (issue 32 item 1).

Each compares a class's distribution ``p`` — the shares of its present sensitive values (a missing value is no
value, as for l-diversity) — with the table's own distribution ``q`` (the shares over every published record) or
looks at ``p`` alone. A class with no present sensitive value discloses none and passes every model here but
recursive (c,l)-diversity (it has fewer than l values). The statistics come from the release alone
(:class:`~anonstudio.core.models.ClassStats`); each model's :meth:`kernel_rule` hands the same parameters to
Mondrian's split test (:func:`kernel_rules` joins them as arrays).

The ordered distance orders the values numerically when every value is a number, else as text (as ARX orders a
string attribute; values are compared as a reader tells them apart, case folded: :func:`value_order`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonstudio.core.errors import HierarchyError, ParameterError
from anonstudio.core.models._base import LATTICE, REPAIR, SENSITIVE, SIZES, SPLIT, ClassStats, PrivacyModel, register
from anonstudio.core.params import Param, ParamSet

if TYPE_CHECKING:
    import numpy as np
else:  # numpy loads when a model first judges a class, not when the models are declared (issue 17)
    from anonstudio.core.models._lazy import numpy as np

#: every method keeps these when a job names them: Mondrian's split kernel, the lattice's predicate, the repair
EVERY_METHOD = frozenset({SPLIT, LATTICE, REPAIR})

#: rule kinds of :func:`kernel_rules` (``anonstudio.core.kernels._distribution``)
RULE_KINDS = {"recursive-cl-diversity": 1, "t-equal": 2, "t-ordered": 3, "t-hierarchical": 4,
              "delta-disclosure": 5, "beta-basic": 6, "beta-enhanced": 7, "alpha-k-anonymity": 8}

#: classes per block of the dense distance computations (memory: block × values)
BLOCK = 4096
#: slack of the float comparisons (a class exactly at the threshold passes, as in ARX)
EPS = 1e-12


def _class_totals(stats: ClassStats) -> np.ndarray:
    return np.bincount(stats.value_class, weights=stats.value_count, minlength=stats.n)


def _pair_shares(stats: ClassStats) -> tuple[np.ndarray, np.ndarray]:
    """Per (class, value) pair: ``p`` (the value's share of its class's present values) and ``q`` (its share of
    the whole table's present values)."""
    totals = _class_totals(stats)
    p = stats.value_count / totals[stats.value_class]
    overall = np.asarray(stats.value_total, dtype=float)
    q = overall[stats.value_code] / overall.sum()
    return p, q


def _worst_per_class(stats: ClassStats, pair_values: np.ndarray, empty: float) -> np.ndarray:
    out = np.full(stats.n, empty)
    if len(pair_values):
        np.maximum.at(out, stats.value_class, pair_values)
    return out


def value_order(texts: tuple[str, ...] | list[str], hierarchy=None) -> np.ndarray:
    """Rank of each value for the ordered distance: numeric order when every value reads as a number, else text
    order (as ARX orders a string attribute; ``hierarchy`` is not used for the order)."""
    texts = [str(t) for t in texts]
    try:
        keys: list = [float(t) for t in texts]
    except ValueError:
        keys = texts
    order = sorted(range(len(texts)), key=lambda i: keys[i])
    rank = np.empty(len(texts), dtype=np.int64)
    rank[order] = np.arange(len(texts))
    return rank


def leaf_ancestors(texts: tuple[str, ...] | list[str], hierarchy, column: str = "") -> np.ndarray:
    """Per value, its node at each level of the sensitive column's hierarchy (``int64[values, height + 1]``); a
    value the hierarchy lacks is a :class:`HierarchyError`."""
    from anonstudio.core.data import read_alike

    if hierarchy is None:
        raise ParameterError(f"t-closeness with the hierarchical distance needs a hierarchy of the sensitive column"
                             f"{f' {column!r}' if column else ''} ([hierarchies])", key=f"hierarchies.{column}"
                             if column else "hierarchies")
    place = {read_alike(str(leaf)): i for i, leaf in enumerate(hierarchy.leaves)}
    rows = []
    for t in texts:
        if str(t) not in place:
            raise HierarchyError(f"the hierarchy of the sensitive column has no leaf {str(t)!r} (t-closeness with "
                                 "the hierarchical distance)", file=getattr(hierarchy, "source", None), column=column)
        rows.append(place[str(t)])
    return np.asarray(hierarchy.arrays.ancestor, dtype=np.int64)[np.asarray(rows, dtype=np.int64)].reshape(
        len(rows), -1) if rows else np.zeros((0, int(hierarchy.height) + 1), dtype=np.int64)


def _dense(stats: ClassStats, lo: int, hi: int, m: int) -> np.ndarray:
    """``p - q`` of classes ``lo..hi-1`` over all ``m`` values (rows: classes)."""
    overall = np.asarray(stats.value_total, dtype=float)
    q = overall / overall.sum()
    totals = _class_totals(stats)
    sel = (stats.value_class >= lo) & (stats.value_class < hi)
    p = np.zeros((hi - lo, m))
    cls = stats.value_class[sel]
    p[cls - lo, stats.value_code[sel]] = stats.value_count[sel] / totals[cls]
    return p - q[None, :]


class RecursiveCLDiversity(PrivacyModel):
    """Recursive (c,l)-diversity (A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam: l-Diversity:
    Privacy beyond k-anonymity. ACM TKDD 1(1), 2007, Def. 4.4): with the class's value counts sorted
    ``r_1 ≥ r_2 ≥ … ≥ r_m``, ``r_1 < c · (r_l + r_{l+1} + … + r_m)``; a class with fewer than ``l`` distinct
    present values fails. The most frequent value cannot dominate even after the ``l - 2`` next ones are ruled out."""

    name = "recursive-cl-diversity"
    title = "recursive (c,l)-diversity"
    reference = "Machanavajjhala et al.: l-Diversity: privacy beyond k-anonymity. ACM TKDD 1(1), 2007, Def. 4.4"
    needs = frozenset({SIZES, SENSITIVE})
    enforced_by = EVERY_METHOD
    parameters = ParamSet((
        Param("c", "float", 3.0, "the most frequent value is held by fewer than c times the records of the l-th "
              "most frequent and rarer ones", low=0, low_open=True),
        Param("l", "int", 2, "the l of recursive (c,l)-diversity: at least l distinct values", low=2),
    ))

    def _parts(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return stats.remember((self.name, self.params["l"]), lambda: self._compute_parts(stats))

    def _compute_parts(self, stats: ClassStats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        l = self.params["l"]
        order = np.lexsort((-stats.value_count, stats.value_class))
        cls = stats.value_class[order]
        cnt = stats.value_count[order]
        starts = np.searchsorted(cls, np.arange(stats.n))
        rank = np.arange(len(cls)) - starts[cls]
        tail = np.bincount(cls[rank >= l - 1], weights=cnt[rank >= l - 1], minlength=stats.n)
        return stats.top_count(), tail, stats.distinct()

    def score(self, stats):
        top, tail, _ = self._parts(stats)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(top > 0, tail * self.params["c"] / np.maximum(top, 1e-300), 0.0)

    def failing(self, stats):
        top, tail, distinct = self._parts(stats)
        return np.flatnonzero((distinct < self.params["l"]) | (top >= self.params["c"] * tail))

    def measure(self, stats, i, of=""):
        top, tail, distinct = self._parts(stats)
        c, l = self.params["c"], self.params["l"]
        if distinct[i] < l:
            return f"{int(distinct[i])} distinct value(s){f' of {of}' if of else ''}, fewer than l = {l}"
        return (f"its most frequent value{f' of {of}' if of else ''} {int(top[i])} times, not fewer than c = {c:g} × "
                f"{int(tail[i])} (the records of its {l}-th most frequent value and rarer ones)")

    def partition_limits(self):
        return {"min_distinct": self.params["l"]}

    def kernel_rule(self, texts, hierarchy=None, column=""):
        return RULE_KINDS[self.name], (self.params["c"], self.params["l"]), None


register(RecursiveCLDiversity)


class TCloseness(PrivacyModel):
    """t-closeness (N. Li, T. Li, S. Venkatasubramanian: t-Closeness: privacy beyond k-anonymity and
    l-diversity. ICDE 2007, Def. 2): the Earth Mover's Distance between a class's distribution ``p`` and the
    table's ``q`` is at most ``t``. Ground distances (§4.2, r = p − q): ``equal`` — ``D = ½ Σ |r_i|``;
    ``ordered`` — ``D = 1/(m−1) · Σ_i |r_1 + … + r_i|`` over the m values in order (:func:`value_order`);
    ``hierarchical`` — over the sensitive column's hierarchy of height H, ``D = Σ_N level(N)/H ·
    min(pos(N), neg(N))``, where ``pos``/``neg`` add up the positive / negative ``extra`` of N's children and
    ``extra`` of a node is the sum of ``r`` over the leaves below it."""

    name = "t-closeness"
    reference = ("N. Li, T. Li, S. Venkatasubramanian: t-Closeness: privacy beyond k-anonymity and l-diversity. "
                 "ICDE 2007, Def. 2 and §4.2")
    needs = frozenset({SIZES, SENSITIVE})
    enforced_by = EVERY_METHOD
    parameters = ParamSet((
        Param("t", "float", 0.2, "the distance between a class's sensitive values and the table's is at most t",
              low=0, high=1),
        Param("distance", "choice", "equal", "ground distance: equal (any two values 1 apart), ordered (values in "
              "order) or hierarchical (along the sensitive column's hierarchy)",
              choices=("equal", "ordered", "hierarchical")),
    ))

    def distances(self, stats: ClassStats) -> np.ndarray:
        return stats.remember((self.name, self.params["distance"]), lambda: self._distances(stats))

    def _distances(self, stats: ClassStats) -> np.ndarray:
        kind = self.params["distance"]
        m = len(stats.value_total)
        out = np.zeros(stats.n)
        if kind == "equal":
            p, q = _pair_shares(stats)
            present = np.bincount(stats.value_class, weights=np.abs(p - q) - q, minlength=stats.n)
            has = _class_totals(stats) > 0
            out[has] = 0.5 * (1.0 + present[has])
            return np.maximum(out, 0.0)
        if kind == "ordered":
            if m <= 1:
                return out
            rank = value_order(stats.value_texts, stats.value_hierarchy)
            for lo in range(0, stats.n, BLOCK):
                hi = min(stats.n, lo + BLOCK)
                r = _dense(stats, lo, hi, m)[:, np.argsort(rank)]
                out[lo:hi] = np.abs(np.cumsum(r, axis=1)).sum(axis=1) / (m - 1)
        else:
            anc = leaf_ancestors(stats.value_texts, stats.value_hierarchy)
            out = _hierarchical(stats, anc)
        out[_class_totals(stats) == 0] = 0.0
        return out

    def score(self, stats):
        return self.distances(stats)

    def failing(self, stats):
        return np.flatnonzero(self.distances(stats) > self.params["t"] + EPS)

    def measure(self, stats, i, of=""):
        return (f"{self.params['distance']} distance {self.distances(stats)[i]:.4f}"
                f"{f' of {of}' if of else ''} from the table's distribution, more than t = {self.params['t']:g}")

    def kernel_rule(self, texts, hierarchy=None, column=""):
        p = self.params
        anc = leaf_ancestors(texts, hierarchy, column) if p["distance"] == "hierarchical" else None
        return RULE_KINDS[f"t-{p['distance']}"], (p["t"], 0.0), anc


register(TCloseness)


def _hierarchical(stats: ClassStats, anc: np.ndarray) -> np.ndarray:
    """Li et al.'s hierarchical EMD of every class (see :class:`TCloseness`), blocks of classes at a time: per level,
    the children's ``extra`` (r summed over their leaves) as one matrix product, then each parent's positive and
    negative extra as another."""
    m, levels = anc.shape
    height = levels - 1
    out = np.zeros(stats.n)
    if height <= 0 or m == 0:
        return out
    steps = []
    for j in range(1, levels):
        child_ids, child_of_value = np.unique(anc[:, j - 1], return_inverse=True)
        to_child = np.zeros((m, len(child_ids)))
        to_child[np.arange(m), child_of_value] = 1.0
        parent_of_child = np.zeros(len(child_ids), dtype=np.int64)
        parent_of_child[child_of_value] = np.unique(anc[:, j], return_inverse=True)[1]
        to_parent = np.zeros((len(child_ids), int(parent_of_child.max()) + 1))
        to_parent[np.arange(len(child_ids)), parent_of_child] = 1.0
        steps.append((j / height, to_child, to_parent))
    for lo in range(0, stats.n, BLOCK):
        hi = min(stats.n, lo + BLOCK)
        r = _dense(stats, lo, hi, m)
        for weight, to_child, to_parent in steps:
            extra = r @ to_child
            pos = np.maximum(extra, 0.0) @ to_parent
            neg = np.maximum(-extra, 0.0) @ to_parent
            out[lo:hi] += weight * np.minimum(pos, neg).sum(axis=1)
    return out



class DeltaDisclosure(PrivacyModel):
    """δ-disclosure privacy (J. Brickell, V. Shmatikov: The cost of privacy: destruction of data-mining utility in
    anonymized data publishing. KDD 2008, Def. 4): for each sensitive value ``s`` of a class,
    ``|log₂(p(s) / q(s))| < δ``. As ARX judges it, only the values a class holds are compared and the logarithm
    is to base 2 (the paper's definition compares every value, so a class lacking a value of the table fails it
    there; it does not fix the base)."""

    name = "delta-disclosure"
    phrase = "δ-disclosure"
    title = "δ-disclosure privacy"
    reference = "J. Brickell, V. Shmatikov: The cost of privacy. KDD 2008, Def. 4"
    needs = frozenset({SIZES, SENSITIVE})
    enforced_by = EVERY_METHOD
    parameters = ParamSet((Param("delta", "float", 1.0, "no value's share in a class differs from its share in the "
                                 "table by a factor 2^δ or more", low=0, low_open=True),))

    def score(self, stats):
        def compute():
            p, q = _pair_shares(stats)
            return _worst_per_class(stats, np.abs(np.log2(p / q)), 0.0)

        return stats.remember((self.name,), compute)

    def failing(self, stats):
        return np.flatnonzero(self.score(stats) >= self.params["delta"] - EPS)

    def measure(self, stats, i, of=""):
        return (f"a value{f' of {of}' if of else ''} whose share differs from the table's by |log₂ ratio| = "
                f"{self.score(stats)[i]:.4f}, not below δ = {self.params['delta']:g}")

    def kernel_rule(self, texts, hierarchy=None, column=""):
        return RULE_KINDS[self.name], (self.params["delta"], 0.0), None


register(DeltaDisclosure)


class BetaLikeness(PrivacyModel):
    """β-likeness (J. Cao, P. Karras: Publishing microdata with a robust privacy guarantee. PVLDB 5(11), 2012,
    Def. 3 basic, Def. 4 enhanced): for each value ``s`` a class holds more often than the table,
    ``(p(s) − q(s)) / q(s) ≤ β`` (basic), or ``≤ min(β, −ln q(s))`` (enhanced, which keeps rare values' gain
    bounded in absolute terms)."""

    name = "beta-likeness"
    title = "β-likeness"
    reference = "J. Cao, P. Karras: Publishing microdata with a robust privacy guarantee. PVLDB 5(11), 2012, Defs. 3-4"
    needs = frozenset({SIZES, SENSITIVE})
    enforced_by = EVERY_METHOD
    parameters = ParamSet((
        Param("beta", "float", 1.0, "the relative gain (p − q)/q of any value in a class is at most β", low=0,
              low_open=True),
        Param("kind", "choice", "basic", "basic (gain ≤ β) or enhanced (gain ≤ min(β, −ln q))",
              choices=("basic", "enhanced")),
    ))

    def _excess(self, stats: ClassStats) -> np.ndarray:
        p, q = _pair_shares(stats)
        limit = np.full(len(q), self.params["beta"])
        if self.params["kind"] == "enhanced":
            limit = np.minimum(limit, -np.log(q))
        return (p - q) / q - limit

    def score(self, stats):
        def compute():
            p, q = _pair_shares(stats)
            return _worst_per_class(stats, (p - q) / q, 0.0)

        return stats.remember((self.name, "gain"), compute)

    def failing(self, stats):
        return np.flatnonzero(_worst_per_class(stats, self._excess(stats), -np.inf) > EPS)

    def measure(self, stats, i, of=""):
        bound = "β" if self.params["kind"] == "basic" else "min(β, −ln q)"
        return (f"a value{f' of {of}' if of else ''} gaining {self.score(stats)[i]:.4f} relative to its share of the "
                f"table, more than {bound} (β = {self.params['beta']:g})")

    def kernel_rule(self, texts, hierarchy=None, column=""):
        return RULE_KINDS[f"beta-{self.params['kind']}"], (self.params["beta"], 0.0), None


register(BetaLikeness)


class AlphaKAnonymity(PrivacyModel):
    """(α,k)-anonymity (R. C.-W. Wong, J. Li, A. W.-C. Fu, K. Wang: (α,k)-anonymity: an enhanced k-anonymity model
    for privacy-preserving data publishing. KDD 2006, Def. 2): every class holds at least ``k`` records and no
    sensitive value — or only the one named by ``value`` — makes up more than a share ``α`` of it (shares of the
    class's present values)."""

    name = "alpha-k-anonymity"
    title = "(α,k)-anonymity"
    reference = "R. C.-W. Wong, J. Li, A. W.-C. Fu, K. Wang: (α,k)-anonymity. KDD 2006, Def. 2"
    needs = frozenset({SIZES, SENSITIVE})
    enforced_by = EVERY_METHOD
    parameters = ParamSet((
        Param("alpha", "float", 0.5, "no sensitive value makes up more than this share of a class", low=0,
              high=1, low_open=True),
        Param("k", "int", 2, "every class holds at least k records", low=1),
        Param("value", "str", None, "only this sensitive value is limited (empty: every value)"),
    ))

    def shares(self, stats: ClassStats) -> np.ndarray:
        return stats.remember((self.name, self.params.get("value")), lambda: self._shares(stats))

    def _shares(self, stats: ClassStats) -> np.ndarray:
        p, _ = _pair_shares(stats)
        if self.params.get("value"):
            from anonstudio.core.data import read_alike

            target = read_alike(str(self.params["value"]))
            p = np.where(np.asarray(stats.value_texts, dtype=object)[stats.value_code] == target, p, 0.0) \
                if len(p) else p
        return _worst_per_class(stats, p, 0.0)

    def score(self, stats):
        return self.shares(stats)

    def failing(self, stats):
        return np.flatnonzero((stats.sizes < self.params["k"]) | (self.shares(stats) > self.params["alpha"] + EPS))

    def measure(self, stats, i, of=""):
        if stats.sizes[i] < self.params["k"]:
            return f"{int(stats.sizes[i])} record(s), fewer than k = {self.params['k']}"
        return (f"a value{f' of {of}' if of else ''} making up {self.shares(stats)[i]:.4f} of the class, more than "
                f"α = {self.params['alpha']:g}")

    def partition_limits(self):
        return {"min_size": self.params["k"]}

    def kernel_rule(self, texts, hierarchy=None, column=""):
        if self.params.get("value"):
            from anonstudio.core.data import read_alike

            target = read_alike(str(self.params["value"]))
            code = next((i for i, t in enumerate(texts) if t == target), -1)
        else:
            code = -1
        return RULE_KINDS[self.name], (self.params["alpha"], float(code)), None


register(AlphaKAnonymity)


# ---------------------------------------------------------------------------------------------------------------
# the same parameters as arrays for a partitioning kernel


def kernel_rules(models: list[PrivacyModel], texts: tuple[str, ...], totals: np.ndarray, hierarchy=None,
                 column: str = "") -> tuple:
    """The distribution models among ``models`` as the arrays Mondrian's split test reads:
    ``(kind int64[r], par float64[r, 2], q float64[m], order int64[m], anc int64[m, L], buffers float64[4, nodes])``
    (``order``: the values in the ordered distance's order) for the sensitive values
    ``texts`` (codes 0..m-1) with ``totals`` records each in the whole table."""
    kinds, pars = [], []
    anc = np.zeros((len(texts), 1), dtype=np.int64)
    for model in models:
        rule = model.kernel_rule(texts, hierarchy, column)
        if rule is None:
            continue
        kind, par, ancestors = rule
        kinds.append(kind)
        pars.append(par)
        if ancestors is not None:
            anc = ancestors
    totals = np.asarray(totals, dtype=np.float64)
    q = totals / totals.sum() if totals.sum() > 0 else totals
    rank = value_order(texts, hierarchy) if len(texts) else np.zeros(0, dtype=np.int64)
    order = np.argsort(rank, kind="stable") if len(texts) else np.zeros(0, dtype=np.int64)
    buffers = np.zeros((4, int(anc.max()) + 1 if anc.size else 1))
    return (np.asarray(kinds, dtype=np.int64), np.asarray(pars, dtype=np.float64).reshape(len(kinds), 2),
            np.ascontiguousarray(q), np.ascontiguousarray(order.astype(np.int64)), np.ascontiguousarray(anc),
            buffers)
