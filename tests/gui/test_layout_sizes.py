"""Issue 40 item 3: the workbench at 1280 × 720 and 1920 × 1080, with a demo job of each data kind (table, event
log, FASTA) run as a user runs it. Checked by geometry, as a user would see it:

- every plot on a shown result tab has its axes (line, ticks and labels) inside the part of the plot on screen;
- no button's text is wider than the button (a squeezed button read "Im…t…");
- the Method pane is as wide as its dock (nothing cut on the right) and its error text wraps;
- only the result tabs that apply to the data kind and method are shown (:mod:`anonstudio.core.views.result_tabs`);
- the Attributes pane shows as many rows after the run as before it.

Screenshots are saved: the window at setup and after the run (``layout_<kind>_<w>x<h>_setup.png``, ``…_result.png``)
and each shown result tab's dock (``layout_<kind>_<w>x<h>_<tab>.png``); tests/gui/readme_screenshots.py copies them,
compressed, into docs/screenshots.
"""

from __future__ import annotations

import shutil

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import QAbstractButton, QCheckBox, QRadioButton

from anonstudio.core.views.result_tabs import tab_applies
from anonstudio.resources import demo_folder

pytestmark = pytest.mark.gui

SIZES = [(1280, 720), (1920, 1080)]
#: demo job → (data kind, tabs that must show, tabs that must not)
JOBS = {
    "table-mst": ("table", {"Summary", "Compare", "MST partition", "Risk", "Privacy", "Metrics", "History"},
                  {"Composition", "Clusters", "Randomization", "Anatomy"}),
    "table-ra": ("table", {"Summary", "Compare", "Randomization", "Risk", "Privacy", "Metrics", "History"},
                 {"Composition", "Clusters", "MST partition", "Anatomy"}),
    "table-anatomy": ("table", {"Summary", "Compare", "Anatomy", "Risk", "Privacy", "Metrics", "History"},
                      {"Composition", "Clusters", "MST partition", "Randomization"}),
    "events-cbmsa": ("events", {"Summary", "Compare", "Clusters", "Privacy", "Metrics", "History"},
                     {"Composition", "MST partition", "Randomization", "Anatomy", "Risk"}),
    "proteins-condensation": ("fasta", {"Summary", "Compare", "Composition", "Metrics", "History"},
                              {"MST partition", "Clusters", "Randomization", "Anatomy", "Risk"}),
}


def _settle(qtbot, n: int = 4) -> None:
    for _ in range(n):
        qtbot.wait(25)


def _result_tabs(window) -> list[str]:
    from anonstudio.gui.main_window import PANES

    return [t for t in window.docks if PANES[t][2] == Qt.DockWidgetArea.BottomDockWidgetArea]


def _visible_rows(table) -> int:
    height = table.viewport().height()
    return sum(1 for r in range(table.rowCount())
               if 0 <= table.rowViewportPosition(r) and table.rowViewportPosition(r) + table.rowHeight(r) <= height)


def _elided_buttons(window) -> list[str]:
    """Buttons on screen whose text is wider than the button."""
    bad = []
    for button in window.findChildren(QAbstractButton):
        if isinstance(button, (QCheckBox, QRadioButton)) or not button.isVisible() or not button.text():
            continue
        if button.visibleRegion().isEmpty():
            continue
        text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        if button.fontMetrics().horizontalAdvance(text) > button.width():
            bad.append(f"{text!r} ({button.fontMetrics().horizontalAdvance(text)} > {button.width()} px)")
    return bad


def _plots(widget) -> list[tuple[pg.GraphicsView, pg.PlotItem]]:
    found = [(w, w.getPlotItem()) for w in widget.findChildren(pg.PlotWidget)]
    for layout in widget.findChildren(pg.GraphicsLayoutWidget):
        found += [(layout, item) for item in layout.ci.items if isinstance(item, pg.PlotItem)]
    return [(view, item) for view, item in found if view.isVisible() and item.isVisible()]


def _axes_off_screen(tab: str, pane) -> list[str]:
    """Axes of ``pane``'s shown plots that lie (partly) outside the plot's part on screen."""
    bad = []
    for view, item in _plots(pane):
        # the part of the plot on screen (the view's viewport: the view itself is covered by it)
        shown = QRectF(view.viewport().visibleRegion().boundingRect()).adjusted(-1, -1, 1, 1)
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            if not axis.isVisible():
                continue
            rect = view.mapFromScene(axis.sceneBoundingRect()).boundingRect()
            if not shown.contains(QRectF(rect)):
                bad.append(f"{tab}: {view.objectName() or type(view).__name__} {side} axis at {rect} outside {shown}")
    return bad


@pytest.mark.parametrize("job", list(JOBS))
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_pane_fits_its_dock_and_only_the_tabs_that_apply_show(qtbot, settings, messages, tmp_path, screenshot,
                                                                    size, job):
    from anonstudio.gui.main_window import MainWindow

    kind, shown, hidden = JOBS[job]
    name = kind if job in ("table-mst", "events-cbmsa", "proteins-condensation") else job.split("-")[1]
    w, h = size
    shutil.copytree(demo_folder(), tmp_path / "demo")
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.resize(w, h)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_job(tmp_path / "demo" / f"{job}.toml")
    _settle(qtbot, 8)
    screenshot(window, f"layout_{name}_{w}x{h}_setup")
    assert not _elided_buttons(window), _elided_buttons(window)
    attributes = window.panes["Attributes"].table
    rows_before = _visible_rows(attributes) if kind != "fasta" else None
    heights = window.docks["Attributes"].height(), attributes.viewport().height()
    if rows_before is not None:
        assert rows_before >= (4 if h < 800 else attributes.rowCount()), rows_before

    with qtbot.waitSignal(window.runFinished, timeout=60_000):
        window.start_run()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)
    _settle(qtbot, 8)
    screenshot(window, f"layout_{name}_{w}x{h}_result")

    # the setup panes keep their size: the same roles are readable after the run as before it
    if rows_before is not None:
        assert _visible_rows(attributes) == rows_before, (_visible_rows(attributes), rows_before, heights,
                                                          window.docks["Attributes"].height())
    # the Method pane is as wide as its dock: nothing cut on the right, the error text wraps
    method = window.panes["Method"]
    assert method.scroll.widget().width() <= method.scroll.viewport().width()
    assert all(method.form.field(name).error.wordWrap() for name in method.form.parameters.names())

    # the tabs that apply to this kind and method, and only they
    tabs = {t for t in _result_tabs(window) if window.docks[t].isVisible()}
    assert shown <= tabs and not (hidden & tabs), sorted(tabs)
    assert tabs == {t for t in _result_tabs(window) if tab_applies(t, kind, window.state.method)}
    assert all(not window.docks[t].toggleViewAction().isEnabled() for t in hidden)

    problems: list[str] = []
    for tab in sorted(tabs, key=_result_tabs(window).index):
        window.docks[tab].raise_()
        _settle(qtbot, 3)
        screenshot(window.docks[tab], f"layout_{name}_{w}x{h}_{tab.lower().replace(' ', '-')}")
        problems += _axes_off_screen(tab, window.panes[tab])
        problems += [f"{tab}: {b}" for b in _elided_buttons(window)]
    assert not problems, "\n".join(problems)
    window.state.dirty = False
    window.runner.shutdown()
