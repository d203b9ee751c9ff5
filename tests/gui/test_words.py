"""Words a user understands (issue 15 item 11): parameters by their plain-words labels, errors in the words on
screen (never a job-file key), a one-line tooltip for every method and parameter, no paper codes in menus."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from anonstudio.core import algorithms

pytestmark = pytest.mark.gui

RAW = re.compile(r"\b(max_fragment|l_kind|highly_sensitive|numeric_split|bias_runs|attributes_per_record)\b")


def test_every_method_and_parameter_speaks_plain_words(window, adult_csv):
    window.open_data(adult_csv, "table")
    pane = window.panes["Method"]
    for kind in ("table", "events", "fasta"):
        pane.set_kind(kind)
        for i in range(pane.method_box.count()):
            tip = pane.method_box.itemData(i, Qt.ItemDataRole.ToolTipRole)
            cls = algorithms.get(pane.method_box.itemData(i))
            assert tip.splitlines()[0] == cls.description and len(cls.description) > 10
            pane.method_box.setCurrentIndex(i)
            labels = [w.text() for w in pane.form.findChildren(QLabel) if w.text()]
            assert not any(RAW.search(t) for t in labels), labels
            for name in pane.form.parameters.names():
                assert pane.form.editor(name).toolTip().splitlines()[0], name
    titles = [a.text() for m in window.menuBar().findChildren(type(window.recent_menu)) for a in m.actions()]
    assert titles and not [t for t in titles if re.search(r"\b00[0-4]\b", t)]


def test_a_bad_parameter_and_a_missing_role_are_told_in_screen_words(window, adult_csv, qtbot, messages):
    window.open_data(adult_csv, "table")
    pane = window.panes["Method"]
    pane.set_values("mondrian", {"k": 1})
    shown = pane.form.field("k").error.text()
    assert shown.startswith("k — smallest group size: ") and "parameter 'k'" not in shown, shown
    pane.set_values("mondrian", {"k": 2})
    for column in window.state.columns():  # every column given a role, none of them quasi-identifying
        window.state.set_role(column, "insensitive")
    window.start_run()  # no quasi-identifier chosen
    qtbot.waitUntil(lambda: bool(messages.texts("critical")), timeout=20_000)
    text = messages.texts("critical")[-1]
    assert "input.quasi_identifiers" not in text and "Attributes pane" in text, text
