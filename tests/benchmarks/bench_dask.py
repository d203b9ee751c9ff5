"""The Dask engine on a LocalCluster of two worker processes (issue 17). Run by hand; prints its figures.

(a) an experiment sweep (``anonstudio experiment mst-adult``: every (QI size, k, method) point one task) on the
    local engine and on Dask: seconds each and the speed-up;
(b) RA, enhanced RA, Mondrian and the k-anonymity verification of Mondrian's output on generated Adult-like
    rows, in this process and on Dask: seconds, whether the outputs are identical, and the peak memory of this
    process and of each worker during the Dask run (``VmHWM``, reset before each step, so each figure is that
    step's own peak).

    python tests/benchmarks/bench_dask.py [--rows 10000000] [--sweep-rows 30162] [--skip-sweep] [--skip-rows]

The sweep reads ``../shared/data/adult`` (skipped when absent).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from anonstudio.core import algorithms, privacy  # noqa: E402
from anonstudio.core.data import Table  # noqa: E402
from anonstudio.core.execution import DaskExecutor, LocalExecutor  # noqa: E402
from anonstudio.core.generate import adult_hierarchies, adult_like_table  # noqa: E402

QIS = ["age", "workclass", "sex", "education", "occupation", "marital-status", "race", "native-country"]


def peak_rss_mb() -> float:
    """This process's peak resident memory since the last :func:`reset_peak` (Linux ``VmHWM``; elsewhere
    ``ru_maxrss``, the peak since the process started)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak() -> None:
    """Start a new peak: Linux resets ``VmHWM`` to the current RSS when 5 is written to ``clear_refs``."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def reset_peaks(client) -> None:
    reset_peak()
    client.run(reset_peak)


def worker_peaks(client) -> str:
    peaks = client.run(peak_rss_mb)
    return ", ".join(f"{v:,.0f}" for v in sorted(peaks.values())) + " MB"


def sweep(client, args) -> None:
    from anonstudio.core.experiments import run_mst_adult

    data = ROOT.parent / "shared" / "data" / "adult"
    if not (data / "adult.csv").is_file():
        print("(a) sweep skipped: ../shared/data/adult is absent")
        return
    params = dict(k_values=args.k_values, qi_sizes=args.qi_sizes, methods=["mst", "mondrian", "kmember"],
                  data=str(data), rows=args.sweep_rows)
    points = len(args.k_values) * len(args.qi_sizes) * 3
    with tempfile.TemporaryDirectory() as tmp:
        # both engines warm up on the same points (two k per QI size and method): every worker process loads
        # the kernels and imports a sweep point needs before the timed sweep, as this process does
        warm = {**params, "k_values": args.k_values[:2]}
        run_mst_adult(Path(tmp) / "warm", **warm)
        start = time.perf_counter()
        run_mst_adult(Path(tmp) / "local", executor=LocalExecutor(), **params)
        local = time.perf_counter() - start
        ex = DaskExecutor(client)
        run_mst_adult(Path(tmp) / "warm-dask", executor=ex, **warm)
        start = time.perf_counter()
        run_mst_adult(Path(tmp) / "dask", executor=ex, **params)
        dask = time.perf_counter() - start
        import pandas as pd

        same = pd.read_csv(Path(tmp) / "local" / "results.csv").drop(columns="runtime_s").equals(
            pd.read_csv(Path(tmp) / "dask" / "results.csv").drop(columns="runtime_s"))
    print(f"(a) mst-adult sweep, {points} points (k {args.k_values}, QI sizes {args.qi_sizes}, mst/mondrian/kmember, "
          f"{args.sweep_rows or 'all'} rows): local {local:.1f} s, dask {dask:.1f} s on 2 workers, "
          f"speed-up {local / dask:.2f}x (rows alike: {same})")


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def rows_bench(client, rows: int) -> None:
    start = time.perf_counter()
    frame = adult_like_table(rows, seed=1)
    print(f"(b) {rows:,} Adult-like rows generated in {time.perf_counter() - start:.1f} s "
          f"({frame.memory_usage(deep=True).sum() / 2**20:,.0f} MB as a frame)")
    ex = DaskExecutor(client)
    ra_table = Table(frame).with_roles(list(frame.columns))  # RA: all nine columns quasi-identifiers
    hs = adult_hierarchies(QIS)
    mondrian_table = Table(frame).with_roles(QIS, ["salary-class"])
    for name, params, table, hier in (("ra", {"bias_runs": 0}, ra_table, {}),
                                      ("ra-enhanced", {"bias_runs": 0, "attributes_per_record": 3}, ra_table, {}),
                                      ("mondrian", {"k": 10}, mondrian_table, hs)):
        alg = algorithms.get(name)(**params)
        local, t_local = timed(lambda: alg.run(table, hier))
        reset_peaks(client)
        dask, t_dask = timed(lambda: alg.run(table, hier, executor=ex))
        same = local.output.df.equals(dask.output.df)
        print(f"    {name:12s} local {t_local:6.2f} s | dask {t_dask:6.2f} s ({t_local / t_dask:.2f}x) | identical: "
              f"{same} | peak RSS per worker {worker_peaks(client)}, this process {peak_rss_mb():,.0f} MB")
        if name == "mondrian":
            spec = {"model": "k-anonymity", "k": 10, "quasi_identifiers": QIS, "max_suppression": 0.05}
            released = local.output
            v_local, t_local = timed(lambda: privacy.verify_output(spec, mondrian_table, released, hs))
            reset_peaks(client)
            v_dask, t_dask = timed(lambda: privacy.verify_output(spec, mondrian_table, released, hs,
                                                                 executor=ex))
            print(f"    {'verify (k)':12s} local {t_local:6.2f} s | dask {t_dask:6.2f} s ({t_local / t_dask:.2f}x) | "
                  f"same verdict: {v_local.as_dict() == v_dask.as_dict()} (passed {v_local.passed}, "
                  f"{v_local.details['classes']:,} classes) | peak RSS per worker {worker_peaks(client)}, this process "
                  f"{peak_rss_mb():,.0f} MB")
        del local, dask


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000_000])
    ap.add_argument("--sweep-rows", type=int, default=0, help="Adult rows in the sweep (0: all 30,162)")
    ap.add_argument("--k-values", type=int, nargs="+", default=[3, 6, 9, 12, 15, 18, 21])
    ap.add_argument("--qi-sizes", type=int, nargs="+", default=[3, 5])
    ap.add_argument("--skip-sweep", action="store_true")
    ap.add_argument("--skip-rows", action="store_true")
    args = ap.parse_args()
    from anonstudio.core.execution import local_cluster

    with local_cluster(2) as client:  # the cluster a job with engine = "dask" and no scheduler starts
        print(f"LocalCluster: 2 worker processes x 1 thread at {client.scheduler.address}; numpy {np.__version__}")
        if not args.skip_sweep:
            sweep(client, args)
        if not args.skip_rows:
            for rows in args.rows:
                rows_bench(client, rows)


if __name__ == "__main__":
    main()
