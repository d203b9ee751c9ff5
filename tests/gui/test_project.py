"""Project files (JSON, atomic, autosave, round trip) and job files written from the workbench."""

from __future__ import annotations

from anonstudio import __version__
import json
import tomllib

import pytest
from PySide6.QtWidgets import QMessageBox

from anonstudio.core.errors import AnonStudioError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core import workspace as proj
from anonstudio.core.workspace import Workspace
from anonstudio.gui.panes._common import verdict_text


def _state(adult_csv, sex_hierarchy_csv) -> Workspace:
    state = Workspace()
    state.set_data(proj.read_data(adult_csv, "table"), adult_csv)
    state.set_role("sex", "quasi-identifying")
    state.set_role("education", "quasi-identifying")
    state.set_role("salary-class", "sensitive")
    state.set_type("age", "ordinal")
    state.set_hierarchy("sex", proj.read_hierarchy_file(sex_hierarchy_csv, "sex"), str(sex_hierarchy_csv))
    state.set_hierarchy("education", Hierarchy("education", [["Bachelors", "Higher", "*"], ["HS-grad", "School", "*"],
                                                             ["11th", "School", "*"], ["Masters", "Higher", "*"],
                                                             ["9th", "School", "*"]]))
    state.set_method("mst", {"k": 3})
    state.last_report = {"verification": {"passed": True, "model": "k-anonymity"}, "parameters": {"k": 3}}
    return state


def _summary(state: Workspace) -> dict:
    d = state.data
    return {
        "path": str(state.data_path.resolve()),
        "kind": state.kind,
        "frame": d.df.to_dict("list"),
        "roles": {c: r.value for c, r in d.roles.items()},
        "types": {c: t.value for c, t in d.types.items()},
        "hierarchies": {a: sorted(h.to_rows()) for a, h in state.hierarchies.items()},
        "method": state.method,
        "params": state.params,
        "verdict": verdict_text(state),
    }


def test_project_round_trip_without_qt(adult_csv, sex_hierarchy_csv, tmp_path):
    state = _state(adult_csv, sex_hierarchy_csv)
    path = proj.write_project(state, tmp_path / "study.anonstudio.json")
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["format"] == "anonstudio-project"
    assert raw["data"]["path"] == "adult.csv"  # relative to the project
    assert raw["hierarchies"]["sex"]["source"] == "sex.csv"
    back = proj.read_project(path)
    assert _summary(back) == _summary(state)
    # the saved report comes back, but no output is on screen: the status bar vouches for nothing (issue 15)
    assert back.last_report == state.last_report
    assert verdict_text(back) == "the last run's output is not open: run again to verify and export"
    assert back.project_name == "study" and not back.dirty
    assert not list(tmp_path.glob(".*.part"))  # atomic: no temporary left behind


def test_broken_project_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.anonstudio.json"
    bad.write_text('{\n  "format": "anonstudio-project",\n  "data": nope\n}\n', encoding="utf-8")
    with pytest.raises(proj.ProjectError) as info:
        proj.read_project(bad)
    assert "bad.anonstudio.json" in str(info.value) and ":3" in str(info.value)
    other = tmp_path / "other.json"
    other.write_text("{}", encoding="utf-8")
    with pytest.raises(proj.ProjectError, match="not an anonstudio project"):
        proj.read_project(other)


def test_project_with_missing_data_file_names_it(adult_csv, sex_hierarchy_csv, tmp_path):
    path = proj.write_project(_state(adult_csv, sex_hierarchy_csv), tmp_path / "p.anonstudio.json")
    adult_csv.unlink()
    with pytest.raises(AnonStudioError) as info:
        proj.read_project(path)
    assert "adult.csv" in str(info.value)


@pytest.mark.gui
def test_window_project_round_trip_and_broken_project_keeps_state(window, adult_csv, sex_hierarchy_csv, tmp_path,
                                                                  settings, qtbot, messages, registered_method):
    from anonstudio.gui.main_window import MainWindow

    state = _state(adult_csv, sex_hierarchy_csv)
    state.set_method(registered_method, {"k": 3, "delay": 0.0})
    window.adopt_state(state)
    target = tmp_path / "study.anonstudio.json"
    assert window.save_project_to(target)
    assert window.windowTitle() == f"study — anonstudio {__version__}"
    saved = _summary(window.state)
    window.close()

    second = MainWindow(settings=settings)
    qtbot.addWidget(second)
    assert second.open_project(target)
    assert _summary(second.state) == saved
    assert second.windowTitle() == f"study — anonstudio {__version__}"
    assert second.panes["Data"].table_model.rowCount() == 10
    assert sorted(second.panes["Hierarchies"].attributes()) == ["education", "sex"]
    assert str(target.resolve()) == second.recent_files()[0]
    method_pane = second.panes.get("Method")
    if method_pane is not None:
        assert method_pane.method() == registered_method and method_pane.params()["k"] == 3

    broken = tmp_path / "broken.anonstudio.json"
    broken.write_text('{"format": "anonstudio-project", "data": {"path": "missing.csv", "kind": "table"}}', encoding="utf-8")
    assert not second.open_project(broken)
    [text] = messages.texts("critical")
    assert "missing.csv" in text
    assert _summary(second.state) == saved
    second.state.dirty = False
    second.close()


@pytest.mark.gui
def test_autosave_beside_project(window, adult_csv, tmp_path):
    window.open_data(adult_csv, "table")
    window.save_project_to(tmp_path / "study.anonstudio.json")
    assert window.autosave() is None  # nothing changed since saving
    window.state.set_role("sex", "quasi-identifying")
    auto = window.autosave()
    assert auto == tmp_path / "study.autosave.json"
    assert proj.read_project(auto).data.roles["sex"].value == "quasi-identifying"
    assert window.save_project()
    assert not auto.exists()  # a real save makes the autosave stale


def test_job_written_from_state_runs_unchanged(adult_csv, sex_hierarchy_csv, tmp_path, test_method, monkeypatch):
    from anonstudio.core import jobs

    state = _state(adult_csv, sex_hierarchy_csv)
    state.set_method(test_method, {"k": 2})
    job_path = tmp_path / "jobs" / "adult.toml"
    job_path.parent.mkdir()
    proj.save_job(state, job_path)
    raw = tomllib.loads(job_path.read_text(encoding="utf-8"))
    assert raw["input"]["path"] == "../adult.csv"  # outside the job's folder: relative still (issue 30: jobs travel)
    assert raw["input"]["quasi_identifiers"] == ["sex", "education"]
    assert raw["hierarchies"]["sex"] == "../sex.csv" or raw["hierarchies"]["sex"].endswith("sex.csv")
    assert raw["hierarchies"]["education"] == "adult-hierarchies/education.csv"  # hand-made: written beside
    assert raw["algorithm"] == {"name": test_method, "k": 2}
    outcome = jobs.run_job(jobs.load_job(job_path))
    assert outcome.report["verification"]["passed"]
    assert (tmp_path / "jobs" / "adult-output.csv").exists()

    assert tomllib.loads(jobs.job_to_toml(raw)) == raw

    # and the workbench opens the job again with the same settings
    back = proj.workspace_from_job(job_path)
    assert back.quasi_identifiers() == ["sex", "education"]
    assert back.method == test_method and back.params["k"] == 2
    assert sorted(back.hierarchies["education"].to_rows()) == sorted(state.hierarchies["education"].to_rows())


def test_job_needs_data_and_method():
    from anonstudio.core.errors import JobError

    with pytest.raises(JobError, match="open a data file"):
        proj.job_dict(Workspace(), "x.toml")


def test_fasta_demo_job_round_trips_through_the_workbench(repo_root, tmp_path, engine_io):
    from anonstudio.core.demo import prepare_demo
    from anonstudio.core import jobs

    demo = prepare_demo(tmp_path / "demo")
    state = proj.workspace_from_job(demo / "proteins-condensation.toml")
    assert state.kind == "fasta" and state.method == "condensation"
    saved = proj.save_job(state, demo / "again.toml")
    raw = tomllib.loads(saved.read_text(encoding="utf-8"))
    assert "hierarchies" not in raw  # strings need none: no empty section
    original = jobs.load_job(demo / "proteins-condensation.toml")
    again = jobs.load_job(saved)
    assert again.input.path == original.input.path
    assert again.input.label_pattern == original.input.label_pattern
    assert (again.algorithm, again.params) == (original.algorithm, original.params)


@pytest.mark.gui
def test_menu_opens_projects_on_a_worker_thread(window, adult_csv, sex_hierarchy_csv, tmp_path, qtbot, messages,
                                                registered_method, monkeypatch):
    import threading

    from PySide6.QtWidgets import QFileDialog

    state = _state(adult_csv, sex_hierarchy_csv)
    state.set_method(registered_method, {"k": 3, "delay": 0.0})
    window.adopt_state(state)
    target = tmp_path / "study.anonstudio.json"
    assert window.save_project_to(target)
    saved = _summary(window.state)
    window.state.set_data(window.state.data.__class__(window.state.data.df.head(3)), adult_csv)  # something else
    window.state.dirty = False

    threads = []
    real_read = proj.read_project

    def read_and_note(path, **kwargs):
        threads.append(threading.current_thread())
        return real_read(path, **kwargs)

    monkeypatch.setattr(proj, "read_project", read_and_note)
    chosen = [str(target)]
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (chosen[0], "")))
    with qtbot.waitSignal(window.projectOpened, timeout=20_000):
        window.act_open_project.trigger()
    assert threads and threads[0] is not threading.main_thread()  # the window stayed responsive meanwhile
    assert _summary(window.state) == saved and window.panes["Data"].table_model.rowCount() == 10

    # a broken project opened from the menu: one dialog naming the missing data file, the state kept
    broken = tmp_path / "broken.anonstudio.json"
    broken.write_text('{"format": "anonstudio-project", "data": {"path": "missing.csv", "kind": "table"}}',
                      encoding="utf-8")
    chosen[0] = str(broken)
    window.act_open_project.trigger()
    qtbot.waitUntil(lambda: bool(messages.calls), timeout=10_000)
    [(kind, title, text)] = messages.calls
    assert kind == "critical" and title == "Cannot open project" and "missing.csv" in text
    assert _summary(window.state) == saved


# -- issue 11 item 10: a project is validated as strictly as a job ------------------------------------------
def _project_file(tmp_path, **changes):
    import json

    (tmp_path / "data.csv").write_text("a;b\n1;x\n2;y\n", encoding="utf-8")
    raw = {"format": proj.FORMAT, "version": proj.VERSION,
           "data": {"path": "data.csv", "kind": "table", "roles": {"a": "quasi-identifying"}},
           "method": {"name": "mondrian", "params": {"k": 2}}}
    for key, value in changes.items():
        raw[key] = value
    path = tmp_path / "p.anonstudio.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"method": {"name": "mondrian", "params": {"k": float("nan")}}}, "key 'method.params.k': 'method.params.k' "
         "must be a finite number"),
        ({"method": {"name": "mondrian", "params": {"k": 1.5}}}, "parameter 'k' must be a whole number"),
        ({"method": {"name": "magic", "params": {}}}, "unknown method 'magic'"),
        ({"data": {"path": "data.csv", "kind": "spreadsheet"}}, "'data.kind' must be one of table, events, fasta"),
        ({"version": "2"}, "'version' must be a whole number"),
    ],
)
def test_a_project_is_validated_like_a_job(tmp_path, changes, fragment):
    with pytest.raises(proj.ProjectError) as info:
        proj.read_project(_project_file(tmp_path, **changes))
    assert fragment in str(info.value) and "p.anonstudio.json" in str(info.value)


def test_files_outside_the_project_folder_are_not_read_without_asking(tmp_path, window, messages):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.csv").write_text("a;b\n1;x\n2;y\n", encoding="utf-8")
    folder = tmp_path / "project"
    folder.mkdir()
    path = _project_file(folder, data={"path": "../elsewhere/secret.csv", "kind": "table"})
    with pytest.raises(proj.ProjectError) as info:
        proj.read_project(path)
    assert "secret.csv" in str(info.value) and str(outside) not in str(info.value)
    messages.answer = QMessageBox.StandardButton.Cancel
    assert not window.open_project(path)
    [question] = messages.texts("question")
    assert "secret.csv" in question and "outside its own folder" in question and str(outside) not in question
    assert window.state.data is None
    messages.answer = QMessageBox.StandardButton.Open
    assert window.open_project(path)
    assert window.state.data is not None
