"""Issue 32 item 5: the privacy models a method enforces appear in its form, each with the parameters the model
declares (nothing listed twice), a run enforces what is ticked, and the Privacy pane names which model each
failing class breaks."""

from __future__ import annotations

import pytest

from anonstudio.core import algorithms, privacy
from anonstudio.core.data import Table
from anonstudio.core.generate import adult_hierarchies, adult_like_table
from anonstudio.core.jobs import Outcome
from anonstudio.gui.panes.parameters import ModelsEditor, ParametersPane
from anonstudio.gui.panes.privacy import PrivacyPane


@pytest.fixture
def pane(qtbot):
    p = ParametersPane()
    qtbot.addWidget(p)
    p.set_kind("table")
    return p


@pytest.mark.parametrize("method", ["mondrian", "global", "kmember", "mst", "local"])
def test_each_enforced_model_has_a_box_with_its_declared_parameters(pane, method):
    cls = algorithms.get(method)
    pane.set_values(method, {})
    editor = pane.form.editor("models")
    assert isinstance(editor, ModelsEditor)
    assert list(editor.boxes) == list(cls.enforced_models)
    for name, box in editor.boxes.items():
        model = privacy.MODELS[name]
        assert box.title() == model.label() and not box.isChecked()
        assert list(editor.forms[name].parameters.names()) == model.parameters.names()  # declared once, by the model
    assert "models" not in pane.params()  # nothing ticked: no extra model


def test_ticking_a_model_sets_the_job_value_and_bad_entries_block_run(pane, qtbot):
    pane.set_values("mondrian", {"k": 5})
    editor = pane.form.editor("models")
    editor.boxes["t-closeness"].setChecked(True)
    form = editor.forms["t-closeness"]
    form.editor("distance").setCurrentText("hierarchical")
    assert pane.params()["models"] == {"t-closeness": {"t": 0.2, "distance": "hierarchical"}}
    assert pane.is_valid()
    form.editor("t").setValue(1.5)  # t outside [0, 1]
    assert not pane.is_valid()
    assert "t-closeness" in pane.form.field("models").message and "≤ 1" in pane.form.field("models").message
    form.editor("t").setValue(0.3)
    assert pane.is_valid()
    # set_values round-trips what a saved job holds
    pane.set_values("mondrian", {"k": 5, "models": {"beta-likeness": {"beta": 2.0, "kind": "enhanced"}}})
    editor = pane.form.editor("models")
    assert editor.boxes["beta-likeness"].isChecked() and not editor.boxes["t-closeness"].isChecked()
    assert pane.params()["models"] == {"beta-likeness": {"beta": 2.0, "kind": "enhanced"}}


def test_global_refuses_delta_min_above_delta_max_in_the_form(pane):
    pane.set_values("global", {"k": 2})
    editor = pane.form.editor("models")
    editor.boxes["delta-presence"].setChecked(True)
    editor.forms["delta-presence"].editor("delta_min").setValue(0.9)
    editor.forms["delta-presence"].editor("delta_max").setValue(0.2)
    assert not pane.is_valid()
    assert "delta_min ≤ delta_max" in pane.form.field("models").message


def _outcome(models: dict):
    """A plain Mondrian k = 3 release of a generated table, judged under ``models`` it was not made for."""
    frame = adult_like_table(400, seed=5)
    qis = ["age", "sex", "race"]
    hs = {q: h for q, h in adult_hierarchies().items() if q in qis}
    table = Table(frame).with_roles(qis, sensitive=["salary-class"])
    alg = algorithms.get("mondrian")(k=3, max_suppression=0.0)  # no budget: the verifier below allows none
    result = alg.run(table, hs)
    spec = {**alg.privacy_model(), "max_suppression": 0.0, "models": [{"name": n, **p} for n, p in models.items()]}
    verification = privacy.verify_output(spec, table, result.output, hs)
    report = {"parameters": {"name": "mondrian", "k": 3}, "verification": verification.as_dict(), "warnings": []}
    return Outcome(result, verification, report, table, hs, model=spec), verification


def test_the_privacy_pane_names_the_model_each_failing_class_breaks(qtbot):
    outcome, verification = _outcome({"t-closeness": {"t": 0.05}, "alpha-k-anonymity": {"alpha": 0.6, "k": 3}})
    assert not verification.passed
    pane = PrivacyPane()
    qtbot.addWidget(pane)
    pane.show_outcome(outcome)
    listed = pane.failing_models()
    assert {m for m, _ in listed} == {"t-closeness", "(α,k)-anonymity"}
    assert pane.failure_box.isVisibleTo(pane)
    # each listed row is the first record of a class that breaks that model, as the verifier says
    frame = outcome.result.output.df
    for model, row in listed:
        name = {"t-closeness": "t-closeness", "(α,k)-anonymity": "alpha-k-anonymity"}[model]
        assert any(f"row {row}:" in p and f"which {model} does not allow" in p for p in verification.problems)
        assert 1 <= int(row) <= len(frame)
        assert name in verification.model


def test_a_release_that_keeps_its_models_lists_no_failing_class(qtbot):
    outcome, verification = _outcome({"t-closeness": {"t": 1.0}})
    assert verification.passed
    pane = PrivacyPane()
    qtbot.addWidget(pane)
    pane.show_outcome(outcome)
    assert pane.failing_models() == [] and not pane.failure_box.isVisibleTo(pane)
