"""Sehatkar & Matwin (paper 004), §4 / Figures 2-4: information loss of CBMSA and its baseline on HHP-like
visit sequences against k (c = 0.7) and against c (k = 5), and running time against k.

``anonstudio experiment cbmsa-hhp --out DIR`` writes ``results.csv`` (one row per data set, sweep, point and
method), ``datasets.csv`` (per generated data set: sequences, events, the shares of sequences showing each
highly-sensitive value), ``il_vs_k.png`` (Fig. 2), ``il_vs_c.png`` (Fig. 3), ``runtime_vs_k.png`` (Fig. 4) and
``claims.md``: the paper's claim — CBMSA's IL below the baseline's at every k and c — checked point by point on
the mean over the generated data sets, with IL as Eq. 1 prints it (``IL_paper``: removed sequences left out)
and ours (``IL``: a removed sequence counts as fully suppressed) beside it.

Data sets are named as the paper's ``Data_<sequences>_<mean events>_<QIs>``; the default is the paper's
Data_1000_5_3 and Data_10000_5_3, one data set each (about 6 minutes in all on two cores; ``--sequences 1000``
takes seconds). ``--datasets N`` generates N of each size with seeds ``seed … seed + N − 1`` (the paper averages
10). Every point's output passes the independent (k,c)-privacy verifier before its row is written; ``cpu_s`` is
the method's CPU time (process time until the pipeline starts verifying), ``runtime_s`` its wall time.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from anonstudio.core.errors import ParameterError
from anonstudio.core.execution import Executor, LocalExecutor
from anonstudio.core.experiments._common import numbers
from anonstudio.core.params import Command, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report, subrange

METHODS = ("cbmsa", "cbmsa-baseline")
HIGHLY_SENSITIVE = ("HIV", "Hepatitis")
#: the paper's sweeps (§4): k = 5 .. 50 at c = 0.7; c = 0.5 .. 0.9 at k = 5
PAPER_K = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50)
PAPER_C = (0.5, 0.6, 0.7, 0.8, 0.9)
FIXED_C = 0.7
FIXED_K = 5
#: the generator's default carrier shares (HIV, Hepatitis)
CARRIERS = (0.04, 0.05)


def dataset(sequences: int, mean_events: float, n_qis: int, seed: int, carriers=CARRIERS):
    """``Data_<sequences>_<mean events>_<QIs>``: HHP-like visits and their hierarchies (004 §4, Fig. 1)."""
    from anonstudio.core.data import EventLog
    from anonstudio.core.generate import event_hierarchies, hhp_events

    df = hhp_events(sequences, mean_events, n_qis, seed=seed, carriers=tuple(carriers))
    qis = [c for c in df.columns if c not in ("PID", "VID", "Disease")]
    return EventLog(df, "PID", "VID", qis, "Disease"), event_hierarchies(qis)


def dataset_row(name: str, seed: int, log) -> dict:
    """One line of ``datasets.csv``: the generated data set's size and the share of its sequences showing each
    highly-sensitive value (what Fig. 3's bound c acts on)."""
    df = log.df
    n = df[log.sequence_id].nunique()
    shows = {v: df.loc[df[log.sensitive] == v, log.sequence_id].nunique() for v in HIGHLY_SENSITIVE}
    either = df.loc[df[log.sensitive].isin(HIGHLY_SENSITIVE), log.sequence_id].nunique()
    return {"dataset": name, "data_seed": seed, "sequences": n, "events": len(df),
            "events_per_sequence": len(df) / max(n, 1),
            **{f"share_{v}": shows[v] / max(n, 1) for v in HIGHLY_SENSITIVE},
            "share_highly_sensitive": either / max(n, 1)}


class _MethodClock:
    """A progress callback that notes the process's CPU time when the pipeline starts verifying: the CPU
    seconds of the method alone (``jobs.run`` reports the method's wall time only)."""

    def __init__(self, progress: ProgressCallback | None):
        self.progress, self.start, self.cpu = progress, time.process_time(), None

    def __call__(self, fraction: float, message: str = "") -> None:
        if self.cpu is None and message.startswith("verifying"):
            self.cpu = time.process_time() - self.start
        report(self.progress, fraction, message)


def sweep_point(point: tuple, shared, progress: ProgressCallback | None = None) -> dict:
    """One point: run the method through the engine pipeline (independent (k,c)-privacy verification,
    :class:`PrivacyError` if it fails) and return its row. Module-level, so a Dask worker can run it."""
    from anonstudio.core import algorithms, jobs

    name, sequences, seed, sweep, k, c, method = point
    log, hs = shared[(name, seed)]
    report(progress, 0.0, f"{name} (data seed {seed}), k = {k}, c = {c}: {method}")
    clock = _MethodClock(progress)
    outcome = jobs.anonymize(log, hs, algorithms.get(method)(k=k, c=c, highly_sensitive=list(HIGHLY_SENSITIVE), seed=1),
                       clock)
    rep = outcome.report
    m = rep["metrics"]
    return {
        "dataset": name, "data_seed": seed, "sequences": sequences, "events": len(log.df), "sweep": sweep, "k": k,
        "c": c, "method": method, "IL": m["IL"], "IL_paper": m["IL_paper"], "IL_per_event": m["IL_per_event"],
        "clusters": m["clusters"], "removed_sequences": m["removed_sequences"],
        "suppressed_events": m["suppressed_events"], "highest_confidence": m["highest_confidence"],
        "verified": bool(rep["verification"]["passed"]), "runtime_s": rep["runtime_s"],
        "cpu_s": round(clock.cpu, 4) if clock.cpu is not None else float("nan"),
    }


def warm_up(n_qis: int = 3) -> None:
    """Run both methods once on 20 generated sequences, so that loading the compiled kernels is in no point's
    time (Fig. 4 compares times)."""
    from anonstudio.core import algorithms

    log, hs = dataset(20, 3.0, n_qis, 0)
    for method in METHODS:
        algorithms.get(method)(k=2, c=1.0, highly_sensitive=list(HIGHLY_SENSITIVE)).run(log, hs)


def run_cbmsa_hhp(
    out: Path,
    *,
    k_values=PAPER_K,
    c_values=PAPER_C,
    sequences=(1000, 10000),
    datasets: int = 1,
    mean_events: float = 5.0,
    qis: int = 3,
    seed: int = 1,
    carriers=CARRIERS,
    progress: ProgressCallback | None = None,
    executor: Executor | None = None,
) -> list[Path]:
    """Run both sweeps on every data set; returns the written paths."""
    k_values = numbers(k_values, "k_values", int, 2)
    c_values = numbers(c_values, "c_values", float, 1e-9, 1.0)
    sizes = numbers(sequences, "sequences", int, 2)
    shares = numbers(carriers, "carriers", float, 0.0, 1.0)
    if len(shares) != len(HIGHLY_SENSITIVE):
        raise ParameterError(f"'carriers' takes {len(HIGHLY_SENSITIVE)} shares ({', '.join(HIGHLY_SENSITIVE)}), "
                             f"got {len(shares)}", column="carriers")
    if max(k_values) > min(sizes):
        raise ParameterError(f"k = {max(k_values)} is larger than the smallest data set ({min(sizes)} sequences)",
                             column="k_values")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    shared, points, described = {}, [], []
    for n in sizes:
        name = f"Data_{n}_{mean_events:g}_{qis}"
        for s in range(seed, seed + int(datasets)):
            shared[(name, s)] = dataset(n, mean_events, qis, s, shares)
            described.append(dataset_row(name, s, shared[(name, s)][0]))
            points += [(name, n, s, "k", k, FIXED_C, m) for k in k_values for m in METHODS]
            points += [(name, n, s, "c", FIXED_K, c, m) for c in c_values for m in METHODS]
    warm_up(qis)
    executor = executor if executor is not None else LocalExecutor()
    records = executor.map(sweep_point, points, shared=shared, progress=subrange(progress, 0.0, 0.95), label="run")
    frame = pd.DataFrame.from_records(records)
    from anonstudio.core.io import atomic_write

    csv_path, data_path, claims = out / "results.csv", out / "datasets.csv", out / "claims.md"
    with atomic_write(csv_path) as fh:
        frame.to_csv(fh, index=False)
    with atomic_write(data_path) as fh:
        pd.DataFrame(described).to_csv(fh, index=False)
    with atomic_write(claims) as fh:
        fh.write(claims_text(frame))
    paths = [csv_path, data_path, claims] + _plots(frame, out)
    report(progress, 1.0, f"wrote {csv_path}")
    return paths


def claim_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Per data set size, sweep and point, means over the generated data sets: both methods' IL as Eq. 1 prints
    it (``IL_paper_*``) and as ours (``IL_*``), suppressed events, on how many data sets CBMSA's printed-Eq.-1
    IL is the lower (``lower_on`` of ``datasets``), and whether it is lower on the mean (``holds``: the paper
    averages its data sets)."""
    keys = ["dataset", "sweep", "k", "c"]
    f = frame.copy()
    if "IL_paper" not in f:
        f["IL_paper"] = f["IL"]
    if "data_seed" not in f:
        f["data_seed"] = 0
    cb = f[f["method"] == "cbmsa"].set_index(keys + ["data_seed"])
    bl = f[f["method"] == "cbmsa-baseline"].set_index(keys + ["data_seed"])
    per = pd.DataFrame({"IL_paper_cbmsa": cb["IL_paper"], "IL_paper_baseline": bl["IL_paper"],
                        "IL_cbmsa": cb["IL"], "IL_baseline": bl["IL"],
                        "suppressed_cbmsa": cb["suppressed_events"], "suppressed_baseline": bl["suppressed_events"],
                        "removed_cbmsa": cb["removed_sequences"], "removed_baseline": bl["removed_sequences"]})
    per["lower"] = per["IL_paper_cbmsa"] < per["IL_paper_baseline"]
    g = per.reset_index().groupby(keys, sort=False)
    wide = g[[c for c in per.columns if c != "lower"]].mean()
    wide["datasets"] = g.size()
    wide["lower_on"] = g["lower"].sum().astype(int)
    wide = wide.reset_index()
    wide["holds"] = wide["IL_paper_cbmsa"] < wide["IL_paper_baseline"]
    return wide


def claims_text(frame: pd.DataFrame) -> str:
    """``claims.md``: the paper's claim, our figures and a verdict per point (means over the data sets)."""
    wide = claim_rows(frame)
    lines = ["# Sehatkar & Matwin (004), Figs 2-3: is CBMSA's information loss below the baseline's?", "",
             "Claim (004 §4): CBMSA's IL is lower than the baseline's at every k (c = 0.7) and every c (k = 5). IL as "
             "Eq. 1 prints it (removed sequences left out), the mean over the generated data sets; ours (a removed "
             "sequence counts as fully suppressed) beside it.", "",
             "| data set | sweep | k | c | data sets | IL CBMSA (Eq. 1) | IL baseline (Eq. 1) | CBMSA lower on | "
             "IL CBMSA / baseline (ours) | suppressed events CBMSA / baseline | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in wide.to_dict("records"):
        lines.append(f"| {r['dataset']} | {r['sweep']} | {r['k']} | {r['c']:g} | {r['datasets']} | "
                     f"{r['IL_paper_cbmsa']:.3f} | {r['IL_paper_baseline']:.3f} | {r['lower_on']} of {r['datasets']} | "
                     f"{r['IL_cbmsa']:.3f} / {r['IL_baseline']:.3f} | "
                     f"{r['suppressed_cbmsa']:g} / {r['suppressed_baseline']:g} | "
                     f"{'holds' if r['holds'] else 'does not hold'} |")
    held = int(wide["holds"].sum())
    lines += ["", f"**Our run: the claim holds at {held} of {len(wide)} points.**"]
    if held < len(wide):
        bad = wide[~wide["holds"]]
        more_sup = int((bad["suppressed_cbmsa"] > bad["suppressed_baseline"]).sum())
        lines += ["", f"At {len(bad)} point(s) the baseline loses less (mean over the data sets). At {more_sup} of "
                  "them CBMSA suppresses more events than the baseline: its alignment suppresses an event whenever "
                  "that is the cheapest step of the current merge (Eq. 6), and the shorter representative then costs "
                  "suppressions in every later merge of that cluster; greedy agglomeration minimizes each merge, "
                  "not the total."]
    for (name, method), grp in frame[frame["sweep"] == "c"].groupby(["dataset", "method"], sort=False):
        means = grp.groupby("c")["IL"].mean()
        spread = (means.max() - means.min()) / max(means.mean(), 1e-12)
        if len(means) > 1 and spread <= 0.01:
            lines += ["", f"On {name}, {method}'s IL hardly changes with c at k = {FIXED_K} (by {100 * spread:.1f} % "
                      f"from c = {means.index.min():g} to {means.index.max():g}; the paper's Fig. 3 falls with c): the "
                      f"bound seldom binds here: the largest share of a cluster's sequences showing "
                      f"{' or '.join(HIGHLY_SENSITIVE)} is {grp['highest_confidence'].max():.2f} over the whole sweep, "
                      f"below the smallest c ({means.index.min():g})."]
    return "\n".join(lines) + "\n"


def _plots(frame: pd.DataFrame, out: Path) -> list[Path]:
    """Figs. 2-4 on the means over the generated data sets (a band from the lowest to the highest data set
    where there are several)."""
    from anonstudio.core.experiments._plots import save_png, subplots

    paths = []
    names = list(dict.fromkeys(frame["dataset"]))
    metric_il = "IL_paper" if "IL_paper" in frame else "IL"
    for sweep, metric, fname, title in (("k", metric_il, "il_vs_k.png", f"IL vs k (c = {FIXED_C}), 004 Fig. 2"),
                                        ("c", metric_il, "il_vs_c.png", f"IL vs c (k = {FIXED_K}), 004 Fig. 3"),
                                        ("k", "runtime_s", "runtime_vs_k.png", "running time vs k, 004 Fig. 4")):
        fig, axes = subplots(1, len(names), figsize=(max(5.0, 4.2 * len(names)), 3.4), squeeze=False)
        for ax, name in zip(axes[0], names):
            sub = frame[(frame["dataset"] == name) & (frame["sweep"] == sweep)]
            for method, grp in sub.groupby("method", sort=False):
                g = grp.groupby(sweep)[metric]
                ax.plot(g.mean().index, g.mean().to_numpy(), marker="o", label=method)
                if g.size().max() > 1:
                    ax.fill_between(g.min().index, g.min().to_numpy(), g.max().to_numpy(), alpha=0.15)
            runs = int(sub.groupby(["method", sweep]).size().max()) if len(sub) else 0
            ax.set_title(name + (f" (mean of {runs} data sets)" if runs > 1 else ""), fontsize=9)
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
            Param("datasets", "int", 1, help="data sets generated per size, seeds seed … seed + N − 1 (the paper "
                  "averages 10)", low=1, high=100),
            Param("mean_events", "float", 5.0, help="mean events per sequence (the paper: 3, 5, 10)", low=1.0),
            Param("qis", "int", 3, help="quasi-identifiers per event (the paper: 2, 3, 4)", low=1, high=4),
            Param("seed", "int", 1, help="seed of the generated data and of the baseline's random suppression", low=0),
            Param("carriers", "str_list", [f"{x:g}" for x in CARRIERS],
                  help="shares of generated patients carrying " + " and ".join(HIGHLY_SENSITIVE)),
        )
    ),
    func=run_cbmsa_hhp,
)
