"""The registered privacy models on Adult: speed, and their verdicts beside ARX's (issue 32 item 1).

Adult (../shared/data/adult, 30,162 rows, ARX's hierarchies), ``occupation`` sensitive and the other 8 columns
quasi-identifying:

1. Mondrian k = 5 with t-closeness t = 0.2 (hierarchical distance on occupation): ``Mondrian.run`` wall time, median
   of 5 warm runs (kernels compiled first), beside plain Mondrian k = 5; and the whole ``anonstudio run`` process
   of that job (one run, verification and publication included).
2. Each model's check (:func:`~anonstudio.core.privacy._judge.verify_class_model` over the published classes) on
   the t-closeness release and on plain Mondrian k = 5, medians of 5: alone (the check finds the classes itself) and
   with the release's classes found once and shared (:class:`~anonstudio.core.privacy._judge.PublishedClasses`, as
   ``verify_output`` judges every model a job names); and the time of finding them once.
3. ARX's verdict on the same releases (``--no-arx`` skips it; skipped with a notice without ``java`` or the ARX
   folder): our driver ``tests/benchmarks/arx_models/ArxModels.java`` hands ARX each release as its input, every
   quasi-identifier held at level 0 (the table judged as published) with a suppression limit of 100 %, so ARX
   suppresses exactly the records of the classes it finds failing; we compare that count with the records of the
   classes our verifier names (both without the records the release publishes fully suppressed: ARX reports every
   row of ``*`` cells as an outlier whatever the model, so it cannot judge them) (and, at a limit of 0 %, whether ARX finds the release anonymous at all). k-map and
   δ-presence are compared on a sample of Adult (every other row) generalized to the levels global recoding chose
   for it (k = 2 + k-map k = 10), nothing suppressed, against the whole of Adult as the population: ARX gets Adult,
   the sample as its research subset and those hierarchy levels. k-map with an estimator (no population table) is
   compared on the two releases, ARX given the same population size and estimator (its ``KMap`` with a
   ``CellSizeEstimator``); the line shows the k' ARX derived.

    PYTHONPATH=. python tests/benchmarks/bench_privacy_models.py [--no-arx]
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

from anonstudio.core import privacy  # noqa: E402
from anonstudio.core.algorithms import get  # noqa: E402
from anonstudio.core.data import Table  # noqa: E402
from anonstudio.core.privacy._judge import PublishedClasses, verify_class_model  # noqa: E402
from anonstudio.core.privacy._models import SENSITIVE as NEEDS_VALUES, ClassStats  # noqa: E402
from tests.core._adult import load_hierarchy  # noqa: E402

DATA = (ROOT / ".." / "shared" / "data" / "adult").resolve()
ARX = (ROOT / ".." / "shared" / "reference" / "arx").resolve()
DRIVER = Path(__file__).resolve().parent / "arx_models" / "ArxModels.java"
SENSITIVE = "occupation"
QIS = ["age", "workclass", "education", "marital-status", "race", "sex", "native-country", "salary-class"]
K = 5

#: (our model name, parameters, ARX model for the driver, p1, p2[, the driver's other arguments])
MODELS = [
    ("recursive-cl-diversity", {"c": 3.0, "l": 3}, "recursive-cl-diversity", 3.0, 3),
    ("t-closeness", {"t": 0.2, "distance": "equal"}, "t-equal", 0.2, 0),
    ("t-closeness", {"t": 0.2, "distance": "hierarchical"}, "t-hierarchical", 0.2, 0),
    ("t-closeness", {"t": 0.2, "distance": "ordered"}, "t-ordered", 0.2, 0),
    ("delta-disclosure", {"delta": 1.5}, "delta-disclosure", 1.5, 0),
    ("beta-likeness", {"beta": 1.0, "kind": "basic"}, "beta-basic", 1.0, 0),
    ("beta-likeness", {"beta": 1.0, "kind": "enhanced"}, "beta-enhanced", 1.0, 0),
    ("alpha-k-anonymity", {"alpha": 0.5, "k": 5}, None, 0, 0),
    ("average-risk", {"threshold": 0.1}, "average-risk", 0.1, 0),
    ("sample-uniqueness", {"threshold": 0.0}, "sample-uniqueness", 0.0, 0),
    ("population-uniqueness", {"threshold": 0.0, "population_size": 301_620}, "pu-dankar", 0.0, 0,
     {"population": 301_620}),
    # k-map without a population table: ARX's KMap with a CellSizeEstimator and a population of that size
    ("k-map", {"k": 10, "estimator": "poisson"}, "k-map-poisson", 10, 0.01, {"population": 317_238_626}),
    ("k-map", {"k": 30, "estimator": "poisson", "significance": 0.1, "population_size": 301_620}, "k-map-poisson",
     30, 0.1, {"population": 301_620}),
    ("k-map", {"k": 30, "estimator": "zero-truncated-poisson", "significance": 0.1, "population_size": 301_620},
     "k-map-zero-truncated-poisson", 30, 0.1, {"population": 301_620}),
]


def median_time(fn, repeats: int = 5) -> tuple[float, object]:
    out = fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def adult() -> tuple[Table, dict]:
    frame = pd.read_csv(DATA / "adult.csv", sep=";", dtype=object, keep_default_na=False)
    table = Table(frame, source=DATA / "adult.csv", delimiter=";").with_roles(QIS, sensitive=[SENSITIVE])
    hs = {q: load_hierarchy(DATA / "hierarchies" / f"adult_hierarchy_{q}.csv", q) for q in [*QIS, SENSITIVE]}
    return table, hs


def ours(name: str, params: dict, release: pd.DataFrame, hs: dict, population=None, shared=None) -> dict:
    model = privacy.MODELS[name](**params)
    v = verify_class_model(model, release, QIS, sensitive=SENSITIVE, hierarchies=hs, population=population,
                           shared=shared)
    return {"passed": v.passed, "failing_records": v.details["failing_records"], "classes": v.details["classes"]}


def failing_suppressed(model, release: pd.DataFrame, hs: dict) -> int:
    """Records published fully suppressed that our verdict counts as failing: a model judging sensitive values
    judges them as one class (size models exempt them). ARX cannot judge them (it reports every row of ``*`` cells
    as an outlier, whatever the model says), so the cross-check compares the other records."""
    if NEEDS_VALUES not in model.needs:
        return 0
    shared = PublishedClasses(release, QIS, hs)
    starred = (release[QIS] == "*").all(axis=1).to_numpy()
    if not starred.any():
        return 0
    _, classes, sizes, _ = shared.grouping(False)
    stats = ClassStats(sizes, records=len(release))
    stats.value_class, stats.value_code, stats.value_count, stats.value_total, stats.value_texts, _ = \
        shared.distributions(False, SENSITIVE)
    stats.value_hierarchy = hs.get(SENSITIVE)
    star = int(classes[starred.argmax()])
    return int(sizes[star]) if star in set(model.failing(stats).tolist()) else 0


def compile_driver(folder: Path) -> list[str]:
    classpath = [str(ARX / "arx-engine.jar"), str(ARX / "lib" / "*")]
    subprocess.run(["javac", "-d", str(folder), "-cp", ":".join(classpath), str(DRIVER)], check=True)
    return ["java", "-cp", ":".join([str(folder), *classpath]), "ArxModels"]


def arx(java: list[str], data: Path, model: str, p1, p2, supp: float, **extra) -> dict:
    args = [f"data={data}", f"qis={','.join(QIS)}", f"sensitive={SENSITIVE}", f"model={model}", f"p1={p1}",
            f"p2={p2}", f"supp={supp}", f"shier={DATA / 'hierarchies' / f'adult_hierarchy_{SENSITIVE}.csv'}"]
    args += [f"{k}={v}" for k, v in extra.items()]
    done = subprocess.run([*java, *args], capture_output=True, text=True, timeout=600)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-arx", action="store_true")
    args = ap.parse_args()
    table, hs = adult()
    print(f"Adult: {table.n_rows:,} records, 8 quasi-identifiers ({', '.join(QIS)}), sensitive {SENSITIVE}")

    plain = get("mondrian")(k=K)
    closeness = get("mondrian")(k=K, models={"t-closeness": {"t": 0.2, "distance": "hierarchical"}})
    t_plain, plain_result = median_time(lambda: plain.run(table, hs))
    t_close, close_result = median_time(lambda: closeness.run(table, hs))
    print(f"\n1. Mondrian k = {K}: {t_plain:.3f} s ({int(plain_result.groups.max()) + 1:,} classes); with t-closeness "
          f"t = 0.2, hierarchical distance on occupation: {t_close:.3f} s ({int(close_result.groups.max()) + 1:,} "
          "classes) — Mondrian.run, median of 5 warm runs")
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.toml"
        hier = "\n".join(f'{q} = "{DATA}/hierarchies/adult_hierarchy_{q}.csv"' for q in [*QIS, SENSITIVE])
        job.write_text(f'[input]\npath = "{DATA}/adult.csv"\nquasi_identifiers = {QIS!r}\nsensitive = ["{SENSITIVE}"]\n'
                       f'[hierarchies]\n{hier}\n[algorithm]\nname = "mondrian"\nk = {K}\n'
                       '[algorithm.models.t-closeness]\nt = 0.2\ndistance = "hierarchical"\n'
                       '[output]\npath = "out.csv"\nreport = "out.json"\nrelease_log = "log.json"\n')
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "anonstudio", "run", str(job), "--quiet"], cwd=ROOT,
                              capture_output=True, text=True)
        print(f"   anonstudio run (the whole process, verification and publication included): "
              f"{time.perf_counter() - t0:.2f} s, exit {done.returncode}")

    release = close_result.output.df
    print("\n2. Each model's check (verify_class_model), medians of 5: alone (the check finds the published classes "
          "itself) and with the release's classes shared (found once, as verify_output judges every model a job names)")
    verdicts = {}
    for label, frame in (("t-closeness release", release), (f"plain k = {K}", plain_result.output.df)):
        def grouped(frame=frame):
            shared = PublishedClasses(frame, QIS, hs)
            shared.grouping(True), shared.grouping(False), shared.distributions(False, SENSITIVE)
            return shared
        once, shared = median_time(grouped)
        print(f"   {label} ({len(shared.grouping(True)[2]):,} classes): finding the classes and the sensitive counts "
              f"once {once * 1000:.1f} ms")
        for name, params, *_ in MODELS:
            alone, verdict = median_time(lambda: ours(name, params, frame, hs))
            with_shared, _ = median_time(lambda: ours(name, params, frame, hs, shared=shared))
            verdict["failing_suppressed"] = failing_suppressed(privacy.MODELS[name](**params), frame, hs)  # not timed
            verdicts.setdefault((name, str(params)), []).append(verdict)
            print(f"   {name:24s} {json.dumps(params)[:58]:58s} alone {alone * 1000:6.1f} ms, shared "
                  f"{with_shared * 1000:6.1f} ms  {'passes' if verdict['passed'] else 'fails'} "
                  f"({verdict['failing_records']:,} records in failing classes)")
    sample_rows = list(range(0, table.n_rows, 2))
    sample = Table(table.df.iloc[sample_rows].reset_index(drop=True), delimiter=";").with_roles(QIS, sensitive=[SENSITIVE])
    population = table.df
    glob = get("global")(k=2, models={"k-map": {"k": 10}}, max_suppression=0.1)
    glob.population = population
    t_glob, glob_result = median_time(lambda: glob.run(sample, hs), repeats=1)
    levels = glob_result.metrics["transformation"]
    pop_models = [("k-map", {"k": 10}, "k-map", 10, 0), ("k-map", {"k": 40}, "k-map", 40, 0),
                  ("delta-presence", {"delta_min": 0.0, "delta_max": 0.6}, "delta-presence", 0.0, 0.6)]
    print(f"\n   global recoding, k = 2 + k-map k = 10 on every other row of Adult ({sample.n_rows:,}) against the "
          f"whole of Adult as the population: {t_glob:.2f} s, levels {levels}")
    # the sample generalized to those levels with nothing suppressed: ARX judges the same classes
    generalized = sample.df.copy()
    for q, level in levels.items():
        generalized[q] = generalized[q].map({row[0]: row[level] for row in hs[q].rows})
    for name, params, *_ in pop_models:
        seconds, verdict = median_time(lambda: ours(name, params, generalized, hs, population))
        verdicts[(name, str(params))] = [verdict]
        print(f"   {name:24s} {json.dumps(params):45s} {seconds * 1000:7.1f} ms  "
              f"{'passes' if verdict['passed'] else 'fails'} ({verdict['failing_records']:,} records)")

    if args.no_arx:
        return
    if shutil.which("java") is None or not (ARX / "arx-engine.jar").exists():
        print("\n3. ARX cross-check skipped: java or ../shared/reference/arx is missing")
        return
    print("\n3. ARX's verdict on the same releases (records ARX suppresses at a 100 % limit = records in the classes "
          "it finds failing; 'anonymous' at a 0 % limit):")
    with tempfile.TemporaryDirectory() as tmp:
        java = compile_driver(Path(tmp))
        files = {}
        for label, frame in (("t-closeness release", release), (f"plain k = {K}", plain_result.output.df)):
            files[label] = Path(tmp) / f"{label.replace(' ', '_')}.csv"
            frame.to_csv(files[label], sep=";", index=False)
        agree = total = 0
        for name, params, model, p1, p2, *more in MODELS:
            extra = more[0] if more else {}
            if model is None:
                print(f"   {name:24s} ARX has no such model")
                continue
            for i, (label, path) in enumerate(files.items()):
                mine = verdicts[(name, str(params))][i]
                per_class = arx(java, path, model, p1, p2, 1.0, **extra)
                whole = arx(java, path, model, p1, p2, 0.0, **extra)
                if "error" in per_class or "error" in whole:
                    print(f"   {name:24s} {label}: ARX failed: {per_class.get('error') or whole.get('error')}")
                    continue
                judged = mine["failing_records"] - mine["failing_suppressed"]  # what ARX can judge (see failing_suppressed)
                same = whole["anonymous"] == mine["passed"] and per_class["outliers"] == judged
                agree += same
                total += 1
                derived = f" (ARX's k' = {per_class['derived_k']})" if "derived_k" in per_class else ""
                print(f"   {name:24s} {json.dumps(params)[:58]:58s} {label:20s} ours {'pass' if mine['passed'] else 'FAIL'} "
                      f"{judged:6,} | ARX {'pass' if whole['anonymous'] else 'FAIL'} "
                      f"{per_class['outliers']:6,}  {'same' if same else 'DIFFERENT'}{derived}")
        adult_file = DATA / "adult.csv"
        subset = Path(tmp) / "subset.txt"
        subset.write_text("\n".join(map(str, sample_rows)) + "\n")
        level_arg = ",".join(f"{q}:{v}" for q, v in levels.items())
        for name, params, model, p1, p2 in pop_models:
            mine = verdicts[(name, str(params))][0]
            per_class = arx(java, adult_file, model, p1, p2, 1.0, hier=DATA / "hierarchies", levels=level_arg,
                            subset=subset)
            whole = arx(java, adult_file, model, p1, p2, 0.0, hier=DATA / "hierarchies", levels=level_arg,
                        subset=subset)
            if "error" in per_class or "error" in whole:
                print(f"   {name:24s} ARX failed: {per_class.get('error') or whole.get('error')}")
                continue
            same = whole["anonymous"] == mine["passed"] and per_class["outliers"] == mine["failing_records"]
            agree += same
            total += 1
            print(f"   {name:24s} {json.dumps(params):45s} {'global sample':20s} ours "
                  f"{'pass' if mine['passed'] else 'FAIL'} {mine['failing_records']:6,} | ARX "
                  f"{'pass' if whole['anonymous'] else 'FAIL'} {per_class['outliers']:6,}  {'same' if same else 'DIFFERENT'}")
        print(f"\n   {agree} of {total} verdicts the same")
        uniqueness_vs_arx(java, table, hs, Path(tmp))


def uniqueness_vs_arx(java: list[str], table: Table, hs: dict, folder: Path) -> None:
    """Population uniqueness (every estimator) on a release with sample uniques — Adult published on age, sex and
    race only (the other quasi-identifiers '*'), a population of 301,620 — at half and at twice our estimate's share:
    our verdict beside ARX's (``PopulationUniqueness`` with the same estimator and population size) at a 0 %
    suppression limit, and the records each names at 100 % (ours: the fewest of the smallest classes; ARX: what it
    suppresses)."""
    from anonstudio.core.privacy._models import ClassStats
    from anonstudio.core.privacy._population_models import PopulationUniqueness

    release = table.df.copy()
    for q in QIS:
        if q not in ("age", "sex", "race"):
            release[q] = "*"
    path = folder / "age_sex_race.csv"
    release.to_csv(path, sep=";", index=False)
    sizes = release.groupby(QIS).size().to_numpy()
    print("\n   population uniqueness on Adult published on age, sex and race only (population 301,620): ours | ARX")
    same = total = 0
    for estimator in ("dankar", "pitman", "zayatz", "snb"):
        params = {"estimator": estimator, "population_size": 301_620}
        share = PopulationUniqueness(threshold=0.0, **params).share(ClassStats(sizes, records=len(release)))
        for threshold in (share / 2, share * 2):
            mine = ours("population-uniqueness", {"threshold": threshold, **params}, release, hs)
            whole = arx(java, path, f"pu-{estimator}", threshold, 0, 0.0, population=301_620)
            per_class = arx(java, path, f"pu-{estimator}", threshold, 0, 1.0, population=301_620)
            if "error" in whole or "error" in per_class:
                print(f"   {estimator:8s} ARX failed: {whole.get('error') or per_class.get('error')}")
                continue
            agree = whole["anonymous"] == mine["passed"]
            same += agree
            total += 1
            print(f"   {estimator:8s} share {share:.3e}, threshold {threshold:.3e}: ours "
                  f"{'pass' if mine['passed'] else 'FAIL'} ({mine['failing_records']} records named) | ARX "
                  f"{'pass' if whole['anonymous'] else 'FAIL'} ({per_class['outliers']} suppressed)  "
                  f"{'same verdict' if agree else 'DIFFERENT verdict'}")
    print(f"   {same} of {total} verdicts the same (ARX's SNB solves other equations and finds no solution here; "
          "see core/risk/_uniqueness.py)")


if __name__ == "__main__":
    main()
