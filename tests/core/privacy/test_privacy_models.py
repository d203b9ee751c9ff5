"""Privacy models as classes (issue 12): each judges classes from statistics, against brute force; partitioning
methods ask them what every part must keep."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.algorithms import get
from anonstudio.core.privacy import models_of
from anonstudio.core.privacy._models import (
    MODELS,
    ClassStats,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    CondensedGroups,
    FragmentRule,
    FrequencyLDiversity,
    KCPrivacy,
    partition_limits,
    table_models,
)

classes_st = st.lists(st.lists(st.sampled_from("abcde"), min_size=1, max_size=12), min_size=1, max_size=8)


def _stats(groups: list[list[str]], high=None) -> ClassStats:
    pairs = [(i, v, c) for i, g in enumerate(groups) for v, c in Counter(g).items()]
    return ClassStats(np.array([len(g) for g in groups]), np.array([p[0] for p in pairs]),
                      np.array([p[2] for p in pairs], dtype=float),
                      None if high is None else np.array(high))


@settings(max_examples=80, deadline=None)
@given(classes_st, st.integers(1, 6), st.floats(1, 5))
def test_each_model_fails_exactly_the_classes_brute_force_says(groups, k, l):
    stats = _stats(groups)
    assert list(KAnonymity(k=k).failing(stats)) == [i for i, g in enumerate(groups) if len(g) < k]
    want_distinct = [i for i, g in enumerate(groups) if len(set(g)) < l] if l > 1 else []
    assert list(DistinctLDiversity(l=l).failing(stats)) == want_distinct

    def entropy(g):
        return -sum(c / len(g) * math.log(c / len(g)) for c in Counter(g).values())

    want_entropy = [i for i, g in enumerate(groups) if entropy(g) < math.log(l) - 1e-9] if l > 1 else []
    assert list(EntropyLDiversity(l=l).failing(stats)) == want_entropy


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 10), st.integers(0, 10)), min_size=1, max_size=8), st.integers(1, 6),
       st.floats(0.05, 1.0))
def test_kc_privacy_against_brute_force(groups, k, c):
    groups = [(n, min(h, n)) for n, h in groups]
    stats = ClassStats(np.array([n for n, _ in groups]), high=np.array([h for _, h in groups]))
    want = [i for i, (n, h) in enumerate(groups) if n < k or h / n > c + 1e-12]
    assert list(KCPrivacy(k=k, c=c).failing(stats)) == want


def test_models_declare_parameters_and_compose_into_the_strictest_limits():
    assert set(MODELS) == {"k-anonymity", "distinct l-diversity", "entropy l-diversity", "frequency l-diversity",
                           "(k,c)-privacy", "condensed groups", "fragment rule", "near-copy rule",
                           # issue 32: the models ARX users know (core/privacy/_distribution_models.py, _population_models.py)
                           "recursive-cl-diversity", "t-closeness", "delta-disclosure", "beta-likeness",
                           "alpha-k-anonymity", "delta-presence", "k-map", "average-risk", "sample-uniqueness",
                           "population-uniqueness"}
    assert [m.name for m in table_models(5, 3, "distinct")] == ["k-anonymity", "distinct l-diversity"]
    limits = partition_limits([KAnonymity(k=5), KAnonymity(k=8), EntropyLDiversity(l=2), KCPrivacy(k=3, c=0.6),
                               KCPrivacy(k=2, c=0.4)])
    assert limits == {"min_size": 8, "min_entropy": math.log(2), "max_share": 0.4}
    assert KAnonymity.parameters.names() == ["k"] and EntropyLDiversity(l=2).params == {"l": 2.0}


def test_mondrian_asks_its_models():
    m = get("mondrian")(k=7, l=3, l_kind="distinct")
    assert [type(x).__name__ for x in m.models()] == ["KAnonymity", "DistinctLDiversity"]
    assert partition_limits(m.models()) == {"min_size": 7, "min_distinct": 3}
    assert [type(x).__name__ for x in get("mst")(k=4).models()] == ["KAnonymity"]


@settings(max_examples=60, deadline=None)
@given(classes_st, st.integers(2, 5))
def test_frequency_l_diversity_against_brute_force(groups, l):
    """Anatomy's rule: no value more than 1/l of its group."""
    want = [i for i, g in enumerate(groups) if max(Counter(g).values()) * l > len(g)]
    assert list(FrequencyLDiversity(l=l).failing(_stats(groups))) == want


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 9)), min_size=1, max_size=10), st.integers(1, 9))
def test_condensation_rules_against_brute_force(strings, k):
    """Fragment rule: a string fails iff it holds a rare fragment (length > 0); group rule: groups below k."""
    stats = ClassStats(np.ones(len(strings), np.int64), fragment=np.array([f for f, _ in strings]),
                       holders=np.array([h for _, h in strings]))
    rule = FragmentRule(k=k, max_fragment=12)
    assert list(rule.failing(stats)) == [i for i, (f, _) in enumerate(strings) if f > 0]
    sizes = [h for _, h in strings]
    assert list(CondensedGroups(k=k).failing(ClassStats(np.array(sizes)))) == [i for i, n in enumerate(sizes) if n < k]


def test_a_declared_spec_becomes_the_models_it_names():
    assert [m.name for m in models_of({"model": "k-anonymity", "k": 4, "l": 2, "l_kind": "distinct"})] == [
        "k-anonymity", "distinct l-diversity"]
    assert [m.name for m in models_of({"model": "pseudo-strings", "k": 5, "max_fragment": 20})] == [
        "condensed groups", "fragment rule"]
    assert [m.params for m in models_of({"model": "pseudo-strings", "k": 5, "max_fragment": 20,
                                         "near_copy_identity": 0.9, "near_copy_length": 60})][-1] == {
        "k": 5, "near_copy_identity": 0.9, "near_copy_length": 60}
    assert [m.params for m in models_of({"model": "anatomy", "l": 3})] == [{"l": 3}]
    assert [m.params for m in models_of({"model": "(k,c)-privacy", "k": 2, "c": 0.5})] == [{"k": 2, "c": 0.5}]
