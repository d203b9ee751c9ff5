"""Knowledge preservation under random anonymization: the relative difference R(q) of a value
combination's support, its bias B(q) and variance — analytic and empirical (Yang & Qiao 2010, §5.2, §6).

For a value combination ``q = {q_1 … q_l}`` over ``l`` quasi-identifiers, ``R(q) = (supp_D'(q) − supp_D(q)) /
supp_D(q)`` and ``B(q) = |E R(q)|`` (§5.2).

**Exact moments** (:func:`relative_difference_moments`). Records are anonymized independently, so
``n · supp_D'(q)`` is a sum of independent Bernoulli variables, one per record. A record whose values differ
from ``q`` on the set ``G`` of q's attributes ends up holding ``q`` exactly when the attributes redrawn among
q's form a set ``T ⊇ G`` and every redrawn one draws q's value::

    π(G) = Σ_{T ⊇ G} P(selection ∩ attrs(q) = T) · Π_{i ∈ T} P(Q_i = q_i)

(Algorithm 1: ``T`` is ``{i}`` with probability ``p_i`` or empty; Algorithm 2: ``P(T) = C(m−l, k−|T|) /
C(m, k)``). With ``c_G`` the number of records of mismatch pattern ``G`` (``c_∅`` = count of ``q``)::

    E R(q)   = Σ_G c_G π(G) / c_∅ − 1
    Var R(q) = Σ_G c_G π(G) (1 − π(G)) / c_∅²

For Algorithm 1 the mean is Eq. 10, ``E R(q) = Σ_i p_i (supp(q − q_i) P(Q_i = q_i) / supp(q) − 1)``
(``p_i = 1/m`` in the paper; :func:`eq10_bias` computes the printed form and the tests check they agree).
The paper's Eq. 11, ``Var R(q) = (1/m²) Σ_i supp(q − q_i)² / supp(q)² (P_i − P_i²)`` (:func:`eq11_variance`),
treats the records that could move into ``q`` as one draw: it does not shrink with the number of records,
so on real data it is far larger than the variance measured over repeated runs — the experiment reports
both. The superset sum over ``T`` is a zeta transform over the ``2^l`` subsets (``l`` ≤ 20).

**Empirical moments** (:func:`empirical_relative_differences`): ``R(q)`` measured on published outputs
(repeated seeded runs), mean and standard error side by side with the analytic values.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np
import pandas as pd

#: more attributes than this in one combination would need 2^l pattern bins
MAX_COMBINATION = 20


def mismatch_counts(matches: np.ndarray) -> np.ndarray:
    """``c_G`` for every mismatch pattern ``G`` (a bit mask over q's attributes): how many records differ
    from ``q`` on exactly the attributes in ``G``. ``matches``: ``bool[n, l]``, record holds q's value of
    attribute ``i``."""
    matches = np.asarray(matches, dtype=bool)
    l = matches.shape[1]
    if l > MAX_COMBINATION:
        raise ValueError(f"a combination of {l} values is too long (at most {MAX_COMBINATION})")
    masks = ((~matches).astype(np.int64) << np.arange(l)[None, :]).sum(axis=1)
    return np.bincount(masks, minlength=1 << l).astype(float)


def selection_algorithm1(p: Sequence[float]) -> np.ndarray:
    """``P(selection ∩ attrs(q) = T)`` for Algorithm 1, where ``p`` are q's attributes' choice probabilities:
    ``T = {i}`` with ``p_i``, ``T = ∅`` with ``1 − Σ p_i``."""
    p = np.asarray(p, dtype=float)
    sel = np.zeros(1 << len(p))
    sel[1 << np.arange(len(p))] = p
    sel[0] = max(0.0, 1.0 - p.sum())
    return sel


def selection_algorithm2(m: int, k: int, l: int) -> np.ndarray:
    """``P(selection ∩ attrs(q) = T)`` for Algorithm 2: ``k`` of ``m`` attributes chosen uniformly, ``l`` of
    them q's: ``C(m − l, k − |T|) / C(m, k)`` for each ``T``."""
    sizes = np.array([bin(t).count("1") for t in range(1 << l)])
    return np.array([comb(m - l, k - s) if k - s >= 0 else 0 for s in sizes], dtype=float) / comb(m, k)


def relative_difference_moments(counts: np.ndarray, draw_probs: Sequence[float],
                                selection: np.ndarray) -> tuple[float, float]:
    """Exact ``(E R(q), Var R(q))`` (see the module): ``counts`` from :func:`mismatch_counts`, ``draw_probs``
    ``P(Q_i = q_i)`` in the draw distributions, ``selection`` from :func:`selection_algorithm1` / ``2``."""
    counts = np.asarray(counts, dtype=float)
    l = len(draw_probs)
    if counts[0] <= 0:
        raise ValueError("the combination does not occur in the original data")
    size = 1 << l
    subsets = np.arange(size)
    weight = np.asarray(selection, dtype=float).copy()
    for i, pi in enumerate(np.asarray(draw_probs, dtype=float)):
        weight[(subsets >> i) & 1 == 1] *= pi
    # π(G) = Σ_{T ⊇ G} weight(T): the superset-sum (zeta) transform, one attribute at a time
    pi_g = weight
    for i in range(l):
        without = subsets[(subsets >> i) & 1 == 0]
        pi_g[without] += pi_g[without | (1 << i)]
    mean = float((counts * pi_g).sum() / counts[0] - 1.0)
    var = float((counts * pi_g * (1.0 - pi_g)).sum() / counts[0] ** 2)
    return mean, var


def _leave_one_out(counts: np.ndarray, l: int) -> np.ndarray:
    """``supp(q − q_i) / supp(q)`` per attribute: records matching q everywhere but possibly at ``i``."""
    return np.array([(counts[0] + counts[1 << i]) / counts[0] for i in range(l)])


def eq10_bias(counts: np.ndarray, draw_probs: Sequence[float], p: Sequence[float]) -> float:
    """Eq. 10 as printed, with Algorithm 1's choice probabilities ``p`` of q's attributes (the paper:
    ``p_i = 1/m``): ``|Σ_i p_i (supp(q − q_i) P(Q_i = q_i) / supp(q) − 1)|`` = ``|Σ p_i (1/lift_i − 1)|``."""
    P = np.asarray(draw_probs, dtype=float)
    ratio = _leave_one_out(np.asarray(counts, dtype=float), len(P))
    return float(abs((np.asarray(p, dtype=float) * (ratio * P - 1.0)).sum()))


def eq11_variance(counts: np.ndarray, draw_probs: Sequence[float], p: Sequence[float]) -> float:
    """Eq. 11 as printed, ``Σ_i p_i² supp(q − q_i)² / supp(q)² (P_i − P_i²)`` (``p_i = 1/m`` in the paper)."""
    P = np.asarray(draw_probs, dtype=float)
    ratio = _leave_one_out(np.asarray(counts, dtype=float), len(P))
    return float((np.asarray(p, dtype=float) ** 2 * ratio ** 2 * (P - P ** 2)).sum())


def frequent_combinations(frame: pd.DataFrame, attributes: Sequence[str], length: int, top: int) -> list[dict]:
    """The ``top`` most frequent value combinations of ``length`` attributes (every subset of ``attributes``
    of that size), as ``{attribute: value}``, most frequent first (ties in column order)."""
    from itertools import combinations

    found = []
    for attrs in combinations(attributes, length):
        counts = frame.groupby(list(attrs), sort=False, dropna=False).size()
        for values, c in counts.nlargest(top).items():
            values = values if isinstance(values, tuple) else (values,)
            found.append((int(c), dict(zip(attrs, values))))
    found.sort(key=lambda cv: -cv[0])
    return [combo for _, combo in found[:top]]


class _Coder:
    """Cells of the attributes as integer codes of the original's values (missing = -1), so that matching a
    combination against many outputs compares integers, not strings."""

    def __init__(self, original: pd.DataFrame, attributes: Sequence[str]) -> None:
        self.categories = {a: pd.Index(original[a].dropna().unique()) for a in attributes}

    def codes(self, frame: pd.DataFrame) -> dict[str, np.ndarray]:
        return {a: pd.Categorical(frame[a], categories=cats).codes.astype(np.int64)
                for a, cats in self.categories.items()}

    def combo(self, combo: dict) -> dict[str, int]:
        return {a: -1 if pd.isna(v) else int(self.categories[a].get_loc(v)) for a, v in combo.items()}


def _match_matrix(codes: dict[str, np.ndarray], coded_combo: dict[str, int]) -> np.ndarray:
    """``bool[n, l]``: does each record hold the combination's value of each of its attributes."""
    return np.column_stack([codes[a] == v for a, v in coded_combo.items()])


def empirical_relative_differences(original: pd.DataFrame, outputs: Sequence[pd.DataFrame],
                                   combos: Sequence[dict]) -> np.ndarray:
    """``R(q)`` measured on each output, ``float[len(combos), len(outputs)]``."""
    attributes = list(dict.fromkeys(a for c in combos for a in c))
    coder = _Coder(original, attributes)
    coded = [coder.combo(c) for c in combos]
    base_codes = coder.codes(original)
    base = np.array([_match_matrix(base_codes, c).all(axis=1).sum() for c in coded], dtype=float)
    if (base == 0).any():
        raise ValueError(f"{combos[int(np.flatnonzero(base == 0)[0])]} does not occur in the original data")
    out = np.empty((len(combos), len(outputs)))
    for r, frame in enumerate(outputs):
        codes = coder.codes(frame)
        for c, combo in enumerate(coded):
            out[c, r] = (_match_matrix(codes, combo).all(axis=1).sum() - base[c]) / base[c]
    return out


def bias_table(original: pd.DataFrame, outputs: Sequence[pd.DataFrame], combos: Sequence[dict],
               attributes: Sequence[str], *, weights: dict | None = None, per_record: int | None = None) -> pd.DataFrame:
    """Per combination: its support, the exact ``E R``, ``sd R`` (this module), the printed Eq. 10 and
    Eq. 11 (Algorithm 1), and the empirical mean, standard deviation and standard error of ``R`` over
    ``outputs`` with ``z = (empirical − exact) / standard error``.

    ``original``: the input's quasi-identifiers as the method drew from them (at the published level);
    ``weights``: Algorithm 1's choice probability per attribute; ``per_record``: Algorithm 2's ``k``."""
    if (weights is None) == (per_record is None):
        raise ValueError("give Algorithm 1's weights or Algorithm 2's per_record, not both")
    m = len(attributes)
    coder = _Coder(original, list(attributes))
    base_codes = coder.codes(original)
    empirical = empirical_relative_differences(original, outputs, combos) if len(outputs) else None
    rows = []
    for c, combo in enumerate(combos):
        matches = _match_matrix(base_codes, coder.combo(combo))
        counts = mismatch_counts(matches)
        draw = matches.mean(axis=0)  # P(Q_i = q_i): the draws come from the original's distribution
        attrs = list(combo)
        if weights is not None:
            p = np.array([weights[a] for a in attrs])
            selection = selection_algorithm1(p)
        else:
            p = np.full(len(attrs), 1.0 / m)
            selection = selection_algorithm2(m, per_record, len(attrs))
        mean, var = relative_difference_moments(counts, draw, selection)
        row = {"combination": ", ".join(f"{a}={v}" for a, v in combo.items()), "length": len(attrs),
               "support": counts[0] / len(original), "R_mean": mean, "R_sd": var ** 0.5,
               "eq10_B": eq10_bias(counts, draw, p) if weights is not None else np.nan,
               "eq11_var": eq11_variance(counts, draw, p) if weights is not None else np.nan, "R_var": var}
        if empirical is not None:
            e = empirical[c]
            se = e.std(ddof=1) / np.sqrt(len(e)) if len(e) > 1 else np.nan
            row.update(empirical_mean=float(e.mean()), empirical_sd=float(e.std(ddof=1)) if len(e) > 1 else np.nan,
                       empirical_se=float(se), z=float((e.mean() - mean) / se) if se and se > 0 else np.nan)
        rows.append(row)
    return pd.DataFrame(rows)
