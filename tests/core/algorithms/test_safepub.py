"""SafePub (issue 32 item 2): the k the theorem gives, the sampling rate, the exponential mechanism's choices, and a
verified run on Adult."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.algorithms.safepub import SafePub, exponential_choice, exponential_probabilities
from anonstudio.core.data import Table
from anonstudio.core.errors import ParameterError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.privacy import verify_output
from anonstudio.core.privacy._safepub import delta_of, minimal_k, sampling_probability

SEED = 2**50 + 12345  # a seed nobody guesses (the verifier refuses one below 2^48)


def _reference_delta(k: int, beta: float, eps: float) -> float:
    """d(k, β, ε) written out independently with scipy: max over n from n_m to far beyond where the binomial tail
    has fallen away (the Chernoff bound at that n is below 1e-30)."""
    from scipy.stats import binom

    gamma = (math.exp(eps) - 1 + beta) / math.exp(eps)
    n_m = max(math.ceil(k / gamma - 1), 1)
    rate = gamma * math.log(gamma / beta) + (1 - gamma) * math.log((1 - gamma) / (1 - beta))
    top = n_m + int(70 / rate) + 10
    n = np.arange(n_m, top + 1)
    return float(binom.sf(np.floor(gamma * n), n, beta).max())


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.05, 3.0), exponent=st.floats(1.0, 9.0))
def test_the_derived_k_meets_the_papers_bound_and_is_the_smallest(eps, exponent):
    """k = min{k : d(k, β, ε_anon) ≤ δ} (Li et al. Theorem 5 as SafePub uses it): the k found keeps the bound and
    k − 1 breaks it, with d computed independently (scipy's binomial tail over a long range of n)."""
    delta = 10.0 ** -exponent
    beta = sampling_probability(eps)
    k = minimal_k(eps, delta, 100_000)
    assert k is not None
    assert _reference_delta(k, beta, eps) <= delta * (1 + 1e-9)
    if k > 1:
        assert _reference_delta(k - 1, beta, eps) > delta * (1 - 1e-9)
    assert delta_of(k, beta, eps) == pytest.approx(_reference_delta(k, beta, eps), rel=1e-7, abs=1e-300)


def test_k_grows_as_delta_shrinks_and_none_when_the_data_is_too_small():
    ks = [minimal_k(1.0, 10.0 ** -e, 10_000) for e in (3, 5, 7, 9)]
    assert ks == sorted(ks) and len(set(ks)) == 4
    assert minimal_k(1.0, 1e-9, ks[-1] - 1) is None


def _table(n: int, seed: int = 3) -> tuple[Table, dict]:
    rng = np.random.default_rng(seed)
    ages = rng.integers(20, 60, n)
    df = pd.DataFrame({"age": ages.astype(str), "sex": rng.choice(["M", "F"], n)}, dtype=object)
    rows = [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 60)]
    return Table(df).with_roles(["age", "sex"]), {"age": Hierarchy("age", rows),
                                                  "sex": Hierarchy("sex", [["M", "*"], ["F", "*"]])}


def test_the_sampling_rate_is_beta():
    """Records sampled over 20 runs of 5,000 records at ε_anon = 0.9: a binomial count with p = β = 1 − e^−0.9.
    The test fails if the count is more than 4.9 standard deviations off (false alarm ≤ 1e-6; the seeds are
    fixed, so it is decided once)."""
    table, hs = _table(5000)
    sampled = 0
    for r in range(20):
        result = SafePub(epsilon=1.0, epsilon_search=0.1, delta=1e-3, seed=SEED + r).run(table, hs)
        sampled += result.metrics["sampled_records"]
    beta = 1 - math.exp(-0.9)
    trials = 20 * 5000
    assert abs(sampled - trials * beta) <= 4.9 * math.sqrt(trials * beta * (1 - beta))


def test_the_exponential_mechanism_picks_by_the_softmax_of_the_scores():
    """Four candidates of scores 0, −1, −2, −6 at ε = 2: drawn 40,000 times, each one's share is within 4.9
    standard deviations of exp(ε u / 2) / Σ (false alarm ≤ 1e-6 per candidate), and a better score is drawn
    more often."""
    scores = np.array([0.0, -1.0, -2.0, -6.0])
    p = exponential_probabilities(scores, 2.0)
    exact = np.exp(scores) / np.exp(scores).sum()
    np.testing.assert_allclose(p, exact, rtol=1e-12)
    rng = np.random.default_rng(11)
    draws = 40_000
    counts = np.bincount([exponential_choice(scores, 2.0, rng) for _ in range(draws)], minlength=4)
    assert np.all(np.abs(counts - draws * exact) <= 4.9 * np.sqrt(draws * exact * (1 - exact)))
    assert counts[0] > counts[1] > counts[2] > counts[3]


def test_the_release_is_a_draw_of_the_selection_budget_and_a_large_one_releases_the_best_transformation():
    """The release is one more exponential-mechanism draw, with 90 % of ε_search, over every transformation the walk
    saw (issue 41 item 7): the report says how ε_search was split, and with a budget large enough every seed
    releases the transformation of best score — here the leaves of both attributes, whose classes (about 215
    sampled records each) all hold k, so nothing is lost (score 0)."""
    table, hs = _table(20_000)
    for r in range(5):
        result = SafePub(epsilon=4.0, epsilon_search=2.0, delta=1e-3, steps=20, seed=SEED + r).run(table, hs)
        search = result.metrics["search"]
        assert result.metrics["k"] < 150
        assert search["epsilon_select"] == pytest.approx(1.8)
        assert search["epsilon_per_step"] == pytest.approx(0.2 / 20)
        assert result.metrics["transformation"] == {"age": 0, "sex": 0}
        assert search["score"] == 0.0


def test_parameters_a_user_gets_wrong_are_refused_by_name():
    with pytest.raises(ParameterError, match="'epsilon' must be"):
        SafePub(epsilon=0.0)
    with pytest.raises(ParameterError, match="'delta' must be"):
        SafePub(delta=1.0)
    with pytest.raises(ParameterError, match="'steps' must be"):
        SafePub(steps=0)
    with pytest.raises(ParameterError, match="epsilon_search .* must be below epsilon"):
        SafePub(epsilon=0.5, epsilon_search=0.5)
    table, hs = _table(40)
    with pytest.raises(ParameterError, match="needs classes of more records than the input's 40"):
        SafePub(epsilon=1.0, delta=1e-9, seed=SEED).run(table, hs)


def test_a_column_that_is_not_a_quasi_identifier_is_refused():
    table, hs = _table(200)
    table = Table(table.df.assign(disease="flu")).with_roles(["age", "sex"], ["disease"])
    with pytest.raises(ParameterError, match="column 'disease' would be published unchanged"):
        SafePub(epsilon=1.0, delta=1e-2, seed=SEED).run(table, hs)


def test_the_verifier_refuses_a_release_that_is_not_full_domain_or_too_small_classes():
    table, hs = _table(3000)
    alg = SafePub(epsilon=1.0, delta=1e-3, seed=SEED, min_level={"age": 1}, max_level={"age": 1})  # decades
    outcome = jobs.anonymize(table, hs, alg)
    assert outcome.verification.passed
    spec = alg.privacy_model()
    out = outcome.result.output.df.copy()
    kept = np.flatnonzero((out["age"] != "*").to_numpy())
    level = outcome.report["metrics"]["transformation"]["age"]
    assert level == 1  # the level limits leave the search no other: one record published as its leaf below
    row = kept[0]
    original = table.df["age"].iloc[row]
    other = hs["age"].rows[hs["age"].leaf_index[original]][1 - level]
    mixed = out.copy()
    mixed.loc[mixed.index[row], "age"] = other
    verdict = verify_output(spec, table, mixed, hs)
    assert not verdict.passed and any("not full-domain" in p for p in verdict.problems)
    # a claimed k the parameters do not give
    wrong = verify_output({**spec, "k": spec["k"] - 1}, table, outcome.result.output, hs)
    assert not wrong.passed and any("claims k" in p for p in wrong.problems)


@pytest.mark.realdata
@pytest.mark.parametrize("score", ["loss", "dm"])
def test_adult_release_is_verified_and_keeps_the_k_the_bound_gives(shared_data, score):
    """Adult, 8 quasi-identifiers (salary-class identifying, left out), ε = 1, δ = 1e-5: the release passes the
    independent verifier, every published class holds at least k = 58 records, about β of the records were
    sampled, and every quasi-identifier sits at one hierarchy level."""
    from tests.core._adult import load_adult

    qis = ["age", "workclass", "education", "marital-status", "occupation", "race", "sex", "native-country"]
    table, hs = load_adult(shared_data, qis)
    table = table.with_roles(qis, [], ["salary-class"])
    alg = get("safepub")(epsilon=1.0, delta=1e-5, seed=SEED, score=score)
    outcome = jobs.anonymize(table, hs, alg)
    m = outcome.report["metrics"]
    assert outcome.verification.passed and m["k"] == 58 == minimal_k(0.9, 1e-5, len(table.df))
    assert abs(m["sampled_records"] / len(table.df) - (1 - math.exp(-0.9))) < 0.02
    out = outcome.result.output.df
    kept = ~(out[qis] == "*").all(axis=1)
    assert out[kept].groupby(qis).size().min() >= 58
    assert set(outcome.verification.details["levels"]) == set(qis)
    assert all(m["transformation"][q] in outcome.verification.details["levels"][q] for q in qis)


@pytest.mark.realdata
def test_adult_sample_runs_and_verifies_from_the_command_line(shared_data, tmp_path):
    """A job on 3,000 Adult records (8 quasi-identifiers, salary-class identifying), rows shuffled by the release
    key: `anonstudio run` publishes it, `anonstudio verify` re-derives it byte for byte and passes it; one changed
    cell (a record published at another level) fails verification."""
    from anonstudio.cli.main import main

    adult = shared_data / "adult"
    qis = ["age", "workclass", "education", "marital-status", "occupation", "race", "sex", "native-country"]
    lines = (adult / "adult.csv").read_text(encoding="utf-8").splitlines()[:3001]
    (tmp_path / "adult.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    hier = "\n".join(f'{q} = "{adult}/hierarchies/adult_hierarchy_{q}.csv"' for q in qis)
    (tmp_path / "job.toml").write_text(
        f'[input]\npath = "adult.csv"\nquasi_identifiers = {qis!r}\nidentifying = ["salary-class"]\n\n'
        f'[hierarchies]\n{hier}\n\n[algorithm]\nname = "safepub"\nepsilon = 2.0\ndelta = 1e-4\n\n'
        f'[output]\npath = "out.csv"\nreport = "out.json"\nshuffle_rows = true\n',
        encoding="utf-8")
    assert main(["run", str(tmp_path / "job.toml"), "--quiet"]) == 0
    assert main(["verify", str(tmp_path / "job.toml")]) == 0
    import json

    report = json.loads((tmp_path / "out.json").read_text())
    assert report["verification"]["passed"] and report["metrics"]["k"] == minimal_k(1.9, 1e-4, 3000)
    assert "seed" not in report["parameters"] and len(report["key"]["fingerprint"]) == 16  # the key's name only
    out = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    header = out[0].split(";")
    rows = [line.split(";") for line in out[1:]]
    col = next(header.index(q) for q in qis if any(r[header.index(q)] != "*" for r in rows))  # not at its root
    row = next(j for j, r in enumerate(rows) if r[col] != "*")
    rows[row][col] = "*"  # one record's cell at the root: another level than the others' (and a class of one)
    out = [out[0]] + [";".join(r) for r in rows]
    (tmp_path / "out.csv").write_text("\n".join(out) + "\n", encoding="utf-8")
    assert main(["verify", str(tmp_path / "job.toml"), "--model-only"]) == 1
