"""Run history and comparison (issue 15 item 8; ARX's habit of comparing solutions).

Every run since the project was opened is listed — number, time, method, parameters, verdict, the headline
utility figures and the time it took — from :attr:`Workspace.history`, which a project saves. Select two
runs and *Compare* opens a window with their summary cards side by side, with a bar plot of every utility figure both runs
report (each figure scaled to the larger of the two, its values in the labels) and a table of the figures with
the change from the first run to the second. A run whose output is still in memory can be shown again
(*Show this run*); runs read from a project keep their reports, not their outputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from anonstudio.gui.panes._common import StateBinding, fill_table, readonly_table
from anonstudio.gui.panes._plots import legend_outside, readable_axes
from anonstudio.core.views import MEANINGS, summary_html, summary_sections

FIRST_BRUSH, SECOND_BRUSH = "#1f77b4", "#ff7f0e"
#: headline figures shown in the list, in this order, when a run reports them
HEADLINE = ("GCP", "DM", "CAVG", "CD", "distance_order_preserved", "LM", "Pa", "IL")


def _figures(report: dict) -> dict[str, float]:
    return {k: float(v) for k, v in (report.get("metrics") or {}).items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v)}


def _params_text(parameters: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in (parameters or {}).items() if k != "name" and v is not None)


def _short(value: float) -> str:
    return f"{value:,.4g}"


class HistoryPane(QtWidgets.QWidget):
    """The runs so far; two of them side by side."""

    #: the user asked to show a run again (its number)
    showRun = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.state: Any = None
        self._binding = StateBinding(self, self._on_state)
        self.compared: tuple[int, int] | None = None
        self.table = readonly_table(["#", "time", "method", "parameters", "verdict", "figures", "seconds"], "history")
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.ExtendedSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.compare_button = QtWidgets.QPushButton("Compare the two selected runs")
        self.compare_button.setEnabled(False)
        self.compare_button.clicked.connect(self.compare_selected)
        self.show_button = QtWidgets.QPushButton("Show this run")
        self.show_button.setToolTip("Bring the selected run's results back on screen (while its output is in memory)")
        self.show_button.setEnabled(False)
        self.show_button.clicked.connect(self._show_selected)
        self.hint = QtWidgets.QLabel("Every run since the project was opened is kept here. Select two (Ctrl+click) "
                                     "to compare them.")
        self.hint.setWordWrap(True)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.hint, 1)
        buttons.addWidget(self.show_button)
        buttons.addWidget(self.compare_button)

        self.cards = [QtWidgets.QTextBrowser(), QtWidgets.QTextBrowser()]
        for i, card in enumerate(self.cards):
            card.setObjectName(f"card{i + 1}")
        self.plot = pg.PlotWidget(background="w")
        self.plot.setObjectName("comparePlot")
        self.plot.setLabel("left", "share of the larger value")
        self.plot.setLabel("bottom", "utility figure (lower is better unless its meaning says otherwise)")
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.setYRange(0, 1.15)
        readable_axes(self.plot)
        self.legend = legend_outside(self.plot)
        self.plot.getAxis("bottom").setHeight(48)  # two lines of names
        self.bars = [pg.BarGraphItem(x=[], height=[], width=0.38, brush=b, name=n)
                     for b, n in ((FIRST_BRUSH, "first run"), (SECOND_BRUSH, "second run"))]
        for bar in self.bars:
            self.plot.addItem(bar)
        self.labels: list[pg.TextItem] = []
        self.figures = readonly_table(["figure", "first run", "second run", "change", "meaning"], "figures")
        self.figures.horizontalHeader().setStretchLastSection(True)
        cards = QtWidgets.QSplitter()
        for card in self.cards:
            cards.addWidget(card)
        lower = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        lower.addWidget(self.plot)
        lower.addWidget(self.figures)
        self.comparison = QtWidgets.QDialog(self)  # a window of its own: two cards and a plot need the room
        self.comparison.setObjectName("compareRuns")
        self.comparison.setWindowTitle("Compare runs")
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(cards)
        split.addWidget(lower)
        split.setSizes([380, 300])
        QtWidgets.QVBoxLayout(self.comparison).addWidget(split)
        self.comparison.resize(1150, 720)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)

    # -- state -----------------------------------------------------------------------------------------------
    def set_state(self, state: Any) -> None:
        self.state = state
        self._binding.bind(state)
        self.refresh()

    def _on_state(self, what: str) -> None:
        if what in ("outcome", "project"):
            self.refresh()

    def numbers(self) -> list[int]:
        return [int(e["number"]) for e in (self.state.history if self.state is not None else [])]

    def refresh(self) -> None:
        history = self.state.history if self.state is not None else []
        rows = []
        for e in history:
            rep = e.get("report") or {}
            ver = rep.get("verification") or {}
            figures = _figures(rep)
            head = ", ".join(f"{k} {_short(figures[k])}" for k in HEADLINE if k in figures)
            rows.append([str(e.get("number")), str(e.get("time", "")).replace("T", " "), str(e.get("method") or ""),
                         _params_text(e.get("parameters") or {}),
                         "verified" if ver.get("passed") else "NOT verified", head,
                         f"{float(rep.get('runtime_s', 0.0)):.2f}"])
        fill_table(self.table, rows)
        if self.compared is not None and not set(self.compared) <= set(self.numbers()):
            self.compared = None
            self.comparison.hide()
        self._selection_changed()

    def _selected(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        numbers = self.numbers()
        return [numbers[r] for r in rows if r < len(numbers)]

    def select(self, *numbers: int) -> None:
        """Select the runs ``numbers`` (as Ctrl+click does)."""
        self.table.clearSelection()
        mode = QtCore.QItemSelectionModel.SelectionFlag.Select | QtCore.QItemSelectionModel.SelectionFlag.Rows
        for n in numbers:
            self.table.selectionModel().select(self.table.model().index(self.numbers().index(n), 0), mode)

    def _selection_changed(self) -> None:
        chosen = self._selected()
        self.compare_button.setEnabled(len(chosen) == 2)
        self.show_button.setEnabled(len(chosen) == 1 and self.state is not None and chosen[0] in self.state.outcomes)

    def _show_selected(self) -> None:
        chosen = self._selected()
        if len(chosen) == 1:
            self.showRun.emit(chosen[0])

    # -- comparison ------------------------------------------------------------------------------------------
    def compare_selected(self) -> None:
        chosen = self._selected()
        if len(chosen) == 2:
            self.compare(*chosen)

    def compare(self, first: int, second: int) -> None:
        """Show runs ``first`` and ``second`` side by side."""
        reports = [self.state.history_entry(n).get("report") or {} for n in (first, second)]
        for n, card, rep in zip((first, second), self.cards, reports):
            card.setHtml(f"<p><b>Run {n}</b></p>" + summary_html(summary_sections(rep)))
        a, b = (_figures(r) for r in reports)
        shared = [k for k in a if k in b]
        shared.sort(key=lambda k: (k not in MEANINGS, list(MEANINGS).index(k) if k in MEANINGS else 0, k))
        x = np.arange(len(shared), dtype=float)
        scale = np.array([max(abs(a[k]), abs(b[k])) or 1.0 for k in shared])
        heights = [np.array([abs(f[k]) for k in shared]) / scale if shared else np.zeros(0) for f in (a, b)]
        self.bars[0].setOpts(x=x - 0.2, height=heights[0])
        self.bars[1].setOpts(x=x + 0.2, height=heights[1])
        for label in self.labels:
            self.plot.removeItem(label)
        self.labels = []
        for i, k in enumerate(shared):
            for dx, f, h in ((-0.2, a, heights[0][i]), (0.2, b, heights[1][i])):
                label = pg.TextItem(_short(f[k]), anchor=(0.5, 1.0), color="#333")
                label.setPos(i + dx, h)
                self.plot.addItem(label)
                self.labels.append(label)
        # every other name one line lower: side by side, a dozen names ran into each other
        self.plot.getAxis("bottom").setTicks([[(i, k if i % 2 == 0 else "\n" + k) for i, k in enumerate(shared)]])
        self.plot.setXRange(-0.7, max(len(shared) - 0.3, 0.7))
        self.plot.setTitle(f"Run {first} (blue) and run {second} (orange)")
        rows = []
        for k in shared:
            change = (b[k] - a[k]) / abs(a[k]) if a[k] else float("nan")
            rows.append([k, _short(a[k]), _short(b[k]), "—" if change != change else f"{change:+.1%}",
                         MEANINGS.get(k, "")])
        fill_table(self.figures, rows)
        self.compared = (first, second)
        self.comparison.setWindowTitle(f"Compare runs {first} and {second}")
        self.comparison.show()
        self.comparison.raise_()
