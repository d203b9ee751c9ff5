"""Paper 001's knowledge-preservation analysis: the relative bias B(q) and variance of R(q) (§5.2, §6),
count-query answering on RA, generalized and Anatomy output (§7.2, Eqs. 12-13) and quasi-sensitive rules
(§7.3, Apriori)."""

from __future__ import annotations

from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.metrics._queries import (
    AnatomyTables,
    CountQuery,
    Domain,
    GeneralizedTable,
    PublishedTable,
    random_queries,
    relative_errors,
)
from anonstudio.core.metrics._ra_bias import (
    bias_table,
    eq10_bias,
    frequent_combinations,
    mismatch_counts,
    relative_difference_moments,
    selection_algorithm1,
    selection_algorithm2,
)
from anonstudio.core.metrics._rules import anatomy_rules, quasi_sensitive_rules, recovered


# ---------------------------------------------------------------------------------------------------------
# B(q) and Var R(q): exact moments against brute-force enumeration of every outcome of one record
def _brute_force(records, q_attrs, q_values, dists, choose):
    """E and Var of n·supp'(q) by enumerating, per record, every attribute choice and every redraw."""
    probs = []
    for rec in records:
        total = 0.0
        for chosen, p_choice in choose:
            draws = [list(dists[a].items()) for a in chosen]
            for combo in product(*draws):
                p = p_choice * np.prod([pv for _, pv in combo])
                new = dict(rec)
                new.update({a: v for a, (v, _) in zip(chosen, combo)})
                if all(new[a] == v for a, v in zip(q_attrs, q_values)):
                    total += p
        probs.append(total)
    probs = np.array(probs)
    return probs.sum(), (probs * (1 - probs)).sum()


@pytest.fixture
def tiny():
    rng = np.random.default_rng(3)
    attrs = ["a", "b", "c", "d"]
    records = [{a: int(rng.integers(0, 3)) for a in attrs} for _ in range(9)]
    records[0].update(a=1, b=2)  # q = (a=1, b=2) occurs
    frame = pd.DataFrame(records)
    dists = {a: (frame[a].value_counts(normalize=True)).to_dict() for a in attrs}
    return attrs, records, frame, dists


@pytest.mark.parametrize("q_attrs", [["a"], ["a", "b"], ["a", "b", "c"]])
def test_exact_moments_match_enumeration_for_algorithm_1(tiny, q_attrs):
    attrs, records, frame, dists = tiny
    p = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4}
    q_values = [records[0][a] for a in q_attrs]
    mean, var = _brute_force(records, q_attrs, q_values, dists, [([a], p[a]) for a in attrs])
    matches = np.column_stack([frame[a].to_numpy() == v for a, v in zip(q_attrs, q_values)])
    counts = mismatch_counts(matches)
    draw = matches.mean(axis=0)
    e_r, var_r = relative_difference_moments(counts, draw, selection_algorithm1([p[a] for a in q_attrs]))
    c0 = counts[0]
    assert e_r == pytest.approx(mean / c0 - 1, abs=1e-12)
    assert var_r == pytest.approx(var / c0**2, abs=1e-12)
    # Eq. 10 as printed is the same mean (as |·|)
    assert eq10_bias(counts, draw, [p[a] for a in q_attrs]) == pytest.approx(abs(e_r), abs=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("q_attrs", [["a"], ["b", "c"], ["a", "c", "d"]])
def test_exact_moments_match_enumeration_for_algorithm_2(tiny, k, q_attrs):
    attrs, records, frame, dists = tiny
    q_values = [records[0][a] for a in q_attrs]
    subsets = list(combinations(attrs, k))
    mean, var = _brute_force(records, q_attrs, q_values, dists, [(list(s), 1 / len(subsets)) for s in subsets])
    matches = np.column_stack([frame[a].to_numpy() == v for a, v in zip(q_attrs, q_values)])
    counts = mismatch_counts(matches)
    e_r, var_r = relative_difference_moments(counts, matches.mean(axis=0), selection_algorithm2(len(attrs), k, len(q_attrs)))
    assert e_r == pytest.approx(mean / counts[0] - 1, abs=1e-12)
    assert var_r == pytest.approx(var / counts[0] ** 2, abs=1e-12)


def test_selection_probabilities_are_distributions():
    assert selection_algorithm1([0.2, 0.3]).sum() == pytest.approx(1)
    for m, k, l in [(8, 1, 2), (8, 5, 3), (9, 9, 4), (5, 3, 5)]:
        assert selection_algorithm2(m, k, l).sum() == pytest.approx(1)


def test_a_single_attribute_has_zero_bias_as_the_paper_says():
    """§5.2: with one quasi-identifier B(q) = 1/lift − 1 = 0."""
    frame = pd.DataFrame({"a": list("xxxyyz")})
    matches = (frame["a"] == "x").to_numpy()[:, None]
    mean, var = relative_difference_moments(mismatch_counts(matches), [0.5], selection_algorithm1([1.0]))
    assert mean == pytest.approx(0, abs=1e-15) and var > 0


@pytest.mark.realdata
@pytest.mark.parametrize("method,params", [("ra", {"weights": "uniform"}), ("ra", {"weights": "entropy"}),
                                           ("ra-enhanced", {"attributes_per_record": 3})])
def test_analytic_and_measured_bias_agree_on_adult(adult_ra, method, params):
    """The 20 most frequent single values and pairs: the measured mean of R(q) over 100 seeded runs lies within
    4 standard errors of the exact E R(q) for every one (≈ 1 in 16,000 by chance), and the z-scores have
    variance near 1 (so the exact variance is right too)."""
    table, qis = adult_ra
    # the algorithm alone (no verify, no evaluate): 100 runs in a few seconds
    runs = [get(method)(seed=s, bias_runs=0, **params).run(table, {}) for s in range(100)]
    first = runs[0]
    combos = frequent_combinations(table.df, qis, 1, 20) + frequent_combinations(table.df, qis, 2, 20)
    assert len(combos) == 40 and sum(len(c) == 2 for c in combos) == 20
    kw = ({"weights": dict(zip(qis, first.details["weights"]))} if method == "ra"
          else {"per_record": params["attributes_per_record"]})
    b = bias_table(table.df, [r.output.df for r in runs], combos, qis, **kw)
    assert b["z"].abs().max() < 4, b.sort_values("z").to_string()
    assert 0.5 < float((b["z"] ** 2).mean()) < 1.8
    assert (b["empirical_sd"] / b["R_sd"]).between(0.7, 1.4).all()
    if method == "ra":
        assert np.allclose(b["eq10_B"], b["R_mean"].abs(), atol=1e-12)
        # Eq. 11 as printed does not shrink with n: far above the measured variance
        assert (b["eq11_var"] > 10 * b["empirical_sd"] ** 2).mean() > 0.9


@pytest.fixture(scope="module")
def adult_ra(shared_data):
    from anonstudio.core.io import read_table

    t = read_table(shared_data / "adult" / "adult.csv")
    qis = [c for c in t.df.columns if c != "occupation"]
    return t.with_roles(qis, ["occupation"]), qis


@pytest.mark.realdata
def test_the_ra_job_reports_its_bias_and_keeps_the_table_for_the_view(adult_ra):
    table, qis = adult_ra
    outcome = jobs.anonymize(table, {}, get("ra")(seed=3, bias_runs=12))
    m = outcome.report["metrics"]
    assert m["bias_combinations"] == 40 and m["bias_max_abs_z"] < 4.5
    b = outcome.result.details["bias"]
    assert list(b["length"].value_counts().sort_index()) == [20, 20]
    off = jobs.anonymize(table, {}, get("ra")(seed=3, bias_runs=0))
    assert "empirical_mean" not in off.result.details["bias"] and off.report["metrics"]["bias_max_abs_z"] is None


# ---------------------------------------------------------------------------------------------------------
# count queries (§7.2)
@pytest.fixture
def people():
    return pd.DataFrame({"age": ["20", "20", "30", "30", "40", "40"],
                         "sex": ["M", "F", "M", "F", "M", "F"],
                         "job": ["a", "b", "a", "c", "b", "c"]})


def test_eq_12_assumes_values_uniform_in_a_generalized_cell(people):
    """Two classes: ages 20-30 generalized (4 rows), age 40 kept (2 rows); sex suppressed everywhere."""
    h = Hierarchy("age", [["20", "20-30", "*"], ["30", "20-30", "*"], ["40", "40-40", "*"]])
    gen = people.assign(age=["20-30"] * 4 + ["40", "40"], sex=["*"] * 6)
    dom = Domain(people, ["age", "sex", "job"])
    g = GeneralizedTable(gen, dom, ["age", "sex"], "job", {"age": h})
    q = CountQuery((("age", frozenset({"20"})), ("sex", frozenset({"M"})), ("job", frozenset({"a"}))))
    # class 1: #(job=a) = 2, age 20 is 1 of its 2 values, M 1 of 2 → 2 · 1/2 · 1/2; class 2 holds no age 20
    assert g.answer(q) == pytest.approx(0.5)
    assert PublishedTable(people, dom).answer(q) == 1.0


def test_eq_13_spreads_each_groups_sensitive_values_over_its_records(people):
    qit = people.drop(columns="job").assign(group=["1", "1", "1", "2", "2", "2"])
    st = pd.DataFrame({"group": ["1", "1", "2", "2"], "job": ["a", "b", "b", "c"], "count": ["2", "1", "1", "2"]})
    dom = Domain(people, ["age", "sex", "job"])
    an = AnatomyTables(qit, st, dom, "job")
    q = CountQuery((("sex", frozenset({"M"})), ("job", frozenset({"a"}))))
    # group 1: 2 of its 3 records are M, 2 of 3 sensitive values are a → 2 · 2/3; group 2 has no a
    assert an.answer(q) == pytest.approx(4 / 3)
    q2 = CountQuery((("sex", frozenset({"M", "F"})), ("job", frozenset({"a", "b", "c"}))))
    assert an.answer(q2) == pytest.approx(6)


def test_random_queries_have_answers_and_the_original_answers_itself_exactly(people):
    rng = np.random.default_rng(0)
    qs = random_queries(people, ["age", "sex"], "job", 2, 25, rng)
    dom = Domain(people, ["age", "sex", "job"])
    truth = PublishedTable(people, dom)
    assert len(qs) == 25 and all(len(q.conditions) == 3 and q.attributes[-1] == "job" for q in qs)
    assert all(truth.answer(q) > 0 for q in qs)
    assert relative_errors(qs, truth, truth).max() == 0
    with pytest.raises(ValueError, match="between 1 and"):
        random_queries(people, ["age", "sex"], "job", 3, 1, rng)


# ---------------------------------------------------------------------------------------------------------
# quasi-sensitive rules (§7.3)
def test_rules_are_mined_at_the_thresholds_and_recovery_is_counted_per_length():
    frame = pd.DataFrame({"sex": ["M"] * 6 + ["F"] * 4, "age": ["y"] * 3 + ["o"] * 3 + ["y"] * 4,
                          "job": ["a", "a", "a", "b", "b", "a", "c", "c", "c", "a"]})
    rules = quasi_sensitive_rules(frame, ["sex", "age"], "job", min_support=0.25, min_confidence=0.5)
    # M,y → a: support 3/10, confidence 1; F → c 3/4; y → a 4/7 (4 of the 7 young); M → a 4/6
    assert rules[(frozenset({"sex=M", "age=y"}), "job=a")] == pytest.approx(1.0)
    assert rules[(frozenset({"sex=F"}), "job=c")] == pytest.approx(0.75)
    assert rules[(frozenset({"sex=M"}), "job=a")] == pytest.approx(4 / 6)
    assert (frozenset({"age=o"}), "job=b") not in rules  # support 2/10 < 0.25
    half = dict(list(rules.items())[:2])
    r = recovered(rules, half)
    assert r["found"] == 2 and r["percent"] == pytest.approx(200 / len(rules)) and r["artificial"] == 0
    assert set(r["per_length"]) == {1, 2} and sum(r["per_length_rules"].values()) == len(rules)


def test_anatomy_rules_use_the_groups_uniform_association():
    qit = pd.DataFrame({"sex": ["M", "M", "F", "F"], "group": ["1", "1", "2", "2"]})
    st = pd.DataFrame({"group": ["1", "1", "2", "2"], "job": ["a", "b", "a", "c"], "count": ["1", "1", "1", "1"]})
    rules = anatomy_rules(qit, st, ["sex"], "job", min_support=0.2, min_confidence=0.4)
    # M → a: each M record is a with probability 1/2: support 2·1/2/4 = 0.25, confidence 0.5
    assert rules[(frozenset({"sex=M"}), "job=a")] == pytest.approx(0.5)
    assert rules[(frozenset({"sex=F"}), "job=c")] == pytest.approx(0.5)
    assert (frozenset({"sex=M"}), "job=c") not in rules
