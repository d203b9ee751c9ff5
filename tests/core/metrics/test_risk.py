"""Re-identification risk (issue 32 item 3): every figure against a brute-force definition on small tables
(Hypothesis), the estimators against their defining equations, and the degenerate inputs that must not raise."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.errors import InputError, ParameterError
from anonstudio.core.metrics import table_risk
from anonstudio.core.risk import (RISK_BINS, US_POPULATION, Histogram, dankar, pitman, population_uniqueness,
                                           resolve_population, risk_distribution, shlosser_classes, snb,
                                           snb_log_expected, zayatz)
from anonstudio.core.risk_numerics import bracketed_root, digamma, trigamma

QIS = ["a", "b"]

# small tables: a few values per column so that classes of every size occur
cell = st.sampled_from(["x", "y", "z"])
rows = st.lists(st.tuples(cell, st.sampled_from(["1", "2"]), st.sampled_from(["HIV", "flu", "cold"]),
                          st.sampled_from(["p", "q", "r", "s"])), min_size=1, max_size=40)


def frame(records) -> pd.DataFrame:
    return pd.DataFrame(records, columns=["a", "b", "disease", "zip"], dtype=object)


def record_risks_brute(df: pd.DataFrame, columns) -> list[float]:
    keys = [tuple(r) for r in df[columns].itertuples(index=False)]
    count = Counter(keys)
    return [1.0 / count[k] for k in keys]


@settings(max_examples=80, deadline=None)
@given(rows, st.sampled_from([0.0, 0.1, 0.2, 0.34, 0.5, 1.0]))
def test_prosecutor_figures_are_the_record_level_definitions(records, threshold):
    df = frame(records)
    r = table_risk(df, QIS, sensitive=["disease"], threshold=threshold)
    risks = record_risks_brute(df, QIS)
    n = len(risks)
    p = r["prosecutor"]
    assert p["highest"] == pytest.approx(max(risks)) and p["lowest"] == pytest.approx(min(risks))
    assert p["average"] == pytest.approx(sum(risks) / n)  # the share re-identified on average = classes / n
    assert p["records_at_risk"] == pytest.approx(sum(x > threshold for x in risks) / n)
    assert p["records_at_highest"] == pytest.approx(sum(x == max(risks) for x in risks) / n)
    assert r["journalist"] == p and r["marketer"]["average"] == pytest.approx(p["average"])
    assert r["sample_uniques"] == pytest.approx(sum(x == 1.0 for x in risks) / n)
    assert r["classes"] == len(set(map(tuple, df[QIS].to_numpy().tolist())))
    bins = [0.0] * len(RISK_BINS)
    for x in risks:
        bins[next(i for i, upper in enumerate(RISK_BINS) if x <= upper)] += 1.0 / n
    assert r["distribution"]["records"] == pytest.approx(bins)
    assert sum(r["distribution"]["records"]) == pytest.approx(1.0)


@settings(max_examples=80, deadline=None)
@given(rows)
def test_attack_figures_are_the_attackers_counts(records):
    df = frame(records)
    r = table_risk(df, QIS, sensitive=["disease"])
    m = r["attacks"]["inference"]["disease"]
    classes: dict[tuple, list[str]] = {}
    for a, b, disease, _ in records:
        classes.setdefault((a, b), []).append(disease)
    n = len(records)
    homogeneous = [v for v in classes.values() if len(set(v)) == 1]
    assert m["homogeneous_classes"] == pytest.approx(len(homogeneous) / len(classes))
    assert m["homogeneous_records"] == pytest.approx(sum(map(len, homogeneous)) / n)
    # the attacker guesses the most frequent value of the class (ties: any of them scores the same)
    right = sum(sum(1 for d in v if d == max(sorted(set(v)), key=v.count)) for v in classes.values())
    assert m["inference_rate"] == pytest.approx(right / n)
    overall = Counter(d for _, _, d, _ in records)
    assert m["base_rate"] == pytest.approx(max(overall.values()) / n)
    assert m["inference_rate"] >= m["base_rate"] - 1e-12  # the class-majority guess is never worse than the base rate
    # zip has no role: the attacker who knows it too
    full = Counter((a, b, z) for a, b, _, z in records)
    assert r["attacks"]["unique_with_unroled"]["columns"] == ["zip"]
    assert r["attacks"]["unique_with_unroled"]["share"] == pytest.approx(
        sum(1 for a, b, _, z in records if full[(a, b, z)] == 1) / n)


@settings(max_examples=60, deadline=None)
@given(rows, st.lists(st.tuples(cell, st.sampled_from(["1", "2"])), max_size=30))
def test_journalist_and_marketer_risk_against_a_population_table(records, others):
    df = frame(records)
    population = pd.concat([df[QIS], pd.DataFrame(others, columns=QIS, dtype=object)], ignore_index=True)
    r = table_risk(df, QIS, population_table=population, threshold=0.2)
    keys = [tuple(x) for x in df[QIS].itertuples(index=False)]
    big = Counter(tuple(x) for x in population.itertuples(index=False))
    per_record = [1.0 / big[k] for k in keys]
    j = r["journalist"]
    assert j["highest"] == pytest.approx(max(per_record)) and j["lowest"] == pytest.approx(min(per_record))
    assert j["records_at_risk"] == pytest.approx(sum(x > 0.2 for x in per_record) / len(keys))
    classes = set(keys)
    assert j["average"] == pytest.approx(max(len(classes) / sum(big[k] for k in classes),
                                             sum(per_record) / len(keys)))
    assert r["marketer"]["average"] == pytest.approx(sum(per_record) / len(keys))
    assert r["population"] == {"size": len(population), "sampling_fraction": len(df) / len(population),
                               "source": "--population-table"}


def test_a_table_that_is_not_a_sample_of_the_population_table_is_refused():
    df = frame([("x", "1", "HIV", "p"), ("x", "1", "flu", "q"), ("y", "2", "flu", "q")])
    with pytest.raises(InputError, match="not a sample of the population table.*a=x, b=1 occurs 2 times"):
        table_risk(df, QIS, population_table=df[QIS].iloc[[0, 2, 2, 2]])
    with pytest.raises(InputError, match="fewer records \\(2\\) than the table \\(3\\)"):
        table_risk(df, QIS, population_table=df[QIS].iloc[[0, 2]])


def test_the_suppressed_block_is_a_class_unless_it_publishes_nothing_but_its_count():
    """Issue 39: whoever is missing from the published classes is one of the suppressed records, so a suppressed
    block that publishes its sensitive value or another column is a class; one that publishes only '*' is left
    out (ARX leaves out every suppressed record)."""
    df = frame([("*", "*", "HIV", "p"), ("*", "*", "flu", "q"), ("x", "1", "HIV", "p"), ("x", "1", "HIV", "p"),
                ("x", "2", "flu", "r")])
    r = table_risk(df, QIS, sensitive=["disease"])
    assert r["suppressed"] == 0 and r["records"] == 5 and r["classes"] == 3
    assert r["prosecutor"]["highest"] == 1.0 and r["sample_uniques"] == pytest.approx(1 / 5)
    assert r["attacks"]["inference"]["disease"]["records"] == 5
    # the suppressed records publish their zip: three of five are unique on (a, b, zip)
    assert r["attacks"]["unique_with_unroled"]["share"] == pytest.approx(3 / 5)
    w = r["with_unchanged"]
    assert w["columns"] == ["zip"] and w["smallest_class"] == 1 and w["highest"] == 1.0
    assert w["unique"] == pytest.approx(3 / 5) and w["records_at_risk"] == 1.0  # every class is under 5
    # a block of one publishing its disease: that record's disease is certain, risk 1
    one = table_risk(frame([("*", "*", "HIV", "p"), ("x", "1", "flu", "p"), ("x", "1", "HIV", "p")]), QIS,
                     sensitive=["disease"])
    assert one["prosecutor"]["highest"] == 1.0 and one["suppressed"] == 0
    assert one["attacks"]["inference"]["disease"]["homogeneous_records"] == pytest.approx(1 / 3)
    # the block publishing nothing but '*' is left out
    blank = table_risk(frame([("*", "*", "*", "*"), ("x", "1", "flu", "p"), ("x", "1", "HIV", "p")]), QIS,
                       sensitive=["disease"])
    assert blank["suppressed"] == 1 and blank["records"] == 2 and blank["prosecutor"]["highest"] == 0.5
    assert blank["with_unchanged"]["records"] == 2 and blank["with_unchanged"]["highest"] == 0.5


def test_sensitive_values_are_told_apart_as_a_reader_tells_them():
    df = frame([("x", "1", "HIV", "p"), ("x", "1", " hiv", "p"), ("y", "1", "flu", "p"), ("y", "1", "cold", "p")])
    m = table_risk(df, QIS, sensitive=["disease"])["attacks"]["inference"]["disease"]
    assert m["homogeneous_classes"] == 0.5 and m["homogeneous_records"] == 0.5


# ------------------------------------------------------------------------------------- population uniqueness


def hypergeometric_one(big: int, size: int, n: int) -> Fraction:
    """P(exactly one of a class of ``size`` in a draw of ``n`` from ``big``), exactly."""
    return Fraction(size * math.comb(big - size, n - 1), math.comb(big, n))


histograms = st.lists(st.integers(1, 9), min_size=1, max_size=25).map(Histogram.of)


@settings(max_examples=80, deadline=None)
@given(histograms, st.integers(1, 60))
def test_zayatz_is_its_hypergeometric_definition(h, factor):
    big = h.records * factor
    e = zayatz(h, big)
    c1 = h.of_size(1)
    if c1 == 0:
        assert e.available and e.uniques == 0.0
        return
    total = sum(int(c) * hypergeometric_one(big, int(s), h.records) for s, c in zip(h.sizes, h.counts))
    exact = c1 * (c1 * hypergeometric_one(big, 1, h.records) / total) / Fraction(h.records, big)
    assert e.available and e.uniques == pytest.approx(float(exact), rel=1e-12)


def pitman_scores_brute(h: Histogram, theta: float, alpha: float) -> tuple[float, float]:
    u, n = h.classes, h.records
    s_theta = sum(1 / (theta + i * alpha) for i in range(1, u)) - sum(1 / (theta + i) for i in range(1, n))
    s_alpha = sum(i / (theta + i * alpha) for i in range(1, u)) - sum(
        int(c) * sum(1 / (l - alpha) for l in range(1, int(s))) for s, c in zip(h.sizes, h.counts))
    return s_theta, s_alpha


def pitman_loglik(h: Histogram, theta: float, alpha: float) -> float:
    u, n = h.classes, h.records
    return (sum(math.log(theta + i * alpha) for i in range(1, u)) - sum(math.log(theta + i) for i in range(1, n))
            + sum(int(c) * sum(math.log(l - alpha) for l in range(1, int(s))) for s, c in zip(h.sizes, h.counts)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=2, max_size=60).map(Histogram.of), st.integers(2, 10 ** 6))
def test_pitman_is_a_maximum_of_its_likelihood(h, factor):
    e = pitman(h, h.records * factor)
    if h.of_size(1) == 0:
        assert e.available and e.uniques == 0.0
        return
    if h.classes == h.records:
        assert not e.available and e.uniques == 0.0
        return
    if not e.parameters:  # no maximum: the likelihood grows towards α → -∞ (classes more even than chance)
        assert not e.available and "no maximum" in e.note
        return
    theta, alpha = e.parameters["theta"], e.parameters["alpha"]  # a maximum, even when its estimate is outside 0 … N
    s_theta, s_alpha = pitman_scores_brute(h, theta, alpha)
    assert abs(s_theta) < 1e-8 * h.records and abs(s_alpha) < 1e-8 * h.records
    best = pitman_loglik(h, theta, alpha)
    for dt, da in ((1e-3, 0), (-1e-3, 0), (0, 1e-4), (0, -1e-4)):
        t2, a2 = theta * (1 + dt), alpha + da
        if a2 < 1 and min(t2 + a2, t2 + (h.classes - 1) * a2) > 0:  # every θ + iα > 0
            assert pitman_loglik(h, t2, a2) <= best + 1e-9
    big = h.records * factor
    estimate = math.exp(math.lgamma(theta + 1) - math.lgamma(theta + alpha) + alpha * math.log(big))
    if 0 <= estimate <= big:
        assert e.available and e.uniques == pytest.approx(estimate)
    else:
        assert not e.available and e.uniques == 0.0 and "outside" in e.note


def snb_expected_brute(alpha, beta, classes, fraction, size):
    """K Σ_m P(m) C(m+1, size) φ^size (1-φ)^(m+1-size), m ~ NB(α, β), summed until the terms vanish."""
    total, m, p = 0.0, 0, beta ** alpha
    while m < 200000:
        if m + 1 >= size:
            total += p * math.comb(m + 1, size) * fraction ** size * (1 - fraction) ** (m + 1 - size)
        p *= (m + alpha) / (m + 1) * (1 - beta)
        m += 1
        if p < 1e-18 and m > 50:
            break
    return classes * total


@pytest.mark.parametrize("alpha,beta,fraction", [(0.7, 0.3, 0.2), (2.5, 0.05, 0.01), (0.1, 0.6, 0.9)])
def test_snb_moment_equations_are_the_model_expectations(alpha, beta, fraction):
    e1, e2 = snb_log_expected(alpha, beta, 1000.0, fraction)
    assert math.exp(e1) == pytest.approx(snb_expected_brute(alpha, beta, 1000.0, fraction, 1), rel=1e-9)
    assert math.exp(e2) == pytest.approx(snb_expected_brute(alpha, beta, 1000.0, fraction, 2), rel=1e-9)
    # ARX's second equation multiplies by (1-d)^(α+2) where the model divides: they differ by (1-d)^(2α+4)
    d = (1 - fraction) * (1 - beta)
    arx = snb_log_expected(alpha, beta, 1000.0, fraction, equations="arx")
    assert arx[0] == pytest.approx(e1) and arx[1] - e2 == pytest.approx((2 * alpha + 4) * math.log(1 - d))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=3, max_size=80).map(Histogram.of), st.integers(2, 10 ** 6))
def test_snb_solves_its_moment_equations(h, factor):
    big = h.records * factor
    e = snb(h, big)
    if h.of_size(1) == 0:
        assert e.available and e.uniques == 0.0
        return
    if h.of_size(2) == 0:
        assert not e.available and "size 2" in e.note
        return
    if not e.available:
        assert e.uniques == 0.0 and e.note
        return
    alpha, beta, k = e.parameters["alpha"], e.parameters["beta"], e.parameters["classes"]
    fraction = h.records / big
    assert k == pytest.approx(shlosser_brute(h, fraction), rel=1e-9)
    e1, e2 = snb_log_expected(alpha, beta, k, fraction)
    assert math.exp(e1) == pytest.approx(h.of_size(1), rel=1e-9)
    assert math.exp(e2) == pytest.approx(h.of_size(2), rel=1e-9)
    assert e.uniques == pytest.approx(k * beta ** alpha)


def shlosser_brute(h: Histogram, q: float) -> float:
    """Haas & Stokes (1998) D_Sh3, term by term."""
    f = dict(zip(h.sizes.tolist(), h.counts.tolist()))
    a = sum(i * q * q * (1 - q * q) ** (i - 1) * c for i, c in f.items())
    b = sum((1 - q) ** i * ((1 + q) ** i - 1) * c for i, c in f.items())
    c_ = sum((1 - q) ** i * c for i, c in f.items())
    d = sum(i * q * (1 - q) ** (i - 1) * c for i, c in f.items())
    return sum(f.values()) + f.get(1, 0) * (a / b) * (c_ / d) ** 2


def test_shlosser_as_arx_computes_it():
    h = Histogram.of([1, 1, 1, 2, 2, 3, 5])
    q = 0.3
    f = {1: 3, 2: 2, 3: 1, 5: 1}
    a = sum(i * q * q * (1 - q * q) ** (i - 1) * c for i, c in f.items())
    b = sum((1 - q) ** i * c * (1 + q) ** i - 1 for i, c in f.items())  # ARX's sum: the "- 1" per size
    c_ = sum((1 - q) ** i * c for i, c in f.items())
    d = sum(i * q * (1 - q) ** (i - 1) * c for i, c in f.items())
    assert shlosser_classes(h, q, equations="arx") == pytest.approx(7 + 3 * (a / b) * (c_ / d) ** 2)
    assert shlosser_classes(h, 1.0) == 7  # every class seen


@pytest.mark.parametrize("fraction,expected", [(0.05, "pitman"), (0.1, "pitman"), (0.5, None)])
def test_dankar_rule_chooses_by_the_sampling_fraction(fraction, expected):
    h = Histogram.of([1] * 30 + [2] * 12 + [3] * 6 + [5] * 3 + [9])
    big = round(h.records / fraction)
    found = population_uniqueness(h, big)
    chosen = found["dankar"]
    if expected:
        assert chosen.model == expected and chosen.uniques == found["pitman"].uniques
    else:  # above 0.1: the smaller of Zayatz and SNB
        smaller = min(("zayatz", "snb"), key=lambda name: found[name].uniques)
        assert chosen.model == smaller and chosen.uniques == found[smaller].uniques


@pytest.mark.parametrize("sizes,what", [
    ([], "no records"), ([3], "one class"), ([2, 2, 4], "no uniques"), ([1, 1, 1, 1], "every record unique"),
    ([1], "one record"), ([1, 1, 3, 3], "no class of size 2"), ([1, 10_000], "a huge class"),
])
def test_degenerate_class_sizes_never_raise(sizes, what):
    h = Histogram.of(sizes)
    for big in (max(h.records, 1), h.records * 3 + 1, US_POPULATION):
        found = population_uniqueness(h, big)
        for name, e in found.items():
            assert 0.0 <= e.uniques <= big, (what, name)
            assert e.available or (e.uniques == 0.0 and e.note), (what, name)
        if h.of_size(1) == 0:
            assert all(e.available and e.uniques == 0.0 for e in found.values())
            assert found["dankar"].model == "none"
    if what == "every record unique":
        assert not pitman(h, US_POPULATION).available and zayatz(h, US_POPULATION).available
        assert dankar(h, US_POPULATION).model == "zayatz"


def test_population_equal_to_the_sample_makes_zayatz_count_the_uniques():
    h = Histogram.of([1, 1, 1, 2, 4])
    assert zayatz(h, h.records).uniques == pytest.approx(3.0)


@pytest.mark.parametrize("kwargs,message", [
    ({"population": 10, "sampling_fraction": 0.5}, "not both"),
    ({"sampling_fraction": 0.0}, "in \\(0, 1\\]"), ({"sampling_fraction": 1.5}, "in \\(0, 1\\]"),
    ({"sampling_fraction": float("nan")}, "in \\(0, 1\\]"), ({"population": 99}, "at least the table's 100"),
])
def test_nonsense_population_parameters_are_refused(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        resolve_population(100, **kwargs)


def test_population_defaults_to_arx_us_population_and_fraction_rounds_as_arx():
    assert resolve_population(30162) == (317_238_626, "default (USA, as ARX)")
    assert resolve_population(30162, sampling_fraction=0.3)[0] == round(30162 / 0.3)


def test_risk_distribution_bins_are_arxs_upper_inclusive():
    h = Histogram.of([1, 2, 5, 8, 10])  # risks 1, 0.5, 0.2, 0.125, 0.1: each exactly on a bin's upper end
    shares = risk_distribution(h)
    n = 26
    for upper, size in ((1.0, 1), (0.5, 2), (0.2, 5), (0.125, 8), (0.1, 10)):
        assert shares[list(RISK_BINS).index(upper)] == pytest.approx(size / n)


# --------------------------------------------------------------------------------------------------- numerics


def test_digamma_and_trigamma_match_scipy():
    special = pytest.importorskip("scipy.special")
    x = np.concatenate([np.logspace(-10, 10, 400), np.linspace(0.05, 40, 800)])
    assert np.abs(digamma(x) - special.digamma(x)).max() <= 1e-13 * np.maximum(1, np.abs(special.digamma(x))).max()
    assert np.allclose(trigamma(x), special.polygamma(1, x), rtol=1e-14, atol=0)
    for v in (1e-9, 0.5, 1.0, 7.25, 1e8):
        assert digamma(v) == pytest.approx(float(special.digamma(v)), rel=1e-14, abs=1e-14)
        assert trigamma(v) == pytest.approx(float(special.polygamma(1, v)), rel=1e-14)


def test_bracketed_root_finds_the_sign_change_or_refuses():
    assert bracketed_root(lambda x: math.cos(x) - x, 0.0, 1.0) == pytest.approx(0.7390851332151607, rel=1e-15)
    assert bracketed_root(lambda x: x ** 3 - 8.0, 10.0, 0.0) == pytest.approx(2.0, rel=1e-15)
    with pytest.raises(ValueError):
        bracketed_root(lambda x: x * x + 1.0, -1.0, 1.0)


def test_empty_and_unknown_inputs_are_refused_with_the_column():
    df = frame([("x", "1", "HIV", "p")])
    with pytest.raises(InputError, match="no column 'c'"):
        table_risk(df, ["a", "c"])
    with pytest.raises(InputError, match="no records"):
        table_risk(df.iloc[:0], QIS)
    with pytest.raises(ParameterError, match="given as quasi-identifier and as sensitive"):
        table_risk(df, QIS, sensitive=["a"])
    with pytest.raises(ParameterError, match="threshold"):
        table_risk(df, QIS, threshold=2.0)


@pytest.mark.parametrize("m", [1, 7, 400])
@pytest.mark.parametrize("s", [1, -1])
def test_pitman_sums_are_exact_in_both_regimes(m, s):
    from anonstudio.core.risk import _Sums

    sums = _Sums(m)
    i = np.arange(1, m + 1, dtype=np.float64)
    for x in (m + 0.5, 3.0 * m + 2, 4.0 * m, 4.0 * m + 1, 29.0 * m + 1, 1e3 * m, 1e9 * m) if s < 0 else (
            -0.5, 0.0, 2.5, 4.0 * m, 4.0 * m + 1, 29.0 * m, 1e6 * m, 1e13):
        d = x + s * i
        brute = [(1 / d).sum(), (i / d).sum(), (1 / d ** 2).sum(), (i / d ** 2).sum(), (i * i / d ** 2).sum()]
        assert np.allclose(sums(x, s), brute, rtol=1e-11, atol=0), (x, s)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.integers(1, 4), st.integers(1, 60), st.integers(1, 5000)), min_size=1, max_size=300),
       st.floats(0.0, 7.0))
def test_estimators_never_raise_or_warn_and_stay_within_the_population(sizes, log_factor):
    import warnings

    h = Histogram.of(sizes)
    big = int(h.records * 10 ** log_factor)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = population_uniqueness(h, big)
    for e in found.values():
        assert 0.0 <= e.uniques <= big
        assert e.available or (e.uniques == 0.0 and e.note)
