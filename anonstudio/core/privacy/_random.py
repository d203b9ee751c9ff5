"""Independent check of random anonymization (Yang & Qiao 2010, paper 001).

RA publishes every record with at most one (enhanced RA: at most ``k``) quasi-identifier value replaced by
a draw from that attribute's own values; it promises probabilistic anonymity (Eq. 1), not equivalence
classes. The verifier checks, from the input, the output and the job only (never the method's bookkeeping),
what that model promises, and that the changed cells look drawn at random as the job says (statistical
tests, :mod:`._randomness`) — and says "random anonymization", never "k-anonymity".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import Role, Table
from anonstudio.core.privacy import _randomness as stats
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
    6. the cells were drawn at random, not mapped (:func:`_randomness`, :mod:`._randomness`): per quasi-
       identifier (a) the share of changed cells fits the job's chance of redrawing it and of a redraw hitting
       the old value (not made when ``weights`` is ``None``), (b) among the changed cells the new value is
       independent of the old one; with ``draws = "shuffle"`` also the new values of each block's changed
       cells are a rearrangement of their old values. A genuine run fails 6 with a chance of at most
       ``_randomness.ALPHA`` (1e-9). Every sex flipped, every changed age moved to the next value or a fixed
       permutation of the values passed 1-5.
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
    coded: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # attribute -> (old, new codes, values)
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
        # one coding of both: the input's values first (codes 0..D-1), so a code >= D is a value it lacks
        both, values = pd.factorize(np.concatenate([o, p]))
        domain_size = int(both[:n].max()) + 1 if n else 0
        old_codes, new_codes = both[:n].astype(np.int64), both[n:].astype(np.int64)
        new_codes[new_codes >= domain_size] = -1
        coded[q] = (old_codes, new_codes, np.asarray(values[:domain_size], dtype=object))
        collisions[q] = _collision_and_entropy(old_codes)
        outside = np.flatnonzero(new_codes < 0)
        foreign += len(outside)
        for i in outside[:10]:
            problems.add(f"{_row_ref(original, int(i))}, column '{q}': {show(p[i])} is not a value of '{q}' in the "
                         "input: random anonymization draws only the attribute's own values",
                         row=int(i) + 1, column=q, kind="value not in the domain")
        problems.count += max(0, len(outside) - 10)
        changed += (both[:n] != both[n:]).astype(np.int64)
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
    randomness = _randomness(problems, coded, collisions, weights, max_changed, draws, n)
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
        randomness=randomness,
        violations=problems.count,
        first_violations=problems.records,
    )
    return Verification(not problems, "random anonymization", details, problems.sentences)


def _randomness(problems: Problems, coded: dict, collisions: dict, weights, max_changed: int, draws: str,
                n: int) -> dict[str, Any]:
    """The statistical checks of :mod:`._randomness` on every quasi-identifier: (a) its share of changed
    cells fits the job's chance of redrawing it, (b) among its changed cells the new value is independent of
    the old one (for ``draws = "shuffle"`` also: the new values of the changed cells are a rearrangement of
    their old values). Each test refuses at ``ALPHA / (2 m)``: a genuine run is refused with a chance of at
    most ``ALPHA`` in all. Returns the figures for the verdict's details."""
    import math

    shuffle = draws == "shuffle"
    names = list(coded)
    tests = 2 * len(names)
    limit = stats.ALPHA / max(tests, 1)
    log_limit = math.log(limit)
    chances = stats.redraw_chances({q: collisions[q][1] for q in names}, weights, max_changed)
    out: dict[str, Any] = {"false_alarm_rate": stats.ALPHA, "limit_per_test": limit, "draws": draws,
                           "share_test": "made" if chances is not None else
                           "not made: the job gives no chance of redrawing each quasi-identifier (weights)",
                           "attributes": {}}
    if n < 2:
        return out
    found: list[tuple[float, str, dict]] = []  # (log p, sentence, record): the most significant told first
    for q in names:
        old, new, values = coded[q]
        moved = old != new
        row: dict[str, Any] = {"changed": int(moved.sum())}
        out["attributes"][q] = row
        if chances is not None:
            share = stats.share_test(old, moved, chances[q], shuffle)
            row.update(expected_changed=round(share.expected, 3), share_log10_p=round(share.log_p / math.log(10), 3))
            if share.log_p < log_limit:
                sentence = (
                    f"quasi-identifier '{q}': {share.changed:,} of {n:,} cells ({share.changed / n:.1%}) differ from "
                    f"the input, where the job's random redraws change about {share.expected:,.0f} "
                    f"({share.expected / n:.1%}: redrawn in {share.redraw_chance:.1%} of records, and a redraw keeps "
                    f"the old value with a chance of {share.hit_chance:.3f}); so far off by chance: "
                    f"{stats.format_p(share.log_p)} (limit {limit:.1e}). The cells were not redrawn as the job says")
                found.append((share.log_p, sentence, {"column": q, "kind": "share of changed cells"}))
        if shuffle:
            broken = stats.rearranged(old, np.where(new >= 0, new, 0), moved & (new >= 0), len(values))
            for code, before, after in broken[:3]:
                sentence = (
                    f"quasi-identifier '{q}' (draws = shuffle): among its changed cells {show(values[code])} was the "
                    f"old value of {before:,} and is the new value of {after:,}; a shuffle only exchanges the values "
                    "of the chosen cells, so each value must leave as many cells as it enters. The values were not "
                    "shuffled")
                found.append((-math.inf, sentence, {"column": q, "kind": "not a shuffle"}))
            problems.count += max(0, len(broken) - 3)
            if broken:
                row["independence_log10_p"] = None  # the test's null (a rearrangement) does not hold
                continue
        counts = np.bincount(old, minlength=len(values)).astype(np.float64)
        test = stats.independence_test(old, new, moved, counts / n, shuffle)
        row["independence_log10_p"] = round(test.log_p / math.log(10), 3)
        if test.log_p < log_limit and test.cell is not None:
            a, b, count, total, expected = test.cell
            chance = "a random shuffle, independent of the old value, gives" if shuffle else \
                "random draws, independent of the old value, give"
            sentence = (
                f"quasi-identifier '{q}': among its {test.cells:,} changed cells the new value depends on the old "
                f"one: of the {total:,} that were {show(values[a])}, {count:,} became {show(values[b])}, where "
                f"{chance} about {expected:,.1f}; so far off by chance: {stats.format_p(test.log_p)} (limit "
                f"{limit:.1e}). The new values were not drawn at random")
            found.append((test.log_p, sentence, {"column": q, "kind": "new value depends on the old"}))
    for _, sentence, record in sorted(found, key=lambda f: f[0]):
        problems.add(sentence, **record)
    return out


#: below this chance, so many unchanged records are taken as no randomization at all
UNRANDOMIZED_CHANCE = 1e-12
#: added to the chance that a record keeps its values (rounding, frequencies estimated from the input)
_KEEP_SLACK = 0.02
#: a shuffle permutes the redrawn cells of a column within blocks of rows (``ra.BLOCK_ROWS``, 131,072; a
#: test keeps this no larger): counted in blocks of this many rows, more blocks than there are, to be safe
_SHUFFLE_BLOCK_ROWS = 1 << 16


def _collision_and_entropy(values: np.ndarray) -> tuple[float, float]:
    """From a column's cells (or their integer value codes): the chance that a draw from the attribute's own
    values equals a record's value, over the records —
    ``sum_v p_v^2`` for the value frequencies ``p_v`` (Yang & Qiao 2010, Algorithm 1 draws from them; a
    uniform draw over the values has the smaller chance ``1/|domain|``) — and the entropy ``-sum p ln p``
    (§4.1, for Proposition 7's weights)."""
    if len(values) == 0:
        return 0.0, 0.0
    if np.issubdtype(np.asarray(values).dtype, np.integer):  # value codes
        counts = np.bincount(values).astype(np.float64)
        counts = counts[counts > 0]
    else:
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
