"""Paper 004 (Sehatkar & Matwin, CBMSA) in ``REPRODUCTION.md``: Table 1 → Table 2 (the worked example), our
generated data beside the paper's generator settings, and Figs. 2–4 part by part — IL as Eq. 1 prints it
(removed sequences left out) for the verdicts with ours beside it, means over as many generated data sets as the
paper averages (10) at 1,000 sequences, with the spread; running times as ratios.

Reasons are computed: the highest share of highly-sensitive sequences in any cluster against c, the carrier
shares of the generated data, a control run with Table 1's carrier shares, the time growth of both methods.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonstudio.core.experiments._claims import (
    NOT_EXPLAINED,
    Claim,
    DataRow,
    Part,
    rank_correlation,
    span,
)

TITLE = "Sehatkar & Matwin, clustering-based multidimensional sequence anonymization (CBMSA)"
PAPER_DATASETS = 10
#: §4: "a small dataset with total number of events about 4500 … a large dataset … about 47000"
PAPER_EVENTS = {1000: 4500, 10000: 47000}
#: §4: "less than 30 sec" at 1,000 sequences; "between 2200 sec and 2700 sec" at 10,000
PAPER_SECONDS = {1000: (None, 30.0), 10000: (2200.0, 2700.0)}
PAPER_HARDWARE = "a 1.80 GHz Intel Core i5 PC with 8 GB RAM, Java"
#: the paper's claim that the baseline is "very fast" read as: CBMSA at least twice the baseline's time (the
#: alignment "a large amount of its running time")
FAST_RATIO = 2.0


def _table1_carriers() -> tuple[float, float]:
    """Shares of Table 1's patients showing HIV and Hepatitis (3 and 2 of 10)."""
    from anonstudio.core.experiments._cbmsa_hhp import HIGHLY_SENSITIVE
    from anonstudio.core.experiments._paper_examples import p004_frame

    df = p004_frame()
    n = df["PID"].nunique()
    return tuple(df.loc[df["Disease"] == v, "PID"].nunique() / n for v in HIGHLY_SENSITIVE)


def _table1_either() -> float:
    """Share of Table 1's patients showing HIV or Hepatitis (or both)."""
    from anonstudio.core.experiments._cbmsa_hhp import HIGHLY_SENSITIVE
    from anonstudio.core.experiments._paper_examples import p004_frame

    df = p004_frame()
    return df.loc[df["Disease"].isin(HIGHLY_SENSITIVE), "PID"].nunique() / df["PID"].nunique()


def plan() -> list:
    carriers = [f"{x:g}" for x in _table1_carriers()]
    quick = {"sequences": ["150"], "datasets": 3, "k_values": ["5", "10", "20"], "c_values": ["0.5", "0.7", "0.9"]}
    return [
        ("cbmsa-1k", "cbmsa-hhp", {"sequences": ["1000"], "datasets": PAPER_DATASETS}, quick),
        ("cbmsa-10k", "cbmsa-hhp", {"sequences": ["10000"], "datasets": 1},
         {"sequences": ["600"], "datasets": 1, "k_values": ["5", "10", "20"], "c_values": ["0.5", "0.7", "0.9"]}),
        ("cbmsa-carriers", "cbmsa-hhp", {"sequences": ["1000"], "datasets": PAPER_DATASETS, "k_values": ["5"],
                                         "carriers": carriers},
         {**quick, "k_values": ["5"]}),
    ]


# ---------------------------------------------------------------------------------------------------------
def worked_example() -> Claim:
    """004 Table 1 anonymized at k = 2, c = 0.5 (HIV highly sensitive) through the engine, against Table 2."""
    from anonstudio.core import algorithms, jobs
    from anonstudio.core.data import EventLog
    from anonstudio.core.experiments import _paper_examples as P

    log, hs = P.p004_log(), P.p004_hierarchies()
    hs_values = list(P.P004_HIGHLY_SENSITIVE)
    ours = jobs.anonymize(log, hs, algorithms.get("cbmsa")(k=2, c=0.5, highly_sensitive=hs_values))
    merged = jobs.anonymize(log, hs, algorithms.get("cbmsa")(k=2, c=0.5, highly_sensitive=hs_values, leftover="merge"))
    def clusters_of(run):
        ids, cl = run.result.details["sequence_ids"], run.result.details["sequence_cluster"]
        return [set(np.asarray(ids)[cl == g].tolist()) for g in sorted(set(cl.tolist()) - {-1})], ids, cl

    our_clusters, ids, cl = clusters_of(ours)
    merged_clusters = clusters_of(merged)[0]
    removed = sorted((s for s, g in zip(ids, cl) if g < 0), key=int)
    paper = P.p004_table2_clusters()
    same = sum(c in paper for c in our_clusters)
    same_merged = sum(c in paper for c in merged_clusters)
    diseases = P.p004_frame().groupby("PID")["Disease"].apply(set)
    paper_ok = all(len(c) >= 2 and sum(bool(diseases[p] & set(hs_values)) for p in c) <= 0.5 * len(c) for c in paper)
    n = len(ids)
    # the IL of Table 2's clustering under our hierarchies: each of its clusters anonymized by our alignment alone
    paper_il, paper_suppressed = 0.0, 0
    for c in paper:
        sub = P.p004_frame()
        sub = sub[sub["PID"].isin(c)]
        one = algorithms.get("cbmsa")(k=len(c), c=1.0, highly_sensitive=hs_values).run(
            EventLog(sub.reset_index(drop=True), "PID", "VID", list(P.P004_QIS), "Disease"), hs)
        paper_il += one.metrics["IL_paper"] * len(c)
        paper_suppressed += int(one.metrics["suppressed_events"])
    paper_il /= n
    m, mm = ours.report["metrics"], merged.report["metrics"]
    def fmt(cs):
        return ", ".join("{" + ",".join(sorted(c, key=int)) + "}" for c in cs)
    return Claim("004", "Table 1 → Table 2 ((2, 0.5)-privacy, HIV highly sensitive)", [
        Part("Table 2 'satisfying (2, 0.5)-privacy'",
             f"ours: the verifier {'passes' if ours.verification.passed else 'fails'}; the paper's Table 2: "
             f"{len(paper)} clusters of ≥ 2 with at most half showing HIV: {'yes' if paper_ok else 'no'}",
             "both (k, c)-private", ours.verification.passed and paper_ok, None, ""),
        Part("all ten patients published (Table 2 lists 10)",
             f"{n - len(removed)} of {n} published by §3's rule (removed: {', '.join(removed) or 'none'}); "
             f"{n - mm['removed_sequences']} of {n} with leftover = merge", "10 of 10 by the paper's rule",
             not removed, None,
             f"§3 removes the last cluster when it violates (k, c): patients {' and '.join(removed)}, "
             f"{sum(bool(diseases[p] & set(hs_values)) for p in removed)} of them showing HIV, cannot form a pair "
             f"with at most half HIV; merged into their closest finished cluster all {n} are published "
             f"(IL {mm['IL_paper']:.3f})" if removed else ""),
        Part(f"the clusters of Table 2: {fmt(paper)}", f"ours: {fmt(our_clusters)} ({same} of {len(paper)} the "
             f"paper's); with leftover = merge: {fmt(merged_clusters)} ({same_merged} of {len(paper)})",
             "the same clusters", same == len(paper) and len(our_clusters) == len(paper), None,
             f"Table 2's clustering costs IL {paper_il:.3f} (Eq. 1, each of its clusters aligned by ours, on our "
             f"reading of Fig. 1's hierarchies) against {mm['IL_paper']:.3f} for ours with all ten published "
             "(leftover = merge): "
             + ("ours is cheaper by the paper's own measure, so an IL-minimizing merge order does not pick the "
                "paper's pairs" if mm["IL_paper"] < paper_il else f"the paper's is cheaper; {NOT_EXPLAINED}")
             if same < len(paper) else ""),
        Part("no visit suppressed (Table 2 keeps all 18)", f"{m['suppressed_events']} of {len(log.df)} suppressed",
             "none suppressed", m["suppressed_events"] == 0, None,
             (f"our clusters differ from Table 2's (c): aligned by ours, Table 2's own clusters need "
              f"{paper_suppressed} suppressed visit(s) and cost IL {paper_il:.3f}; ours with all {n} published "
              f"(leftover = merge) suppress {mm['suppressed_events']} and cost IL {mm['IL_paper']:.3f} (Eq. 1): "
              + ("suppressing is what makes our cheaper pairs; the alignment keeps every visit of Table 2's pairs"
                 if paper_suppressed == 0 else f"{NOT_EXPLAINED} (Table 2's pairs need suppression under our "
                 "alignment too, where the paper shows none)"))
             if m["suppressed_events"] else ""),
    ], kind="example")


# ---------------------------------------------------------------------------------------------------------
def _frames(ctx, sub: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    d = ctx.folder(sub)
    return pd.read_csv(d / "results.csv"), pd.read_csv(d / "datasets.csv")


def data_rows(ctx) -> list[DataRow]:
    from anonstudio.core.generate import event_hierarchies

    rows = []
    for sub, size in (("cbmsa-1k", 1000), ("cbmsa-10k", 10000)):
        _, ds = _frames(ctx, sub)
        n = int(ds["sequences"].iloc[0])
        ev = ds["events"]
        rows.append(DataRow("004", f"Data_{size}_5_3: sequences, events", f"{size:,} sequences, 'about "
                            f"{PAPER_EVENTS[size]:,}' events ({PAPER_EVENTS[size] / size:.1f} per sequence)",
                            f"{n:,} sequences, {ev.mean():,.0f} events (min–max {ev.min():,}–{ev.max():,} over "
                            f"{len(ds)} data set(s); {ds['events_per_sequence'].mean():.2f} per sequence)",
                            f"{100 * (ds['events_per_sequence'].mean() / (PAPER_EVENTS[size] / size) - 1):+.0f} % "
                            "events per sequence" + ("" if n == size else f"; {n:,} sequences (quick mode)"),
                            "generator's mean is 5 events per sequence, as the data set's name says"))
        rows.append(DataRow("004", f"Data_{size}_5_3: data sets averaged", f"{PAPER_DATASETS}",
                            f"{len(ds)} (seeds {ds['data_seed'].min()}–{ds['data_seed'].max()})",
                            "no" if len(ds) >= PAPER_DATASETS else f"{len(ds)} of {PAPER_DATASETS}",
                            "—" if len(ds) >= PAPER_DATASETS else "a data set of 10,000 takes about 15 CPU minutes "
                            "for both sweeps: its claims count as checked on fewer points" if size == 10000 else
                            "quick mode: fewer data sets"))
    _, ds = _frames(ctx, "cbmsa-1k")
    hs = event_hierarchies(["AdmYr", "ZIP", "DSFC", "LOS"][: ctx.params("cbmsa-1k")["qis"]])
    rows.append(DataRow("004", "quasi-identifiers", "3 of DSFC, LOS, ZIP, AdmYr (which 3 is not said); hierarchies "
                        "of Fig. 1 (missing from the text; Table 2 shows 2- and 4-year ranges, ZIP masked digit by "
                        "digit, week bands)", ", ".join(f"{a} (height {h.height})" for a, h in hs.items()),
                        "unknown", "the first three in Table 1's column order"))
    shares = {c: ds[c].mean() for c in ds.columns if c.startswith("share_")}
    t1 = _table1_carriers()
    rows.append(DataRow("004", "sequences showing a highly-sensitive value",
                        f"not given for the generator; Table 1: HIV {t1[0]:.0%}, Hepatitis {t1[1]:.0%} of patients",
                        ", ".join(f"{c.replace('share_', '').replace('_', ' ')} {v:.1%}" for c, v in shares.items())
                        + f" (mean of {len(ds)} data sets)", f"unknown for the generator; "
                        f"{_table1_either() / max(shares.get('share_highly_sensitive', 0.0), 1e-9):.1f}× fewer than "
                        f"Table 1's patients (HIV or Hepatitis: {_table1_either():.0%})",
                        "control run with Table 1's shares (`004/cbmsa-carriers`, Fig. 3)"))
    rows.append(DataRow("004", "machine", PAPER_HARDWARE, ctx.hardware, "yes", "running times compared as ratios "
                        "(Fig. 4)"))
    return rows


def _il_series(f: pd.DataFrame, sweep: str, column: str) -> pd.DataFrame:
    """Mean, min and max over the data sets of ``column`` per method and point of ``sweep``."""
    sub = f[f["sweep"] == sweep]
    return sub.groupby(["method", sweep])[column].agg(["mean", "min", "max", "size"]).reset_index()


def _sweep_claim(ctx, fig: str, sub: str, sweep: str) -> Claim:
    f, ds = _frames(ctx, sub)
    name = str(f["dataset"].iloc[0])
    n_sets = int(ds.shape[0])
    paper = _il_series(f, sweep, "IL_paper")
    ours = _il_series(f, sweep, "IL")
    wide = paper.pivot(index=sweep, columns="method", values="mean")
    lower = int((wide["cbmsa"] < wide["cbmsa-baseline"]).sum())
    per = f[f["sweep"] == sweep].pivot_table(index=["data_seed", sweep], columns="method", values="IL_paper")
    per_lower = int((per["cbmsa"] < per["cbmsa-baseline"]).sum())
    ours_wide = ours.pivot(index=sweep, columns="method", values="mean")
    ours_lower = int((ours_wide["cbmsa"] < ours_wide["cbmsa-baseline"]).sum())
    rho = {m: rank_correlation(wide.index, wide[m]) for m in wide.columns}
    points = (n_sets, PAPER_DATASETS) if n_sets < PAPER_DATASETS else None
    few = f"{n_sets} of the paper's {PAPER_DATASETS} data sets" if points else ""

    def ends(m):
        s = paper[paper["method"] == m].sort_values(sweep)
        lo, hi = s.iloc[0], s.iloc[-1]
        def spread(r):
            return f" ({r['min']:.2f}–{r['max']:.2f})" if r["size"] > 1 else ""
        return (f"{m}: {sweep}={lo[sweep]:g} {lo['mean']:.3f}{spread(lo)}, {sweep}={hi[sweep]:g} "
                f"{hi['mean']:.3f}{spread(hi)}")

    trend_word = "rises" if sweep == "k" else "falls"
    sign = 1 if sweep == "k" else -1
    trend_ok = all(sign * r >= 0.9 for r in rho.values())
    worse = wide.index[wide["cbmsa"] >= wide["cbmsa-baseline"]]
    lose_reason = ""
    if lower < len(wide):
        sup = f[(f["sweep"] == sweep) & f[sweep].isin(worse)].groupby("method")[["suppressed_events",
                                                                                "removed_sequences"]].mean()
        lose_reason = (f"at {sweep} = {', '.join(f'{x:g}' for x in worse)} CBMSA suppresses "
                       f"{sup.loc['cbmsa', 'suppressed_events']:.0f} events and removes "
                       f"{sup.loc['cbmsa', 'removed_sequences']:.1f} sequences on average against the baseline's "
                       f"{sup.loc['cbmsa-baseline', 'suppressed_events']:.0f} and "
                       f"{sup.loc['cbmsa-baseline', 'removed_sequences']:.1f}: Eq. 1 as printed leaves removed "
                       f"sequences out, and greedy agglomeration minimizes each merge, not the total"
                       + (f"; with ours (removed = fully suppressed) CBMSA is lower at {ours_lower} of {len(wide)}"
                          if ours_lower != lower else ""))
    parts = [
        Part("'as k increases, IL increases for both algorithms'" if sweep == "k" else
             "'in general, IL decreases as c increases'",
             "mean IL (Eq. 1 as printed; min–max over the data sets): " + "; ".join(ends(m) for m in wide.columns)
             + "; rank correlation with " + sweep + ": " + ", ".join(f"{m} {r:+.2f}" for m, r in rho.items()),
             f"the mean {trend_word} with {sweep} for both methods (rank correlation {'≥ 0.9' if sign > 0 else '≤ −0.9'})",
             trend_ok, points, few if trend_ok else _c_reason(ctx, f, sub) if sweep == "c" else NOT_EXPLAINED,
             "data sets"),
        Part("CBMSA's IL below the baseline's (the benefit of the alignment)",
             f"Eq. 1 as printed, mean of {n_sets} data set(s): CBMSA lower at {lower} of {len(wide)} points "
             f"(per data set: {per_lower} of {len(per)}); ours (a removed sequence fully suppressed): {ours_lower} of "
             f"{len(ours_wide)}", "lower at every point (means)", lower == len(wide), points,
             lose_reason if lower < len(wide) else few, "data sets"),
    ]
    return Claim("004", f"{fig} (IL vs {sweep}, {name})", parts, runs=(sub,))


def _c_reason(ctx, f: pd.DataFrame, sub: str) -> str:
    """Why IL does not fall with c: the highest highly-sensitive share of any cluster against the smallest c, the
    data's carrier shares, and the control run with Table 1's shares — IL as Eq. 1 prints it and ours, and the
    sequences removed at the smallest and largest c (Eq. 1 as printed leaves them out of the average)."""
    c_rows = f[f["sweep"] == "c"]
    worst = float(c_rows["highest_confidence"].max())
    cmin = float(c_rows["c"].min())
    _, ds = _frames(ctx, sub)
    share = float(ds["share_highly_sensitive"].mean())
    cf, cds = _frames(ctx, "cbmsa-carriers")
    ctrl = _il_series(cf, "c", "IL_paper").pivot(index="c", columns="method", values="mean")
    ctrl_ours = _il_series(cf, "c", "IL").pivot(index="c", columns="method", values="mean")
    removed = cf[cf["sweep"] == "c"].groupby(["method", "c"])["removed_sequences"].mean().unstack(0)
    rho = {m: rank_correlation(ctrl.index, ctrl[m]) for m in ctrl.columns}
    rho_ours = {m: rank_correlation(ctrl_ours.index, ctrl_ours[m]) for m in ctrl_ours.columns}
    falls = all(r <= -0.5 for r in rho.values())
    falls_ours = all(r <= -0.5 for r in rho_ours.values())
    fewer_removed = all(removed[m].iloc[0] > removed[m].iloc[-1] for m in removed.columns)
    lo, hi = f"{ctrl.index.min():g}", f"{ctrl.index.max():g}"
    text = (f"the highest share of a cluster's sequences showing HIV or Hepatitis over the sweep is {worst:.2f}, "
            f"{'below' if worst < cmin else 'at or above'} the smallest c ({cmin:g}): the bound "
            f"{'never binds' if worst < cmin else 'binds rarely'}; {share:.1%} of the generated sequences show one "
            f"of them. Control with Table 1's carrier shares ({float(cds['share_highly_sensitive'].mean()):.0%} of "
            f"the sequences), mean IL from c = {lo} to {hi}, Eq. 1 as printed: "
            + ", ".join(f"{m} {ctrl[m].iloc[0]:.3f} → {ctrl[m].iloc[-1]:.3f} (rank correlation {rho[m]:+.2f})"
                        for m in ctrl.columns)
            + "; ours (a removed sequence fully suppressed): "
            + ", ".join(f"{m} {ctrl_ours[m].iloc[0]:.3f} → {ctrl_ours[m].iloc[-1]:.3f} (rank correlation "
                        f"{rho_ours[m]:+.2f})" for m in ctrl_ours.columns)
            + "; sequences removed: " + ", ".join(f"{m} {removed[m].iloc[0]:.1f} at c = {lo}, {removed[m].iloc[-1]:.1f}"
                                                  f" at {hi}" for m in removed.columns))
    if worst < cmin:
        # the bound never binds on our data: every c gives the same clustering, so the curve is flat; the control
        # says whether it falls once there are carriers enough
        verdict = ("IL falls with c as Eq. 1 prints it" if falls else
                   "IL falls with c only when removed sequences count: Eq. 1 as printed drops the sequences a small c "
                   "removes, which offsets the fall" if falls_ours and fewer_removed else
                   "IL does not fall with c either way")
        return text + f" — on our data c never binds, so the runs at every c are the same; with enough carriers {verdict}"
    main_ours = _il_series(f, "c", "IL").pivot(index="c", columns="method", values="mean")
    main_rho = {m: rank_correlation(main_ours.index, main_ours[m]) for m in main_ours.columns}
    main_removed = c_rows.groupby(["method", "c"])["removed_sequences"].mean().unstack(0)
    text += ("; on this data, ours: " + ", ".join(f"{m} rank correlation {r:+.2f}" for m, r in main_rho.items())
             + ", sequences removed: " + ", ".join(f"{m} {main_removed[m].iloc[0]:.1f} at c = {lo}, "
                                                  f"{main_removed[m].iloc[-1]:.1f} at {hi}"
                                                  for m in main_removed.columns))
    if all(r <= -0.5 for r in main_rho.values()) and all(main_removed[m].iloc[0] > main_removed[m].iloc[-1]
                                                       for m in main_removed.columns):
        return text + (" — IL falls with c when removed sequences count: Eq. 1 as printed drops the sequences a "
                       "small c removes, which offsets the fall")
    return text + f"; {NOT_EXPLAINED}"


def _timing_claim(ctx) -> Claim:
    small, _ = _frames(ctx, "cbmsa-1k")
    big, _ = _frames(ctx, "cbmsa-10k")
    col = "cpu_s" if "cpu_s" in small and small["cpu_s"].notna().all() else "runtime_s"
    k_small = small[small["sweep"] == "k"].groupby(["method", "k"])[col].mean().unstack(0)
    k_big = big[big["sweep"] == "k"].groupby(["method", "k"])[col].mean().unstack(0)
    n_small, n_big = int(small["sequences"].iloc[0]), int(big["sequences"].iloc[0])
    common = k_small.index.intersection(k_big.index)
    growth = (k_big.loc[common] / k_small.loc[common])
    expo = np.log(growth) / np.log(n_big / n_small)
    paper_expo = np.log(PAPER_SECONDS[10000][0] / PAPER_SECONDS[1000][1]) / np.log(10000 / 1000)
    ratio_small = k_small["cbmsa"] / k_small["cbmsa-baseline"]
    ratio_big = k_big["cbmsa"] / k_big["cbmsa-baseline"]
    hw = ctx.hardware
    ours_abs = (f"CBMSA {k_small['cbmsa'].max():.2f} s at most at {n_small:,} sequences, "
                f"{span(k_big['cbmsa'], '{:.1f}')} s at {n_big:,} (CPU seconds of the method, {hw})")
    speed = (f"; the paper's {PAPER_SECONDS[10000][0]:,.0f}–{PAPER_SECONDS[10000][1]:,.0f} s at 10,000 are "
             f"{PAPER_SECONDS[10000][0] / k_big['cbmsa'].max():.0f}–{PAPER_SECONDS[10000][1] / k_big['cbmsa'].min():.0f}"
             f"× ours ({PAPER_HARDWARE})") if n_big == 10000 else ""
    alike = abs(float(expo["cbmsa-baseline"].median() - expo["cbmsa"].median())) <= 0.2
    why_fast = (f"from {n_small:,} to {n_big:,} sequences the baseline's time grows as "
                f"n^{expo['cbmsa-baseline'].median():.2f} and CBMSA's as n^{expo['cbmsa'].median():.2f} (median over k)"
                + (": both run the same agglomerative clustering, whose pair updates dominate; aligning "
                   "representatives of about 5 events by dynamic programming is a small part of either" if alike
                   else f"; {NOT_EXPLAINED}"))
    return Claim("004", "Fig. 4 (running time vs k)", [
        Part(f"CBMSA 'less than 30 sec' at 1,000 sequences and 'between 2200 sec and 2700 sec' at 10,000 for "
             f"every k ({PAPER_HARDWARE}): a growth ≥ {PAPER_SECONDS[10000][0] / PAPER_SECONDS[1000][1]:.0f}× for "
             f"10× the sequences, time ∝ n^{paper_expo:.2f} or steeper",
             ours_abs + f"; growth {span(growth['cbmsa'], '{:.1f}')}× for "
             f"{n_big / n_small:g}× the sequences, time ∝ n^{expo['cbmsa'].min():.2f}–n^{expo['cbmsa'].max():.2f}"
             + speed, f"CBMSA's exponent ≥ {paper_expo:.2f} at every k (ratios, not seconds: the machines differ)",
             bool((expo["cbmsa"] >= paper_expo).all()), None,
             f"{NOT_EXPLAINED}: the exponent is {expo['cbmsa'].median():.2f} (median over k)"
             if not (expo["cbmsa"] >= paper_expo).all() else ""),
        Part(f"'the run time of baseline algorithm for both datasets is very fast' — at {n_small:,} sequences",
             f"CBMSA / baseline CPU time {ratio_small.min():.2f}–{ratio_small.max():.2f} over k",
             f"CBMSA at least {FAST_RATIO:g}× the baseline's time at every k", bool((ratio_small >= FAST_RATIO).all()),
             None, why_fast if not (ratio_small >= FAST_RATIO).all() else ""),
        Part(f"… and at {n_big:,} sequences", f"CBMSA / baseline CPU time {ratio_big.min():.2f}–{ratio_big.max():.2f}",
             f"CBMSA at least {FAST_RATIO:g}× the baseline's time at every k", bool((ratio_big >= FAST_RATIO).all()),
             None, why_fast if not (ratio_big >= FAST_RATIO).all() else ""),
    ], runs=("cbmsa-1k", "cbmsa-10k"))


def claims(ctx) -> list[Claim]:
    return [worked_example(),
            _sweep_claim(ctx, "Fig. 2a", "cbmsa-1k", "k"), _sweep_claim(ctx, "Fig. 2b", "cbmsa-10k", "k"),
            _sweep_claim(ctx, "Fig. 3a", "cbmsa-1k", "c"), _sweep_claim(ctx, "Fig. 3b", "cbmsa-10k", "c"),
            _timing_claim(ctx)]
