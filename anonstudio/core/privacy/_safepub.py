"""(ε, δ)-differential privacy by sampling and k-anonymization (SafePub): the bound that fixes k, and the checks a
release of it can be given.

R. Bild, K. A. Kuhn, F. Prasser: SafePub: A Truthful Data Anonymization Algorithm With Strong Privacy Guarantees.
PoPETs 2018(1):67-87 (DOI 10.1515/popets-2018-0004), resting on N. Li, W. Qardaji, D. Su: On sampling,
anonymization, and differential privacy or, k-anonymization meets differential privacy. ASIACCS 2012
(arXiv:1101.2604), Theorem 5 there, restated by SafePub as the theorem its k comes from (SafePub's section
numbers are not cited: its full text was not at hand; the mechanism was read from its abstract and ARX's public
source):

    Any *strongly-safe* k-anonymization algorithm — one whose generalization scheme does not depend on the data
    and which suppresses every record of a class smaller than k — run on a sample that keeps each record
    independently with probability β, satisfies (ε, δ)-differential privacy for any ε ≥ −ln(1 − β) and

        δ = d(k, β, ε) = max_{n ≥ n_m} Σ_{j > γn}^{n} f(j; n, β),   n_m = ⌈k/γ − 1⌉,   γ = (e^ε − 1 + β) / e^ε,

    with f(j; n, β) = C(n, j) β^j (1 − β)^(n − j) the binomial probability.

SafePub takes β = 1 − e^(−ε_anon) (so ε_anon = −ln(1 − β), the smallest ε the theorem allows; then
γ = 1 − e^(−2 ε_anon)) and the smallest k with d(k, β, ε_anon) ≤ δ (:func:`minimal_k`). The generalization scheme
is chosen by the exponential mechanism with ε_search instead of being fixed in advance, so the whole run is
(ε_anon + ε_search, δ)-DP by sequential composition (Dwork & Roth 2014, Theorem 3.16).

What a verifier can check of such a release from the input, the output and the hierarchies
(:func:`verify_safepub`): every published class holds at least k records (k recomputed here from ε_anon and δ,
not taken from the method), every cell is a faithful generalization, every quasi-identifier is generalized to
one hierarchy level (full-domain: the scheme is one level per attribute, :func:`full_domain_levels`), no column
is published that the mechanism did not anonymize, and the seed is not guessable. It cannot check that the
records were sampled with probability β or that the scheme was drawn by the exponential mechanism: those are
random draws no output can prove.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from anonstudio.core.privacy._verification import Problems, Verification, as_coded, frame_of

if TYPE_CHECKING:
    from anonstudio.core.data import Table


def sampling_probability(epsilon_anon: float) -> float:
    """β = 1 − e^(−ε_anon): each record is kept with this probability (SafePub; ε_anon = −ln(1 − β), the least ε Li et al.'s theorem allows)."""
    return float(-math.expm1(-float(epsilon_anon)))


def gamma_of(epsilon: float, beta: float) -> float:
    """γ = (e^ε − 1 + β) / e^ε (Li et al. Theorem 5)."""
    return float((math.expm1(epsilon) + beta) / math.exp(epsilon))


def _log_factorials(n: int) -> np.ndarray:
    out = np.zeros(n + 1)
    if n:
        out[1:] = np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))
    return out


def binomial_tail_above(n: int, x: float, beta: float, logfact: np.ndarray) -> float:
    """P[Bin(n, β) > x] = Σ_{j > x}^{n} f(j; n, β), summed in log space (``logfact`` up to n at least)."""
    first = int(math.floor(x)) + 1
    if first > n:
        return 0.0
    if first <= 0:
        return 1.0
    j = np.arange(first, n + 1)
    logs = logfact[n] - logfact[j] - logfact[n - j] + j * math.log(beta) + (n - j) * math.log1p(-beta)
    top = float(logs.max())
    return float(min(1.0, math.exp(top) * float(np.exp(logs - top).sum())))


def _relative_entropy(a: float, b: float) -> float:
    """D(a ‖ b) of two Bernoulli distributions (nats)."""
    out = 0.0
    if a > 0:
        out += a * math.log(a / b)
    if a < 1:
        out += (1 - a) * math.log((1 - a) / (1 - b))
    return out


def delta_of(k: int, beta: float, epsilon: float) -> float:
    """d(k, β, ε) = max_{n ≥ n_m} P[Bin(n, β) > γn] (Li et al. Theorem 5), the maximum over infinitely many n
    computed exactly: for γ > β the Chernoff–Hoeffding bound P[Bin(n, β) ≥ γn] ≤ e^(−n·D(γ‖β)) falls below the
    largest tail found so far after finitely many n, and no later n can exceed it. Needs ε ≥ −ln(1 − β)
    (then γ ≥ β; equality, ε = −ln(1 − β) with β → 0, is not reached for β > 0)."""
    gamma = gamma_of(epsilon, beta)
    if not gamma > beta:
        raise ValueError(f"γ = {gamma} is not above β = {beta}: ε must be at least −ln(1 − β)")
    n_m = max(int(math.ceil(k / gamma - 1 - 1e-12)), 1)
    rate = _relative_entropy(gamma, beta)
    best = 0.0
    n = n_m
    size = max(2 * n_m + 64, 256)
    logfact = _log_factorials(size)
    while True:
        if n > size - 1:
            size *= 2
            logfact = _log_factorials(size)
        best = max(best, binomial_tail_above(n, gamma * n, beta, logfact))
        # every n' > n has tail ≤ e^(−n'·D) < e^(−n·D): once that is below the maximum, the maximum is final
        if math.exp(-(n + 1) * rate) <= best or (best == 0.0 and (n + 1) * rate > 745):
            return best
        n += 1


def minimal_k(epsilon_anon: float, delta: float, limit: int) -> int | None:
    """The smallest k ≥ 1 with d(k, β, ε_anon) ≤ δ at β = 1 − e^(−ε_anon) (SafePub's k), or ``None`` when even
    k = ``limit`` does not reach δ. d is non-increasing in k (its maximum runs over n ≥ n_m, and n_m grows with
    k), so a binary search finds the least k."""
    beta = sampling_probability(epsilon_anon)
    if limit < 1 or delta_of(limit, beta, epsilon_anon) > delta:
        return None
    lo, hi = 1, limit  # d(hi) ≤ δ
    while lo < hi:
        mid = (lo + hi) // 2
        if delta_of(mid, beta, epsilon_anon) <= delta:
            hi = mid
        else:
            lo = mid + 1
    return lo


def full_domain_levels(original: Table, output: Any, hierarchies: dict, quasi_identifiers: list[str],
                       suppressed: np.ndarray) -> tuple[dict[str, list[int]], Problems]:
    """For each quasi-identifier, the hierarchy levels at which every published (not fully suppressed) cell is
    its original value's ancestor: a full-domain release has at least one such level per attribute. A problem
    per attribute for which none exists (two records published at different levels)."""
    frame = frame_of(output)
    problems = Problems()
    levels: dict[str, list[int]] = {}
    keep = ~np.asarray(suppressed, dtype=bool)
    for q in quasi_identifiers:
        h = hierarchies.get(q)
        if h is None or q not in frame.columns:
            continue
        orig = as_coded(original.df[q])
        pub = as_coded(frame[q])
        pairs = np.unique(np.stack([orig.codes[keep], pub.codes[keep]], axis=1), axis=0) if keep.any() else \
            np.zeros((0, 2), dtype=np.int64)
        possible = set(range(h.height + 1))
        first_bad = None
        for o, p in pairs:
            leaf = h.leaf_index.get(str(orig.texts[o]))
            if leaf is None:  # a value outside the hierarchy: the faithfulness check names it
                continue
            label = str(pub.texts[p])
            here = {lv for lv in range(h.height + 1) if h.node_labels[int(h.arrays.ancestor[leaf, lv])] == label}
            possible &= here
            if not possible and first_bad is None:
                first_bad = (str(orig.texts[o]), label)
        levels[q] = sorted(possible)
        if not possible:
            shown = f" (e.g. {first_bad[0]!r} published as {first_bad[1]!r})" if first_bad else ""
            problems.add(f"'{q}' is not generalized to one hierarchy level for every record{shown}: the release is "
                         "not full-domain", kind="not full-domain", column=q)
    return levels, problems


def verify_safepub(spec: dict[str, Any], original: Table, output: Any, hierarchies: dict) -> Verification:
    """The checks a SafePub release can be given (see the module): k-anonymity with suppression at the k that
    ``spec``'s ``epsilon_anon`` and ``delta`` give, faithful cells, full-domain generalization, only
    quasi-identifiers published."""
    from anonstudio.core.privacy import combine
    from anonstudio.core.privacy._tables import suppressed_rows, verify_k_anonymity

    qis = list(spec.get("quasi_identifiers") or original.quasi_identifiers)
    frame = frame_of(output)
    eps_anon, delta = float(spec["epsilon_anon"]), float(spec["delta"])
    n = len(original.df)
    k = minimal_k(eps_anon, delta, max(n, 1))
    problems = Problems()
    if k is None:
        problems.add(f"no k up to the {n} records meets δ = {delta:g} at ε_anon = {eps_anon:g}: no release of this "
                     "input can carry the guarantee", kind="k unreachable")
        k = max(n, 1) + 1
    if spec.get("k") is not None and int(spec["k"]) != k:
        problems.add(f"the method claims k = {spec['k']}, but ε_anon = {eps_anon:g} and δ = {delta:g} give k = {k}",
                     kind="wrong k")
    unprotected = [c for c in frame.columns if c not in qis]
    for c in unprotected:
        problems.add(f"column '{c}' is published but is not a quasi-identifier: SafePub's guarantee covers only "
                     "the generalized, sampled records, and this column would publish its values for every record",
                     kind="unprotected column", column=c)
    kanon = verify_k_anonymity(original, output, hierarchies, k, quasi_identifiers=qis, max_suppression=None)
    suppressed = suppressed_rows(frame, qis, hierarchies) if len(frame) == n else np.ones(len(frame), dtype=bool)
    levels, domain = (full_domain_levels(original, output, hierarchies, qis, suppressed) if len(frame) == n
                      else ({}, Problems()))
    for sentence, record in zip(domain.sentences, domain.records):
        problems.add(sentence, **record)
    own = Verification(not problems.count, "full-domain (ε, δ)-DP form",
                       {"k": k, "epsilon_anon": eps_anon, "delta": delta,
                        "sampling_probability": sampling_probability(eps_anon),
                        "levels": {q: v for q, v in levels.items()}, "violations": problems.count,
                        "first_violations": problems.records}, problems.sentences)
    verdict = combine([kanon, own], "(ε, δ)-differential privacy (SafePub)")
    verdict.details.update(k=k, levels=own.details["levels"])
    return verdict
