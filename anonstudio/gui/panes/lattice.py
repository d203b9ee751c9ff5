"""The lattice pane: the transformations of a ``global`` run as a graph, as ARX draws its lattice (issue 40 item 5).

Each node is one transformation (a hierarchy level per quasi-identifier), its height the sum of its levels (the
original data at the bottom, every attribute at its root at the top); a line joins it to each direct successor
(one attribute one level up). Colours say what the search learnt (:mod:`anonstudio.core.views._lattice`): checked
and passing in green, darker for less loss; checked and failing in red; decided by monotonicity without a check in
pale blue (anonymous) or pale red (not); never looked at in grey. A star marks the optimum, a blue ring the
transformation published when it is not the optimum. Clicking a node names it; **Publish this transformation**
runs ``global`` again at that transformation (``algorithm.transformation``) and publishes it through the same
verified export as every release (``publishRequested``: the window does both).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from anonstudio.core.algorithms._lattice_search import ANONYMOUS, FAILS, NOT_ANONYMOUS, PASSES, UNKNOWN
from anonstudio.core.views import LatticeGraph, lattice_view
from anonstudio.core.views._lattice import COLOURS, PALE_PASS
from anonstudio.gui.panes._common import ViewPane, column, weak_callback
from anonstudio.gui.panes._plots import readable_axes

LEGEND = ((PASSES, "passes (darker: less loss)"), (FAILS, "fails"), (ANONYMOUS, "anonymous by monotonicity, not checked"),
          (NOT_ANONYMOUS, "fails by monotonicity"), (UNKNOWN, "not evaluated"))


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % rgb


class _Plot(pg.PlotWidget):
    """A plot whose preferred height is modest: a result dock's scroll area sizes the pane by its preferred
    height (the word-wrapped labels make it height-for-width), and pyqtgraph's 480 pixels pushed the legend and
    the Publish button out of a short dock."""

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(600, 180)


class LatticePane(ViewPane):
    """The lattice of a ``global`` run (see the module); ``publishRequested(dict)``: attribute → level."""

    publishRequested = QtCore.Signal(object)
    NOT_MINE = ("The lattice view shows the transformations of a 'global' (full-domain) run; '{method}' searches no "
                "lattice.")

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.graph: LatticeGraph | None = None
        self.selected = -1
        self.plot = _Plot()
        self.plot.setObjectName("lattice")
        self.plot.setBackground("w")
        self.plot.setMinimumHeight(140)
        readable_axes(self.plot)
        self.plot.setLabel("left", "height (sum of the levels)")
        self.plot.hideAxis("bottom")
        self.plot.setMenuEnabled(False)
        self.edges = pg.PlotDataItem(connect="pairs", pen=pg.mkPen((185, 185, 185), width=1))
        self.plot.addItem(self.edges)
        self.scatter = pg.ScatterPlotItem(size=12, pen=pg.mkPen((90, 90, 90), width=0.6), hoverable=True,
                                          tip=weak_callback(self._tip, ""))
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        self.marks = pg.ScatterPlotItem(pxMode=True)
        self.plot.addItem(self.marks)
        self.legend = QtWidgets.QLabel(self._legend_html())
        self.legend.setObjectName("latticeLegend")
        self.legend.setWordWrap(True)
        self.selection = QtWidgets.QLabel("Click a transformation to see its levels, what the search learnt of it "
                                          "and its loss.")
        self.selection.setObjectName("latticeSelection")
        self.selection.setWordWrap(True)
        self.publish_button = QtWidgets.QPushButton("Publish this transformation…")
        self.publish_button.setObjectName("publishTransformation")
        self.publish_button.setToolTip("Run 'global' again at the selected transformation and publish it: verified "
                                       "and exported like every release (you choose the file)")
        self.publish_button.setEnabled(False)
        self.publish_button.clicked.connect(self.publish)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.selection, 1)
        row.addWidget(self.publish_button)
        self._view_layout(column((self.plot, 1), self.legend, row),
                          "Run the method 'global' to see its lattice: every transformation (a hierarchy level per "
                          "quasi-identifier) coloured by whether it meets the privacy model and by its loss, the "
                          "optimum marked; any passing one can be published instead.")

    @staticmethod
    def _legend_html() -> str:
        items = [f"<span style='color:{_hex(COLOURS[s])}'>■</span>&nbsp;{words}" for s, words in LEGEND]
        items.insert(1, f"<span style='color:{_hex(PALE_PASS)}'>■</span>&nbsp;passes, most loss")
        items += ["★&nbsp;the optimum", "<span style='color:#1565c0'>◯</span>&nbsp;published (chosen)"]
        return " &nbsp; ".join(items)

    # -- the view ---------------------------------------------------------------------------------------------
    make_view = staticmethod(lattice_view)

    def _reset(self) -> None:
        self.graph = None
        self.selected = -1
        self.scatter.setData([], [])
        self.edges.setData([], [])
        self.marks.setData([], [])
        self.publish_button.setEnabled(False)

    def _present(self, graph: LatticeGraph, outcome: Any) -> None:
        self.graph = graph
        self.selected = -1
        rgb = graph.colours()
        brushes = [pg.mkBrush(int(r), int(g), int(b)) for r, g, b in rgb]
        self.scatter.setData(x=graph.x, y=graph.y, brush=brushes, data=np.arange(len(graph.x)))
        if len(graph.edges):
            xy = np.empty((2 * len(graph.edges), 2))
            xy[0::2] = np.stack([graph.x[graph.edges[:, 0]], graph.y[graph.edges[:, 0]]], axis=1)
            xy[1::2] = np.stack([graph.x[graph.edges[:, 1]], graph.y[graph.edges[:, 1]]], axis=1)
            self.edges.setData(xy[:, 0], xy[:, 1])
        else:
            self.edges.setData([], [])
        published = graph.chosen if graph.chosen >= 0 else graph.optimum
        self.info.setText(f"{graph.note}. Optimum for '{graph.quality_model}': "
                          + (graph.describe(graph.optimum) if graph.optimum >= 0 else "not drawn")
                          + ("" if graph.chosen < 0 else
                             ". Published: the transformation named in the Method pane (clear “Publish transformation"
                             "” there to search for the optimum again)."))
        self._draw_marks()
        self.selection.setText("Click a transformation to see its levels, what the search learnt of it and its loss."
                               if published < 0 else "Published: " + graph.describe(published))
        self.publish_button.setEnabled(False)
        self.plot.enableAutoRange()

    def _draw_marks(self) -> None:
        g = self.graph
        if g is None:
            return
        spots = []
        if g.optimum >= 0:
            spots.append({"pos": (g.x[g.optimum], g.y[g.optimum]), "symbol": "star", "size": 24,
                          "pen": pg.mkPen("k", width=1.2), "brush": pg.mkBrush(255, 214, 0, 200)})
        if g.chosen >= 0 and g.chosen != g.optimum:
            spots.append({"pos": (g.x[g.chosen], g.y[g.chosen]), "symbol": "o", "size": 22,
                          "pen": pg.mkPen("#1565c0", width=3), "brush": pg.mkBrush(None)})
        if self.selected >= 0:
            spots.append({"pos": (g.x[self.selected], g.y[self.selected]), "symbol": "o", "size": 20,
                          "pen": pg.mkPen("k", width=2.5), "brush": pg.mkBrush(None)})
        self.marks.setData(spots)

    def _tip(self, x: float, y: float, data: Any) -> str:
        return "" if self.graph is None else self.graph.describe(int(data))

    def _clicked(self, _item: Any, points: Any, _ev: Any = None) -> None:
        if len(points):
            self.select(int(points[0].data()))

    # -- public API -------------------------------------------------------------------------------------------
    def select(self, index: int) -> None:
        """Select drawn node ``index`` (what a click does): its description, and Publish on when it passes."""
        g = self.graph
        if g is None or not 0 <= index < len(g.nodes):
            return
        self.selected = index
        self.selection.setText("Selected: " + g.describe(index))
        self.publish_button.setEnabled(g.passes(index))
        self._draw_marks()

    def selected_levels(self) -> dict[str, int] | None:
        """The selected transformation as attribute → level (``None``: nothing selected)."""
        g = self.graph
        if g is None or self.selected < 0:
            return None
        return {a: int(v) for a, v in zip(g.attributes, g.levels[self.selected])}

    def node_position(self, index: int) -> QtCore.QPoint:
        """Where drawn node ``index`` is on screen, in the plot widget's coordinates (for tests that click it)."""
        g = self.graph
        assert g is not None
        scene = self.plot.getPlotItem().vb.mapViewToScene(QtCore.QPointF(float(g.x[index]), float(g.y[index])))
        return self.plot.mapFromScene(scene)

    def publish(self) -> None:
        levels = self.selected_levels()
        if levels is not None and self.graph is not None and self.graph.passes(self.selected):
            self.publishRequested.emit(levels)


if __name__ == "__main__":
    import sys

    from anonstudio.core.views.samples import preview_outcome
    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    preview = LatticePane()
    preview.show_outcome(preview_outcome("table", "global"))
    run_preview(preview, "Lattice (preview)")
