"""The random-anonymization verifier's statistical checks (issue 28, item 4): a deterministic map — sex
flipped in every record, age moved to the next value, a fixed permutation of education — passed, because
every value stays in its column's domain and no record has more than one change; undone, 29 % of people on
Adult are unique. Now (a) each quasi-identifier's share of changed cells must fit the job's weights and
(b) among its changed cells the new value must be independent of the old one.

The bounds are checked exactly on small cases (every outcome enumerated: the chance of a p-value bound at
most t is at most t), genuine runs of every configuration pass, and every crafted output is refused with a
message naming the quasi-identifier, the figures and the p-value. The benchmark
``tests/benchmarks/bench_ra_randomness.py`` runs 200 seeds on the demo table and 30 on Adult."""

from __future__ import annotations

import importlib
import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.privacy import verify_output, verify_random_anonymization
from anonstudio.core.privacy import _randomness as stats
from tests.core.privacy._ra_crafted import ADULT, CONFIGS, DEMO, crafted, genuine, table_of


# -- the bounds, exactly on small cases --------------------------------------------------------------------

def test_the_shtarkov_sum_matches_enumeration():
    for k in range(1, 6):
        for n in range(0, 6):
            brute = sum(math.prod((c / n) ** c for c in Counter(x).values())
                        for x in itertools.product(range(k), repeat=n)) if n else 1.0
            assert math.exp(stats.log_shtarkov(k, np.array([n]))[0]) == pytest.approx(brute, rel=1e-9)


def _colored_derangements(old: list[int]) -> list[tuple[int, ...]]:
    """Every arrangement of the multiset ``old`` onto its places with no place given its own value."""
    def arrange(i: int, left: Counter) -> list[tuple[int, ...]]:
        if i == len(old):
            return [()]
        return [(v, *rest) for v in sorted(left) if left[v] and v != old[i]
                for rest in arrange(i + 1, left - Counter({v: 1}))]
    return arrange(0, Counter(old))


@pytest.mark.parametrize("sizes", [(1, 1, 1), (2, 2, 1), (2, 2, 2), (3, 2, 2), (3, 3), (3, 1, 1, 1), (4, 3, 2, 1),
                                   (2, 2, 2, 2), (1, 1, 1, 1, 1), (3, 2, 1), (4, 2, 1)])
def test_the_colored_derangement_bound_is_below_the_count(sizes):
    old = [v for v, r in enumerate(sizes) for _ in range(r)]
    exact = len(_colored_derangements(old))
    bound = stats.log_colored_derangements_lower(np.array(sizes))
    assert bound <= math.log(exact) + 1e-9 if exact else bound == -math.inf


def _assert_valid(outcomes: list[tuple[float, float]]) -> None:
    """``outcomes``: (chance under the null, log p-bound). For every t the chance of a bound ≤ t is ≤ t."""
    outcomes = sorted(outcomes, key=lambda o: o[1])
    mass = 0.0
    for i, (chance, log_p) in enumerate(outcomes):
        mass += chance
        if i + 1 == len(outcomes) or outcomes[i + 1][1] > log_p:
            assert mass <= math.exp(log_p) * (1 + 1e-9), (mass, math.exp(log_p))


def test_the_independence_bound_is_valid_for_independent_draws_by_enumeration():
    p = np.array([0.4, 0.3, 0.2, 0.1])
    old = np.array([0, 0, 0, 1, 1, 2, 3])
    choices = [[b for b in range(4) if b != a] for a in old]
    outcomes = []
    for new in itertools.product(*choices):
        new = np.array(new)
        chance = math.prod(p[b] / (1 - p[a]) for a, b in zip(old, new))
        outcomes.append((chance, stats._independence([stats._table(old, new, 4, p)]).log_p))
    assert sum(c for c, _ in outcomes) == pytest.approx(1.0)
    assert min(lp for _, lp in outcomes) < math.log(0.05)  # the test can refuse at all
    _assert_valid(outcomes)


@pytest.mark.parametrize("sizes", [(2, 2, 2, 1), (3, 2, 2, 1), (3, 3, 1, 1), (5, 5, 5)])
def test_the_independence_bound_is_valid_for_a_shuffle_by_enumeration(sizes):
    """Given which cells changed, a shuffle's arrangements of their values with no cell on its own value are
    equally likely (the module's derivation): every one is an outcome of chance 1/Z. On 5 + 5 + 5 cells the
    two most regular arrangements get a bound of 0.05 (2 of 2,252 outcomes): the bound is not vacuous."""
    old = np.array([v for v, r in enumerate(sizes) for _ in range(r)])
    arrangements = _colored_derangements(list(old))
    outcomes = [(1 / len(arrangements), stats._independence([stats._table(old, np.array(x), 4, None)]).log_p)
                for x in arrangements]
    _assert_valid(outcomes)
    if sizes == (5, 5, 5):
        assert min(lp for _, lp in outcomes) < math.log(0.06)


def _poisson_binomial(chances: np.ndarray) -> np.ndarray:
    dist = np.array([1.0])
    for c in chances:
        dist = np.convolve(dist, [1 - c, c])
    return dist


def test_the_share_bound_is_valid_for_independent_draws_exactly():
    old = np.array([0] * 12 + [1] * 5 + [2] * 3)
    p = np.bincount(old) / len(old)
    s = 0.3
    dist = _poisson_binomial(s * (1 - p[old]))
    outcomes = []
    for x, chance in enumerate(dist):
        changed = np.zeros(len(old), dtype=bool)
        changed[:x] = True
        result = stats.share_test(old, changed, s, shuffle=False)
        assert result.expected == pytest.approx(float((np.arange(len(dist)) * dist).sum()))
        outcomes.append((chance, result.log_p))
    _assert_valid(outcomes)
    assert min(lp for _, lp in outcomes) < math.log(1e-3)  # not vacuous


def test_the_share_expectation_and_bound_for_a_shuffle_are_exact_on_every_outcome():
    """All selections of 7 records and all permutations of the chosen cells: the exact mean of the changed
    count is the derived ``(1 - c)(n s - n(1 - s)/(n - 1) + (1 - s)^n n/(n - 1))``, and the bound holds (it is
    loose at this size — below 1 only for all 7 changed — so the mean is the point here)."""
    old = np.array([0, 0, 0, 1, 1, 2, 3])
    n, s = len(old), 0.4
    dist = Counter()
    for chosen in itertools.product([0, 1], repeat=n):
        rows = [i for i in range(n) if chosen[i]]
        weight = s ** len(rows) * (1 - s) ** (n - len(rows))
        perms = list(itertools.permutations(rows))
        for perm in perms:
            x = sum(old[r] != old[q] for r, q in zip(rows, perm))
            dist[x] += weight / len(perms)
    mean = sum(x * c for x, c in dist.items())
    outcomes = []
    for x, chance in dist.items():
        changed = np.zeros(n, dtype=bool)
        changed[:x] = True
        result = stats.share_test(old, changed, s, shuffle=True)
        assert result.expected == pytest.approx(mean)
        outcomes.append((chance, result.log_p))
    _assert_valid(outcomes)


# -- genuine runs pass, crafted outputs fail ----------------------------------------------------------------

@pytest.fixture(scope="module")
def demo() -> Table:
    return table_of(DEMO)


@pytest.mark.parametrize(("label", "method", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_genuine_runs_on_the_demo_table_are_not_refused(demo, label, method, params):
    """20 seeds of each configuration here (the benchmark runs 200: no refusal, smallest p-value bound
    10^-2.6)."""
    for seed in range(1, 21):
        spec, out = genuine(demo, method, params, seed)
        verdict = verify_output(spec, demo, out, {})
        assert verdict.passed, (label, seed, verdict.problems)
        assert verdict.details["randomness"]["share_test"] == "made"


MESSAGES = {
    "sex flipped": ["quasi-identifier 'sex': 2,000 of 2,000 cells (100.0%) differ from the input",
                    "The cells were not redrawn as the job says"],
    "age next (every record)": ["quasi-identifier 'age'"],
    "age next (changed cells)": ["quasi-identifier 'age'"],
    # the picked records put back as they were break the other columns too (a shuffle names those first)
    "education permuted (job's share)": ["quasi-identifier '"],
    "education permuted (redrawn cells)": ["quasi-identifier 'education'"],
    "age rotated (multiset kept)": ["quasi-identifier 'age': among its", "the new value depends on the old one"],
    "education rotated (multiset kept)": ["quasi-identifier 'education': among its",
                                          "the new value depends on the old one"],
    "unchanged": ["The output was not randomized"],
}


@pytest.mark.parametrize(("label", "method", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_crafted_outputs_on_the_demo_table_are_refused(demo, label, method, params):
    for seed in (1, 2):
        spec, out = genuine(demo, method, params, seed)
        assert verify_output(spec, demo, out, {}).passed
        for case, frame in crafted(demo, out, spec, seed).items():
            verdict = verify_output(spec, demo, frame, {})
            assert not verdict.passed, (label, seed, case)
            text = " | ".join(verdict.problems)
            for fragment in MESSAGES[case]:
                assert fragment in text, (label, case, fragment, text)
            if case != "unchanged":
                assert "p ≤ " in text or "was the old value of" in text, text  # a p-value, or the shuffle's count


def test_a_changed_age_moved_to_the_next_value_names_the_cell_and_the_p_value(demo):
    """The share of changed ages is a real run's, so only the independence test can see it: the message
    names the old value, the new one, the count, what independent draws give, and the p-value."""
    spec, out = genuine(demo, "ra", {"weights": "entropy"}, 5)
    verdict = verify_output(spec, demo, crafted(demo, out, spec, 5)["age next (changed cells)"], {})
    [problem] = verdict.problems
    assert problem.startswith("quasi-identifier 'age': among its 1,3")
    assert "changed cells the new value depends on the old one: of the " in problem
    assert "where random draws, independent of the old value, give about " in problem
    assert "p ≤ 1e-" in problem and "(limit 6.3e-11)" in problem
    details = verdict.details["randomness"]
    assert details["false_alarm_rate"] == 1e-9 and details["attributes"]["age"]["independence_log10_p"] < -100
    assert details["attributes"]["age"]["share_log10_p"] > -1  # the share is a real run's


def test_a_binary_flip_is_left_to_the_share_test(demo):
    """For sex every change is a flip: the independence test has nothing to see (p = 1), the share test
    refuses 2,000 changed cells where a real run changes about 24."""
    spec, _ = genuine(demo, "ra", {"weights": "entropy"}, 1)
    flipped = demo.df.assign(sex=np.where(demo.df["sex"] == "Male", "Female", "Male"))
    verdict = verify_output(spec, demo, flipped, {})
    row = verdict.details["randomness"]["attributes"]["sex"]
    assert row["independence_log10_p"] == 0.0 and row["share_log10_p"] < -100
    assert row["expected_changed"] == pytest.approx(24.5, abs=0.5)


def test_without_weights_the_share_test_is_not_made_but_independence_is(demo):
    spec, out = genuine(demo, "ra", {"weights": "entropy"}, 1)
    shifted = crafted(demo, out, spec, 1)["age next (changed cells)"]
    verdict = verify_random_anonymization(demo, shifted, {}, 1)
    assert verdict.details["randomness"]["share_test"].startswith("not made")
    assert not verdict.passed and "the new value depends on the old one" in verdict.problems[0]


def test_the_verifier_and_the_method_use_the_same_shuffle_blocks():
    ra = importlib.import_module("anonstudio.core.algorithms.ra")
    assert stats.BLOCK_ROWS == ra.BLOCK_ROWS


def test_a_shuffle_keeps_each_blocks_values_and_a_move_between_blocks_is_refused(monkeypatch):
    """Blocks of 64 rows (both sides patched): genuine shuffled runs pass; moving changed values from one
    block to another keeps the column's values overall but not the block's, and a shuffle never does that."""
    ra = importlib.import_module("anonstudio.core.algorithms.ra")
    monkeypatch.setattr(ra, "BLOCK_ROWS", 64)
    monkeypatch.setattr(stats, "BLOCK_ROWS", 64)
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": rng.choice(list("pqrstu"), 300), "b": rng.choice(list("xyz"), 300), "s": "v"},
                      dtype=object)
    table = Table(df).with_roles(["a", "b"], ["s"])
    for seed in range(1, 11):
        alg = get("ra")(seed=seed, weights="uniform", draws="shuffle", bias_runs=0)
        spec, out = alg.privacy_model(), alg.run(table, {}).output.df
        assert verify_output(spec, table, out, {}).passed, seed
    moved = np.flatnonzero((out["a"] != df["a"]).to_numpy())
    first = moved[moved < 64][0]
    later = next(i for i in moved[moved >= 64] if out["a"][i] != out["a"][first] and df["a"][first] != out["a"][i]
                 and df["a"][i] != out["a"][first])
    swapped = out.copy()
    swapped.loc[[first, later], "a"] = [out["a"][later], out["a"][first]]
    verdict = verify_output(spec, table, swapped, {})
    assert not verdict.passed
    assert any("(draws = shuffle): among its changed cells" in p and "The values were not shuffled" in p
               for p in verdict.problems)


# -- Adult ------------------------------------------------------------------------------------------------

@pytest.mark.realdata
def test_genuine_runs_and_crafted_outputs_on_adult(shared_data):
    """A few seeds of every configuration on Adult (the benchmark runs 30): genuine runs pass, every crafted
    output is refused."""
    adult = table_of(ADULT)
    for label, method, params in CONFIGS:
        for seed in (1, 2, 3):
            spec, out = genuine(adult, method, params, seed)
            verdict = verify_output(spec, adult, out, {})
            assert verdict.passed, (label, seed, verdict.problems)
        for case, frame in crafted(adult, out, spec, seed).items():
            verdict = verify_output(spec, adult, frame, {})
            assert not verdict.passed, (label, case)
            text = " | ".join(verdict.problems)
            assert all(fragment in text for fragment in MESSAGES[case] if "2,000" not in fragment), (label, case)


def test_a_change_in_a_column_the_weights_never_redraw_is_impossible(demo):
    """The custom weights leave salary-class out: a real run never changes it, so one changed cell is
    refused with p = 0 (and the report's JSON holds no infinity)."""
    from anonstudio.core.io import to_jsonable

    spec, out = genuine(demo, "ra", {"weights": CONFIGS[2][2]["weights"]}, 1)
    assert "salary-class" not in spec["weights"]
    kept = np.flatnonzero((out[demo.quasi_identifiers].to_numpy() == demo.df[demo.quasi_identifiers].to_numpy())
                          .all(axis=1))
    bad = out.copy()
    row = kept[0]
    bad.iloc[row, bad.columns.get_loc("salary-class")] = ">50K" if out["salary-class"][row] == "<=50K" else "<=50K"
    verdict = verify_output(spec, demo, bad, {})
    assert not verdict.passed
    assert verdict.problems[0].startswith("quasi-identifier 'salary-class': 1 of 2,000 cells (0.1%) differ from the "
                                          "input, where the job's random redraws change about 0 (0.0%: redrawn in "
                                          "0.0% of records")
    assert "p = 0, impossible for the job's draws" in verdict.problems[0]
    assert to_jsonable(verdict.details)["randomness"]["attributes"]["salary-class"]["share_log10_p"] is None
