"""Run history and comparison (issue 15 item 8): every run is kept; two are compared side by side; the history is
saved in the project; an earlier run is shown again only for reference."""

from __future__ import annotations

import pytest

from tests.gui.test_main_window import _open_adult_with_roles

pytestmark = pytest.mark.gui


def _run(window, qtbot, method, params):
    with qtbot.waitSignal(window.runFinished, timeout=20_000):
        window.start_run(method, params)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)


def test_runs_are_kept_and_two_compare_side_by_side(window, adult_csv, sex_hierarchy_csv, qtbot, tmp_path,
                                                    screenshot):
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    window.state.set_role("age", "quasi-identifying")
    _run(window, qtbot, "mondrian", {"k": 2})
    _run(window, qtbot, "mondrian", {"k": 5})
    pane = window.panes["History"]
    assert pane.numbers() == [1, 2] and pane.table.rowCount() == 2
    assert pane.table.item(0, 3).text().startswith("k = 2") and pane.table.item(1, 3).text().startswith("k = 5")
    assert pane.table.item(0, 4).text() == "verified" and "GCP" in pane.table.item(0, 5).text()
    pane.select(1)
    assert not pane.compare_button.isEnabled() and pane.show_button.isEnabled()
    pane.select(1, 2)
    assert pane.compare_button.isEnabled()
    pane.compare_button.click()
    assert pane.comparison.isVisible() and pane.compared == (1, 2)
    first, second = (card.toPlainText() for card in pane.cards)
    assert "Run 1" in first and "Run 2" in second and "verified" in first
    figures = {pane.figures.item(r, 0).text(): pane.figures.item(r, 3).text() for r in range(pane.figures.rowCount())}
    gcp = window.state.history[0]["report"]["metrics"]["GCP"], window.state.history[1]["report"]["metrics"]["GCP"]
    assert "GCP" in figures and figures["GCP"] == f"{(gcp[1] - gcp[0]) / gcp[0]:+.1%}"
    heights = [list(bar.opts["height"]) for bar in pane.bars]
    assert len(heights[0]) == pane.figures.rowCount() and max(max(heights[0]), max(heights[1])) == pytest.approx(1.0)
    window.docks["History"].raise_()
    print(f"screenshot: {screenshot(window, 'history_list')}")
    print(f"screenshot: {screenshot(pane.comparison, 'history_compare')}")
    # the history is saved in the project and read back (reports, not outputs)
    project = tmp_path / "p.anonstudio.json"
    assert window.save_project_to(project)
    assert window.open_project(project)
    assert pane.numbers() == [1, 2] and not window.state.outcomes
    pane.select(1, 2)
    pane.compare_selected()
    assert "Run 2" in pane.cards[1].toPlainText() and not pane.show_button.isEnabled()


def test_an_earlier_run_is_shown_for_reference_only(window, adult_csv, sex_hierarchy_csv, qtbot):
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    _run(window, qtbot, "mondrian", {"k": 2})
    _run(window, qtbot, "mondrian", {"k": 3})
    first = window.state.outcomes[1]
    pane = window.panes["History"]
    pane.select(1)
    pane.show_button.click()
    assert window.panes["Compare"].outcome is first
    assert window.holders["Compare"].stale and "run 1 from the history" in window.holders["Compare"].banner.text()
    assert not window.act_export_data.isEnabled() and "verified" not in window.verdict_label.text()
    assert pane.numbers() == [1, 2]  # showing a run again adds no run
