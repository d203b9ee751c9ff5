"""Helpers shared by the tabular recoding methods (``mst``, ``mondrian``, ``kmember``).

- :class:`PackedHierarchies`: the quasi-identifiers' hierarchies packed into one node space for kernels,
  with each node's NCP (002 Eqs 5-6).
- :func:`encode_quasi_identifiers`: a :class:`Table`'s QI cells as packed leaf node ids; a value missing from
  its hierarchy is a :class:`HierarchyError` naming the data file, line and column.
- :func:`generalized_output`: the output table (input layout) whose QI cells hold each class's LCA labels.

The packing lives in :mod:`._packed` and the population table of δ-presence and k-map in :mod:`._population`;
their names are importable from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from anonstudio.core.algorithms._base import Algorithm, Result
from anonstudio.core.algorithms._packed import PackedHierarchies, encode_quasi_identifiers, pack_hierarchies
from anonstudio.core.algorithms._population import check_sample_of, packed_population, population_leaves
from anonstudio.core.errors import ParameterError, PrivacyError
from anonstudio.core.params import Param, suppression_budget

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table

__all__ = [
    "SUPPRESSED", "GeneralizingMethod", "PackedHierarchies", "blanked_note", "check_k", "check_people",
    "check_sample_of", "encode_quasi_identifiers", "generalized_output", "models_param", "pack_hierarchies",
    "packed_population", "population_leaves", "records_at_root", "renumber_by_first_record", "table_metrics_for",
    "tabular_result",
]

SUPPRESSED = "*"


def check_k(k: int, n: int, data: Table, n_missing: int = 0) -> None:
    """``k`` must not exceed the number of records that can be grouped."""
    if k > n:
        extra = f" ({n_missing} records with a missing quasi-identifier are suppressed)" if n_missing else ""
        raise ParameterError(
            f"k = {k} is larger than the number of records that can be grouped, {n}{extra}",
            file=data.source,
            key="algorithm.k",
        )


def check_people(k: int, data: Table, rows: np.ndarray) -> None:
    """With a person column, ``k`` must not exceed the distinct people of the records that can be grouped."""
    import numpy as np

    if getattr(data, "person", None) is None:
        return
    from anonstudio.core.privacy._people import person_codes

    people = len(np.unique(person_codes(data, rows)))
    if k > people:
        raise ParameterError(f"k = {k} is larger than the number of people ('{data.person}') whose records can be "
                             f"grouped, {people}", file=data.source, key="algorithm.k")


def generalized_output(
    data: Table,
    packed: PackedHierarchies,
    groups: np.ndarray,
    class_nodes: np.ndarray,
    k: int = 1,
) -> Table:
    """The published table: input layout (identifying columns dropped), QI cells replaced by the label of
    their class's LCA node per attribute; records with ``groups == -1`` get ``*`` in every QI cell.

    **The suppressed block is a class** (issue 39): the records published fully suppressed (every QI cell ``*``
    or its hierarchy's root label), grouped by their published QI cells as a reader groups them, form blocks; a
    block of fewer than ``k`` records publishes its other cells (the sensitive column and every column published
    unchanged) as ``*`` too — whoever is missing from the published classes is one of its records — and a block
    of at least ``k`` publishes them as they are (the methods keep the job's other models on it, as the verifier
    judges it). The rule is :func:`~anonstudio.core.privacy._tables.suppressed_block`, the verifier's own."""
    import numpy as np
    import pandas as pd

    from anonstudio.core.data import AttrType, Table
    from anonstudio.core.data._table import type_of_values
    from anonstudio.core.progress import checkpoint

    kept = groups >= 0
    g = np.where(kept, groups, 0)
    # the labels and '*' (last) in one object array: a record's cell is one lookup, no per-cell where/copy
    labels = np.append(packed.labels.astype(object), np.array([SUPPRESSED], dtype=object))
    suppressed = len(labels) - 1
    published: dict[str, np.ndarray] = {}
    generalized_types = {}
    present = np.flatnonzero(np.bincount(groups[kept], minlength=len(class_nodes))) if kept.any() else g[:0]
    for a, attr in enumerate(packed.attributes):
        nodes = class_nodes[g, a] if len(class_nodes) else np.zeros(len(g), dtype=np.int64)
        published[attr] = labels[np.where(kept, nodes, suppressed)]
        # the column's distinct published values are the labels of its classes' nodes (and '*'): its type
        # from them, not from a scan of every cell
        distinct = list(labels[np.unique(class_nodes[present, a])]) + ([SUPPRESSED] if not kept.all() else [])
        generalized_types[attr] = type_of_values(distinct)
        checkpoint()
    # built column by column (one short copy each, not the whole table in one call that holds the lock), then
    # joined without copying or consolidating: inserting them one by one into a frame costs time quadratic in
    # the column count (5,000 columns: 73 s) and a pandas warning per column
    source, dropped = data.df, set(data.identifying)
    blank = _small_suppressed_block(packed, published, k,
                                    any(c not in dropped and c not in published for c in source.columns),
                                    people=_people_codes(data))
    columns = {}
    for column in source.columns:
        if column not in dropped:
            # object dtype as the readers give: pandas would otherwise infer its Arrow string dtype, a
            # conversion of every cell that holds the lock 0.1 s per column at 1M rows (and back, later)
            if column in published:
                columns[column] = pd.Series(published[column], index=source.index, dtype=object)
            elif blank is not None:
                cells = source[column].to_numpy(dtype=object, copy=True)
                cells[blank] = SUPPRESSED
                columns[column] = pd.Series(cells, index=source.index, dtype=object)
            else:
                columns[column] = source[column].copy()
            checkpoint()
    df = pd.DataFrame(columns, index=source.index, copy=False)
    roles = {c: r for c, r in data.roles.items() if c in df.columns}
    # generalized QI columns get their type from their published labels (interval labels are not numbers)
    types = {c: t for c, t in data.types.items() if c in df.columns and c not in packed.attributes}
    if blank is not None:  # a column holding '*' is text
        types = {c: (AttrType.CATEGORICAL if c not in published else t) for c, t in types.items()}
    types.update({c: t for c, t in generalized_types.items() if c in df.columns})
    return Table(
        df,
        roles=roles,
        types=types,
        source=None,
        delimiter=data.delimiter,
        encoding=data.encoding,
        header_lines=data.header_lines,
        # untouched columns keep their missing cells' spelling ('?', 'NA'): written back byte for byte
        missing_text={c: t for c, t in data.missing_text.items() if c in df.columns and c not in packed.attributes},
    )


def _people_codes(data: Table) -> np.ndarray | None:
    """Each record's person code when the table names a person column (issue 39 item 2), else ``None``."""
    if getattr(data, "person", None) is None:
        return None
    from anonstudio.core.privacy._people import person_codes

    return person_codes(data)


def _small_suppressed_block(packed: PackedHierarchies, published: dict[str, np.ndarray], k: int,
                            publishes_more: bool, people: np.ndarray | None = None) -> np.ndarray | None:
    """The rows whose other cells :func:`generalized_output` publishes ``*`` (a suppressed block smaller than
    ``k``, judged as the verifier judges it: :func:`~anonstudio.core.privacy._tables.suppressed_block`); ``None``
    when there is none."""
    import numpy as np
    import pandas as pd

    from anonstudio.core.privacy._tables import suppressed_block
    from anonstudio.core.privacy._verification import as_coded

    if not publishes_more or k <= 1 or not packed.attributes:
        return None
    n = len(next(iter(published.values())))
    suppressed = np.ones(n, dtype=bool)
    cells = []
    for a, attr in enumerate(packed.attributes):
        root = packed.labels[packed.node_anc[packed.offsets[a], -1]]
        coded = as_coded(pd.Series(published[attr], dtype=object))
        suppressed &= coded.isin([SUPPRESSED, root])
        cells.append(coded)
    blank, _ = suppressed_block(suppressed, cells, k, people=people)
    return blank if blank.any() else None


def blanked_note(output: Table, packed: PackedHierarchies, k: int, data: Table | None = None) -> list[str]:
    """The report's sentence on the records of a suppressed block smaller than ``k`` (:func:`generalized_output`
    published their other cells ``*``), or none."""
    others = [c for c in output.df.columns if c not in packed.attributes]
    blank = _small_suppressed_block(packed, {a: output.df[a].to_numpy(dtype=object) for a in packed.attributes}, k,
                                    bool(others), people=_people_codes(data) if data is not None else None)
    if blank is None:
        return []
    m = int(blank.sum())
    return [f"{m} fully suppressed record{'s' if m != 1 else ''} (a suppressed block smaller than k = {k}) "
            f"publish{'es' if m == 1 else ''} every other cell as '*' too: whoever is missing from the published "
            "classes is one of them, so nothing but their count is published"]


def renumber_by_first_record(labels: np.ndarray) -> np.ndarray:
    """Class ids 0, 1, … in order of each class's first record; -1 stays -1."""
    import numpy as np

    out = np.full(len(labels), -1, dtype=np.int64)
    valid = labels >= 0
    if not valid.any():
        return out
    _, first, inv = np.unique(labels[valid], return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    out[valid] = rank[inv]
    return out


class GeneralizingMethod(Algorithm):
    """Base of the table methods that generalize quasi-identifiers to hierarchy nodes (MST recoding, Mondrian,
    k-member, local and global recoding): tables in, a table out, and the same report metrics (002 Eqs. 5-9 and
    the quality models) measured from the output. Helpers the methods share: the sensitive codes for
    l-diversity, the suppression budget (:mod:`anonstudio.core.algorithms._suppression`) and the result."""

    data_kind = "table"
    output_kind = "table"
    reported_metrics = ("NCP_total", "GCP", "DM", "CAVG", "quality")
    #: a record may be published fully suppressed, up to ``max_suppression`` of them (default a tenth)
    pipeline_parameters = suppression_budget()

    def evaluate(self, data: Table, result: Result, hierarchies: dict, progress=None, *, executor=None) -> dict:
        return table_metrics_for(self, data, result, hierarchies)

    #: the registered privacy models (beyond k and l) a job may name under ``models`` for this method, by name
    enforced_models: ClassVar[Sequence[str]] = ()
    #: the population table δ-presence and k-map count in, when a script hands one over (a table or frame); else
    #: each model reads the file its ``population`` parameter names
    population = None

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self._sensitive: str | None = None  # the sensitive column the models judge (set by sensitive_codes)
        self._extra = self._validated_models()

    def _validated_models(self) -> list:
        """The ``models`` parameter as model objects, each parameter checked by its model's declarations."""
        named = self.params.get("models") or {}
        if not named:
            return []
        from anonstudio.core.errors import AnonStudioError
        from anonstudio.core.models import MODELS

        out = []
        for name, params in named.items():
            key = f"algorithm.models.{name}"
            if name not in self.enforced_models:
                known = MODELS.get(name)
                raise ParameterError((f"'{self.name}' does not enforce the privacy model '{name}'" if known else
                                      f"no privacy model is named '{name}'") +
                                     f" (this method enforces: {', '.join(self.enforced_models) or 'none'})", key=key)
            try:
                model = MODELS[name](**params)
                model.check_parameters(key=f"{key}.")
            except AnonStudioError as exc:
                if exc.key and not exc.key.startswith("algorithm."):
                    exc.key = f"{key}.{exc.key}"
                exc.message = f"privacy model '{name}': {exc.message}"
                raise
            out.append(model)
        return out

    def extra_models(self) -> list:
        """The registered privacy models the job names under ``models`` (validated)."""
        return list(self._extra)

    def models(self) -> list:
        """The privacy models this run enforces (:mod:`anonstudio.core.models`): k-anonymity with ``k``,
        ``l_kind`` l-diversity where the method takes ``l`` and it is set, and those named under ``models``."""
        from anonstudio.core.models import table_models

        return table_models(self.params["k"], self.params.get("l"), self.params.get("l_kind", "entropy")) + self._extra

    def needs_sensitive(self) -> bool:
        """Whether a model of this run judges the sensitive column's values."""
        from anonstudio.core.models import SENSITIVE

        return self.params.get("l") is not None or any(SENSITIVE in m.needs for m in self._extra)

    def needs_population(self) -> bool:
        from anonstudio.core.models import POPULATION

        return any(POPULATION in m.needs for m in self._extra)

    def population_leaves(self, packed: PackedHierarchies, data: Table) -> np.ndarray | None:
        """The population table the models named under ``models`` count in (δ-presence, k-map without an
        estimator), as each record's leaf index per quasi-identifier (:func:`population_leaves`); None when no
        model reads one. Two models naming two different tables are refused."""
        if not self.needs_population():
            return None
        from anonstudio.core.models import POPULATION
        from anonstudio.core.models._population import population_table

        users = [m for m in self._extra if POPULATION in m.needs]  # k-map with an estimator reads none
        if len({m.params.get("population") for m in users}) > 1 and self.population is None:
            raise ParameterError("δ-presence and k-map name two population tables: give them one",
                                 key="algorithm.models")
        leaves = population_leaves(population_table(users[0], self.population), packed, data,
                                   key=f"algorithm.models.{users[0].name}.population")
        check_sample_of(data, packed, leaves)
        return leaves

    def model_specs(self) -> list[dict]:
        """The spec's ``"models"``: each named model with its validated parameters."""
        return [{"name": m.name, **m.params} for m in self._extra]

    def privacy_model(self) -> dict:
        """k-anonymity with ``k``, l-diversity when ``l`` is set, and the models named under ``models`` (with the
        sensitive column they judge)."""
        model = {"model": "k-anonymity", "k": self.params["k"]}
        if self.params.get("l") is not None:
            model.update({"l": self.params["l"], "l_kind": self.params["l_kind"], "sensitive": self._sensitive})
        if self.extra_models():
            model["models"] = self.model_specs()
            if self._sensitive is not None:
                model["sensitive"] = self._sensitive
        return model

    def encoded(self, data: Table, hierarchies: dict) -> tuple:
        """``(packed, leaf_nodes, missing, idx)``: the hierarchies packed, each record's QI leaf nodes, the
        records with a missing QI (suppressed) and the rows that take part; ``k`` checked against them."""
        import numpy as np

        packed = pack_hierarchies(data.quasi_identifiers, hierarchies)
        leaf_nodes, missing = encode_quasi_identifiers(data, packed)
        idx = np.flatnonzero(~missing)
        check_k(self.params["k"], len(idx), data, int(missing.sum()))
        check_people(self.params["k"], data, idx)
        return packed, leaf_nodes, missing, idx

    def sensitive_codes(self, data: Table) -> tuple[np.ndarray, int]:
        """``(int32 code per record, number of values)`` of the one sensitive attribute when ``l`` is set or a model
        named under ``models`` reads it (missing
        values, and values that read alike, as the verifier sees them: -1 and one code); without ``l``, -1
        everywhere."""
        import numpy as np

        from anonstudio.core.data import value_codes

        if not self.needs_sensitive():
            return np.full(data.n_rows, -1, dtype=np.int32), 1
        sens = data.sensitive
        if len(sens) != 1:
            l_set = self.params.get("l") is not None
            what = "l-diversity" if l_set else f"privacy model '{self._extra[0].name}'"
            raise ParameterError(f"{what} needs exactly one sensitive attribute, the input has {len(sens)}"
                                 + (f" ({', '.join(sens)})" if sens else ""), file=data.source,
                                 key="algorithm.l" if l_set else "input.sensitive")
        self._sensitive = sens[0]
        codes, n_values = value_codes(data.df[sens[0]])
        return np.asarray(codes, dtype=np.int32), max(int(n_values), 1)

    def check_diversity(self, data: Table, sens: np.ndarray, n_sens: int, limits: dict) -> None:
        """A :class:`PrivacyError` when even one class of every record would not be l-diverse."""
        import numpy as np

        from anonstudio.core.errors import PrivacyError

        if self.params.get("l") is None:
            return
        present = sens[sens >= 0]
        counts = np.bincount(present, minlength=n_sens)
        distinct = int((counts > 0).sum())
        if distinct < int(limits.get("min_distinct", 1)):
            raise PrivacyError(f"distinct l-diversity with l = {self.params['l']:g} cannot be met: "
                               f"'{self._sensitive}' has {distinct} distinct value(s) in the whole table",
                               file=data.source, column=self._sensitive)
        log_l = float(limits.get("min_entropy", 0.0))
        if log_l > 0:
            p = counts[counts > 0] / max(len(present), 1)
            h = float(-(p * np.log(p)).sum())
            if h < log_l - 1e-12:
                raise PrivacyError(f"entropy l-diversity with l = {self.params['l']:g} cannot be met: the whole "
                                   f"table's '{self._sensitive}' has entropy {h:.3f} < log l = {log_l:.3f}",
                                   file=data.source, column=self._sensitive)

    def spend_suppression(self, data: Table, packed: PackedHierarchies, sub: np.ndarray, labels: np.ndarray,
                          sens: np.ndarray, n_sens: int, limits: dict, costs, missing: np.ndarray,
                          missing_sens: np.ndarray, already: int = 0):
        """The suppression budget (:func:`~anonstudio.core.algorithms._suppression.spend_budget`) on the classes
        ``labels`` of the present records ``sub``: ``max_suppression`` of the table less the records suppressed
        already (a missing quasi-identifier, and ``already`` more the method suppressed) and the records of classes
        generalized to the root of every quasi-identifier (the verifier counts them as suppressed too)."""
        from anonstudio.core.algorithms._suppression import budget_of, cell_costs, spend_budget
        from anonstudio.core.params import DEFAULT_MAX_SUPPRESSION

        if costs is None:
            costs = cell_costs(packed, sub, self.params.get("quality", "loss"), self.params.get("weights"))
        share = float(self.pipeline.get("max_suppression", DEFAULT_MAX_SUPPRESSION))
        at_root = records_at_root(packed, sub, labels)
        budget = budget_of(share, data.n_rows, int(missing.sum()) + int(already) + at_root)
        return spend_budget(sub, labels, packed, costs, budget, limits, sens, n_sens, blocked_sens=missing_sens)

    def settle_classes(self, data: Table, hierarchies: dict, packed: PackedHierarchies, sub: np.ndarray,
                       labels: np.ndarray, sens: np.ndarray, n_sens: int, limits: dict, costs, missing: np.ndarray,
                       missing_sens: np.ndarray, already: int = 0):
        """The classes' last step: without models named under ``models``, the suppression budget
        (:meth:`spend_suppression`); with them, the merges that keep them
        (:func:`~anonstudio.core.algorithms._model_repair.repair_classes`) and no budget spent, as Mondrian does
        (suppressing a record changes its class's distribution, which they judge). ``missing_sens``: the sensitive
        codes of the records published suppressed besides ``labels``' -1s (a missing quasi-identifier)."""
        import numpy as np

        from anonstudio.core.algorithms._model_repair import repair_classes
        from anonstudio.core.algorithms._suppression import Spent, cell_costs

        by_people = getattr(data, "person", None) is not None
        if not self._extra and not by_people:
            return self.spend_suppression(data, packed, sub, labels, sens, n_sens, limits, costs, missing,
                                          missing_sens, already=already)
        people = blocked_people = None
        models = list(self._extra)
        if by_people:
            # a person column: every model counts distinct people per class (k people, l and the distributions
            # over people's values, :mod:`anonstudio.core.privacy._people`); the classes failing are merged
            from anonstudio.core.privacy._people import distinct_people, person_codes

            every = person_codes(data)
            people, blocked_people = every[~missing], every[missing]
            models = self.models()
            if not self.needs_sensitive() and not self._extra and (labels >= 0).any():
                held = distinct_people(labels, people)
                if held[np.unique(labels[labels >= 0])].min() >= int(self.params["k"]):
                    return Spent(labels, 0, 0, [])  # every class holds k people already
        if costs is None:
            costs = cell_costs(packed, sub, self.params.get("quality", "loss"), self.params.get("weights"))
        column = self._sensitive or ""
        totals, texts = np.zeros(0), ()
        if self.needs_sensitive():
            from anonstudio.core.data import coded_cells, value_codes

            codes, n_values = value_codes(data.df[column])
            present = codes >= 0
            totals = np.bincount(codes[present], minlength=n_values).astype(float)
            if by_people:
                from anonstudio.core.privacy._people import people_per_value_total

                totals = people_per_value_total(every, codes, present, n_values).astype(float)
            cells = coded_cells(data.df[column], "").read_alike()
            firsts = np.full(n_values, -1, dtype=np.int64)
            firsts[codes[present][::-1]] = np.flatnonzero(present)[::-1]
            texts = tuple(str(cells.texts[cells.codes[i]]) for i in firsts)
        # the records a missing quasi-identifier suppresses come first in missing_sens (local recoding appends its
        # own suppressed records, which labels' -1s name too)
        blocked = np.asarray(missing_sens, dtype=np.int64)[:int(missing.sum())]
        if blocked_people is not None:
            blocked_people = blocked_people[:len(blocked)]
        repaired = repair_classes(models, labels, sub, sens, n_sens, packed, costs.node_cost, blocked=blocked,
                                  totals=totals, texts=texts,
                                  value_hierarchy=hierarchies.get(column) if column else None, column=column,
                                  records=data.n_rows, source=data.source, group_unit=self.group_unit,
                                  population=self.population_leaves(packed, data), people=people,
                                  blocked_people=blocked_people)
        self._check_merged_within_budget(data, packed, sub, repaired.labels, missing, models)
        why = ("a person column is named: classes are merged until each holds k people"
               if by_people else "privacy models beyond k and l are named")
        notes = [f"the suppression budget is not spent when {why}: suppressing a record changes its class's "
                 "distribution, which they judge"] + repaired.notes
        return Spent(repaired.labels, repaired.suppressed, 0, notes)

    def _check_merged_within_budget(self, data: Table, packed: PackedHierarchies, sub: np.ndarray,
                                    labels: np.ndarray, missing: np.ndarray, models: list | None = None) -> None:
        """Refuse (exit 1, naming the models) a repair that kept the models only by publishing more records fully
        suppressed — joined to the suppressed ones, or merged to the root of every quasi-identifier — than
        ``max_suppression`` allows, which the verifier would refuse with no word of why."""
        from anonstudio.core.params import DEFAULT_MAX_SUPPRESSION

        share = float(self.pipeline.get("max_suppression", DEFAULT_MAX_SUPPRESSION))
        allowed = share * data.n_rows + 1e-9
        n_missing = int(missing.sum())
        if n_missing > allowed:
            return  # missing quasi-identifiers alone exceed it: the verifier says so, whatever the method does
        kept = labels >= 0
        at_root = records_at_root(packed, sub, labels)
        gone = n_missing + int((~kept).sum()) + at_root
        if gone > allowed:
            named = ", ".join(m.label() for m in (self._extra if models is None else models))
            raise PrivacyError(f"{named} could be kept only by publishing {gone:,} of {data.n_rows:,} records "
                               f"({gone / max(data.n_rows, 1):.1%}) fully suppressed (merged to the root of every "
                               f"quasi-identifier), more than max_suppression = {share:.1%} allows: relax the model "
                               "or raise max_suppression", file=data.source)

    def finish(self, data: Table, packed: PackedHierarchies, idx: np.ndarray, sub: np.ndarray, labels: np.ndarray,
               missing: np.ndarray, *, metrics: dict, notes: list[str] | None = None,
               details: dict | None = None) -> Result:
        """The :class:`Result` of classes ``labels`` (per present record; -1 suppressed) generalized to their
        lowest common ancestors, numbered by first record."""
        from anonstudio.core.kernels._generalize import class_lca

        labels = renumber_by_first_record(labels)
        n_classes = int(labels.max()) + 1 if len(labels) and labels.max() >= 0 else 0
        nodes = class_lca(sub, labels, n_classes, packed.node_anc, packed.node_level)
        result = tabular_result(data, packed, idx, labels, nodes, missing, metrics=metrics, details=details,
                                k=int(self.params["k"]))
        result.suppressed += int((labels < 0).sum())
        result.notes = result.notes + list(notes or [])
        return result


def records_at_root(packed: PackedHierarchies, sub: np.ndarray, labels: np.ndarray) -> int:
    """Records of the classes ``labels`` (per present record ``sub``; -1 none) whose cells are the root of every
    quasi-identifier — published fully suppressed, as the verifier counts them."""
    import numpy as np

    from anonstudio.core.kernels._generalize import class_lca

    kept = labels >= 0
    if not kept.any():
        return 0
    nodes = class_lca(sub, labels, int(labels.max()) + 1, packed.node_anc, packed.node_level)
    roots = np.array([packed.node_anc[packed.offsets[a], -1] for a in range(packed.d)])
    return int(np.all(nodes == roots, axis=1)[labels[kept]].sum())


def table_metrics_for(algorithm, data: Table, result, hierarchies: dict, *, k: int | None = None) -> dict:
    """The report metrics of a tabular method, computed from its input, its output table and the hierarchies
    only: 002's figures (:func:`~anonstudio.core.metrics.table_metrics`) and, under ``quality``, every quality
    model of :mod:`anonstudio.core.metrics._quality` with its definition (at the method's attribute weights,
    if it takes some). ``k``: the class size the figures are judged at, when the method derives it (SafePub)."""
    from anonstudio.core.metrics import equivalence_classes, release_quality, table_metrics

    qis = data.quasi_identifiers
    classes, suppressed = equivalence_classes(result.output, qis, hierarchies)
    metrics = table_metrics(result.output, qis, hierarchies, k=algorithm.params["k"] if k is None else k,
                            classes=classes,
                            suppressed=suppressed)
    weights = algorithm.params.get("weights")
    metrics["quality"] = release_quality(data, result.output, qis, hierarchies,
                                         weights=weights if isinstance(weights, dict) else None, classes=classes,
                                         suppressed=suppressed)
    return metrics


def tabular_result(
    data: Table,
    packed: PackedHierarchies,
    idx: np.ndarray,
    labels: np.ndarray,
    class_nodes: np.ndarray,
    missing: np.ndarray,
    *,
    metrics: dict,
    details: dict | None = None,
    k: int = 1,
) -> Result:
    """The :class:`Result` of a recoding method: records ``idx`` (those with every QI present) in classes
    ``labels`` generalized to ``class_nodes``; records with a missing QI suppressed and noted; a suppressed block
    smaller than ``k`` publishes its other cells ``*`` (:func:`generalized_output`)."""
    import numpy as np

    groups = np.full(data.n_rows, -1, dtype=np.int64)
    groups[idx] = labels
    n_missing = int(missing.sum())
    notes = [f"{n_missing} records with a missing quasi-identifier were suppressed"] if n_missing else []
    output = generalized_output(data, packed, groups, class_nodes, k=k)
    return Result(
        output=output,
        groups=groups,
        suppressed=n_missing,
        metrics=metrics,
        details=details or {},
        notes=notes + blanked_note(output, packed, k, data),
    )


def models_param(names: Sequence[str]) -> Param:
    """The ``models`` parameter of a partitioning method: more privacy models every class keeps, each with its own
    parameters; ``choices`` are the models the method enforces (the workbench offers them, each with its form):
    ``names`` is the method's :class:`~anonstudio.core.models.Enforced`, read from the registry whenever asked."""
    return Param("models", "models", None, help="more privacy models every class keeps, each with its parameters, "
                 "e.g. t-closeness = {t = 0.2, distance = \"hierarchical\"}", choices=names,  # type: ignore[arg-type]
                 title="Privacy models")
