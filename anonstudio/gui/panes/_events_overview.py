"""An event log at a glance, before any run: how long its sequences are and how a column's values spread.

Shown under the data pane's sequence and event lists: a histogram of events per sequence and a bar chart of
the chosen column's most frequent values (the quasi-identifiers and the sensitive column are offered; the
sensitive column first, as it is the one whose highly-sensitive values CBMSA bounds).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from anonstudio.core.data import EventLog

#: values shown in the distribution chart (the rest are summed into "other")
TOP_VALUES = 15


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


class EventsOverview(QtWidgets.QWidget):
    """Sequence lengths and one column's value distribution of an :class:`EventLog`."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._log: EventLog | None = None
        self.column_box = QtWidgets.QComboBox()
        self.column_box.setObjectName("overview_column")
        self.column_box.currentTextChanged.connect(self._draw_values)
        self.lengths_plot = pg.PlotWidget(background="w", title="events per sequence")
        self.lengths_plot.setLabel("bottom", "events")
        self.lengths_plot.setLabel("left", "sequences")
        self.lengths_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#4c72b0")
        self.lengths_plot.addItem(self.lengths_bars)
        self.values_plot = pg.PlotWidget(background="w", title="values")
        self.values_plot.setLabel("left", "events")
        self.values_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#55a868")
        self.values_plot.addItem(self.values_bars)
        self.labels: list[str] = []
        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("Value distribution of"))
        top.addWidget(self.column_box)
        top.addStretch(1)
        plots = QtWidgets.QHBoxLayout()
        plots.addWidget(self.lengths_plot, 1)
        plots.addWidget(self.values_plot, 2)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addLayout(plots, 1)

    def set_log(self, log: EventLog | None) -> None:
        self._log = log
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
        step = max(1, int(np.ceil(len(x) / 12)))
        self.lengths_plot.getAxis("bottom").setTicks([[(int(v), str(int(v))) for v in x[::step]]])
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
            self.values_bars.setOpts(x=[], height=[], width=0.8)
            return
        self.labels, heights = value_counts(self._log, column)
        x = np.arange(len(heights))
        self.values_bars.setOpts(x=x, height=heights, width=0.8)
        axis = self.values_plot.getAxis("bottom")
        axis.setTicks([[(i, lab if len(lab) <= 14 else lab[:13] + "…") for i, lab in enumerate(self.labels)]])
        self.values_plot.setTitle(f"values of '{column}' over {len(self._log.df):,} events")
        self.values_plot.autoRange()

    def heights(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.asarray(self.lengths_bars.opts.get("height", [])), np.asarray(self.values_bars.opts.get("height", [])))
