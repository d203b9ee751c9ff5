"""Population uniqueness: the estimated number of people unique on the quasi-identifiers in a population of ``N``
(:func:`zayatz`, :func:`pitman`, :func:`snb`, :func:`dankar`; the papers and where ARX departs from them are in
:mod:`anonstudio.core.risk`'s docstring)."""

from __future__ import annotations

import math

import numpy as np

from anonstudio.core.risk._histogram import Estimate, Histogram, _no_uniques, _none
from anonstudio.core.risk_numerics import bracketed_root, digamma, trigamma


#: Dankar et al.'s sampling fraction below which Pitman's estimate is used
DANKAR_FRACTION = 0.1


def zayatz(h: Histogram, population: int) -> Estimate:
    """Zayatz (1991): ``P`` = the chance that a sample unique is unique in the population,

        P = c_1 · h(1; N, 1, n) / Σ_j c_j · h(1; N, j, n),

    ``h(1; N, j, n)`` the hypergeometric chance that a draw of ``n`` from ``N`` holds exactly one of a class of
    ``j``; estimate ``c_1 · P / φ``. The ratios ``h(1; N, j, n) / h(1; N, 1, n) = j · Π_{i=1}^{j-1} (N-n+1-i) /
    (N-i)`` are summed in logarithms (exact to rounding for any ``N``; ARX's hypergeometric caps ``N`` at
    2^31 - 1)."""
    c1 = h.of_size(1)
    if c1 == 0:
        return _no_uniques()
    n, big = float(h.records), float(population)
    top = int(h.sizes[-1])
    i = np.arange(1, top, dtype=np.float64)
    share = (n - 1.0) / (big - i)
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.where(share < 1.0, np.log1p(-np.minimum(share, 1.0)), -np.inf)
    log_prod = np.concatenate([[0.0], np.cumsum(steps)])  # log Π_{i<j}, index j-1
    ratios = h.sizes * np.exp(log_prod[h.sizes - 1])
    uniques = min(c1 * c1 / ((n / big) * float((h.counts * ratios).sum())), big)  # ≤ N but for rounding
    return Estimate(float(uniques), True, parameters={"conditional_uniqueness": c1 / float((h.counts * ratios).sum())})


class _Sums:
    """For ``s = +1``: ``Σ_{i=1}^{m} 1/(x+i)``, ``Σ i/(x+i)``, ``Σ 1/(x+i)²``, ``Σ i/(x+i)²``, ``Σ i²/(x+i)²``
    (``x > -1``); for ``s = -1`` the same with ``x - i`` (``x > m``). Accurate to rounding: by digamma/trigamma
    differences while ``x ≤ 4 m``, beyond by their power series in ``m/x`` (the digamma forms lose digits to
    cancellation as x grows, every digit as ``x = θ/α`` with α → 0)."""

    def __init__(self, m: int) -> None:
        self.m = m
        self._sigma: np.ndarray | None = None

    def sigma(self) -> np.ndarray:
        """``σ_p = Σ_{i=1}^{m} (i/m)^p / m`` for p = 0 … 44."""
        if self._sigma is None:
            v = np.arange(1, self.m + 1, dtype=np.float64) / self.m
            acc = np.ones(self.m)
            out = np.empty(45)
            for p in range(45):
                out[p] = acc.sum() / self.m
                acc *= v
            self._sigma = out
        return self._sigma

    def __call__(self, x: float, s: int = 1) -> tuple[float, float, float, float, float]:
        m = self.m
        if m == 0:
            return 0.0, 0.0, 0.0, 0.0, 0.0
        if x <= 4.0 * m:
            if s > 0:  # Σ 1/(x+i) = ψ(x+m+1) - ψ(x+1), Σ i/(x+i) = m - x Σ 1/(x+i), …
                p0 = digamma(x + m + 1.0) - digamma(x + 1.0)
                q0 = trigamma(x + 1.0) - trigamma(x + m + 1.0)
                return p0, m - x * p0, q0, p0 - x * q0, m - 2.0 * x * p0 + x * x * q0
            p0 = digamma(x) - digamma(x - m)  # Σ 1/(x-i), Σ i/(x-i) = x Σ 1/(x-i) - m, …
            q0 = trigamma(x - m) - trigamma(x)
            return p0, x * p0 - m, q0, x * q0 - p0, x * x * q0 - 2.0 * x * p0 + m
        r = m / x
        terms = min(42, int(np.ceil(17.0 / -np.log10(r))) + 1)
        k = np.arange(terms)
        sign = (-1.0) ** k if s > 0 else np.ones(terms)  # 1/(x ± i) = (1/x) Σ (∓ i/x)^k
        rk1 = r ** (k + 1)
        sg = self.sigma()
        p0 = float((sign * sg[k] * rk1).sum())
        p1 = m * float((sign * sg[k + 1] * rk1).sum())
        q0 = float((sign * (k + 1) * sg[k] * rk1).sum()) / x
        q1 = float((sign * (k + 1) * sg[k + 1] * rk1 * r).sum())
        q2 = m * float((sign * (k + 1) * sg[k + 2] * rk1 * r).sum())
        return p0, p1, q0, q1, q2


def _pitman_parts(h: Histogram):
    """Score and Hessian of Pitman's log-likelihood (see :func:`pitman`):
    ``∂ℓ/∂θ = Σ_{i<u} 1/(θ+iα) - Σ_{i<n} 1/(θ+i)``, ``∂ℓ/∂α = Σ_{i<u} i/(θ+iα) - Σ_j c_j (ψ(j-α) - ψ(1-α))``;
    the sums over ``θ + iα = |α| (θ/|α| ± i)`` by :class:`_Sums`."""
    classes_part = _Sums(h.classes - 1)
    records_part = _Sums(h.records - 1)
    sizes = h.sizes.astype(np.float64)
    counts = h.counts.astype(np.float64)

    def by_alpha(theta: float, alpha: float):
        a = abs(alpha)
        return classes_part(theta / a, 1 if alpha > 0 else -1), a

    def score_theta(theta: float, alpha: float) -> float:
        sums, a = by_alpha(theta, alpha)
        return sums[0] / a - records_part(theta)[0]

    def score_alpha(theta: float, alpha: float) -> float:
        sums, a = by_alpha(theta, alpha)
        return sums[1] / a - float((counts * (digamma(sizes - alpha) - digamma(1.0 - alpha))).sum())

    def hessian(theta: float, alpha: float) -> np.ndarray:
        (_, _, q0, q1, q2), a = by_alpha(theta, alpha)
        t_t = -q0 / a ** 2 + records_part(theta)[2]
        t_a = -q1 / a ** 2
        a_a = -q2 / a ** 2 + float((counts * (trigamma(sizes - alpha) - trigamma(1.0 - alpha))).sum())
        return np.array([[t_t, t_a], [t_a, a_a]])

    return score_theta, score_alpha, hessian


def pitman(h: Histogram, population: int) -> Estimate:
    """Pitman's sampling formula fitted by maximum likelihood (Hoshino 2001). The log-likelihood of the sample's
    partition (Pitman 1995's exchangeable partition probability function) is

        ℓ(θ, α) = Σ_{i=1}^{u-1} log(θ + iα) - Σ_{i=1}^{n-1} log(θ + i) + Σ_j c_j Σ_{l=1}^{j-1} log(l - α),

    α < 1 and every ``θ + iα > 0`` (α < 0 is Pitman's finite-class case; ARX's solver reaches it too). For each α
    the score in θ runs from +∞ (at the lowest θ allowed) to below 0 (θ → ∞, as u < n), so ``θ̂(α)`` is
    bracketed; the profile likelihood's slope in α is the α-score at ``θ̂(α)`` (envelope theorem), -∞ at α → 1
    when some class has two or more records, and the lower end of α is found by stepping down from 0. Both are
    solved by bracketing (:func:`bracketed_root`), then polished by Newton steps on the closed-form Hessian.
    Population uniques: ``Γ(θ+1)/Γ(θ+α) · N^α`` (Hoshino 2001, the expected number of singletons among N); an
    estimate outside 0 … N is not available (as ARX). Not available either when every record is unique (ℓ has
    no maximum: θ → ∞) or no maximum is found for α down to -10^6. ARX's solver also requires θ ≥ 0, which
    rules out maxima with 0 < α and -α < θ < 0 (there ARX finds none; we do)."""
    if h.of_size(1) == 0:
        return _no_uniques()
    n, u = h.records, h.classes
    if u == n:
        return _none("every record is unique in the sample: Pitman's likelihood has no maximum")
    score_theta, score_alpha, hessian = _pitman_parts(h)
    last = [1.0]

    def theta_floor(alpha: float) -> float:
        return -alpha * (1.0 - 1e-12) if alpha > 0 else -(u - 1) * alpha * (1.0 + 1e-12)

    def theta_hat(alpha: float) -> float:
        low = theta_floor(alpha)
        if score_theta(low, alpha) <= 0.0:
            return low
        high = max(last[0], 2.0 * abs(low), 1.0)
        while score_theta(high, alpha) > 0.0:
            low, high = high, high * 4.0
            if high > 1e300:
                raise FloatingPointError("no root in θ")
        if high / 4.0 > low and score_theta(high / 4.0, alpha) <= 0.0:
            high = high / 4.0
        last[0] = bracketed_root(lambda theta: score_theta(theta, alpha), low, high, rtol=1e-13)
        return last[0]

    def slope(alpha: float) -> float:
        return score_alpha(theta_hat(alpha), alpha)

    try:
        a_high = 1.0 - 1e-12
        if slope(a_high) >= 0.0:
            return _none("Pitman's likelihood is largest at α → 1")
        a_low = 1e-9
        while slope(a_low) <= 0.0:  # the maximum lies at α ≤ 0: step down
            a_high = a_low
            a_low = -1e-9 if a_low > 0 else a_low * 8.0
            if a_low < -1e6:
                return _none("no maximum of Pitman's likelihood was found for α ≥ -10^6")
        alpha = bracketed_root(slope, a_low, a_high, rtol=1e-13)
        point = np.array([theta_hat(alpha), alpha])
        grad = np.array([score_theta(*point), score_alpha(*point)])
        for _ in range(4):  # Newton polish to rounding
            trial = point - np.linalg.solve(hessian(*point), grad)
            if not (np.all(np.isfinite(trial)) and trial[1] < 1.0 and trial[1] != 0.0
                    and trial[0] > theta_floor(trial[1])):
                break
            new = np.array([score_theta(*trial), score_alpha(*trial)])
            if not np.abs(new).max() < np.abs(grad).max():
                break
            point, grad = trial, new
        theta, alpha = float(point[0]), float(point[1])
    except (FloatingPointError, ValueError, RuntimeError, OverflowError, np.linalg.LinAlgError):
        return _none("no maximum of Pitman's likelihood was found")
    params = {"theta": theta, "alpha": alpha}
    try:
        uniques = math.exp(math.lgamma(theta + 1.0) - math.lgamma(theta + alpha) + alpha * math.log(population))
    except (OverflowError, ValueError):
        uniques = math.inf
    if not np.isfinite(uniques) or not (0.0 <= uniques <= population):
        return Estimate(0.0, False, "Pitman's estimate lies outside 0 … population size", params)
    return Estimate(uniques, True, parameters=params)


def shlosser_classes(h: Histogram, fraction: float, *, equations: str = "model") -> float:
    """Estimated number ``K`` of non-empty classes in the population: Haas & Stokes (1998) ``D_Sh3``,

        K = u + c_1 · [Σ_j j φ² (1-φ²)^{j-1} c_j / Σ_j (1-φ)^j ((1+φ)^j - 1) c_j]
                    · [Σ_j (1-φ)^j c_j / Σ_j j φ (1-φ)^{j-1} c_j]².

    ``equations="arx"``: ARX's sum ``Σ_j [(1-φ)^j (1+φ)^j c_j - 1]`` in the first denominator. ``u`` when
    ``φ = 1`` (every class is seen)."""
    j = h.sizes.astype(np.float64)
    c = h.counts.astype(np.float64)
    u, c1 = float(h.classes), float(h.of_size(1))
    if fraction >= 1.0:
        return u
    log_down = j * np.log1p(-fraction)  # log (1-φ)^j
    log_both = j * np.log1p(-fraction * fraction)  # log (1-φ)^j (1+φ)^j = log (1-φ²)^j: never overflows
    num1 = (j * fraction ** 2 * np.exp((j - 1.0) * np.log1p(-fraction ** 2)) * c).sum()
    if equations == "arx":
        den1 = (np.exp(log_both) * c - 1.0).sum()
    else:  # (1-φ)^j ((1+φ)^j - 1) = (1 - (1-φ)^j) - (1 - (1-φ²)^j), each part without cancellation
        den1 = ((-np.expm1(log_down) + np.expm1(log_both)) * c).sum()
    num2 = (np.exp(log_down) * c).sum()
    den2 = (j * fraction * np.exp((j - 1.0) * np.log1p(-fraction)) * c).sum()
    if den1 == 0.0 or den2 == 0.0:
        return u
    return float(u + c1 * (num1 / den1) * (num2 / den2) ** 2)


def snb_log_expected(alpha, beta, classes: float, fraction: float, *, equations: str = "model"):
    """``(log E c_1, log E c_2)``: the logarithms of the expected numbers of sample classes of size 1 and 2 under
    the SNB model (Chen & Keller-McNulty 1998): a population class has ``1 + m`` records, ``m ~ NB(α, β)``
    (``P(m) = C(m+α-1, m) β^α (1-β)^m``), each drawn with probability φ. With ``d = (1-φ)(1-β)`` and the
    generating function ``G(s) = (β / (1 - (1-β)s))^α`` of ``m``, ``E c_1 = K Σ_m P(m) (m+1) φ (1-φ)^m`` and
    ``E c_2 = K Σ_m P(m) C(m+1, 2) φ² (1-φ)^(m-1)`` are

        E c_1 = K φ (β/(1-d))^α (1 + α d/(1-d)),
        E c_2 = K φ² α β^α (1-β) (2 - (1-α) d) / (2 (1-d)^{α+2}).

    ``equations="arx"``: ARX's second equation, which multiplies by ``(1-d)^{α+2}`` instead (0.3 % of a simulated
    ``E c_2`` at α = 0.7, β = 0.3, φ = 0.2; the first equation agrees). Arrays broadcast."""
    alpha = np.asarray(alpha, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    d = (1.0 - fraction) * (1.0 - beta)
    log_rest = np.log(fraction + beta * (1.0 - fraction))  # log(1-d), exact near d = 1
    log_k, log_f = math.log(classes), math.log(fraction)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_e1 = log_k + log_f + alpha * (np.log(beta) - log_rest) + np.log1p(alpha * d / np.exp(log_rest))
        power = (alpha + 2.0) if equations == "arx" else -(alpha + 2.0)
        log_e2 = (log_k + 2.0 * log_f + np.log(alpha) + alpha * np.log(beta) + np.log1p(-beta)
                  + np.log(2.0 - (1.0 - alpha) * d) - math.log(2.0) + power * log_rest)
    return log_e1, log_e2


def _snb_alpha(beta, ratio: float, fraction: float, equations: str):
    """The α at which ``E c_2 / E c_1`` equals ``ratio`` = c_2/c_1 for each β (``nan`` where none).

    Model: ``E c_2 / E c_1 = φ α (1-β)(2 - d + α d) / (2 (1-d)(1 - d + α d))`` (K and β^α cancel), strictly
    increasing from 0 to ∞ in α, so it is the one positive root of ``φ(1-β)d α² + [φ(1-β)(2-d) - 2ρ(1-d)d] α
    - 2ρ(1-d)² = 0``. ARX's equations: the first sign change on a grid of α in [1e-8, 1e8], narrowed by
    :func:`bracketed_root` for a scalar β (grid interpolation for arrays, as a scan)."""
    beta = np.asarray(beta, dtype=np.float64)
    d = (1.0 - fraction) * (1.0 - beta)
    rest = fraction + beta * (1.0 - fraction)
    if equations != "arx":
        a2 = fraction * (1.0 - beta) * d
        a1 = fraction * (1.0 - beta) * (2.0 - d) - 2.0 * ratio * rest * d
        a0 = -2.0 * ratio * rest * rest
        root = np.sqrt(a1 * a1 - 4.0 * a2 * a0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(a1 >= 0.0, -2.0 * a0 / (a1 + root), (root - a1) / (2.0 * np.where(a2 > 0, a2, np.nan)))

    def gap(alpha, b):
        e1, e2 = snb_log_expected(alpha, b, 1.0, fraction, equations="arx")
        return e2 - e1 - math.log(ratio)

    grid = np.logspace(-8, 8, 161)
    values = gap(grid[None, :], np.atleast_1d(beta)[:, None])
    change = (np.sign(values[:, 1:]) != np.sign(values[:, :-1])) & np.isfinite(values[:, 1:]) & np.isfinite(values[:, :-1])
    out = np.full(len(np.atleast_1d(beta)), np.nan)
    for row in np.flatnonzero(change.any(axis=1)):
        j = int(np.argmax(change[row]))
        lo, hi, vlo, vhi = grid[j], grid[j + 1], values[row, j], values[row, j + 1]
        if np.ndim(beta) == 0:
            out[row] = bracketed_root(lambda a: float(gap(a, float(beta))), lo, hi, fa=vlo, fb=vhi, rtol=1e-15)
        else:  # interpolated in log α: enough to find where the last equation changes sign
            out[row] = math.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * vlo / (vlo - vhi))
    return float(out[0]) if np.ndim(beta) == 0 else out


#: the grid of β on which :func:`snb` looks for sign changes: log-spaced towards 0 and towards 1
_SNB_BETAS = np.unique(np.concatenate([np.logspace(-15, math.log10(0.5), 160),
                                       1.0 - np.logspace(math.log10(0.5), -12, 130)]))


def snb(h: Histogram, population: int, *, equations: str = "model") -> Estimate:
    """SNB estimate of population uniques (Chen & Keller-McNulty 1998): ``K`` by :func:`shlosser_classes`, then
    ``(α, β)`` solving ``E c_1 = c_1`` and ``E c_2 = c_2`` (:func:`snb_log_expected`), and ``K β^α`` uniques.
    Solved as one equation: their ratio fixes α for each β (:func:`_snb_alpha`), and ``log(E c_1 / c_1)`` is
    scanned over a grid of β in (0, 1) (:data:`_SNB_BETAS`) for sign changes; each is narrowed by
    :func:`bracketed_root` and kept if both equations hold to 1e-9 (a sign change can also be a jump where α(β)
    leaves the floating-point range); the solution of smallest β is taken (deterministic; the tables we tried
    have one). Not available without a class of size 2, or without a solution (ARX's equations,
    ``equations="arx"``, had none on every table we tried; ARX then reports 0)."""
    c1, c2 = h.of_size(1), h.of_size(2)
    if c1 == 0:
        return _no_uniques()
    if c2 == 0:
        return _none("no class of size 2: SNB's moment equations have no solution")
    fraction = h.records / float(population)
    big_k = shlosser_classes(h, fraction, equations=equations)
    if not np.isfinite(big_k) or big_k <= 0:
        return _none("the number of population classes could not be estimated")
    ratio = c2 / c1

    def gap(beta, alpha=None):
        alpha = _snb_alpha(beta, ratio, fraction, equations) if alpha is None else alpha
        return snb_log_expected(alpha, beta, big_k, fraction, equations=equations)[0] - math.log(c1)

    none = Estimate(0.0, False, "SNB's moment equations have no solution for these classes", {"classes": big_k})
    with np.errstate(all="ignore"):
        values = gap(_SNB_BETAS)
        change = np.flatnonzero((np.sign(values[1:]) != np.sign(values[:-1]))
                                & np.isfinite(values[1:]) & np.isfinite(values[:-1]))
        found = []
        for j in change:  # a sign change may be a jump where α(β) leaves the floating-point range: check it
            try:
                beta = bracketed_root(lambda b: float(gap(b)), float(_SNB_BETAS[j]), float(_SNB_BETAS[j + 1]),
                                      rtol=1e-15)
            except ValueError:
                continue
            alpha = float(_snb_alpha(beta, ratio, fraction, equations))
            e1, e2 = snb_log_expected(alpha, beta, big_k, fraction, equations=equations)
            if np.isfinite(alpha) and abs(e1 - math.log(c1)) < 1e-9 and abs(e2 - math.log(c2)) < 1e-9:
                found.append((beta, alpha))
    if not found:
        return none
    beta, alpha = found[0]
    uniques = big_k * beta ** alpha
    params = {"alpha": alpha, "beta": beta, "classes": big_k}
    if not np.isfinite(uniques) or not (0.0 <= uniques <= population):
        return Estimate(0.0, False, "the SNB estimate lies outside 0 … population size", params)
    note = "" if len(found) == 1 else f"{len(found)} solutions: the one of smallest β taken"
    return Estimate(float(uniques), True, note, params)


def dankar(h: Histogram, population: int, *, estimates: dict[str, Estimate] | None = None,
           equations: str = "model") -> Estimate:
    """Dankar et al.'s (2012) decision rule, as ARX applies it: sampling fraction ≤ 0.1 → Pitman (Zayatz when
    Pitman is not available); above → the smaller of Zayatz and SNB (Zayatz when SNB is not available).
    ``model`` names the estimator taken. ``estimates`` reuses figures already computed."""
    if h.of_size(1) == 0:
        return Estimate(0.0, True, "no sample uniques: no population uniques are estimated", model="none")
    done = dict(estimates or {})

    def get(name: str) -> Estimate:
        if name not in done:
            done[name] = {"pitman": lambda: pitman(h, population), "zayatz": lambda: zayatz(h, population),
                          "snb": lambda: snb(h, population, equations=equations)}[name]()
        return done[name]

    def chosen(name: str, why: str = "") -> Estimate:
        e = get(name)
        return Estimate(e.uniques, e.available, why or e.note, e.parameters, model=name)

    if h.records / float(population) <= DANKAR_FRACTION:
        p = get("pitman")
        if p.available and p.uniques != 0.0:
            return chosen("pitman")
        return chosen("zayatz", "Pitman is not available: Zayatz instead")
    s, z = get("snb"), get("zayatz")
    if s.available and s.uniques != 0.0:
        return chosen("zayatz") if z.uniques < s.uniques else chosen("snb")
    return chosen("zayatz", "SNB is not available: Zayatz instead")


def population_uniqueness(h: Histogram, population: int, *, equations: str = "model") -> dict[str, Estimate]:
    """Every estimate: ``pitman``, ``zayatz``, ``snb`` and ``dankar`` (the rule's choice among them)."""
    found = {"pitman": pitman(h, population), "zayatz": zayatz(h, population),
             "snb": snb(h, population, equations=equations)}
    found["dankar"] = dankar(h, population, estimates=found, equations=equations)
    return found
