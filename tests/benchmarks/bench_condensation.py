"""Benchmark of string condensation (Aggarwal & Yu, DMKD 2008) and its Needleman–Wunsch kernel.

Run:  python tests/benchmarks/bench_condensation.py [--large [--runs N]] [--whole | --only-whole]

Prints medians of warm runs (the numba cache is warmed first; each timed run on a fresh fragment index):
- yeast 1,000 proteins, k = 20, ε = 1.5: condense, evaluate (CD, ordering, fragments) and both (target ≤ 2 s);
- Quest T20 D10K, k = 40 (target ≤ 2 s); with ``--large`` T20 D100K in ``--runs`` child processes (default 5)
  with their peak RSS (targets ≤ 60 s, ≤ 2 GB), the method and the whole job (verification, metrics, on a new
  copy of the input) with its progress reports and its longest silence (issue 17: ≤ 30 s, ≤ 2 GB, with progress);
- the whole ``anonstudio run`` process on yeast 6,049 proteins, k = 20, with verification and metrics (median
  of 5, target ≤ 6 s) and its split by phase (``--whole``, or ``--only-whole`` for that alone);
- time vs number of strings D and vs average length T (Figs. 14–15 growth);
- unit-cost NW cells per second next to Biopython's PairwiseAligner (score only) on the same pairs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core.algorithms.condensation import Condensation  # noqa: E402
from anonstudio.core.data import SequenceSet  # noqa: E402

YEAST = ROOT.parent / "shared" / "data" / "proteins" / "yeast_swissprot_1000.fasta"
YEAST_ALL = ROOT.parent / "shared" / "data" / "proteins" / "yeast_swissprot_6049.fasta"


def median_time(fn, repeat=3):
    """Median wall-clock seconds of ``repeat`` calls (:data:`LAST_CPU` holds the matching CPU seconds: on a
    shared machine the CPU time shows the growth better than the wall clock)."""
    global LAST_CPU
    times, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    LAST_CPU = statistics.median(cpu)
    return statistics.median(times)


LAST_CPU = 0.0


def fresh(fn):
    """``fn`` as a first run on its input: the inputs' fragment index (and the scans it keeps per string)
    lives as long as the input object, so a repeat on the same object would find the run's scans done."""
    def call():
        sys.modules["anonstudio.core.privacy._fragments"]._INDEXES.clear()
        return fn()

    return call


def quest(D, T, seed=1, I=4.0, items=1000):
    from anonstudio.core.generate import quest_sequences

    return SequenceSet.from_strings(quest_sequences(D, T, I, items, seed))


def bench_yeast():
    from anonstudio.core.io import read_fasta

    data = read_fasta(YEAST)
    alg = Condensation(k=20, epsilon=1.5, order=2, seed=1)
    res = alg.run(data, {})
    alg.evaluate(data, res, {})  # warm
    t_run = median_time(fresh(lambda: alg.run(data, {})), 5)
    c_run = LAST_CPU
    t_eval = median_time(fresh(lambda: alg.evaluate(data, res, {})), 5)
    c_eval = LAST_CPU
    m = alg.evaluate(data, res, {})
    print(f"yeast 1000, k=20, eps=1.5: condense {t_run:.3f} s, evaluate {t_eval:.3f} s, "
          f"total {t_run + t_eval:.3f} s wall, {c_run + c_eval:.3f} s CPU (target <= 2 s)")
    print(f"  CD {m['CD']:.4f}  ordering {m['distance_order_preserved']:.3f}  exact copies {m['exact_copies']}  "
          f"longest shared {m['longest_shared_substring']}")


def bench_quest():
    data = quest(10000, 20)
    alg = Condensation(k=40, epsilon=1.5, seed=1)
    alg.run(data, {})
    wall = median_time(fresh(lambda: alg.run(data, {})), 5)
    print(f"Quest T20 D10K, k=40: {wall:.3f} s wall, {LAST_CPU:.3f} s CPU (target <= 2 s)")
    print("time vs D (T=20, k=40):")
    for D in (2500, 5000, 10000, 20000):
        d = quest(D, 20)
        wall = median_time(fresh(lambda: alg.run(d, {})), 1)
        print(f"  D={D:6d}  {wall:7.3f} s wall  {LAST_CPU:7.3f} s CPU")
    print("time vs T (D=10000, k=40):")
    for T in (10, 20, 40, 80):
        d = quest(10000, T)
        wall = median_time(fresh(lambda: alg.run(d, {})), 1)
        print(f"  T={T:3d} (mean {d.lengths.mean():5.1f})  {wall:7.3f} s wall  {LAST_CPU:7.3f} s CPU")


def large_child():
    import resource

    from anonstudio.core import jobs

    data = quest(100000, 20)
    alg = Condensation(k=40, epsilon=1.5, seed=1)
    t, c = time.perf_counter(), time.process_time()
    res = alg.run(data, {})
    seconds, cpu = time.perf_counter() - t, time.process_time() - c
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    reports = []
    # the job on a new copy of the input, as a fresh `anonstudio run` gets it: no fragment index or scans kept
    # from the run above
    data = quest(100000, 20)
    t = time.perf_counter()
    outcome = jobs.anonymize(data, {}, alg, progress=lambda f, msg="": reports.append((time.perf_counter() - t, f, msg)))
    job_seconds = time.perf_counter() - t
    gaps = np.diff([0.0] + [r[0] for r in reports])
    worst = int(gaps.argmax()) if len(gaps) else 0
    peak_job = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": peak, "groups": int(res.groups.max() + 1),
                      "job_seconds": job_seconds, "job_peak_mb": peak_job, "passed": outcome.verification.passed,
                      "reports": len(reports), "longest_silence": float(gaps.max()) if len(gaps) else None,
                      "silence_after": reports[worst - 1][2] if worst > 0 else "start",
                      "silence_until": reports[worst][2] if reports else ""}))


def bench_large(runs=1):
    """T20 D100K in ``runs`` child processes; medians printed (the longest silence: the worst run's)."""
    results = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--child"], capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    r = {key: statistics.median(x[key] for x in results) for key in results[0] if isinstance(results[0][key], float)}
    worst = max(results, key=lambda x: x["longest_silence"] or 0.0)
    r.update({key: worst[key] for key in ("longest_silence", "silence_after", "silence_until")},
             groups=results[0]["groups"], reports=results[0]["reports"], passed=all(x["passed"] for x in results))
    if runs > 1:
        print(f"Quest T20 D100K: medians of {runs} runs; method {[round(x['seconds'], 1) for x in results]} s, "
              f"whole job {[round(x['job_seconds'], 1) for x in results]} s")
    print(f"Quest T20 D100K, k=40: {r['seconds']:.1f} s wall, {r['cpu']:.1f} s CPU, peak RSS {r['peak_mb']:.0f} MB, {r['groups']} groups "
          "(targets <= 60 s, <= 2048 MB)")
    print(f"  whole job in-process (method, verification, metrics): {r['job_seconds']:.1f} s, peak RSS "
          f"{r['job_peak_mb']:.0f} MB, verification passed {r['passed']}, {r['reports']} progress reports, longest "
          f"silence {r['longest_silence']:.2f} s (target <= 30 s, <= 2 GB, with progress)")
    print(f"  the longest silence: after {r['silence_after']!r}, until {r['silence_until']!r}")


def bench_whole_yeast():
    import tempfile

    from tests.benchmarks._whole_process import print_report

    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.toml"
        job.write_text(f'[input]\npath = "{YEAST_ALL}"\nalphabet = "protein-20"\n\n[algorithm]\nname = "condensation"\n'
                       'k = 20\nseed = 1\n\n[output]\npath = "out.fasta"\nreport = "out.json"\n')
        print("Condensation, yeast 6,049 proteins, k = 20, seed 1, with verification and metrics:")
        print_report(job, 5, target=6.0, label="anonstudio run (warm kernel cache)")


def bench_nw():
    from Bio import Align

    from anonstudio.core import metrics
    from anonstudio.core.kernels import _alignment as A

    rng = np.random.default_rng(0)
    letters = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    strings = ["".join(rng.choice(letters, int(n))) for n in rng.integers(200, 800, 20)]
    data = SequenceSet.from_strings(strings, alphabet="protein-20")
    idx = np.arange(len(strings))
    cells = float(np.sum(np.outer(data.lengths, data.lengths)))
    metrics.distance_block(data, idx[:2], data, idx[:2])
    t_bits = median_time(lambda: metrics.distance_block(data, idx, data, idx))
    sub = idx[:6]
    sub_cells = float(np.sum(np.outer(data.lengths[sub], data.lengths[sub])))

    def all_pairs(score):
        """A function scoring every pair of ``sub`` with ``score(i, j)`` (what each aligner is timed on)."""
        return lambda: [score(i, j) for i in sub for j in sub]

    dp = all_pairs(lambda i, j: A.nw_unit_distance(data.codes_of(i), data.codes_of(j)))

    dp()
    t_dp = median_time(dp)
    aligner = Align.PairwiseAligner(mode="global", match_score=0, mismatch_score=-1, gap_score=-1)

    bio = all_pairs(lambda i, j: aligner.score(strings[i], strings[j]))

    t_bio = median_time(bio)
    print("NW unit costs, cells per second (same pairs):")
    print(f"  anonstudio bit-parallel {cells / t_bits:10.3g}")
    print(f"  anonstudio plain DP     {sub_cells / t_dp:10.3g}")
    print(f"  Biopython PairwiseAligner.score {sub_cells / t_bio:10.3g}")
    print(f"  ratio bit-parallel / Biopython: {(cells / t_bits) / (sub_cells / t_bio):.1f}x")

    from Bio.Align import substitution_matrices

    matrix = metrics.blosum62(data.alphabet)
    A.nw_affine_score(data.codes_of(0), data.codes_of(1), matrix, 11.0, 1.0)

    affine = all_pairs(lambda i, j: A.nw_affine_score(data.codes_of(i), data.codes_of(j), matrix, 11.0, 1.0))

    t_aff = median_time(affine)
    bl = Align.PairwiseAligner(mode="global", substitution_matrix=substitution_matrices.load("BLOSUM62"),
                               open_gap_score=-12, extend_gap_score=-1)

    bio_aff = all_pairs(lambda i, j: bl.score(strings[i], strings[j]))

    t_bio_aff = median_time(bio_aff)
    print("NW BLOSUM62, affine gaps (BLAST 11/1: a gap of g costs 11 + g), cells per second:")
    print(f"  anonstudio Gotoh        {sub_cells / t_aff:10.3g}")
    print(f"  Biopython PairwiseAligner.score {sub_cells / t_bio_aff:10.3g}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--large", action="store_true", help="also run T20 D100K (about 30 s a run)")
    p.add_argument("--runs", type=int, default=5, help="D100K runs (child processes) whose medians --large prints")
    p.add_argument("--whole", action="store_true", help="also the whole anonstudio run on yeast 6,049 (about 1.5 min)")
    p.add_argument("--only-whole", action="store_true", help="only the whole run on yeast 6,049")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        large_child()
        return
    if args.only_whole:
        bench_whole_yeast()
        return
    bench_nw()
    if YEAST.exists():
        bench_yeast()
    bench_quest()
    if args.large:
        bench_large(args.runs)
    if args.whole and YEAST_ALL.exists():
        bench_whole_yeast()


if __name__ == "__main__":
    main()
