"""The display alignment (Needleman–Wunsch, linear gaps) used by the compare pane."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from anonstudio.core.metrics._display_alignment import GAP, align_for_display


def _score(row_a, row_b, match=2, mismatch=-1, gap=-2):
    s = 0
    for x, y in zip(row_a, row_b):
        s += gap if GAP in (x, y) else match if x == y else mismatch
    return s


def _best_score_bruteforce(a: str, b: str, match=2, mismatch=-1, gap=-2) -> int:
    """Plain O(nm) NW with Python loops, to check the vectorised rows."""
    n, m = len(a), len(b)
    H = np.zeros((n + 1, m + 1), dtype=int)
    H[:, 0] = gap * np.arange(n + 1)
    H[0, :] = gap * np.arange(m + 1)
    for i, j in itertools.product(range(1, n + 1), range(1, m + 1)):
        H[i, j] = max(H[i - 1, j - 1] + (match if a[i - 1] == b[j - 1] else mismatch), H[i - 1, j] + gap,
                      H[i, j - 1] + gap)
    return int(H[n, m])


@pytest.mark.parametrize(
    "a,b", [("GATTACA", "GCATGCU"), ("ACGT", "ACGT"), ("", "AC"), ("AC", ""), ("MKVLA", "MKLA"), ("AAAA", "TTTTTTTT")]
)
def test_alignment_is_optimal_and_keeps_both_strings(a, b):
    row_a, row_b, score = align_for_display(a, b)
    assert len(row_a) == len(row_b)
    assert "".join(x for x in row_a if x != GAP) == a
    assert "".join(y for y in row_b if y != GAP) == b
    assert score == _score(row_a, row_b) == _best_score_bruteforce(a, b)


def test_random_protein_pairs_match_the_reference_recurrence():
    rng = np.random.default_rng(0)
    letters = list("ACDEFGHIKLMNPQRSTVWY")
    for _ in range(20):
        a = "".join(rng.choice(letters, rng.integers(1, 30)))
        b = "".join(rng.choice(letters, rng.integers(1, 30)))
        assert align_for_display(a, b)[2] == _best_score_bruteforce(a, b)


def test_a_deletion_is_shown_as_one_gap():
    row_a, row_b, _ = align_for_display("MKVLAAG", "MKLAAG")
    assert row_b.count(GAP) == 1 and row_a.count(GAP) == 0
    assert row_b[row_a.index("V")] == GAP


def test_item_tokens_align_as_symbols():
    row_a, row_b, _ = align_for_display(["bread", "milk", "eggs"], ["bread", "eggs"])
    assert row_a == ["bread", "milk", "eggs"] and row_b == ["bread", GAP, "eggs"]


def test_positive_gap_is_refused():
    with pytest.raises(ValueError):
        align_for_display("A", "A", gap=1)
