"""Issue 39: the near-match attack on a random-anonymization release, counted by inclusion–exclusion over masked
quasi-identifier tuples (no pairs), against a table counted by hand and against all pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.metrics._ra_linkage import MAX_SUBSETS, brute_force, singled_out, subsets_needed

QIS = ["a", "b", "c"]


def test_a_crafted_table_counted_by_hand():
    original = pd.DataFrame([("a", "x", "1", "F"), ("a", "x", "2", "H"), ("b", "y", "3", "H"), ("c", "z", "3", "C"),
                             ("a", "y", "1", "H")], columns=[*QIS, "s"])
    published = pd.DataFrame([("a", "x", "1", "F"), ("a", "x", "2", "H"), ("b", "y", "3", "H"), ("c", "w", "3", "C"),
                              ("e", "e", "e", "H")], columns=[*QIS, "s"])
    # row 0 (a,x,1): rows 0 and 1 within one change (F, H): not singled out, not certain
    # row 1 (a,x,2): rows 0 and 1 again
    # row 2 (b,y,3): only row 2 (row 3 is two changes away): singled out, its own, H certain
    # row 3 (c,z,3): only row 3 (z -> w), two changes from row 2: singled out, its own, C certain
    # row 4 (a,y,1): only row 0 (y -> x), which is not its own (published as e,e,e): singled out, wrongly; row 0
    #                carries F, row 4 holds H: not certain
    f = singled_out(original, published, QIS, 1, ["s"])
    assert f == {"max_changed": 1, "records": 5, "computed": True, "singled_out": 3, "singled_out_correct": 2,
                 "sensitive_certain": 2, "share": 0.4}
    # within two changes: row 2 and row 3 find each other, row 4 finds rows 0, 1 and 2
    f2 = singled_out(original, published, QIS, 2, ["s"])
    assert (f2["singled_out"], f2["singled_out_correct"], f2["sensitive_certain"]) == (0, 0, 0)
    assert brute_force(original, published, QIS, 2, ["s"]) == {"singled_out": 0, "singled_out_correct": 0,
                                                              "sensitive_certain": 0}
    # without a sensitive column there is nothing to be certain of
    assert singled_out(original, published, QIS, 1)["sensitive_certain"] is None


@pytest.mark.parametrize("seed", range(12))
def test_the_count_agrees_with_all_pairs(seed):
    r = np.random.default_rng(seed)
    n, q, m = int(r.integers(1, 80)), int(r.integers(1, 7)), int(r.integers(1, 3))
    qis = [f"q{j}" for j in range(q)]
    values = np.array(["0", "1", "2", None], dtype=object)  # missing cells a value of their own
    original = pd.DataFrame(values[r.integers(0, 4, (n, q))], columns=qis)
    original["s"] = values[r.integers(0, 3, n)]
    published = original.copy()
    for i in range(n):  # at most m cells of a record redrawn, as RA does
        for j in r.choice(q, size=min(m, q), replace=False):
            published.iat[i, j] = values[r.integers(0, 4)]
    fast = singled_out(original, published, qis, m, ["s"])
    slow = brute_force(original, published, qis, m, ["s"])
    assert {k: fast[k] for k in slow} == slow
    assert fast["singled_out_correct"] == fast["singled_out"]  # a record's own release is always a candidate


def test_beyond_the_groupings_it_takes_the_count_is_refused_and_says_so():
    assert subsets_needed(16, 2) == 137 <= MAX_SUBSETS < subsets_needed(20, 2) == 211
    assert subsets_needed(8, 3) == 93  # ra-enhanced's default (3 per record) on eight quasi-identifiers: counted
    frame = pd.DataFrame([[str(j) for j in range(20)]], columns=[f"q{j}" for j in range(20)])
    f = singled_out(frame, frame, list(frame.columns), 2)
    assert not f["computed"] and "20 quasi-identifiers at 2 changes per record need 211 groupings" in f["reason"]
