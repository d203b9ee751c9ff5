"""A run's summary card, Qt-free: the headline a privacy officer reads first — method and parameters in words,
the verifier's verdict and what it checked, records published and suppressed, utility figures with their meanings,
time, notes and warnings — from the report alone (the workbench's Summary pane draws :func:`summary_html`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

from anonstudio.core.views._units import count_rows


#: report keys kept only for scripts written against an older report (cli-contract changelog): not shown
DEPRECATED = frozenset({"NCP"})

#: what each utility figure means, in one line (the report's metric keys)
MEANINGS = {
    "GCP": "information lost to generalization, 0 (none) to 1 (every cell at its root) — 002 Eq. 7",
    "NCP_total": "the normalized certainty penalty (002 Eqs. 5-6) summed over every quasi-identifier cell: "
                 "GCP × cells",
    "DM": "discernibility: Σ class size² (a suppressed record costs N) — lower is better",
    "DM_paper": "discernibility as 002's Eq. 8 prints it (suppressed records one class)",
    "CAVG": "average class size over k: 1 is ideal, larger means classes bigger than needed",
    "CAVG_paper": "CAVG as 002's Eq. 9 prints it (suppressed records one class)",
    "classes": "equivalence classes published",
    "min_class_size": "smallest published class",
    "CD": "compositional difference of symbols, original vs pseudo (000 Eq. 5), 0 is identical",
    "IL": "information loss of the sequences (004 Eq. 1; a removed sequence counts as fully suppressed)",
    "IL_paper": "IL as 004's Eq. 1 prints it (removed sequences left out of the sum)",
    "probabilistic_anonymity": "Pa (001 Eq. 1): a reader guesses a record's original values with chance about 1/Pa",
    "probabilistic_anonymity_max": "the most Pa any weights can reach on this data (001 Prop. 7)",
    "total_variation_max": "largest shift of any attribute's value distribution (0: unchanged)",
    "bias_max_abs": "largest relative bias of a frequent value's count (001 §5.2)",
    "clusters": "clusters the method formed (k-member, CBMSA)",
    "removed_sequences": "sequences removed because they could not be protected",
    "suppressed_events": "events suppressed",
    # tables: the rest of what the report's metrics hold
    "partitions": "parts Mondrian's cuts left (several may publish the same values: see classes)",
    "initial_clusters": "MST: components left after cutting the tree's longest edges, before small ones merge",
    "merges": "MST: components smaller than k merged into a neighbour",
    "mst_weight": "MST: total weight of the spanning tree (sum of its edges' hierarchy distances)",
    "suppressed": "records published with every quasi-identifier '*' (counted by the verifier)",
    "suppressed_records": "records published fully suppressed (the quality models' count)",
    "quality_value": "global: the value of the quality model the lattice search minimized (normalized)",
    # random anonymization
    "probabilistic_anonymity_uniform_estimate": "Pa as 001 Eq. 3 estimates it with equal weights",
    "bias_combinations": "value combinations whose relative bias R(q) was measured (the most frequent)",
    "bias_max_abs_z": "largest gap between measured and analytic R(q), in standard errors of the reruns (about 2 "
                      "or less: as expected)",
    "c_amplification_max": "001 §4.2.2: over the 10 most frequent published combinations, the largest ratio by "
                           "which one is likelier to come from one original neighbour (one attribute changed) than "
                           "another — 1: a reader learns nothing about which value was redrawn",
    "guess_probability_bound_max": "001 Prop. 10: the highest upper bound, over the 10 most frequent published "
                                   "combinations, on the chance of guessing a record's original values from the "
                                   "published ones knowing the data's frequencies (1: such a guess may be certain)",
    "attributes_per_record": "enhanced RA: quasi-identifiers redrawn in every record",
    "singled_out_one_change": "RA's near-match attack (issue 39): records with exactly one published record within "
                              "the quasi-identifiers RA may redraw (max_changed) of their true values, and it is "
                              "theirs (singled_out_correct, share), and records whose sensitive value every such "
                              "record carries (sensitive_certain); above 1 % the release is NOT safe to publish",
    # anatomy
    "l": "anatomy: every group holds l different sensitive values, none above 1/l of the group",
    "groups": "anatomy: groups published (each l-diverse)",
    # event sequences
    "IL_per_event": "information loss per published event (IL / events)",
    "highest_confidence": "largest share of a published group's sequences showing a highly-sensitive value (≤ c)",
    # strings
    "segments": "condensation: length segments the strings were split into (lengths within 1 + ε)",
    "redrawn_pseudo_strings": "pseudo-strings drawn again because they equalled an input",
    "uncondensable_groups": "groups whose statistics could not generate a pseudo-string (left out)",
    "uncondensable_strings": "strings of those groups",
    "max_fragment": "the fragment rule's limit: no run this long shared with 1..k-1 inputs is published",
    "rare_fragment_strings_drawn": "pseudo-strings in which a run reached the limit and a symbol was redrawn",
    "rare_fragment_symbols_redrawn": "symbols redrawn to keep the fragment rule",
    "knn_accuracy_original": "k-NN classification accuracy trained on the original strings (000 §5)",
    "knn_accuracy_pseudo": "k-NN classification accuracy trained on the pseudo-strings (close to the original: "
                           "the class signal survived)",
    "distance_order_preserved": "share of group pairs whose distance order the pseudo-strings keep (000 §5, 1 "
                                "is best)",
    "distance_order_pairs": "group pairs compared for the distance order",
    "exact_copies": "pseudo-strings equal to an input (must be 0)",
    "near_copy_identity": "the near-copy rule's identity: a window this close to a stretch of 1..k-1 inputs is refused",
    "near_copy_length": "the near-copy rule's window (symbols)",
    "near_copy_strings_drawn": "pseudo-strings drawn with a near-copy of fewer than k inputs (repaired)",
    "near_copy_symbols_redrawn": "symbols redrawn to repair them",
    # the suppression budget and local recoding (issue 31)
    "suppressed_outliers": "records the suppression budget published fully suppressed because that cost less "
                           "than generalizing their class (within max_suppression)",
    "classes_peeled": "local: classes taken whole from the lattice's best transformations",
    "transformations_peeled": "local: lattice transformations the peeling visited",
    "lattice": "local: transformations in the generalization lattice",
    "classes_specialized": "local: classes split again along the hierarchies into classes of at least k",
    "pairs_resplit": "local: pairs of classes whose records were re-split together",
    "leftovers": "local: records no class took, placed in their nearest class",
    # differential privacy (SafePub, issue 32 item 2)
    "k": "safepub: the smallest class size the bound of ε − ε_search and δ allows (Li et al. Theorem 5)",
    "sampling_probability": "safepub: β = 1 − e^−(ε − ε_search), each record's chance of being sampled",
    "sampled_records": "safepub: records the random sample kept (the others are rows of '*')",
    "published_records": "safepub: sampled records in classes of at least k, the ones published",
    "epsilon_anon": "safepub: ε − ε_search, the budget the sampling and k-anonymity spend",
}

#: what each figure of the verifier's ``details`` means (the Summary's "What the verifier checked")
CHECKED = {
    "canonical_form": "the files are byte for byte the form anonstudio writes of what was checked",
    "violations": "problems found (0: the output holds the model)",
    "k": "the k the output was checked against",
    "l": "the l the sensitive column was checked against",
    "l_kind": "which l-diversity: distinct values or entropy",
    "c": "the bound c on a group's highly-sensitive share",
    "records": "records checked",
    "classes": "equivalence classes the verifier counted in the output",
    "smallest_class": "records in the smallest class (at least k)",
    "largest_class": "records in the largest class",
    "suppressed": "records published fully suppressed ('*' in every quasi-identifier)",
    "suppressed_blanked": "fully suppressed records of a block smaller than k, whose other cells are published '*' "
                          "too",
    "max_suppression": "the share of records that may be fully suppressed",
    "person": "the input's column naming each record's person (several records per person; never published)",
    "counted": "what a class's size counts: people (a person column: distinct people, each at least k) or records",
    "epsilon_anon": "safepub: ε − ε_search, from which the verifier recomputes k",
    "delta": "safepub: the δ k was recomputed for",
    "sampling_probability": "safepub: β, each record's chance of being sampled (not checkable from a release)",
    "levels": "safepub: per quasi-identifier, the hierarchy levels every published cell fits (full-domain)",
    "classes_below_k": "classes smaller than k (must be 0)",
    "records_in_small_classes": "records in classes smaller than k (must be 0)",
    "invalid_cells": "quasi-identifier cells that generalize no input value (must be 0)",
    "changed_cells": "cells outside the quasi-identifiers that differ from the input (must be 0)",
    "lowest_diversity": "the lowest l-diversity of any class (at least l)",
    "l_violations": "classes below l (must be 0)",
    "sensitive": "the sensitive column",
    "sensitive_table_checked": "the second table (the groups' sensitive values) was checked against the input",
    "groups": "groups the verifier counted in the output",
    "smallest_group": "members of the smallest group",
    "max_changed": "quasi-identifiers a record may have redrawn",
    "records_changed": "records whose quasi-identifiers differ from the input",
    "keep_chance_at_most": "the highest chance that a record keeps all its values under real draws",
    "most_changed_in_a_record": "the most quasi-identifiers changed in one record (at most max changed)",
    "values_not_in_domain": "published values the column never held (must be 0)",
    "input_sequences": "sequences in the input",
    "input_events": "events in the input",
    "sequences": "sequences published",
    "events": "events published",
    "highest_confidence": "the largest highly-sensitive share of a group (at most c)",
    "removed_sequences": "sequences removed whole",
    "suppressed_events": "events missing from the published sequences (removed sequences not counted)",
    "unmatched_sequences": "published sequences the verifier could not match to an input sequence (must be 0)",
    "groups_below_k": "groups smaller than k (must be 0)",
    "groups_above_c": "groups above the bound c (must be 0)",
    "strings": "pseudo-strings published",
    "input_strings": "strings in the input",
    "exact_copies": "pseudo-strings equal to an input, forwards or backwards (must be 0)",
    "max_fragment": "the fragment rule's limit (symbols)",
    "longest_shared_max": "longest run any pseudo-string shares with an input",
    "longest_shared_mean": "that run's length, mean over the pseudo-strings",
    "longest_shared_median": "that run's length, median over the pseudo-strings",
    "longest_shared_record": "the pseudo-string with the longest shared run",
    "rare_fragment_strings": "pseudo-strings with a run of max fragment symbols held by 1..k-1 inputs (must be 0)",
    "longest_rare_fragment": "the longest such run (below max fragment)",
    "near_copy_identity": "the near-copy rule's identity",
    "near_copy_length": "the near-copy rule's window (symbols)",
    "near_copy_strings": "pseudo-strings with a near-copy of a stretch held by 1..k-1 inputs (must be 0)",
    "near_copy_windows": "windows of those pseudo-strings that are near-copies",
    "renamed_copies": "pseudo-strings that are an input with its symbols renamed (must be 0)",
}

#: where one of the verifier's figures means something else under a model (keyed by the model's name)
CHECKED_BY_MODEL = {
    "(k,c)-privacy": {"suppressed": "sequences removed whole",
                      "smallest_group": "sequences in the smallest group (at least k)"},
    "anatomy": {"smallest_group": "records in the smallest group (at least l)"},
    "pseudo-strings": {"smallest_group": "strings in the smallest group (at least k)"},
}


def checked_meaning(model: str, key: str) -> str:
    """What the verifier's figure ``key`` (a ``details`` key) means under ``model`` (the report's model name)."""
    own = next((m for name, m in CHECKED_BY_MODEL.items() if str(model).startswith(name)), {})
    return own.get(key, CHECKED.get(key, ""))


@dataclass
class Summary:
    """The card's content (no Qt)."""

    title: str
    passed: bool | None
    verdict: str
    #: (what, value, what it means) of the verifier's details
    checked: list[tuple[str, str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    parameters: list[tuple[str, str, str]] = field(default_factory=list)
    #: (what, value, what it counts) — each count named by its unit (:func:`~._units.count_rows`)
    records: list[tuple[str, str, str]] = field(default_factory=list)
    utility: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: the second verdict (:mod:`anonstudio.core.release_verdict`): "safe to publish" or what is not
    release: str = ""
    release_safe: bool | None = None
    release_risks: list[str] = field(default_factory=list)
    #: the hierarchy levels the release chose, one line (:func:`~._utility.generalization_levels`; ``""``: none)
    levels: str = ""


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}"
    return str(value)


def summary_sections(report: dict, *, warnings: list[str] | None = None, levels: str = "") -> Summary:
    """The summary of one run's ``report`` (``jobs.anonymize``'s dict): every figure shown is one the report holds;
    ``warnings``: the warnings to show instead of the report's (the workspace's, with its release options);
    ``levels``: the generalization levels chosen (:func:`~._utility.generalization_levels`), shown first."""
    from anonstudio.core import algorithms
    from anonstudio.core.errors import AnonStudioError

    name = str(report.get("algorithm", ""))
    try:
        cls = algorithms.get(name)
        title, helps = cls.title or name, {p.name: p.help for p in cls.parameters}
    except AnonStudioError:
        title, helps = name, {}
    ver = report.get("verification", {}) or {}
    passed = ver.get("passed")
    model = str(ver.get("model", ""))
    verdict = ("verified" if passed else "NOT verified — the output was refused") + (f" ({model})" if model else "")
    details = ver.get("details", {}) or {}
    checked = [(k.replace("_", " "), _number(v), checked_meaning(model, k)) for k, v in details.items()
               if isinstance(v, (int, float, bool)) or (isinstance(v, str) and len(v) < 80)]
    params = [(k, _number(v), helps.get(k, "")) for k, v in (report.get("parameters", {}) or {}).items()
              if k != "name" and v is not None]
    records = count_rows(report)
    records.append(("time", f"{float(report.get('runtime_s', 0.0)):.2f} s", "the method's own time, with verification "
                    "and the figures"))
    metrics = report.get("metrics", {}) or {}
    utility = [(k, _number(v), MEANINGS.get(k, "")) for k, v in metrics.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in DEPRECATED]
    utility.sort(key=lambda row: (row[0] not in MEANINGS, list(MEANINGS).index(row[0]) if row[0] in MEANINGS else 0))
    # every quality model the report measured (core.metrics._quality), after the method's own figures
    quality = metrics.get("quality") if isinstance(metrics.get("quality"), dict) else {}
    for name, q in quality.items():
        if isinstance(q, dict) and isinstance(q.get("value"), (int, float)):
            shown = _number(q["value"]) + (f" ({q['normalized']:.4g} normalized)" if q.get("normalized") not in
                                           (None, q["value"]) else "")
            utility.append((f"{q.get('title', name)} [{name}]", shown, str(q.get("meaning", ""))))
    from anonstudio.core.release_verdict import release_verdict

    shown_warnings = [str(w) for w in (report.get("warnings", []) if warnings is None else warnings) or []]
    second = release_verdict(report, shown_warnings)
    return Summary(title=title, passed=passed, verdict=verdict, checked=checked,
                   release=second.headline(), release_safe=second.safe_to_publish if passed else None,
                   release_risks=second.risks, levels=levels,
                   problems=[str(p) for p in (ver.get("problems") or [])][:5], parameters=params, records=records,
                   utility=utility, notes=[str(n) for n in report.get("notes", []) or []],
                   warnings=[str(w) for w in (report.get("warnings", []) if warnings is None else warnings) or []])


def summary_html(s: Summary) -> str:
    """The card as rich text: verdict (and problems) first, then records, utility, parameters, what the verifier
    checked, notes and warnings."""
    colour = "#1e7b34" if s.passed else "#b00020"

    def table(rows, header) -> str:
        body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
        head = "".join(f"<th align='left'>{escape(h)}</th>" for h in header)
        return f"<table cellspacing='0' cellpadding='3'><tr>{head}</tr>{body}</table>"

    parts = [f"<h2>{escape(s.title)}</h2>"]
    if s.levels:  # the levels chosen, first (as ARX's summary names the transformation)
        parts.append(f"<p><b>Generalization:</b> {escape(s.levels)}</p>")
    parts.append(f"<p style='color:{colour}; font-size:large'><b>{escape(s.verdict)}</b></p>")
    if s.release:  # the model holding is not the release being safe: the second verdict, red when it is not
        second = "#1e7b34" if s.release_safe else "#b00020"
        parts.append(f"<p style='color:{second}; font-size:large'><b>{escape(s.release)}</b></p>")
        if s.release_risks:
            parts.append(f"<ul style='color:{second}'>" + "".join(f"<li>{escape(r)}</li>" for r in s.release_risks)
                         + "</ul>")
    if s.problems:
        parts.append("<p><b>Problems</b></p><ul>" + "".join(f"<li>{escape(p)}</li>" for p in s.problems) + "</ul>")
    parts.append("<p><b>Counts</b></p>" + table(s.records, ("", "", "meaning")))
    if s.utility:
        parts.append("<p><b>Utility</b></p>" + table(s.utility, ("figure", "value", "meaning")))
    parts.append("<p><b>Parameters</b></p>" + table(s.parameters, ("parameter", "value", "meaning")))
    if s.checked:
        parts.append("<p><b>What the verifier checked</b></p>" + table(s.checked, ("", "", "meaning")))
    for label, items in (("Notes", s.notes), ("Warnings", s.warnings)):
        if items:
            parts.append(f"<p><b>{label}</b></p><ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>")
    return "".join(parts)
