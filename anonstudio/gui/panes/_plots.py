"""Plots a reader can read (issue 30 item 6): axes that show the data's own numbers and legends beside the data.

pyqtgraph scales an axis without units by a power of a thousand and writes the factor into its label: a GCP
from 0 to 0.33 was drawn as 0–330 under "GCP (x0.001)". :func:`readable_axes` turns that off, so the ticks
are the values the report holds. Its legends float inside the view box, where they hid the last point of a
sweep; :func:`legend_outside` puts the legend in the plot's layout, to the right of the axes, where no data is
drawn.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

#: the plot item's layout: row 2 holds the view box, column 3 the right axis; the legend goes after it
_LEGEND_CELL = (2, 4)


def _item(plot: Any) -> pg.PlotItem:
    return plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot


def readable_axes(plot: Any) -> None:
    """No SI prefix and no scale factor on any axis of ``plot`` (a PlotWidget or PlotItem)."""
    item = _item(plot)
    for name in ("left", "bottom", "right", "top"):
        item.getAxis(name).enableAutoSIPrefix(False)


def legend_outside(plot: Any, **options: Any) -> pg.LegendItem:
    """``plot``'s legend, placed to the right of its axes (never over the data); curves added with a ``name`` join
    it as with pyqtgraph's own ``addLegend`` (which returns this one afterwards)."""
    item = _item(plot)
    if item.legend is not None and item.legend.parentItem() is item:
        return item.legend
    legend = pg.LegendItem(offset=None, labelTextColor="k", **options)
    # its own size, at the top of the cell: stretched to the row's height its entries drifted apart
    legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Fixed, QtWidgets.QSizePolicy.Policy.Fixed)
    item.layout.addItem(legend, *_LEGEND_CELL)
    item.layout.setAlignment(legend, QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
    item.layout.setColumnStretchFactor(_LEGEND_CELL[1], 0)
    item.legend = legend
    return legend


def legend_is_outside(plot: Any) -> bool:
    """Whether ``plot``'s legend lies wholly beside its view box (what the tests check on screen geometry)."""
    item = _item(plot)
    if item.legend is None:
        return True
    legend = item.legend.mapRectToScene(item.legend.boundingRect())
    view = item.vb.mapRectToScene(item.vb.boundingRect())
    overlap = legend.intersected(view)  # layout cells meet on fractional pixels: a sliver is not an overlap
    return overlap.width() < 2 or overlap.height() < 2
