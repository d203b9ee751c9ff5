"""Statistical checks that a random-anonymization output was randomized the way the job says (issue 28,
item 4), from the input, the output and the job only.

Yang & Qiao (2010, paper 001) redraw quasi-identifier ``i`` of a record with a chance ``s_i`` — Algorithm 1:
the job's weight ``w_i`` (``"entropy"``: Proposition 7's ``w_i ∝ e^{H_i}``; ``"uniform"``; a mapping),
Algorithm 2 (enhanced RA): ``k`` of the ``m`` quasi-identifiers uniformly, so ``s_i = k/m`` — and the new value
is a draw from the attribute's own distribution ``p`` in the input (our ``draws = "shuffle"``: the chosen
cells of a column exchange their values by a uniformly random permutation within each block of
:data:`BLOCK_ROWS` rows). A deterministic map — every sex flipped, every changed age moved to the next
value, a fixed permutation of the education values — keeps every published value in the column's domain
and at most ``k`` changes per record, so the exact checks pass it; two tests see it:

(a) **share of changed cells** (:func:`share_test`). A cell changes when it is redrawn *and* the draw
    misses its old value.

    - independent draws: record ``r`` (old value ``a_r``) changes with chance ``s (1 - p_{a_r})``,
      independently of the other records, so the count ``X`` has mean ``n s (1 - c)`` with
      ``c = Σ_a p_a²`` (the chance a draw hits the old value, over the records). Chernoff–Hoeffding's bound
      ``P(X ≥ x) ≤ exp(-n KL(x/n ‖ X̄/n))`` (and the lower tail alike) holds for any sum of independent
      Bernoulli variables (Hoeffding 1963, Thm. 1), so two-sided ``p ≤ 2 exp(-n KL)``.
    - shuffle: in a block of ``n`` rows the chosen set ``C`` (``N`` cells, ``N_a`` of value ``a``) is a
      uniform ``N``-subset given ``N``; a uniform permutation of ``C`` leaves ``Σ_a N_a²/N`` cells on an
      equal value on average, so ``E[X | C] = N - Σ_a N_a²/N`` and, with the hypergeometric moments of
      ``N_a``, ``E[X | N] = (1 - c)(N - (n - N)/(n - 1))`` (``c`` the block's own ``Σ q_a²``; ``X = 0`` when
      ``N = 0``): ``E X = (1 - c)(n s - n(1 - s)/(n - 1) + (1 - s)^n n/(n - 1))``. The deviation splits in
      two. ``E[X | N] - E X`` is ``w (N - n s)`` with ``w = (1 - c)(1 + 1/(n - 1))``, up to a term of at
      most 2 from ``N = 0``: a weighted sum of the records' independent selections, bounded by Bennett's
      inequality. ``X - E[X | N]`` given ``N`` is a martingale over the chosen records drawn one by one
      (replacing one chosen record by another moves ``Σ_a N_a²/N`` by ``2(N_b - N_a + 1)/N``, less than 2)
      and then the permutation, one image at a time (swapping two images changes ``X`` by at most 2): ``2N``
      steps each in an interval of length 2, so Azuma–Hoeffding gives ``2 exp(-t²/(4N))``, with ``N ≤ N_hi``
      (a Chernoff bound of ``N ~ B(n, s)`` that fails with chance :data:`RESERVE`). The p-value is the
      smallest sum of the two over a fixed grid of ways to split the deviation (each sum bounds the same
      tail). Over blocks the parts add up (the permutations are independent given the chosen sets).
      A second bound on the same tail, whichever is smaller is used: one martingale revealing each record's
      selection (adding a record to ``C`` moves ``E[X | C]`` by ``1 + (Σ N_a²/N - 2 N_b - 1)/(N + 1) ∈
      (-1, 2)``: steps ``|D| ≤ 2`` of conditional variance ``≤ 4 s (1 - s)``), then the permutation (variance
      ``≤ 1`` per step), by Freedman's inequality in Bennett's form (Freedman 1975) with ``V ≤ 4 n s (1 - s) +
      N_hi``.
      The shuffle also keeps each block's multiset of values: the new values of the changed cells must be
      a rearrangement of their old values (:func:`rearranged`), checked exactly.

(b) **the new value is independent of the old one** (:func:`independence_test`), on the contingency table
    ``T[a, b]`` of the changed cells (old ``a``, new ``b ≠ a``):

    - independent draws: given which cells changed, the new values are independent, ``P(b | a) = π_ab =
      p_b / (1 - p_a)``. A likelihood ratio ``max_{q ∈ Q} q(x) / P0(x)`` over a model class ``Q`` has its
      tail bounded *exactly*, for any counts, by the class's Shtarkov sum: ``P0(max_q q(x)/P0(x) ≥ t) ≤
      Σ_x max_q q(x) / t`` (no pooling, no chi-square approximation). Two classes, Bonferroni between them:
      *full* — any multinomial per row, ``q̂_a(b) = T_ab/r_a`` (``r_a`` the row's total): the ratio is
      ``e^{G/2}``, the sum ``Π_a C(k, r_a)``, ``C(k, n)`` the multinomial normalized-maximum-likelihood
      constant (:func:`log_shtarkov`, the linear-time recurrence of Kontkanen & Myllymäki 2007); it sees
      dependence spread over many cells. *target* — per row the null mixed with one value ``b*``: the
      ratio is ``Π_a max_b exp(r_a KL(T_ab/r_a ‖ π_ab))`` over cells above the null, the sum at most
      ``Π_a k C(2, r_a)`` (for a fixed ``b*`` the count of ``b*`` is sufficient and the sum over it is a
      binomial's, ``≤ C(2, r_a)``); it sees a map applied to part of the cells, with a penalty of about
      ``log k + ½ log r_a`` per row instead of ``(k/2) log r_a``.
    - shuffle: given the chosen set ``C`` and which of its cells kept their value, every arrangement of the
      changed cells' old values onto them that gives no cell its own value ("colored derangement") is
      equally likely — each value assignment of ``C`` comes from the same number ``Π_b N_b!`` of
      permutations. So ``P0(x) = 1/Z``, ``Z`` the number of colored derangements of the row totals ``r``,
      and the same Shtarkov bound applies with ``P0(x) ≤ 1/Z_lo``: ``Z_lo`` from the Egorychev–Falikman
      (van der Waerden) bound ``per(S) ≥ R!/R^R`` on the doubly stochastic scaling ``S = u_a u_b`` of the
      class-block 0/1 matrix (:func:`log_colored_derangements_lower`). The quasi-independence fit ``π_ab =
      r_b u_a u_b`` (rows sum to 1) takes the null's place in both classes; ``Π π_ab^{T_ab}`` is the same
      for every arrangement, so the bound is the independent-draws one times ``1/(Π π^T · Z_lo)``.

    A deterministic map puts every changed cell of row ``a`` on one ``b``: the likelihood ratio grows like
    ``r_a log(1/π_ab)`` per row. A binary attribute has one other value only: every change is a flip, (b)
    says nothing, (a) carries it.

The false-alarm rate is :data:`ALPHA` for the whole verdict: each of the ``2 m`` tests (two per quasi-
identifier) refuses at ``ALPHA / (2 m)`` (Bonferroni). Every p-value here is an upper bound on the chance of
so extreme a result from a genuine run; it is kept as a natural logarithm (they reach 1e-1000).

What a statistical check cannot see: a deterministic map on a share of records too small to move either
statistic beyond its limit; a map that moves values while keeping the share and the old-to-new frequencies
of a real run (e.g. new values drawn at random but chosen by a key only the publisher knows — which value of
equally likely values was drawn); which records were redrawn (a real run's choice is not in the output).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: the chance that a genuine run is refused by the statistical checks, for the whole verdict
ALPHA = 1e-9
#: rows of one shuffle block: the method (``ra.BLOCK_ROWS``) permutes each block's chosen cells apart; a test
#: keeps the two equal
BLOCK_ROWS = 1 << 17
#: the chance left to the Chernoff bound on the number of chosen cells in the shuffle share test
RESERVE = 1e-15


@dataclass
class ShareResult:
    """(a) for one quasi-identifier: ``changed`` of ``records`` cells differ, ``expected`` on average."""

    changed: int
    records: int
    expected: float
    redraw_chance: float
    hit_chance: float
    log_p: float


@dataclass
class IndependenceResult:
    """(b) for one quasi-identifier: the bound ``log_p`` and the contingency cell that weighs most."""

    cells: int
    log_p: float
    cell: tuple[int, int, int, int, float] | None = None  # (old, new, count, row total, expected)


# -- helpers -----------------------------------------------------------------------------------------------

def _kl(a: float, b: float) -> float:
    """``KL(Bernoulli(a) ‖ Bernoulli(b))`` in nats (``inf`` when ``a`` is impossible under ``b``)."""
    def term(x: float, y: float) -> float:
        if x == 0.0:
            return 0.0
        return math.inf if y == 0.0 else x * math.log(x / y)
    return term(a, b) + term(1.0 - a, 1.0 - b)


def _log_add(x: float, y: float) -> float:
    if x == -math.inf:
        return y
    if y == -math.inf:
        return x
    return max(x, y) + math.log1p(math.exp(-abs(x - y)))


def format_p(log_p: float) -> str:
    """A p-value bound for a message: ``p ≤ 3.1e-12``, ``p ≤ 1e-870`` beyond floating point, or ``p = 0``
    (the job's draws cannot give it, e.g. a change in a column its weights never redraw)."""
    if log_p == -math.inf:
        return "p = 0, impossible for the job's draws"
    if log_p >= math.log(1e-300):
        return f"p ≤ {math.exp(log_p):.1e}"
    return f"p ≤ 1e{math.floor(log_p / math.log(10)):d}"


# -- (a) the share of changed cells ------------------------------------------------------------------------

def share_test(old_codes: np.ndarray, changed: np.ndarray, redraw_chance: float, shuffle: bool) -> ShareResult:
    """Test (a) for one quasi-identifier (see the module): ``old_codes`` the input's value codes, ``changed``
    which cells differ in the output, ``redraw_chance`` the job's ``s_i``."""
    n = len(old_codes)
    s = min(1.0, max(0.0, float(redraw_chance)))
    x = int(changed.sum())
    counts = np.bincount(old_codes).astype(np.float64)
    hit = float(((counts / n) ** 2).sum()) if n else 1.0
    if not shuffle:
        expected = s * n * (1.0 - hit)
        log_p = _chernoff_two_sided(x, n, expected / n if n else 0.0)
    else:
        expected, slack, weights, sizes = 0.0, 0.0, [], []
        for start in range(0, n, BLOCK_ROWS):
            nb = min(n, start + BLOCK_ROWS) - start
            if nb < 2:
                continue  # one row: its chosen cell, if any, stays where it is
            q = np.bincount(old_codes[start:start + nb]).astype(np.float64) / nb
            cb = float((q * q).sum())
            expected += (1.0 - cb) * (nb * s - nb * (1.0 - s) / (nb - 1) + (1.0 - s) ** nb * nb / (nb - 1))
            weights.append((1.0 - cb) * nb / (nb - 1))
            sizes.append(nb)
            slack += (1.0 - cb) * nb / (nb - 1)  # the N = 0 term's largest effect
        chosen_at_most = _binomial_upper(n, s, RESERVE)
        log_p = min(_shuffle_share_log_p(abs(x - expected), np.array(weights), np.array(sizes), s, slack,
                                         chosen_at_most),
                    _freedman_two_sided(abs(x - expected), 4.0 * n * s * (1.0 - s) + chosen_at_most, 2.0, RESERVE))
    return ShareResult(x, n, expected, s, hit, log_p)


def _freedman_two_sided(deviation: float, variance: float, step: float, reserve: float) -> float:
    """``log`` of ``min(1, 2 exp(-(V/b²) h(b t / V)) + reserve)``, ``h(u) = (1+u) log(1+u) - u``: Freedman's
    inequality (Bennett's form) for a martingale with steps ``|D| ≤ b`` and summed conditional variance
    ``≤ V``, both tails, plus the chance ``reserve`` that the variance bound fails (see the module)."""
    if deviation <= 0:
        return 0.0
    if variance <= 0:
        return math.log(reserve)
    u = step * deviation / variance
    exponent = -(variance / step ** 2) * ((1 + u) * math.log1p(u) - u)
    return min(0.0, _log_add(math.log(2.0) + exponent, math.log(reserve)))


#: the shares of the deviation given to the selections (the rest to the permutation) that are tried
_SPLITS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def _shuffle_share_log_p(deviation: float, weights: np.ndarray, sizes: np.ndarray, s: float, slack: float,
                         chosen_at_most: float) -> float:
    """``log`` of the bound on ``P(|X - E X| ≥ deviation)`` for shuffled draws (see the module): the
    selections' part by Bennett's inequality, the chosen records' and the permutation's by Azuma–Hoeffding,
    the best of the fixed :data:`_SPLITS`, plus :data:`RESERVE`."""
    if deviation <= 0:
        return 0.0
    if s <= 0.0 or chosen_at_most <= 0:
        return -math.inf  # nothing is ever chosen: any change is impossible
    variance = float((weights ** 2 * sizes).sum()) * s * (1.0 - s)
    step = float(weights.max()) * max(s, 1.0 - s) if len(weights) else 0.0
    best = 1.0
    for f in _SPLITS:
        first, second = f * deviation - slack, (1.0 - f) * deviation
        if first <= 0:
            p1 = 1.0
        elif variance <= 0 or step <= 0:
            p1 = 0.0
        else:
            u = step * first / variance
            p1 = min(1.0, 2.0 * math.exp(-(variance / step ** 2) * ((1 + u) * math.log1p(u) - u)))
        p2 = min(1.0, 2.0 * math.exp(-second * second / (4.0 * chosen_at_most)))
        best = min(best, p1 + p2)
    return min(0.0, math.log(best + RESERVE))


def _chernoff_two_sided(x: int, n: int, mean: float) -> float:
    """``log`` of ``min(1, 2 exp(-n KL(x/n ‖ mean)))``: Chernoff–Hoeffding for a sum of ``n`` independent
    Bernoulli variables of average chance ``mean``, the tail on the side ``x`` lies."""
    if n == 0:
        return 0.0
    a = x / n
    if abs(a - mean) <= 1e-15:
        return 0.0
    kl = _kl(a, mean)
    return 0.0 if kl == 0 else min(0.0, math.log(2.0) - n * kl)


def _binomial_upper(n: int, s: float, chance: float) -> float:
    """The smallest ``h ≥ n s`` with ``exp(-n KL(h/n ‖ s)) ≤ chance`` (Chernoff): ``N ~ B(n, s)`` exceeds
    it with a chance of at most ``chance``."""
    if s >= 1.0 or n == 0:
        return float(n)
    lo, hi = n * s, float(n)
    if n * _kl(1.0, s) <= -math.log(chance):
        return float(n)
    for _ in range(200):
        mid = (lo + hi) / 2
        if n * _kl(mid / n, s) >= -math.log(chance):
            hi = mid
        else:
            lo = mid
    return hi


def rearranged(old_codes: np.ndarray, new_codes: np.ndarray, changed: np.ndarray, size: int) -> list:
    """For ``draws = "shuffle"``: per block, the values whose count among the changed cells differs between
    old and new, as ``(code, old count, new count)`` (empty: the new values are a rearrangement of the
    old, as a permutation of the chosen cells leaves them)."""
    out = []
    for start in range(0, len(old_codes), BLOCK_ROWS):
        sl = slice(start, start + BLOCK_ROWS)
        moved = changed[sl]
        a = np.bincount(old_codes[sl][moved], minlength=size)
        b = np.bincount(new_codes[sl][moved], minlength=size)
        out.extend((int(v), int(a[v]), int(b[v])) for v in np.flatnonzero(a != b))
    return out


# -- (b) independence of the new value from the old one ----------------------------------------------------

def log_shtarkov(k: int, sizes: np.ndarray) -> np.ndarray:
    """``log C(k, n)`` for each ``n`` in ``sizes``: the normalized-maximum-likelihood constant of a
    ``k``-category multinomial, ``Σ_x Π_j (n_j/n)^{n_j}`` over the ``k^n`` sequences ``x`` of length ``n``.
    ``C(1, n) = 1``, ``C(2, n) = Σ_h binom(n, h) (h/n)^h ((n-h)/n)^{n-h}`` and ``C(j, n) = C(j-1, n) +
    n/(j-2) C(j-2, n)`` (Kontkanen & Myllymäki, "A linear-time algorithm for computing the multinomial
    stochastic complexity", Inf. Process. Lett. 103 (2007)). ``O(k)`` vector steps plus ``O(Σ n)``."""
    from scipy.special import gammaln

    sizes = np.asarray(sizes, dtype=np.int64)
    out = np.zeros(len(sizes))
    if k <= 1 or len(sizes) == 0:
        return out
    distinct, where = np.unique(sizes, return_inverse=True)
    c1 = np.zeros(len(distinct))
    c2 = np.zeros(len(distinct))
    for i, n in enumerate(distinct):
        if n == 0:
            continue
        h = np.arange(n + 1, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = (gammaln(n + 1) - gammaln(h + 1) - gammaln(n - h + 1)
                     + np.where(h > 0, h * np.log(h / n), 0.0) + np.where(h < n, (n - h) * np.log((n - h) / n), 0.0))
        top = terms.max()
        c2[i] = top + math.log(np.exp(terms - top).sum())
    if k == 2:
        return c2[where]
    logn = np.log(np.maximum(distinct, 1).astype(np.float64))
    prev2, prev1 = c1, c2
    for j in range(3, k + 1):
        cur = np.logaddexp(prev1, logn - math.log(j - 2) + prev2)
        prev2, prev1 = prev1, cur
    result = np.where(distinct == 0, 0.0, prev1)
    return result[where]


def log_colored_derangements_lower(r: np.ndarray, u: np.ndarray | None = None) -> float:
    """A lower bound on ``log Z``, ``Z`` the number of arrangements of a multiset with ``r_a`` copies of value
    ``a`` onto ``R = Σ r`` places of which ``r_a`` hold value ``a``, such that no place gets its own value.

    ``Z Π_b r_b!`` is the permanent of the 0/1 matrix ``A`` (1 where the classes differ). With ``u_a > 0``
    such that ``S_ij = u_a u_b A_ij`` is doubly stochastic (``u_a Σ_{b≠a} r_b u_b = 1``: with ``t_a = r_a
    u_a/Σ r u``, ``t_a (1 - t_a) = r_a / (Σ r u)²`` and ``Σ t = 1``), the Egorychev–Falikman theorem
    ``per(S) ≥ R!/R^R`` gives ``log Z ≥ log R! - R log R - 2 Σ r_a log u_a - Σ log r_a!``. When one class is
    exactly half (``2 r_max = R``) the arrangements are counted exactly: the other classes all take that
    value and its places take the others in any order, ``Z = r_max! / Π_{b≠max} r_b!``. ``-inf`` when no
    arrangement exists (``2 r_max > R``)."""
    r = np.asarray([x for x in np.asarray(r, dtype=np.int64) if x > 0], dtype=np.float64)
    if len(r) == 0:
        return 0.0
    total = float(r.sum())
    big = int(np.argmax(r))
    rmax = float(r[big])
    lgam = [math.lgamma(x + 1) for x in r]
    if 2 * rmax > total:
        return -math.inf
    if 2 * rmax == total:
        return lgam[big] - (sum(lgam) - lgam[big])

    if u is None:
        u = class_scaling(r)
    sum_r_log_u = float((r * np.log(u)).sum())
    return math.lgamma(total + 1) - total * math.log(total) - 2 * sum_r_log_u - sum(lgam)


def class_scaling(r: np.ndarray) -> np.ndarray:
    """The ``u_a`` of :func:`log_colored_derangements_lower` for class sizes ``r`` (all positive, ``2 r_max <
    R``): ``u_a (Σ_b r_b u_b - r_a u_a) = 1``. With ``S = Σ r u`` and ``t_a = r_a u_a / S``, ``t_a (1 - t_a)
    = r_a/S²`` and ``Σ t_a = 1``: every ``t_a`` the smaller root if that sums to 1 at some ``S``, else the
    largest class the larger one; ``S`` by bisection."""
    r = np.asarray(r, dtype=np.float64)
    big = int(np.argmax(r))

    def small_roots(big_s: float) -> np.ndarray:
        x = np.minimum(4 * r / (big_s * big_s), 1.0)
        return x / (2 * (1 + np.sqrt(1 - x)))

    s0 = 2 * math.sqrt(float(r[big]))
    if small_roots(s0).sum() >= 1.0:  # every class on the smaller root: Σ t decreases in S
        lo, hi = s0, math.sqrt(2 * float(r.sum())) + 1.0
        for _ in range(100):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if small_roots(mid).sum() >= 1.0 else (lo, mid)
        s = math.sqrt(lo * hi)
        t = small_roots(s)
    else:  # the largest class on the larger root: where Σ_others t - t_max changes sign
        def gap(big_s: float) -> float:
            t = small_roots(big_s)
            return float(t.sum() - 2 * t[big])

        lo, hi = s0, 2 * s0
        for _ in range(2000):  # gap ~ (R - 2 r_max)/S² > 0 for large S
            if gap(hi) > 0:
                break
            lo, hi = hi, 2 * hi
        for _ in range(100):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if gap(mid) <= 0 else (lo, mid)
        s = math.sqrt(lo * hi)
        t = small_roots(s)
        t[big] = 1.0 - t[big]
    return s * t / r


def independence_test(old_codes: np.ndarray, new_codes: np.ndarray, changed: np.ndarray, probabilities: np.ndarray,
                      shuffle: bool) -> IndependenceResult:
    """Test (b) for one quasi-identifier (see the module): ``old_codes``/``new_codes`` the input's and the
    output's value codes (the output's in the input's coding, ``-1`` for a value not in it — left to the
    domain check), ``changed`` which cells differ, ``probabilities`` the input's value distribution. A
    shuffle's blocks are independent given their chosen cells: their bounds multiply (logs add)."""
    size = len(probabilities)
    keep = changed & (new_codes >= 0)
    if not shuffle:
        return _independence([_table(old_codes[keep], new_codes[keep], size, probabilities)])
    parts = []
    for start in range(0, len(old_codes), BLOCK_ROWS):
        sl = slice(start, start + BLOCK_ROWS)
        parts.append(_table(old_codes[sl][keep[sl]], new_codes[sl][keep[sl]], size, None))
    return _independence(parts)


@dataclass
class _Table:
    """One contingency table of changed cells, with what the two statistics need."""

    cells: int
    log_full: float = 0.0  # Σ_a log C(k, r_a): the full row multinomials' Shtarkov sums
    gain_full: float = 0.0  # Σ T log((T/r_a)/π): log of their best likelihood over the null's (G/2)
    log_target: float = 0.0  # Σ_a log(k C(2, r_a)): one target value per row, mixed with the null
    gain_target: float = 0.0  # Σ_a max_b r_a KL(T_ab/r_a ‖ π_ab) over cells above the null
    gap: float = 0.0  # log L_π(x) - log of an upper bound on P0(x) (0 for independent draws)
    cell: tuple | None = None  # (old, new, count, row total, expected, weight)


def _table(old: np.ndarray, new: np.ndarray, size: int, probabilities: np.ndarray | None) -> _Table:
    """One table: independent draws from ``probabilities``, or (``None``) a shuffle's colored derangement
    (a table that is no rearrangement is left out: its own check refuses it)."""
    cells = len(old)
    if cells == 0:
        return _Table(0)
    keys, counts = np.unique(old.astype(np.int64) * size + new.astype(np.int64), return_counts=True)
    a, b = keys // size, keys % size
    t = counts.astype(np.float64)
    row_total = np.bincount(a, weights=t, minlength=size)
    if probabilities is not None:
        p = np.asarray(probabilities, dtype=np.float64)
        categories = int((p > 0).sum()) - 1
        pi = p[b] / (1.0 - p[a])
        gap = 0.0
    else:
        if not np.array_equal(row_total, np.bincount(b, weights=t, minlength=size)):
            return _Table(cells)
        present = np.flatnonzero(row_total > 0)
        r = row_total[present]
        categories = len(present) - 1
        total = float(r.sum())
        if 2 * r.max() < total:
            u = np.zeros(size)
            u[present] = class_scaling(r)
            pi = row_total[b] * u[a] * u[b]
            log_z = log_colored_derangements_lower(r, u[present])
        else:  # one value is half the changed cells: the others all take it, its cells take the rest
            pi = np.where(2 * row_total[a] == total, row_total[b] / (total - row_total[a]), 1.0)
            log_z = log_colored_derangements_lower(r)
        log_pi_all = float((t * np.log(pi)).sum())  # the same for every arrangement with these totals
        gap = log_pi_all + log_z
    rows = row_total[row_total > 0].astype(np.int64)
    x = t / row_total[a]
    with np.errstate(divide="ignore", invalid="ignore"):
        gain_cells = t * np.log(x / pi)
        kl = row_total[a] * (x * np.log(x / pi) + np.where(x < 1, (1 - x) * np.log((1 - x) / (1 - pi)), 0.0))
    kl = np.where(x > pi, kl, 0.0)
    best_per_row = np.zeros(size)
    np.maximum.at(best_per_row, a, kl)
    i = int(np.argmax(kl))
    expected = float(row_total[a[i]] * pi[i])
    return _Table(
        cells,
        log_full=float(log_shtarkov(categories, rows).sum()),
        gain_full=float(gain_cells.sum()),
        log_target=float((math.log(max(categories, 1)) + log_shtarkov(2, rows)).sum()),
        gain_target=float(best_per_row.sum()),
        gap=gap,
        cell=(int(a[i]), int(b[i]), int(t[i]), int(row_total[a[i]]), expected, float(kl[i])),
    )


def _independence(parts: list[_Table]) -> IndependenceResult:
    """The two statistics over the tables (products over blocks), Bonferroni between them: ``p ≤ 2 min(N_full
    / L_full, N_target / L_target) · L_π / L_null-bound``."""
    full = sum(t.log_full - t.gain_full for t in parts)
    target = sum(t.log_target - t.gain_target for t in parts)
    gap = sum(t.gap for t in parts)
    log_p = min(0.0, math.log(2.0) + min(full, target) - gap)
    cells = [t.cell for t in parts if t.cell is not None]
    best = max(cells, key=lambda c: c[5])[:5] if cells else None
    return IndependenceResult(sum(t.cells for t in parts), log_p, best)


# -- the job's chance of redrawing each quasi-identifier ----------------------------------------------------

def redraw_chances(entropies: dict[str, float], weights, max_changed: int) -> dict[str, float] | None:
    """Each quasi-identifier's chance ``s_i`` of being redrawn in a record, from the job: Algorithm 1
    (``max_changed = 1``) redraws the one chosen with the job's weights — ``"entropy"`` (``∝ e^{H_i}``,
    Proposition 7), ``"uniform"``, or a mapping (normalized; a quasi-identifier it leaves out is never
    redrawn); Algorithm 2 (``"uniform"`` with ``max_changed = k``) ``k`` of the ``m`` uniformly: ``k/m``.
    ``None`` when the job does not say (no weights, or several per record by weights that are not uniform)."""
    names = list(entropies)
    if not names or weights is None:
        return None
    if weights == "entropy":
        w = np.exp(np.array([entropies[a] for a in names]))
    elif weights == "uniform":
        w = np.ones(len(names))
    elif isinstance(weights, dict):
        w = np.array([max(0.0, float(weights.get(a, 0.0))) for a in names])
    else:
        return None
    if w.sum() <= 0:
        return None
    if max_changed > 1 and weights != "uniform":
        return None
    share = np.minimum(1.0, max_changed * w / w.sum())
    return {a: float(x) for a, x in zip(names, share)}
