"""Issue 30 item 4 in the workbench: F1 opens the user guide (the README's text, one file), and every figure of a
report is explained where it is shown — the Summary's meaning column, the Metrics table's tooltips, the sweep
plot's tooltip."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QTextBrowser

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
