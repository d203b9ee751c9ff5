"""Benchmark of the independent verifiers on real data (run on demand, not collected by the suite).

    python tests/benchmarks/bench_verifiers.py [--repeat 5]

Prints medians: k-anonymity, distinct and entropy l-diversity on Adult (30,162 rows, 5 QIs, ARX hierarchies;
pycanon 1.3.6 beside them, run in a venv of its own made on first use — its exact pins clash with
ours), (k,c)-privacy on a synthetic
event log (10,000 sequences, ~50,000 events) and pseudo-strings on yeast
proteins (1,000 and 6,049 sequences: shuffled-letter pseudo-strings against the originals).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core.data import SequenceSet, Table  # noqa: E402
from anonstudio.core.hierarchy import Hierarchy  # noqa: E402
from anonstudio.core.privacy import verify_k_anonymity, verify_l_diversity, verify_pseudo_strings  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data").resolve()
QIS = ["age", "workclass", "sex", "education", "occupation"]


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def adult(repeat: int) -> None:
    path = DATA / "adult" / "adult.csv"
    df = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)
    table = Table(df, source=path).with_roles(QIS, ["salary-class"])
    hs = {}
    for q in QIS:
        with open(DATA / "adult" / "hierarchies" / f"adult_hierarchy_{q}.csv", newline="") as fh:
            hs[q] = Hierarchy(q, [r for r in csv.reader(fh, delimiter=";") if r])
    out = df.copy()
    for q in QIS:
        level = 1 if hs[q].height > 1 else 0
        out[q] = out[q].map({leaf: hs[q].generalize(leaf, level) for leaf in hs[q].leaves})
    sizes = out.groupby(QIS)[QIS[0]].transform("size")
    out.loc[sizes < 5, QIS] = "*"
    v = verify_k_anonymity(table, out, hs, 5)
    t = median_time(lambda: verify_k_anonymity(table, out, hs, 5), repeat)
    print(f"k-anonymity, Adult {len(df)} rows x {len(QIS)} QIs: median {t * 1000:.0f} ms  ({v.summary()})")
    for kind in ("distinct", "entropy"):
        d = median_time(lambda kind=kind: verify_l_diversity(out, QIS, "salary-class", 2, kind), repeat)
        lv = verify_l_diversity(out, QIS, "salary-class", 2, kind)
        print(f"{kind} l-diversity (l = 2, salary-class), same release: median {d * 1000:.0f} ms  (target ≤ 50 ms; "
              f"{'passed' if lv.passed else 'fails'}, lowest {lv.details['lowest_diversity']}, all-'*' records exempt)")
    pycanon_row(out, repeat)


#: run in pycanon's own interpreter: the same release read from a CSV, medians of its three measures
PYCANON = """
import json, statistics, sys, time
import pandas as pd
from pycanon import anonymity
out = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False)
qis, repeat = json.loads(sys.argv[2]), int(sys.argv[3])
rows = []
for name, fn in (("k-anonymity", lambda: anonymity.k_anonymity(out, qis)),
                 ("distinct l-diversity", lambda: anonymity.l_diversity(out, qis, ["salary-class"])),
                 ("entropy l-diversity", lambda: anonymity.entropy_l_diversity(out, qis, ["salary-class"]))):
    times = []
    for _ in range(repeat):
        t = time.perf_counter(); value = fn(); times.append(time.perf_counter() - t)
    rows.append([name, statistics.median(times), str(value)])
import pycanon
print(json.dumps({"version": getattr(pycanon, "__version__", "?"), "rows": rows}))
"""


def pycanon_row(out: pd.DataFrame, repeat: int) -> None:
    """The peer a user would pick, pycanon, on the same release. Its exact pins clash with ours (pandas 2.3.3,
    numpy 2.0.2), so it runs in a venv of its own (``_peer_env``), made on first use."""
    import json
    import tempfile

    from tests.benchmarks._peer_env import peer_python, run_peer

    python = peer_python("pycanon", "pycanon==1.3.6")
    if python is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "release.csv"
        out.to_csv(path, index=False)
        got = json.loads(run_peer(python, PYCANON, str(path), json.dumps(QIS), str(repeat)))
    for name, sec, value in got["rows"]:
        print(f"pycanon {got['version']} {name}, same release (its own venv): median {sec * 1000:.0f} ms  "
              f"(its value {value})")


def fasta(path: Path) -> tuple[list[str], list[str]]:
    ids, seqs = [], []
    for line in path.read_text().splitlines():
        if line.startswith(">"):
            ids.append(line[1:].split()[0])
            seqs.append([])
        elif line.strip():
            seqs[-1].append(line.strip())
    return ids, ["".join(s) for s in seqs]


def proteins(name: str, repeat: int) -> None:
    ids, seqs = fasta(DATA / "proteins" / name)
    original = SequenceSet.from_strings(seqs, ids=ids, alphabet="protein-25")
    rng = np.random.default_rng(0)
    pseudo = SequenceSet.from_strings(["".join(rng.permutation(list(s))) for s in seqs], alphabet="protein-25")
    v = verify_pseudo_strings(original, pseudo)
    t = median_time(lambda: verify_pseudo_strings(original, pseudo), repeat)
    total = int(original.lengths.sum())
    print(f"pseudo-strings, {name} ({len(seqs)} strings, {total} residues): median {t * 1000:.0f} ms  "
          f"(longest shared: max {v.details['longest_shared_max']}, mean {v.details['longest_shared_mean']})")


def events(repeat: int) -> None:
    from anonstudio.core.data import EventLog
    from anonstudio.core.hierarchy import intervals, masking
    from anonstudio.core.privacy import verify_kc_privacy

    rng = np.random.default_rng(0)
    n_seq = 10_000
    lens = rng.integers(1, 10, n_seq)
    n = int(lens.sum())
    df = pd.DataFrame({
        "PID": np.repeat([f"P{i}" for i in range(n_seq)], lens),
        "VID": np.concatenate([np.arange(1, m + 1) for m in lens]).astype(str),
        "year": rng.integers(2007, 2012, n).astype(str),
        "zip": rng.choice(["56103", "56107", "56117", "56230", "56942"], n),
        "los": rng.integers(0, 60, n).astype(str),
        "disease": rng.choice(["Flu", "HIV", "Fever"], n),
    })
    log = EventLog(df, "PID", "VID", ["year", "zip", "los"], "disease")
    hs = {"year": intervals("year", df.year, [2, 4]), "zip": masking("zip", df.zip),
          "los": intervals("los", df.los, [7, 14, 28])}
    out = df.copy()
    out["zip"] = "56***"
    out["los"] = [hs["los"].generalize(v, 3) for v in df.los]
    out["year"] = "*"
    t = median_time(lambda: verify_kc_privacy(log, out, hs, 2, 0.7, ["HIV"]), repeat)
    print(f"(k,c)-privacy, synthetic {n_seq} sequences / {n} events x 3 QIs: median {t * 1000:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    adult(args.repeat)
    events(args.repeat)
    proteins("yeast_swissprot_1000.fasta", args.repeat)
    proteins("yeast_swissprot_6049.fasta", max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
