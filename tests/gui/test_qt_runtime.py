"""The Qt binding in use does not corrupt Python's reference counts.

PySide6 6.12.0 releases ``True`` once too often while pyqtgraph items are drawn; after a few hundred plots
Python aborts with "Fatal Python error: bool_dealloc" (the whole GUI suite died with exit code 134 at
shutdown). ``pyproject.toml`` excludes that release; this test catches a binding with the same fault.
"""

from __future__ import annotations

import gc
import sys

import pyqtgraph as pg


def test_drawing_plots_does_not_release_true_or_false(qapp):
    def draw():
        w = pg.PlotWidget()
        w.addItem(pg.BarGraphItem(x=[1, 2, 3], height=[1, 2, 3], width=0.3))
        w.resize(300, 200)
        w.show()
        qapp.processEvents()
        w.grab()
        w.close()
        w.deleteLater()
        qapp.processEvents()

    draw()
    gc.collect()
    before = sys.getrefcount(True), sys.getrefcount(False)
    for _ in range(20):
        draw()
    gc.collect()
    after = sys.getrefcount(True), sys.getrefcount(False)
    assert after[0] >= before[0] - 5 and after[1] >= before[1] - 5, (before, after)
