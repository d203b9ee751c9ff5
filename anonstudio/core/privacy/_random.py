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
    weights: str | dict[str, float] | None = None,
    draws: str = "independent",
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
       though nothing was protected. How many records a real run keeps depends on which attribute is
       redrawn: ``weights`` is the job's chance of each quasi-identifier being the one (``"entropy"``,
       Proposition 7; ``"uniform"``; or attribute = weight), the same as ``"uniform"`` for enhanced RA's
       random subsets; ``None`` (not known) takes the most repetitive attribute. ``draws`` is the job's
       ``"independent"`` or ``"shuffle"`` (a shuffle also leaves some cells where they were).
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
    collisions: dict[str, tuple[float, float]] = {}  # attribute -> (collision chance, entropy)
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
        collisions[q] = _collision_and_entropy(o)
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
    keep_chance = _keep_chance(collisions, weights, draws, n)
    chance = _too_few_changed(n, unchanged, keep_chance)
    if chance is not None:
        problems.add(f"{n - unchanged:,} of {n:,} records differ from the input in a quasi-identifier: random "
                     "anonymization redraws at least one in every record, and here a record keeps its values with "
                     f"a chance of at most {keep_chance:.3f}, so about {(1 - keep_chance) * n:,.0f} or more should "
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
        keep_chance_at_most=round(keep_chance, 6),
        most_changed_in_a_record=int(changed.max()) if n else 0,
        values_not_in_domain=int(foreign),
        changed_cells=int(changed_cells),
        violations=problems.count,
        first_violations=problems.records,
    )
    return Verification(not problems, "random anonymization", details, problems.sentences)


#: below this chance, so many unchanged records are taken as no randomization at all
UNRANDOMIZED_CHANCE = 1e-12
#: added to the chance that a record keeps its values (rounding, frequencies estimated from the input)
_KEEP_SLACK = 0.02
#: a shuffle permutes the redrawn cells of a column within blocks of rows (``ra.BLOCK_ROWS``, 131,072; a
#: test keeps this no larger): counted in blocks of this many rows, more blocks than there are, to be safe
_SHUFFLE_BLOCK_ROWS = 1 << 16


def _collision_and_entropy(values: np.ndarray) -> tuple[float, float]:
    """The chance that a draw from the attribute's own values equals a record's value, over the records —
    ``sum_v p_v^2`` for the value frequencies ``p_v`` (Yang & Qiao 2010, Algorithm 1 draws from them; a
    uniform draw over the values has the smaller chance ``1/|domain|``) — and the entropy ``-sum p ln p``
    (§4.1, for Proposition 7's weights)."""
    if len(values) == 0:
        return 0.0, 0.0
    counts = pd.Series(values, dtype=object).value_counts(dropna=False).to_numpy(dtype=np.float64)
    p = counts / counts.sum()
    return float((p * p).sum()), float(-(p * np.log(p)).sum())


def _keep_chance(collisions: dict[str, tuple[float, float]], weights, draws: str, n: int) -> float:
    """An upper bound on the chance that a randomized record keeps every quasi-identifier value, slack
    included.

    One attribute ``j`` redrawn with chance ``w_j`` keeps the value with chance ``c_j`` (its collision
    chance): ``sum_j w_j c_j``. Enhanced RA redraws a uniformly random subset; the product of its ``c_j`` is
    at most the ``c_j`` of one member picked at random, so the uniform sum bounds it too. Unknown weights:
    the largest ``c_j``. A shuffle instead of fresh draws keeps, per column and block of rows, the cells its
    random permutation leaves in place — one on average — beyond the equal values it swaps: that is added
    as a count of records, with room for a Poisson tail (below 1e-13)."""
    if not collisions:
        return 1.0
    names = list(collisions)
    c = np.array([collisions[a][0] for a in names])
    h = np.array([collisions[a][1] for a in names])
    if weights == "entropy":
        w = np.exp(h)
    elif weights == "uniform":
        w = np.ones(len(names))
    elif isinstance(weights, dict):
        w = np.array([max(0.0, float(weights.get(a, 0.0))) for a in names])
    else:
        w = None
    q = float(c.max()) if w is None or w.sum() <= 0 else float((w / w.sum() * c).sum())
    q += _KEEP_SLACK
    if draws == "shuffle" and n:
        in_place = len(names) * -(-n // _SHUFFLE_BLOCK_ROWS)
        q += (in_place + 8 * in_place ** 0.5 + 16) / n
    return min(1.0, q)


def _too_few_changed(n: int, unchanged: int, keep_chance: float) -> float | None:
    """A bound on the chance that ``unchanged`` or more of ``n`` records kept every quasi-identifier, if
    each was randomized; ``None`` when that chance is not below :data:`UNRANDOMIZED_CHANCE`.

    Each randomized record keeps its values with a chance of at most ``keep_chance``
    (:func:`_keep_chance`): the unchanged records are then at most a binomial ``B(n, q)``, and Chernoff's
    bound ``P(X >= u) <= exp(-n KL(u/n || q))`` (exact for ``u = n``: ``q^n``) bounds the chance from above,
    so a randomized output is refused only when it is even less likely than the bound says."""
    import math

    q = keep_chance
    if n == 0 or q >= 1.0 or unchanged <= q * n:
        return None
    a = unchanged / n
    kl = a * math.log(a / q) + ((1 - a) * math.log((1 - a) / (1 - q)) if a < 1 else 0.0)
    bound = math.exp(-n * kl)
    return bound if bound < UNRANDOMIZED_CHANCE else None
