"""Issue 30 item 6, the plots: axes that read as the data's own numbers (no "GCP (x0.001)" over 0–330), legends
beside the data (the sweep's legend hid its last point), and an event log's overview readable in the window at
1280 × 720. Screenshots are saved in the test run's screenshot folder (tests/gui/conftest.py)."""

from __future__ import annotations

import shutil

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QFontMetrics

from anonstudio.core.views import samples as _samples
from anonstudio.gui.panes._events_overview import PLOT_MIN_HEIGHT, EventsOverview
from anonstudio.gui.panes._plots import legend_is_outside
from anonstudio.gui.panes.anatomy import AnatomyPane
from anonstudio.gui.panes.clusters import ClustersPane
from anonstudio.gui.panes.composition import CompositionPane
from anonstudio.gui.panes.history import HistoryPane
from anonstudio.gui.panes.metrics import MetricsPane
from anonstudio.gui.panes.mst_partition import MstPartitionPane
from anonstudio.gui.panes.privacy import PrivacyPane
from anonstudio.gui.panes.randomization import RandomizationPane
from anonstudio.gui.panes.lattice import LatticePane
from anonstudio.gui.panes.risk import RiskPane
from anonstudio.gui.panes.utility import UtilityPane
from anonstudio.resources import demo_folder

pytestmark = pytest.mark.gui

#: a GCP sweep as Adult gives it: values from 0.01 to 0.33, where pyqtgraph drew 10–330 under "(x0.001)"
GCP = {2: 0.012, 5: 0.061, 10: 0.118, 20: 0.203, 50: 0.331}


def _plot_items(widget) -> list[pg.PlotItem]:
    items = [w.getPlotItem() for w in widget.findChildren(pg.PlotWidget)]
    for layout in widget.findChildren(pg.GraphicsLayoutWidget):
        items += [i for i in layout.ci.items if isinstance(i, pg.PlotItem)]
    return items


def test_the_sweep_plot_reads_in_the_metrics_own_numbers_with_its_legend_beside_it(shown, screenshot, qtbot):
    pane = shown(MetricsPane, 1000, 560)
    pane.clear_sweep("k")
    for k, gcp in GCP.items():
        pane.add_sweep_point({"k": k, "GCP": gcp}, method="mst")
        pane.add_sweep_point({"k": k, "GCP": gcp * 0.8}, method="mondrian")
    pane.set_metric("GCP")
    pane.plot.getPlotItem().vb.autoRange()
    qtbot.wait(50)  # the layout settles
    left = pane.plot.getAxis("left")
    assert left.labelString().split("<")[-2].endswith("GCP ") or "GCP" in left.labelString()
    assert "(x" not in left.labelString() and "×" not in left.labelString(), left.labelString()
    # the ticks are the values themselves: 0.1, 0.2, 0.3 — not 100, 200, 300
    low, high = left.range
    strings = [s for _, ticks in left.tickValues(low, high, 400) for s in left.tickStrings(ticks, left.scale, _)]
    assert strings and max(float(s) for s in strings) <= 0.5, strings
    assert legend_is_outside(pane.plot)
    # the last point (k = 50, the highest GCP) lies in the view box, not under the legend
    item = pane.plot.getPlotItem()
    legend = item.legend.mapRectToScene(item.legend.boundingRect())
    last = item.vb.mapViewToScene(pg.Point(50, GCP[50]))
    assert not legend.contains(last)
    print(f"screenshot: {screenshot(pane, 'metrics_sweep_gcp')}")


@pytest.mark.parametrize("cls, outcome", [
    (MetricsPane, None), (CompositionPane, lambda: _samples.strings_outcome()), (HistoryPane, None),
    (PrivacyPane, lambda: _samples.table_outcome(k=3)), (RandomizationPane, None), (AnatomyPane, None),
    (ClustersPane, lambda: _samples.events_outcome(k=3)), (MstPartitionPane, lambda: _samples.table_outcome(k=3)),
    (RiskPane, lambda: _samples.table_outcome(k=3)), (EventsOverview, None),
    (LatticePane, lambda: _samples.preview_outcome("table", "global")),
    (UtilityPane, lambda: _samples.preview_outcome("table", "global"))], ids=lambda v: getattr(v, "__name__", ""))
def test_no_plot_scales_its_axes_and_no_legend_covers_data(shown, qtbot, cls, outcome):
    pane = shown(cls, 1000, 600)
    if outcome is not None:
        pane.show_outcome(outcome())
    qtbot.wait(50)
    items = _plot_items(pane)
    assert items, cls
    for item in items:
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            assert not (axis.isVisible() and axis.autoSIPrefix), (cls.__name__, side)
        assert legend_is_outside(item), cls.__name__


def test_an_event_logs_overview_is_readable_in_the_window_at_1280x720(qtbot, settings, messages, tmp_path,
                                                                      screenshot):
    from anonstudio.gui.main_window import MainWindow

    shutil.copytree(demo_folder(), tmp_path / "demo")
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_job(tmp_path / "demo" / "events-cbmsa.toml")
    overview = window.panes["Data"].events_overview
    qtbot.waitUntil(lambda: overview.isVisible() and len(overview.labels) > 0, timeout=30_000)
    window.docks["Data"].raise_()
    qtbot.wait(50)
    lengths, values = overview.heights()
    assert lengths.sum() == 300 and values.sum() == 1545
    for plot in (overview.lengths_plot, overview.values_plot):
        assert plot.height() >= PLOT_MIN_HEIGHT and plot.width() >= 150, (plot.height(), plot.width())
    # every value has a row of its own on the left axis, at least as tall as the tick font
    axis = overview.values_plot.getAxis("left")
    view = overview.values_plot.getPlotItem().vb
    row = view.mapViewToScene(pg.Point(0, 1)).y() - view.mapViewToScene(pg.Point(0, 0)).y()
    assert abs(row) >= QFontMetrics(axis.style["tickFont"]).height(), (row, len(overview.labels))
    ticks = [label for label, in [(t[1],) for t in axis._tickLevels[0]]] if axis._tickLevels else []
    assert ticks[:3] == overview.labels[:3]
    assert "Disease" in overview.values_title.text() and "1,545 events" in overview.values_title.text()
    assert np.all(np.diff(values) <= 0)  # most frequent value first (on top)
    print(f"screenshot: {screenshot(window, 'window_1280x720_events_overview')}")
    window.state.dirty = False
    window.runner.shutdown()
