"""Benchmark of the tabular recoding methods on Adult (run: ``python tests/benchmarks/bench_mst.py``).

Prints medians over repeats (warm numba cache: one untimed warm-up run first):
- MST (5 QIs, k = 5) end to end (read, hierarchies, anonymize, verify, evaluate) and its peak memory;
- MST at n = 5k, 10k, 20k, 30k (O(n^2) growth), against scipy's ``minimum_spanning_tree`` on the dense
  HDist matrix where that fits (n <= 10k);
- Mondrian and k-member on the whole of Adult;
- ``--scale``: MST on generated Adult-like tables of 30k, 100k, 300k and 1M rows x 5 QIs, k = 5, each in its
  own process: the method's time, the whole in-memory pipeline (method + independent verification +
  metrics) and the process's peak RSS (issue 17 target at 1M: <= 20 s, <= 2 GB).
Targets: MST <= 10 s and <= 1 GB, Mondrian <= 1 s, k-member <= 60 s.

    PYTHONPATH=. python tests/benchmarks/bench_mst.py [--repeats 3] [--scale]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.algorithms._tabular import encode_quasi_identifiers, pack_hierarchies  # noqa: E402
from anonstudio.core.algorithms.mst_recoding import hdist_matrix, prim_tree  # noqa: E402
from tests.core._adult import QUASI_IDENTIFIERS, adult_job, load_adult  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data").resolve()


def median_time(fn, repeats: int) -> tuple[float, object]:
    fn()  # warm-up (numba cache, imports)
    times = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def end_to_end_mst(k: int = 5) -> dict:
    """``anonstudio run``'s pipeline on a job file: read → hierarchies → MST → verify → evaluate → write."""
    from anonstudio.core.jobs import load_job, run_job

    with tempfile.TemporaryDirectory() as tmp:
        job = adult_job(Path(tmp), DATA, QUASI_IDENTIFIERS, f'name = "mst"\nk = {k}')
        outcome = run_job(load_job(job))
        assert outcome.report["verification"]["passed"]
        return outcome.report["metrics"]


SCALE_QIS = ["age", "sex", "race", "marital-status", "education"]


def scale_child(n: int) -> None:
    """One size in a fresh process: prints a JSON line with the figures."""
    from anonstudio.core import jobs
    from anonstudio.core.data import Table
    from anonstudio.core.generate import adult_hierarchies, adult_like_table

    table = Table(adult_like_table(n, 1)).with_roles(SCALE_QIS)
    hs = adult_hierarchies(SCALE_QIS)
    small = Table(adult_like_table(200, 2)).with_roles(SCALE_QIS)
    jobs.anonymize(small, hs, get("mst")(k=5))  # kernels loaded from the cache before timing
    t0 = time.perf_counter()
    outcome = jobs.anonymize(table, hs, get("mst")(k=5))
    pipeline = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"n": n, "method_s": outcome.report["runtime_s"], "pipeline_s": pipeline, "rss_mb": rss,
                      "merges": outcome.result.metrics["merges"], "passed": outcome.verification.passed}))


def scale(sizes=(30_000, 100_000, 300_000, 1_000_000)) -> None:
    print("MST, Adult-like x 5 QIs, k = 5 (one process per size; target at 1M: <= 20 s, <= 2 GB)")
    print(f"{'rows':>9}  {'method (s)':>10}  {'+ verify + metrics (s)':>22}  {'peak RSS (MB)':>13}  merges")
    for n in sizes:
        out = subprocess.run([sys.executable, __file__, "--scale-child", str(n)], capture_output=True, text=True,
                             check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        assert r["passed"]
        print(f"{n:>9,}  {r['method_s']:>10.2f}  {r['pipeline_s']:>22.2f}  {r['rss_mb']:>13.0f}  {r['merges']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", action="store_true", help="only the 30k-1M scale table")
    parser.add_argument("--scale-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale_child:
        scale_child(args.scale_child)
        return
    if args.scale:
        scale()
        return
    r = args.repeats

    sec, metrics = median_time(end_to_end_mst, r)
    tracemalloc.start()
    end_to_end_mst()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"MST, Adult 30,162 x 5 QIs, k=5, end to end: median {sec:.2f} s (target <= 10 s); "
          f"peak traced {peak / 2**20:.0f} MB, process max RSS {rss:.0f} MB (target <= 1 GB); GCP {metrics['GCP']:.4f}")

    t_all, hs = load_adult(DATA)
    print("\nPrim runs over the m distinct QI tuples: time grows as m^2 (m grows slower than n on Adult)")
    print("n        m        MST run (s)   Prim tree (s)   Prim ns/m^2   scipy dense MST (s)   scipy / Prim")
    for n in (5000, 10000, 20000, 30162):
        t = t_all.with_roles(t_all.quasi_identifiers)
        t.df = t_all.df.iloc[:n].reset_index(drop=True)
        alg = get("mst")(k=5)
        run_s, _ = median_time(lambda: alg.run(t, hs), r)
        packed = pack_hierarchies(t.quasi_identifiers, hs)
        leaf, _ = encode_quasi_identifiers(t, packed)
        prim_s, tree = median_time(lambda: prim_tree(leaf, packed), r)
        m = len(np.unique(leaf, axis=0))
        line = f"{n:<8} {m:<8} {run_s:>10.3f}   {prim_s:>12.3f}   {prim_s / m**2 * 1e9:>11.2f}"
        if n <= 10000:
            from scipy.sparse.csgraph import minimum_spanning_tree

            def scipy_mst():
                dense = hdist_matrix(leaf, packed) + 1.0  # shift by 1: scipy drops zero entries
                np.fill_diagonal(dense, 0)
                return minimum_spanning_tree(dense)

            sci_s, sci = median_time(scipy_mst, max(1, r // 2))
            assert abs(sci.sum() - (n - 1) - tree.total) < 1e-6 * max(1.0, tree.total)
            line += f"   {sci_s:>18.3f}   {sci_s / prim_s:>10.1f}x"
        else:
            line += f"   {'(dense matrix too big)':>18}"
        print(line)

    t, hs = load_adult(DATA)
    mon_s, _ = median_time(lambda: get("mondrian")(k=5).run(t, hs), r)
    print(f"\nMondrian, Adult, k=5: median {mon_s:.3f} s (target <= 1 s)")
    km_s, _ = median_time(lambda: get("kmember")(k=5).run(t, hs), max(1, r // 2))
    print(f"k-member, Adult, k=5: median {km_s:.2f} s (target <= 60 s)")


if __name__ == "__main__":
    main()
