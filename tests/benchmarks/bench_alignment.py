"""Global alignment speed beside the peers, one run (issue 17 item 6).

BLOSUM62 with affine gaps, BLAST's 11/1 (a gap of g residues costs 11 + g), random protein pairs of 500 ×
500 residues: anonstudio's SIMD-lane kernel (``affine_block_scores``: one query against 64 sequences a
pass), its scalar Gotoh reference, parasail's striped 16-bit global aligner (``nw_striped_16``; its open
penalty is the first residue's cost, so 12/1) and Biopython's ``PairwiseAligner.score``. Unit costs
(Levenshtein): anonstudio's bit-parallel kernel against edlib (NW mode). All single-threaded, medians of
five repetitions, scores checked equal before timing.

    PYTHONPATH=. python tests/benchmarks/bench_alignment.py [--length 500] [--pairs 4096]

Peers come from the ``bench`` extra (``pip install -e .[bench]``); a missing one is reported, not fatal.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from anonstudio.core import metrics
from anonstudio.core.data import SequenceSet
from anonstudio.core.kernels import _alignment as A

LETTERS = "ACDEFGHIKLMNPQRSTVWY"
TARGET_PER_S = 10_000


def median_rate(fn, count: int, reps: int = 5) -> float:
    """Median of ``count / seconds`` over ``reps`` calls of ``fn``."""
    rates = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        rates.append(count / (time.perf_counter() - t))
    return statistics.median(rates)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--length", type=int, default=500)
    p.add_argument("--pairs", type=int, default=4096, help="alignments per timed call of the batch kernels")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    n_b = args.pairs // 16
    strings = ["".join(rng.choice(list(LETTERS), args.length)) for _ in range(16 + n_b)]
    data = SequenceSet.from_strings(strings, alphabet="protein-20")
    qa, qb = np.arange(16), np.arange(16, 16 + n_b)
    matrix = metrics.blosum62(data.alphabet)
    pairs = [(i, j) for i in qa for j in qb]
    count = len(pairs)

    block = A.affine_block_scores(data.codes, data.offsets, qa, data.codes, data.offsets, qb, matrix, 11.0, 1.0)
    rows = {}
    rows["anonstudio SIMD lanes (affine_block_scores)"] = median_rate(
        lambda: A.affine_block_scores(data.codes, data.offsets, qa, data.codes, data.offsets, qb, matrix, 11.0, 1.0),
        count,
    )
    few = pairs[:64]
    A.nw_affine_score(data.codes_of(0), data.codes_of(16), matrix, 11.0, 1.0)
    rows["anonstudio scalar Gotoh (nw_affine_score)"] = median_rate(
        lambda: [A.nw_affine_score(data.codes_of(i), data.codes_of(j), matrix, 11.0, 1.0) for i, j in few], len(few), 3
    )
    try:
        import parasail

        def run_parasail():
            for i, j in pairs:
                parasail.nw_striped_16(strings[i], strings[j], 12, 1, parasail.blosum62)

        got = [parasail.nw_striped_16(strings[i], strings[j], 12, 1, parasail.blosum62).score for i, j in few]
        assert got == [block[i, j - 16] for i, j in few], "parasail's scores differ from ours"
        rows["parasail nw_striped_16"] = median_rate(run_parasail, count)
    except ImportError:
        print("parasail not installed (pip install -e .[bench])")
    from Bio import Align
    from Bio.Align import substitution_matrices

    bio = Align.PairwiseAligner(mode="global", substitution_matrix=substitution_matrices.load("BLOSUM62"),
                                open_gap_score=-12, extend_gap_score=-1)
    assert [bio.score(strings[i], strings[j]) for i, j in few[:8]] == [block[i, j - 16] for i, j in few[:8]]
    rows["Biopython PairwiseAligner.score"] = median_rate(
        lambda: [bio.score(strings[i], strings[j]) for i, j in few[:16]], 16, 3
    )
    ours = rows["anonstudio SIMD lanes (affine_block_scores)"]
    print(f"Global alignment, BLOSUM62 affine (BLAST 11/1), {args.length} x {args.length} residues, 1 thread "
          f"(target >= {TARGET_PER_S:,}/s):")
    for name, rate in rows.items():
        print(f"  {name:<45} {rate:10,.0f} alignments/s   ours / this = {ours / rate:5.2f}x")

    unit = {}
    unit["anonstudio bit-parallel (block_distances, unit)"] = median_rate(
        lambda: metrics.distance_block(data, qa, data, qb), count
    )
    try:
        import edlib

        def run_edlib():
            for i, j in pairs:
                edlib.align(strings[i], strings[j], mode="NW", task="distance")

        d = metrics.distance_block(data, qa, data, qb)
        assert all(edlib.align(strings[i], strings[j], mode="NW")["editDistance"] == d[i, j - 16] for i, j in few)
        unit["edlib align (NW, distance)"] = median_rate(run_edlib, count)
    except ImportError:
        print("edlib not installed (pip install -e .[bench])")
    ours = unit["anonstudio bit-parallel (block_distances, unit)"]
    print("Unit costs (Levenshtein), same pairs:")
    for name, rate in unit.items():
        print(f"  {name:<45} {rate:10,.0f} alignments/s   ours / this = {ours / rate:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
