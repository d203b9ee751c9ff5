"""Random anonymization (paper 001) at scale: 1,000,000 generated Adult-like records × 9 quasi-identifiers
(target ≤ 2 s and ≤ 3× the input's memory), and Adult itself (target well under 1 s). Prints medians.

    python tests/benchmarks/bench_ra.py [--rows 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.data import Table  # noqa: E402
from anonstudio.core.generate import adult_like_table  # noqa: E402


def measure(table: Table, name: str, repeat: int, **params) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        get(name)(**params).run(table, {})
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    get(name)(**params).run(table, {})
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return statistics.median(times), peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    frame = adult_like_table(args.rows, seed=1)
    size_mb = frame.memory_usage(deep=True).sum() / 2**20
    all_qis = Table(frame).with_roles(list(frame.columns))  # RA: all nine columns quasi-identifiers
    anatomy = Table(frame).with_roles([c for c in frame.columns if c != "occupation"], ["occupation"])
    for name, params, table in (("ra", {}, all_qis), ("ra-enhanced", {"attributes_per_record": 3}, all_qis),
                                ("anatomy", {"l": 5}, anatomy)):
        t, peak = measure(table, name, args.repeat, **params)
        print(f"{name:12s} {args.rows:,} rows x {len(table.quasi_identifiers)} QIs: median {t:.2f} s, "
              f"peak traced memory {peak:,.0f} MB = {peak / size_mb:.2f}x the input frame ({size_mb:,.0f} MB)")
    adult = ROOT.parent / "shared" / "data" / "adult" / "adult.csv"
    if adult.is_file():
        from anonstudio.core.io import read_table

        t = read_table(adult)
        t = t.with_roles([c for c in t.df.columns if c != "occupation"], ["occupation"])
        secs, _ = measure(t, "ra", args.repeat)
        print(f"ra on Adult ({len(t.df):,} rows): median {secs:.3f} s")
        # the whole job as the workbench runs it: anonymize, verify, evaluate (Pa, breaches, the bias of
        # 40 combinations analytic and over bias_runs reruns)
        from anonstudio.core import jobs

        for runs in (0, 20):
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                jobs.anonymize(t, {}, get("ra")(bias_runs=runs))
                times.append(time.perf_counter() - start)
            print(f"ra job on Adult, bias_runs = {runs}: median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
