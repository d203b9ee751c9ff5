"""k-map and δ-presence against a population table: our partitioning methods beside ARX on a sample of Adult (issue 32).

Adult (../shared/data/adult, 30,162 rows, ARX's hierarchies), the 8 quasi-identifiers of
``bench_privacy_models.py`` (age, workclass, education, marital-status, race, sex, native-country, salary-class),
``occupation`` sensitive (no model here reads it). The SAMPLE is every other row of Adult (15,081 records), the
POPULATION the whole of Adult, written to a temporary CSV of the quasi-identifier columns. Models, each with k = 2:
k-map k = 10 and δ-presence δmin = 0, δmax = 0.6 (``--models`` adds k-map k = 40: ``k-map-40``).

- ours (``--methods``, default mondrian, mst, local, kmember, global; k-member is in the default set: on the
  15,081-record sample it took 8–17 s per run here, as long as local recoding): ``get(method)(k=2, models={name: {...,
  "population": the CSV}})`` then ``.run(sample, hierarchies)``, in-process; time = ``run``'s wall time (reading
  the population file, encoding, partitioning or search, the model repair, the published table), median of
  ``--runs`` runs after one warm-up run (whose output is the one measured; the warm-up's own time is printed as
  ``first``, kernels compiled then on a cold cache). Global recoding suppresses up to its default ``max_suppression``
  (0.1, ``anonstudio.core.params.DEFAULT_MAX_SUPPRESSION``); the other four spend no suppression budget with a model
  named. Each output is checked by ``verify_output(alg.privacy_model(), sample, output, hierarchies)`` (global's
  with ``max_suppression`` 0.1 added, so its cap is checked too);
- ARX (``tests/benchmarks/arx_population/ArxPopulation.java``, our driver over ARX's public API, when ``java`` and
  ../shared/reference/arx are present; ``--no-arx`` or their absence skips it with a notice): ARX's data = the
  whole of Adult, research subset = the sample's rows (``DataSubset``), ``KMap(k, subset)`` (the population-table
  mode, no estimator) resp. ``DPresence(δmin, δmax, subset)``, plus ``KAnonymity(2)``, suppression limit 0.1,
  ARX's default quality model, global recoding (ARX's optimal lattice search). ARX's local recoding
  (``optimizeIterativeFast``, as ``bench_vs_arx.py``) is tried too: ARX refuses it for both models (its ``KMap``
  with a subset and ``DPresence`` say ``isLocalRecodingSupported() == false``), which the row says. Time = ARX's
  ``anonymize`` call (no JVM start, no loading, as ``bench_vs_arx.py``'s global rows), median of ``--runs`` JVMs.
  ARX's published research subset is checked by our verifier with our global's spec (the same k, model,
  population and ``max_suppression`` 0.1).

Every output is measured by ``bench_vs_arx.py``'s independent evaluator (its ``Evaluator``: NCP per cell = (leaves
under the published node − 1) / (leaves − 1), ``*`` = 1, averaged over the QI cells; DM = Σ|E|² + n per fully
suppressed record), so the figures compare with ARX's and with that benchmark's. One line per model closes: the
configuration with the lowest NCP, ours vs ARX, and whether ours is faster.

    PYTHONPATH=. python tests/benchmarks/bench_population_models.py [--runs 3] [--models k-map-10 delta-presence
        k-map-40] [--methods mondrian mst local kmember global] [--no-arx]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.data import Table  # noqa: E402
from anonstudio.core.params import DEFAULT_MAX_SUPPRESSION  # noqa: E402
from anonstudio.core.privacy import verify_output  # noqa: E402
from tests.benchmarks.bench_privacy_models import QIS, SENSITIVE, adult  # noqa: E402
from tests.benchmarks.bench_vs_arx import ARX, DATA, Evaluator  # noqa: E402

DRIVER = Path(__file__).resolve().parent / "arx_population" / "ArxPopulation.java"
K = 2
#: label -> (our model name, its parameters without the population, ARX's p1, p2)
MODELS = {
    "k-map-10": ("k-map", {"k": 10}, 10, 0),
    "delta-presence": ("delta-presence", {"delta_min": 0.0, "delta_max": 0.6}, 0.0, 0.6),
    "k-map-40": ("k-map", {"k": 40}, 40, 0),
}
METHODS = ["mondrian", "mst", "local", "kmember", "global"]


def sample_of(table: Table) -> tuple[Table, list[int]]:
    rows = list(range(0, table.n_rows, 2))
    frame = table.df.iloc[rows].reset_index(drop=True)
    return Table(frame, delimiter=";").with_roles(QIS, sensitive=[SENSITIVE]), rows


def spec_with_cap(spec: dict) -> dict:
    return {**spec, "max_suppression": DEFAULT_MAX_SUPPRESSION}


def verdict(spec: dict, sample: Table, output: Table, hs: dict) -> str:
    v = verify_output(spec, sample, output, hs)
    return "verified" if v.passed else "FAILS VERIFICATION: " + "; ".join(str(p) for p in v.problems[:2])


def run_ours(method: str, model: str, params: dict, sample: Table, hs: dict, runs: int) -> dict:
    def make():
        return get(method)(k=K, models={model: dict(params)})

    t0 = time.perf_counter()
    alg = make()
    result = alg.run(sample, hs)
    first = time.perf_counter() - t0
    times = []
    for _ in range(runs):
        again = make()
        t0 = time.perf_counter()
        again.run(sample, hs)
        times.append(time.perf_counter() - t0)
    spec = alg.privacy_model()
    if method == "global":
        spec = spec_with_cap(spec)
    out = {"frame": result.output.df, "time": statistics.median(times), "first": first,
           "verified": verdict(spec, sample, result.output, hs)}
    if method == "global":
        out["transformation"] = result.metrics["transformation"]
    return out


def compile_driver(folder: Path) -> list[str]:
    classpath = [str(ARX / "arx-engine.jar"), str(ARX / "lib" / "*")]
    subprocess.run(["javac", "-d", str(folder), "-cp", ":".join(classpath), str(DRIVER)], check=True)
    return ["java", "-Xmx4g", "-cp", ":".join([str(folder), *classpath]), "ArxPopulation"]


def run_arx(java: list[str], work: Path, subset: Path, model: str, p1, p2, mode: str, runs: int) -> dict:
    times, stats = [], {}
    for i in range(runs):
        out, js = work / f"arx-{model}-{p1}-{mode}-{i}.csv", work / f"arx-{model}-{p1}-{mode}-{i}.json"
        cmd = [*java, f"data={DATA / 'adult.csv'}", f"hier={DATA / 'hierarchies'}", f"qis={','.join(QIS)}",
               f"subset={subset}", f"model={model}", f"p1={p1}", f"p2={p2}", f"k={K}",
               f"supp={DEFAULT_MAX_SUPPRESSION}", f"mode={mode}", f"out={out}", f"json={js}"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0 or not js.exists():
            return {"error": f"ARX failed: {done.stderr.strip()[-160:]}"}
        stats = json.loads(js.read_text())
        if not stats.get("result_available"):
            return {"error": stats.get("local_note") or "ARX found no solution"}
        times.append(stats["anonymize_ms" if mode == "global" else "core_ms"] / 1000)
    frame = pd.read_csv(out, sep=";", dtype=object, keep_default_na=False)
    transformation = {q: int(v) for q, v in (p.split(":") for p in stats["transformation"].split(","))}
    return {"frame": frame, "time": statistics.median(times), "transformation": transformation,
            "arx_suppressed": stats["suppressed"]}


def print_row(label: str, name: str, r: dict) -> None:
    if "error" in r:
        print(f"   {label:<16} {name:<12} {r['error']}", flush=True)
        return
    first = f" (first {r['first']:.2f} s)" if "first" in r else ""
    print(f"   {label:<16} {name:<12} NCP {r['NCP']:.4f}  DM {r['DM']:>12,.0f}  suppressed {r['suppressed']:>5,}  "
          f"classes {r['classes']:>5,}  {r['time']:7.2f} s{first}  {r['verified']}"
          + (f"; {r['note']}" if r.get("note") else ""), flush=True)


def summary(label: str, results: dict) -> None:
    ok = {n: r for n, r in results.items() if "NCP" in r and r["verified"] == "verified"}
    if not ok:
        print(f"   {label}: no verified output")
        return
    best = min(ok, key=lambda n: ok[n]["NCP"])
    ours = {n: r for n, r in ok.items() if not n.startswith("ARX")}
    line = f"   {label}: lowest NCP {best} {ok[best]['NCP']:.4f}"
    arx = ok.get("ARX global")
    if ours and arx:
        mine = min(ours, key=lambda n: ours[n]["NCP"])
        r = ours[mine]
        line += (f"; ours' best {mine} {r['NCP']:.4f} vs ARX global {arx['NCP']:.4f} ({r['NCP'] / arx['NCP']:.2f}x), "
                 f"{r['time']:.2f} s vs {arx['time']:.2f} s: ours {'faster' if r['time'] < arx['time'] else 'SLOWER'}")
        if "global" in ours:
            g = ours["global"]
            line += (f"; global vs ARX global: NCP {g['NCP']:.4f} vs {arx['NCP']:.4f}, {g['time']:.2f} s vs "
                     f"{arx['time']:.2f} s: ours {'faster' if g['time'] < arx['time'] else 'SLOWER'}")
    elif ours:
        line += " (no ARX figures)"
    print(line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--models", nargs="+", default=["k-map-10", "delta-presence"], choices=list(MODELS))
    ap.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    ap.add_argument("--no-arx", action="store_true", help="ours only")
    args = ap.parse_args(argv)
    table, hs = adult()
    sample, rows = sample_of(table)
    evaluate = Evaluator(QIS)
    print(f"Adult {table.n_rows:,} records; sample = every other row ({sample.n_rows:,}); population = the whole of "
          f"Adult; QIs {', '.join(QIS)}; k = {K}; time = median of {args.runs} (ours: run after a warm-up; ARX: "
          "its anonymize call, separate JVMs)")
    arx = not args.no_arx and shutil.which("java") is not None and (ARX / "arx-engine.jar").exists()
    if not arx:
        print("ARX skipped: " + ("--no-arx" if args.no_arx else f"java or {ARX} is not present"))
    lines = []
    with tempfile.TemporaryDirectory(prefix="bench-population-") as tmp:
        work = Path(tmp)
        population = work / "population.csv"
        table.df[QIS].to_csv(population, sep=";", index=False)
        subset = work / "subset.txt"
        subset.write_text("\n".join(map(str, rows)) + "\n")
        java = compile_driver(work) if arx else None
        for label in args.models:
            model, params, p1, p2 = MODELS[label]
            params = {**params, "population": str(population)}
            print(f"\n{label} ({model} {json.dumps({k: v for k, v in params.items() if k != 'population'})}, "
                  f"+ k-anonymity k = {K}):")
            results: dict[str, dict] = {}
            for method in args.methods:
                results[method] = run_ours(method, model, params, sample, hs, args.runs)
                results[method].update(evaluate(results[method]["frame"]))
                print_row(label, method, results[method])
            if arx:
                cap = spec_with_cap(get("global")(k=K, models={model: params}).privacy_model())
                for mode in ("global", "local"):
                    r = run_arx(java, work, subset, model, p1, p2, mode, args.runs)
                    if "frame" in r:
                        r.update(evaluate(r["frame"]))
                        r["verified"] = verdict(cap, sample, Table(r["frame"][list(sample.df.columns)]), hs)
                        if mode == "global" and "global" in results:
                            same = r["transformation"] == results["global"]["transformation"]
                            r["note"] = ("same transformation as our global" if same else
                                         f"ARX chose {r['transformation']}, our global "
                                         f"{results['global']['transformation']}")
                    results[f"ARX {mode}"] = r
                    print_row(label, f"ARX {mode}", r)
            lines.append((label, results))
    print("\nsummary (verified outputs only):")
    for label, results in lines:
        summary(label, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
