"""Issue 40 items 5 and 6: the lattice view of a ``global`` run and the utility view, driven as a user drives them.

A user opens the demo's table job for ``global`` (File ▸ Open project or job…), runs it (F5), brings the Lattice
tab to the front, clicks a passing transformation that is not the optimum and presses *Publish this
transformation*: the method runs again at that transformation and the release is exported through the verified
export (risks confirmed, file chosen) — and that release verifies, re-derived from the job the workbench saves.
In the Utility tab the user chooses an attribute: the bars' heights are the records of each value before and of
each published label after. The Summary's first line names the levels chosen.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

pytestmark = pytest.mark.gui

DEMO = Path(__file__).resolve().parents[2] / "anonstudio" / "resources" / "demo"


@pytest.fixture
def demo(tmp_path) -> Path:
    out = tmp_path / "demo"
    shutil.copytree(DEMO, out, ignore=shutil.ignore_patterns("*.py", "__pycache__", "results"))
    return out


def _open_and_run(window, qtbot, monkeypatch, messages, job: Path):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(job), "")))
    with qtbot.waitSignal(window.projectOpened, timeout=60_000):
        window.act_open_project.trigger()
    qtbot.waitUntil(window.act_run.isEnabled, timeout=20_000)
    with qtbot.waitSignal(window.runFinished, timeout=180_000) as done:
        window.act_run.trigger()
        assert window.worker is not None, f"the run did not start: {messages.calls}"
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)
    outcome = done.args[0]
    assert outcome is not None and not isinstance(outcome, BaseException), (outcome, messages.calls)
    return outcome


def _raise(window, title: str):
    window.docks[title].raise_()
    for _ in range(3):
        QApplication.processEvents()
    return window.panes[title]


def test_a_passing_transformation_clicked_in_the_lattice_is_published_verified(
        window, demo, qtbot, monkeypatch, messages, screenshot, tmp_path):
    from anonstudio.core.algorithms._lattice_search import ANONYMOUS, FAILS, PASSES
    from anonstudio.core.jobs import load_job, verify_job

    outcome = _open_and_run(window, qtbot, monkeypatch, messages, demo / "table-global.toml")
    optimum = outcome.report["metrics"]["transformation"]
    pane = _raise(window, "Lattice")
    graph = pane.graph
    assert graph is not None and pane.stack.currentIndex() == 1
    assert graph.total == 360 and len(graph.nodes) == 360, graph.note  # the demo's whole lattice is drawn
    assert "360 transformations" in pane.info.text()
    # the optimum is marked, and it is the transformation the report names
    assert {a: int(v) for a, v in zip(graph.attributes, graph.levels[graph.optimum])} == optimum
    assert len(graph.edges) > 0 and set(np.unique(graph.status)) >= {PASSES, FAILS}
    shot = screenshot(window.docks["Lattice"], "lattice-view")
    assert shot.exists()

    # a failing node: Publish stays off
    failing = int(np.flatnonzero(graph.status == FAILS)[0])
    qtbot.mouseClick(pane.plot.viewport(), Qt.MouseButton.LeftButton, pos=pane.node_position(failing))
    assert pane.selected == failing, "clicking a node on screen did not select it"
    assert not pane.publish_button.isEnabled() and "fails" in pane.selection.text()

    # a passing one that is not the optimum (the one of most loss: clearly another choice)
    passing = np.flatnonzero(graph.status == PASSES)
    passing = passing[passing != graph.optimum]
    chosen = int(passing[np.nanargmax(graph.loss[passing])])
    qtbot.mouseClick(pane.plot.viewport(), Qt.MouseButton.LeftButton, pos=pane.node_position(chosen))
    assert pane.selected == chosen and pane.publish_button.isEnabled()
    levels = pane.selected_levels()
    assert levels != optimum

    target = tmp_path / "out" / "chosen.csv"
    target.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    messages.answer = QMessageBox.StandardButton.Yes  # the release risks (rows in input order …) confirmed

    # the all-root transformation is anonymous by monotonicity, never checked: publishing it runs the check,
    # which refuses it (every record suppressed, beyond max_suppression) — nothing is written
    top = int(np.flatnonzero(graph.y == graph.y.max())[0])
    assert graph.status[top] == ANONYMOUS
    pane.select(top)
    assert pane.publish_button.isEnabled()
    with qtbot.waitSignal(window.runFinished, timeout=180_000) as failed:
        qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)
    assert isinstance(failed.args[0], BaseException)
    assert any("does not meet k = 5" in t for k, _t, t in messages.calls if k == "critical"), messages.calls
    assert not list(target.parent.iterdir())
    # the lattice run's results are current again (not greyed), its parameters back: another node can be picked
    assert window.state.outcome is outcome and not window.holders["Lattice"].stale
    assert not window.panes["Method"].params().get("transformation")
    messages.calls.clear()
    pane = _raise(window, "Lattice")
    qtbot.mouseClick(pane.plot.viewport(), Qt.MouseButton.LeftButton, pos=pane.node_position(chosen))
    assert pane.selected == chosen and pane.selected_levels() == levels
    with qtbot.waitSignal(window.runFinished, timeout=180_000) as done:
        qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)
    republished = done.args[0]
    assert not isinstance(republished, BaseException) and republished is not None, messages.calls
    assert not [t for k, _t, t in messages.calls if k == "critical"], messages.calls
    # written, with a report naming the chosen transformation, verified
    assert target.exists(), messages.calls
    report = json.loads((target.parent / "chosen.report.json").read_text(encoding="utf-8"))
    assert report["metrics"]["transformation"] == levels
    assert report["parameters"]["transformation"] == levels
    assert report["verification"]["passed"]
    # the Method pane shows what was published; the lattice marks it
    assert window.panes["Method"].params()["transformation"] == levels
    pane = _raise(window, "Lattice")
    assert pane.graph is not None and pane.graph.chosen >= 0
    assert {a: int(v) for a, v in zip(pane.graph.attributes, pane.graph.levels[pane.graph.chosen])} == levels
    assert "Published:" in pane.selection.text() and "the transformation published" in pane.selection.text()
    assert screenshot(window.docks["Lattice"], "lattice-view-published").exists()
    # the written release verifies: the job the workbench saves re-derives it byte for byte
    job = tmp_path / "out" / "chosen.toml"
    assert window.save_job(job)
    verdict = verify_job(load_job(job))
    assert verdict.passed, verdict.summary()


def test_the_utility_view_draws_each_attribute_before_and_after_and_the_summary_names_the_levels(
        window, demo, qtbot, monkeypatch, messages, screenshot):
    outcome = _open_and_run(window, qtbot, monkeypatch, messages, demo / "table-global.toml")
    levels = outcome.report["metrics"]["transformation"]
    summary = _raise(window, "Summary")
    first = summary.text().splitlines()
    line = next(t for t in first if t.startswith("Generalization:"))
    heights = {a: window.state.hierarchies[a].height for a in levels}
    for a, v in levels.items():
        assert f"{a}: level {v} of {heights[a]}" in line, line
    assert first.index(line) <= 2, first[:4]  # at the top of the card

    pane = _raise(window, "Utility")
    assert pane.stack.currentIndex() == 1
    names = [pane.attribute.itemText(i) for i in range(pane.attribute.count())]
    assert names[:5] == list(outcome.data.quasi_identifiers)
    original = pd.read_csv(demo / "adult-sample.csv", sep=None, engine="python", dtype=str)
    published = outcome.result.output.df
    # a categorical attribute, generalized: the user picks it in the box
    pane.attribute.setCurrentIndex(names.index("education"))
    qtbot.waitUntil(lambda: pane.shown is not None and pane.shown.attribute == "education", timeout=5000)
    before, after = pane.bar_heights()
    labels_before, labels_after = pane.bar_labels()
    assert dict(zip(labels_before, before)) == original["education"].value_counts().to_dict()
    assert dict(zip(labels_after, after)) == published["education"].astype(str).value_counts().to_dict()
    assert "*" in labels_after and labels_after[-1] == "*"  # the suppressed records, last
    assert before.sum() == after.sum() == len(original)
    # age: a histogram of the input, the published bands after
    pane.attribute.setCurrentIndex(names.index("age"))
    qtbot.waitUntil(lambda: pane.shown.attribute == "age", timeout=5000)
    before, after = pane.bar_heights()
    edges = pane.shown.before.edges
    assert edges is not None
    assert np.array_equal(before, np.histogram(original["age"].astype(float), bins=edges)[0])
    labels_before, labels_after = pane.bar_labels()
    assert dict(zip(labels_after, after)) == published["age"].astype(str).value_counts().to_dict()
    assert labels_after[:3] == sorted(labels_after[:3])  # the bands in the hierarchy's order
    shot = screenshot(window.docks["Utility"], "utility-view")
    assert shot.exists()
