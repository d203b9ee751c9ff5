"""Issue 40 item 7: the Risk pane takes the population the table is a sample of — a country from a short list, a
number of people or a sampling fraction — and its figures are then those ``anonstudio risk --population N`` /
``--sampling-fraction F`` prints, for the table loaded and after a run for the input and the release."""

from __future__ import annotations

import pytest

from anonstudio.core.population import COUNTRY_POPULATIONS
from tests.gui.test_risk_pane import QIS, _assert_side, _risk_cli, _wait_for_table

pytestmark = pytest.mark.gui


def _wait_for(pane, qtbot, size: int, after: bool) -> None:
    qtbot.waitUntil(lambda: pane.view is not None and int(pane.view.population["size"]) == size
                    and (pane.view.after is not None) == after and pane.stack.currentIndex() == 1, timeout=30_000)


def test_the_risk_pane_takes_a_country_a_number_or_a_sampling_fraction(window, qtbot, tmp_path, messages,
                                                                        screenshot):
    from tests.gui.test_end_to_end import _pick_method, _run_and_wait

    assert window.open_demo(tmp_path / "demo")
    table = tmp_path / "demo" / "adult-sample.csv"
    pane = window.panes["Risk"]
    window.docks["Risk"].raise_()
    _wait_for_table(pane, qtbot, QIS)
    usa = pane.figures()["population uniques: Pitman"]
    assert "USA" in pane.population_box.currentText()

    # Portugal, from the list: the figures of `anonstudio risk --population <Portugal's>`
    portugal = COUNTRY_POPULATIONS["Portugal"]
    pane.set_population(country="Portugal")
    _wait_for(pane, qtbot, portugal, after=False)
    _assert_side(pane, 0, _risk_cli(table, QIS, "--sensitive", "salary-class", "--population", str(portugal)))
    assert pane.figures()["population uniques: Pitman"] != usa
    assert "Portugal" in pane.heading.text() and f"{portugal:,}" in pane.heading.text()
    screenshot(window.docks["Risk"], "risk_population_portugal")

    # a sampling fraction: its field shows, the population is records / fraction
    pane.set_population(fraction=0.05)
    assert pane.sampling_fraction.isVisibleTo(pane) and not pane.population_number.isVisibleTo(pane)
    _wait_for(pane, qtbot, 40_000, after=False)
    _assert_side(pane, 0, _risk_cli(table, QIS, "--sensitive", "salary-class", "--sampling-fraction", "0.05"))

    # a number smaller than the table: refused in words, the figures on screen stay
    pane.set_population(number=500)
    qtbot.waitUntil(lambda: pane.population_error.isVisibleTo(pane), timeout=30_000)
    assert "500" in pane.population_error.text() and int(pane.view.population["size"]) == 40_000

    # a number, then a run: the input and the release measured for it
    pane.set_population(number=250_000)
    _wait_for(pane, qtbot, 250_000, after=False)
    assert not pane.population_error.isVisibleTo(pane)
    _pick_method(window, "mondrian", 10)
    outcome = _run_and_wait(window, qtbot, messages)
    assert outcome is not None and not isinstance(outcome, BaseException), messages.calls
    _wait_for(pane, qtbot, 250_000, after=True)
    _assert_side(pane, 0, _risk_cli(table, QIS, "--sensitive", "salary-class", "--population", "250000"))
    assert outcome.report["risk"]["population"]["size"] != 250_000  # the report keeps the run's own figures
    # back to ARX's default: the report's section as the run measured it
    pane.set_population(country="USA")
    _wait_for(pane, qtbot, int(outcome.report["risk"]["population"]["size"]), after=True)


def test_other_data_starts_from_the_default_population(window, qtbot, tmp_path, adult_csv):
    assert window.open_demo(tmp_path / "demo")
    pane = window.panes["Risk"]
    _wait_for_table(pane, qtbot, QIS)
    pane.set_population(country="Portugal")
    assert pane.population() == (COUNTRY_POPULATIONS["Portugal"], None)
    window.open_data(adult_csv, "table")
    assert pane.population() == (None, None) and "USA" in pane.population_box.currentText()
