"""Any registered privacy model, judged over a published table's equivalence classes from the statistics it
declares (:attr:`~anonstudio.core.models.PrivacyModel.needs`).

The built-in models have verifiers of their own (``_tables``, ``_events``, ``_strings``, ``_anatomy``), which also
check that the release is faithful to its input. A model a spec lists under ``"models"`` (``{"model":
"k-anonymity", "k": 5, "models": [{"name": "t-closeness", "t": 0.2}]}``) is judged here, beside them: the classes
are the records with identical published quasi-identifier cells (as the k-anonymity part counts them); the
statistics are computed from the published table alone — sizes, each sensitive value's count per class (values
told apart as a reader tells them), highly-sensitive records per class, and the records of a population table each
class covers — and the model says which classes fail and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import Table
from anonstudio.core.errors import NotAvailableError, ParameterError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.models import (FRAGMENTS, HIGHLY_SENSITIVE, POPULATION, SENSITIVE, ClassStats,
                                             PrivacyModel)
from anonstudio.core.privacy._tables import SUPPRESSED, _class_ids_of
from anonstudio.core.progress import checkpoint
from anonstudio.core.privacy._verification import NA_TOKEN, Problems, Verification, as_coded, as_text, frame_of, show

#: classes named in a failing verdict's problems
SHOWN = 10


class PublishedClasses:
    """A published table's equivalence classes on its quasi-identifiers, found once and shared by every model judged
    over the same release (``verify_output`` judges each model a job names over one of these): the columns as codes,
    the fully suppressed rows, the class of each record and, per sensitive column, each class's counts of each value.
    Each part is computed when a model first needs it; nothing is read from the method that made the release."""

    def __init__(self, output: Table | pd.DataFrame, quasi_identifiers: Sequence[str],
                 hierarchies: dict[str, Hierarchy] | None = None, people: np.ndarray | None = None) -> None:
        self.frame = frame_of(output, "a table")
        #: each published row's person code (the input's person column, :mod:`._people`): classes' sizes and
        #: value counts are then distinct people
        self.people = None if people is None else np.asarray(people, dtype=np.int64)
        self.qis = list(quasi_identifiers)
        self.hierarchies = hierarchies or {}
        self._coded: dict[str, Any] = {}
        self._groupings: dict[bool, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self._values: dict[tuple[bool, str], Any] = {}
        self._pairs: dict[tuple[bool, str], tuple] = {}
        self._population: dict[tuple[int, str], tuple[pd.DataFrame, Any]] = {}

    def population_coded(self, population: pd.DataFrame, column: str) -> Any:
        """A population table's column as codes (several population models judged over one release read it once)."""
        key = (id(population), column)
        if key not in self._population or self._population[key][0] is not population:
            self._population[key] = (population, as_coded(population[column]))
        return self._population[key][1]

    def coded(self, column: str) -> Any:
        """The column as :class:`~anonstudio.core.data.CodedCells` (missing cells :data:`NA_TOKEN`)."""
        if column not in self._coded:
            self._coded[column] = as_coded(self.frame[column])
        return self._coded[column]

    def grouping(self, exempt: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(kept, classes, sizes, firsts)``: the rows judged (with ``exempt`` those not fully suppressed —
        every quasi-identifier ``*`` or its hierarchy's root; without, every row but those of a suppressed block
        that publishes nothing but ``*``, which the k-anonymity part requires of a block smaller than k), each
        one's class (ids by first appearance), the classes' sizes and each class's first row."""
        if exempt not in self._groupings:
            n = len(self.frame)
            suppressed = np.ones(n, dtype=bool) if self.qis else np.zeros(n, dtype=bool)
            for q in self.qis:
                roots = [SUPPRESSED] + ([self.hierarchies[q].root_label] if q in self.hierarchies else [])
                suppressed &= self.coded(q).isin(roots)
                checkpoint()
            if exempt:
                kept = np.flatnonzero(~suppressed)
            else:
                others = [c for c in self.frame.columns if c not in self.qis]
                blanked = suppressed.copy() if others and self.frame.columns.is_unique else np.zeros(n, dtype=bool)
                for c in others if blanked.any() else []:
                    blanked &= self.coded(c).isin([SUPPRESSED])
                kept = np.flatnonzero(~blanked)
            whole = len(kept) == n
            columns = [self.coded(q) if whole else self.coded(q).take(kept) for q in self.qis]
            classes = _class_ids_of(columns, len(kept))
            sizes = np.bincount(classes, minlength=int(classes.max()) + 1 if len(classes) else 0)
            order = np.argsort(classes, kind="stable")
            starts = np.concatenate(([0], np.cumsum(sizes)))
            firsts = kept[order[starts[:-1]]] if len(sizes) else np.zeros(0, dtype=np.int64)
            if self.people is not None:
                from anonstudio.core.privacy._people import distinct_people

                sizes = distinct_people(classes, self.people[kept], len(sizes))
            self._groupings[exempt] = (kept, classes, sizes, firsts)
        return self._groupings[exempt]

    def values(self, exempt: bool, column: str) -> Any:
        """The sensitive column's cells of the rows judged, told apart as a reader tells them."""
        key = (exempt, column)
        if key not in self._values:
            kept = self.grouping(exempt)[0]
            vals = self.coded(column).read_alike(keep=NA_TOKEN)
            self._values[key] = vals if len(kept) == len(self.frame) else vals.take(kept)
        return self._values[key]

    def distributions(self, exempt: bool, column: str) -> tuple:
        """Per (class, present sensitive value) pair its class, its value (codes ``0..m-1`` of the values the table
        holds) and its records; the table's records of each value; the values' texts."""
        key = (exempt, column)
        if key not in self._pairs:
            classes = self.grouping(exempt)[1]
            vals = self.values(exempt, column)
            present = ~vals.isin([NA_TOKEN, ""])
            total = np.bincount(vals.codes[present], minlength=len(vals.texts))
            used = np.flatnonzero(total > 0)  # the values the table holds, coded 0..m-1
            compact = np.full(len(vals.texts), -1, dtype=np.int64)
            compact[used] = np.arange(len(used))
            m = max(len(used), 1)
            if self.people is not None:  # per value, the distinct people holding it (:mod:`._people`)
                from anonstudio.core.privacy._people import people_per_value_total

                who = self.people[self.grouping(exempt)[0]]
                total = people_per_value_total(who, vals.codes, present, len(vals.texts))
                pair = np.unique(np.stack([classes[present].astype(np.int64) * m + compact[vals.codes[present]],
                                           who[present]], axis=1), axis=0)[:, 0]
            else:
                pair = classes[present].astype(np.int64) * m + compact[vals.codes[present]]
            keys, counts = np.unique(pair, return_counts=True)
            self._pairs[key] = (keys // m, keys % m, counts.astype(float), total[used].astype(float),
                                tuple(str(vals.texts[i]) for i in used), present)
        return self._pairs[key]


def verify_class_model(model: PrivacyModel, output: Table | pd.DataFrame, quasi_identifiers: Sequence[str], *,
                       sensitive: str | Sequence[str] | None = None, hierarchies: dict[str, Hierarchy] | None = None,
                       highly_sensitive: Sequence[str] = (), population: Table | pd.DataFrame | None = None,
                       shared: PublishedClasses | None = None, people: np.ndarray | None = None) -> Verification:
    """Judge ``model`` over the classes of the published table ``output``.

    Records published fully suppressed (every quasi-identifier ``*`` or its hierarchy's root) are exempt when the
    model needs only class sizes or population counts (as k-anonymity exempts them, within the budget its part
    checks); a model that looks at sensitive values judges them as one class, since their values are published.
    ``shared``: the release's classes as another model's check found them (the same output, quasi-identifiers and
    hierarchies), so that several models judged over one release group it once.
    """
    pub = frame_of(output, "a table")
    qis = list(quasi_identifiers)
    hierarchies = hierarchies or {}
    names = [sensitive] if isinstance(sensitive, str) else list(sensitive or [])
    needs = set(model.needs)
    details: dict[str, Any] = {"model": model.name, **model.params, "quasi_identifiers": qis}
    problems = Problems()
    if FRAGMENTS in needs:
        raise NotAvailableError(f"privacy model '{model.name}' judges fragments of strings, not a table's classes")
    missing = [c for c in [*qis, *(names if needs & {SENSITIVE, HIGHLY_SENSITIVE} else [])] if c not in pub.columns]
    if needs & {SENSITIVE, HIGHLY_SENSITIVE} and not names:
        problems.add(f"privacy model '{model.name}' judges sensitive values, and no sensitive column is given")
    for c in missing:
        problems.add(f"column '{c}' is missing from the output", column=c, kind="missing column")
    if POPULATION in needs:
        from anonstudio.core.models._population import population_table

        population = population_table(model, population)
    if problems:
        details.update(violations=problems.count, first_violations=problems.records)
        return Verification(False, model.name, details, problems.sentences)
    if shared is None or shared.frame is not pub or shared.qis != qis:
        shared = PublishedClasses(pub, qis, hierarchies, people=people)
    if shared.people is not None:
        details["counted"] = "people"
    exempt = needs <= {"sizes", POPULATION}
    kept, classes, sizes, firsts = shared.grouping(exempt)
    covered = _population_counts(pub, qis, firsts, population, hierarchies, shared) if POPULATION in needs else None
    columns: list[str | None] = list(names) if needs & {SENSITIVE, HIGHLY_SENSITIVE} else [None]
    worst = np.inf
    failing_records = 0
    for column in columns:
        stats = ClassStats(sizes, population=covered, records=len(pub))
        if column is not None:
            if SENSITIVE in needs:
                (stats.value_class, stats.value_code, stats.value_count, stats.value_total, stats.value_texts,
                 _) = shared.distributions(exempt, column)
                stats.value_hierarchy = hierarchies.get(column)
            if HIGHLY_SENSITIVE in needs:
                from anonstudio.core.data import read_alike

                vals = shared.values(exempt, column)
                present = ~vals.isin([NA_TOKEN, ""])
                high = np.isin(vals.texts, [read_alike(str(v)) for v in highly_sensitive])[vals.codes] & present
                stats.high = np.bincount(classes, weights=high.astype(float), minlength=len(sizes))
        score, failing = model.score(stats), model.failing(stats)
        failing_records += int(sizes[failing].sum())
        if len(score):
            worst = min(worst, float(np.min(score)))
        shown = failing[:SHOWN]
        cells = {q: as_text(pub[q].iloc[firsts[shown]]) for q in qis} if len(shown) else {}
        for n_shown, c_id in enumerate(shown):
            first = int(firsts[c_id])
            values = ", ".join(f"{q}={show(cells[q][n_shown])}" for q in qis)
            measure = model.measure(stats, int(c_id), of=f"'{column}'" if column else "")
            problems.add(f"row {first + 1}: its equivalence class ({values}, {int(sizes[c_id])} records) has "
                         f"{measure}, which {model.label()} does not allow", row=first + 1, kind=f"fails {model.name}",
                         score=float(score[c_id]), model=model.label(), records=int(sizes[c_id]), why=measure)
        problems.count += max(0, len(failing) - SHOWN)
    details.update(classes=int(len(sizes)), lowest_score=None if worst == np.inf else round(worst, 6),
                   failing_records=failing_records,
                   violations=problems.count, first_violations=problems.records)
    return Verification(not problems, model.name, details, problems.sentences)


def _population_counts(pub: pd.DataFrame, qis: list[str], firsts: np.ndarray, population: Table | pd.DataFrame,
                       hierarchies: dict[str, Hierarchy], shared: PublishedClasses | None = None) -> np.ndarray:
    """Per class (its first row ``firsts[i]``), the population records whose every quasi-identifier value is the
    class's published cell, a descendant of it in the attribute's hierarchy, or under a suppressed cell.

    Per attribute, each published label's cover is a bit set over the population's records (which distinct
    values it covers, :func:`_covers`, spread over the records); a class's count is the records set in the AND of
    its labels' sets — a few kilobytes per class, whatever mix of levels the release publishes."""
    frame = population.df if isinstance(population, Table) else population
    absent = [q for q in qis if q not in frame.columns]
    if absent:
        raise ParameterError(f"the population table has no column '{absent[0]}' (a quasi-identifier)", column=absent[0])
    if not len(firsts):
        return np.zeros(0, dtype=np.int64)
    if not qis:  # nothing published to match: every class covers the whole population
        return np.full(len(firsts), len(frame), dtype=np.int64)
    masks, label_ids = [], []
    for q in qis:
        labels = pd.Series([str(x) for x in as_text(pub[q].iloc[firsts])], dtype=object)
        ids, used = pd.factorize(labels)
        pop = shared.population_coded(frame, q) if shared is not None else as_coded(frame[q])
        h = hierarchies.get(q)
        values = [str(v) for v in pop.texts]
        cover = np.array([[_covers(str(label), v, h) for v in values] for label in used], dtype=bool)
        masks.append(np.stack([np.packbits(row[pop.codes]) for row in cover.reshape(len(used), len(values))]))
        label_ids.append(ids)
    counts = np.zeros(len(firsts), dtype=np.int64)
    width = masks[0].shape[1]
    step = max(1, (1 << 24) // max(width, 1))  # classes per pass: about 16 MB of bit sets
    for start in range(0, len(firsts), step):
        part = slice(start, start + step)
        joint = masks[0][label_ids[0][part]]
        for a in range(1, len(qis)):
            joint &= masks[a][label_ids[a][part]]
        counts[part] = _ONES[joint].sum(axis=1, dtype=np.int64)
    return counts


#: set bits of each byte value
_ONES = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _covers(label: str, value: str, h: Hierarchy | None) -> bool:
    if label == value or label == "*":
        return True
    if h is None:
        return False
    return label == h.root_label or h.is_generalization(value, label)
