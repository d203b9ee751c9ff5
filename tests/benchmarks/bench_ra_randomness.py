"""The random-anonymization verifier's statistical checks (issue 28, item 4) on real runs and on crafted
outputs: how many genuine runs are refused (must be 0) and the smallest p-value bound seen, per check; that
every crafted output (a deterministic map) is refused, and by which check; how small a share of the changed
cells a map may cover and still be refused; and the share of records that keep their full original
combination (issue 28, item 8).

    python tests/benchmarks/bench_ra_randomness.py [--demo-seeds 200] [--adult-seeds 30] [--crafted-seeds 5]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core.privacy import verify_output  # noqa: E402
from tests.core.privacy._ra_crafted import (  # noqa: E402
    ADULT,
    CONFIGS,
    DEMO,
    crafted,
    genuine,
    kept_combinations,
    partly_mapped,
    table_of,
)

#: shares of a column's changed cells a partial map is applied to
SHARES = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)


def smallest(verdict, key: str) -> float:
    rows = verdict.details["randomness"]["attributes"].values()
    values = [r[key] for r in rows if r.get(key) is not None]
    return min(values) if values else 0.0


def kinds(verdict) -> str:
    counted = Counter(r.get("kind", "?") for r in verdict.details.get("first_violations", []))
    return ", ".join(f"{k} ({n})" for k, n in counted.most_common()) or "-"


def genuine_runs(name: str, table, seeds: int) -> None:
    print(f"\n## {name}: {len(table.df):,} records, genuine runs, seeds 1..{seeds}")
    print(f"{'configuration':26s} {'runs':>5s} {'refused':>8s} {'min log10 p (a)':>16s} {'min log10 p (b)':>16s} "
          f"{'kept combination':>17s} {'verify s':>9s}")
    for label, method, params in CONFIGS:
        refused, low_a, low_b, kept, secs = 0, 0.0, 0.0, [], 0.0
        for seed in range(1, seeds + 1):
            spec, out = genuine(table, method, params, seed)
            start = time.perf_counter()
            v = verify_output(spec, table, out, {})
            secs += time.perf_counter() - start
            if not v.passed:
                refused += 1
                print(f"   REFUSED {label} seed {seed}: {v.problems[:2]}")
            low_a = min(low_a, smallest(v, "share_log10_p"))
            low_b = min(low_b, smallest(v, "independence_log10_p"))
            kept.append(kept_combinations(table, out))
        print(f"{label:26s} {seeds:5d} {refused:8d} {low_a:16.2f} {low_b:16.2f} "
              f"{100 * sum(kept) / len(kept):8.1f} % ({100 * min(kept):.1f}-{100 * max(kept):.1f}) {secs / seeds:9.3f}")


def crafted_runs(name: str, table, seeds: int) -> None:
    print(f"\n## {name}: crafted outputs, seeds 1..{seeds} of every configuration")
    passed = defaultdict(int)
    tried = defaultdict(int)
    why = defaultdict(Counter)
    worst = defaultdict(lambda: -math.inf)  # the largest (least significant) min log10 p over the refused
    for label, method, params in CONFIGS:
        for seed in range(1, seeds + 1):
            spec, out = genuine(table, method, params, seed)
            for case, frame in crafted(table, out, spec, seed).items():
                v = verify_output(spec, table, frame, {})
                key = (case, "shuffle" if params.get("draws") == "shuffle" else "independent")
                tried[key] += 1
                if v.passed:
                    passed[key] += 1
                    print(f"   PASSED {case} under {label} seed {seed}")
                for r in v.details.get("first_violations", []):
                    why[key][r.get("kind", "?")] += 1
                worst[key] = max(worst[key], min(smallest(v, "share_log10_p"), smallest(v, "independence_log10_p")))
    print(f"{'crafted output':38s} {'draws':12s} {'tried':>6s} {'passed':>7s} {'worst min log10 p':>18s}  refused by")
    for key in sorted(tried):
        kinds_seen = ", ".join(k for k, _ in why[key].most_common())
        print(f"{key[0]:38s} {key[1]:12s} {tried[key]:6d} {passed[key]:7d} {worst[key]:18.1f}  {kinds_seen}")


def partial_maps(name: str, table, seeds: int) -> None:
    """How small a share of the changed cells a map may cover and still be refused (what (b) cannot see)."""
    print(f"\n## {name}: a map applied to a share of one column's changed cells (seeds 1..{seeds}, ra entropy)")
    print(f"{'map':52s} " + " ".join(f"{s:>6.0%}" for s in SHARES))
    for draws in ("independent", "shuffle"):
        params = {"weights": "entropy", "draws": draws}
        runs = [genuine(table, "ra", params, seed) for seed in range(1, seeds + 1)]
        for column in ("age", "education"):
            label = (f"{column} rotated by the old value's rank" if draws == "shuffle" else
                     f"{column} {'to the next value' if column == 'age' else 'fixed permutation'}")
            row = []
            for share in SHARES:
                refused = sum(not verify_output(spec, table, partly_mapped(table.df, out, column, share, seed,
                                                                           draws == "shuffle"), {}).passed
                              for seed, (spec, out) in enumerate(runs, 1))
                row.append(f"{refused}/{seeds}")
            print(f"{label + ' (' + draws + ')':52s} " + " ".join(f"{r:>6s}" for r in row))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--demo-seeds", type=int, default=200)
    ap.add_argument("--adult-seeds", type=int, default=30)
    ap.add_argument("--crafted-seeds", type=int, default=5)
    args = ap.parse_args()
    tables = [("demo (adult-sample.csv)", table_of(DEMO), args.demo_seeds)]
    if ADULT.is_file():
        tables.append(("Adult", table_of(ADULT), args.adult_seeds))
    else:
        print(f"{ADULT} is missing: Adult skipped")
    for name, table, seeds in tables:
        genuine_runs(name, table, seeds)
        crafted_runs(name, table, args.crafted_seeds)
        partial_maps(name, table, args.crafted_seeds)


if __name__ == "__main__":
    main()
