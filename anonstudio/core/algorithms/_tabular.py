"""Helpers shared by the tabular recoding methods (``mst``, ``mondrian``, ``kmember``).

- :class:`PackedHierarchies`: the quasi-identifiers' hierarchies packed into one node space for kernels,
  with each node's NCP (002 Eqs 5-6).
- :func:`encode_quasi_identifiers`: a :class:`Table`'s QI cells as packed leaf node ids; a value missing from
  its hierarchy is a :class:`HierarchyError` naming the data file, line and column.
- :func:`generalized_output`: the output table (input layout) whose QI cells hold each class's LCA labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import gcd
from typing import TYPE_CHECKING, ClassVar

from anonstudio.core.algorithms._base import Algorithm, Result
from anonstudio.core.errors import HierarchyError, ParameterError, PrivacyError
from anonstudio.core.params import Param, suppression_budget

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table
    from anonstudio.core.hierarchy import Hierarchy

SUPPRESSED = "*"


@dataclass
class PackedHierarchies:
    """The hierarchies of ``attributes`` in one packed node space.

    Attributes
    ----------
    offsets:
        ``int64[d + 1]``: packed id of attribute ``a``'s local node ``j`` is ``offsets[a] + j``.
    node_anc:
        ``int32[n_nodes, max_height + 1]``: ancestor of each node at each level at or above its own (the
        attribute's root repeated above its height; -1 below the node's level).
    node_level:
        ``int64[n_nodes]``.
    node_ncp:
        ``float64[n_nodes]``: NCP of a cell generalized to the node: numeric attributes (every leaf a number)
        ``(max - min) / (domain max - domain min)`` over the node's leaves (002 Eq. 5); categorical ones
        0 for a leaf, else ``leaves(node) / leaves(root)`` (002 Eq. 6). The domain is the hierarchy's.
    node_leaves:
        ``int64[n_nodes]``: leaves under each node.
    node_min, node_max:
        ``float64[n_nodes]``: numeric range of each node's leaves (NaN for categorical attributes).
    heights:
        ``int64[d]``.
    numeric:
        ``bool[d]``: all leaves of the attribute's hierarchy are numbers.
    labels:
        Label of every packed node.
    """

    attributes: list[str]
    hierarchies: list[Hierarchy]
    offsets: np.ndarray
    node_anc: np.ndarray
    node_level: np.ndarray
    node_ncp: np.ndarray
    node_leaves: np.ndarray
    node_min: np.ndarray
    node_max: np.ndarray
    heights: np.ndarray
    numeric: np.ndarray
    labels: np.ndarray

    @property
    def d(self) -> int:
        return len(self.attributes)

    def leaf_nodes(self, a: int) -> np.ndarray:
        """Packed node id of each leaf (in the hierarchy's leaf order) of attribute ``a``."""
        import numpy as np

        return (self.hierarchies[a].arrays.ancestor[:, 0] + self.offsets[a]).astype(np.int32)

    def hdist_level_weights(self) -> tuple[np.ndarray, int]:
        """Integer CHD weights: ``w[a, level] = 2 * level * (L / H_a)`` with ``L`` the lcm of the heights.

        ``HDist`` (002 Eq. 3) of two records is ``sum_a w[a, lca_level_a] / L``: both records climb from their
        leaves (level 0) to the LCA at ``lca_level_a``, each step costing ``1 / H_a`` (Eqs 1-2). Integers keep
        ties exact, so the tie-breaking of the spanning tree is deterministic.
        """
        import numpy as np

        lcm = 1
        for h in self.heights:
            if h > 0:
                lcm = lcm * int(h) // gcd(lcm, int(h))
        top = self.node_anc.shape[1]
        w = np.zeros((self.d, top), dtype=np.int64)
        for a, h in enumerate(self.heights):
            if h > 0:
                for level in range(top):
                    w[a, level] = 2 * min(level, int(h)) * (lcm // int(h))
        return w, lcm


def pack_hierarchies(attributes: list[str], hierarchies: dict[str, Hierarchy]) -> PackedHierarchies:
    """Pack the hierarchies of ``attributes`` (each must be present) for the kernels."""
    import numpy as np

    if not attributes:
        raise ParameterError("the table has no quasi-identifiers to generalize: name them in input.quasi_identifiers",
                             column="quasi_identifiers")
    hs = []
    for attr in attributes:
        if attr not in hierarchies:
            raise HierarchyError(
                f"quasi-identifier '{attr}' has no hierarchy: add one under [hierarchies]", column=attr
            )
        hs.append(hierarchies[attr])
    top = max((h.height for h in hs), default=0) + 1
    sizes = [h.n_nodes for h in hs]
    offsets = np.zeros(len(hs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)
    total = int(offsets[-1])
    node_anc = np.full((total, top), -1, dtype=np.int32)
    node_level = np.zeros(total, dtype=np.int64)
    node_ncp = np.zeros(total, dtype=np.float64)
    node_leaves = np.zeros(total, dtype=np.int64)
    node_min = np.full(total, np.nan)
    node_max = np.full(total, np.nan)
    numeric = np.zeros(len(hs), dtype=bool)
    labels: list[str] = []
    for a, h in enumerate(hs):
        arr = h.arrays
        off = int(offsets[a])
        anc = arr.ancestor.astype(np.int64) + off
        for level in range(h.height + 1):
            nodes = anc[:, level]
            for up in range(level, top):
                node_anc[nodes, up] = anc[:, min(up, h.height)]
        node_level[off : off + h.n_nodes] = arr.node_level
        leaves = arr.node_leaves
        node_leaves[off : off + h.n_nodes] = leaves
        root_leaves = len(h.leaves)
        is_num = bool(np.all(np.isfinite(arr.node_min)))
        numeric[a] = is_num
        if is_num:
            root = int(arr.ancestor[0, h.height])
            span = arr.node_max[root] - arr.node_min[root]
            ncp = (arr.node_max - arr.node_min) / span if span > 0 else np.zeros(h.n_nodes)
            node_min[off : off + h.n_nodes] = arr.node_min
            node_max[off : off + h.n_nodes] = arr.node_max
        else:
            ncp = np.where(leaves <= 1, 0.0, leaves / max(root_leaves, 1))
        node_ncp[off : off + h.n_nodes] = ncp
        labels.extend(h.node_labels)
    return PackedHierarchies(
        attributes=list(attributes),
        hierarchies=hs,
        offsets=offsets,
        node_anc=node_anc,
        node_level=node_level,
        node_ncp=node_ncp,
        node_leaves=node_leaves,
        node_min=node_min,
        node_max=node_max,
        heights=np.array([h.height for h in hs], dtype=np.int64),
        numeric=numeric,
        labels=np.array(labels, dtype=object),
    )


def encode_quasi_identifiers(data: Table, packed: PackedHierarchies) -> tuple[np.ndarray, np.ndarray]:
    """QI cells as packed leaf node ids.

    Returns ``(leaf_nodes int32[n, d], missing bool[n])``; a record with a missing (NA) QI cell is marked
    in ``missing`` (its codes are 0 and must not be used). A present value that is not a leaf of its
    hierarchy raises :class:`HierarchyError` naming the data file, the line and the column.
    """
    import numpy as np

    from anonstudio.core.data._chunks import factorize

    n = data.n_rows
    codes = np.zeros((n, packed.d), dtype=np.int32)
    missing = np.zeros(n, dtype=bool)
    for a, attr in enumerate(packed.attributes):
        h = packed.hierarchies[a]
        col = data.df[attr]
        inv, uniques = factorize(col)  # in slices of rows, cancellable between them
        leaf_of_unique = np.empty(len(uniques), dtype=np.int64)
        for u, value in enumerate(uniques):
            idx = h.leaf_index.get(str(value))
            if idx is None:
                row = int(np.flatnonzero(inv == u)[0])
                hsrc = f" {h.source}" if h.source is not None else ""
                raise HierarchyError(
                    f"value '{value}' of '{attr}' is not in its hierarchy{hsrc}",
                    file=data.source,
                    line=data.line_of(row) if data.source is not None else None,
                    record=None if data.source is not None else row + 1,
                    column=attr,
                )
            leaf_of_unique[u] = h.arrays.ancestor[idx, 0] + packed.offsets[a]
        na = inv < 0
        missing |= na
        codes[:, a] = np.where(na, 0, leaf_of_unique[np.maximum(inv, 0)] if len(uniques) else 0)
    return codes, missing


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


def population_leaves(population, packed, data, *, key: str = "algorithm.models") -> np.ndarray:
    """Each population record's leaf index in each quasi-identifier's hierarchy (``int64[P, d]``); a population
    table without a quasi-identifier column, or holding a value a hierarchy lacks, is an error naming it."""
    import numpy as np

    from anonstudio.core.privacy._verification import as_coded, frame_of

    if population is None:
        raise ParameterError("δ-presence and k-map need a population table (the model's parameter 'population')",
                             key=key)
    frame = frame_of(population)
    source = getattr(population, "source", None)
    out = np.zeros((len(frame), len(packed.attributes)), dtype=np.int64)
    for a, (q, h) in enumerate(zip(packed.attributes, packed.hierarchies)):
        if q not in frame.columns:
            raise ParameterError(f"the population table has no column '{q}' (a quasi-identifier)",
                                 file=source, column=q, key=key)
        cells = as_coded(frame[q])
        index = {str(leaf): i for i, leaf in enumerate(h.leaves)}
        lookup = np.array([index.get(str(t), -1) for t in cells.texts], dtype=np.int64)
        leaves = lookup[cells.codes] if len(cells.codes) else np.zeros(0, dtype=np.int64)
        if (leaves < 0).any():
            row = int(np.flatnonzero(leaves < 0)[0])
            raise HierarchyError(f"the population table's value {str(cells.texts[cells.codes[row]])!r} of '{q}' "
                                 f"is not a leaf of its hierarchy", file=source, column=q,
                                 **({"line": population.line_of(row)} if hasattr(population, "line_of")
                                    else {"record": row + 1}))
        out[:, a] = leaves
    return out


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


def packed_population(packed: PackedHierarchies, population: np.ndarray) -> np.ndarray:
    """The population's records (leaf index per quasi-identifier, :func:`population_leaves`) as packed leaf nodes."""
    import numpy as np

    if not len(population):
        return np.zeros((0, packed.d), dtype=np.int64)
    return np.stack([packed.leaf_nodes(a)[population[:, a]] for a in range(packed.d)], axis=1).astype(np.int64)


def check_sample_of(data: Table, packed: PackedHierarchies, population: np.ndarray) -> None:
    """Refuse a population table that is not the table's population: δ-presence (Nergiz et al., Def. 3: the
    table is a subset of the population) and k-map count the people of a class in it, so every record of the table
    must be there — each tuple of quasi-identifier values at least as often as in the table (records with a missing
    quasi-identifier are published suppressed and not counted)."""
    import numpy as np

    from anonstudio.core.errors import InputError

    leaves, missing = encode_quasi_identifiers(data, packed)
    mine = np.flatnonzero(~missing)
    theirs = packed_population(packed, population)
    both = np.vstack([leaves[mine].astype(np.int64), theirs.astype(np.int64)])
    if not len(both):
        return
    _, ids = np.unique(both, axis=0, return_inverse=True)
    ids = ids.ravel()
    in_table = np.bincount(ids[:len(mine)], minlength=int(ids.max()) + 1)
    in_population = np.bincount(ids[len(mine):], minlength=int(ids.max()) + 1)
    short = np.flatnonzero(in_table[ids[:len(mine)]] > in_population[ids[:len(mine)]])
    if not len(short):
        return
    row, tuple_id = int(mine[short[0]]), int(ids[short[0]])
    shown = ", ".join(f"{q}={data.df[q].iloc[row]}" for q in packed.attributes[:4])
    times = [f"{n} time" + ("" if n == 1 else "s") for n in (int(in_table[tuple_id]), int(in_population[tuple_id]))]
    raise InputError(f"the table is not a sample of the population table: {shown} occurs {times[0]} in the table "
                     f"and {times[1]} in the population table", file=data.source, line=data.line_of(row))


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
