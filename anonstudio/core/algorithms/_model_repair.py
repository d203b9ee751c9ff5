"""The privacy models a job names under ``models``, enforced on a clustering method's final classes by merging.

k-member, MST and local recoding shape their classes for k (and l); the models named beyond them (recursive
(c,l)-diversity, t-closeness, δ-disclosure, β-likeness, (α,k)-anonymity, average risk, sample and population uniqueness, k-map,
δ-presence) are kept afterwards by :func:`repair_classes` (and so are δ-presence and k-map against a population
table on Mondrian's parts, which its split test cannot judge): while some class fails a named model, the failing class with the fewest
records is merged with the class whose merge costs least — the rise of the quality model's cell costs
(:func:`~anonstudio.core.algorithms._suppression.cell_costs`) when both are published at the lowest common
ancestors of their records — and the merged class is judged again by the model classes the verifier judges with
(:mod:`anonstudio.core.models._distribution`, :mod:`anonstudio.core.models._population`: the
rules are not written twice).

The classes judged are the verifier's: classes publishing the same cells are one (a merge whose cells equal
another class's takes that class in too), and the records published suppressed (a missing quasi-identifier, or
suppressed by the method) are one more class for the models that read sensitive values, since their values are
published (:func:`~anonstudio.core.privacy._judge.verify_class_model`); for the models that count sizes only,
those records and the classes at the root of every quasi-identifier are exempt, as there.

Termination: each merge removes a class. The distribution models are convex in the sense that matters here —
merging every record gives the table's own distribution (t-closeness: distance 0; β-likeness and δ-disclosure:
every share equal to the table's) — so one class of all records passes whenever the whole table does, which is
checked first (a :class:`PrivacyError` otherwise, as Mondrian refuses); average risk and sample uniqueness only
improve as classes grow, and so does k-map with an estimator (every class at least k' records).

δ-presence and k-map against a population table count, per class, the population records under its cells (the
verifier's :attr:`ClassStats.population`): each class's count is kept and counted again only when its cells change
(:class:`_Population`). k-map only improves under merging (the merged cells cover a superset of the population);
δ-presence need not (a merge may lower a class's share below δmin as well as raise it above δmax), so it is not
promised a least loss — but every merge removes a class, and a class at the root of every quasi-identifier or
suppressed is exempt from the size models (as in the verifier), so the repair ends with every class passing.

The suppressed block is merged into (its class's records suppressed) only when it fails a model itself or no
other class is left to merge with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anonstudio.core.errors import PrivacyError
from anonstudio.core.models import REPAIR, Enforced
from anonstudio.core.progress import checkpoint

if TYPE_CHECKING:  # annotations only: declaring a method imports no numpy (issue 17)
    import numpy as np

    from anonstudio.core.algorithms._tabular import PackedHierarchies

#: the registered models the clustering methods enforce by :func:`repair_classes` (those declaring ``repair``)
REPAIRED = Enforced(REPAIR)


@dataclass
class Repair:
    """The classes after the repair (per present record; -1 published suppressed) and what it did."""

    labels: np.ndarray
    merges: int
    suppressed: int
    notes: list[str]


def lca_rows(node: np.ndarray, others: np.ndarray, node_anc: np.ndarray, node_level: np.ndarray) -> np.ndarray:
    """Per row of ``others`` (``int[m, d]`` packed nodes), the lowest common ancestor of it and ``node``
    (``int[d]``) on every attribute."""
    import numpy as np

    m, d = others.shape
    out = np.full((m, d), -1, dtype=np.int64)
    top = node_anc.shape[1]
    for a in range(d):
        mine = node_anc[node[a]]
        theirs = node_anc[others[:, a]]
        open_ = np.ones(m, dtype=bool)
        for level in range(int(node_level[node[a]]), top):
            hit = open_ & (theirs[:, level] == mine[level]) & (mine[level] >= 0)
            out[hit, a] = mine[level]
            open_ &= ~hit
            if not open_.any():
                break
    return out


class _Population:
    """A population table's records under classes' cells: its distinct tuples of packed leaf nodes (with their
    records) and, per attribute, every tuple's ancestor at each level."""

    def __init__(self, leaves: np.ndarray, packed: PackedHierarchies) -> None:
        import numpy as np

        from anonstudio.core.algorithms._tabular import packed_population

        nodes = packed_population(packed, leaves)
        tuples, weights = (np.unique(nodes, axis=0, return_counts=True) if len(nodes)
                           else (nodes, np.zeros(0, dtype=np.int64)))
        self.weights = weights.astype(np.int64)
        self.anc = [packed.node_anc[tuples[:, a]] for a in range(packed.d)]  # per attribute int[P, levels]
        self.node_level = packed.node_level

    def covered(self, nodes: np.ndarray) -> np.ndarray:
        """Per row of ``nodes`` (``int[m, d]`` packed nodes, a class's cells), the population records whose every
        value lies under it."""
        import numpy as np
        import pandas as pd

        out = np.zeros(len(nodes), dtype=np.int64)
        levels = self.node_level[nodes]
        if len(nodes) <= 8:  # a few classes (a merge's): one mask each
            for i in range(len(nodes)):
                hit = np.ones(len(self.weights), dtype=bool)
                for a in range(nodes.shape[1]):
                    hit &= self.anc[a][:, levels[i, a]] == nodes[i, a]
                out[i] = int(self.weights[hit].sum())
            return out
        # many: per distinct vector of levels, the population's ancestors at those levels counted by tuple and
        # looked up by the classes' cells (one pass over the population per vector)
        vectors, group = np.unique(levels, axis=0, return_inverse=True)
        group = group.ravel()
        p = len(self.weights)
        for g, vector in enumerate(vectors):
            rows = np.flatnonzero(group == g)
            key = np.zeros(len(rows) + p, dtype=np.int64)
            for a, level in enumerate(vector):
                both = np.concatenate((nodes[rows, a], self.anc[a][:, level]))
                key = pd.factorize(key * (int(both.max()) + 2) + both + 1)[0].astype(np.int64)
            counts = np.bincount(key[len(rows):], weights=self.weights, minlength=int(key.max()) + 1)
            out[rows] = counts[key[:len(rows)]].astype(np.int64)
        return out


class _Classes:
    """The classes being repaired: per class its records, sensitive counts, nodes and published cells.

    With ``people`` (each present record's person code, a table's person column) a class's size is its distinct
    people and its counts, per value, the distinct people holding it (:mod:`anonstudio.core.privacy._people`):
    each class keeps its people and its (person, value) pairs, and a merge unites them."""

    def __init__(self, labels, sub, sens, n_sens, packed, node_cost, blocked: np.ndarray,
                 population: _Population | None = None, people: np.ndarray | None = None,
                 blocked_people: np.ndarray | None = None) -> None:
        import numpy as np

        from anonstudio.core.kernels._generalize import class_lca

        self.packed, self.node_cost = packed, node_cost
        n_classes = int(labels.max()) + 1 if len(labels) and labels.max() >= 0 else 0
        nodes = class_lca(sub, labels, n_classes, packed.node_anc, packed.node_level).astype(np.int64)
        self.roots = np.array([packed.node_anc[packed.offsets[a], -1] for a in range(packed.d)], dtype=np.int64)
        width = max(int(n_sens), 1)
        counts = np.zeros((n_classes + 1, width))
        kept = (labels >= 0) & (sens >= 0)
        np.add.at(counts, (labels[kept], sens[kept]), 1)
        # the last row: the records published suppressed (missing quasi-identifier, or by the method)
        gone = sens[(labels < 0) & (sens >= 0)]
        block = np.concatenate([np.asarray(blocked, dtype=np.int64), gone.astype(np.int64)])
        block = block[block >= 0]
        counts[n_classes] = np.bincount(block, minlength=width)[:width]
        self.counts = counts
        self.sizes = np.append(np.bincount(labels[labels >= 0], minlength=n_classes),
                               len(blocked) + int((labels < 0).sum())).astype(np.int64)
        self.nodes = np.vstack([nodes, self.roots[None, :]]) if n_classes else self.roots[None, :].copy()
        self.block = n_classes
        self.alive = self.sizes > 0
        self.alive[self.block] = self.sizes[self.block] > 0
        self.owner = np.arange(n_classes + 1)  # each original class's class now (union by relabelling)
        labels_text = np.append(packed.labels.astype(object), "*")
        self.labels_text = labels_text
        self.population = population
        self.pop_counts = np.full(n_classes + 1, -1, dtype=np.int64)  # per class, -1: to be counted
        self.by_cells: dict[tuple, int] = {}
        self.people: list | None = None
        if people is not None:
            self._count_people(labels, sens, width, n_classes, people, blocked, blocked_people)
        for c in range(n_classes):
            if self.sizes[c]:
                self._settle(c)

    def _count_people(self, labels, sens, width, n_classes, people, blocked, blocked_people) -> None:
        """Per class (and the block, last) its people and (person, value) pairs; sizes and counts from them."""
        import numpy as np

        lab = np.where(labels >= 0, labels, n_classes).astype(np.int64)
        who = np.asarray(people, dtype=np.int64)
        val = np.asarray(sens, dtype=np.int64)
        if blocked_people is not None and len(blocked_people):
            lab = np.concatenate([lab, np.full(len(blocked_people), n_classes, dtype=np.int64)])
            who = np.concatenate([who, np.asarray(blocked_people, dtype=np.int64)])
            val = np.concatenate([val, np.asarray(blocked, dtype=np.int64)])
        order = np.argsort(lab, kind="stable")
        bounds = np.searchsorted(lab[order], np.arange(n_classes + 2))
        self.people, self.pairs = [], []
        for c in range(n_classes + 1):
            rows = order[bounds[c]:bounds[c + 1]]
            self.people.append(np.unique(who[rows]))
            v = val[rows]
            self.pairs.append(np.unique(who[rows][v >= 0] * width + v[v >= 0]))
            self.sizes[c] = len(self.people[c])
            self.counts[c] = np.bincount(self.pairs[c] % width, minlength=width)[:width] if len(self.pairs[c]) else 0

    def cells(self, c: int) -> tuple:
        """What class ``c`` publishes (the block: ``*`` everywhere)."""
        if c == self.block:
            return ("*",) * self.packed.d
        return tuple(str(self.labels_text[x]) for x in self.nodes[c])

    def _settle(self, c: int) -> None:
        """File class ``c`` under its published cells: the block's cells join it to the block, another class's
        cells merge that class into ``c``."""
        key = self.cells(c)
        if c != self.block and key == self.cells(self.block):
            self._absorb(self.block, c)
            return
        other = self.by_cells.get(key)
        if other is not None and other != c and self.alive[other]:
            self._absorb(c, other)
        self.by_cells[key] = c

    def covered(self, ids: np.ndarray) -> np.ndarray | None:
        """The population records under the cells of each class of ``ids`` (None without a population table)."""
        if self.population is None:
            return None
        todo = ids[self.pop_counts[ids] < 0]
        if len(todo):
            self.pop_counts[todo] = self.population.covered(self.nodes[todo])
        return self.pop_counts[ids]

    def _absorb(self, into: int, c: int) -> None:
        self.pop_counts[into] = -1  # its cells may have changed: counted again when judged
        if self.people is not None:  # people are united, not added: one person in both counts once
            import numpy as np

            width = self.counts.shape[1]
            self.people[into] = np.union1d(self.people[into], self.people[c])
            self.pairs[into] = np.union1d(self.pairs[into], self.pairs[c])
            self.sizes[into] = len(self.people[into])
            self.counts[into] = (np.bincount(self.pairs[into] % width, minlength=width)[:width]
                                 if len(self.pairs[into]) else 0)
            self.people[c] = self.people[c][:0]
            self.pairs[c] = self.pairs[c][:0]
        else:
            self.sizes[into] += self.sizes[c]
            self.counts[into] += self.counts[c]
        self.sizes[c] = 0
        self.counts[c] = 0
        self.alive[c] = False
        self.alive[into] = True
        self.owner[self.owner == c] = into

    def cost(self, c: int, targets: np.ndarray) -> np.ndarray:
        """The rise in cell costs when class ``c`` merges with each of ``targets`` (the block: all root cells)."""

        from anonstudio.core.kernels._generalize import union_costs

        mine = float(self.node_cost[self.nodes[c]].sum())
        theirs = self.node_cost[self.nodes[targets]].sum(axis=1)
        after = union_costs(self.nodes[c], self.nodes[targets], self.packed.node_anc, self.packed.node_level,
                            self.node_cost)
        return (self.sizes[c] + self.sizes[targets]) * after - self.sizes[c] * mine - self.sizes[targets] * theirs

    def merge(self, c: int, other: int) -> int:
        """Merge ``c`` and ``other``; returns the class holding them now (the block absorbs whatever merges with
        it; a merged class publishing another class's cells takes that class in too)."""
        if self.block in (c, other):
            gone = other if c == self.block else c
            self.by_cells.pop(self.cells(gone), None)
            self._absorb(self.block, gone)
            return self.block
        joint = lca_rows(self.nodes[c], self.nodes[other][None, :], self.packed.node_anc, self.packed.node_level)[0]
        self.by_cells.pop(self.cells(c), None)
        self.by_cells.pop(self.cells(other), None)
        self.nodes[c] = joint
        self._absorb(c, other)
        self._settle(c)
        return c if self.alive[c] else self.block


def _stats(classes: _Classes, ids: np.ndarray, totals: np.ndarray, texts: tuple, value_hierarchy, records: int):
    """:class:`ClassStats` of the classes ``ids`` (in that order)."""
    import numpy as np

    from anonstudio.core.models import ClassStats

    counts = classes.counts[ids]
    cls, code = np.nonzero(counts)
    return ClassStats(classes.sizes[ids].astype(np.int64), value_class=cls.astype(np.int64),
                      value_count=counts[cls, code].astype(float), value_code=code.astype(np.int64),
                      value_total=np.asarray(totals, dtype=float), value_texts=tuple(texts),
                      value_hierarchy=value_hierarchy, records=records, population=classes.covered(ids))


def repair_classes(models: list, labels: np.ndarray, sub: np.ndarray, sens: np.ndarray, n_sens: int,
                   packed: PackedHierarchies, node_cost: np.ndarray, *, blocked: np.ndarray, totals: np.ndarray,
                   texts: tuple, value_hierarchy: Any = None, column: str = "", records: int, source=None,
                   group_unit: str = "class", population: np.ndarray | None = None, people: np.ndarray | None = None,
                   blocked_people: np.ndarray | None = None) -> Repair:
    """Merge classes until every one passes every model in ``models`` (see the module).

    ``labels``: each present record's class (-1: published suppressed); ``sub``: their packed leaves; ``sens``: their
    sensitive codes (-1 missing); ``blocked``: the sensitive codes of the records a missing quasi-identifier
    suppresses; ``totals``/``texts``: the whole table's count and text of each sensitive value; ``node_cost``: the
    quality model's cost of a cell published at each packed node; ``records``: the table's records;
    ``people``/``blocked_people``: each present / blocked record's person code (a person column: classes are judged
    by their distinct people, :class:`_Classes`; ``totals`` then counts people per value);
    ``population``: the population table δ-presence and k-map count in, each record's leaf index per
    quasi-identifier (``int[P, d]``, :func:`~anonstudio.core.algorithms._tabular.population_leaves`)."""
    import numpy as np

    from anonstudio.core.models import SENSITIVE

    if not models:
        return Repair(labels, 0, 0, [])
    sensitive_models = [m for m in models if SENSITIVE in m.needs]
    size_models = [m for m in models if SENSITIVE not in m.needs]
    if sensitive_models:
        whole = _whole(totals, texts, value_hierarchy, records)
        for model in sensitive_models:
            if len(model.failing(whole)):
                raise PrivacyError(f"{model.label()} cannot be met: the whole table's '{column}' breaks it already",
                                   file=source, column=column or None)
    classes = _Classes(labels, sub, sens, n_sens, packed, node_cost, blocked,
                       None if population is None else _Population(np.asarray(population), packed), people=people,
                       blocked_people=blocked_people)
    merges = 0
    while True:
        failing = _failing(classes, sensitive_models, size_models, totals, texts, value_hierarchy, records)
        if not len(failing):
            break
        # the failing class with the fewest records first; its failure settled before the next is looked at
        c = int(failing[int(np.argmin(classes.sizes[failing]))])  # ascending ids: ties go to the lowest
        while True:
            targets = np.flatnonzero(classes.alive)
            targets = targets[(targets != c) & (targets != classes.block)]
            if not len(targets):
                if c == classes.block:
                    break  # every record suppressed: the block is the whole table, which passes (checked above)
                targets = np.array([classes.block])  # the last class left: its records join the suppressed ones
            checkpoint()  # a Cancel is honoured between two merges
            cost = classes.cost(c, targets)
            best = int(targets[int(np.argmin(cost))])
            c = classes.merge(c, best)
            merges += 1
            if not sensitive_models or not _fails_alone(classes, c, sensitive_models, totals, texts,
                                                         value_hierarchy, records):
                break
    final = np.where(labels >= 0, classes.owner[np.maximum(labels, 0)], -1)
    final = np.where(final == classes.block, -1, final)
    suppressed = int(((final < 0) & (labels >= 0)).sum())
    notes = []
    if merges:
        named = ", ".join(m.label() for m in models) + (" (counting people)" if people is not None else "")
        units = "classes" if group_unit == "class" else f"{group_unit}s"
        notes.append(f"{merges:,} merge(s) of {units} failing {named}, each with the {group_unit} whose merge "
                     "costs least" + (f"; {suppressed:,} record(s) joined the suppressed records" if suppressed
                                      else ""))
    return Repair(final, merges, suppressed, notes)


def _whole(totals, texts, value_hierarchy, records):
    import numpy as np

    from anonstudio.core.models import ClassStats

    totals = np.asarray(totals, dtype=float)
    code = np.flatnonzero(totals > 0)
    return ClassStats(np.array([int(totals.sum())]), value_class=np.zeros(len(code), dtype=np.int64),
                      value_count=totals[code], value_code=code.astype(np.int64), value_total=totals,
                      value_texts=tuple(texts), value_hierarchy=value_hierarchy, records=records)


def _failing(classes: _Classes, sensitive_models, size_models, totals, texts, value_hierarchy, records) -> np.ndarray:
    """The classes failing a model, judged as the verifier judges them (see the module)."""
    import numpy as np

    out = []
    alive = np.flatnonzero(classes.alive)
    if sensitive_models and len(alive):
        stats = _stats(classes, alive, totals, texts, value_hierarchy, records)
        out += [alive[np.asarray(model.failing(stats), dtype=np.int64)] for model in sensitive_models]
    if size_models:
        # the block and the classes at the root of every quasi-identifier are exempt (see the module)
        judged = alive[(alive != classes.block) & ~(classes.nodes[alive] == classes.roots).all(axis=1)]
        if len(judged):
            stats = _stats(classes, judged, totals, texts, value_hierarchy, records)
            out += [judged[np.asarray(model.failing(stats), dtype=np.int64)] for model in size_models]
    return np.unique(np.concatenate(out)).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


def _fails_alone(classes: _Classes, c: int, models, totals, texts, value_hierarchy, records) -> bool:
    import numpy as np

    stats = _stats(classes, np.array([c]), totals, texts, value_hierarchy, records)
    return any(len(m.failing(stats)) for m in models)
