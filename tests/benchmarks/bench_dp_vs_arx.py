"""anonstudio's ``safepub`` beside ARX's ``EDDifferentialPrivacy`` (SafePub) on Adult, at the same ε and δ (issue 32
item 2).

Adult (../shared/data/adult, 30,162 rows, ARX's hierarchies), 8 quasi-identifiers (all but salary-class, which is
identifying — left out — on both sides: a column published unchanged is refused by safepub), δ = 1e-5, ε = 0.5, 1
and 2, ε_search = 0.1 (ARX's default search budget), 100 search steps on both sides, score/quality model Loss (or DM
with ``--metric dm``), ``--runs`` runs per side (ours with seeds 2^50 + i; ARX draws from its SecureRandom, so its
runs are repetitions).

- ours in-process: ``jobs.run`` (the run, the independent verifier, the report), time = the method's ``run``
  (sampling, search, output) from the report's ``runtime_s``;
- ARX through ``tests/benchmarks/arx_dp/ArxDP.java`` (compiled into a temporary folder; needs ``java`` and
  ``../shared/reference/arx``; otherwise said and skipped); time = ARX's ``anonymize`` call.

Both outputs are measured by the one independent evaluator of ``bench_vs_arx.py`` (NCP per cell from the output
cells and ARX's hierarchy files, a ``*`` cell 1; DM = Σ |E|² + n per fully suppressed record) and by the records
kept (rows not all ``*``). Each side's k and β are printed: ARX's from its criterion after the run, ours from the
report. The table prints medians over the runs and the ratio ours / ARX (NCP and DM: lower is better; records
kept: higher is better).

    PYTHONPATH=. python tests/benchmarks/bench_dp_vs_arx.py [--runs 5] [--eps 0.5 1 2] [--metric loss|dm]
        [--steps 100] [--no-arx]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core import jobs  # noqa: E402
from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.data import Table  # noqa: E402
from tests.benchmarks.bench_vs_arx import ARX, DATA, QIS, Evaluator  # noqa: E402
from tests.core._adult import load_hierarchy  # noqa: E402

DELTA = 1e-5
SEARCH = 0.1


def load() -> tuple[Table, dict]:
    qis = QIS[8]
    df = pd.read_csv(DATA / "adult.csv", sep=";", dtype=object, keep_default_na=False)
    table = Table(df, source=DATA / "adult.csv", delimiter=";").with_roles(qis, identifying=["salary-class"])
    return table, {q: load_hierarchy(DATA / "hierarchies" / f"adult_hierarchy_{q}.csv", q) for q in qis}


def kept(frame: pd.DataFrame, qis: list[str]) -> int:
    return int((~(frame[qis].astype(str) == "*").all(axis=1)).sum())


def run_ours(table: Table, hs: dict, eps: float, run: int, metric: str, steps: int, evaluate: Evaluator) -> dict:
    alg = get("safepub")(epsilon=eps, delta=DELTA, epsilon_search=SEARCH, steps=steps, score=metric,
                         seed=2**50 + run)
    outcome = jobs.anonymize(table, hs, alg)
    frame = outcome.result.output.df
    m = outcome.report["metrics"]
    return {**evaluate(frame), "kept": kept(frame, QIS[8]), "time": outcome.report["runtime_s"], "k": m["k"],
            "beta": m["sampling_probability"], "verified": outcome.verification.passed,
            "transformation": [m["transformation"][q] for q in QIS[8]]}


def compile_driver(work: Path) -> str | None:
    if shutil.which("java") is None or shutil.which("javac") is None or not (ARX / "arx-engine.jar").exists():
        return None
    cp = ":".join([str(ARX / "arx-engine.jar"), *map(str, sorted((ARX / "lib").glob("*.jar")))])
    done = subprocess.run(["javac", "-d", str(work), "-cp", cp, str(Path(__file__).parent / "arx_dp" / "ArxDP.java")],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print("ArxDP.java did not compile:", done.stderr[-400:])
        return None
    return f"{work}:{cp}"


def run_arx(cp: str, eps: float, run: int, metric: str, steps: int, work: Path, evaluate: Evaluator) -> dict:
    out, js = work / f"arx-{eps}-{run}.csv", work / f"arx-{eps}-{run}.json"
    cmd = ["java", "-Xmx4g", "-cp", cp, "ArxDP", f"data={DATA / 'adult.csv'}", f"hier={DATA / 'hierarchies'}",
           f"qis={','.join(QIS[8])}", f"eps={eps}", f"delta={DELTA}", f"budget={SEARCH}", f"steps={steps}",
           f"metric={metric}", f"out={out}", f"json={js}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0 or not js.exists():
        return {"error": f"ARX failed: {done.stderr.strip()[-200:]}"}
    stats = json.loads(js.read_text())
    if not stats.get("result_available"):
        return {"error": "ARX found no solution"}
    frame = pd.read_csv(out, sep=";", dtype=object, keep_default_na=False)
    order = dict(zip(stats["transformation_qis"], stats["transformation"]))
    return {**evaluate(frame[QIS[8]]), "kept": kept(frame, QIS[8]), "time": stats["anonymize_ms"] / 1000,
            "k": stats["k"], "beta": stats["beta"], "transformation": [order[q] for q in QIS[8]]}


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    ap.add_argument("--metric", choices=["loss", "dm"], default="loss")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--no-arx", action="store_true")
    args = ap.parse_args(argv)
    table, hs = load()
    evaluate = Evaluator(QIS[8])
    summary = []
    with tempfile.TemporaryDirectory(prefix="bench-dp-") as tmp:
        work = Path(tmp)
        cp = None if args.no_arx else compile_driver(work)
        if cp is None:
            print("ARX skipped: " + ("--no-arx" if args.no_arx else "java, javac or the ARX folder is not present"))
        for eps in args.eps:
            ours = [run_ours(table, hs, eps, r, args.metric, args.steps, evaluate) for r in range(args.runs)]
            theirs = [run_arx(cp, eps, r, args.metric, args.steps, work, evaluate) for r in range(args.runs)] if cp \
                else []
            theirs = [t for t in theirs if "error" not in t] or theirs
            for who, rows in (("ours", ours), ("ARX", theirs)):
                for r in rows:
                    if "error" in r:
                        print(f"ε = {eps:<4} {who:<5} {r['error']}")
                        continue
                    print(f"ε = {eps:<4} {who:<5} k = {r['k']:<4} β = {r['beta']:.4f}  NCP {r['NCP']:.4f}  "
                          f"DM {r['DM']:>14,.0f}  kept {r['kept']:>6,}  {r['time']:6.2f} s  levels {r['transformation']}"
                          + ("" if who == "ARX" else f"  verified {r['verified']}"), flush=True)
            row = {"eps": eps, "ours": ours, "arx": [t for t in theirs if "error" not in t]}
            summary.append(row)
    print(f"\nmedians over {args.runs} runs; Adult, 8 QIs, δ = {DELTA:g}, ε_search = {SEARCH}, {args.steps} steps, "
          f"score {args.metric}; ratio = ours / ARX")
    print(f"{'ε':>4} {'k ours/ARX':>11} {'NCP ours':>9} {'NCP ARX':>8} {'ratio':>6} {'DM ours':>14} {'DM ARX':>14} "
          f"{'ratio':>6} {'kept ours':>9} {'kept ARX':>9} {'ratio':>6} {'s ours':>7} {'s ARX':>7}")
    for row in summary:
        o, a = row["ours"], row["arx"]
        cells = [f"{row['eps']:>4g}", f"{o[0]['k']:>5}/{a[0]['k'] if a else '–':<5}",
                 f"{median(o, 'NCP'):>9.4f}"]
        if a:
            cells += [f"{median(a, 'NCP'):>8.4f}", f"{median(o, 'NCP') / median(a, 'NCP'):>6.2f}",
                      f"{median(o, 'DM'):>14,.0f}", f"{median(a, 'DM'):>14,.0f}",
                      f"{median(o, 'DM') / median(a, 'DM'):>6.2f}",
                      f"{median(o, 'kept'):>9,.0f}", f"{median(a, 'kept'):>9,.0f}",
                      f"{median(o, 'kept') / max(median(a, 'kept'), 1):>6.2f}",
                      f"{median(o, 'time'):>7.2f}", f"{median(a, 'time'):>7.2f}"]
        else:
            cells += ["–", "–", f"{median(o, 'DM'):>14,.0f}", "–", "–", f"{median(o, 'kept'):>9,.0f}", "–", "–",
                      f"{median(o, 'time'):>7.2f}", "–"]
        print(" ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
