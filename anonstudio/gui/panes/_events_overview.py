"""An event log at a glance, before any run: how long its sequences are and how a column's values spread.

Shown under the data pane's sequence and event lists: a histogram of events per sequence and a bar chart of
the chosen column's most frequent values (the quasi-identifiers and the sensitive column are offered; the
sensitive column first, as it is the one whose highly-sensitive values CBMSA bounds).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from anonstudio.core.data import EventLog
from anonstudio.gui.panes._plots import readable_axes

#: values shown in the distribution chart (the rest are summed into "other"): with "other" and "(missing)" at
#: most 14 rows, each as tall as the tick font at the plot's smallest height
TOP_VALUES = 12


def length_counts(log: EventLog) -> tuple[np.ndarray, np.ndarray]:
    """``(length, number of sequences)`` for every length that occurs."""
    _, _, offsets = log.sequence_index()
    lengths = np.diff(np.asarray(offsets))
    if not len(lengths):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    values, counts = np.unique(lengths, return_counts=True)
    return values, counts


def value_counts(log: EventLog, column: str, top: int = TOP_VALUES) -> tuple[list[str], np.ndarray]:
    """The ``top`` most frequent values of ``column`` over all events (ties by value), then ``other`` and
    ``(missing)`` when there are any."""
    col = log.df[column]
    counts = col.dropna().astype(str).value_counts()
    counts = counts.sort_index(kind="stable").sort_values(ascending=False, kind="stable")
    labels, heights = list(counts.index[:top]), list(counts.to_numpy()[:top])
    if len(counts) > top:
        labels.append(f"other ({len(counts) - top} values)")
        heights.append(int(counts.to_numpy()[top:].sum()))
    missing = int(col.isna().sum())
    if missing:
        labels.append("(missing)")
        heights.append(missing)
    return labels, np.asarray(heights, dtype=np.int64)


#: the plots' smallest readable height (pixels): ten value labels of the tick font, one per row
PLOT_MIN_HEIGHT = 170
#: longest value label shown in full on the values chart (longer ones end in "…"; the tooltip lists all)
LABEL_CHARS = 18


class EventsOverview(QtWidgets.QWidget):
    """Sequence lengths and one column's value distribution of an :class:`EventLog`.

    Readable at 1280 × 720 (issue 30 item 6): the titles are Qt labels above the plots (a pyqtgraph title took a
    third of a short plot), the values are horizontal bars with each value written on its own row of the left
    axis (side by side under vertical bars, fifteen values overprinted each other), ticks in a small font, and
    the plots never shrink below :data:`PLOT_MIN_HEIGHT` while a log is shown."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._log: EventLog | None = None
        self.column_box = QtWidgets.QComboBox()
        self.column_box.setObjectName("overview_column")
        self.column_box.currentTextChanged.connect(self._draw_values)
        small = QtGui.QFont()
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        self.lengths_title = QtWidgets.QLabel("Events per sequence")
        self.lengths_plot = pg.PlotWidget(background="w")
        self.lengths_plot.setLabel("bottom", "events in the sequence")
        self.lengths_plot.setLabel("left", "sequences")
        self.lengths_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#4c72b0")
        self.lengths_plot.addItem(self.lengths_bars)
        self.values_title = QtWidgets.QLabel("Values")
        self.values_plot = pg.PlotWidget(background="w")
        self.values_plot.setLabel("bottom", "events")
        self.values_plot.invertY(True)  # the most frequent value on top
        self.values_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.75, brush="#55a868")
        self.values_plot.addItem(self.values_bars)
        for plot in (self.lengths_plot, self.values_plot):
            readable_axes(plot)
            plot.setMouseEnabled(x=False, y=False)
            plot.showGrid(x=plot is self.values_plot, y=plot is self.lengths_plot, alpha=0.25)
            for side in ("left", "bottom"):
                plot.getAxis(side).setStyle(tickFont=small)
        self.labels: list[str] = []
        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("Value distribution of"))
        top.addWidget(self.column_box)
        top.addStretch(1)
        plots = QtWidgets.QHBoxLayout()
        plots.addLayout(self._titled(self.lengths_title, self.lengths_plot), 2)
        plots.addLayout(self._titled(self.values_title, self.values_plot), 3)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addLayout(plots, 1)

    @staticmethod
    def _titled(title: QtWidgets.QLabel, plot: pg.PlotWidget) -> QtWidgets.QVBoxLayout:
        box = QtWidgets.QVBoxLayout()
        box.setSpacing(1)
        title.setWordWrap(True)
        box.addWidget(title)
        box.addWidget(plot, 1)
        return box

    def set_log(self, log: EventLog | None) -> None:
        self._log = log
        # readable plots need their height only while a log is shown: the data pane's stack asks for the largest
        # minimum of its pages, so a hidden overview must not squeeze the window's other docks under a table
        for plot in (self.lengths_plot, self.values_plot):
            plot.setMinimumHeight(PLOT_MIN_HEIGHT if log is not None else 0)
        blocker = QtCore.QSignalBlocker(self.column_box)
        self.column_box.clear()
        if log is not None:
            skip = {log.sequence_id, log.event_order}
            first = [log.sensitive] if log.sensitive else []
            rest = [c for c in log.quasi_identifiers if c not in first]
            others = [c for c in log.df.columns if c not in skip and c not in first and c not in rest]
            self.column_box.addItems(first + rest + others)
        del blocker
        x, h = length_counts(log) if log is not None else (np.zeros(0), np.zeros(0))
        self.lengths_bars.setOpts(x=x, height=h, width=0.8)
        step = max(1, int(np.ceil(len(x) / 10)))
        self.lengths_plot.getAxis("bottom").setTicks([[(int(v), str(int(v))) for v in x[::step]]])
        self.lengths_title.setText(f"Events per sequence ({int(h.sum()):,} sequences)" if len(h) else
                                   "Events per sequence")
        self.lengths_plot.autoRange()
        self._draw_values(self.column_box.currentText())

    def roles_changed(self) -> None:
        """Roles moved: offer the columns in the new order, keeping the chosen one."""
        current = self.column_box.currentText()
        self.set_log(self._log)
        if current and self.column_box.findText(current) >= 0:
            self.column_box.setCurrentText(current)

    def _draw_values(self, column: str) -> None:
        if self._log is None or not column or column not in self._log.df.columns:
            self.labels = []
            if self._log is None:
                self.values_plot.setMinimumHeight(0)
            self.values_bars.setOpts(x0=[], y=[], width=[], height=0.75)
            return
        self.labels, counts = value_counts(self._log, column)
        y = np.arange(len(counts))
        self.values_bars.setOpts(x0=np.zeros(len(counts)), y=y, width=counts, height=0.75)
        axis = self.values_plot.getAxis("left")
        axis.setTicks([[(i, lab if len(lab) <= LABEL_CHARS else lab[:LABEL_CHARS - 1] + "…")
                        for i, lab in enumerate(self.labels)]])
        self.values_title.setText(f"Values of '{column}' over {len(self._log.df):,} events")
        self.values_plot.setToolTip("\n".join(f"{lab}: {int(c):,}" for lab, c in zip(self.labels, counts)))
        self.values_plot.setXRange(0, float(counts.max()) * 1.05 if len(counts) else 1.0, padding=0)
        self.values_plot.setYRange(-0.6, len(counts) - 0.4, padding=0)
        # one row per value, each at least as tall as its label (the axis and the title's room besides)
        row = QtGui.QFontMetrics(self.values_plot.getAxis("left").style["tickFont"]).height() + 2
        self.values_plot.setMinimumHeight(max(PLOT_MIN_HEIGHT, row * len(counts) + 48))

    def heights(self) -> tuple[np.ndarray, np.ndarray]:
        """The bars' counts: sequences per length, and events per value (most frequent first)."""
        return (np.asarray(self.lengths_bars.opts.get("height", [])), np.asarray(self.values_bars.opts.get("width", [])))
