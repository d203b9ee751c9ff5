"""Independent check of Anatomy's two published tables (Xiao & Tao, VLDB 2006): the quasi-identifier table
(QIT) and the sensitive table (ST)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import Table
from anonstudio.core.models import ClassStats, FrequencyLDiversity
from anonstudio.core.privacy._tables import _cell_problems, _check_int, _row_ref, spelled_text
from anonstudio.core.privacy._verification import (NA_TOKEN, Problems, Verification, as_coded, as_text, frame_of,
                                                   known_columns, repeated_columns, show)

#: The ST's count column (``group``, the sensitive column, ``count``: ``cli-contract.md``).
COUNT = "count"


def verify_anatomy(
    original: Table,
    output: pd.DataFrame | Table,
    l: int,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: str | None = None,
    group_column: str = "group",
    sensitive_table: pd.DataFrame | Table | None = None,
) -> Verification:
    """Check an anatomized quasi-identifier table (QIT) of Xiao & Tao's Anatomy (VLDB 2006), and with
    ``sensitive_table`` the sensitive table (ST) published beside it.

    The QIT keeps the original quasi-identifier values and adds a group id; the sensitive values are
    published separately per group; every other column of the input is published unchanged (as spelled), no
    column is added. The check re-derives each group's sensitive values from the *original*
    rows and requires them l-diverse in Anatomy's sense: no value accounts for more than ``1/l`` of a group
    (so a group has ≥ ``l`` records and ≥ ``l`` distinct values; values that read alike, ``'Flu'`` and
    ``'flu '``, are one value: :func:`~anonstudio.core.data.read_alike`). Also: same row count, quasi-identifier
    cells unchanged, the sensitive and identifying columns absent from the QIT.

    The ST (Xiao & Tao, Definition 3: one row per group and sensitive value, with its count) is published
    too, so it is checked too — against those re-derived values, never taken on trust: exactly the columns
    ``group_column``, the sensitive column and ``count``, each (group, value) once, and every group's values
    and counts those of the group's records in the input. (An ST that put one value on a whole group, or
    published more columns, would disclose what the QIT's l-diverse groups hide.)
    """
    l = _check_int("l", l, 2)
    pub = frame_of(output, "a table")
    qis = list(quasi_identifiers) if quasi_identifiers is not None else list(original.quasi_identifiers)
    sens = sensitive or (original.sensitive[0] if original.sensitive else None)
    src = original.df
    known_columns(src, qis, "quasi-identifier")
    known_columns(src, [sens] if sens is not None else [], "sensitive column")
    n = len(src)
    problems = Problems()
    details: dict[str, Any] = {"l": l, "quasi_identifiers": qis, "sensitive": sens, "records": n,
                               "sensitive_table_checked": sensitive_table is not None}
    if sens is None:
        problems.add("anatomy needs a sensitive attribute")
    repeated_columns(problems, pub, "the QIT")
    if group_column not in pub.columns:
        problems.add(f"the QIT has no '{group_column}' column", column=group_column, kind="missing column")
    if len(pub) != n:
        problems.add(f"the QIT has {len(pub)} rows, the input {n}: rows were added or dropped")
    if problems:
        details.update(violations=problems.count, first_violations=problems.records)
        return Verification(False, "anatomy", details, problems.sentences)
    for c in [sens, *original.identifying]:
        if c in pub.columns and c not in qis:
            problems.add(f"column '{c}' must not be in the QIT", column=c, kind="published column")
    for q in qis:
        if q not in pub.columns:
            problems.add(f"quasi-identifier '{q}' is missing from the QIT", column=q, kind="missing column")
            continue
        o, p = spelled_text(original, q), spelled_text(output, q)  # a missing cell as spelled
        _cell_problems(problems, original, q, np.flatnonzero(o != p), o, p, "changed cell",
                       lambda i: f" was changed from {show(o[i])} to {show(p[i])}")
    # every other column of the input is published as it is (as spelled), and nothing else is published
    for c in pub.columns:
        if c not in src.columns and c != group_column:
            problems.add(f"the QIT has a column '{c}' the input does not have", column=c, kind="extra column")
    hidden = {sens, group_column, *qis, *original.identifying}
    for c in [c for c in src.columns if c not in hidden]:
        if c not in pub.columns:
            problems.add(f"column '{c}' is missing from the QIT", column=c, kind="missing column")
            continue
        o, p = spelled_text(original, c), spelled_text(output, c)
        _cell_problems(problems, original, c, np.flatnonzero(o != p), o, p, "changed cell",
                       lambda i: f" (not a quasi-identifier) was changed from {show(o[i])} to {show(p[i])}")
    group_cells = as_coded(pub[group_column])
    groups = pd.factorize(group_cells.codes)[0]  # numbered by first appearance
    vals = as_coded(src[sens])
    alike = vals.read_alike(keep=NA_TOKEN)  # 'Flu' and 'flu ' are one value to a reader of the ST
    counts = pd.DataFrame({"g": groups, "v": alike.codes}).groupby(["g", "v"]).size()
    sizes = np.bincount(groups, minlength=int(groups.max()) + 1 if len(groups) else 0)
    stats = ClassStats(sizes, counts.index.get_level_values(0).to_numpy(), counts.to_numpy(dtype=float))
    model = FrequencyLDiversity(l=l)  # the model judges every group
    bad = model.failing(stats)
    for g in bad[:10]:
        first = int(np.flatnonzero(groups == g)[0])
        problems.add(
            f"{_row_ref(original, first)}: its group ({int(sizes[g])} records) has {model.measure(stats, int(g))}",
            row=first + 1,
            kind="group not l-diverse",
        )
    problems.count += max(0, len(bad) - 10)
    if sensitive_table is not None:
        expected = pd.DataFrame({"g": group_cells.array(), "v": vals.array()}).groupby(["g", "v"]).size()
        _sensitive_table_problems(problems, frame_of(sensitive_table, "a table"), expected, group_column, sens)
    details.update(
        groups=int(len(sizes)),
        smallest_group=int(sizes.min()) if len(sizes) else 0,
        violations=problems.count,
        first_violations=problems.records,
    )
    return Verification(not problems, "anatomy", details, problems.sentences)


def _sensitive_table_problems(problems: Problems, st: pd.DataFrame, expected: pd.Series, group_column: str,
                              sens: str) -> None:
    """The ST against ``expected`` (count per (group text, value text) of the input's records): same
    columns, each pair once, same pairs, same counts — cells compared as text, counts as written."""
    wanted = [group_column, sens, COUNT]
    if repeated_columns(problems, st, "the sensitive table"):
        return
    extra = [c for c in st.columns if c not in wanted]
    missing = [c for c in wanted if c not in st.columns]
    for c in extra:
        problems.add(f"the sensitive table has a column '{c}': it holds only {', '.join(wanted)}", column=c,
                     kind="sensitive table")
    for c in missing:
        problems.add(f"the sensitive table has no '{c}' column", column=c, kind="sensitive table")
    if extra or missing:
        return
    published = pd.DataFrame({"g": as_text(st[group_column]), "v": as_text(st[sens]), "c": as_text(st[COUNT])})
    twice = published.duplicated(["g", "v"], keep="first").to_numpy()
    for i in np.flatnonzero(twice)[:5].tolist():
        problems.add(f"the sensitive table lists group {show(published['g'].iloc[i])}, value "
                     f"{show(published['v'].iloc[i])} twice (row {i + 1})", row=i + 1, kind="sensitive table")
    problems.count += max(0, int(twice.sum()) - 5)
    published = published[~twice]
    truth = expected.rename("n").reset_index()
    joined = published.merge(truth, on=["g", "v"], how="outer", indicator=True)
    written = joined["c"].to_numpy(dtype=object)
    true_n = joined["n"].to_numpy(dtype=float)
    wrong = (joined["_merge"] != "both").to_numpy() | np.array(
        [w != str(int(t)) if t == t else True for w, t in zip(written, true_n)], dtype=bool)
    for i in np.flatnonzero(wrong)[:10].tolist():
        g, v, side = show(joined["g"].iloc[i]), show(joined["v"].iloc[i]), joined["_merge"].iloc[i]
        if side == "left_only":
            said = f"lists group {g}, value {v} ({show(written[i])}), which no record of that group holds"
        elif side == "right_only":
            said = f"omits group {g}, value {v}, which {int(true_n[i])} record(s) of that group hold"
        else:
            said = f"gives group {g}, value {v} the count {show(written[i])}; the group holds it {int(true_n[i])} time(s)"
        problems.add(f"the sensitive table {said}", kind="sensitive table")
    problems.count += max(0, int(wrong.sum()) - 10)
