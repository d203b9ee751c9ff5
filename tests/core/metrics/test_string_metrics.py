"""String metrics: composition / CD (Eq. 5), Needleman–Wunsch and the distance ordering (Eq. 6), k-NN, fragments."""

from __future__ import annotations

import numpy as np
import pytest

from anonstudio.core.algorithms.condensation import knn_original_vs_pseudo

from anonstudio.core import metrics
from anonstudio.core.data import SequenceSet
from anonstudio.core.errors import InputError


def seqs(strings, alphabet="protein-25"):
    return SequenceSet.from_strings(strings, alphabet=alphabet)


def test_composition_and_cd():
    a = seqs(["AACC", "AC"])
    f = metrics.composition(a)
    idx = a.alphabet.index()
    assert f[idx["A"]] == pytest.approx(0.5) and f[idx["C"]] == pytest.approx(0.5) and f.sum() == pytest.approx(1)
    assert metrics.compositional_difference(f, f) == 0.0
    b = seqs(["AAAC"])
    # |0.5 - 0.75| + |0.5 - 0.25|
    assert metrics.compositional_difference(f, metrics.composition(b)) == pytest.approx(0.5)
    # disjoint alphabets: the largest value
    assert metrics.compositional_difference(metrics.composition(seqs(["AA"])), metrics.composition(seqs(["CC"]))) == 2.0


def test_alphabet_mismatch_is_refused():
    with pytest.raises(InputError, match="alphabet mismatch"):
        metrics.compositional_difference(np.ones(20) / 20, np.ones(25) / 25)
    with pytest.raises(InputError, match="alphabet mismatch"):
        metrics.exact_copies(seqs(["ACGT"], "dna"), seqs(["ACG"]))


def test_nw_unit_distance_known_values():
    a = seqs(["KITTEN", "SITTING", "", "ACDE"])
    d = metrics.distance_block(a, [0, 2, 3], a, [1, 3])
    assert d.tolist() == [[3, 5], [7, 4], [7, 0]]


def test_nw_matches_biopython():
    from Bio import Align
    from Bio.Align import substitution_matrices

    rng = np.random.default_rng(0)
    letters = list("ACDEFGHIKLMNPQRSTVWY")
    strings = ["".join(rng.choice(letters, int(rng.integers(1, 60)))) for _ in range(12)]
    data = seqs(strings)
    unit = Align.PairwiseAligner(mode="global", match_score=0, mismatch_score=-1, gap_score=-1)
    blosum = Align.PairwiseAligner(mode="global", substitution_matrix=substitution_matrices.load("BLOSUM62"),
                                   open_gap_score=-12, extend_gap_score=-1)  # BLAST 11/1: a gap of g costs 11 + g
    d_unit = metrics.distance_block(data, np.arange(12), data, np.arange(12))
    d_blosum = metrics.distance_block(data, np.arange(12), data, np.arange(12), scoring="blosum62")
    for i in range(12):
        for j in range(12):
            assert d_unit[i, j] == -unit.score(strings[i], strings[j])
            self_i = blosum.score(strings[i], strings[i])
            self_j = blosum.score(strings[j], strings[j])
            expected = 0.5 * (self_i + self_j) - blosum.score(strings[i], strings[j])
            assert d_blosum[i, j] == pytest.approx(expected)


def _blast_11_1_aligner():
    from Bio import Align
    from Bio.Align import substitution_matrices

    # BLAST's 11/1 with BLOSUM62: a gap of g residues costs 11 + g; Biopython names the first residue's cost
    return Align.PairwiseAligner(mode="global", substitution_matrix=substitution_matrices.load("BLOSUM62"),
                                 open_gap_score=-12, extend_gap_score=-1)


@pytest.mark.parametrize("n_a, n_b", [(3, 150), (150, 3), (2, 2), (70, 70)])
def test_affine_scores_identical_to_biopython(n_a, n_b):
    """Issue 16/17: the SIMD-lane kernel (64 sequences a pass, either side on the lanes) and the scalar
    path give Biopython's scores exactly, with BLAST's gap convention, over lengths 0-400 and long gaps."""
    from anonstudio.core.kernels import _alignment as A

    rng = np.random.default_rng(n_a * 1000 + n_b)
    letters = list("ACDEFGHIKLMNPQRSTVWY")

    def strings(count):
        out = []
        for _ in range(count):
            s = "".join(rng.choice(letters, int(rng.integers(1, 400))))
            if rng.random() < 0.3:  # a long insertion forces long gaps
                s = s[: len(s) // 2] + "W" * int(rng.integers(20, 80)) + s[len(s) // 2 :]
            out.append(s)
        return out

    sa, sb = strings(n_a), strings(n_b)
    da, db = seqs(sa), seqs(sb)
    matrix = metrics.blosum62(da.alphabet)
    got = A.affine_block_scores(da.codes, da.offsets, np.arange(n_a), db.codes, db.offsets, np.arange(n_b), matrix,
                                11.0, 1.0)
    aligner = _blast_11_1_aligner()
    pairs = [(i, j) for i in range(n_a) for j in range(n_b)]
    for i, j in pairs[:: max(1, len(pairs) // 300)]:
        assert got[i, j] == aligner.score(sa[i], sb[j]), (i, j)
    i, j = pairs[0]
    assert A.nw_affine_score(da.codes_of(i), db.codes_of(j), matrix, 11.0, 1.0) == got[i, j]


def test_one_residue_gap_costs_open_plus_extend():
    # "ACDEF" vs "ACEF": one deletion; BLOSUM62 A/A 4, C/C 9, E/E 5, F/F 6 -> 24 - (11 + 1)
    data = seqs(["ACDEF", "ACEF"])
    matrix = metrics.blosum62(data.alphabet)
    from anonstudio.core.kernels import _alignment as A

    assert A.nw_affine_score(data.codes_of(0), data.codes_of(1), matrix, 11.0, 1.0) == 24 - 12
    assert _blast_11_1_aligner().score("ACDEF", "ACEF") == 12


def test_group_distance_is_the_sum_of_eq6():
    data = seqs(["AAAA", "AAAC", "CCCC", "CCAA"])
    assert metrics.group_distance(data, [0, 1], [2, 3]) == 4 + 2 + 3 + 3


def test_distance_ordering_identity_and_reversal():
    rng = np.random.default_rng(1)
    lengths = [10, 20, 40, 80, 160, 320]
    strings, groups = [], []
    for g, n in enumerate(lengths):
        for _ in range(3):
            strings.append("".join(rng.choice(list("ACDE"), n)))
            groups.append(g)
    data = seqs(strings)
    groups = np.array(groups)
    same = metrics.distance_order_preserved(data, groups, data, groups, pairs=15)
    assert same["preserved"] == 1.0 and same["group_pairs"] == 15
    # pseudo groups made of other strings: the fraction is recomputed here from Eq. 6 directly
    pseudo_groups = np.array([3, 0, 5, 1, 4, 2])[groups]
    res = metrics.distance_order_preserved(data, groups, data, pseudo_groups, pairs=15)
    pairs = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    v = [metrics.group_distance(data, np.flatnonzero(groups == i), np.flatnonzero(groups == j)) for i, j in pairs]
    w = [metrics.group_distance(data, np.flatnonzero(pseudo_groups == i), np.flatnonzero(pseudo_groups == j))
         for i, j in pairs]
    agree = [np.sign(v[a] - v[b]) == np.sign(w[a] - w[b]) for a in range(15) for b in range(a + 1, 15)]
    assert res["preserved"] == pytest.approx(np.mean(agree))
    assert res["preserved"] < 1.0


def test_knn_separates_distinct_classes():
    rng = np.random.default_rng(2)
    a = ["".join(rng.choice(list("ACDE"), 30)) for _ in range(40)]
    b = ["".join(rng.choice(list("KLMN"), 30)) for _ in range(40)]
    data = seqs(a + b)
    labels = ["a"] * 40 + ["b"] * 40
    acc = metrics.knn_accuracy(data, labels, data, labels, n_neighbors=3)
    assert acc == 1.0
    res = knn_original_vs_pseudo(data, labels, k=5, epsilon=0.5, test_size=20, seed=3)
    assert res["accuracy_original"] == 1.0 and res["accuracy_pseudo"] == 1.0
    assert res["test"] == 20 and res["train"] == 60


def test_exact_copies_and_longest_shared_substring():
    original = seqs(["ACDEFGHIK", "LMNPQ"])
    query = seqs(["ACDEF", "WWWW", "XXLMNPQXX", "LMNPQ"])
    assert metrics.exact_copies(original, query) == 1
    assert metrics.longest_shared_substring(original, query).tolist() == [5, 0, 5, 5]
    leak = metrics.fragment_leak(original, query, seed=1)
    assert leak["pseudo_max"] == 5 and set(leak) == {"pseudo_mean", "pseudo_max", "random_mean", "random_max"}


def test_knn_composition_distance_is_l1_of_histograms():
    from anonstudio.core.metrics._strings import _distance_matrix

    data = seqs(["AAAC", "ACCC", "AC", "KKKK"])
    d = _distance_matrix(data, data, "composition", None)
    assert d[0, 1] == pytest.approx(1.0)  # |0.75 - 0.25| + |0.25 - 0.75|
    assert d[1, 2] == pytest.approx(0.5) and d[0, 3] == pytest.approx(2.0) and d[2, 2] == 0.0
    labels = ["x", "x", "x", "y"]
    assert metrics.knn_accuracy(data, labels, data, labels, n_neighbors=1, distance="composition") == 1.0


def test_longest_shared_substring_agrees_with_the_verifiers_suffix_automaton():
    from anonstudio.core.privacy import longest_shared_substrings

    rng = np.random.default_rng(4)
    letters = list("ACDE")
    original = seqs(["".join(rng.choice(letters, int(rng.integers(1, 80)))) for _ in range(40)])
    query = seqs(["".join(rng.choice(letters, int(rng.integers(1, 60)))) for _ in range(30)]
                 + [original.sequence(3)[5:40] + "W"])
    ours = metrics.longest_shared_substring(original, query)
    assert ours.tolist() == longest_shared_substrings(original, query).tolist()
    assert ours[-1] >= 35
