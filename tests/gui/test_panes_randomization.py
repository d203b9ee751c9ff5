"""The result views of paper 001's methods: the randomization pane (ra, ra-enhanced) and the Anatomy pane."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.generate import adult_like_table
from anonstudio.gui.panes.anatomy import AnatomyPane, anatomy_view
from anonstudio.gui.panes.randomization import RandomizationPane, marginals, randomization_view


@pytest.fixture(scope="module")
def table():
    frame = adult_like_table(2000, seed=4)
    qis = [c for c in frame.columns if c != "occupation"]
    return Table(frame).with_roles(qis, ["occupation"])


@pytest.fixture(scope="module")
def ra_outcome(table):
    return jobs.anonymize(table, {}, get("ra")(seed=2, bias_runs=10))


@pytest.fixture(scope="module")
def anatomy_outcome(table):
    return jobs.anonymize(table, {}, get("anatomy")(l=4, seed=1))


def test_randomization_pane_shows_attributes_pa_and_marginals(shown, qtbot, ra_outcome, screenshot):
    pane = shown(RandomizationPane, 1150, 760)
    pane.show_outcome(ra_outcome)
    m = ra_outcome.report["metrics"]
    view = randomization_view(ra_outcome)
    assert pane.stack.currentIndex() == 1 and pane.table.rowCount() == len(view.attributes) == 8
    # one row per quasi-identifier: the cells redrawn add up to one per record (Algorithm 1)
    redrawn = [int(pane.table.item(r, 3).text().replace(",", "")) for r in range(pane.table.rowCount())]
    assert sum(redrawn) == len(ra_outcome.data.df) == sum(m["redrawn_cells"].values())
    assert f"maximum Σ e^H = {m['probabilistic_anonymity_max']:.1f}" in pane.info.text()
    assert f"Pa = {m['probabilistic_anonymity']:.1f}" in pane.info.text()
    # the most-redrawn attribute is selected and its marginals drawn, original vs anonymized, from the data
    row = int(np.argmax(redrawn))
    assert pane.table.selectionModel().selectedRows()[0].row() == row
    before, after = pane.marginal_heights()
    values, b, a = marginals(ra_outcome, view.attributes[row])
    assert len(before) == len(values) > 1 and np.allclose(before, b) and np.allclose(after, a)
    assert abs(before - after).sum() / 2 < 0.05 and not np.allclose(before, after)
    # choosing another attribute redraws its bars
    pane.table.selectRow(0)
    assert np.allclose(pane.marginal_heights()[0], marginals(ra_outcome, view.attributes[0])[1])
    screenshot(pane, "randomization_pane")


def test_randomization_pane_puts_analytic_bias_beside_the_measured(shown, qtbot, ra_outcome, screenshot):
    pane = shown(RandomizationPane, 1150, 760)
    pane.show_outcome(ra_outcome)
    bias = ra_outcome.result.details["bias"]
    assert pane.bias_table.rowCount() == len(bias) == 40
    first = bias.iloc[0]
    assert pane.bias_table.item(0, 0).text() == first["combination"]
    assert pane.bias_table.item(0, 2).text().startswith(f"{first['R_mean']:+.4f}")
    assert pane.bias_table.item(0, 3).text() == f"{first['empirical_mean']:+.4f} ± {first['empirical_se']:.4f}"
    x, y = pane.analytic.getData()
    assert np.allclose(y, bias["R_mean"]) and len(pane.measured.getData()[1]) == 40
    assert np.allclose(pane.errors.opts["height"], 4 * bias["empirical_se"].fillna(0))
    pane.bias_table.selectRow(7)
    px, py = pane.pick.getData()
    assert list(px) == [7.0] and py[0] == pytest.approx(bias["R_mean"].iloc[7])
    screenshot(pane, "randomization_bias")


def test_randomization_pane_says_when_the_method_does_not_randomize(shown, qtbot, ra_outcome, anatomy_outcome):
    pane = shown(RandomizationPane, 1150, 760)
    pane.show_outcome(ra_outcome)
    pane.show_outcome(anatomy_outcome)
    assert pane.stack.currentIndex() == 0 and pane.table.rowCount() == 0
    assert "'anatomy' does not randomize" in pane.empty.text()


def test_anatomy_pane_links_the_two_tables_by_group(shown, qtbot, anatomy_outcome, screenshot):
    pane = shown(AnatomyPane, 1150, 760)
    pane.show_outcome(anatomy_outcome)
    view = anatomy_view(anatomy_outcome)
    st = anatomy_outcome.result.side_outputs["sensitive"]
    assert pane.stack.currentIndex() == 1 and pane.groups.rowCount() == st["group"].nunique() == len(view.groups)
    # every group as listed: at least l distinct values, none above 1/l
    for r in range(pane.groups.rowCount()):
        assert int(pane.groups.item(r, 2).text()) >= 4 and float(pane.groups.item(r, 3).text()) <= 0.25 + 1e-9
    assert "at least l = 4 different 'occupation' values" in pane.info.text()
    pane.groups.selectRow(3)
    g = view.groups[3]
    qit = anatomy_outcome.result.output.df
    members = qit[qit["group"].astype(str) == g]
    assert pane.qit_model.rowCount() == len(members) and pane.st_model.rowCount() == int((st["group"].astype(str) == g).sum())
    counts = pd.to_numeric(st[st["group"].astype(str) == g]["count"]).to_numpy()
    assert np.array_equal(pane.bar_heights(), counts) and counts.sum() == len(members)
    assert f"group {g}: {len(members)} records" in pane.qit_title.text()
    screenshot(pane, "anatomy_pane")


def test_anatomy_pane_is_empty_for_a_one_table_method(shown, qtbot, ra_outcome, anatomy_outcome):
    pane = shown(AnatomyPane, 1150, 760)
    pane.show_outcome(anatomy_outcome)
    pane.show_outcome(ra_outcome)
    assert pane.stack.currentIndex() == 0 and pane.groups.rowCount() == 0 and "publishes one table" in pane.empty.text()


def test_a_typed_combination_is_measured_on_a_worker_and_added(shown, qtbot, ra_outcome, screenshot):
    pane = shown(RandomizationPane, 1150, 760)
    pane.show_outcome(ra_outcome)
    before = pane.bias_table.rowCount()
    # mistakes are explained under the field, nothing is added
    for text, why in (("sex", "is not attribute=value"), ("zip=1", "'zip' is not a quasi-identifier"),
                      ("sex=Robot", "'Robot' is not a value of sex"), ("sex=Male, sex=Female", "named twice")):
        pane.combo_edit.setText(text)
        pane.combo_button.click()
        assert why in pane.combo_status.text() and pane.bias_table.rowCount() == before
    pane.combo_edit.setText("race=Black, sex=Female")
    with qtbot.waitSignal(pane.runner.idle, timeout=60_000):
        pane.combo_button.click()
    assert pane.bias_table.rowCount() == before + 1
    row = pane.bias_table.rowCount() - 1
    assert pane.bias_table.item(row, 0).text() == "race=Black, sex=Female"
    added = pane.view.bias.iloc[row]
    # its measured R(q) over the method's 10 reruns, and the analytic value, are in the table and the plot
    assert pd.notna(added["empirical_mean"]) and abs(added["z"]) < 4.5
    assert pane.bias_table.item(row, 3).text().startswith(f"{added['empirical_mean']:+.4f}")
    assert len(pane.analytic.getData()[0]) == before + 1 and pane.pick.getData()[0][0] == row
    assert "added as row" in pane.combo_status.text() and pane.combo_button.isEnabled()
    screenshot(pane, "randomization_custom_combination")
