"""Sehatkar & Matwin (paper 004), §4 / Figures 2-4: information loss of CBMSA and its baseline on HHP-like
visit sequences against k (c = 0.7) and against c (k = 5), and running time against k.

``anonstudio experiment cbmsa-hhp --out DIR`` writes ``results.csv`` (one row per data set, sweep, point and
method), ``il_vs_k.png`` (Fig. 2), ``il_vs_c.png`` (Fig. 3), ``runtime_vs_k.png`` (Fig. 4) and ``claims.md``:
the paper's claim — CBMSA's IL below the baseline's at every k and c — checked point by point on our run.

Data sets are named as the paper's ``Data_<sequences>_<mean events>_<QIs>``; the default is the paper's
Data_1000_5_3 and Data_10000_5_3 (about 6 minutes in all on two cores; ``--sequences 1000`` takes seconds). Every point's
output passes the independent (k,c)-privacy verifier before its row is written.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anonstudio.core.errors import ParameterError
from anonstudio.core.experiments._common import numbers
from anonstudio.core.execution import Executor, LocalExecutor
from anonstudio.core.params import Command, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report, subrange

METHODS = ("cbmsa", "cbmsa-baseline")
HIGHLY_SENSITIVE = ("HIV", "Hepatitis")
#: the paper's sweeps (§4): k = 5 .. 50 at c = 0.7; c = 0.5 .. 0.9 at k = 5
PAPER_K = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50)
PAPER_C = (0.5, 0.6, 0.7, 0.8, 0.9)
FIXED_C = 0.7
FIXED_K = 5


def dataset(sequences: int, mean_events: float, n_qis: int, seed: int):
    """``Data_<sequences>_<mean events>_<QIs>``: HHP-like visits and their hierarchies (004 §4, Fig. 1)."""
    from anonstudio.core.data import EventLog
    from anonstudio.core.generate import event_hierarchies, hhp_events

    df = hhp_events(sequences, mean_events, n_qis, seed=seed)
    qis = [c for c in df.columns if c not in ("PID", "VID", "Disease")]
    return EventLog(df, "PID", "VID", qis, "Disease"), event_hierarchies(qis)


def sweep_point(point: tuple, shared, progress: ProgressCallback | None = None) -> dict:
    """One point: run the method through the engine pipeline (independent (k,c)-privacy verification,
    :class:`PrivacyError` if it fails) and return its row. Module-level, so a Dask worker can run it."""
    from anonstudio.core import algorithms, jobs

    name, sequences, sweep, k, c, method = point
    log, hs = shared[name]
    report(progress, 0.0, f"{name}, k = {k}, c = {c}: {method}")
    outcome = jobs.run(log, hs, algorithms.get(method)(k=k, c=c, highly_sensitive=list(HIGHLY_SENSITIVE), seed=1),
                       progress)
    rep = outcome.report
    m = rep["metrics"]
    return {
        "dataset": name, "sequences": sequences, "events": len(log.df), "sweep": sweep, "k": k, "c": c,
        "method": method, "IL": m["IL"], "IL_per_event": m["IL_per_event"], "clusters": m["clusters"],
        "removed_sequences": m["removed_sequences"], "suppressed_events": m["suppressed_events"],
        "highest_confidence": m["highest_confidence"], "verified": bool(rep["verification"]["passed"]),
        "runtime_s": rep["runtime_s"],
    }


def run_cbmsa_hhp(
    out: Path,
    *,
    k_values=PAPER_K,
    c_values=PAPER_C,
    sequences=(1000, 10000),
    mean_events: float = 5.0,
    qis: int = 3,
    seed: int = 1,
    progress: ProgressCallback | None = None,
    executor: Executor | None = None,
) -> list[Path]:
    """Run both sweeps on every data set; returns the written paths."""
    k_values = numbers(k_values, "k_values", int, 2)
    c_values = numbers(c_values, "c_values", float, 1e-9, 1.0)
    sizes = numbers(sequences, "sequences", int, 2)
    if max(k_values) > min(sizes):
        raise ParameterError(f"k = {max(k_values)} is larger than the smallest data set ({min(sizes)} sequences)",
                             column="k_values")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    shared, points = {}, []
    for n in sizes:
        name = f"Data_{n}_{mean_events:g}_{qis}"
        shared[name] = dataset(n, mean_events, qis, seed)
        points += [(name, n, "k", k, FIXED_C, m) for k in k_values for m in METHODS]
        points += [(name, n, "c", FIXED_K, c, m) for c in c_values for m in METHODS]
    executor = executor if executor is not None else LocalExecutor()
    records = executor.map(sweep_point, points, shared=shared, progress=subrange(progress, 0.0, 0.95), label="run")
    frame = pd.DataFrame.from_records(records)
    from anonstudio.core.io import atomic_write

    csv_path = out / "results.csv"
    with atomic_write(csv_path) as fh:
        frame.to_csv(fh, index=False)
    claims = out / "claims.md"
    with atomic_write(claims) as fh:
        fh.write(claims_text(frame))
    paths = [csv_path, claims] + _plots(frame, out)
    report(progress, 1.0, f"wrote {csv_path}")
    return paths


def claim_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Per data set, sweep and point: both methods' IL and suppressed events, and whether CBMSA's IL is lower
    (the paper's claim)."""
    keys = ["dataset", "sweep", "k", "c"]
    cb = frame[frame["method"] == "cbmsa"].set_index(keys)
    bl = frame[frame["method"] == "cbmsa-baseline"].set_index(keys)
    wide = pd.DataFrame({"IL_cbmsa": cb["IL"], "IL_baseline": bl["IL"],
                         "suppressed_cbmsa": cb["suppressed_events"], "suppressed_baseline": bl["suppressed_events"],
                         "removed_cbmsa": cb["removed_sequences"], "removed_baseline": bl["removed_sequences"]})
    wide = wide.reset_index()
    wide["holds"] = wide["IL_cbmsa"] < wide["IL_baseline"]
    return wide


def claims_text(frame: pd.DataFrame) -> str:
    """``claims.md``: the paper's claim, our figures and a verdict per point."""
    wide = claim_rows(frame)
    lines = ["# Sehatkar & Matwin (004), Figs 2-3: is CBMSA's information loss below the baseline's?", "",
             "Claim (004 §4): CBMSA's IL is lower than the baseline's at every k (c = 0.7) and every c (k = 5).", "",
             "| data set | sweep | k | c | IL CBMSA | IL baseline | suppressed events CBMSA / baseline | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for r in wide.to_dict("records"):
        lines.append(f"| {r['dataset']} | {r['sweep']} | {r['k']} | {r['c']:g} | {r['IL_cbmsa']:.3f} | "
                     f"{r['IL_baseline']:.3f} | {r['suppressed_cbmsa']} / {r['suppressed_baseline']} | "
                     f"{'holds' if r['holds'] else 'does not hold'} |")
    held = int(wide["holds"].sum())
    lines += ["", f"**Our run: the claim holds at {held} of {len(wide)} points.**"]
    if held < len(wide):
        bad = wide[~wide["holds"]]
        more_sup = int((bad["suppressed_cbmsa"] > bad["suppressed_baseline"]).sum())
        lines += ["", f"At {len(bad)} point(s) the baseline loses less. At {more_sup} of them CBMSA suppresses more "
                  "events than the baseline: its alignment suppresses an event whenever that is the cheapest step of "
                  "the current merge (Eq. 6), and the shorter representative then costs suppressions in every later "
                  "merge of that cluster; greedy agglomeration minimizes each merge, not the total."]
    for (name, method), grp in frame[frame["sweep"] == "c"].groupby(["dataset", "method"], sort=False):
        spread = (grp["IL"].max() - grp["IL"].min()) / max(grp["IL"].mean(), 1e-12)
        if len(grp) > 1 and spread <= 0.01:
            lines += ["", f"On {name}, {method}'s IL hardly changes with c at k = {FIXED_K} (by {100 * spread:.1f} % "
                      f"from c = {grp['c'].min():g} to {grp['c'].max():g}; the paper's Fig. 3 falls with c): the "
                      f"bound seldom binds here: the largest share of a cluster's sequences showing "
                      f"{' or '.join(HIGHLY_SENSITIVE)} is {grp['highest_confidence'].max():.2f} over the whole sweep; "
                      "with 4 % HIV and 5 % Hepatitis carriers in the generator, few clusters of about k sequences "
                      "hold enough carriers for c to bind."]
    return "\n".join(lines) + "\n"


def _plots(frame: pd.DataFrame, out: Path) -> list[Path]:
    from anonstudio.core.experiments._plots import save_png, subplots

    paths = []
    names = list(dict.fromkeys(frame["dataset"]))
    for sweep, metric, fname, title in (("k", "IL", "il_vs_k.png", f"IL vs k (c = {FIXED_C}), 004 Fig. 2"),
                                        ("c", "IL", "il_vs_c.png", f"IL vs c (k = {FIXED_K}), 004 Fig. 3"),
                                        ("k", "runtime_s", "runtime_vs_k.png", "running time vs k, 004 Fig. 4")):
        fig, axes = subplots(1, len(names), figsize=(max(5.0, 4.2 * len(names)), 3.4), squeeze=False)
        for ax, name in zip(axes[0], names):
            sub = frame[(frame["dataset"] == name) & (frame["sweep"] == sweep)]
            for method, grp in sub.groupby("method", sort=False):
                ax.plot(grp[sweep], grp[metric], marker="o", label=method)
            ax.set_title(name)
            ax.set_xlabel(sweep)
            ax.set_ylabel("running time (s)" if metric == "runtime_s" else "information loss (IL, Eq. 1)")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle(title, fontsize=11)
        paths.append(save_png(fig, out / fname))
    return paths


CBMSA_HHP = Command(
    name="cbmsa-hhp",
    help="Sehatkar & Matwin Figs 2-4: IL of CBMSA and its baseline vs k and c, running time vs k, HHP-like visits",
    parameters=ParamSet(
        (
            Param("k_values", "str_list", [str(k) for k in PAPER_K], help=f"values of k at c = {FIXED_C}"),
            Param("c_values", "str_list", [f"{c:g}" for c in PAPER_C], help=f"values of c at k = {FIXED_K}"),
            Param("sequences", "str_list", ["1000", "10000"],
                  help="data set sizes (the paper's: 1000 and 10000; 10000 takes about 6 minutes on two cores)"),
            Param("mean_events", "float", 5.0, help="mean events per sequence (the paper: 3, 5, 10)", low=1.0),
            Param("qis", "int", 3, help="quasi-identifiers per event (the paper: 2, 3, 4)", low=1, high=4),
            Param("seed", "int", 1, help="seed of the generated data and of the baseline's random suppression", low=0),
        )
    ),
    func=run_cbmsa_hhp,
)
