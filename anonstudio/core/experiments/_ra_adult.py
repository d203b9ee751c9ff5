"""Yang & Qiao (paper 001), §5.2 and §7 on Adult: probabilistic anonymity, count-query accuracy (Figs 6a,
6b), quasi-sensitive rules preserved (Figs 7, 8a, 8b) and the relative bias B(q), analytic against
empirical.

``anonstudio experiment ra-adult --out DIR`` writes ``queries.csv``, ``rules.csv``, ``bias.csv``,
``fig6a_error_vs_attributes.png``, ``fig6b_error_vs_l.png``, ``fig7_rules_ra_vs_anatomy.png``,
``fig8a_rules_vs_k.png``, ``fig8b_rules_vs_length.png``, ``bias.png`` and ``claims.md`` (each claim of the
paper, our figure and a verdict).

Setup (§7.1): occupation sensitive, every other column a quasi-identifier. ARX's copy of Adult has 8 of
the paper's 9 (no ``relationship``), so enhanced RA's ``k`` stops at 8 where the paper's Fig. 8a goes to 9.
Every anonymized table is produced through the engine pipeline and passes its independent verifier first.
The methods compared: RA (Algorithm 1, entropy weights — Proposition 7's optimum, the setting of the
paper's Pa), entropy-l-diverse Mondrian (k = l: entropy l-diversity implies classes of at least l records;
a class generalized to every root is kept, as the paper's comparison suppresses nothing) and Anatomy at
``l``. Anatomy needs no sensitive value above ``1/l`` of the records (Xiao & Tao's eligibility); on Adult
the most frequent occupation is 13.4 %, so l = 8 and 10 cannot be run — those points are reported as not
eligible, and the largest eligible ``l`` stands in for the paper's l = 10 in Fig. 6a (said on the plot).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from anonstudio.core.errors import ParameterError
from anonstudio.core.experiments._common import default_data_dir, numbers, read_adult, require_packages
from anonstudio.core.experiments._repro_001 import adult_statistics
from anonstudio.core.params import Command, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report

SENSITIVE = "occupation"
#: the paper's quasi-identifiers (§7.1) as ARX's Adult spells them; "relationship" is not in that copy
PAPER_QIS = ("education", "race", "sex", "workclass", "marital-status", "age", "relationship", "native-country",
             "salary-class")
PAPER_PA = 34.0
PAPER_L = (5, 8, 10)
PAPER_K = (1, 3, 5, 7, 9)
FIG6B_ATTRIBUTES = 5
FIG8B_K = 5


def _pipeline(table, hierarchies, name: str, progress=None, **params):
    from anonstudio.core import algorithms, jobs

    return jobs.anonymize(table, hierarchies, algorithms.get(name)(**params), progress, max_suppression=1.0).result


def largest_eligible_l(column: pd.Series) -> int:
    """The largest ``l`` Anatomy can give: no value above ``1/l`` of the records."""
    return int(len(column) // column.value_counts().max())


def anonymity_rows(table, qis: list[str], hierarchies: dict) -> list[dict]:
    """Pa at entropy and uniform weights (Eq. 1), its maximum (Proposition 7), Eq. 3's estimate, and Pa with
    age banded."""
    from anonstudio.core.metrics._ra import (
        attribute_entropy,
        entropy_weights,
        frequencies,
        max_probabilistic_anonymity,
        probabilistic_anonymity,
        uniform_anonymity_estimate,
    )

    h = np.array([attribute_entropy(frequencies(table.df[q])) for q in qis])
    banded = _banded_age(table, qis, hierarchies)
    return [
        {"measure": "Pa, entropy weights (Eq. 1)", "value": probabilistic_anonymity(entropy_weights(h), h)},
        {"measure": "max Pa = Σ e^H (Proposition 7)", "value": max_probabilistic_anonymity(h)},
        {"measure": "Pa, uniform weights (Eq. 1)", "value": probabilistic_anonymity(np.full(len(h), 1 / len(h)), h)},
        {"measure": "Pa, uniform estimate (Eq. 3)", "value": uniform_anonymity_estimate(h)},
    ] + [{"measure": f"diversity e^H of {q}", "value": float(np.exp(v))} for q, v in zip(qis, h)] + banded


def _banded_age(table, qis: list[str], hierarchies: dict) -> list[dict]:
    """Pa at entropy weights with age published in its hierarchy's first level (the paper's banded age)."""
    from anonstudio.core.metrics._ra import attribute_entropy, entropy_weights, frequencies, probabilistic_anonymity

    if "age" not in qis or "age" not in hierarchies:
        return []
    h = hierarchies["age"]
    cols = {q: table.df[q] for q in qis}
    cols["age"] = table.df["age"].map(lambda v: h.generalize(str(v), 1) if pd.notna(v) else v)
    ent = np.array([attribute_entropy(frequencies(c)) for c in cols.values()])
    return [{"measure": "Pa, entropy weights, age at hierarchy level 1", "value": probabilistic_anonymity(entropy_weights(ent), ent)}]


def run_ra_adult(
    out: Path,
    *,
    queries: int = 1000,
    l_values=PAPER_L,
    k_values=PAPER_K,
    bias_runs: int = 100,
    seed: int = 1,
    data: str = "",
    hierarchies: str = "",
    rows: int = 0,
    progress: ProgressCallback | None = None,
) -> list[Path]:
    """Run every part (see the module); returns the written paths."""
    require_packages("ra-adult", {"mlxtend": "Apriori for the rules preserved, Fig. 8"})
    from anonstudio.core.metrics._queries import (
        AnatomyTables,
        Domain,
        GeneralizedTable,
        PublishedTable,
        random_queries,
        relative_errors,
    )
    from anonstudio.core.metrics._ra_bias import bias_table, frequent_combinations
    from anonstudio.core.metrics._rules import anatomy_rules, quasi_sensitive_rules, recovered

    l_values = numbers(l_values, "l_values", int, 2)
    k_values = numbers(k_values, "k_values", int, 1)
    if queries < 1 or bias_runs < 2:
        raise ParameterError("queries must be ≥ 1 and bias_runs ≥ 2", column="queries")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    probe, _ = read_adult(data, hierarchies, rows, [], [SENSITIVE], data_dir=default_data_dir)
    qis = [q for q in PAPER_QIS if q in probe.df.columns]
    absent = [q for q in PAPER_QIS if q not in probe.df.columns]
    table, hs = read_adult(data, hierarchies, rows, qis, [SENSITIVE], data_dir=default_data_dir)
    m = len(qis)
    notes = []
    if absent:
        notes.append(f"our Adult has no {', '.join(absent)}: {m} quasi-identifiers where the paper has {len(PAPER_QIS)}")
    dropped_k = [k for k in k_values if k > m]
    k_values = sorted({min(k, m) for k in k_values})
    if dropped_k:
        notes.append(f"enhanced RA k = {', '.join(map(str, dropped_k))} is more than our {m} quasi-identifiers: run at k = {m}")
    best_l = largest_eligible_l(table.df[SENSITIVE])
    rng = np.random.default_rng(seed)

    # --- the anonymized tables
    report(progress, 0.0, "random anonymization")
    ra = _pipeline(table, {}, "ra", weights="entropy", seed=seed)
    ldiv, anat = {}, {}
    stages = sorted(set(l_values) | {max(l_values)})
    for i, l in enumerate(stages):
        report(progress, 0.05 + 0.25 * i / len(stages), f"entropy {l}-diverse Mondrian")
        ldiv[l] = _pipeline(table, hs, "mondrian", k=l, l=l, l_kind="entropy")
    for l in sorted(set(x for x in l_values if x <= best_l) | {min(best_l, max(l_values))}):
        anat[l] = _pipeline(table, {}, "anatomy", l=l, seed=seed)

    # --- Figs 6a and 6b: count queries
    domain = Domain(table.df, qis + [SENSITIVE])
    truth = PublishedTable(table.df, domain)
    answer = {"RA": PublishedTable(ra.output.df, domain)}
    l6a = max(l_values)
    a6a = l6a if l6a in anat else max(anat)
    answer[f"l-diversity (l={l6a})"] = GeneralizedTable(ldiv[l6a].output.df, domain, qis, SENSITIVE, hs)
    answer[f"anatomy (l={a6a})"] = AnatomyTables(anat[a6a].output.df, anat[a6a].side_outputs["sensitive"], domain, SENSITIVE)
    qrows = []
    query_sets = {}
    for j in range(1, m + 1):
        report(progress, 0.35 + 0.3 * (j - 1) / m, f"{queries} queries with {j} quasi-identifiers")
        query_sets[j] = random_queries(table.df, qis, SENSITIVE, j, queries, rng)
        for method, ans in answer.items():
            qrows.append({"figure": "6a", "attributes": j, "method": method.split(" (")[0], "l": _l_of(method),
                          **_error_stats(relative_errors(query_sets[j], truth, ans))})
    j6b = min(FIG6B_ATTRIBUTES, m)
    for l in l_values:
        qrows.append({"figure": "6b", "attributes": j6b, "method": "RA", "l": l,
                      **_error_stats(relative_errors(query_sets[j6b], truth, answer["RA"]))})
        err = relative_errors(query_sets[j6b], truth, GeneralizedTable(ldiv[l].output.df, domain, qis, SENSITIVE, hs))
        qrows.append({"figure": "6b", "attributes": j6b, "method": "l-diversity", "l": l, **_error_stats(err)})
        if l in anat:
            err = relative_errors(query_sets[j6b], truth, AnatomyTables(anat[l].output.df, anat[l].side_outputs["sensitive"],
                                                                         domain, SENSITIVE))
            qrows.append({"figure": "6b", "attributes": j6b, "method": "anatomy", "l": l, **_error_stats(err)})
        else:
            qrows.append({"figure": "6b", "attributes": j6b, "method": "anatomy", "l": l, "mean_relative_error": np.nan,
                          "median_relative_error": np.nan, "sd_relative_error": np.nan, "queries": 0,
                          "note": f"not eligible (largest l = {best_l})"})
    qframe = pd.DataFrame(qrows)

    # --- Figs 7, 8a, 8b: quasi-sensitive rules
    report(progress, 0.7, "Apriori on the original")
    base = quasi_sensitive_rules(table.df, qis, SENSITIVE)
    rrows = []

    def rule_row(figure, method, param, found):
        r = recovered(base, found)
        row = {"figure": figure, "method": method, "param": param, "rules": r["rules"], "found": r["found"],
               "percent": r["percent"], "artificial": r["artificial"]}
        row.update({f"percent_length_{k}": v for k, v in r["per_length"].items()})
        row.update({f"rules_length_{k}": v for k, v in r["per_length_rules"].items()})
        rrows.append(row)

    ra_rules = quasi_sensitive_rules(ra.output.df, qis, SENSITIVE)
    for l in l_values:
        rule_row("7", "RA", l, ra_rules)
        if l in anat:
            rule_row("7", "anatomy", l, anatomy_rules(anat[l].output.df, anat[l].side_outputs["sensitive"], qis, SENSITIVE))
        else:
            rrows.append({"figure": "7", "method": "anatomy", "param": l, "rules": len(base), "found": np.nan,
                          "percent": np.nan, "note": f"not eligible (largest l = {best_l})"})
    for i, k in enumerate(k_values):
        report(progress, 0.75 + 0.1 * i / len(k_values), f"enhanced RA, k = {k}")
        enhanced = _pipeline(table, {}, "ra-enhanced", attributes_per_record=k, seed=seed)
        rule_row("8a", "RA-enhanced", k, quasi_sensitive_rules(enhanced.output.df, qis, SENSITIVE))
    rframe = pd.DataFrame(rrows)

    # --- §5.2: B(q) and Var R(q), analytic vs empirical (Algorithm 1, uniform weights as Eq. 10-11 assume)
    report(progress, 0.85, f"{bias_runs} runs of RA for the empirical bias")
    combos = frequent_combinations(table.df, qis, 1, 20) + frequent_combinations(table.df, qis, 2, 20)
    outputs = [_pipeline(table, {}, "ra", weights="uniform", seed=seed + r).output.df for r in range(bias_runs)]
    bframe = bias_table(table.df, outputs, combos, qis, weights={q: 1.0 / m for q in qis})

    report(progress, 0.95, "writing")
    anonymity = pd.DataFrame(anonymity_rows(table, qis, hs))
    from anonstudio.core.io import atomic_write

    paths = []
    for name, frame in (("queries.csv", qframe), ("rules.csv", rframe), ("bias.csv", bframe), ("anonymity.csv", anonymity)):
        with atomic_write(out / name) as fh:
            frame.to_csv(fh, index=False)
        paths.append(out / name)
    with atomic_write(out / "claims.md") as fh:
        fh.write(claims_text(qframe, rframe, bframe, anonymity, notes=notes,
                             stats=adult_statistics(rows, data, hierarchies)))
    paths.append(out / "claims.md")
    paths += _plots(qframe, rframe, bframe, out, best_l=best_l)
    report(progress, 1.0, f"wrote {out}")
    return paths


def _error_stats(errors) -> dict:
    """Mean, median and standard deviation of the queries' relative errors (the mean's standard error is the
    standard deviation over √queries), and the number of queries."""
    e = np.asarray(errors, dtype=float)
    return {"mean_relative_error": float(e.mean()), "median_relative_error": float(np.median(e)),
            "sd_relative_error": float(e.std(ddof=1)) if len(e) > 1 else float("nan"), "queries": len(e)}


def _l_of(label: str):
    return int(label.split("l=")[1].rstrip(")")) if "l=" in label else np.nan


def claims_text(q: pd.DataFrame, r: pd.DataFrame, b: pd.DataFrame, anonymity: pd.DataFrame, *, notes, stats: dict) -> str:
    """``claims.md``: each claim of the paper part by part — what it says, our numbers, the test, the result —
    with its verdict (*reproduced*, *partly reproduced*, *differs*) and computed reasons, then what differs in
    our setup. ``stats``: :func:`~anonstudio.core.experiments._repro_001.adult_statistics` of the table run."""
    from anonstudio.core.experiments._claims import claims_table, counts
    from anonstudio.core.experiments._repro_001 import claims_from

    claims = claims_from(q, r, b, anonymity, stats)
    c = counts(claims)
    best_l = int(1 / stats["top_occupation"])
    lines = ["# Yang & Qiao (001) on Adult: the paper's claims against our run", ""] + claims_table(claims)
    lines += ["", f"**{c['reproduced']} of {len(claims)} claims reproduced, {c['partly reproduced']} partly, "
              f"{c['differs']} differ.**", "", "Where our setup differs from the paper's:", ""]
    lines += [f"- {n}" for n in notes]
    lines += [f"- Anatomy needs every sensitive value at most 1/l of the records; the most frequent occupation is "
              f"{stats['top_occupation']:.1%}, above 1/{best_l + 1}, so l > {best_l} is not eligible (the paper reports "
              "l = 8 and 10 without saying how it met the condition)."]
    return "\n".join(lines) + "\n"


def _label(ax, xlabel: str, ylabel: str, title: str, *, legend: bool = True, grid: bool = True) -> None:
    """Axis labels, title, grid and legend as every figure of this experiment has them."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if grid:
        ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize=8)


def _plots(q: pd.DataFrame, r: pd.DataFrame, b: pd.DataFrame, out: Path, *, best_l: int) -> list[Path]:
    from anonstudio.core.experiments._plots import save_png, subplots

    paths = []
    fig, ax = subplots(figsize=(5.6, 3.6))
    for method, grp in q[q["figure"] == "6a"].groupby("method", sort=False):
        l = grp["l"].iloc[0]
        ax.plot(grp["attributes"], grp["mean_relative_error"], marker="o",
                label=method + (f" (l = {int(l)})" if pd.notna(l) else ""))
    _label(ax, "quasi-identifiers in the query (j)", "mean relative error", "001 Fig. 6a: count-query error vs attributes")
    paths.append(save_png(fig, out / "fig6a_error_vs_attributes.png"))

    fig, ax = subplots(figsize=(5.6, 3.6))
    sub = q[q["figure"] == "6b"]
    for method, grp in sub.groupby("method", sort=False):
        ax.plot(grp["l"], grp["mean_relative_error"], marker="o", label=method)
    _label(ax, "l", "mean relative error",
           f"001 Fig. 6b: error vs l ({int(sub['attributes'].iloc[0])} attributes; Anatomy only l ≤ {best_l})")
    paths.append(save_png(fig, out / "fig6b_error_vs_l.png"))

    fig, ax = subplots(figsize=(5.6, 3.6))
    seven = r[r["figure"] == "7"].pivot_table(index="param", columns="method", values="percent")
    xs = np.arange(len(seven.index))
    for i, method in enumerate(seven.columns):
        ax.bar(xs + (i - 0.5) * 0.38, seven[method].fillna(0).to_numpy(), width=0.38, label=method)
    ax.set_xticks(xs, [f"l = {l}" for l in seven.index])
    ax.set_ylim(0, 105)
    _label(ax, "", "original rules recovered (%)",
           f"001 Fig. 7: rules recovered (Anatomy not eligible above l = {best_l})", grid=False)
    paths.append(save_png(fig, out / "fig7_rules_ra_vs_anatomy.png"))

    eight = r[r["figure"] == "8a"].sort_values("param")
    fig, ax = subplots(figsize=(5.6, 3.6))
    ax.plot(eight["param"], eight["percent"], marker="o", label="original rules recovered (%)")
    ax.set_ylim(0, 105)
    ax2 = ax.twinx()
    ax2.plot(eight["param"], eight["artificial"], marker="s", color="tab:red", label="artificial rules")
    ax2.set_ylabel("artificial rules")
    _label(ax, "k (quasi-identifiers redrawn per record)", "recovered (%)", "001 Fig. 8a: enhanced RA, rules vs k",
           legend=False)
    ax.legend(loc="lower left", fontsize=8)
    ax2.legend(loc="upper right", fontsize=8)
    paths.append(save_png(fig, out / "fig8a_rules_vs_k.png"))

    fig, ax = subplots(figsize=(5.6, 3.6))
    k5 = eight[eight["param"] == eight["param"].where(eight["param"] <= FIG8B_K).max()]
    cols = sorted(c for c in r.columns if c.startswith("percent_length_"))
    vals = [float(k5[c].iloc[0]) if len(k5) and pd.notna(k5[c].iloc[0]) else 0.0 for c in cols]
    ax.bar([c.rsplit("_", 1)[1] for c in cols], vals)
    ax.set_ylim(0, 105)
    _label(ax, "rule length |q̂|", "original rules recovered (%)",
           f"001 Fig. 8b: enhanced RA (k = {int(k5['param'].iloc[0]) if len(k5) else FIG8B_K}) by rule length",
           legend=False, grid=False)
    paths.append(save_png(fig, out / "fig8b_rules_vs_length.png"))

    fig, ax = subplots(figsize=(7.0, 3.8))
    xs = np.arange(len(b))
    ax.errorbar(xs, b["empirical_mean"], yerr=2 * b["empirical_se"], fmt="o", ms=3, label="empirical mean R(q) ± 2 se")
    ax.plot(xs, b["R_mean"], "x", color="tab:red", label="analytic E R(q) (Eq. 10)")
    ax.axvline(len(b[b["length"] == 1]) - 0.5, color="grey", lw=0.8)
    _label(ax, "value combination (20 most frequent single values, then pairs)", "relative difference R(q)",
           "001 §5.2: bias of supports under RA, analytic vs measured")
    paths.append(save_png(fig, out / "bias.png"))
    return paths


def _command(out, *, queries, l_values, k_values, bias_runs, seed, data, hierarchies, rows, progress=None,
             executor=None):
    return run_ra_adult(out, queries=queries, l_values=l_values, k_values=k_values, bias_runs=bias_runs, seed=seed,
                        data=data, hierarchies=hierarchies, rows=rows, progress=progress)


RA_ADULT = Command(
    name="ra-adult",
    help="Yang & Qiao Figs 6-8 and §5.2: count-query error, rules preserved and B(q) of RA vs l-diversity and "
         "Anatomy on Adult",
    parameters=ParamSet(
        (
            Param("queries", "int", 1000, help="random count queries per number of attributes (the paper: 1000)", low=1),
            Param("l_values", "str_list", [str(l) for l in PAPER_L], help="values of l for l-diversity and Anatomy"),
            Param("k_values", "str_list", [str(k) for k in PAPER_K], help="enhanced RA's k (attributes per record)"),
            Param("bias_runs", "int", 100, help="seeded runs of RA for the empirical bias and variance", low=2),
            Param("seed", "int", 1, help="seed of the methods and of the queries", low=0),
            Param("data", "str", "", help="Adult CSV or its folder (default: ../shared/data/adult beside the repository)",
                  browse="file", filter="Adult table (*.csv *.data *.tsv);;All files (*)"),
            Param("hierarchies", "str", "", help="folder of adult_hierarchy_<attribute>.csv (default: <data>/hierarchies)",
                  browse="folder"),
            Param("rows", "int", 0, help="use only the first ROWS records (0 = all 30,162)", low=0),
        )
    ),
    func=_command,
)
