"""Progress and cancel latency of every method through the whole pipeline (issue 15 item 10).

Each method runs ``core.jobs.run`` (method, independent verification, metrics — what the workbench's worker
runs) in a thread, as the GUI's worker does. Printed per method: when the first progress report arrived, and
how long after a cancel request (made at ``--at`` seconds, default 1.0) the run stopped (the callback raises
``Cancelled`` at its next report). Targets: first progress within 1 s, cancel honoured within 0.5 s. A run that
ends before the request is reported as finished (its time shown).

Data: Adult (../shared/data/adult, 30,162 rows, 5 QIs of the MST paper) for mst, mondrian, kmember, ra, anatomy;
yeast 1,000 proteins for condensation; 2,000 generated HHP-like visit sequences for cbmsa.

    PYTHONPATH=. python tests/benchmarks/bench_cancel.py [--at 1.0] [--repeats 3] [--methods mst,kmember]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core import jobs  # noqa: E402
from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.progress import Cancelled  # noqa: E402
from tests.core._adult import load_adult  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data").resolve()
METHODS = ("mst", "mondrian", "kmember", "ra", "anatomy", "condensation", "cbmsa")


def workload(method: str):
    """``(data, hierarchies, algorithm)`` for ``method``."""
    if method == "anatomy":  # occupation sensitive (salary-class has two values: no l = 3 grouping exists)
        from anonstudio.core.data import Table

        table, _ = load_adult(DATA, ["age", "workclass", "sex", "education"])
        table = Table(table.df, source=table.source, delimiter=";").with_roles(
            ["age", "workclass", "sex", "education"], sensitive=["occupation"])
        return table, {}, get(method)(l=3)
    if method in ("mst", "mondrian", "kmember", "ra"):
        table, hs = load_adult(DATA)
        params = {"anatomy": {"l": 3}, "ra": {}}.get(method, {"k": 10})
        return table, ({} if method in ("ra", "anatomy") else hs), get(method)(**params)
    if method == "condensation":
        from anonstudio.core.io import read_fasta

        return read_fasta(DATA / "proteins" / "yeast_swissprot_1000.fasta"), {}, get(method)(k=20)
    from anonstudio.core.data import EventLog
    from anonstudio.core.generate import event_hierarchies, hhp_events

    qis = ["AdmYr", "ZIP", "DSFC"]
    log = EventLog(hhp_events(2000, 5, 3, seed=1), "PID", "VID", qis, "Disease")
    return log, event_hierarchies(qis), get(method)(k=10, c=0.7, highly_sensitive=["HIV", "Hepatitis"])


def once(method: str, at: float) -> dict:
    data, hs, algorithm = workload(method)
    stop = threading.Event()
    marks: dict = {}
    t0 = time.perf_counter()

    def progress(fraction: float, message: str) -> None:
        if fraction > 0:  # the bar moved
            marks.setdefault("first", time.perf_counter() - t0)
        if stop.is_set():
            raise Cancelled()

    def work() -> None:
        try:
            jobs.anonymize(data, hs, algorithm, progress)
            marks["finished"] = time.perf_counter() - t0
        except Cancelled:
            marks["cancelled"] = time.perf_counter()
        except Exception as exc:  # noqa: BLE001 - reported below, the benchmark goes on
            marks["error"] = f"{type(exc).__name__}: {exc}"

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(at)
    if thread.is_alive():
        asked = time.perf_counter()
        stop.set()
        thread.join()
        marks["latency"] = marks.get("cancelled", time.perf_counter()) - asked
    return marks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--at", type=float, default=1.0, help="seconds after the start at which cancel is asked")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--methods", default=",".join(METHODS))
    args = ap.parse_args()
    print(f"cancel asked {args.at:.1f} s after the start; medians of {args.repeats}; targets: first progress "
          "≤ 1 s, cancel ≤ 0.5 s")
    print(f"{'method':<14}{'first progress':>16}{'cancel latency':>16}  note")
    for method in args.methods.split(","):
        once(method, 0.01)  # warm: kernels from the cache, data read once
        runs = [once(method, args.at) for _ in range(args.repeats)]
        failed = [r["error"] for r in runs if "error" in r]
        if failed:
            print(f"{method:<14}failed: {failed[0][:150]}")
            continue
        first = statistics.median(r.get("first", float("nan")) for r in runs)
        cancelled = [r["latency"] for r in runs if "latency" in r]
        note = "" if cancelled else f"finished before the request ({statistics.median(r['finished'] for r in runs):.2f} s)"
        latency = f"{statistics.median(cancelled):.3f} s" if cancelled else "—"
        ok = first <= 1.0 and (not cancelled or statistics.median(cancelled) <= 0.5)
        print(f"{method:<14}{first:>14.3f} s{latency:>16}  {'ok' if ok else 'MISSES the target'} {note}")


if __name__ == "__main__":
    main()
