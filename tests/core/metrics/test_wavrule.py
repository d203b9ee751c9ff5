"""WavRule (Aggarwal, KDD 2002) as we read it: Haar items checked against a per-string brute force, rules that
need the wavelet's resolution, the best matching rule deciding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.data import SequenceSet
from anonstudio.core.errors import ParameterError
from anonstudio.core.metrics._wavrule import WavRule, wavelet_items, wavrule_accuracy


def _brute_items(text: str, symbols: list[str], levels: int) -> set[tuple]:
    n, items = len(text), set()
    for j in range(levels):
        segs = [[p for p in range(n) if p * 2**j // n == s] for s in range(2**j)]
        for s, seg in enumerate(segs):
            for p in seg:
                items.add(("in", j, s, text[p]))
        if j + 1 < levels:
            kids = [[p for p in range(n) if p * 2 ** (j + 1) // n == s] for s in range(2 ** (j + 1))]
            for s in range(2**j):
                left, right = kids[2 * s], kids[2 * s + 1]
                for a in symbols:
                    d = (sum(text[p] == a for p in left) / max(len(left), 1)
                         - sum(text[p] == a for p in right) / max(len(right), 1))
                    if abs(d) > 1e-12:
                        items.add(("lean", j, s, a, "left" if d > 0 else "right"))
    return items


def _decode(col: int, sigma: int, levels: int, symbols: list[str]) -> tuple:
    base = 0
    for j in range(levels):
        width = 2**j * sigma
        if col < base + width:
            s, a = divmod(col - base, sigma)
            return ("in", j, s, symbols[a])
        base += width
    for j in range(levels - 1):
        width = 2 * 2**j * sigma
        if col < base + width:
            sa, right = divmod(col - base, 2)
            s, a = divmod(sa, sigma)
            return ("lean", j, s, symbols[a], "right" if right else "left")
        base += width
    raise AssertionError(col)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abc", min_size=1, max_size=13), min_size=1, max_size=6), st.integers(1, 4))
def test_items_are_the_haar_coefficients_brute_force_says(strings, levels):
    data = SequenceSet.from_strings(strings)
    symbols = list(data.alphabet.symbols)
    m = wavelet_items(data, levels).tocsr()
    for i, text in enumerate(strings):
        got = {_decode(int(c), len(symbols), levels, symbols) for c in m[i].indices}
        assert got == _brute_items(text, symbols, levels)


def test_where_a_symbol_sits_separates_classes_that_composition_cannot():
    """Both classes hold the same letters; class A starts with 'x', class B ends with it."""
    rng = np.random.default_rng(0)
    body = lambda: "".join(rng.choice(list("abcd"), 11))  # noqa: E731
    a = ["x" + body() for _ in range(60)]
    b = [body() + "x" for _ in range(60)]
    train = SequenceSet.from_strings(a[:40] + b[:40])
    test = SequenceSet.from_strings(a[40:] + b[40:])
    y_train, y_test = ["A"] * 40 + ["B"] * 40, ["A"] * 20 + ["B"] * 20
    assert wavrule_accuracy(train, y_train, test, y_test, levels=2) == 1.0
    assert wavrule_accuracy(train, y_train, test, y_test, levels=1) <= 0.6  # composition alone: a coin toss


def test_the_most_confident_matching_rule_decides_and_unmatched_strings_get_the_majority():
    train = SequenceSet.from_strings(["ab", "ab", "ab", "ba", "cc", "cc", "cd"])
    model = WavRule(levels=1, min_support=0.3, min_confidence=0.9).fit(train, ["P", "P", "P", "P", "Q", "Q", "Q"])
    assert all(r.confidence >= 0.9 for r in model.rules)
    assert model.rules == sorted(model.rules, key=lambda r: (-r.confidence, -r.support))
    test = SequenceSet.from_strings(["ba", "dc", "dd"], alphabet=train.alphabet)
    assert list(model.predict(test)) == ["P", "Q", "Q"]
    # 'e' and 'f' are in no rule: a string of them gets the majority class
    four = SequenceSet.from_strings(["ab", "ab", "cd", "cd", "cd", "ef"])
    model = WavRule(levels=1, min_support=0.5, min_confidence=0.9).fit(four, ["P", "P", "Q", "Q", "Q", "Q"])
    assert {four.alphabet.symbols[r.items[0]] for r in model.rules} == {"a", "b", "c", "d"}
    assert list(model.predict(SequenceSet.from_strings(["fe", "ba"], alphabet=four.alphabet))) == ["Q", "P"]
    with pytest.raises(ParameterError, match="another alphabet"):
        model.predict(SequenceSet.from_strings(["xy"]))


def test_nonsense_settings_are_refused():
    with pytest.raises(ParameterError, match="levels"):
        WavRule(levels=0)
    with pytest.raises(ParameterError, match="min_support"):
        WavRule(min_support=0)
