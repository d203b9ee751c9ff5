"""Person-level k against row-level k (issue 39 item 2: "person-level k on a 1M-row visits table costs ≤ 1.5×
row-level k").

A visits table (:func:`anonstudio.core.generate.visits_table`): ``--people`` Adult-like people (default 200,000)
with 1–10 records each (≈ 1.1M rows), quasi-identifiers sex, age, race, marital-status, education,
native-country, workclass. Mondrian with k = 10, ``Mondrian.run`` in-process (partition, the people check or the
suppression budget, the generalized output): at row level (no person column) and at person level
(``person = "patient_id"``). Prints the median of ``--repeats`` warm runs of each (after one warm-up run that
compiles or loads the kernels), their ratio, and what each published (classes; least people per class).

    PYTHONPATH=. python tests/benchmarks/bench_person_k.py [--people 200000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.data import Table  # noqa: E402
from anonstudio.core.generate import adult_hierarchies, visits_table  # noqa: E402
from anonstudio.core.privacy._people import distinct_people, person_codes  # noqa: E402

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
K = 10


def timed(fn, repeats: int) -> tuple[float, list[float], object]:
    result = fn()  # warm-up: kernels compiled or loaded from the cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, result


def least_people(table: Table, groups: np.ndarray) -> int:
    people = distinct_people(groups, person_codes(replace(table, person="patient_id")))
    held = people[np.unique(groups[groups >= 0])]
    return int(held.min()) if len(held) else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--people", type=int, default=200_000)
    ap.add_argument("--visits", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    t0 = time.perf_counter()
    frame = visits_table(args.people, args.visits, seed=39)[["patient_id", *QIS, "diagnosis"]]
    rows = Table(frame).with_roles(QIS, sensitive=["diagnosis"], identifying=["patient_id"])
    people = replace(rows, person="patient_id")
    hs = {q: h for q, h in adult_hierarchies().items() if q in QIS}
    print(f"visits table: {len(frame):,} rows of {args.people:,} people (1-{args.visits} each), "
          f"{len(QIS)} QIs, generated in {time.perf_counter() - t0:.1f} s; Mondrian k = {K}")
    row_median, row_times, row_result = timed(lambda: get("mondrian")(k=K).run(rows, hs), args.repeats)
    person_median, person_times, person_result = timed(lambda: get("mondrian")(k=K).run(people, hs), args.repeats)
    for name, median, times, result in (("row level", row_median, row_times, row_result),
                                        ("person level", person_median, person_times, person_result)):
        groups = result.groups
        print(f"{name:>12}: median {median:.2f} s of {', '.join(f'{t:.2f}' for t in times)}; "
              f"{int(groups.max()) + 1:,} partitions, least people per partition {least_people(rows, groups)}, "
              f"{int((groups < 0).sum()):,} records suppressed")
    print(f"ratio person / row: {person_median / row_median:.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    main()
