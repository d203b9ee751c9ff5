"""The Risk pane (issue 32 item 3), driven as a user drives it: the demo table opened, roles set, its risk shown;
Mondrian run; the input's and the release's risk side by side — each figure and each bar equal to what
``anonstudio risk`` prints for the same table — and the threshold the user sets changing the share at risk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from anonstudio.core.risk import RISK_BINS
from anonstudio.gui.panes.risk import RiskPane

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
#: the demo job's quasi-identifiers, in the table's column order
QIS = ["sex", "age", "education", "workclass", "occupation"]


def _risk_cli(table: Path, qis: list[str], *extra: str) -> dict:
    """``anonstudio risk TABLE --qi … --json`` as a user runs it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run([sys.executable, "-m", "anonstudio", "risk", str(table), "--qi", ",".join(qis), "--json",
                           *extra], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _pct(x: float) -> str:
    return f"{100.0 * x:.4g} %"


def _assert_side(pane: RiskPane, column: int, cli: dict) -> None:
    """The pane's column (0 before, 1 after) says what the command line says."""
    shown = {name: pair[column] for name, pair in pane.figures().items()}
    assert shown["records measured"].split(" ")[0] == f"{cli['records']:,}"
    assert shown["equivalence classes"] == f"{cli['classes']:,}"
    assert shown["prosecutor risk: highest"] == _pct(cli["prosecutor"]["highest"])
    assert shown["prosecutor risk: average"] == _pct(cli["prosecutor"]["average"])
    assert shown["records above the threshold"] == _pct(cli["prosecutor"]["records_at_risk"])
    assert shown["journalist risk: average"] == _pct(cli["journalist"]["average"])
    assert shown["marketer risk"] == _pct(cli["marketer"]["average"])
    assert shown["sample uniques"] == _pct(cli["sample_uniques"])
    for name in ("pitman", "zayatz", "snb"):
        e = cli["population_uniques"][name]
        label = {"pitman": "Pitman", "zayatz": "Zayatz", "snb": "SNB"}[name]
        text = shown[f"population uniques: {label}"]
        assert text == ("not available" if not e["available"] else f"{_pct(e['share'])} ({e['uniques']:,.0f} people)")
    dankar = cli["population_uniques"]["dankar"]
    assert _pct(dankar["share"]) in shown["population uniques: Dankar's rule"] or dankar["model"] == "none"
    # the bars: the share of records per ARX bin, from the first bin either side holds
    heights = pane.bar_heights()[column]
    first = len(RISK_BINS) - len(heights)
    np.testing.assert_allclose(heights, 100.0 * np.asarray(cli["distribution"]["records"][first:]), atol=1e-9)
    assert sum(cli["distribution"]["records"][:first]) == 0


def _wait_for_table(pane: RiskPane, qtbot, qis: list[str]) -> None:
    qtbot.waitUntil(lambda: pane.view is not None and pane.view.after is None
                    and pane.view.quasi_identifiers == qis and pane.stack.currentIndex() == 1, timeout=30_000)


def test_risk_of_the_demo_table_then_of_its_mondrian_release(window, qtbot, tmp_path, messages, screenshot):
    from anonstudio.core.io import write_table
    from tests.gui.test_end_to_end import _pick_method, _run_and_wait

    assert window.open_demo(tmp_path / "demo")
    table = tmp_path / "demo" / "adult-sample.csv"
    pane = window.panes["Risk"]
    window.docks["Risk"].raise_()
    assert window.state.quasi_identifiers() == QIS

    # the table loaded, on the job's quasi-identifiers: one side, equal to `anonstudio risk`
    _wait_for_table(pane, qtbot, QIS)
    assert pane.table.isColumnHidden(2) and len(pane.bar_heights()[1]) == 0
    before = _risk_cli(table, QIS, "--sensitive", "salary-class")
    _assert_side(pane, 0, before)

    # a role changed: the pane measures the table again on the new quasi-identifiers
    data = window.panes["Data"]
    next(a for a in data.column_menu("occupation").actions() if a.data() == ("role", "insensitive")).trigger()
    fewer = [q for q in QIS if q != "occupation"]
    _wait_for_table(pane, qtbot, fewer)
    _assert_side(pane, 0, _risk_cli(table, fewer, "--sensitive", "salary-class"))
    next(a for a in data.column_menu("occupation").actions() if a.data() == ("role", "quasi-identifying")).trigger()
    _wait_for_table(pane, qtbot, QIS)
    _assert_side(pane, 0, before)

    # Mondrian k = 10: the input and the release side by side
    _pick_method(window, "mondrian", 10)
    outcome = _run_and_wait(window, qtbot, messages)
    assert outcome is not None and not isinstance(outcome, BaseException), messages.calls
    assert pane.view is not None and pane.view.after is not None
    assert not pane.table.isColumnHidden(2)
    released = tmp_path / "released.csv"
    write_table(outcome.result.output, released, delimiter=";")
    after = _risk_cli(released, QIS, "--sensitive", "salary-class")
    _assert_side(pane, 0, before)
    _assert_side(pane, 1, after)
    shown_before, shown_after = pane.bar_heights()
    assert shown_before.sum() == pytest.approx(100.0) and shown_after.sum() == pytest.approx(100.0)
    # k = 10: no released record is above 0.1, the input has many
    assert after["prosecutor"]["highest"] <= 0.1 and before["prosecutor"]["records_at_risk"] > 0.2

    # the threshold the user sets changes the share at risk, as `--threshold` does
    row = "records above the threshold"
    at_default = pane.figures()[row]
    pane.threshold.setValue(0.05)
    low_before = _risk_cli(table, QIS, "--threshold", "0.05")
    low_after = _risk_cli(released, QIS, "--threshold", "0.05")
    assert pane.figures()[row] == (_pct(low_before["prosecutor"]["records_at_risk"]),
                                   _pct(low_after["prosecutor"]["records_at_risk"]))
    assert pane.figures()[row] != at_default
    assert "0.05" in pane.threshold_line.label.toPlainText()
    pane.threshold.setValue(0.2)
    assert pane.figures()[row] == at_default

    window.resizeDocks([window.docks["Risk"]], [520], __import__("PySide6.QtCore").QtCore.Qt.Orientation.Vertical)
    path = screenshot(pane, "risk_pane")
    assert pane.grab().save("/tmp/riskpane.png")
    print(f"screenshot: {path}")


def test_new_data_clears_the_release_and_measures_the_table_again(window, qtbot, tmp_path, messages):
    from tests.gui.test_end_to_end import _pick_method, _run_and_wait

    assert window.open_demo(tmp_path / "demo")
    pane = window.panes["Risk"]
    _wait_for_table(pane, qtbot, QIS)
    _pick_method(window, "mondrian", 5)
    _run_and_wait(window, qtbot, messages)
    assert pane.view.after is not None
    # the demo again: new data, no run on screen — the table's risk alone
    assert window.open_demo(tmp_path / "demo2")
    _wait_for_table(pane, qtbot, QIS)
    assert pane.table.isColumnHidden(2)


def test_a_release_without_classes_says_the_pane_is_for_tables(qtbot):
    from anonstudio.core.views import samples

    pane = RiskPane()
    qtbot.addWidget(pane)
    pane.show_outcome(samples.strings_outcome())
    assert pane.stack.currentIndex() == 0 and "tables" in pane.empty.text()
    pane.show_outcome(samples.table_outcome(k=3))
    assert pane.stack.currentIndex() == 1 and pane.view.after is not None
