"""The near-match attack on a random-anonymization release (issue 39, "no green release that discloses a person").

RA (Yang & Qiao 2010, paper 001, Algorithms 1 and 2) redraws at most ``m`` quasi-identifiers of each record
(``ra``: one; ``ra-enhanced``: ``attributes_per_record``) and publishes the others as they are. An attacker who
knows a person's quasi-identifier values therefore looks for the published records within Hamming distance ``m``
of them: the person's own record is always among them. When it is the only one, the person is singled out; when
every candidate carries the same sensitive value, that value is certain. RA's probabilistic anonymity (Eq. 1)
promises neither away: this module measures both on the release itself.

Counting without all pairs. For a target tuple ``t`` let ``N(S)`` be the number of published records that agree
with ``t`` on every position outside ``S`` (positions in ``S`` masked). A record whose differing positions are
exactly ``D`` is counted in ``N(S)`` for every ``S ⊇ D``; inclusion–exclusion gives the records within distance
``m`` as ``Σ_{|S| ≤ m} c(|S|) N(S)`` with ``c(s) = Σ_{i=0}^{m-s} (-1)^i C(q-s, i) = (-1)^{m-s} C(q-s-1, m-s)``
(``q`` quasi-identifiers; for ``m = 1``: ``exact(t) + Σ_j (N({j}) − exact(t))``). Each ``N(S)`` is one grouping
of the published and target rows together by their masked tuples (integer codes, one ``pandas.factorize`` per
combined column), so the cost is ``O(n · q)`` per subset, ``Σ_{s ≤ m} C(q, s)`` subsets — linear in the records.
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.progress import checkpoint

#: the most position subsets (Σ_{s ≤ m} C(q, s)) the count takes: 16 quasi-identifiers at m = 2 are 137;
#: beyond it the figure is not computed and the report says so
MAX_SUBSETS = 200
MISSING = "\x00NA"


def subsets_needed(q: int, m: int) -> int:
    """How many position subsets the inclusion–exclusion takes: ``Σ_{s ≤ m} C(q, s)``."""
    return sum(comb(q, s) for s in range(min(m, q) + 1))


def _codes(original: pd.Series, published: pd.Series) -> np.ndarray:
    """One column of the targets (``original``) then of the published records, as shared dense codes: cells equal
    when they read the same text (a missing cell a value of its own, equal to every other missing cell). Each side
    is factorized as it is; only the distinct values become text."""
    parts: list[np.ndarray] = []
    texts: list[str] = []
    for side in (original, published):
        codes, uniques = pd.factorize(side, use_na_sentinel=False)
        parts.append(np.asarray(codes, dtype=np.int64) + len(texts))
        texts += [MISSING if pd.isna(v) else str(v) for v in np.asarray(uniques, dtype=object).tolist()]
    merged = np.asarray(pd.factorize(np.array(texts, dtype=object))[0], dtype=np.int64)
    codes_of: np.ndarray = merged[np.concatenate(parts)]
    return codes_of


def _combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dense codes of the pairs ``(a, b)`` (both dense codes of fewer than 2**31 rows)."""
    return np.asarray(pd.factorize(a * (int(b.max()) + 1 if len(b) else 1) + b)[0], dtype=np.int64)


def within_counts(targets: np.ndarray, published: np.ndarray, m: int,
                  extra: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Per target row, the number of published rows within Hamming distance ``m`` of it (``targets``:
    ``int[n_t, q]``, ``published``: ``int[n_p, q]``, codes shared column by column), and with ``extra`` (``int[n_t +
    n_p]``, targets first: a further column that must be equal, not counted in the distance — the sensitive value)
    the number of those that also share the target's ``extra`` (else ``None``): one pass over the subsets."""
    n_t, q = targets.shape
    codes = np.concatenate([targets, published], axis=0)
    rows = len(codes)
    zeros = np.zeros(rows, dtype=np.int64)
    prefix = [zeros]  # prefix[a]: key of positions 0..a-1
    for j in range(q):
        prefix.append(_combine(prefix[-1], codes[:, j]))
    suffix = [zeros] * (q + 1)  # suffix[b]: key of positions b..q-1
    for j in range(q - 1, -1, -1):
        suffix[j] = _combine(codes[:, j], suffix[j + 1])
    total = np.zeros(n_t, dtype=np.int64)
    same = np.zeros(n_t, dtype=np.int64) if extra is not None else None
    for s in range(min(m, q) + 1):
        coefficient = (-1) ** (m - s) * comb(q - s - 1, m - s) if s < q else 1
        for subset in combinations(range(q), s):
            if s == 0:
                key = prefix[q]
            else:
                key = prefix[subset[0]]
                for j in range(subset[0] + 1, subset[-1]):
                    if j not in subset:
                        key = _combine(key, codes[:, j])
                key = _combine(key, suffix[subset[-1] + 1])
            counts = np.bincount(key[n_t:], minlength=int(key.max()) + 1)
            total += coefficient * counts[key[:n_t]]
            if same is not None and extra is not None:
                key = _combine(key, extra)
                counts = np.bincount(key[n_t:], minlength=int(key.max()) + 1)
                same += coefficient * counts[key[:n_t]]
            checkpoint()
    return total, same


def singled_out(original: pd.DataFrame, published: pd.DataFrame, qis: list[str], m: int,
                sensitive: list[str] | None = None) -> dict[str, Any]:
    """The near-match attack on a release whose row ``i`` is the release of input row ``i`` (``original``: the
    input's quasi-identifiers as the method publishes them, e.g. at the job's hierarchy level; ``published``: the
    output; ``m``: how many quasi-identifiers of a record may differ). Returns ``records``; ``singled_out``: records
    with exactly one published record within ``m`` changes of their true values; ``singled_out_correct``: of those,
    the ones where it is their own; ``sensitive_certain``: records whose own sensitive value every published record
    within ``m`` changes carries (and at least one does); ``share``: ``singled_out_correct / records``. When the count
    would take more than :data:`MAX_SUBSETS` subsets, ``computed`` is False and ``reason`` says why."""
    n, q = len(original), len(qis)
    out: dict[str, Any] = {"max_changed": int(m), "records": int(n)}
    needed = subsets_needed(q, m)
    if needed > MAX_SUBSETS:
        out.update(computed=False, reason=f"{q} quasi-identifiers at {m} changes per record need {needed} groupings "
                                          f"(more than {MAX_SUBSETS}): not computed")
        return out
    if n == 0 or q == 0:
        out.update(computed=True, singled_out=0, singled_out_correct=0, sensitive_certain=0, share=0.0)
        return out
    coded = np.stack([_codes(original[c], published[c]) for c in qis], axis=1)
    targets, pub = coded[:n], coded[n:]
    extra = None
    if sensitive:
        extra = np.zeros(2 * n, dtype=np.int64)
        for c in sensitive:  # the target's own sensitive value (input), the published records' (output)
            extra = _combine(extra, _codes(original[c], published[c]))
    count, same = within_counts(targets, pub, m, extra)
    own = (targets != pub).sum(axis=1) <= m  # the person's own record is a candidate
    single = count == 1
    out.update(computed=True, singled_out=int(single.sum()), singled_out_correct=int((single & own).sum()))
    if same is not None:
        out["sensitive_certain"] = int(((count >= 1) & (same == count)).sum())
    else:
        out["sensitive_certain"] = None
    out["share"] = round(out["singled_out_correct"] / n, 6)
    return out


def brute_force(original: pd.DataFrame, published: pd.DataFrame, qis: list[str], m: int,
                sensitive: list[str] | None = None) -> dict[str, int]:
    """The same figures from all pairs (``O(n²)``; for tests on small tables)."""
    n = len(original)
    coded = np.stack([_codes(original[c], published[c]) for c in qis], axis=1)
    targets, pub = coded[:n], coded[n:]
    sens = None
    if sensitive:
        sens = np.zeros(2 * n, dtype=np.int64)
        for c in sensitive:
            sens = _combine(sens, _codes(original[c], published[c]))
    single = correct = certain = 0
    for i in range(n):
        near = np.flatnonzero((pub != targets[i]).sum(axis=1) <= m)
        if len(near) == 1:
            single += 1
            correct += int(near[0] == i)
        if sens is not None and len(near) and (sens[n + near] == sens[i]).all():
            certain += 1
    return {"singled_out": single, "singled_out_correct": correct, "sensitive_certain": certain}
