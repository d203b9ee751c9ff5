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
