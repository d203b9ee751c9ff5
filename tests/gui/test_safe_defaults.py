"""Issue 30 items 1 and 2, driven as a user would: a table's columns start without a role (an identifier-looking
one proposed identifying), Run names the columns still without one and, if the user goes on, makes them
quasi-identifying; the headline tells "the model holds" from "safe to publish" in the Summary, the status bar and
the export dialog, and an export over release risks asks and writes the confirmation into the report. An
exception that is a bug reaches the user as a sentence with a "details" disclosure and is logged to the file the
About box names."""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from tests.gui.conftest import GeneraliseAll

pytestmark = pytest.mark.gui

RED = "#b00020"


@pytest.fixture
def patients_csv(tmp_path, engine_io):
    rng = np.random.default_rng(3)
    n = 60
    df = pd.DataFrame({
        "patient_id": [f"P{i:04d}" for i in range(n)],
        "age": rng.integers(20, 80, n),
        "zip": rng.choice([10115, 10117, 10119, 10178], n),
        "sex": rng.choice(["f", "m"], n),
        "diagnosis": rng.choice(["flu", "asthma", "diabetes", "fracture", "migraine", "covid"], n),
    })
    path = tmp_path / "patients.csv"
    df.to_csv(path, index=False)
    return path


def _pick(window, method: str, k: int) -> None:
    pane = window.panes["Method"]
    pane.method_box.setCurrentIndex(pane.method_box.findData(method))
    pane.form.editor("k").setValue(k)
    assert pane.method() == method and pane.is_valid(), pane.errors()


def test_columns_start_without_a_role_and_the_release_verdict_is_told_apart(
        window, patients_csv, qtbot, messages, monkeypatch, tmp_path, screenshot):
    from anonstudio.gui.panes.attributes import NO_ROLE

    assert window.open_data(patients_csv, "table")
    attributes = window.panes["Attributes"]
    # the identifier-looking column is proposed identifying (dropped), every other one waits for a role
    assert attributes.role_box("patient_id").currentText() == "identifying"
    assert "proposed identifying" in attributes.cell("patient_id", "Warnings")
    for column in ("age", "zip", "sex", "diagnosis"):
        assert attributes.role_box(column).currentText() == NO_ROLE, column
        assert "needs a role" in attributes.cell(column, "Warnings")
    print(f"\nscreenshot: {screenshot(window, 'safe_defaults_opened')}")
    _pick(window, "mondrian", 3)

    # Run names the columns that still need a role; "Cancel" goes back to the Attributes pane without running
    messages.answer = QMessageBox.StandardButton.Cancel
    window.act_run.trigger()
    assert window.worker is None
    asked = messages.texts("question")[-1]
    assert all(f"'{c}'" in asked for c in ("age", "zip", "sex", "diagnosis")) and "'patient_id'" not in asked

    # the user chooses two roles in the Attributes pane and runs; the two left become quasi-identifying
    for column in ("sex", "diagnosis"):
        box = attributes.role_box(column)
        box.setCurrentIndex(box.findData("insensitive"))
    messages.answer = QMessageBox.StandardButton.Yes
    with qtbot.waitSignal(window.runFinished, timeout=60_000) as done:
        window.act_run.trigger()
        assert window.worker is not None, messages.calls
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)
    outcome = done.args[0]
    assert not isinstance(outcome, BaseException), outcome
    assert sorted(window.state.quasi_identifiers()) == ["age", "zip"]
    assert "patient_id" not in outcome.result.output.df.columns  # identifying: dropped, never published
    assert outcome.report["verification"]["passed"]

    # the model holds, but rows keep the input's order: not safe to publish — said in red everywhere
    verdict = window.state.release_verdict()
    assert verdict.model_holds and not verdict.safe_to_publish
    assert any("rows keep the input's order" in r for r in verdict.risks)
    assert "NOT safe to publish" in window.verdict_label.text() and RED in window.verdict_label.styleSheet()
    summary = window.panes["Summary"]
    assert "the model holds — NOT safe to publish" in summary.text()
    window.docks["Summary"].raise_()
    print(f"\nscreenshot: {screenshot(window, 'safe_defaults_not_safe_to_publish')}")
    assert RED in summary.card.toHtml().lower() or "176,0,32" in summary.card.toHtml().replace(" ", "")

    # Export asks in red; "Cancel" publishes nothing
    target = tmp_path / "out" / "patients-anon.csv"
    target.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    messages.answer = QMessageBox.StandardButton.Cancel
    window.act_export_data.trigger()
    asked = messages.texts("question")[-1]
    assert RED in asked and "NOT safe to publish" in asked and "rows keep the input" in asked
    assert not target.exists()
    # "Yes": published, and the confirmation with the risks accepted is in the report
    messages.answer = QMessageBox.StandardButton.Yes
    window.act_export_data.trigger()
    assert target.exists()
    report = json.loads(target.with_name("patients-anon.report.json").read_text(encoding="utf-8"))
    confirmation = report["release_confirmation"]
    assert confirmation["accepted_risks"] == verdict.risks and confirmation["confirmed_in"]

    # shuffled rows take the order risk away; with no other risk left the headline says so in green
    window.state.set_release(shuffle_rows=True)
    left = window.state.release_verdict().risks
    assert not any("rows keep the input's order" in r for r in left)
    if not left:
        assert window.state.release_verdict().safe_to_publish and "safe to publish" in window.verdict_label.text()
        assert RED not in window.verdict_label.styleSheet()


def test_the_rule_that_proposes_identifying():
    """The rule behind the proposal, without Qt: names that name a person or record, or all-distinct values."""
    from anonstudio.core.workspace._workspace import looks_like_identifier

    assert looks_like_identifier("patient_id", {"distinct": 3, "missing": 0}, 10)
    assert looks_like_identifier("PatientID", {"distinct": 3, "missing": 0}, 10)
    assert looks_like_identifier("email", {"distinct": 3, "missing": 0}, 10)
    assert looks_like_identifier("code", {"distinct": 30, "missing": 0}, 30) == "every value is distinct"
    assert looks_like_identifier("code", {"distinct": 10, "missing": 0}, 10) is None  # too few rows to say
    assert looks_like_identifier("weight", {"distinct": 30, "missing": 0, "numeric": True}, 30) is None
    assert looks_like_identifier("age", {"distinct": 40, "missing": 0}, 100) is None
    assert looks_like_identifier("native-country", {"distinct": 40, "missing": 0}, 100) is None


class Boom(GeneraliseAll):
    """A method with a bug: it raises what no user could cause."""

    name = "test-boom"
    title = "Boom (test)"

    def run(self, data, hierarchies, progress=None):
        raise RuntimeError("an internal invariant broke")


def test_an_unexpected_exception_is_a_sentence_with_details_and_is_logged(window, adult_csv, qtbot, messages,
                                                                         monkeypatch, tmp_path):
    from anonstudio.core import algorithms

    log = tmp_path / "logs" / "errors.log"
    monkeypatch.setenv("ANONSTUDIO_ERROR_LOG", str(log))
    assert window.open_data(adult_csv, "table")
    for column in ("sex", "education", "salary-class", "age"):
        window.state.set_role(column, "insensitive")
    window.state.set_role("age", "quasi-identifying")
    with algorithms.registered(Boom):
        with qtbot.waitSignal(window.runFinished, timeout=30_000) as done:
            assert window.start_run("test-boom", {"k": 2}) is not None
        qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)
    assert isinstance(done.args[0], RuntimeError)
    box = window.last_error_box
    assert box is not None and box.isVisible()
    # a sentence, not the raw exception; the log file named; the traceback behind "Show Details…"
    assert "RuntimeError" not in box.text() and "not in your data or settings" in box.text()
    assert str(log) in box.informativeText()
    assert "RuntimeError: an internal invariant broke" in box.detailedText() and "Traceback" in box.detailedText()
    assert any(b.text().startswith("Show Details") for b in box.buttons())
    assert not messages.texts("critical")  # no raw dialog besides it
    assert "RuntimeError" not in window.panes["Run"].result.text()
    logged = log.read_text(encoding="utf-8")
    assert "RuntimeError: an internal invariant broke" in logged and "The run failed" in logged
    # the About box names the file
    assert str(log) in window.about_html()
    box.close()

    # an exception escaping a slot on the GUI thread goes the same way (the application installs the hook)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    window.install_excepthook()
    try:
        raise KeyError("a slot's bug")
    except KeyError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    assert "KeyError" in window.last_error_box.detailedText() and "KeyError" not in window.last_error_box.text()
    assert log.read_text(encoding="utf-8").count("--- ") == 2
    window.last_error_box.close()
