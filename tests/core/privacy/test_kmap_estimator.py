"""k-map without a population table (issue 32 item 1): each class's people estimated from its records in the sample
(El Emam & Dankar 2008's Poisson and zero-truncated Poisson estimators, ARX's ``KMap`` with a ``CellSizeEstimator``).

- :func:`estimated_k` equals a reading of the rule written with scipy's Poisson distribution (no code shared), and
  behaves as an estimate must: more records asked for as the sampling fraction grows or the significance shrinks,
  never more than k or the table's records;
- its values equal those ARX 3.9 derived for the same settings (recorded with our driver
  ``tests/benchmarks/arx_models/ArxModels.java`` on the demo table, 2,000 records; rerun by
  ``tests/benchmarks/bench_privacy_models.py``);
- a verdict is k'-anonymity over the published classes, suppressed records exempt but counted in the sample's size;
- a job names it under ``[algorithm.models.k-map]``; global recoding enforces it and ``verify`` re-checks it.
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import poisson

from anonstudio.core import algorithms, privacy
from anonstudio.core.data import Table
from anonstudio.core.errors import ParameterError
from anonstudio.core.generate import adult_hierarchies, adult_like_table
from anonstudio.core.privacy._judge import verify_class_model
from anonstudio.core.privacy._population_models import estimated_k

ESTIMATORS = ("poisson", "zero-truncated-poisson")


def _reference(k: int, fraction: float, alpha: float, estimator: str, records: int) -> int:
    """The rule in words: under F = k people, f ~ Poisson(φk) (zero-truncated: given f ≥ 1); q = the least count
    whose cumulative probability reaches 1 − α; k' = q + 2 (Poisson, ARX's counting) or q + 1 (zero-truncated),
    at most k and at most the records."""
    lam = fraction * k
    if estimator == "poisson":
        q = 0
        while poisson.cdf(q, lam) < 1 - alpha and q < k:
            q += 1
        want = q + 2
    else:
        q = 1
        seen = 1 - poisson.pmf(0, lam)
        while (poisson.cdf(q, lam) - poisson.pmf(0, lam)) / seen < 1 - alpha and q < k:
            q += 1
        want = q + 1
    return max(1, min(k, want, records))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 80), st.floats(1e-6, 1.0), st.sampled_from([0.001, 0.01, 0.05, 0.1, 0.2, 0.5]),
       st.sampled_from(ESTIMATORS), st.integers(1, 5000))
def test_the_derived_k_is_the_estimators_quantile(k, fraction, alpha, estimator, records):
    assert estimated_k(k, fraction, alpha, estimator, records) == _reference(k, fraction, alpha, estimator, records)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.floats(1e-5, 0.5), st.floats(1e-5, 0.5), st.sampled_from([0.01, 0.05, 0.1]),
       st.sampled_from(ESTIMATORS))
def test_a_larger_sample_or_a_stricter_significance_asks_for_more_records(k, f1, f2, alpha, estimator):
    lo, hi = sorted((f1, f2))
    big = 10**6
    assert estimated_k(k, lo, alpha, estimator, big) <= estimated_k(k, hi, alpha, estimator, big) <= k
    assert estimated_k(k, hi, alpha, estimator, big) <= estimated_k(k, hi, alpha / 10, estimator, big)
    assert estimated_k(k, 1.0, alpha, estimator, big) == k  # the whole population: nothing to estimate
    assert estimated_k(k, hi, alpha, estimator, 3) <= 3


#: (k, population size, significance) → ARX 3.9's derived k' (Poisson, zero-truncated) for the demo table's 2,000
#: records, as ArxModels.java printed them on 2026-11-27
ARX_DERIVED = {
    (5, 317_238_626, 0.01): (2, 2), (10, 20_000, 0.01): (6, 5), (10, 4_000, 0.05): (10, 10), (30, 20_000, 0.1): (7, 6),
    (50, 4_000, 0.01): (39, 38), (20, 2_000, 0.2): (20, 20), (8, 2_200, 0.001): (8, 8),
}


@pytest.mark.parametrize("setting", list(ARX_DERIVED))
def test_derived_k_equals_arxs(setting):
    k, size, alpha = setting
    ours = tuple(estimated_k(k, 2000 / size, alpha, e, 2000) for e in ESTIMATORS)
    assert ours == ARX_DERIVED[setting]


# -- verdicts ---------------------------------------------------------------------------------------------------
cells = st.lists(st.sampled_from(["a", "b", "c", "d", "*"]), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(cells, st.integers(1, 12), st.sampled_from([0.05, 0.3, 0.9]), st.sampled_from(ESTIMATORS))
def test_a_verdict_is_k_prime_anonymity_of_the_published_classes(column, k, fraction, estimator):
    model = privacy.MODELS["k-map"](k=k, estimator=estimator, sampling_fraction=fraction, significance=0.05)
    assert model.needs == {"sizes"}  # no population table is read
    v = verify_class_model(model, pd.DataFrame({"q": column}, dtype=object), ["q"])
    k_prime = estimated_k(k, fraction, 0.05, estimator, len(column))  # the sample: every record, '*' ones too
    sizes = {c: column.count(c) for c in set(column) if c != "*"}
    failing = {c for c, n in sizes.items() if n < k_prime}
    assert v.passed == (not failing)
    assert v.details["failing_records"] == sum(sizes[c] for c in failing)
    if failing:
        assert f"fewer than k' = {k_prime}" in v.problems[0]


def test_the_population_size_sets_the_sampling_fraction():
    column = ["a"] * 6 + ["b"] * 3
    frame = pd.DataFrame({"q": column}, dtype=object)
    # 9 records of 18 people: φ = 0.5, k = 6 → k' = 6 (Poisson): the class of 3 fails; of the US: k' = 2, both pass
    half = privacy.MODELS["k-map"](k=6, estimator="poisson", population_size=18)
    assert not verify_class_model(half, frame, ["q"]).passed
    assert verify_class_model(privacy.MODELS["k-map"](k=6, estimator="poisson"), frame, ["q"]).passed
    with pytest.raises(ParameterError, match="smaller than the table"):
        verify_class_model(privacy.MODELS["k-map"](k=6, estimator="poisson", population_size=5), frame, ["q"])


@pytest.mark.parametrize("params, message", [
    ({"estimator": "poisson", "population": "p.csv"}, "a population table or an estimator, not both"),
    ({"population_size": 100}, "sizes the population of an estimator"),
    ({"estimator": "poisson", "population_size": 100, "sampling_fraction": 0.1}, "not both"),
])
def test_contradicting_parameters_are_refused(params, message):
    model = privacy.MODELS["k-map"](k=5, **params)
    with pytest.raises(ParameterError, match=message):
        model.check_parameters(key="algorithm.models.k-map.")


def test_global_recoding_enforces_it_and_the_verifier_agrees():
    """k = 2 plus k-map k = 10 estimated at a sampling fraction of 0.1 (k' = 6, Poisson, 1 %): every published class
    holds at least 6 records, and the run's own verification (the independent verifier) passes."""
    frame = adult_like_table(600, seed=4)
    qis = ["age", "sex", "race", "education"]
    hs = {q: h for q, h in adult_hierarchies().items() if q in qis}
    table = Table(frame).with_roles(qis)
    alg = algorithms.get("global")(k=2, models={"k-map": {"k": 10, "estimator": "poisson", "sampling_fraction": 0.1}},
                                   max_suppression=0.1)
    result = alg.run(table, hs)
    spec = {**alg.privacy_model(), "max_suppression": 0.1}
    v = privacy.verify_output(spec, table, result.output, hs)
    assert v.passed, v.problems
    assert "k-map" in v.model
    published = result.output.df[qis]
    kept = published[~(published == "*").all(axis=1)]
    assert kept.groupby(qis).size().min() >= estimated_k(10, 0.1, 0.01, "poisson", 600) == 6
    # without the model the same search publishes classes under 6 records: the model binds on this table
    plain = algorithms.get("global")(k=2, max_suppression=0.1).run(table, hs)
    sizes = plain.output.df[qis][~(plain.output.df[qis] == "*").all(axis=1)].groupby(qis).size()
    assert sizes.min() < 6
    assert not privacy.verify_output(spec, table, plain.output, hs).passed


def _estimated_k_as_before(k, fraction, significance, estimator, records):
    """The derivation before issue 44 (every term summed again each step, no cap at the records)."""
    import math

    from anonstudio.core.privacy._population_models import _poisson_log_pmf

    lam, threshold = fraction * k, 1.0 - significance
    if lam <= 0.0:
        return min(k, max(records, 1))
    if estimator == "poisson":
        count, value, terms = 0, 0.0, []
        while value < threshold and count + 1 <= k:
            terms.append(math.exp(_poisson_log_pmf(count, lam)))
            value = math.fsum(terms)
            count += 1
        derived = count + 1 if value >= threshold else k
    else:
        seen = -math.expm1(-lam)
        count, value, terms = 1, 0.0, []
        while value < threshold and count <= k:
            terms.append(math.exp(_poisson_log_pmf(count, lam)) / seen)
            value = math.fsum(terms)
            count += 1
        derived = count if value >= threshold else k
    return max(1, min(k, derived, records))


def test_the_estimate_is_unchanged_and_a_huge_k_takes_no_time():
    """Issue 44 item 10: k-map with k = 10^9 and an estimator ran without end (the count went towards the
    quantile of Poisson(φk), summing every term again at each step). The count now stops past the table's
    records (k' is capped there) and the sum grows in place: the same k' as before on every case below."""
    import time

    import numpy as np

    from anonstudio.core.privacy._population_models import estimated_k

    rng = np.random.default_rng(44)
    for _ in range(400):
        k = int(rng.integers(1, 400))
        fraction = float(rng.choice([1e-6, 1e-3, 0.01, 0.1, 0.5, 0.9, 1.0]))
        significance = float(rng.choice([0.001, 0.01, 0.05, 0.2]))
        records = int(rng.integers(1, 600))
        for estimator in ("poisson", "zero-truncated-poisson"):
            assert estimated_k(k, fraction, significance, estimator, records) == \
                _estimated_k_as_before(k, fraction, significance, estimator, records), (k, fraction, significance,
                                                                                         estimator, records)
    start = time.perf_counter()
    for estimator in ("poisson", "zero-truncated-poisson"):
        assert estimated_k(10**9, 0.5, 0.01, estimator, 30_000) == 30_000
        assert estimated_k(10**9, 1e-9, 0.01, estimator, 30_000) <= 30_000
    assert time.perf_counter() - start < 2.0
