"""Issue 32 item 2 in the workbench: safepub is among the table methods, its form is built from its declared
parameters (ε, δ, the search's share, steps, score, level limits, seed), δ keeps its small default and bad values
are marked before a run."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from anonstudio.core import algorithms
from anonstudio.gui.panes.parameters import ParametersPane


@pytest.fixture
def pane(qtbot):
    p = ParametersPane()
    qtbot.addWidget(p)
    p.set_kind("table")
    return p


def test_safepub_is_listed_with_its_declared_parameters(pane):
    names = [pane.method_box.itemData(i) for i in range(pane.method_box.count())]
    assert "safepub" in names and names.index("safepub") == names.index("global") + 1
    pane.set_values("safepub", {})
    form = pane.form
    assert form.editor("epsilon").value() == pytest.approx(2.0)
    assert isinstance(form.editor("score"), QtWidgets.QComboBox) and form.editor("score").currentText() == "loss"
    assert form.editor("steps").value() == 100
    params = pane.params()
    assert params["delta"] == pytest.approx(1e-6) and params["epsilon_search"] == pytest.approx(0.1)
    assert "k" not in params and "max_suppression" not in params  # k follows from ε and δ; no budget
    assert algorithms.get("safepub")(**params).params["delta"] == pytest.approx(1e-6)
    assert pane.is_valid()
    form.editor("steps").setValue(0)
    assert not pane.is_valid() and "≥ 1" in pane.errors()["steps"]
    form.editor("steps").setValue(10)
    delta = form.editor("delta")  # typed: a 4-decimal spin box would round 1e-6 to 0
    assert isinstance(delta, QtWidgets.QLineEdit)
    delta.setText("1.5")
    assert not pane.is_valid() and "< 1" in pane.errors()["delta"]
    delta.setText("1e-5")
    assert pane.is_valid() and pane.params()["delta"] == pytest.approx(1e-5)
    form.editor("epsilon").setValue(0.0)
    assert not pane.is_valid() and "> 0" in pane.errors()["epsilon"]
