"""The composition pane: symbol frequencies of the original strings and the pseudo-strings as grouped
bars, with the compositional difference CD in the title (Aggarwal & Yu 2008, Sect. 4, Figs. 4–7:
CD(f, f') = Σ_i |f_i − f'_i|), overall or for one condensed group."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from anonstudio.core.data import SequenceSet
from anonstudio.gui.panes._common import OutcomePane, column, fill_table, placeholder, readonly_table
from anonstudio.gui.panes._plots import legend_outside, readable_axes
from anonstudio.core.views import Composition, composition, fragment_lengths, pseudo_groups

ORIGINAL_BRUSH = "#1f77b4"
PSEUDO_BRUSH = "#ff7f0e"
BAR_WIDTH = 0.38
#: most symbols drawn (item alphabets can have hundreds)
MAX_BARS = 40


#: most suppressed strings listed (the count is always given)
MAX_LISTED = 500


def suppressed_strings(outcome: Any) -> list[list[str]]:
    """``[id, length, reason]`` of every input string condensation did not publish (000 §4.3 HomogenizeLength;
    our rule that no pseudo-string may equal an input), read from the run's result."""
    data, result = outcome.data, outcome.result
    groups = np.asarray(result.groups, dtype=np.int64)
    segment = np.asarray((result.details or {}).get("segment_of_input", np.zeros(len(groups))), dtype=np.int64)
    params = (outcome.report or {}).get("parameters", {})
    k, eps = params.get("k", "k"), params.get("epsilon", "ε")
    rows = []
    for i in np.flatnonzero(groups < 0).tolist():
        length = int(data.offsets[i + 1] - data.offsets[i])
        if length == 0:
            why = "empty sequence"
        elif segment[i] < 0:
            why = f"its length fits no length segment of at least k = {k} strings within (1 + ε), ε = {eps}"
        else:
            why = "every pseudo-string its group could generate equals an input string (e.g. k identical strings)"
        rows.append([data.ids[i], f"{length:,}", why])
    return rows


#: the least height of a histogram whose title, axes and tick labels all show (pixels)
PLOT_MIN_HEIGHT = 150


class CompositionPane(OutcomePane):
    """Grouped bar histogram of symbol frequencies, original vs pseudo, overall or per group."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome: Any = None
        self.current: Composition | None = None
        self.shown_symbols: list[str] = []
        self._groups = np.zeros(0, dtype=np.int64)
        self._pseudo_groups = np.zeros(0, dtype=np.int64)

        self.scope = QtWidgets.QComboBox()
        self.scope.setObjectName("scope")
        self.scope.setMinimumContentsLength(24)
        self.scope.currentIndexChanged.connect(self._redraw)
        self.plot = pg.PlotWidget(background="w")
        self.plot.showGrid(y=True, alpha=0.25)
        self.plot.setLabel("left", "fractional frequency")
        readable_axes(self.plot)
        self.plot.setLabel("bottom", "symbol")
        self.plot.setMouseEnabled(x=True, y=False)
        self.legend = legend_outside(self.plot)
        self.original_bars = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, brush=ORIGINAL_BRUSH, name="original")
        self.pseudo_bars = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, brush=PSEUDO_BRUSH, name="pseudo")
        self.plot.addItem(self.original_bars)
        self.plot.addItem(self.pseudo_bars)
        self.info = QtWidgets.QLabel()
        self.info.setWordWrap(True)
        # the fragment rule (issue 11): how long a run each pseudo-string shares with some input
        self.fragments = pg.PlotWidget(background="w")
        self.fragments.setObjectName("fragments")
        self.fragments.showGrid(y=True, alpha=0.25)
        self.fragments.setLabel("left", "pseudo-strings")
        self.fragments.setLabel("bottom", "longest run shared with an input (symbols)")
        self.fragments.setMouseEnabled(x=True, y=False)
        readable_axes(self.fragments)
        self.fragment_bars = pg.BarGraphItem(x=[], height=[], width=0.9, brush=PSEUDO_BRUSH)
        self.fragments.addItem(self.fragment_bars)
        self.limit_line = pg.InfiniteLine(angle=90, pen=pg.mkPen((200, 40, 40), width=2, style=QtCore.Qt.PenStyle.DashLine))
        self.fragments.addItem(self.limit_line)
        self.fragment_info = QtWidgets.QLabel()
        self.fragment_info.setWordWrap(True)
        self.fragment_counts = np.zeros(0, dtype=np.int64)
        self.suppressed_info = QtWidgets.QLabel()
        self.suppressed_info.setWordWrap(True)
        self.suppressed = readonly_table(["record", "length", "why it was not published"], "suppressed")
        self.suppressed.horizontalHeader().setStretchLastSection(True)
        self.empty = placeholder("Run a string method (condensation) to compare the symbol composition of the "
                                 "original strings with the pseudo-strings.")

        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("Show"))
        top.addWidget(self.scope)
        top.addStretch(1)
        # the two histograms side by side: stacked, they did not fit a 1280 × 720 window's result dock
        # the two histograms and the strings not published side by side: stacked, they did not fit a 1280 × 720
        # window's result dock; each plot keeps the height its axes need
        for plot in (self.plot, self.fragments):
            plot.setMinimumHeight(PLOT_MIN_HEIGHT)
        parts = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        parts.setChildrenCollapsible(False)
        parts.addWidget(column((self.plot, 1), self.info))
        parts.addWidget(column((self.fragments, 1), self.fragment_info))
        parts.addWidget(column(self.suppressed_info, (self.suppressed, 1)))
        parts.setSizes([500, 400, 300])
        body = column(top, (parts, 1))
        self.stack = self._stack(self.empty, body)

    # -- public API ----------------------------------------------------------------------------------------
    def clear(self) -> None:
        self.outcome = None
        self.current = None
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.blockSignals(False)
        self.original_bars.setOpts(x=[], height=[])
        self.pseudo_bars.setOpts(x=[], height=[])
        self.plot.setTitle("")
        self.fragment_bars.setOpts(x=[], height=[])
        self.fragment_counts = np.zeros(0, dtype=np.int64)
        self.fragment_info.setText("")
        self.suppressed_info.setText("")
        fill_table(self.suppressed, [])
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if outcome is not None and outcome is self.outcome:
            return  # already shown (the state's notification and the window may both deliver it)
        if outcome is None or not isinstance(outcome.data, SequenceSet) or not isinstance(
            getattr(outcome.result, "output", None), SequenceSet
        ):
            self.clear()
            if outcome is not None:
                self.empty.setText("The composition histogram is for strings; this run anonymized "
                                   f"{type(outcome.data).__name__} data.")
            return
        self.outcome = outcome
        self._groups = np.asarray(outcome.result.groups, dtype=np.int64)
        self._pseudo_groups = pseudo_groups(outcome.result.output, outcome.result.details)
        ids, counts = np.unique(self._groups[self._groups >= 0], return_counts=True)
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem(f"All strings ({len(outcome.data):,} original, {len(outcome.result.output):,} pseudo)",
                           None)
        for g, c in zip(ids.tolist(), counts.tolist()):
            self.scope.addItem(f"Group {g} ({c} strings)", int(g))
        self.scope.blockSignals(False)
        self.stack.setCurrentIndex(1)
        self._redraw()
        self._draw_fragments()
        rows = suppressed_strings(outcome)
        self.suppressed_info.setText(
            f"Suppressed: {len(rows):,} input string(s) were not published"
            + (f" (the first {MAX_LISTED} listed)" if len(rows) > MAX_LISTED else "") + ":" if rows
            else "Suppressed: none — every input string is represented in a condensed group.")
        fill_table(self.suppressed, rows[:MAX_LISTED])
        self.suppressed.setVisible(bool(rows))

    def set_group(self, group: int | None) -> None:
        """Show one group's composition (``None``: all strings)."""
        i = self.scope.findData(group) if group is not None else 0
        if i < 0:
            raise KeyError(f"no group {group}")
        self.scope.setCurrentIndex(i)
        self._redraw()

    def title_text(self) -> str:
        return self.plot.getPlotItem().titleLabel.text

    # -- internals -----------------------------------------------------------------------------------------
    def _draw_fragments(self) -> None:
        """Histogram of the longest run each pseudo-string shares with some input, with the fragment rule's
        limit L (``max_fragment``): runs of L or more are published only when ≥ k inputs hold them."""
        lengths = fragment_lengths(self.outcome)
        counts = np.bincount(lengths.astype(np.int64)) if len(lengths) else np.zeros(1, np.int64)
        self.fragment_counts = counts
        x = np.flatnonzero(counts)
        self.fragment_bars.setOpts(x=x.astype(float), height=counts[x].astype(float), width=0.9)
        params = self.outcome.report.get("parameters", {})
        details = self.outcome.report.get("verification", {}).get("details", {})
        limit = params.get("max_fragment") or details.get("max_fragment")
        k = params.get("k") or details.get("k")
        if limit:
            self.limit_line.setValue(float(limit) - 0.5)
            self.limit_line.show()
        else:
            self.limit_line.hide()
        top = int(lengths.max()) if len(lengths) else 0
        self.fragments.setXRange(-0.5, max(top, int(limit or 0)) + 1.5, padding=0)
        self.fragments.setYRange(0, float(counts.max()) * 1.1 if counts.max() > 0 else 1, padding=0)
        self.fragments.setTitle("Pseudo-strings by longest shared run", color="k", size="11pt")
        rare = details.get("rare_fragment_strings")
        redrawn = self.outcome.report.get("metrics", {}).get("rare_fragment_strings_drawn")
        text = f"Longest shared run: {top} symbols (median {float(np.median(lengths)) if len(lengths) else 0:g})."
        if limit:
            text += (f" Fragment rule: no run of {limit} or more symbols held by fewer than k = {k} inputs "
                     f"(dashed line); verified: {rare if rare is not None else '?'} pseudo-strings break it.")
        if redrawn:
            text += f" {redrawn} pseudo-strings were drawn with such a run and had symbols redrawn."
        self.fragment_info.setText(text)

    def _redraw(self, *_: Any) -> None:
        if self.outcome is None:
            return
        group = self.scope.currentData()
        data, output = self.outcome.data, self.outcome.result.output
        if group is None:
            comp = composition(data, output)
            where = "all strings"
        else:
            comp = composition(data, output, np.flatnonzero(self._groups == group),
                               np.flatnonzero(self._pseudo_groups == group))
            where = f"group {group}"
        self.current = comp
        shown = np.arange(len(comp.symbols))
        if len(shown) > MAX_BARS:  # item alphabets: the most frequent symbols, in alphabet order
            shown = np.sort(np.argsort(-np.maximum(comp.f, comp.f_pseudo), kind="stable")[:MAX_BARS])
        self.shown_symbols = [comp.symbols[i] for i in shown]
        x = np.arange(len(shown), dtype=float)
        self.original_bars.setOpts(x=x - BAR_WIDTH / 2, height=comp.f[shown], width=BAR_WIDTH)
        self.pseudo_bars.setOpts(x=x + BAR_WIDTH / 2, height=comp.f_pseudo[shown], width=BAR_WIDTH)
        axis = self.plot.getAxis("bottom")
        axis.setTicks([[(float(i), s) for i, s in enumerate(self.shown_symbols)]])
        top = float(max(comp.f.max(initial=0), comp.f_pseudo.max(initial=0)))
        self.plot.setXRange(-0.7, len(shown) - 0.3, padding=0)
        self.plot.setYRange(0, top * 1.1 if top > 0 else 1, padding=0)
        self.plot.setTitle(f"Composition, {where}: CD = {comp.cd:.4f}", color="k", size="11pt")
        report_cd = self.outcome.report.get("metrics", {}).get("CD")
        note = ""
        if group is None and isinstance(report_cd, (int, float)):
            note = f" The report's CD (computed by the method's evaluation) is {report_cd:.4f}."
        absent = [s for s, a, b in zip(comp.symbols, comp.f, comp.f_pseudo) if a == 0 and b == 0]
        if len(shown) < len(comp.symbols):
            note += (f" Showing the {len(shown)} most frequent of {len(comp.symbols)} symbols; CD is over all of "
                     "them.")
            absent = []
        self.info.setText(
            f"{comp.n_original} original and {comp.n_pseudo} pseudo-strings. CD(f, f′) = Σ|fᵢ − f′ᵢ| over the "
            f"alphabet: 0 for identical compositions.{note}"
            + (f" Symbols absent from both: {', '.join(absent)}." if absent else "")
        )


if __name__ == "__main__":
    import sys

    from anonstudio.core.views import samples as _samples
    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    pane = CompositionPane()
    pane.show_outcome(_samples.preview_outcome("fasta"))
    run_preview(pane, "Composition — preview")
