"""Anatomy (``anatomy``): publish the quasi-identifiers and the sensitive values in two tables linked by
group, every group l-diverse.

X. Xiao, Y. Tao, "Anatomy: Simple and effective privacy preservation", VLDB 2006 — the "permutation"
method paper 001 compares RA with.

Bucketization (Xiao & Tao, Fig. 4): the records are hashed into buckets by sensitive value; while at least
``l`` buckets are non-empty, one record is taken from each of the ``l`` largest buckets to form a group;
each record left over (at most ``l - 1``, one per remaining bucket) joins a group that does not yet hold its
sensitive value (one always exists when no value is more frequent than ``n / l``, the eligibility condition,
checked first). Every group then has at least ``l`` records and no sensitive value twice, so no value is
more than ``1/l`` of it.

Published: the QIT — the input's columns without the sensitive one (quasi-identifiers exactly as read) plus a
``group`` column — as the output, and the ST — ``group``, the sensitive value, its count — beside it as
``<stem>.sensitive<ext>`` (``cli-contract.md``). The verifier re-derives each group's sensitive values from
the input rows, never from the ST.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anonstudio.core.algorithms._base import Algorithm, Result
from anonstudio.core.errors import ParameterError, PrivacyError
from anonstudio.core.params import Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table


def bucketize(sensitive_codes: np.ndarray, l: int, rng: np.random.Generator) -> np.ndarray:
    """Anatomy's group of each record (``int64[n]``), from the records' sensitive value codes.

    Xiao & Tao's group-creation step: repeatedly one record from each of the ``l`` largest buckets; then the
    residue assignment step. Within a bucket records are taken in a random order (``rng``)."""
    import numpy as np

    n = len(sensitive_codes)
    values, inverse = np.unique(sensitive_codes, return_inverse=True)
    buckets = [list(rng.permutation(np.flatnonzero(inverse == v))) for v in range(len(values))]
    groups = np.full(n, -1, dtype=np.int64)
    members: list[set[int]] = []  # sensitive value codes in each group
    g = 0
    while sum(1 for b in buckets if b) >= l:
        sizes = np.array([len(b) for b in buckets])
        largest = np.argsort(-sizes, kind="stable")[:l]
        for v in largest:
            groups[buckets[v].pop()] = g
        members.append({int(v) for v in largest})
        g += 1
    for v, bucket in enumerate(buckets):
        for record in bucket:  # the residue: at most one record per remaining bucket
            options = [i for i, held in enumerate(members) if v not in held]
            if not options:  # cannot happen when the eligibility condition holds
                raise PrivacyError("anatomy's residue assignment found no group without this sensitive value")
            target = options[int(rng.integers(len(options)))]
            groups[record] = target
            members[target].add(v)
    return groups


class Anatomy(Algorithm):
    """Anatomy of Xiao & Tao (VLDB 2006): see the module docstring for the bucketization implemented."""

    name = "anatomy"
    people_refusal = ("its groups bound a sensitive value's share among records; one person's records in one "
                      "group would count several times")
    title = "Anatomy (Xiao & Tao)"
    data_kind = "table"
    output_kind = "tables"
    reference = "X. Xiao, Y. Tao: Anatomy: simple and effective privacy preservation. VLDB 2006"
    description = ("publishes the quasi-identifiers unchanged with a group number, and each group's sensitive values "
                   "in a second table; no sensitive value is more than 1/l of a record's group")
    privacy_models = ("anatomy: every group l-diverse (no sensitive value above 1/l of its group)",)
    reported_metrics = ("groups", "group_size")
    result_view = "Anatomy"
    needs_hierarchies = False  # values are published as read (or at a level the job names)
    parameters = ParamSet((
        Param("l", "int", 5, "every group holds at least l records with l different sensitive values", low=2),
        Param("seed", "int", 1, "random seed: the order records are taken from their buckets (in-memory runs only: "
              "a job's run draws from the release key)", low=0),
    ))
    #: the picks, replayed, test guesses of who holds which sensitive value: a job draws them from the release key
    secret_draws = True

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._sensitive: str | None = None

    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None) -> Result:
        import numpy as np
        import pandas as pd

        from anonstudio.core.data import Table, value_codes
        from anonstudio.core.io._canonical import COUNT_COLUMN, GROUP_COLUMN, canonical_groups, sensitive_table

        l = self.params["l"]
        sens = data.sensitive
        if len(sens) != 1:
            raise ParameterError(f"anatomy needs exactly one sensitive column, the input has {len(sens)}",
                                 file=data.source, key="input.sensitive")
        s = sens[0]
        self._sensitive = s
        published = [c for c in data.output_frame().columns if c != s]
        for name, what in ((GROUP_COLUMN, "the group id column Anatomy adds to the QIT"),):
            if name in published:
                raise ParameterError(f"column '{name}' of the input has the name of {what}: rename the column (or "
                                     "give it the identifying role to drop it)", file=data.source, column=name)
        if s in (GROUP_COLUMN, COUNT_COLUMN):
            raise ParameterError(f"the sensitive column is named '{s}', like a column of Anatomy's sensitive table "
                                 f"({GROUP_COLUMN}, <sensitive>, {COUNT_COLUMN}): rename it", file=data.source, column=s)
        col = data.df[s]
        if col.isna().any():
            row = int(np.flatnonzero(col.isna().to_numpy())[0])
            raise ParameterError(f"row {row + 1}: the sensitive value is missing; anatomy publishes every record's "
                                 "sensitive value in its group", file=data.source, line=data.line_of(row), column=s)
        n = len(col)
        if l > n:
            raise ParameterError(f"l = {l} is larger than the number of records ({n})", file=data.source,
                                 key="algorithm.l")
        # values that read alike ('Flu', 'flu ') share a bucket: the verifier counts them as one value
        codes, _ = value_codes(col)
        if (codes < 0).any():
            row = int(np.flatnonzero(codes < 0)[0])
            raise ParameterError(f"row {row + 1}: the sensitive value is blank; anatomy publishes every record's "
                                 "sensitive value in its group", file=data.source, line=data.line_of(row), column=s)
        counts = np.bincount(codes)
        if counts.max() * l > n:
            top = col.iloc[int(np.flatnonzero(codes == int(counts.argmax()))[0])]
            raise PrivacyError(f"anatomy with l = {l} is impossible: '{top}' is {counts.max():,} of {n:,} records, more "
                               f"than 1/l", file=data.source, column=s)
        report(progress, 0.0, "bucketizing")
        groups = bucketize(codes.astype(np.int64), l, np.random.default_rng(
            self.keyed_seed if self.keyed_seed is not None else self.params["seed"]))
        # group ids 1..G in order of first appearance down the rows, the only numbering the verifier accepts: the
        # order groups were formed in (largest buckets first) would say something about their values
        ids = canonical_groups(groups)
        groups = ids - 1
        qit = data.output_frame().drop(columns=[s]).copy()
        qit[GROUP_COLUMN] = ids.astype(str)
        st = sensitive_table(ids, pd.Series(data.text_column(s), dtype=object), s)
        roles = {c: r for c, r in data.roles.items() if c in qit.columns}
        output = Table(qit, roles=roles, types={c: t for c, t in data.types.items() if c in qit.columns},
                       source=None, delimiter=data.delimiter, encoding=data.encoding, header_lines=data.header_lines,
                       missing_text={c: t for c, t in data.missing_text.items() if c in qit.columns})
        report(progress, 1.0, f"{int(groups.max()) + 1} groups")
        return Result(output=output, groups=groups, suppressed=0, side_outputs={"sensitive": st},
                      metrics={"l": l}, details={"sensitive": s})

    def privacy_model(self) -> dict[str, Any]:
        return {"model": "anatomy", "l": self.params["l"], "sensitive": self._sensitive, "group_column": "group"}

    def evaluate(self, data: Table, result: Result, hierarchies: dict, progress: ProgressCallback | None = None) -> dict:
        import numpy as np

        sizes = np.bincount(result.groups)
        return {"groups": int(len(sizes)), "group_size": {"min": int(sizes.min()), "max": int(sizes.max()),
                                                          "mean": round(float(sizes.mean()), 3)}}
