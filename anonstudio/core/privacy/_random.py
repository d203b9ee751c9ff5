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
       (a redraw may hit the old value, so fewer may differ);
    5. the records were randomized at all (:func:`_too_few_changed`): RA redraws at least one
       quasi-identifier of every record, so an output that kept (nearly) every record as it was passed 1-4
       though nothing was protected.
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
    keep_chance = 0.0
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
        keep_chance = max(keep_chance, _collision_chance(o))
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
    unchanged = int((changed == 0).sum())
    chance = _too_few_changed(n, unchanged, keep_chance)
    if chance is not None:
        problems.add(f"{n - unchanged:,} of {n:,} records differ from the input in a quasi-identifier: random "
                     "anonymization redraws at least one in every record, and here a redraw keeps the old value with a "
                     f"chance of at most {keep_chance:.3f}, so about {(1 - keep_chance) * n:,.0f} or more should "
                     f"differ (so few by chance: below {chance:.0e}). The output was not randomized",
                     kind="not randomized")
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
        records_changed=n - unchanged,
        largest_keep_chance=round(keep_chance, 6),
        most_changed_in_a_record=int(changed.max()) if n else 0,
        values_not_in_domain=int(foreign),
        changed_cells=int(changed_cells),
        violations=problems.count,
        first_violations=problems.records,
    )
    return Verification(not problems, "random anonymization", details, problems.sentences)


#: below this chance, so many unchanged records are taken as no randomization at all
UNRANDOMIZED_CHANCE = 1e-12
#: added to the estimated chance that a redraw keeps a record's value (shuffled draws, rounding)
_KEEP_SLACK = 0.02


def _collision_chance(values: np.ndarray) -> float:
    """The chance that a draw from the attribute's own values equals a record's value, over the records:
    ``sum_v p_v^2`` for the column's value frequencies ``p_v`` (Yang & Qiao 2010, Algorithm 1 draws from
    them; a uniform draw over the values has the smaller chance ``1/|domain|``)."""
    if len(values) == 0:
        return 0.0
    counts = pd.Series(values, dtype=object).value_counts(dropna=False).to_numpy(dtype=np.float64)
    p = counts / counts.sum()
    return float((p * p).sum())


def _too_few_changed(n: int, unchanged: int, keep_chance: float) -> float | None:
    """A bound on the chance that ``unchanged`` or more of ``n`` records kept every quasi-identifier, if
    each was randomized; ``None`` when that chance is not below :data:`UNRANDOMIZED_CHANCE`.

    A randomized record keeps its values only if each redraw hits its old value: at most ``keep_chance``
    (the largest collision chance of a quasi-identifier, plus a slack), whichever attributes were redrawn
    and however many. The unchanged records are then at most a binomial ``B(n, q)``, and Chernoff's bound
    ``P(X >= u) <= exp(-n KL(u/n || q))`` (exact for ``u = n``: ``q^n``) bounds the chance from above, so a
    randomized output is refused only when it is even less likely than the bound says."""
    import math

    q = min(1.0, keep_chance + _KEEP_SLACK)
    if n == 0 or q >= 1.0 or unchanged <= q * n:
        return None
    a = unchanged / n
    kl = a * math.log(a / q) + ((1 - a) * math.log((1 - a) / (1 - q)) if a < 1 else 0.0)
    bound = math.exp(-n * kl)
    return bound if bound < UNRANDOMIZED_CHANCE else None
