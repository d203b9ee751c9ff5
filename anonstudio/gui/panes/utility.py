"""The utility pane: per attribute, its distribution before and after anonymization side by side (ARX's utility
view; issue 40 item 6).

Choose an attribute in the box: on the left the input's values (a histogram for a numeric column of many values),
on the right the release's — a bar per published label, so a generalized column shows its bands or groups and a
suppressed cell counts under ``*``. The bars' heights are records; hovering a bar names it. What is drawn comes from
:func:`anonstudio.core.views.distribution` (Qt-free).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from anonstudio.core.views import Bars, Distribution, distribution, utility_attributes
from anonstudio.gui.panes._common import OutcomePane, column, placeholder
from anonstudio.gui.panes._plots import readable_axes

#: the longest tick label drawn, fewer characters when the bars are narrow (hovering a bar names it whole)
TICK_CHARS = 14


class _BarPlot(pg.PlotWidget):
    """One side's bar chart: ``show(bars)``; hovering a bar names its label and count in ``hovered``."""

    def __init__(self, title: str, colour: str) -> None:
        super().__init__(title=title)
        self.setBackground("w")
        self.setMinimumHeight(180)
        self.setMenuEnabled(False)
        self.setLabel("left", "records")
        readable_axes(self)
        self.showGrid(y=True, alpha=0.25)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=colour, pen=pg.mkPen(colour))
        self.addItem(self.bars)
        self.current: Bars | None = None
        self.scene().sigMouseMoved.connect(self._moved)
        self.getPlotItem().vb.sigResized.connect(self._label_ticks)
        self.hovered = ""

    def show_bars(self, bars: Bars) -> None:
        self.current = bars
        counts = bars.counts.astype(float)
        axis = self.getAxis("bottom")
        if bars.edges is not None:  # a histogram: bars on the numbers' own axis
            x = (bars.edges[:-1] + bars.edges[1:]) / 2
            width = float(bars.edges[1] - bars.edges[0]) * 0.95 if len(bars.edges) > 1 else 1.0
            self.bars.setOpts(x=x, height=counts, width=width)
            axis.setTicks(None)
        else:
            self.bars.setOpts(x=np.arange(len(counts), dtype=float), height=counts, width=0.8)
        self.enableAutoRange()
        self._label_ticks()

    def _label_ticks(self, *_: Any) -> None:
        """The bars' labels under them, each cut to the room its bar has (hovering a bar names it whole)."""
        b = self.current
        if b is None or b.edges is not None:
            return
        room = self.getPlotItem().vb.width() / max(len(b.labels), 1)
        chars = max(2, min(TICK_CHARS, int(room / max(self.fontMetrics().averageCharWidth(), 1)) - 2))
        self.getAxis("bottom").setTicks([[(i, label if len(label) <= chars else label[:chars - 1] + "…")
                                          for i, label in enumerate(b.labels)]])

    def clear_bars(self) -> None:
        self.current = None
        self.bars.setOpts(x=[], height=[])
        self.getAxis("bottom").setTicks(None)

    def bar_at(self, x: float) -> int:
        """The bar under data coordinate ``x`` (``-1``: none)."""
        b = self.current
        if b is None or not len(b.counts):
            return -1
        if b.edges is not None:
            i = int(np.searchsorted(b.edges, x, side="right")) - 1
            return i if 0 <= i < len(b.counts) else -1
        i = int(round(x))
        return i if 0 <= i < len(b.counts) and abs(x - i) <= 0.4 else -1

    def _moved(self, pos: Any) -> None:
        point = self.getPlotItem().vb.mapSceneToView(pos)
        i = self.bar_at(point.x())
        b = self.current
        text = "" if i < 0 or b is None else f"{b.labels[i]}: {int(b.counts[i]):,} records"
        if text != self.hovered:
            self.hovered = text
            self.setToolTip(text)


class UtilityPane(OutcomePane):
    """Per attribute, the distribution before and after (see the module)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome: Any = None
        self.shown: Distribution | None = None
        self.attribute = QtWidgets.QComboBox()
        self.attribute.setObjectName("utilityAttribute")
        self.attribute.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.attribute.currentTextChanged.connect(self._draw)
        self.note = QtWidgets.QLabel()
        self.note.setWordWrap(True)
        self.before = _BarPlot("before (the input)", "#4c72b0")
        self.after = _BarPlot("after (the release)", "#dd8452")
        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("Attribute:"))
        top.addWidget(self.attribute)
        top.addWidget(self.note, 1)
        plots = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        plots.addWidget(self.before)
        plots.addWidget(self.after)
        self.empty = placeholder("Run a method on a table to compare each attribute's distribution before and after: "
                                 "the input's values beside the published labels, record counts as bar heights.")
        self.stack = self._stack(self.empty, column(top, (plots, 1)))

    def clear(self) -> None:
        self.outcome = None
        self.shown = None
        self.attribute.blockSignals(True)
        self.attribute.clear()
        self.attribute.blockSignals(False)
        self.before.clear_bars()
        self.after.clear_bars()
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if not self._fresh(outcome, self.outcome):
            return
        names = utility_attributes(outcome)
        if not names:
            self.clear()
            self.empty.setText("The utility view compares a table's columns before and after; this release is not a "
                               "table.")
            return
        previous = self.attribute.currentText()
        self.outcome = outcome
        self.attribute.blockSignals(True)
        self.attribute.clear()
        self.attribute.addItems(names)
        self.attribute.setCurrentIndex(names.index(previous) if previous in names else 0)
        self.attribute.blockSignals(False)
        self.stack.setCurrentIndex(1)
        self._draw(self.attribute.currentText())

    def _draw(self, name: str) -> None:
        if self.outcome is None or not name:
            return
        d = distribution(self.outcome, name)
        self.shown = d
        self.before.show_bars(d.before)
        self.after.show_bars(d.after)
        if d.before.edges is None and d.after.edges is None:  # bars of records per value: one scale for both sides
            top = float(max(d.before.counts.max(initial=0), d.after.counts.max(initial=0))) * 1.05 or 1.0
            for plot in (self.before, self.after):
                plot.setYRange(0, top, padding=0)
        self.note.setText(f"{d.note}.")

    # -- public API (tests) -------------------------------------------------------------------------------------
    def choose(self, attribute: str) -> None:
        self.attribute.setCurrentText(attribute)

    def bar_heights(self) -> tuple[np.ndarray, np.ndarray]:
        """The drawn heights of the before and after bars."""
        return (np.asarray(self.before.bars.opts.get("height", []), dtype=float),
                np.asarray(self.after.bars.opts.get("height", []), dtype=float))

    def bar_labels(self) -> tuple[list[str], list[str]]:
        return ([] if self.before.current is None else list(self.before.current.labels),
                [] if self.after.current is None else list(self.after.current.labels))


if __name__ == "__main__":
    import sys

    from anonstudio.core.views.samples import preview_outcome
    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    preview = UtilityPane()
    preview.show_outcome(preview_outcome("table", "global"))
    run_preview(preview, "Utility (preview)")
