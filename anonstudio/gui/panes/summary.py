"""The summary card: the headline of a run, first (issue 15, item 7).

What a privacy officer reads before anything else: which method ran with which parameters (in words), the
independent verifier's verdict and what it checked, how many records were published, suppressed or removed,
the method's utility figures with one line saying what each means, the time it took, and the run's notes and
warnings. Built from the run's report (the contract's dict) by :func:`summary_sections` (no Qt: tested
directly) and drawn as one read-only rich-text card. The window brings it to the front after every run of a
method without a result view of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

from PySide6 import QtWidgets

from anonstudio.gui.panes._common import OutcomePane, column, placeholder

#: what each utility figure means, in one line (the report's metric keys)
MEANINGS = {
    "GCP": "information lost to generalization, 0 (none) to 1 (every cell at its root) — 002 Eq. 7",
    "NCP": "sum over records of the normalized certainty penalty — 002 Eqs. 5-6",
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
    "clusters": "clusters published",
    "removed_sequences": "sequences removed because they could not be protected",
    "suppressed_events": "events suppressed",
}


@dataclass
class Summary:
    """The card's content (no Qt)."""

    title: str
    passed: bool | None
    verdict: str
    checked: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    parameters: list[tuple[str, str, str]] = field(default_factory=list)
    records: list[tuple[str, str]] = field(default_factory=list)
    utility: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}"
    return str(value)


def summary_sections(report: dict) -> Summary:
    """The summary of one run's ``report`` (``jobs.run``'s dict): every figure shown is one the report holds."""
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
    checked = [(k.replace("_", " "), _number(v)) for k, v in details.items()
               if isinstance(v, (int, float, bool)) or (isinstance(v, str) and len(v) < 80)]
    params = [(k, _number(v), helps.get(k, "")) for k, v in (report.get("parameters", {}) or {}).items()
              if k != "name" and v is not None]
    groups = report.get("groups", {}) or {}
    records = [("records in", _number(report.get("input", {}).get("records", 0))),
               ("records out", _number(report.get("output", {}).get("records", 0))),
               ("suppressed or removed", _number(report.get("suppressed", 0)))]
    if groups.get("count"):
        records.append(("groups", f"{groups['count']:,} of {groups.get('min_size', 0):,}–{groups.get('max_size', 0):,} "
                                  "records"))
    records.append(("time", f"{float(report.get('runtime_s', 0.0)):.2f} s"))
    metrics = report.get("metrics", {}) or {}
    utility = [(k, _number(v), MEANINGS.get(k, "")) for k, v in metrics.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)]
    utility.sort(key=lambda row: (row[0] not in MEANINGS, list(MEANINGS).index(row[0]) if row[0] in MEANINGS else 0))
    # every quality model the report measured (core.metrics._quality), after the method's own figures
    quality = metrics.get("quality") if isinstance(metrics.get("quality"), dict) else {}
    for name, q in quality.items():
        if isinstance(q, dict) and isinstance(q.get("value"), (int, float)):
            shown = _number(q["value"]) + (f" ({q['normalized']:.4g} normalized)" if q.get("normalized") not in
                                           (None, q["value"]) else "")
            utility.append((f"{q.get('title', name)} [{name}]", shown, str(q.get("meaning", ""))))
    return Summary(title=title, passed=passed, verdict=verdict, checked=checked,
                   problems=[str(p) for p in (ver.get("problems") or [])][:5], parameters=params, records=records,
                   utility=utility, notes=[str(n) for n in report.get("notes", []) or []],
                   warnings=[str(w) for w in report.get("warnings", []) or []])


def summary_html(s: Summary) -> str:
    """The card as rich text: verdict (and problems) first, then records, utility, parameters, what the verifier
    checked, notes and warnings."""
    colour = "#1e7b34" if s.passed else "#b00020"

    def table(rows, header) -> str:
        body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
        head = "".join(f"<th align='left'>{escape(h)}</th>" for h in header)
        return f"<table cellspacing='0' cellpadding='3'><tr>{head}</tr>{body}</table>"

    parts = [f"<h2>{escape(s.title)}</h2>",
             f"<p style='color:{colour}; font-size:large'><b>{escape(s.verdict)}</b></p>"]
    if s.problems:
        parts.append("<p><b>Problems</b></p><ul>" + "".join(f"<li>{escape(p)}</li>" for p in s.problems) + "</ul>")
    parts.append("<p><b>Records</b></p>" + table(s.records, ("", "")))
    if s.utility:
        parts.append("<p><b>Utility</b></p>" + table(s.utility, ("figure", "value", "meaning")))
    parts.append("<p><b>Parameters</b></p>" + table(s.parameters, ("parameter", "value", "meaning")))
    if s.checked:
        parts.append("<p><b>What the verifier checked</b></p>" + table(s.checked, ("", "")))
    for label, items in (("Notes", s.notes), ("Warnings", s.warnings)):
        if items:
            parts.append(f"<p><b>{label}</b></p><ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>")
    return "".join(parts)


class SummaryPane(OutcomePane):
    """The run's headline: method, verdict, records, utility, time (see the module)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome: Any = None
        self.summary: Summary | None = None
        self.card = QtWidgets.QTextBrowser()
        self.card.setObjectName("summary")
        self.card.setOpenExternalLinks(False)
        self.empty = placeholder("Run a method to see its summary: the verdict, what was checked, the records "
                                 "published and suppressed, the utility figures and the time.")
        self.stack = self._stack(self.empty, column((self.card, 1)))

    def clear(self) -> None:
        self.outcome = None
        self.summary = None
        self.card.clear()
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if not self._fresh(outcome, self.outcome):
            return
        self.outcome = outcome
        self.summary = summary_sections(outcome.report or {})
        self.card.setHtml(summary_html(self.summary))
        self.stack.setCurrentIndex(1)

    def text(self) -> str:
        return self.card.toPlainText()
