"""The search of the generalization lattice (``global``'s optimum) and what it learnt of each transformation.

:func:`search_lattice` is the exact search the ``global`` method's module describes (Flash's binary phase, OLA's
monotone closure, ARX's lower bounds of the loss). Every transformation it decided is kept in a
:class:`LatticeNodes` — checked and passing with its loss, checked and failing, decided by monotonicity without a
check (anonymous or not), or never looked at (beyond the best loss's bound) — which the workbench's lattice view
draws as ARX's lattice is drawn (F. Prasser, F. Kohlmayer: Putting statistical disclosure control into practice:
the ARX data anonymization tool. In: Medical Data Privacy Handbook, Springer 2015, §4). :func:`fixed_node` checks a
transformation a job names (``algorithm.transformation``) against the lattice's bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from anonstudio.core.errors import ParameterError
from anonstudio.core.progress import ProgressCallback, report

if TYPE_CHECKING:
    import numpy as np

#: what a transformation is known to be (:attr:`LatticeNodes.status`)
UNKNOWN, PASSES, FAILS, ANONYMOUS, NOT_ANONYMOUS = 0, 1, 2, 3, 4
#: the words of each status (the lattice view's legend)
STATUS_WORDS = {
    UNKNOWN: "not evaluated (its lower bound of the loss already exceeded the optimum's)",
    PASSES: "checked: meets the privacy models, loss measured",
    FAILS: "checked: fails the privacy models (or the suppression limit)",
    ANONYMOUS: "anonymous by monotonicity (a generalization of an anonymous one), not checked: loss not measured",
    NOT_ANONYMOUS: "fails by monotonicity (a specialization of a failing one), not checked",
}


@dataclass
class LatticeNodes:
    """The lattice of a ``global`` run: ``low`` / ``high`` (the levels per attribute the search spanned), per
    transformation (node index = Σ (level − low) · stride, the last attribute fastest) its ``status`` (``int8``,
    :data:`STATUS_WORDS`), and for the checked ones (``checked``, node indices ascending) their ``loss`` (the
    quality model's value; ``inf`` when failing). ``optimum``: the node published by the search; ``attributes``
    and ``heights`` are set by the method (the quasi-identifiers in the table's order, their hierarchies'
    heights); ``chosen``: the node a job named with ``transformation`` (``-1``: none)."""

    low: np.ndarray
    high: np.ndarray
    status: np.ndarray
    checked: np.ndarray
    loss: np.ndarray
    optimum: int
    attributes: list[str] = field(default_factory=list)
    heights: list[int] = field(default_factory=list)
    quality_model: str = ""
    chosen: int = -1

    @property
    def size(self) -> int:
        return int(len(self.status))

    def levels_of(self, nodes: np.ndarray) -> np.ndarray:
        """The level vector (``int64[len(nodes), d]``) of each node index."""
        import numpy as np

        spans = tuple(int(s) for s in self.high - self.low + 1)
        return np.stack(np.unravel_index(np.asarray(nodes, dtype=np.int64), spans), axis=1) + self.low

    def node_of(self, levels: list[int] | np.ndarray) -> int:
        """The node index of a level vector (in the attributes' order)."""
        import numpy as np

        spans = tuple(int(s) for s in self.high - self.low + 1)
        return int(np.ravel_multi_index(tuple(np.asarray(levels, dtype=np.int64) - self.low), spans))

    def loss_of(self, node: int) -> float | None:
        """The loss measured for ``node`` (``None``: not checked; ``inf``: checked and failing)."""
        import numpy as np

        at = int(np.searchsorted(self.checked, node))
        return float(self.loss[at]) if at < len(self.checked) and self.checked[at] == node else None


def lattice_nodes(state: np.ndarray, evaluated: dict, low: np.ndarray, high: np.ndarray,
                  optimum: int) -> LatticeNodes:
    """The :class:`LatticeNodes` of a finished search: ``state`` (0 undecided, 1 anonymous, 2 not: the closure's
    marks) and ``evaluated`` (node → the evaluation's dict)."""
    import numpy as np

    status = np.where(state == 1, ANONYMOUS, np.where(state == 2, NOT_ANONYMOUS, UNKNOWN)).astype(np.int8)
    checked = np.array(sorted(evaluated), dtype=np.int64)
    passes = np.array([bool(evaluated[n]["acceptable"]) for n in checked.tolist()], dtype=bool)
    loss = np.array([float(evaluated[n]["value"]) if evaluated[n]["acceptable"] else np.inf
                     for n in checked.tolist()], dtype=float)
    if len(checked):
        status[checked] = np.where(passes, PASSES, FAILS)
    return LatticeNodes(low=np.asarray(low, dtype=np.int64).copy(), high=np.asarray(high, dtype=np.int64).copy(),
                        status=status, checked=checked, loss=loss, optimum=int(optimum))


def fixed_node(transformation: dict, qis: list[str], hierarchies: list, low: np.ndarray,
               high: np.ndarray) -> list[int]:
    """The level vector a job names (``algorithm.transformation``: quasi-identifier = level), checked: every
    quasi-identifier named once, each level within its hierarchy and within ``min_level`` / ``max_level``."""
    unknown = [a for a in transformation if a not in qis]
    if unknown:
        raise ParameterError(f"transformation names '{unknown[0]}', which is not a quasi-identifier "
                             f"({', '.join(qis)})", key="algorithm.transformation")
    missing = [a for a in qis if a not in transformation]
    if missing:
        raise ParameterError(f"transformation gives no level for {', '.join(repr(a) for a in missing)}: it names one "
                             f"level for every quasi-identifier ({', '.join(qis)})", key="algorithm.transformation")
    levels = []
    for a, (attr, h) in enumerate(zip(qis, hierarchies)):
        level = int(transformation[attr])
        if level > h.height:
            raise ParameterError(f"transformation gives '{attr}' level {level}, above its hierarchy's height "
                                 f"{h.height}", key="algorithm.transformation")
        if not low[a] <= level <= high[a]:
            raise ParameterError(f"transformation gives '{attr}' level {level}, outside min_level / max_level "
                                 f"({int(low[a])}–{int(high[a])})", key="algorithm.transformation")
        levels.append(level)
    return levels


@dataclass
class LatticeSearch:
    """What the search found and did: the transformation ``levels`` (one per attribute, in the table's QI
    order), its ``value`` under the model, and counts of the work."""

    levels: list[int]
    value: float
    transformations: int
    checked: int
    skipped_by_bound: int = 0
    skipped_as_not_anonymous: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    #: what the search learnt of each transformation (:class:`LatticeNodes`)
    nodes: LatticeNodes | None = None


def search_lattice(lattice: Any, progress: ProgressCallback | None = None) -> LatticeSearch | None:
    """The anonymous transformation of least value of ``lattice`` (a ``global_recoding._Lattice``; see that
    module); ``None`` when none is anonymous. What the search learnt of every transformation is kept as
    :attr:`LatticeSearch.nodes` (the workbench's lattice view)."""
    import numpy as np

    from anonstudio.core.kernels._lattice import mark_closure

    size, d = lattice.size, lattice.d
    static = lattice.static_bounds()
    height = lattice.levels.astype(np.int64).sum(axis=1)
    order = np.lexsort((np.arange(size), height, static))
    state = np.zeros(size, dtype=np.int8)  # 0 undecided, 1 anonymous, 2 not anonymous (ARX's sense: monotone)
    evaluated: dict[int, dict] = {}
    dynamic = np.zeros(size)  # lower bound known from evaluated specializations (class models)
    stack = np.zeros(size + 1, dtype=np.int64)
    strides, low, high, levels = lattice.strides, lattice.low, lattice.high, lattice.levels
    best_value = np.inf
    best_node = -1
    counts = {"checked": 0, "by_bound": 0, "monotone": 0}

    def check(node: int) -> dict:
        res = lattice.evaluate(node)
        evaluated[node] = res
        counts["checked"] += 1
        if not lattice.monotone:  # each transformation decides itself only
            state[node] = 1 if res["anonymous"] else 2
        elif res["anonymous"]:
            mark_closure(state, node, 1, levels, strides, low, high, True, stack)
        else:
            mark_closure(state, node, 2, levels, strides, low, high, False, stack)
        if counts["checked"] % 64 == 0:
            report(progress, min(0.95, counts["checked"] / max(size, 1)),
                   f"checked {counts['checked']:,} of {size:,} transformations")
        return res

    def better(node: int, res: dict) -> bool:
        if not res["acceptable"]:
            return False
        if res["value"] != best_value:
            return res["value"] < best_value
        return (height[node], node) < (height[best_node], best_node)

    def decide(node: int) -> None:
        """Flash's binary phase: a path of undecided generalizations above ``node``, searched for its lowest
        anonymous transformation; every check decides a cone, ``node`` included by the end."""
        path = [node]
        cur = node
        while True:
            nxt = -1
            for a in range(d):
                if levels[cur, a] < high[a]:
                    up = cur + int(strides[a])
                    if state[up] == 0 and static[up] <= best_value and (nxt < 0 or static[up] < static[nxt]):
                        nxt = up
            if nxt < 0:
                break
            path.append(nxt)
            cur = nxt
        lo, hi = 0, len(path) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            u = path[mid]
            if state[u] == 0:
                check(u)
            if state[u] == 1:
                hi = mid - 1
            else:
                lo = mid + 1
        if state[node] == 0:  # only if the path's checks skipped it: decide it directly
            check(node)

    for node in order.tolist():
        if static[node] > best_value:
            break
        bound = 0.0
        for a in range(d):
            if levels[node, a] > low[a]:
                bound = max(bound, dynamic[node - int(strides[a])])
        if node in evaluated:
            bound = max(bound, evaluated[node]["bound"])
        dynamic[node] = bound
        if state[node] == 2:
            counts["monotone"] += 1
            continue
        if bound > best_value:
            counts["by_bound"] += 1
            continue
        if state[node] == 0:
            decide(node)
            if state[node] == 2:
                continue
        res = evaluated.get(node) or check(node)
        dynamic[node] = max(dynamic[node], res["bound"])
        if better(node, res):
            best_value, best_node = res["value"], node
    if best_node < 0:
        return None
    nodes = lattice_nodes(state, evaluated, low, high, best_node)
    return LatticeSearch(nodes=nodes, levels=[int(v) for v in levels[best_node]], value=float(best_value), transformations=size,
                         checked=counts["checked"], skipped_by_bound=counts["by_bound"],
                         skipped_as_not_anonymous=counts["monotone"], stats=evaluated[best_node])
