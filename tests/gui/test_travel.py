"""Issue 30 item 5, driven as a user would: "Save job…" writes paths relative to the job file (also for data in
another folder) and the output path the release was just exported to; the job runs from a copy of the whole tree
elsewhere; a reopened project shows its last release re-verified, with Export on; files this user chose before
raise no trust question, while another user opening the same project is asked."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

pytestmark = pytest.mark.gui


def _run(window, qtbot, messages):
    messages.answer = QMessageBox.StandardButton.Yes
    with qtbot.waitSignal(window.runFinished, timeout=120_000) as done:
        window.act_run.trigger()
        assert window.worker is not None, messages.calls
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)
    assert not isinstance(done.args[0], BaseException), done.args[0]
    return done.args[0]


def test_jobs_and_projects_travel(window, qtbot, settings, messages, monkeypatch, tmp_path, engine_io):
    from anonstudio.gui.main_window import MainWindow

    tree = tmp_path / "study"
    (tree / "data").mkdir(parents=True)
    (tree / "out").mkdir()
    (tree / "jobs").mkdir()
    (tree / "projects").mkdir()
    rng = np.random.default_rng(5)
    n = 80
    pd.DataFrame({"age": rng.integers(20, 80, n), "zip": rng.choice([10115, 10117, 10119], n),
                  "sex": rng.choice(["f", "m"], n)}).to_csv(tree / "data" / "people.csv", index=False)

    # open, choose roles and a method, shuffle with a kept seed, run
    assert window.open_data(tree / "data" / "people.csv", "table")
    attributes = window.panes["Attributes"]
    for column, role in (("age", "quasi-identifying"), ("zip", "quasi-identifying"), ("sex", "insensitive")):
        box = attributes.role_box(column)
        box.setCurrentIndex(box.findData(role))
    pane = window.panes["Method"]
    pane.method_box.setCurrentIndex(pane.method_box.findData("mondrian"))
    pane.form.editor("k").setValue(4)
    window.state.set_release(shuffle_rows=True)  # the order drawn from the release key (issue 39)
    _run(window, qtbot, messages)

    # Export (answering the dialogs), then Save job…: relative paths, the output just exported
    exported = tree / "out" / "people-anon.csv"
    answers = [str(exported), str(tree / "jobs" / "people.toml")]
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (answers.pop(0), "")))
    messages.answer = QMessageBox.StandardButton.Yes  # confirm the release risks, if any are left
    window.act_export_data.trigger()
    assert exported.exists()
    window.act_save_job.trigger()
    job = tomllib.loads((tree / "jobs" / "people.toml").read_text(encoding="utf-8"))
    assert job["input"]["path"] == "../data/people.csv"
    assert job["output"]["path"] == "../out/people-anon.csv"
    assert job["output"]["report"] == "../out/people-anon.report.json"

    # the tree moved elsewhere: the job still runs, from any working folder
    moved = tmp_path / "elsewhere" / "study"
    shutil.copytree(tree, moved)
    (moved / "out" / "people-anon.csv").unlink()
    (moved / "out" / "people-anon.report.json").unlink()
    done = subprocess.run([sys.executable, "-m", "anonstudio", "run", str(moved / "jobs" / "people.toml")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (moved / "out" / "people-anon.csv").exists()

    # save the project in its own folder (the data beside it, not below), reopen it in a new window
    project = tree / "projects" / "people.anonstudio.json"
    assert window.save_project_to(project)
    before = len(messages.texts("question"))
    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    again.show()
    assert again.open_project(project)
    assert len(messages.texts("question")) == before  # files this user chose: no trust question
    assert again.state.outcome is not None and again.state.outcome_is_current()
    assert any("re-verified" in note for note in again.state.outcome.report["notes"])
    assert again.act_export_data.isEnabled()
    assert "verified" in again.verdict_label.text()
    summary = again.panes["Summary"].text()
    assert "verified" in summary and "Counts" in summary
    # export from the reopened project publishes the re-verified release again
    messages.answer = QMessageBox.StandardButton.Yes
    again_out = tree / "out" / "again.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(again_out), "")))
    again.act_export_data.trigger()
    assert again_out.exists()
    again.state.dirty = False
    again.runner.shutdown()

    # another user (other settings) opening the same project is asked about the files outside its folder
    stranger = MainWindow(settings=QSettings(str(tmp_path / "stranger.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(stranger)
    messages.answer = QMessageBox.StandardButton.Cancel
    assert not stranger.open_project(project)
    assert "Open them only if you trust" in messages.texts("question")[-1]
    assert "people.csv" in messages.texts("question")[-1]
    stranger.state.dirty = False

    # a project whose files lie below its folder asks nobody
    below = tmp_path / "below"
    (below / "data").mkdir(parents=True)
    shutil.copy(tree / "data" / "people.csv", below / "data" / "people.csv")
    window.open_data(below / "data" / "people.csv", "table")
    assert window.save_project_to(below / "people.anonstudio.json")
    asked = len(messages.texts("question"))
    fresh = MainWindow(settings=QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(fresh)
    assert fresh.open_project(below / "people.anonstudio.json")
    assert len(messages.texts("question")) == asked
    fresh.state.dirty = False
