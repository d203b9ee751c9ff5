"""End to end through the workbench with the engine's real methods (issue 5).

A user's whole path per data kind: open the demo file, set roles from the column header menu, import and
build hierarchies, pick the method, run, look at every result pane, export, save the job, and check with
the command line that the export passes ``anonstudio verify`` and that ``anonstudio run`` of the saved job
writes the same bytes. Then cancelling a real run, and the GUI thread's responsiveness during a long one.
Screenshots of every pane after the real runs go to ``artifacts/screenshots/e2e_<kind>_<pane>.png``.
"""

from __future__ import annotations

from anonstudio import __version__
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QElapsedTimer, Qt, QTimer
from PySide6.QtWidgets import QDialog, QFileDialog

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "anonstudio" / "resources" / "demo"
TABLE_QIS = ["age", "workclass", "sex", "education", "occupation"]
#: imported from the demo's ARX files; age is built with the interval builder instead
IMPORTED = ["workclass", "sex", "education", "occupation"]


@pytest.fixture
def demo(tmp_path) -> Path:
    """A copy of the bundled demo folder (nothing is ever written into resources/)."""
    out = tmp_path / "demo"
    shutil.copytree(DEMO, out)
    return out


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("QT_QPA_PLATFORM", None)
    return subprocess.run([sys.executable, "-m", "anonstudio", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def _role_action(pane, column: str, role: str):
    return next(a for a in pane.column_menu(column).actions() if a.data() == ("role", role))


def _answer_file_dialogs(monkeypatch, *, save: list[Path] | None = None, open_: list[Path] | None = None) -> None:
    """Answer the next file dialogs with these paths, in order (as a user picking them would)."""
    save_q, open_q = list(save or []), list(open_ or [])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(save_q.pop(0)), "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(open_q.pop(0)), "")))


def _open_with_job_roles(window, qtbot, monkeypatch, action, data_file: Path, job: dict):
    """Open ``data_file`` with ``action`` (as picked in the file dialog) and set the job's roles from the column
    header menu, as a user would; returns the Data pane."""
    with qtbot.waitSignal(window.dataOpened, timeout=20_000):
        _answer_file_dialogs(monkeypatch, open_=[data_file])
        action.trigger()
    data = window.panes["Data"]
    for col in job["input"]["quasi_identifiers"]:
        _role_action(data, col, "quasi-identifying").trigger()
    for col in job["input"].get("sensitive", []):
        _role_action(data, col, "sensitive").trigger()
    return data


def _pick_method(window, method: str, k: int) -> None:
    """Choose ``method`` in the Method pane's box and type ``k`` into its spin box."""
    pane = window.panes["Method"]
    box = pane.method_box
    i = box.findData(method)
    assert i >= 0, f"{method} is not offered: {[box.itemData(j) for j in range(box.count())]}"
    box.setCurrentIndex(i)
    pane.form.editor("k").setValue(k)
    assert pane.method() == method and pane.params()["k"] == k and pane.is_valid(), pane.errors()


def _run_and_wait(window, qtbot, messages, timeout: int = 60_000):
    qtbot.waitUntil(window.act_run.isEnabled, timeout=10_000)  # e.g. the file reader's thread has ended
    with qtbot.waitSignal(window.runFinished, timeout=timeout) as done:
        window.act_run.trigger()
        assert window.worker is not None, f"the run did not start: {messages.calls}"
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)
    return done.args[0]


def _screens(window, screenshot, kind: str) -> dict[str, Path]:
    """Every pane (raised in its dock) and the whole window after a real run."""
    from anonstudio.gui.main_window import PANES

    shots = {}
    bottom = [t for t, spec in PANES.items() if spec[2] == Qt.DockWidgetArea.BottomDockWidgetArea]
    window.resizeDocks([window.docks[bottom[0]]], [600], Qt.Orientation.Vertical)  # room for the plots
    for title, dock in window.docks.items():
        dock.raise_()
        dock.show()
        shots[title] = screenshot(window.panes[title], f"e2e_{kind}_{title.lower().replace(' ', '_')}")
    window.resizeDocks([window.docks[bottom[0]]], [400], Qt.Orientation.Vertical)
    window.docks["Compare"].raise_()
    shots["window"] = screenshot(window, f"e2e_{kind}_window")
    return shots


# ---------------------------------------------------------------------------------------------------------
def test_table_demo_mst_end_to_end(window, settings, demo, qtbot, monkeypatch, screenshot, messages, engine_io):
    from PySide6.QtWidgets import QDialogButtonBox

    from anonstudio.gui.panes import hierarchy_editor
    from anonstudio.gui.panes._common import CHANGED

    # open the demo table
    with qtbot.waitSignal(window.dataOpened, timeout=20_000):
        _answer_file_dialogs(monkeypatch, open_=[demo / "adult-sample.csv"])
        window.act_open_table.trigger()
    data = window.panes["Data"]
    assert data.table_model.rowCount() == 2000

    # roles from the column header menu
    for col in TABLE_QIS:
        _role_action(data, col, "quasi-identifying").trigger()
    _role_action(data, "salary-class", "sensitive").trigger()
    assert sorted(window.state.quasi_identifiers()) == sorted(TABLE_QIS)
    assert data.table_model.headerData(1, Qt.Orientation.Horizontal) == "age [QI]"

    # ARX hierarchies through the editor's Import…, and age built with the interval builder
    editor = window.panes["Hierarchies"]
    assert sorted(editor.attributes()) == sorted(TABLE_QIS)
    for attr in IMPORTED:
        editor.select_attribute(attr)
        _answer_file_dialogs(monkeypatch, open_=[demo / "hierarchies" / f"adult_hierarchy_{attr}.csv"])
        editor.import_dialog()
        assert editor.status.text().startswith("Valid"), (attr, editor.status.text())

    def build(dialog):  # what the user does in the builder: intervals of 5, 10 and 20 years, OK
        dialog.tabs.setCurrentIndex(0)
        dialog.widths.setText("5, 10, 20")
        dialog.update_preview()
        assert dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled(), dialog.status.text()
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(hierarchy_editor.BuilderDialog, "exec", build)
    editor.select_attribute("age")
    editor.build_dialog()
    assert window.state.hierarchy_sources["age"] == {"intervals": [5, 10, 20]}
    assert window.state.hierarchies["age"].height == 4  # 5-, 10-, 20-wide bands, *
    assert editor.status.text().startswith("Valid")
    assert set(window.state.hierarchies) >= set(TABLE_QIS)

    # method, run
    _pick_method(window, "mst", 5)
    outcome = _run_and_wait(window, qtbot, messages)
    assert outcome is window.state.outcome and outcome.report["verification"]["passed"]
    assert window.verdict_label.text() == "k-anonymous, k = 5, verified"
    out = outcome.result.output.df

    # Compare: original and anonymized side by side, changed cells highlighted
    compare = window.panes["Compare"]
    left, right = compare.left_model, compare.right_model
    assert left.rowCount() == right.rowCount() == 2000
    age = list(out.columns).index("age")
    orig = outcome.data.df
    row = int(np.flatnonzero(out["age"].to_numpy() != orig["age"].to_numpy())[0])
    assert right.data(right.index(row, age)) == out["age"].iloc[row] != left.data(left.index(row, age))
    assert right.data(right.index(row, age), Qt.ItemDataRole.BackgroundRole).color().name() == CHANGED.name()
    race = list(out.columns).index("race")  # not a quasi-identifier: never changed, never highlighted
    assert right.data(right.index(row, race), Qt.ItemDataRole.BackgroundRole) is None
    assert "cells changed" in compare.summary.text()

    # MST partition: the records as points, removed edges dashed
    mst = window.panes["MST partition"]
    details = outcome.result.details
    assert mst.point_count() > 0
    assert mst.removed_edge_count() > 0 and mst.removed_item.opts["pen"].style() == Qt.PenStyle.DashLine
    assert mst.kept_edge_count() + mst.removed_edge_count() <= len(details["mst_edges"])

    # Metrics: GCP of this run; Privacy: the verdict
    metrics = window.panes["Metrics"]
    gcp = outcome.report["metrics"]["GCP"]
    assert 0 < gcp < 1 and metrics.report_row("metrics", "GCP") not in (None, "")
    assert metrics.report_row("verification", "passed") == "yes"
    privacy = window.panes["Privacy"]
    assert privacy.verdict_passed() is True and "Verified" in privacy.verdict.text()
    metrics_gcp = metrics.report_row("metrics", "GCP")

    # a sweep over k with the same real method: one point per k in the Metrics pane
    with qtbot.waitSignal(window.sweepFinished, timeout=60_000) as swept:
        window.start_sweep([{"k": k} for k in (2, 5, 10, 20)])
    rows = swept.args[0]
    assert [r["k"] for r in rows] == [2, 5, 10, 20] and all(r.get("verified") for r in rows), rows
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)
    metrics.set_metric("GCP")
    assert metrics.curves["mst"].xData.tolist() == [2, 5, 10, 20]
    assert metrics.curves["mst"].yData[-1] >= metrics.curves["mst"].yData[0]  # larger k, more generalization
    editor.tree.expandToDepth(1)

    _screens(window, screenshot, "table")

    # export data + report, save the job beside them (file dialogs answered as a user would)
    exported, report, job = demo / "study-output.csv", demo / "study-output.report.json", demo / "study.toml"
    _answer_file_dialogs(monkeypatch, save=[exported, report, job])
    window.act_export_data.trigger()
    window.act_export_report.trigger()
    window.act_save_job.trigger()
    assert exported.exists() and report.exists() and job.exists()
    assert '"passed": true' in report.read_text(encoding="utf-8")
    text = job.read_text(encoding="utf-8")
    assert 'name = "mst"' in text and "intervals" in text and "adult_hierarchy_education.csv" in text

    checked = _cli("verify", job, cwd=demo)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    gui_bytes = exported.read_bytes()
    exported.unlink()
    ran = _cli("run", job, cwd=demo)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert exported.read_bytes() == gui_bytes  # the saved job reproduces the GUI's output exactly

    # the project round-trips: save, close the window, open it in a new one, the same state
    project = demo / "study.anonstudio.json"
    _answer_file_dialogs(monkeypatch, save=[project])
    window.act_save_as.trigger()
    before = _snapshot(window.state)
    assert window.close()
    from anonstudio.gui.main_window import MainWindow

    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    again.show()
    _answer_file_dialogs(monkeypatch, open_=[project])
    with qtbot.waitSignal(again.projectOpened, timeout=20_000):  # read on a worker thread
        again.act_open_project.trigger()
    assert _snapshot(again.state) == before
    assert again.panes["Method"].method() == "mst" and again.panes["Method"].params()["k"] == 5
    assert again.panes["Metrics"].report_row("metrics", "GCP") == metrics_gcp
    assert again.windowTitle() == f"study — anonstudio {__version__}"
    again.runner.shutdown()


def _snapshot(state) -> dict:
    """What a user set up in the workbench (and the last run's report), comparable across windows."""
    return {
        "data": (str(state.data_path), state.kind, state.data.df.shape),
        "roles": {c: state.role(c).value for c in state.data.df.columns},
        "types": {c: state.attr_type(c).value for c in state.data.df.columns},
        "hierarchies": {a: sorted(map(tuple, h.to_rows())) for a, h in state.hierarchies.items()},
        "sources": {a: str(v) for a, v in state.hierarchy_sources.items()},
        "method": (state.method, dict(state.params)),
        "report": state.last_report["metrics"] if state.last_report else None,
    }


def test_fasta_demo_condensation_end_to_end(window, demo, qtbot, monkeypatch, screenshot, messages, engine_io):
    from anonstudio.gui.panes._results import composition

    with qtbot.waitSignal(window.dataOpened, timeout=20_000):
        _answer_file_dialogs(monkeypatch, open_=[demo / "proteins.fasta"])
        window.act_open_fasta.trigger()
    assert window.state.kind == "fasta" and len(window.state.data) == 300
    _pick_method(window, "condensation", 10)
    outcome = _run_and_wait(window, qtbot, messages)
    assert outcome is window.state.outcome and outcome.report["verification"]["passed"], outcome.report
    pseudo = outcome.result.output

    # Composition: original vs pseudo bars, CD in the title
    comp = window.panes["Composition"]
    expected = composition(outcome.data, pseudo)
    assert np.allclose(comp.original_bars.opts["height"], expected.f)
    assert np.allclose(comp.pseudo_bars.opts["height"], expected.f_pseudo)
    assert f"CD = {expected.cd:.4f}" in comp.title_text()

    # Compare: strings side by side; a string aligned with a pseudo-string of its group
    compare = window.panes["Compare"]
    assert compare.mode == "fasta"
    assert compare.left_model.rowCount() == 300 and compare.right_model.rowCount() == len(pseudo)
    compare.select_record(0)
    mates = compare.right_model.highlighted_rows()
    assert len(mates)
    row_a, _row_b = compare.align(0, int(mates[0]))
    assert "".join(x for x in row_a if x != "-") == outcome.data.sequence(0)
    assert outcome.data.ids[0][:18] in compare.alignment.toPlainText()

    # Privacy: the verdict and the shared-fragment figures
    privacy = window.panes["Privacy"]
    assert privacy.verdict_passed() is True
    assert privacy.leak_box.isVisibleTo(privacy)
    figures = {privacy.leaks.item(r, 0).text(): privacy.leaks.item(r, 1).text() for r in range(privacy.leaks.rowCount())}
    leak = outcome.report["metrics"]["longest_shared_substring"]
    assert figures["longest fragment shared with an input, max"] == str(leak["pseudo_max"])
    assert figures["pseudo-strings equal to an input (must be 0)"] == "0"
    assert window.panes["MST partition"].stack.currentIndex() == 0  # no tree for condensation: says so

    _screens(window, screenshot, "fasta")

    exported, job = demo / "proteins-k10.fasta", demo / "proteins-k10.toml"
    _answer_file_dialogs(monkeypatch, save=[exported, job])
    window.act_export_data.trigger()
    window.act_save_job.trigger()
    assert exported.read_text(encoding="utf-8").startswith(">pseudo_1 ")
    # the job's output is where the user exported to
    text = job.read_text(encoding="utf-8").replace('"proteins-k10-output.fasta"', '"proteins-k10.fasta"')
    job.write_text(text, encoding="utf-8")
    checked = _cli("verify", job, cwd=demo)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _type_param(pane, name: str, value) -> None:
    """Enter ``value`` in the Method pane's editor for parameter ``name``, as typed by a user."""
    from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox

    editor = pane.form.editor(name)
    if isinstance(editor, (QSpinBox, QDoubleSpinBox)):
        editor.setValue(value)
    elif isinstance(editor, QCheckBox):
        editor.setChecked(bool(value))
    elif isinstance(editor, QComboBox):
        editor.setCurrentText(str(value))
    elif isinstance(editor, QLineEdit):
        editor.setText(", ".join(map(str, value)) if isinstance(value, list) else str(value))
    else:
        raise AssertionError(f"no way to type into {type(editor).__name__} for {name}")


def test_events_demo_cbmsa_end_to_end(window, demo, qtbot, monkeypatch, screenshot, messages, engine_io):
    """The event-sequence demo with its job's settings, entered through the panes (runs once cbmsa lands)."""
    import tomllib

    from anonstudio.gui.dialogs import EventColumnsDialog

    job = tomllib.loads((demo / "events-cbmsa.toml").read_text(encoding="utf-8"))
    monkeypatch.setattr(EventColumnsDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    _open_with_job_roles(window, qtbot, monkeypatch, window.act_open_events, demo / "events.csv", job)
    editor = window.panes["Hierarchies"]
    for attr, rel in job["hierarchies"].items():
        editor.select_attribute(attr)
        _answer_file_dialogs(monkeypatch, open_=[demo / rel])
        editor.import_dialog()
        assert editor.status.text().startswith("Valid"), (attr, editor.status.text())
    params = {k: v for k, v in job["algorithm"].items() if k != "name"}
    _pick_method(window, "cbmsa", params.pop("k"))
    # the highly-sensitive values are picked from the sensitive column's values, as a user would
    field = window.panes["Method"].form.field("highly_sensitive")
    assert set(params.pop("highly_sensitive")) <= set(field.choices())
    for action in field.picker.menu().actions():
        action.setChecked(action.text() in job["algorithm"]["highly_sensitive"])
    for name, value in params.items():
        _type_param(window.panes["Method"], name, value)
    assert window.panes["Method"].params()["highly_sensitive"] == job["algorithm"]["highly_sensitive"]
    outcome = _run_and_wait(window, qtbot, messages)
    assert outcome is window.state.outcome and outcome.report["verification"]["passed"], outcome.report
    compare = window.panes["Compare"]
    assert compare.mode == "events" and compare.left_model.rowCount() > 0
    assert window.panes["Privacy"].verdict_passed() is True
    clusters = window.panes["Clusters"]  # the method's own result view, brought to the front
    assert not window.docks["Clusters"].visibleRegion().isEmpty()
    assert clusters.table.rowCount() == outcome.report["metrics"]["clusters"] > 0
    assert clusters.members.rowCount() > 0
    screenshot(window.docks["Clusters"], "events_clusters_dock")
    _screens(window, screenshot, "events")
    exported, saved = demo / "events-k5.csv", demo / "events-k5.toml"
    _answer_file_dialogs(monkeypatch, save=[exported, saved])
    window.act_export_data.trigger()
    window.act_save_job.trigger()
    text = saved.read_text(encoding="utf-8").replace('"events-k5-output.csv"', '"events-k5.csv"')
    saved.write_text(text, encoding="utf-8")
    checked = _cli("verify", saved, cwd=demo)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_bad_file_shows_the_error_dialog_and_keeps_the_data(window, demo, qtbot, monkeypatch, messages, engine_io):
    with qtbot.waitSignal(window.dataOpened, timeout=20_000):
        _answer_file_dialogs(monkeypatch, open_=[demo / "adult-sample.csv"])
        window.act_open_table.trigger()
    bad = demo / "broken.csv"
    lines = (demo / "adult-sample.csv").read_text(encoding="utf-8").splitlines()
    lines[41] = lines[41].rsplit(";", 2)[0]  # line 42 lacks two cells
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _answer_file_dialogs(monkeypatch, open_=[bad])
    window.act_open_table.trigger()
    qtbot.waitUntil(lambda: bool(messages.texts("critical")), timeout=20_000)
    [text] = messages.texts("critical")
    assert "broken.csv" in text and "42" in text, text
    assert window.state.data_path.name == "adult-sample.csv" and window.panes["Data"].table_model.rowCount() == 2000
    qtbot.waitUntil(window.act_run.isEnabled, timeout=10_000)


# ---------------------------------------------------------------------------------------------------------
def _big_table(window, tmp_path, rows: int) -> None:
    """A generated Adult-like table of ``rows`` rows, opened with its QIs and hierarchies."""
    from anonstudio.core.generate import adult_hierarchies, adult_like_table

    path = tmp_path / f"adult-{rows}.csv"
    adult_like_table(rows, 7).to_csv(path, sep=";", index=False)
    assert window.open_data(path, "table")
    data = window.panes["Data"]
    for col in TABLE_QIS:
        _role_action(data, col, "quasi-identifying").trigger()
    for attr, h in adult_hierarchies(TABLE_QIS).items():
        window.panes["Hierarchies"].set_hierarchy(attr, h, None)


def test_cancel_a_real_run_leaves_no_output_and_the_window_usable(window, tmp_path, qtbot, messages, engine_io):
    _big_table(window, tmp_path, 20_000)
    _pick_method(window, "kmember", 5)
    with qtbot.waitSignal(window.runFinished, timeout=120_000) as done:
        window.act_run.trigger()
        assert window.act_cancel.isEnabled() and not window.act_run.isEnabled()
        qtbot.waitUntil(lambda: window.panes["Run"].bar.value() > 0, timeout=60_000)  # it is under way
        window.act_cancel.trigger()
    assert done.args == [None]  # finished with no outcome: cancelled, not run to its end
    assert window.state.outcome is None
    assert window.panes["Run"].message.text() == "Cancelled" or "Cancelled" in window.panes["Run"].result.text()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)
    assert not window.act_export_data.isEnabled()
    assert window.panes["Compare"].stack.currentIndex() == 0  # nothing shown
    assert not any(p.name.startswith("adult-20000-output") for p in tmp_path.iterdir())
    # the window still works: a smaller run on the same settings succeeds
    _big_table(window, tmp_path, 600)
    outcome = _run_and_wait(window, qtbot, messages)
    assert outcome.report["verification"]["passed"] and window.act_export_data.isEnabled()


class TickRecorder:
    """A 20 ms timer on the GUI thread; the largest gap between two of its ticks is how long the GUI froze."""

    def __init__(self, interval_ms: int = 20) -> None:
        self.clock = QElapsedTimer()
        self.stamps: list[int] = []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.tick)

    def tick(self) -> None:
        self.stamps.append(self.clock.nsecsElapsed())

    def start(self) -> None:
        self.clock.start()
        self.timer.start()
        self.tick()

    def stop(self) -> None:
        self.tick()
        self.timer.stop()

    def gaps_ms(self) -> np.ndarray:
        return np.diff(np.asarray(self.stamps, dtype=np.int64)) / 1e6


@pytest.mark.slow
def test_gui_thread_stays_responsive_during_a_long_real_run(window, tmp_path, qtbot, messages, engine_io):
    _big_table(window, tmp_path, 50_000)  # k-member on both cores: 22,000 rows now take under 2 s
    _pick_method(window, "kmember", 5)
    from anonstudio.gui.workers import preload_engine

    window.docks["Compare"].raise_()
    qtbot.waitUntil(lambda: not preload_engine().is_alive(), timeout=20_000)  # started when the window showed
    qtbot.waitUntil(window.act_run.isEnabled, timeout=10_000)
    qtbot.wait(300)  # the table just opened is laid out and painted before the clock starts
    ticks = TickRecorder(20)
    ticks.start()
    outcome = _run_and_wait(window, qtbot, messages, timeout=120_000)
    finished_ns = ticks.clock.nsecsElapsed()
    qtbot.wait(300)  # the result panes paint
    ticks.stop()
    gaps = ticks.gaps_ms()
    total_s = (ticks.stamps[-1] - ticks.stamps[0]) / 1e9
    at = [f"{ticks.stamps[i] / 1e9:.2f} s" for i in np.argsort(gaps)[-3:][::-1]]
    print(f"\nworst gaps start at {at}; runFinished at {finished_ns / 1e9:.2f} s")
    assert outcome is not None and not isinstance(outcome, BaseException), outcome
    assert outcome.report["verification"]["passed"]
    # the figure is printed; the 100 ms target is checked on demand by tests/benchmarks/bench_gui_responsiveness.py
    # (the suite asserts no wall-clock limit: a shared machine stretches any of them)
    print(f"\nresponsiveness: {len(gaps)} ticks over {total_s:.1f} s, max gap {gaps.max():.1f} ms, "
          f"median {np.median(gaps):.1f} ms")
    assert len(gaps) > 10  # the event loop ran all through the run (a frozen loop records no ticks)


def test_views_prepared_on_the_worker_are_what_the_panes_would_compute():
    """``prepare_views`` (run on the worker thread) keeps exactly the views the panes ask for."""
    from anonstudio.gui.panes import _results as R
    from anonstudio.gui.panes import _samples

    outcome = _samples.table_outcome(k=3, n=90)
    original, output = outcome.data.df, outcome.result.output.df
    fresh = (R.equivalence_classes(outcome), R.changed_mask(original, output), R.frame_text(output))
    assert R.equivalence_classes(outcome) is not fresh[0]  # not prepared: computed afresh each time
    R.prepare_views(outcome)
    kept = (R.equivalence_classes(outcome), R.changed_mask(original, output), R.frame_text(output))
    assert R.equivalence_classes(outcome) is kept[0] and R.mst_view(outcome) is R.mst_view(outcome)
    for a, b in zip(fresh, kept):
        assert np.array_equal(a, b)
    key = ("equivalence_classes", id(outcome))
    assert key in R._VIEWS
    del outcome, kept
    import gc

    gc.collect()
    assert key not in R._VIEWS  # forgotten with the outcome


def test_gui_command_shows_the_window_and_reports_the_startup_time(tmp_path):
    """The hook the startup benchmark uses: ``anonstudio gui`` prints when its window was shown and quits."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen", ANONSTUDIO_EXIT_AFTER_SHOW="1",
               HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "anonstudio", "gui"], env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    shown = float(proc.stdout.split("shown after ")[1].split()[0])
    assert shown > 0, proc.stdout  # the time itself is tests/benchmarks/bench_gui_startup.py's


def test_table_demo_ra_and_anatomy_end_to_end(window, demo, qtbot, monkeypatch, screenshot, messages, engine_io):
    """Paper 001's methods from the window: the demo table with the RA job's roles, ra run and its
    Randomization view raised; then Anatomy, its two tables exported and verified by the command line."""
    import tomllib

    job = tomllib.loads((demo / "table-ra.toml").read_text(encoding="utf-8"))
    _open_with_job_roles(window, qtbot, monkeypatch, window.act_open_table, demo / "adult-sample.csv", job)
    pane = window.panes["Method"]
    pane.method_box.setCurrentIndex(pane.method_box.findData("ra"))
    _type_param(pane, "weights", "entropy")
    assert pane.method() == "ra" and pane.is_valid(), pane.errors()
    hier = window.panes["Hierarchies"]  # no red "has no hierarchy" for a method that generalizes nothing
    hier.select_attribute("sex")
    assert "ra needs none" in hier.status.text() and hier.status.styleSheet() == "", hier.status.text()
    outcome = _run_and_wait(window, qtbot, messages)
    assert outcome.report["verification"]["passed"], outcome.report
    ra = window.panes["Randomization"]
    assert not window.docks["Randomization"].visibleRegion().isEmpty()  # the method's own view, in front
    assert ra.table.rowCount() == 8 and ra.bias_table.rowCount() == 40
    assert sum(int(ra.table.item(r, 3).text().replace(",", "")) for r in range(8)) == 2000
    assert len(ra.marginal_heights()[0]) > 1
    screenshot(window, "e2e_ra_window")

    pane.method_box.setCurrentIndex(pane.method_box.findData("anatomy"))
    _type_param(pane, "l", 5)
    outcome = _run_and_wait(window, qtbot, messages)
    assert outcome.report["verification"]["passed"], outcome.report
    anatomy = window.panes["Anatomy"]
    assert not window.docks["Anatomy"].visibleRegion().isEmpty()
    groups = outcome.result.side_outputs["sensitive"]["group"].nunique()
    assert anatomy.groups.rowCount() == groups > 0 and anatomy.qit_model.rowCount() >= 5
    assert ra.stack.currentIndex() == 0  # the RA view no longer shows a stale run
    screenshot(window, "e2e_anatomy_window")

    exported, saved = demo / "adult-anatomy.csv", demo / "adult-anatomy.toml"
    _answer_file_dialogs(monkeypatch, save=[exported, saved])
    window.act_export_data.trigger()
    window.act_save_job.trigger()
    assert exported.exists() and (demo / "adult-anatomy.sensitive.csv").exists(), sorted(p.name for p in demo.iterdir())
    text = saved.read_text(encoding="utf-8").replace('"adult-anatomy-output.csv"', '"adult-anatomy.csv"')
    saved.write_text(text, encoding="utf-8")
    checked = _cli("verify", saved, cwd=demo)
    assert checked.returncode == 0, checked.stdout + checked.stderr
