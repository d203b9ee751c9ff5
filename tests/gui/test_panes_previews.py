"""Every result pane's ``__main__`` preview runs (offscreen it quits by itself after a moment)."""

from __future__ import annotations

import runpy
import sys

import pytest
from PySide6 import QtWidgets

PREVIEWS = [
    ("parameters", ["table"]),
    ("run", []),
    ("compare", ["table"]),
    ("compare", ["fasta"]),
    ("compare", ["events"]),
    ("composition", []),
    ("mst_partition", []),
    ("metrics", []),
    ("privacy", ["fasta"]),
]


@pytest.mark.parametrize("module,args", PREVIEWS)
def test_preview_runs(qtbot, monkeypatch, module, args):
    monkeypatch.setattr(sys, "argv", [module, *args])
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    before = set(QtWidgets.QApplication.topLevelWidgets())
    runpy.run_module(f"anonstudio.gui.panes.{module}", run_name="__main__")
    shown = [w for w in QtWidgets.QApplication.topLevelWidgets() if w not in before and w.windowTitle()]
    assert any("preview" in w.windowTitle() for w in shown)
    for w in shown:
        w.close()
        w.deleteLater()
