"""Mondrian and k-member on Adult beside the peer, one run (issue 17 item 2).

Adult (../shared/data/adult, 30,162 rows) with 8 quasi-identifiers, k = 10:
- Mondrian in-process: the partitioning kernel alone and the method's ``run`` (partition + generalized
  output), medians of 5 warm runs, for both cuts (``paper``: LeFevre's strict median / all LCA children;
  ``nearest``: the default), with DM (Eq. 8 over the output's equivalence classes) and the number of classes;
- anonypy's Mondrian (strict ``< median`` / ``>= median`` cuts, categorical values halved in order of
  appearance, no hierarchy) on the same rows and QIs: time of ``partition`` (one run, it takes ~20 s) and
  its DM (sum of squared partition sizes; its labels are per-partition ranges and value sets, so partitions
  are its classes) — skipped with ``--no-peer`` or when anonypy is not installed (``bench`` extra);
- the whole ``anonstudio run`` process for the Mondrian job (median of 5) and its split by phase, beside two
  floors: a process that imports numpy, pandas and numba and calls one cached kernel, loaded and left as
  numba and Python do by themselves, and as the command does (``cli.main.entry``);
- k-member (Byun et al.) with 5 and 8 QIs, k = 10, in-process (median of 3).

    PYTHONPATH=. python tests/benchmarks/bench_mondrian.py [--no-peer] [--no-kmember]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.metrics import table_metrics  # noqa: E402
from tests.core._adult import QUASI_IDENTIFIERS, adult_job, load_adult  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data").resolve()
QIS8 = ["age", "workclass", "education", "marital-status", "occupation", "race", "sex", "native-country"]
K = 10


def median_time(fn, repeats: int = 5) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def kernel_call(alg, table, hs):
    """The arguments ``Mondrian.run`` hands its kernel, and a function calling the kernel with them."""
    from anonstudio.core.algorithms._tabular import encode_quasi_identifiers, pack_hierarchies
    from anonstudio.core.kernels._mondrian import mondrian_partition

    packed = pack_hierarchies(table.quasi_identifiers, hs)
    leaf, missing = encode_quasi_identifiers(table, packed)
    args = alg.kernel_arguments(np.ascontiguousarray(leaf[~missing]), packed)
    sens = np.zeros(len(args[0]), dtype=np.int32)
    nearest = alg.params["cut"] == "nearest"
    return lambda: mondrian_partition(*args, sens, 1, 0.0, 1, K, nearest)


def mondrian_rows(table, hs) -> dict[str, float]:
    dms = {}
    for cut in ("paper", "nearest"):
        alg = get("mondrian")(k=K, cut=cut)
        t_kernel = median_time(kernel_call(alg, table, hs))
        t_run = median_time(lambda: alg.run(table, hs))
        res = alg.run(table, hs)
        m = table_metrics(res.output, QIS8, hs, k=K)
        dms[cut] = m["DM"]
        print(f"  anonstudio, cut = {cut:<8} kernel {t_kernel:6.3f} s   run {t_run:6.3f} s   DM {m['DM']:>10,.0f}   "
              f"classes {m['classes']}")
    return dms


def anonypy_row(table, dm_ours: float) -> None:
    try:
        from anonypy import mondrian
    except ImportError:
        print("  anonypy not installed (pip install -e .[bench])")
        return
    df = table.df[QIS8].copy()
    df["age"] = df["age"].astype(int)
    for c in QIS8[1:]:
        df[c] = df[c].astype("category")
    t0 = time.perf_counter()
    parts = mondrian.Mondrian(df, QIS8).partition(k=K)
    sec = time.perf_counter() - t0
    dm = float(sum(len(p) ** 2 for p in parts))
    print(f"  anonypy 0.2 Mondrian        partition {sec:6.2f} s (1 run)            DM {dm:>10,.0f}   "
          f"classes {len(parts)}   DM ours (nearest) / anonypy = {dm_ours / dm:.3f}")


def cli_row() -> None:
    from tests.benchmarks._whole_process import print_report

    with tempfile.TemporaryDirectory() as tmp:
        job = adult_job(Path(tmp), DATA, QIS8, f'name = "mondrian"\nk = {K}')
        print_report(job, 5, target=1.0, label="anonstudio run (Mondrian job, warm kernel cache)")
    for label, code in FLOORS.items():
        floor = median_time(lambda: import_floor(code), 5)
        print(f"  floor, {label}: median {floor:.2f} s")


_KERNEL = ("from anonstudio.core.kernels._generalize import lca_node; "
           "lca_node(0, 0, np.zeros((1, 1), np.int32), np.zeros(1, np.int32))")

#: the least a process pays that reads with pandas and runs one cached numba kernel: as numba loads a cached
#: kernel and Python exits, and as the ``anonstudio`` command does both (``cli.main.entry``)
FLOORS = {
    "import numpy + pandas, one cached kernel, numba's loading, Python's exit": f"import numpy as np, pandas; {_KERNEL}",
    "the same as the command loads and leaves": (
        "import os, numpy as np, pandas; from anonstudio.core.kernels import lean_cache_loads; lean_cache_loads(); "
        f"{_KERNEL}; os._exit(0)"
    ),
}


def import_floor(code: str) -> None:
    from tests.benchmarks._whole_process import _env

    subprocess.run([sys.executable, "-c", code], check=True, env=_env())


def kmember_rows() -> None:
    for qis in (list(QUASI_IDENTIFIERS), QIS8):
        table, hs = load_adult(DATA, qis)
        alg = get("kmember")(k=K, seed=1)
        sec = median_time(lambda: alg.run(table, hs), 3)
        print(f"  k-member, {len(qis)} QIs, k = {K}: median {sec:.2f} s (target 8 QIs <= 8 s)")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--no-peer", action="store_true", help="skip anonypy (about 20 s)")
    p.add_argument("--no-kmember", action="store_true")
    args = p.parse_args()
    table, hs = load_adult(DATA, QIS8)
    print(f"Mondrian, Adult {table.n_rows:,} rows x {len(QIS8)} QIs, k = {K} (in-process, medians of 5):")
    dms = mondrian_rows(table, hs)
    if not args.no_peer:
        anonypy_row(table, dms["nearest"])
    cli_row()
    if not args.no_kmember:
        print("k-member (Byun et al. 2007), Adult, in-process:")
        kmember_rows()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
