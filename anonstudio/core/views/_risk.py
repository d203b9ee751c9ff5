"""What the Risk view shows: the re-identification risk of the table loaded, and after a run the release's, before
and after side by side (issue 32 item 3).

Everything is computed by :mod:`anonstudio.core.metrics` (the figures of ``anonstudio risk`` and of the report's
``risk`` section); this module only picks and words them:

- :func:`table_risk_view` — the loaded table on its quasi-identifiers (``before`` only): ``anonstudio risk TABLE
  --qi …`` with the table's sensitive and identifying columns. About 0.1 s on Adult: the workbench runs it on a
  worker thread.
- :func:`release_risk_view` — a finished run: the report's ``risk`` section, computed by the run on its worker.
- :func:`risk_rows` — the figures as rows ``(figure, before, after)`` at a threshold the user chooses: the share
  of records above it is recounted from the class-size histogram each side keeps (microseconds), the rest is
  as measured.
- :func:`risk_bars` — the record-level prosecutor risk distribution in ARX's bins, before and after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: the sides of a view, in the order shown
SIDES = ("before", "after")


@dataclass(frozen=True)
class RiskView:
    """One view's figures: ``before`` (the input, or the table loaded) and ``after`` (the release; ``None`` before
    a run), each one side's figures as :func:`anonstudio.core.metrics.table_risk` gives them, on the same
    ``quasi_identifiers`` and ``population`` (the contract's ``population`` entry)."""

    quasi_identifiers: list[str]
    population: dict[str, Any]
    before: dict[str, Any] | None
    after: dict[str, Any] | None = None
    #: what was measured, in words (for the pane's heading)
    what: str = ""
    sides: dict[str, dict[str, Any]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sides", {s: f for s, f in (("before", self.before), ("after", self.after))
                                           if f is not None})


def table_risk_view(data: Any, progress: Any = None, *, quasi_identifiers: list[str] | None = None,
                    sensitive: list[str] | None = None, identifying: list[str] | None = None,
                    person: str | None = None, population: int | None = None,
                    sampling_fraction: float | None = None) -> RiskView | None:
    """The loaded table's risk on its quasi-identifiers (``None`` for data that is not a table, or a table without
    quasi-identifiers or records): the figures ``anonstudio risk TABLE --qi <QIs> --sensitive <S> --identifying
    <I> --json`` prints, for the US population (ARX's default) unless ``population`` or ``sampling_fraction`` is
    given (its ``--population`` / ``--sampling-fraction``). The roles are the table's unless given (a caller on
    another thread passes those it took, so that a role changed meanwhile cannot change them under it); ``person``
    (default: the table's person column) counts each class's distinct people (``--person``)."""
    from anonstudio.core.data import Role, Table
    from anonstudio.core.metrics import table_risk
    from anonstudio.core.progress import report

    if not isinstance(data, Table):
        return None
    qis = list(data.quasi_identifiers if quasi_identifiers is None else quasi_identifiers)
    if not qis or len(data.df) == 0:
        return None
    if sensitive is None:
        sensitive = list(data.sensitive)
    if identifying is None:
        identifying = [str(c) for c in data.df.columns if data.role(c) is Role.IDENTIFYING]
    report(progress, 0.0, "measuring the re-identification risk of the table")
    if person is None:
        person = data.person
    figures = table_risk(data, qis, sensitive=list(sensitive), identifying=list(identifying), person=person,
                         population=population, sampling_fraction=sampling_fraction)
    report(progress, 1.0, "risk measured")
    return RiskView(list(figures["quasi_identifiers"]), dict(figures["population"]), figures,
                    what="the table loaded")


def release_risk_view(outcome: Any, *, population: int | None = None,
                      sampling_fraction: float | None = None) -> RiskView | None:
    """A finished run's risk, before and after, from its report's ``risk`` section (``None`` when the report has
    none: a release of event sequences or strings) — or, for another population than the report's (``population``
    or ``sampling_fraction``), measured again on the run's input and release
    (:func:`anonstudio.core.metrics.release_risk`, as the run measured it)."""
    report = getattr(outcome, "report", None) or {}
    risk = report.get("risk")
    if not isinstance(risk, dict) or "before" not in risk:
        return None
    if population is not None or sampling_fraction is not None:
        from anonstudio.core.io import to_jsonable
        from anonstudio.core.metrics import release_risk
        from anonstudio.core.risk import DEFAULT_THRESHOLD

        result = outcome.result
        risk = to_jsonable(release_risk(outcome.data, result.output, side_outputs=result.side_outputs,
                                        population=population, sampling_fraction=sampling_fraction,
                                        threshold=float(risk.get("threshold", DEFAULT_THRESHOLD))))
    return RiskView(list(risk["quasi_identifiers"]), dict(risk["population"]), risk["before"], risk["after"],
                    what=f"the input and the {report.get('algorithm', 'method')} release")


def records_above(figures: dict[str, Any], threshold: float) -> float:
    """Share of the side's measured records whose prosecutor risk ``1/f`` exceeds ``threshold``, recounted from its
    class-size histogram (:func:`anonstudio.core.risk.prosecutor_risk`)."""
    from anonstudio.core.risk import Histogram, prosecutor_risk

    sizes = figures["class_sizes"]
    h = Histogram(np.asarray(sizes["sizes"], dtype=np.int64), np.asarray(sizes["counts"], dtype=np.int64))
    return float(prosecutor_risk(h, threshold)["records_at_risk"])


def _pct(x: float) -> str:
    return f"{100.0 * float(x):.4g} %"


def _estimate(e: dict[str, Any]) -> str:
    if not e.get("available", True):
        return "not available"
    return f"{_pct(e['share'])} ({float(e['uniques']):,.0f} people)"


#: the figures of :func:`risk_rows`, with what each says
RISK_FIGURES = {
    "records measured": "records on which the figures are computed (fully suppressed ones that publish nothing "
                        "else left out; a suppressed block that publishes its other cells is a class)",
    "equivalence classes": "groups of records with equal quasi-identifiers",
    "prosecutor risk: highest": "1 / the smallest class: the risk of the most exposed record",
    "prosecutor risk: average": "classes / records: the share of records re-identified on average",
    "records above the threshold": "share of records whose risk 1/f exceeds the threshold",
    "journalist risk: highest": "as the prosecutor's, with each class's size in the population table",
    "journalist risk: average": "as the prosecutor's, with each class's size in the population table",
    "marketer risk": "share of records re-identified when the attacker matches every record",
    "sample uniques": "share of records alone in their class",
    "population uniques: Pitman": "Pitman's sampling formula (Hoshino 2001)",
    "population uniques: Zayatz": "Zayatz (1991)",
    "population uniques: SNB": "shifted negative binomial (Chen & Keller-McNulty 1998)",
    "population uniques: Dankar's rule": "Dankar et al. (2012): Pitman at a sampling fraction ≤ 0.1, else the "
                                         "smaller of Zayatz and SNB",
    "with columns published unchanged: highest": "1 / the smallest class on the quasi-identifiers together with "
                                                 "the columns published unchanged, which an attacker may know",
    "with columns published unchanged: above the threshold": "share of records whose risk on the "
                                                             "quasi-identifiers and those columns exceeds the "
                                                             "threshold",
}


def _unchanged(figures: dict[str, Any], threshold: float) -> list[str]:
    """The two rows on the quasi-identifiers with the columns published unchanged (``—`` when there are none), the
    records above ``threshold`` recounted from that key's class-size histogram."""
    w = figures.get("with_unchanged")
    if not w or not w.get("columns"):
        return ["— (none published)", "—"]
    columns = ", ".join(w["columns"][:4]) + (" …" if len(w["columns"]) > 4 else "")
    return [f"{_pct(w['highest'])} ({columns})", _pct(records_above(w, threshold))]


def risk_rows(view: RiskView, threshold: float) -> list[tuple[str, str, str]]:
    """The figures of ``view`` as rows ``(figure, before, after)`` (``after`` empty before a run); the records
    above ``threshold`` recounted for it. Without a population table the journalist figures are the prosecutor's
    and the marketer's average equals theirs (as ARX)."""
    def side(figures: dict[str, Any] | None) -> list[str]:
        if figures is None:
            return [""] * len(RISK_FIGURES)
        p, j, est = figures["prosecutor"], figures["journalist"], figures["population_uniques"]
        above = records_above(figures, threshold)
        dankar = est["dankar"]
        chosen = dankar.get("model", "")
        return [
            f"{int(figures['records']):,}" + (f" ({int(figures['suppressed']):,} suppressed)"
                                              if figures.get("suppressed") else ""),
            f"{int(figures['classes']):,}",
            _pct(p["highest"]),
            _pct(p["average"]),
            _pct(above),
            _pct(j["highest"]),
            _pct(j["average"]),
            _pct(figures["marketer"]["average"]),
            _pct(figures["sample_uniques"]),
            _estimate(est["pitman"]),
            _estimate(est["zayatz"]),
            _estimate(est["snb"]),
            ("none (no record is unique)" if chosen == "none" else f"{chosen.capitalize() if chosen != 'snb' else 'SNB'}: "
             + _estimate(dankar)),
            *_unchanged(figures, threshold),
        ]

    before, after = side(view.before), side(view.after)
    return [(name, b, a) for name, b, a in zip(RISK_FIGURES, before, after)]


@dataclass(frozen=True)
class RiskBars:
    """The record-level distribution to draw: bins ``first … 23`` of ARX's (:data:`RISK_BINS`), their ``labels``
    (upper ends), the share of records per bin on each side (``before``, ``after``: ``None`` before a run)."""

    upper: np.ndarray
    lower: np.ndarray
    labels: list[str]
    before: np.ndarray | None
    after: np.ndarray | None

    def threshold_position(self, threshold: float) -> float:
        """Where ``threshold`` lies on the bars' axis (bar ``i`` at ``x = i``, spanning ``i ± 0.5``): linear within
        the bin that holds it."""
        i = int(np.searchsorted(self.upper, threshold, side="left"))
        if i >= len(self.upper):
            return len(self.upper) - 0.5
        low = self.lower[i]
        return i - 0.5 + float(np.clip((threshold - low) / (self.upper[i] - low), 0.0, 1.0))


def risk_bars(view: RiskView) -> RiskBars:
    """The prosecutor risk distribution of ``view``'s sides in ARX's bins, from the first bin that holds a record
    on either side to the last (risk 1): the bins of lower risk are empty for any table under 10⁸ records."""
    from anonstudio.core.risk import RISK_BINS

    shares = {s: np.asarray(f["distribution"]["records"], dtype=np.float64) for s, f in view.sides.items()}
    held = np.zeros(len(RISK_BINS), dtype=bool)
    for values in shares.values():
        held |= values > 0
    first = int(np.argmax(held)) if held.any() else len(RISK_BINS) - 1
    upper = np.asarray(RISK_BINS[first:], dtype=np.float64)
    lower = np.concatenate([[0.0], RISK_BINS[:-1]])[first:].astype(np.float64)
    # short enough for 24 bars side by side: ".125" for 0.125, "1e-05" below a thousandth
    labels = [(f"{u:g}".removeprefix("0") if u < 1 else "1") if u >= 1e-3 else f"{u:.0e}" for u in upper]
    return RiskBars(upper, lower, labels, *(shares[s][first:] if s in shares else None for s in SIDES))


__all__ = ["RISK_FIGURES", "RiskBars", "RiskView", "records_above", "release_risk_view", "risk_bars", "risk_rows",
           "table_risk_view"]
