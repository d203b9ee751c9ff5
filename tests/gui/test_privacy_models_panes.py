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


def test_a_population_model_ticked_in_the_window_is_enforced_by_kmember(window, qtbot, tmp_path, messages,
                                                                       screenshot):
    """The demo table opened, k-member chosen, δ-presence ticked with a population table typed into its field:
    the run merges the failing clusters and the Privacy pane shows the release passing δ-presence, which the
    plain k-member release of the same table breaks."""
    import numpy as np
    import pandas as pd

    from tests.gui.test_end_to_end import _pick_method, _run_and_wait

    assert window.open_demo(tmp_path / "demo")
    frame = pd.read_csv(tmp_path / "demo" / "adult-sample.csv", sep=None, engine="python", dtype=str)
    qis = window.state.quasi_identifiers()
    # the population: every person of the table, and again half of them (their share δ then 1/2 or 1)
    again = frame.iloc[np.random.default_rng(3).permutation(len(frame))[: len(frame) // 2]]
    pd.concat([frame[qis], again[qis]]).to_csv(tmp_path / "people.csv", index=False)

    _pick_method(window, "kmember", 5)
    pane = window.panes["Method"]
    editor = pane.form.editor("models")
    editor.boxes["delta-presence"].setChecked(True)
    form = editor.forms["delta-presence"]
    form.editor("delta_max").setValue(0.8)
    form.editor("population").setText(str(tmp_path / "people.csv"))
    assert pane.is_valid(), pane.errors()
    outcome = _run_and_wait(window, qtbot, messages, timeout=240_000)
    assert outcome is not None and not isinstance(outcome, BaseException), messages.calls
    assert outcome.verification.passed and "delta-presence" in outcome.verification.model
    assert any("merge(s)" in note and "δ-presence" in note for note in outcome.result.notes)
    privacy_pane = window.panes["Privacy"]
    assert privacy_pane.failing_models() == []
    window.docks["Privacy"].raise_()
    screenshot(privacy_pane, "privacy_pane_delta_presence")

    # the same release without the merges (k-member alone) breaks δ-presence: the model did the work
    plain = algorithms.get("kmember")(k=5).run(outcome.data, outcome.hierarchies)
    spec = {**outcome.model, "max_suppression": outcome.model.get("max_suppression", 0.1)}
    assert not privacy.verify_output(spec, outcome.data, plain.output, outcome.hierarchies).passed
