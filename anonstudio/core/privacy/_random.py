"""Independent check of random anonymization (Yang & Qiao 2010, paper 001).

RA publishes every record with at most one (enhanced RA: at most ``k``) quasi-identifier value replaced by
a draw from that attribute's own values; it promises probabilistic anonymity (Eq. 1), not equivalence
classes. The verifier checks, from the input and the output only, what that model promises — and says
"random anonymization", never "k-anonymity".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import Role, Table
from anonstudio.core.privacy._tables import _check_int, _row_ref, spelled_text
from anonstudio.core.privacy._verification import frame_of
from anonstudio.core.privacy._verification import (
    Problems,
    Verification,
    as_text,
    known_columns,
    repeated_columns,
    show,
)


def verify_random_anonymization(
    original: Table,
    output: pd.DataFrame | Table,
    hierarchies: dict | None,
    max_changed: int,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    levels: dict[str, int] | None = None,
) -> Verification:
    """Check a randomly anonymized table against its input.

    1. same rows (count and order), the identifying columns dropped, every other column present;
    2. columns that are not quasi-identifiers unchanged cell by cell, as spelled;
    3. every quasi-identifier value is one the attribute has in the input (at the job's hierarchy
       ``levels``, where named): RA adds no value;
    4. at most ``max_changed`` quasi-identifier cells of a record differ from the record's own
       (a redraw may hit the old value, so fewer may differ).
    """
    max_changed = _check_int("max_changed", max_changed, 0)
    levels = levels or {}
    hierarchies = hierarchies or {}
    pub = frame_of(output, "a table")
    src = original.df
    qis = list(quasi_identifiers) if quasi_identifiers is not None else list(original.quasi_identifiers)
    known_columns(src, qis, "quasi-identifier")
    n = len(src)
    problems = Problems()
    details: dict[str, Any] = {"max_changed": max_changed, "quasi_identifiers": qis, "records": n, "levels": levels}
    if repeated_columns(problems, pub) or len(pub) != n:
        if len(pub) != n:
            problems.add(f"the output has {len(pub)} rows, the input {n}: rows were added or dropped")
        details.update(violations=problems.count, first_violations=problems.records)
        return Verification(False, "random anonymization", details, problems.sentences)
    identifying = [c for c in src.columns if original.role(c) is Role.IDENTIFYING and c not in qis]
    for c in identifying:
        if c in pub.columns:
            problems.add(f"identifying column '{c}' is still in the output", column=c, kind="identifying column")
    for c in src.columns:
        if c not in identifying and c not in pub.columns:
            problems.add(f"column '{c}' is missing from the output", column=c, kind="missing column")
    for c in pub.columns:
        if c not in src.columns:
            problems.add(f"the output has a column '{c}' the input does not have", column=c, kind="extra column")
    changed = np.zeros(n, dtype=np.int64)
    foreign = 0
    for q in [q for q in qis if q in pub.columns]:
        o = as_text(src[q])
        level = levels.get(q, 0)
        if level:
            h = hierarchies.get(q)
            if h is None:
                problems.add(f"'{q}' is published at level {level} but has no hierarchy to check it", column=q)
                continue
            o = np.array([h.generalize(v, level) if v in h.leaf_index else v for v in o], dtype=object)
        p = as_text(pub[q])
        domain = set(o.tolist())
        outside = np.flatnonzero(~np.isin(p, list(domain)))
        foreign += len(outside)
        for i in outside[:10]:
            problems.add(f"{_row_ref(original, int(i))}, column '{q}': {show(p[i])} is not a value of '{q}' in the "
                         "input: random anonymization draws only the attribute's own values",
                         row=int(i) + 1, column=q, kind="value not in the domain")
        problems.count += max(0, len(outside) - 10)
        changed += (o != p).astype(np.int64)
    over = np.flatnonzero(changed > max_changed)
    for i in over[:10]:
        problems.add(f"{_row_ref(original, int(i))}: {int(changed[i])} quasi-identifier values differ from the "
                     f"original, more than the {max_changed} the method may redraw", row=int(i) + 1,
                     kind="too many changed")
    problems.count += max(0, len(over) - 10)
    changed_cells = 0
    for c in src.columns:
        if c in qis or c in identifying or c not in pub.columns:
            continue
        a, b = spelled_text(original, c), spelled_text(output if isinstance(output, Table) else pub, c)
        bad = np.flatnonzero(a != b)
        changed_cells += len(bad)
        for i in bad[:10]:
            problems.add(f"{_row_ref(original, int(i))}, column '{c}' (not a quasi-identifier) was changed from "
                         f"{show(a[i])} to {show(b[i])}", row=int(i) + 1, column=c, kind="changed cell")
        problems.count += max(0, len(bad) - 10)
    details.update(
        records_changed=int((changed > 0).sum()),
        most_changed_in_a_record=int(changed.max()) if n else 0,
        values_not_in_domain=int(foreign),
        changed_cells=int(changed_cells),
        violations=problems.count,
        first_violations=problems.records,
    )
    return Verification(not problems, "random anonymization", details, problems.sentences)
