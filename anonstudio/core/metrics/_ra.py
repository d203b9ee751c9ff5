"""Privacy and utility measures of random anonymization (Yang & Qiao, ESWA 2010, paper 001).

- :func:`attribute_entropy` — ``Entropy(Q_i) = -Σ_j Freq(c_ij) ln Freq(c_ij)`` (natural log, §4.1).
- :func:`probabilistic_anonymity` — Eq. 1: ``ln Pa(D') = Σ_i p_i (-ln p_i + Entropy(Q_i))`` for the attribute
  choice probabilities ``p`` of Algorithm 1.
- :func:`max_probabilistic_anonymity` — Proposition 7: Pa is largest at ``p_i ∝ e^{Entropy(Q_i)}``, where
  ``ln Pa = ln Σ_i e^{Entropy(Q_i)}``, i.e. ``Pa = Σ_i Diversity_i``.
- :func:`uniform_anonymity_estimate` — Eq. 3: with ``p_i = 1/m``, ``Pa = m (Π_i Diversity_i)^{1/m}``.
- :func:`entropy_weights` — the optimal ``p`` of Proposition 7.
- :func:`total_variation` — half the L1 distance between two marginal distributions (how far RA moved a
  column's distribution; Algorithm 1 draws from the column's own distribution, so it stays close).

They take plain counts or frequencies: metrics measure outputs, they never run a method.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd


def frequencies(column: pd.Series) -> np.ndarray:
    """The relative frequency of each value of a column (missing cells count as one value)."""
    counts = column.astype(object).where(column.notna(), "\x00NA").value_counts(sort=False).to_numpy(dtype=float)
    return counts / counts.sum() if counts.sum() else counts


def attribute_entropy(freq: np.ndarray) -> float:
    """``-Σ f ln f`` over the value frequencies of one attribute (§4.1)."""
    f = np.asarray(freq, dtype=float)
    f = f[f > 0]
    return float(-(f * np.log(f)).sum())


def probabilistic_anonymity(weights: Sequence[float], entropies: Sequence[float]) -> float:
    """Pa(D') of Eq. 1 for attribute choice probabilities ``weights`` (summing to 1)."""
    p = np.asarray(weights, dtype=float)
    h = np.asarray(entropies, dtype=float)
    used = p > 0
    return float(np.exp((p[used] * (-np.log(p[used]) + h[used])).sum()))


def max_probabilistic_anonymity(entropies: Sequence[float]) -> float:
    """Proposition 7's maximum of Pa: ``Σ_i e^{Entropy(Q_i)}``."""
    return float(np.exp(np.asarray(entropies, dtype=float)).sum())


def entropy_weights(entropies: Sequence[float]) -> np.ndarray:
    """``p_i = e^{Entropy(Q_i)} / Σ_j e^{Entropy(Q_j)}`` (Proposition 7)."""
    e = np.exp(np.asarray(entropies, dtype=float))
    return e / e.sum()


def uniform_anonymity_estimate(entropies: Sequence[float]) -> float:
    """Eq. 3: ``Pa = m (Π_i Diversity_i)^{1/m}`` with ``p_i = 1/m``."""
    h = np.asarray(entropies, dtype=float)
    return float(len(h) * np.exp(h.mean())) if len(h) else 0.0


def total_variation(before: pd.Series, after: pd.Series) -> float:
    """Total-variation distance between the value distributions of two columns (0: the same marginal)."""
    a = before.astype(object).where(before.notna(), "\x00NA").value_counts(normalize=True)
    b = after.astype(object).where(after.notna(), "\x00NA").value_counts(normalize=True)
    both = a.index.union(b.index)
    return float(0.5 * (a.reindex(both, fill_value=0) - b.reindex(both, fill_value=0)).abs().sum())


def _supports(frame: pd.DataFrame, columns: list[str]) -> pd.Series:
    """Support (share of records) of each value combination of ``columns``, indexed by the combination."""
    keys = frame[columns].astype(object).where(frame[columns].notna(), "\x00NA")
    return keys.value_counts(normalize=True, sort=False)


def breach_measures(original: pd.DataFrame, quasi_identifiers: Sequence[str], published: Sequence[tuple],
                    ) -> list[dict]:
    """For each published QI combination ``q'`` (a tuple in ``quasi_identifiers`` order), with uniform
    attribute weights as §4.2.2 assumes:

    - ``c_amplification`` — §4.2.2's ``c_{q'} = max_q [supp(q') Σ_i P(Q_i = q'_i)] / [supp(q) P(Q_w = q'_w)]``
      over the original combinations ``q`` that differ from ``q'`` in exactly one attribute ``w`` (inverted
      when below 1, as the paper says); 1 when no such ``q`` exists;
    - ``guess_bound`` — Proposition 10's upper bound on the probability of guessing the original from
      prior knowledge of the supports: ``max(supp(q') / min_i supp(q' \\ q'_i), max_i P(Q_i = q'_i) /
      Σ_j P(Q_j = q'_j))``.

    ``supp`` and ``P`` are taken from the original data (the prior knowledge the analysis grants the user).
    """
    qis = list(quasi_identifiers)
    m = len(qis)
    full = _supports(original, qis)
    marg = [original[q].astype(object).where(original[q].notna(), "\x00NA").value_counts(normalize=True) for q in qis]
    without = [_supports(original, [c for j, c in enumerate(qis) if j != i]) if m > 1 else None for i in range(m)]
    # the original combinations by their projection without attribute i: the neighbours of q' in attribute i
    neighbours: list[dict[tuple, list[tuple[Any, float]]]] = [{} for _ in range(m)]
    for q, support in full.items():
        q = q if isinstance(q, tuple) else (q,)
        for i in range(m):
            neighbours[i].setdefault(q[:i] + q[i + 1:], []).append((q[i], float(support)))
    out = []
    for qp in published:
        qp = tuple(qp)
        p_vals = [float(marg[i].get(qp[i], 0.0)) for i in range(m)]
        total = sum(p_vals)
        s_qp = float(full.get(qp if m > 1 else qp[0], 0.0))
        best = 1.0
        for w in range(m):
            for value, support in neighbours[w].get(qp[:w] + qp[w + 1:], []):
                denominator = support * p_vals[w]
                numerator = s_qp * total
                if value == qp[w] or denominator <= 0 or numerator <= 0:
                    continue
                ratio = numerator / denominator
                best = max(best, ratio if ratio >= 1 else 1 / ratio)
        if m > 1:
            rest = [float(without[i].get(tuple(v for j, v in enumerate(qp) if j != i), 0.0)) for i in range(m)]
            first = s_qp / min(rest) if min(rest) > 0 else 0.0
        else:
            first = s_qp
        second = max(p_vals) / total if total > 0 else 0.0
        out.append({"combination": qp, "c_amplification": best, "guess_bound": max(first, second)})
    return out
