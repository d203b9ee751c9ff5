"""The MST partition pane: the minimum spanning tree of an MST-based recoding (Ramana & Kumari, Sect. 3:
records or distinct quasi-identifier tuples as vertices, HDist edge weights, Kruskal's MST, longest edges
removed to split it into equivalence classes) drawn in 2-D.

Kept edges are solid, removed edges dashed red, and every equivalence class has its own colour; hovering
a point shows its record and class. Above :data:`~anonstudio.core.views.MST_MAX_NODES` vertices,
whole classes are sampled and the sample size is stated.

The method's ``Result.details`` must carry ``mst_edges`` (m×2 vertex indices), optionally
``mst_weights`` (m), ``removed_edges`` (a boolean mask over ``mst_edges``, indices into it, or m'×2
vertex pairs) and
``tuple_of_record`` (per record, its vertex when vertices are distinct tuples).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from anonstudio.gui.panes._common import OutcomePane, placeholder, weak_callback
from anonstudio.gui.panes._plots import legend_outside
from anonstudio.core.views import MST_MAX_NODES, MstView, mst_view

KEPT_PEN = pg.mkPen("#555555", width=1.5)
REMOVED_PEN = pg.mkPen("#d62728", width=1.4, style=QtCore.Qt.DashLine)
SUPPRESSED_BRUSH = pg.mkBrush("#bbbbbb")


def class_brush(cls: int) -> QtGui.QBrush:
    """A distinct colour per class id (grey for suppressed records)."""
    if cls < 0:
        return SUPPRESSED_BRUSH
    return pg.mkBrush(pg.intColor(int(cls) * 7, hues=23, values=3, minValue=150, maxValue=230, sat=200))


def edge_segments(pos: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x and y arrays for ``connect="pairs"`` drawing of ``edges`` between points ``pos``."""
    if len(edges) == 0:
        return np.zeros(0), np.zeros(0)
    pts = pos[edges.reshape(-1)]
    return pts[:, 0].copy(), pts[:, 1].copy()


class MstPartitionPane(OutcomePane):
    """The MST laid out in 2-D: classes coloured, removed edges dashed, hover for record and class."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.view: MstView | None = None
        self.max_nodes = MST_MAX_NODES
        self._shown: tuple[Any, int] | None = None

        self.plot = pg.PlotWidget(background="w")
        self.plot.setAspectLocked(True)
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.kept_item = pg.PlotDataItem([], [], connect="pairs", pen=KEPT_PEN)
        self.removed_item = pg.PlotDataItem([], [], connect="pairs", pen=REMOVED_PEN)
        self.points = pg.ScatterPlotItem(size=9, pen=pg.mkPen("#333333", width=0.6), hoverable=True,
                                         hoverPen=pg.mkPen("k", width=2), hoverSize=13, tip=weak_callback(self._tip, ""))
        self.points.sigHovered.connect(self._on_hover)
        for item in (self.kept_item, self.removed_item, self.points):
            self.plot.addItem(item)
        legend = legend_outside(self.plot)  # beside the drawing: never over a point
        legend.addItem(pg.PlotDataItem([], [], pen=KEPT_PEN), "MST edge kept")
        legend.addItem(pg.PlotDataItem([], [], pen=REMOVED_PEN), "edge removed (splits classes)")
        self.hover = QtWidgets.QLabel("Hover over a point to see its record and class.")
        self.hover.setObjectName("hover")
        self.hover.setWordWrap(True)
        self.hover.setMinimumHeight(36)
        self.info = QtWidgets.QLabel()
        self.info.setWordWrap(True)
        self.empty = placeholder("Run the MST method on a table to see its spanning tree and the classes it "
                                 "was cut into.")
        body = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.info)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.hover)
        self.stack = self._stack(self.empty, body)

    # -- public API ----------------------------------------------------------------------------------------
    def clear(self) -> None:
        self.view = None
        self._shown = None
        self.points.setData([], [])
        self.kept_item.setData([], [])
        self.removed_item.setData([], [])
        self.plot.setTitle("")
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if outcome is None:
            self.clear()
            return
        if self._shown is not None and self._shown[0] is outcome and self._shown[1] == self.max_nodes:
            return  # already shown (the state's notification and the window may both deliver it)
        view = mst_view(outcome, max_nodes=self.max_nodes)
        if view is None:
            self.clear()
            self.empty.setText(
                f"The method '{outcome.report.get('algorithm', '')}' builds no spanning tree; this view shows "
                "MST-based recoding runs."
            )
            return
        self.view = view
        self._shown = (outcome, self.max_nodes)
        x, y = view.pos[:, 0], view.pos[:, 1]
        brushes = [class_brush(int(c)) for c in view.node_class]
        size = 10 if len(x) <= 200 else 7 if len(x) <= 600 else 5
        self.points.setData(x=x, y=y, brush=brushes, size=size, data=np.arange(len(x)))
        self.kept_item.setData(*edge_segments(view.pos, view.kept))
        self.removed_item.setData(*edge_segments(view.pos, view.removed))
        n_classes = len(np.unique(view.node_class[view.node_class >= 0]))
        shown = (f"showing {len(view.node_ids):,} of {view.n_total:,} {view.unit} (whole classes sampled)"
                 if view.sampled else f"all {view.n_total:,} {view.unit}")
        self.plot.setTitle(f"MST partition — {shown}", color="k", size="11pt")
        self.info.setText(
            f"{n_classes:,} classes drawn, {len(view.kept):,} tree edges kept and {len(view.removed):,} removed "
            "(dashed). Vertices close together are similar; each colour is one equivalence class."
        )
        self.plot.autoRange()
        self.stack.setCurrentIndex(1)

    def point_count(self) -> int:
        return len(self.points.data)

    def removed_edge_count(self) -> int:
        x = self.removed_item.xData
        return 0 if x is None else len(x) // 2

    def kept_edge_count(self) -> int:
        x = self.kept_item.xData
        return 0 if x is None else len(x) // 2

    def hover_text(self, index: int) -> str:
        """The text shown for drawn vertex ``index``."""
        return self.view.labels[index] if self.view is not None else ""

    # -- internals -----------------------------------------------------------------------------------------
    def _tip(self, x: float, y: float, data: Any) -> str:
        try:
            return self.hover_text(int(data))
        except (TypeError, ValueError, IndexError):
            return ""

    def _on_hover(self, item: Any, points: Any, ev: Any) -> None:
        if points is None or len(points) == 0:
            return
        self.hover.setText(self.hover_text(int(points[0].data())).replace("\n", " · "))


if __name__ == "__main__":
    import sys

    from anonstudio.core.views import samples as _samples
    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    pane = MstPartitionPane()
    pane.show_outcome(_samples.preview_outcome("table", method="mst"))
    run_preview(pane, "MST partition — preview")
