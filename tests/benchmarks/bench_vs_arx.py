"""anonstudio's table methods beside ARX on Adult, every output measured by one independent evaluator (issue 31).

Adult (../shared/data/adult, 30,162 rows, ARX's hierarchies) at 5 quasi-identifiers (age, workclass, sex,
education, occupation) and 8 (all but salary-class), k = 2, 5, 10, 50, and k = 5 with distinct 3-diversity of
occupation (occupation is then the sensitive attribute, so the QIs are the others: 4 and 7).

- ours: ``local`` and ``global`` (each with quality Loss, its default, and with DM), ``mondrian``, ``kmember``
  and ``mst`` with ``max_suppression`` 0.1, in-process; time = the method's ``run`` (encoding, search or partitioning, the
  published table), wall and CPU of the process (all its threads), medians of ``--runs`` runs after one warm-up
  run (on a machine shared with other work the CPU figure is the steadier one). Every method enforces the
  distinct 3-diversity of the l-setting itself;
- ARX (``../shared/reference/arx/run-arx``, when ``java`` and that folder are present; otherwise said and
  skipped): ``mode=global supp=0.1`` with Loss (its default) and with ``metric=dm``, and ``mode=local`` (its
  GUI's local transformation); time = ARX's own ``anonymize_ms`` (global) / ``core_ms`` (local: anonymize +
  local recoding) and the CPU of its main thread from the anonymize call to fetching the output
  (``main_thread_cpu_core_ms``; ARX's JIT-compiler and garbage-collector threads are not counted), medians of
  ``--runs`` separate JVMs.

One evaluator for every output, from the output CSV cells and the hierarchy files alone (written here, no
anonstudio code): NCP per cell = (leaves under the published node − 1) / (leaves of the hierarchy − 1), a `*`
cell 1, averaged over every QI cell; DM = Σ |E|² over the classes of identical QI tuples + n for every fully
suppressed record (every QI cell `*`). Each output's k (and l) is checked by anonstudio's verifier
(``verify_output``, the limit 0.1 on suppression for the global methods, none for local recodings, which may
suppress more). The table prints NCP and DM with their ratio to ARX local, the suppressed records, the
verdict and the time; the global rows also say whether the transformation equals ARX's.

    PYTHONPATH=. python tests/benchmarks/bench_vs_arx.py [--runs 3] [--qis 5 8] [--k 2 5 10 50 l3]
        [--methods local mondrian kmember mst global] [--no-arx] [--no-arx-local] [--no-arx-global]

After the rows, two summary tables: NCP and DM of every method (columns) at every setting (rows), the lowest
of each row marked ``*``, and whether the best of ours is below ARX local on both. Then the best configuration:
the one of ours (a method with one fixed setting, the same at every row) that is below ARX local on NCP and DM
at most settings (ties: faster at more), its table beside ARX local (NCP, DM, wall and CPU time, ratios), and
the line "best config beats ARX on NCP and DM at N/10 settings, faster at M/10" — faster meaning our ``run``'s
wall time below ARX's core call's (``core_ms``: anonymize + local recoding, no JVM start), both medians.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core import jobs  # noqa: E402
from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.data import Table  # noqa: E402
from anonstudio.core.errors import AnonStudioError  # noqa: E402
from anonstudio.core.privacy import verify_output  # noqa: E402
from tests.core._adult import load_hierarchy  # noqa: E402

#: ../shared beside the checkout; $ANONSTUDIO_SHARED for a git worktree kept elsewhere
SHARED = Path(os.environ.get("ANONSTUDIO_SHARED") or (ROOT / ".." / "shared")).resolve()
DATA = SHARED / "data" / "adult"
ARX = SHARED / "reference" / "arx"
QIS = {5: ["age", "workclass", "sex", "education", "occupation"],
       8: ["age", "workclass", "education", "marital-status", "occupation", "race", "sex", "native-country"]}
SUPPRESSION = 0.1


# ---------------------------------------------------------------------------------------------------------
# the independent evaluator
class Evaluator:
    """NCP and DM of an output from its cells and ARX's hierarchy files (see the module)."""

    def __init__(self, qis: list[str]) -> None:
        self.qis = qis
        self.leaves: dict[str, dict[str, int]] = {}
        self.domain: dict[str, int] = {}
        for q in qis:
            rows = [line.split(";") for line in (DATA / "hierarchies" / f"adult_hierarchy_{q}.csv")
                    .read_text(encoding="utf-8").splitlines() if line.strip()]
            counts: dict[str, int] = {}
            for level in range(max(len(r) for r in rows)):  # lowest level first: a label keeps its first count
                level_counts: dict[str, int] = {}
                for r in rows:
                    label = r[min(level, len(r) - 1)].strip()
                    level_counts[label] = level_counts.get(label, 0) + 1
                for label, c in level_counts.items():
                    counts.setdefault(label, c)
            self.leaves[q] = counts
            self.domain[q] = len(rows)

    def __call__(self, frame: pd.DataFrame) -> dict:
        n = len(frame)
        ncp = np.zeros((n, len(self.qis)))
        star = np.ones(n, dtype=bool)
        for j, q in enumerate(self.qis):
            cells = frame[q].astype(str).str.strip().to_numpy()
            is_star = cells == "*"
            star &= is_star
            leaves = np.array([self.leaves[q].get(c, -1) for c in cells])
            if (leaves[~is_star] < 0).any():
                bad = cells[~is_star][leaves[~is_star] < 0][0]
                raise ValueError(f"cell {bad!r} of {q} is not in its hierarchy")
            ncp[:, j] = np.where(is_star, 1.0, (leaves - 1) / (self.domain[q] - 1))
        kept = frame.loc[~star, self.qis].astype(str)
        sizes = kept.value_counts().to_numpy(dtype=float)
        suppressed = int(star.sum())
        return {"NCP": float(ncp.mean()), "DM": float((sizes ** 2).sum() + n * suppressed),
                "suppressed": suppressed, "classes": len(sizes)}


# ---------------------------------------------------------------------------------------------------------
def setting(qis_count: int, k: str) -> dict:
    if k == "l3":
        qis = [q for q in QIS[qis_count] if q != "occupation"]
        return {"name": f"{qis_count} QIs, k=5 + distinct l=3", "qis": qis, "k": 5, "l": 3, "sensitive": "occupation"}
    return {"name": f"{qis_count} QIs, k={k}", "qis": QIS[qis_count], "k": int(k), "l": None,
            "sensitive": "salary-class"}


def load(s: dict) -> tuple[Table, dict]:
    df = pd.read_csv(DATA / "adult.csv", sep=";", dtype=object, keep_default_na=False)
    table = Table(df, source=DATA / "adult.csv", delimiter=";").with_roles(s["qis"], sensitive=[s["sensitive"]])
    hs = {q: load_hierarchy(DATA / "hierarchies" / f"adult_hierarchy_{q}.csv", q) for q in s["qis"]}
    return table, hs


def privacy_model(s: dict, max_suppression: float | None) -> dict:
    model = {"model": "k-anonymity", "k": s["k"], "quasi_identifiers": s["qis"], "max_suppression": max_suppression}
    if s["l"] is not None:
        model.update(l=s["l"], l_kind="distinct", sensitive=[s["sensitive"]])
    return model


def verdict(s: dict, table: Table, hs: dict, output: Table, max_suppression: float | None) -> str:
    v = verify_output(privacy_model(s, max_suppression), table, output, hs)
    return "ok" if v.passed else "FAIL: " + "; ".join(str(p) for p in v.problems[:1])


def run_ours(method: str, s: dict, table: Table, hs: dict, runs: int, quality: str | None = None) -> dict:
    params = {"k": s["k"]}
    if s["l"] is not None:
        params.update(l=s["l"], l_kind="distinct")
    if quality:
        params["quality"] = quality
    try:
        outcome = jobs.anonymize(table, hs, get(method)(**params), max_suppression=SUPPRESSION)
    except AnonStudioError as exc:
        return {"error": f"refused: {exc.message[:90]}"}
    times, cpu = [], []
    for _ in range(runs):
        alg = get(method)(**params)
        alg.pipeline["max_suppression"] = SUPPRESSION
        t0, c0 = time.perf_counter(), time.process_time()
        alg.run(table, hs)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    out = {"frame": outcome.result.output.df, "output": outcome.result.output, "time": statistics.median(times),
           "cpu": statistics.median(cpu), "verdict": "ok" if outcome.verification.passed else "FAIL"}
    if method == "global":
        out["transformation"] = outcome.report["metrics"]["transformation"]
    return out


def run_arx(s: dict, mode: str, runs: int, work: Path, metric: str = "loss") -> dict:
    times, cpu = [], []
    stats = {}
    for i in range(runs):
        out, js = work / f"arx-{mode}-{metric}-{i}.csv", work / f"arx-{mode}-{metric}-{i}.json"
        cmd = [str(ARX / "run-arx"), f"data={DATA / 'adult.csv'}", f"hier={DATA / 'hierarchies'}",
               f"qis={','.join(s['qis'])}", f"k={s['k']}", f"mode={mode}", f"supp={SUPPRESSION}", f"metric={metric}",
               f"out={out}", f"json={js}"]
        if s["l"] is not None:
            cmd += [f"sensitive={s['sensitive']}", f"l={s['l']}", "lkind=distinct"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0 or not js.exists():
            return {"error": f"ARX failed: {done.stderr.strip()[-120:]}"}
        stats = json.loads(js.read_text())
        if not stats.get("result_available"):
            return {"error": "ARX found no solution"}
        times.append(stats["anonymize_ms" if mode == "global" else "core_ms"] / 1000)
        cpu.append(stats["main_thread_cpu_core_ms"] / 1000)
    frame = pd.read_csv(out, sep=";", dtype=object, keep_default_na=False)
    result = {"frame": frame, "time": statistics.median(times), "cpu": statistics.median(cpu)}
    if mode == "global":
        result["transformation"] = dict(zip(stats["transformation_qis"], stats["transformation"]))
    return result


def fmt_ratio(value: float, ref: float | None) -> str:
    return f"{value / ref:.2f}" if ref else "–"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--qis", type=int, nargs="+", default=[5, 8], choices=[5, 8])
    ap.add_argument("--k", nargs="+", default=["2", "5", "10", "50", "l3"])
    ap.add_argument("--methods", nargs="+", default=["local", "mondrian", "kmember", "mst", "global"])
    ap.add_argument("--no-arx", action="store_true", help="ours only")
    ap.add_argument("--no-arx-local", action="store_true", help="skip ARX's local recoding (its slowest runs)")
    ap.add_argument("--no-arx-global", action="store_true", help="skip ARX's global recoding (Loss and DM)")
    args = ap.parse_args(argv)
    arx = not args.no_arx and shutil.which("java") is not None and (ARX / "run-arx").exists()
    if not arx:
        print("ARX skipped: " + ("--no-arx" if args.no_arx else f"java or {ARX} is not present") + "\n")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-vs-arx-") as tmp:
        for q in args.qis:
            for k in args.k:
                s = setting(q, k)
                table, hs = load(s)
                evaluate = Evaluator(s["qis"])
                results: dict[str, dict] = {}
                if arx and not args.no_arx_local:
                    results["ARX local"] = run_arx(s, "local", args.runs, Path(tmp))
                if arx and not args.no_arx_global:
                    results["ARX global (Loss)"] = run_arx(s, "global", args.runs, Path(tmp))
                    results["ARX global (DM)"] = run_arx(s, "global", args.runs, Path(tmp), "dm")
                for m in args.methods:
                    if m in ("global", "local"):  # the quality model minimized: Loss (the default) and DM
                        results[f"{m} (Loss)"] = run_ours(m, s, table, hs, args.runs)
                        results[f"{m} (DM)"] = run_ours(m, s, table, hs, args.runs, "dm")
                    else:
                        results[m] = run_ours(m, s, table, hs, args.runs)
                for name, r in results.items():
                    if "frame" in r:
                        r.update(evaluate(r["frame"]))
                        if name.startswith("ARX"):
                            frame = r["frame"][list(table.df.columns)]
                            r["verdict"] = verdict(s, table, hs, Table(frame),
                                                   SUPPRESSION if "global" in name else None)
                ref = results.get("ARX local", {})
                for name, r in results.items():
                    row = {"setting": s["name"], "method": name}
                    if "error" in r:
                        row["note"] = r["error"]
                    else:
                        row.update(NCP=r["NCP"], DM=r["DM"], suppressed=r["suppressed"], verified=r["verdict"],
                                   time=r["time"], cpu=r["cpu"], ncp_ratio=fmt_ratio(r["NCP"], ref.get("NCP")),
                                   dm_ratio=fmt_ratio(r["DM"], ref.get("DM")))
                        if name.startswith("global"):
                            other = results.get("ARX " + name, {}).get("transformation")
                            row["note"] = ("" if other is None else
                                           "same transformation as ARX" if other == r["transformation"] else
                                           f"ARX chose {other}, we {r['transformation']}")
                            theirs = results.get("ARX " + name, {})
                            if theirs.get("time"):
                                row["note"] += (f"; ARX's anonymize / ours: {theirs['time'] / r['time']:.1f}x wall, "
                                                f"{theirs['cpu'] / r['cpu']:.1f}x CPU")
                    rows.append(row)
                    print_row(row)
                print()
    summary(rows)
    best_config(rows)
    return 0


def best_config(rows: list[dict]) -> None:
    """The configuration of ours below ARX local on NCP and DM at most settings (ties: faster at more), its
    figures beside ARX local's at every setting, and the line docs/measured.md quotes (see the module)."""
    cell = {(r["setting"], r["method"]): r for r in rows if "NCP" in r and r["verified"] == "ok"}
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    ours = [m for m in dict.fromkeys(r["method"] for r in rows) if not m.startswith("ARX")]
    if not ours or not any((s, "ARX local") in cell for s in settings):
        print("best config: no ARX local figures to compare with")
        return

    def wins(m: str) -> tuple[int, int]:
        both = faster = 0
        for s in settings:
            ref, r = cell.get((s, "ARX local")), cell.get((s, m))
            if ref and r:
                both += r["NCP"] < ref["NCP"] and r["DM"] < ref["DM"]
                faster += r["time"] < ref["time"]
        return both, faster

    best = max(ours, key=wins)
    both, faster = wins(best)
    print(f"best config: {best} (the same setting at every row); time = wall (CPU), medians; ARX: core call "
          "(anonymize + local recoding; CPU of its main thread), ours: the method's run (CPU of every thread)")
    print(f"{'setting':<28} {'ARX NCP':>8} {'ours NCP':>8} {'ratio':>5}  {'ARX DM':>11} {'ours DM':>11} {'ratio':>5}  "
          f"{'ARX time':>16} {'our time':>16} {'ratio':>5}  both lower  faster")
    for s in settings:
        ref, r = cell.get((s, "ARX local")), cell.get((s, best))
        if not ref or not r:
            print(f"{s:<28} –")
            continue
        print(f"{s:<28} {ref['NCP']:8.4f} {r['NCP']:8.4f} {r['NCP'] / ref['NCP']:5.2f}  {ref['DM']:11,.0f} "
              f"{r['DM']:11,.0f} {r['DM'] / ref['DM']:5.2f}  {ref['time']:6.2f} s ({ref['cpu']:5.2f}) "
              f"{r['time']:6.2f} s ({r['cpu']:5.2f}) {r['time'] / ref['time']:5.2f}  "
              f"{'yes' if r['NCP'] < ref['NCP'] and r['DM'] < ref['DM'] else 'NO':<10}  "
              f"{'yes' if r['time'] < ref['time'] else 'NO'}")
    print(f"best config beats ARX on NCP and DM at {both}/{len(settings)} settings, faster at {faster}/{len(settings)}")


def summary(rows: list[dict]) -> None:
    """NCP and DM per setting (rows) and method (columns) of the verified outputs (others "–"), the lowest of a row
    marked ``*``; the last column says whether the best of ours (not ARX's) is below ARX local on that figure."""
    methods = list(dict.fromkeys(r["method"] for r in rows))
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    cell = {(r["setting"], r["method"]): r for r in rows if "NCP" in r and r["verified"] == "ok"}
    for figure, fmt in (("NCP", "{:.3f}"), ("DM", "{:,.0f}")):
        width = max(12, *(len(m) for m in methods))
        print(f"{figure:<28} " + " ".join(f"{m:>{width}}" for m in methods) + "  best of ours < ARX local")
        for s in settings:
            values = {m: cell[(s, m)][figure] for m in methods if (s, m) in cell}
            low = min(values.values()) if values else None
            shown = [(fmt.format(values[m]) + ("*" if values[m] == low else " ")) if m in values else "–"
                     for m in methods]
            ours = [v for m, v in values.items() if not m.startswith("ARX")]
            ref = values.get("ARX local")
            verdict_ = "–" if ref is None or not ours else ("yes" if min(ours) < ref else "NO")
            print(f"{s:<28} " + " ".join(f"{v:>{width}}" for v in shown) + f"  {verdict_}")
        print()


def print_row(row: dict) -> None:
    if "NCP" not in row:
        print(f"{row['setting']:<28} {row['method']:<18} {row.get('note', '')}")
        return
    print(f"{row['setting']:<28} {row['method']:<18} NCP {row['NCP']:.3f} ({row['ncp_ratio']:>4})  "
          f"DM {row['DM']:>13,.0f} ({row['dm_ratio']:>5})  suppressed {row['suppressed']:>5}  "
          f"{row['verified']:<4}  {row['time']:7.3f} s ({row['cpu']:6.3f} s CPU)  {row.get('note', '')}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
