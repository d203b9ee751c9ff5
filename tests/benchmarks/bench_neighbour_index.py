"""CBMSA past the quadratic wall (issue 42 item 3; run: ``python tests/benchmarks/bench_neighbour_index.py``).

HHP-like visits (``anonstudio.core.generate.hhp_events``: mean 5 events per sequence, 3 QIs AdmYr, ZIP, DSFC),
k = 10, c = 0.7, HIV and Hepatitis highly sensitive. Each (size, neighbours, block_size) runs in its own process
(so the peak RSS is that run's) after one untimed warm-up on a small log; times are medians of ``--repeats``.
``exact`` caches every pair's distance (O(n²)); ``index`` clusters k-d-tree blocks of ``block_size`` similar
sequences (:mod:`anonstudio.core.algorithms._neighbour_index`). Every release is checked by the independent
(k,c)-privacy verifier; the loss of ``index`` is printed beside ``exact`` where both ran. No time is asserted.

    PYTHONPATH=. python tests/benchmarks/bench_neighbour_index.py [--runs 10000:exact,10000:index,50000:index]
        [--repeats 1] [--block 2000] [--timeout 900]
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

QIS = ["AdmYr", "ZIP", "DSFC"]
OMEGA = ["HIV", "Hepatitis"]


def child(n: int, mode: str, block: int, repeats: int) -> None:
    from anonstudio.core.algorithms import get
    from anonstudio.core.data import EventLog
    from anonstudio.core.generate import event_hierarchies, hhp_events
    from anonstudio.core.privacy import verify_kc_privacy

    h = event_hierarchies(QIS)

    def log_of(size, seed):
        return EventLog(hhp_events(size, 5, 3, seed=seed), "PID", "VID", QIS, "Disease")

    def method():
        return get("cbmsa")(k=10, c=0.7, highly_sensitive=OMEGA, neighbours=mode, block_size=block)

    method().run(log_of(100, 9), h)  # warm-up: kernels from the cache
    log = log_of(n, 1)
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = method().run(log, h)
        times.append(time.perf_counter() - t0)
    check = verify_kc_privacy(log, result.output, h, 10, 0.7, OMEGA)
    print(json.dumps({"n": n, "mode": mode, "block": block, "events": len(log.df), "s": statistics.median(times),
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "IL": result.metrics["IL"], "clusters": result.metrics["clusters"],
                      "removed": result.metrics["removed_sequences"], "passed": check.passed}))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", default="10000:exact,10000:index,50000:index,200000:index",
                   help="size:mode[:block_size], comma-separated")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--block", type=int, default=2000, help="block_size when a run does not name one")
    p.add_argument("--timeout", type=float, default=900, help="seconds before a run is reported as not finished")
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1], int(args.child[2]), int(args.child[3]))
        return 0
    print(f"CBMSA neighbours, HHP-like visits, mean 5 events x 3 QIs, k = 10, c = 0.7 (one process per run; "
          f"medians of {args.repeats})")
    print(f"{'sequences':>9} {'events':>9} {'neighbours':>10} {'block':>6} {'time (s)':>9} {'RSS (MB)':>8} "
          f"{'IL':>7} {'vs exact':>8} {'clusters':>8} {'removed':>7} verified")
    ok = True
    exact_il: dict[int, float] = {}
    for run in args.runs.split(","):
        parts = run.split(":")
        n, mode = int(parts[0]), parts[1]
        block = int(parts[2]) if len(parts) > 2 else args.block
        try:
            out = subprocess.run([sys.executable, __file__, "--child", str(n), mode, str(block), str(args.repeats)],
                                 capture_output=True, text=True, check=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"{n:>9,} {'':>9} {mode:>10} {block:>6} not finished in {args.timeout:.0f} s")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        ok &= r["passed"]
        if mode == "exact":
            exact_il[n] = r["IL"]
        rel = f"{100 * (r['IL'] / exact_il[n] - 1):+7.1f}%" if mode != "exact" and n in exact_il else f"{'':>8}"
        print(f"{n:>9,} {r['events']:>9,} {mode:>10} {block:>6} {r['s']:>9.1f} {r['rss_mb']:>8.0f} {r['IL']:>7.3f} "
              f"{rel} {r['clusters']:>8,} {r['removed']:>7} {'yes' if r['passed'] else 'NO'}")
    print("verification:", "passed for every run" if ok else "FAILED for some run")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
