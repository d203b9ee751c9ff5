"""The workbench window: opening data, roles from the header menu, errors, title, runs, cancel."""

from __future__ import annotations

from pathlib import Path

from anonstudio import __version__
import pytest
from PySide6.QtWidgets import QMessageBox

from anonstudio.core.data import Role

pytestmark = pytest.mark.gui


def _role_action(menu, role: str):
    return next(a for a in menu.actions() if a.data() == ("role", role))


def _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv):
    assert window.open_data(adult_csv, "table")
    pane = window.panes["Data"]
    _role_action(pane.column_menu("sex"), "quasi-identifying").trigger()
    _role_action(pane.column_menu("salary-class"), "sensitive").trigger()
    assert window.panes["Hierarchies"].import_file(sex_hierarchy_csv, "sex")


def test_window_opens_with_named_docks_and_menus(window, screenshot):
    assert list(window.docks) == [
        "Data", "Hierarchies", "Attributes", "Method", "Run", "Summary", "Compare", "Composition", "MST partition", "Clusters",
        "Randomization", "Anatomy", "Metrics", "Privacy", "Risk", "Lattice", "Utility", "History",
    ]
    view_actions = [a.text() for a in window.view_menu.actions() if a.text()]
    assert view_actions[:len(window.docks)] == list(window.docks)  # every pane can be shown and hidden
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert menus == ["File", "Run", "View", "Help"]
    assert window.windowTitle() == f"untitled — anonstudio {__version__}"
    assert not window.act_run.isEnabled()  # nothing to run without data
    assert window.act_run.shortcut().toString() == "F5"
    screenshot(window, "main_window_empty")


def test_open_table_shows_rows_and_columns(window, adult_csv, screenshot):
    assert window.open_data(adult_csv, "table")
    pane = window.panes["Data"]
    assert pane.stack.currentWidget() is pane.table_view
    assert pane.table_model.rowCount() == 10
    assert pane.table_model.columnCount() == 4
    assert pane.table_model.index(3, 2).data() == "11th"
    assert window.size_label.text() == "10 rows × 4 columns"
    assert "adult.csv" in pane.summary.text()
    assert window.act_run.isEnabled()
    assert str(adult_csv.resolve()) == window.recent_files()[0]
    assert window.windowTitle().startswith("untitled*")
    screenshot(window, "main_window_table")


def test_header_menu_sets_role_and_type(window, adult_csv, screenshot):
    window.open_data(adult_csv, "table")
    pane = window.panes["Data"]
    menu = pane.column_menu("age")
    _role_action(menu, "quasi-identifying").trigger()
    assert window.state.role("age") is Role.QUASI
    assert pane.table_model.headerData(0, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.Orientation.Horizontal) == "age [QI]"
    # the new quasi-identifier gets a (still empty) tree in the hierarchy editor
    editor = window.panes["Hierarchies"]
    assert editor.attributes() == ["age"]
    type_menu = next(a.menu() for a in pane.column_menu("age").actions() if a.menu() is not None)
    next(a for a in type_menu.actions() if a.data() == ("type", "ordinal")).trigger()
    assert window.state.attr_type("age").value == "ordinal"
    _role_action(pane.column_menu("age"), "insensitive").trigger()
    assert window.state.quasi_identifiers() == []
    _role_action(pane.column_menu("salary-class"), "sensitive").trigger()
    assert window.state.data.sensitive == ["salary-class"]
    screenshot(pane, "data_pane_roles")


def test_broken_data_file_shows_error_and_keeps_previous_data(window, adult_csv, tmp_path, messages):
    window.open_data(adult_csv, "table")
    before = window.state.data
    bad = tmp_path / "broken.csv"
    bad.write_text("a;b;c\n1;2;3\n4;5\n", encoding="utf-8")
    assert not window.open_data(bad, "table")
    assert window.state.data is before
    assert window.panes["Data"].table_model.rowCount() == 10
    [text] = messages.texts("critical")
    assert "broken.csv" in text and "3" in text  # which file, which line
    from PySide6.QtWidgets import QApplication

    assert QApplication.overrideCursor() is None  # no wait cursor left behind by the failed read


def test_title_dirty_mark_and_close_asks(window, adult_csv, tmp_path, messages):
    window.open_data(adult_csv, "table")
    assert window.windowTitle() == f"untitled* — anonstudio {__version__}"
    assert window.save_project_to(tmp_path / "study.anonstudio.json")
    assert window.windowTitle() == f"study — anonstudio {__version__}"
    _role_action(window.panes["Data"].column_menu("sex"), "quasi-identifying").trigger()
    assert window.windowTitle() == f"study* — anonstudio {__version__}"
    messages.answer = QMessageBox.StandardButton.Cancel
    assert not window.close()
    assert window.isVisible()
    assert messages.texts("question") == ["Save the changes to study?"]
    messages.answer = QMessageBox.StandardButton.Discard
    assert window.close()


def test_open_fasta_and_events(window, tmp_path, engine_io, screenshot):
    fasta = tmp_path / "p.fasta"
    fasta.write_text(">sp|P1 first protein\nMKVLAAGIVDEKR\n>sp|P2 second\nMKKLLPT\n", encoding="utf-8")
    assert window.open_data(fasta, "fasta")
    pane = window.panes["Data"]
    assert pane.stack.currentWidget() is pane.fasta_widget
    assert pane.records_model.rowCount() == 2
    assert pane.records_model.index(0, 1).data() == "13"
    assert pane.viewer.sequence == "MKVLAAGIVDEKR"
    assert "color:" in pane.viewer.toHtml()
    screenshot(pane, "data_pane_fasta")

    events = tmp_path / "visits.csv"
    events.write_text("PID,VID,age,dx\np1,2,30,flu\np1,1,30,cold\np2,1,40,flu\n", encoding="utf-8")
    assert window.open_data(events, "events", {"sequence_id": "PID", "event_order": "VID"})
    assert pane.stack.currentWidget() is pane.events_widget
    assert pane.sequences_model.rowCount() == 2
    assert pane.sequences_model.index(0, 1).data() == "2"
    # the first sequence's events, in event order (VID 1 before VID 2)
    assert [pane.events_model.index(r, 3).data() for r in range(2)] == ["cold", "flu"]
    screenshot(pane, "data_pane_events")


def test_run_shows_verdict_and_keeps_gui_responsive(window, adult_csv, sex_hierarchy_csv, test_method, qtbot):
    from anonstudio.gui.workers import measure_responsiveness

    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    stats = measure_responsiveness(
        lambda: window.start_run(test_method, {"k": 5, "delay": 0.01}), until=lambda: window.state.outcome is not None
    )
    assert window.state.outcome.report["verification"]["passed"]
    assert window.verdict_label.text().startswith("k-anonymous, k = 5, verified")
    print(f"\nlongest event-loop gap during the run: {stats['max_gap_ms']:.0f} ms")  # timed in tests/benchmarks
    # a method without a view of its own: the summary card comes to the front with the headline figures
    summary = window.panes["Summary"]
    assert not window.docks["Summary"].visibleRegion().isEmpty()
    text = summary.text()
    assert "Generalise all (test)" in text and "verified (k-anonymity)" in text and "records in" in text
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert window.act_export_data.isEnabled()


def test_cancel_stops_the_run(window, adult_csv, sex_hierarchy_csv, test_method, qtbot):
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.runFinished, timeout=10_000) as blocker:
        window.start_run(test_method, {"k": 2, "delay": 0.2})
        # wait on what the GUI thread shows (a signal of the worker itself would be waited on in its thread)
        qtbot.waitUntil(lambda: "chunk" in window.statusBar().currentMessage(), timeout=5000)
        window.act_cancel.trigger()
    assert blocker.args == [None]
    assert window.state.outcome is None
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert window.act_run.isEnabled()


def test_failed_run_shows_the_engine_error(window, adult_csv, test_method, messages, qtbot):
    window.open_data(adult_csv, "table")
    _role_action(window.panes["Data"].column_menu("education"), "quasi-identifying").trigger()
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run(test_method, {"k": 2})
    [text] = messages.texts("critical")
    assert "education" in text and "hierarchy" in text


def test_papers_list_every_method_reference(window, registered_method):
    html = window.papers_html()
    assert "Samarati" in html and registered_method in html


def test_export_after_run(window, adult_csv, sex_hierarchy_csv, test_method, tmp_path, qtbot):
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run(test_method, {"k": 2})
    out = tmp_path / "out.csv"
    assert window.export_data(out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 11 and all(";*;" in line for line in lines[1:])
    assert window.export_report(tmp_path / "r.json")
    assert '"passed": true' in (tmp_path / "r.json").read_text(encoding="utf-8")


def test_export_never_overwrites_the_data_or_a_hierarchy_it_read(window, adult_csv, sex_hierarchy_csv, test_method,
                                                                  messages, tmp_path, qtbot):
    """Issue 11 item 2: the export dialogs refuse the files the work on screen was read from (the data file
    even through a symlink), with a dialog naming the clash; the files stay byte for byte."""
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run(test_method, {"k": 2})
    data_before = Path(adult_csv).read_bytes()
    link = tmp_path / "link-to-data.csv"
    link.symlink_to(adult_csv)
    assert not window.export_data(link)
    assert not window.export_report(adult_csv)
    texts = messages.texts("critical")
    assert len(texts) == 2 and all("is the same file as the data file" in t for t in texts)
    assert Path(adult_csv).read_bytes() == data_before and link.is_symlink()
    assert window.export_data(tmp_path / "fine.csv")


def test_demo_opens_table_with_roles(window, repo_root, engine_io, tmp_path, screenshot):
    assert window.open_demo(tmp_path / "demo")
    assert window.state.kind == "table"
    assert window.state.data_path.name == "adult-sample.csv"
    assert len(window.state.quasi_identifiers()) >= 2
    assert set(window.state.hierarchies) & set(window.state.quasi_identifiers())
    editor = window.panes["Hierarchies"]
    for attr in window.state.hierarchies:  # every hierarchy of the job shows as a tree
        editor.select_attribute(attr)
        assert sorted(editor.model.leaf_labels()) == sorted(window.state.hierarchies[attr].leaves)
    editor.select_attribute("education")
    screenshot(window, "main_window_demo")


def test_million_row_table_scrolls_without_copying(shown, qtbot):
    """The table model reads only visible cells: a 1M-row table opens and jumps to its end quickly."""
    import time

    import numpy as np
    import pandas as pd

    from anonstudio.core.data import Table
    from anonstudio.gui.panes.data import DataPane
    from anonstudio.core.workspace import Workspace

    n = 1_000_000
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"age": rng.integers(17, 90, n).astype(str), "zip": rng.integers(10000, 99999, n).astype(str)})
    state = Workspace()
    state.set_data(Table(df), "big.csv")
    pane = shown(DataPane, 600, 400)
    start = time.perf_counter()
    pane.set_state(state)
    pane.grab()
    view = pane.table_view
    times = []
    for frac in (0.25, 0.5, 0.75, 1.0):
        t = time.perf_counter()
        view.verticalScrollBar().setValue(int(view.verticalScrollBar().maximum() * frac))
        pane.grab()
        times.append(time.perf_counter() - t)
    total = time.perf_counter() - start
    assert pane.table_model.rowCount() == n
    last = view.rowAt(view.viewport().height() - 2)
    assert last >= n - 30
    assert view.model().index(n - 1, 1).data() == df["zip"].iloc[-1]
    print(f"\n1,000,000 rows: shown and scrolled in {total:.2f} s, longest scroll {max(times):.2f} s")


def test_sweep_emits_each_point(window, adult_csv, sex_hierarchy_csv, test_method, qtbot):
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.sweepFinished, timeout=15_000) as done:
        window.start_sweep([{"k": 2}, {"k": 5}, {"k": 0}], test_method, {"delay": 0.0})
    points = done.args[0]
    assert [p["k"] for p in points] == [2, 5, 0]
    assert points[0]["verified"] is True and points[0]["groups"] == 1
    assert "error" in points[2] and "'k'" in points[2]["error"]  # a bad point is reported, the sweep goes on
    assert "Sweep done: 3 points" in window.statusBar().currentMessage()


def test_worker_reports_failure_and_cancel_before_start(qtbot):
    from PySide6.QtCore import QObject, Slot

    from anonstudio.gui.workers import RunWorker, TaskRunner

    class Receiver(QObject):
        """Lives in the GUI thread, so worker signals reach it queued (as they reach panes)."""

        def __init__(self):
            super().__init__()
            self.events = []

        @Slot(object)
        def failed(self, exc):
            self.events.append(("failed", exc))

        @Slot()
        def cancelled(self):
            self.events.append(("cancelled", None))

        @Slot(float, str)
        def progress(self, fraction, message):
            self.events.append(("progress", message))

    runner, rec = TaskRunner(), Receiver()

    def boom(progress=None):
        progress(0.5, "half")
        raise ValueError("bad thing")

    worker = RunWorker(boom)
    worker.failed.connect(rec.failed)
    worker.progress.connect(rec.progress)
    runner.start_worker(worker)
    qtbot.waitUntil(lambda: any(kind == "failed" for kind, _ in rec.events), timeout=5000)
    assert [kind for kind, _ in rec.events] == ["progress", "failed"]
    assert isinstance(rec.events[1][1], ValueError)

    def never(progress=None):
        raise AssertionError("must not run")

    worker = RunWorker(never)
    worker.cancelled.connect(rec.cancelled)
    worker.failed.connect(rec.failed)
    worker.cancel()
    runner.start_worker(worker)
    qtbot.waitUntil(lambda: rec.events[-1][0] == "cancelled", timeout=5000)
    qtbot.waitUntil(lambda: not runner.busy)
    assert runner.shutdown()


def test_app_main_opens_file_and_returns_exit_code(adult_csv, qtbot, monkeypatch, tmp_path):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from anonstudio.gui import app as app_module
    from anonstudio.gui import main_window

    monkeypatch.setattr(main_window, "QSettings", lambda: QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    real_app = app_module.make_application()
    seen = {}

    class App:
        """The real application, except that exec() returns once the file is shown (no global quit(),
        which would also end the event loops of later tests)."""

        def exec(self):
            w = next(w for w in QApplication.topLevelWidgets() if isinstance(w, main_window.MainWindow) and w.isVisible())
            qtbot.waitUntil(lambda: w.state.data is not None, timeout=10_000)  # read on a worker thread
            seen["rows"] = w.panes["Data"].table_model.rowCount()
            seen["title"] = w.windowTitle()
            w.state.dirty = False
            w.close()
            return 0

    monkeypatch.setattr(app_module, "make_application", lambda: App())
    assert app_module.main(file=str(adult_csv)) == 0
    assert seen == {"rows": 10, "title": f"untitled* — anonstudio {__version__}"}
    assert real_app.applicationName() == "anonstudio" and real_app.organizationName() == "anonstudio"


def test_open_data_async_reads_on_a_worker_thread(window, adult_csv, tmp_path, qtbot, messages):
    with qtbot.waitSignal(window.dataOpened, timeout=10_000) as opened:
        assert window.open_data_async(adult_csv, "table") is not None
    assert opened.args == [str(adult_csv)]
    assert window.panes["Data"].table_model.rowCount() == 10
    bad = tmp_path / "ragged.csv"
    bad.write_text("a,b\n1,2\n3\n", encoding="utf-8")
    before = window.state.data
    window.open_data_async(bad, "table")
    qtbot.waitUntil(lambda: bool(messages.calls), timeout=10_000)
    assert "ragged.csv" in messages.texts("critical")[0]
    assert window.state.data is before


def test_broken_job_shows_error_and_keeps_state(window, adult_csv, tmp_path, messages):
    window.open_data(adult_csv, "table")
    before = window.state.data
    job = tmp_path / "bad.toml"
    job.write_text('[input]\npath = "adult.csv"\n[algorithm\nname = "mst"\n', encoding="utf-8")
    assert not window.open_path(job)
    [text] = messages.texts("critical")
    assert "bad.toml" in text and ":3" in text
    assert window.state.data is before


def test_event_roles_from_header_menu_reach_the_hierarchy_editor(window, tmp_path, engine_io):
    events = tmp_path / "visits.csv"
    events.write_text("PID,VID,age,dx\np1,2,30,flu\np1,1,30,cold\np2,1,40,flu\n", encoding="utf-8")
    window.open_data(events, "events", {"sequence_id": "PID", "event_order": "VID"})
    pane = window.panes["Data"]
    fixed = pane.column_menu("PID")
    assert not _role_action(fixed, "quasi-identifying").isEnabled()  # the sequence id keeps its role
    _role_action(pane.column_menu("age"), "quasi-identifying").trigger()
    _role_action(pane.column_menu("dx"), "sensitive").trigger()
    assert window.state.data.quasi_identifiers == ["age"] and window.state.data.sensitive == "dx"
    assert window.panes["Hierarchies"].attributes() == ["age"]


def test_layout_and_recent_files_persist(window, adult_csv, settings, qtbot):
    from anonstudio.gui.main_window import MainWindow

    window.open_data(adult_csv, "table")
    window.docks["Hierarchies"].hide()
    window.state.dirty = False
    assert window.close()
    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    assert again.recent_files()[0] == str(adult_csv.resolve())
    assert again.docks["Hierarchies"].isHidden()
    assert [a.text() for a in again.recent_menu.actions()] == ["&1 adult.csv"]
    again.reset_layout()
    assert not again.docks["Hierarchies"].isHidden()


def test_sweep_dialog_fills_its_table_as_points_arrive(window, adult_csv, sex_hierarchy_csv, test_method, qtbot,
                                                       monkeypatch):
    from PySide6.QtWidgets import QDialogButtonBox

    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    monkeypatch.setattr(window, "_method_and_params", lambda: (test_method, {"k": 2, "delay": 0.0}))
    window.act_sweep.trigger()
    dialog = window.sweep_dialog
    qtbot.addWidget(dialog)
    assert [dialog.parameter.itemText(i) for i in range(dialog.parameter.count())] == ["k", "delay"]
    dialog.values.setText("2, 3")
    with qtbot.waitSignal(window.sweepFinished, timeout=15_000):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 2)
    headers = [dialog.table.horizontalHeaderItem(c).text() for c in range(dialog.table.columnCount())]
    assert headers[0] == "k" and "verified" in headers
    assert dialog.table.item(1, 0).text() == "3"


def test_an_unroled_column_with_all_values_distinct_is_flagged_in_its_header(window, tmp_path):
    """Issue 11 item 14: the role editor warns about a column that looks like an identifier."""
    from PySide6.QtCore import Qt

    csv = tmp_path / "people.csv"
    csv.write_text("name;sex\nAnna;F\nBob;M\nCarl;M\nDora;F\n", encoding="utf-8")
    assert window.open_data(csv, "table")
    model = window.panes["Data"].table_model
    assert model.headerData(0, Qt.Orientation.Horizontal) == "⚠ name"
    assert "looks like an identifier" in model.headerData(0, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert model.headerData(1, Qt.Orientation.Horizontal) == "sex"
    window.state.set_role("name", "identifying")
    assert not model.headerData(0, Qt.Orientation.Horizontal).startswith("⚠")


def test_the_status_bar_never_vouches_for_what_is_not_on_screen(window, adult_csv, sex_hierarchy_csv, test_method,
                                                                 qtbot, messages):
    """Issue 15 item 1 (the trust part): after a change of roles, of parameters or of data, and after a
    failed run, the status bar says the results are out of date and export is off — never "verified"."""
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run(test_method, {"k": 2})
    assert "verified" in window.verdict_label.text() and window.act_export_data.isEnabled()
    _role_action(window.panes["Data"].column_menu("education"), "sensitive").trigger()
    assert window.verdict_label.text() == "results out of date (roles changed since this run): run again"
    assert not window.act_export_data.isEnabled()
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run(test_method, {"k": 2})
    assert ", verified" in window.verdict_label.text()
    window.state.set_method(test_method, {"k": 3})
    assert "parameters changed since this run" in window.verdict_label.text()
    assert not window.act_export_data.isEnabled()
    _role_action(window.panes["Data"].column_menu("education"), "quasi-identifying").trigger()  # no hierarchy
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run(test_method, {"k": 2})
    assert "verified" not in window.verdict_label.text().replace("NOT verified", "")
    assert window.statusBar().currentMessage() == "The run failed: nothing was published"
    assert window.open_data(adult_csv, "table")
    assert "verified" not in window.verdict_label.text()


def test_results_that_no_longer_belong_to_the_screen_are_greyed_under_a_banner(window, adult_csv, sex_hierarchy_csv,
                                                                                test_method, qtbot, screenshot):
    """Issue 15 item 1: change a parameter or a role after a run and the result views stay, greyed, under a banner
    saying why; export is off until the next run, which clears the banner; new data clears the views."""
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run(test_method, {"k": 2})
    compare = window.holders["Compare"]
    assert not compare.stale and not compare.banner.isVisible()
    window.state.set_method(test_method, {"k": 3})
    assert compare.stale and compare.banner.isVisibleTo(compare)
    assert "parameters changed since this run" in compare.banner.text()
    assert window.panes["Compare"].outcome is not None  # the last results are still there to look at
    assert not window.act_export_data.isEnabled()
    run_text = window.panes["Run"].result.text()
    assert "verified" not in run_text.replace("to verify", "") and "Out of date" in run_text
    window.docks["Compare"].raise_()
    print(f"screenshot: {screenshot(window, 'results_out_of_date')}")
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run(test_method, {"k": 3})
    assert not compare.stale and window.act_export_data.isEnabled()
    _role_action(window.panes["Data"].column_menu("education"), "sensitive").trigger()
    assert all(h.stale for h in window.holders.values()) and "roles changed" in compare.banner.text()
    assert window.open_data(adult_csv, "table")
    assert not any(h.stale for h in window.holders.values()) and window.panes["Compare"].outcome is None
