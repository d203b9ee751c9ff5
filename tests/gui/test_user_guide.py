"""Issue 30 item 4 in the workbench: F1 opens the user guide (the docs' guide and job reference, built into one
file), with its contents and a search bar (issue 40 item 8), and every figure of a report is explained where it is
shown — the Summary's meaning column, the Metrics table's tooltips, the sweep
plot's tooltip."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QPushButton, QTextBrowser, QTreeWidget

from anonstudio.core.views import MEANINGS
from anonstudio.core.views import samples as _samples
from anonstudio.gui.panes.metrics import MetricsPane
from anonstudio.resources import guide_text

pytestmark = pytest.mark.gui


def test_f1_opens_the_user_guide_with_the_job_file_format_and_every_figure(window, qtbot, screenshot):
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.findChild(QDialog, "guide")
    qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible(), timeout=5_000)
    shown = dialog.findChild(QTextBrowser, "guideText").toPlainText()
    for said in ("The workbench in six steps", "Job files", "The section [input]: the data and the roles", "the identifying key",
                 "A complete job per kind of data", 'highly_sensitive = ["HIV", "Hepatitis"]', 'alphabet = "dna"',
                 "What the figures mean", "ANONSTUDIO_EXIT_AFTER_SHOW"):
        assert said in shown, said
    for key in ("guess_probability_bound_max", "c_amplification_max", "CD", "IL"):
        assert key in shown and MEANINGS[key].split(":")[0] in shown, key
    # the rendered text is the guide file's, not a copy of it
    assert shown.count("| `") == 0 and guide_text().count("```toml") == 4
    print(f"screenshot: {screenshot(dialog, 'user_guide')}")
    qtbot.keyClick(window, Qt.Key.Key_F1)  # a second F1 raises the same window
    assert window.findChildren(QDialog, "guide") == [dialog]


def _open_guide(window, qtbot):
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.findChild(QDialog, "guide")
    qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible(), timeout=5_000)
    return dialog


def _tree_items(tree):
    out = []

    def walk(item):
        out.append(item)
        for i in range(item.childCount()):
            walk(item.child(i))

    for i in range(tree.topLevelItemCount()):
        walk(tree.topLevelItem(i))
    return out


def test_the_guides_contents_jump_to_a_heading(window, qtbot):
    dialog = _open_guide(window, qtbot)
    view = dialog.findChild(QTextBrowser, "guideText")
    tree = dialog.findChild(QTreeWidget, "guideContents")
    names = [item.text(0) for item in _tree_items(tree)]
    for heading in ("User guide", "The workbench in six steps", "What the figures mean", "Job reference",
                    "The section [input]: the data and the roles", "A complete job per kind of data"):
        assert heading in names, heading
    assert names.index("User guide") < names.index("What the figures mean") < names.index("Job reference")
    assert view.verticalScrollBar().value() == 0
    item = next(i for i in _tree_items(tree) if i.text(0) == "What the figures mean")
    tree.scrollToItem(item)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualItemRect(item).center())

    def heading_at_top():
        block = view.document().findBlock(view.textCursor().position())
        top = view.cursorRect(QTextCursor(block)).top()
        return block.text() == "What the figures mean" and 0 <= top < view.viewport().height() // 4

    qtbot.waitUntil(heading_at_top, timeout=5_000)
    assert view.verticalScrollBar().value() > 0  # the view moved down to it


def test_the_guides_search_counts_highlights_and_steps_through_matches(window, qtbot):
    dialog = _open_guide(window, qtbot)
    view = dialog.findChild(QTextBrowser, "guideText")
    search = dialog.findChild(QLineEdit, "guideSearch")
    label = dialog.findChild(QLabel, "guideMatches")
    term = "suppressed"
    expected = view.toPlainText().lower().count(term)
    assert expected > 2
    qtbot.mouseClick(search, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(search, term.upper())  # the search ignores case
    qtbot.waitUntil(lambda: label.text().startswith(f"{expected} matches"), timeout=5_000)
    assert label.text() == f"{expected} matches — 1 of {expected}"
    assert len(view.extraSelections()) == expected  # every match highlighted
    first = view.textCursor()
    assert first.selectedText().lower() == term and first.hasSelection()
    qtbot.mouseClick(dialog.findChild(QPushButton, "guideNext"), Qt.MouseButton.LeftButton)
    second = view.textCursor()
    assert second.selectedText().lower() == term and second.selectionStart() > first.selectionStart()
    assert label.text() == f"{expected} matches — 2 of {expected}"
    qtbot.keyClick(search, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # back to the first
    assert view.textCursor().selectionStart() == first.selectionStart()
    qtbot.mouseClick(dialog.findChild(QPushButton, "guidePrevious"), Qt.MouseButton.LeftButton)  # wraps to the last
    assert label.text() == f"{expected} matches — {expected} of {expected}"
    search.clear()
    qtbot.keyClicks(search, "no such word in the guide")
    assert label.text() == "no matches" and not view.extraSelections()
    assert not dialog.findChild(QPushButton, "guideNext").isEnabled()


def test_the_metrics_table_and_the_sweep_plot_explain_their_figures(shown):
    pane = shown(MetricsPane, 1000, 600)
    outcome = _samples.table_outcome(k=3)
    pane.show_outcome(outcome)
    rows = {pane.table.item(r, 1).text(): r for r in range(pane.table.rowCount())}
    assert MEANINGS["DM"] in pane.table.item(rows["DM"], 2).toolTip()
    assert MEANINGS["CAVG"] in pane.table.item(rows["CAVG"], 1).toolTip()
    pane.clear_sweep("k")
    pane.add_sweep_point({"k": 2, "GCP": 0.1}, method="mst")
    pane.set_metric("GCP")
    assert pane.plot.toolTip() == f"GCP: {MEANINGS['GCP']}"


def test_the_privacy_pane_explains_each_of_the_verifiers_figures(shown):
    from anonstudio.gui.panes.privacy import PrivacyPane

    pane = shown(PrivacyPane, 1000, 600)
    pane.show_outcome(_samples.table_outcome(k=3))
    table = pane.details
    rows = {table.item(r, 0).text(): table.item(r, 2).text() for r in range(table.rowCount())}
    assert rows.get("smallest_class") == "records in the smallest class (at least k)", rows
    assert all(rows[name] for name in rows if name != "problems"), rows
    pane.show_outcome(_samples.events_outcome(k=3))
    rows = {table.item(r, 0).text(): table.item(r, 2).text() for r in range(table.rowCount())}
    assert rows.get("suppressed", "sequences removed whole") == "sequences removed whole", rows
