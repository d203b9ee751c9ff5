"""Benchmark of CBMSA and its baseline (issue 14; run: ``python tests/benchmarks/bench_cbmsa.py``).

HHP-like visits (``anonstudio.core.generate.hhp_events``: mean 5 events per sequence, 3 QIs AdmYr, ZIP, DSFC),
k = 10, c = 0.7, HIV and Hepatitis highly sensitive. For 1k, 2k, 5k and 10k sequences, each size in its own
process (so the peak RSS is that run's), median of ``--repeats`` runs after one untimed warm-up on a small
log (numba cache loaded): the method's time, split into the all-pairs distance phase and the merge phase,
the independent (k,c)-privacy verification, and the peak RSS. The paper's Java code took 2,200-2,700 s on
10,000 sequences (~47,000 events, 3 QIs). Targets: 10k sequences <= 25 s and <= 2 GB; 1k <= 2 s.

    PYTHONPATH=. python tests/benchmarks/bench_cbmsa.py [--sizes 1000,2000,5000,10000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PAPER_10K_S = (2200, 2700)


def child(n: int, repeats: int, method: str) -> None:
    from anonstudio.core.algorithms import get
    from anonstudio.core.data import EventLog
    from anonstudio.core.generate import event_hierarchies, hhp_events
    from anonstudio.core.privacy import verify_kc_privacy

    qis = ["AdmYr", "ZIP", "DSFC"]
    h = event_hierarchies(qis)
    omega = ["HIV", "Hepatitis"]

    def log_of(size, seed):
        return EventLog(hhp_events(size, 5, 3, seed=seed), "PID", "VID", qis, "Disease")

    get(method)(k=10, c=0.7, highly_sensitive=omega).run(log_of(100, 9), h)  # warm-up: kernels from the cache
    log = log_of(n, 1)
    totals, distances, results = [], [], []
    for _ in range(repeats):
        marks = {}

        def progress(fraction, message, marks=marks, t0=time.perf_counter()):
            if fraction >= 0.45 and "dist" not in marks:
                marks["dist"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        result = get(method)(k=10, c=0.7, highly_sensitive=omega).run(log, h, progress)
        totals.append(time.perf_counter() - t0)
        distances.append(marks.get("dist", float("nan")))
        results.append(result)
    t0 = time.perf_counter()
    check = verify_kc_privacy(log, results[-1].output, h, 10, 0.7, omega)
    verify_s = time.perf_counter() - t0
    print(json.dumps({
        "n": n, "events": len(log.df), "total_s": statistics.median(totals), "dist_s": statistics.median(distances),
        "verify_s": verify_s, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "IL": results[-1].metrics["IL"], "clusters": results[-1].metrics["clusters"],
        "removed": results[-1].metrics["removed_sequences"], "passed": check.passed,
    }))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1000,2000,5000,10000")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--methods", default="cbmsa,cbmsa-baseline")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(int(args.child[0]), int(args.child[1]), args.child[2])
        return 0
    print("CBMSA, HHP-like visits, mean 5 events x 3 QIs, k = 10, c = 0.7 (one process per run; medians of "
          f"{args.repeats}; targets: 1k <= 2 s, 10k <= 25 s and <= 2 GB)")
    print(f"{'method':<15} {'sequences':>9} {'events':>7} {'total (s)':>9} {'distances':>9} {'merges':>7} "
          f"{'verify':>7} {'RSS (MB)':>8} {'IL':>6} {'clusters':>8} {'removed':>7}")
    ok = True
    rows = {}
    for method in args.methods.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            out = subprocess.run([sys.executable, __file__, "--child", str(n), str(args.repeats), method],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            rows[(method, n)] = r
            ok &= r["passed"]
            print(f"{method:<15} {n:>9,} {r['events']:>7,} {r['total_s']:>9.2f} {r['dist_s']:>9.2f} "
                  f"{r['total_s'] - r['dist_s']:>7.2f} {r['verify_s']:>7.2f} {r['rss_mb']:>8.0f} {r['IL']:>6.3f} "
                  f"{r['clusters']:>8} {r['removed']:>7}")
    sizes = sorted(n for m, n in rows if m == "cbmsa")
    if len(sizes) > 1:
        a, b = sizes[0], sizes[-1]
        growth = rows[("cbmsa", b)]["total_s"] / rows[("cbmsa", a)]["total_s"]
        print(f"growth {a:,} -> {b:,} sequences: x{growth:.1f} time for x{b / a:.0f} sequences "
              f"(x{(b / a) ** 2:.0f} pairs)")
    if ("cbmsa", 10000) in rows:
        t = rows[("cbmsa", 10000)]["total_s"]
        print(f"10k sequences: {t:.1f} s, {PAPER_10K_S[0] / t:.0f}-{PAPER_10K_S[1] / t:.0f}x faster than the paper's "
              f"{PAPER_10K_S[0]}-{PAPER_10K_S[1]} s; target <= 25 s: {'met' if t <= 25 else 'NOT met'}; "
              f"peak {rows[('cbmsa', 10000)]['rss_mb']:.0f} MB (target <= 2048: "
              f"{'met' if rows[('cbmsa', 10000)]['rss_mb'] <= 2048 else 'NOT met'})")
    if ("cbmsa", 1000) in rows:
        t = rows[("cbmsa", 1000)]["total_s"]
        print(f"1k sequences: {t:.2f} s; target <= 2 s: {'met' if t <= 2 else 'NOT met'}")
    print("verification:", "passed for every run" if ok else "FAILED for some run")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
