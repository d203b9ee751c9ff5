"""The workbench window: menus, toolbar, dockable panes, status bar, runs on a worker thread.

Panes are docks named Data, Hierarchies, Method, Run, Compare, Composition, MST partition, Clusters, Metrics and
Privacy. All of them read one :class:`~anonstudio.gui.state.WorkbenchState`; the window changes it (open,
save, run) and forwards its change notifications. Methods come from the engine's registry
(``core.algorithms.available``). A file that cannot be read (data, hierarchy, project, job) shows a dialog
with the error — which file, where, what — and leaves the workbench as it was.
"""

from __future__ import annotations

import tempfile
from importlib import import_module
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from anonstudio import __version__
from anonstudio.core.errors import AnonStudioError
from anonstudio.gui import project as proj
from anonstudio.gui.state import WorkbenchState
from anonstudio.gui.dialogs import EventColumnsDialog, SweepDialog, error_text
from anonstudio.gui.workers import RunWorker, SweepWorker, TaskRunner, preload_engine

#: dock title → (module in anonstudio.gui.panes, class, dock area)
PANES: dict[str, tuple[str, str, Qt.DockWidgetArea]] = {
    "Data": ("data", "DataPane", Qt.DockWidgetArea.LeftDockWidgetArea),
    "Hierarchies": ("hierarchy_editor", "HierarchyEditor", Qt.DockWidgetArea.LeftDockWidgetArea),
    "Method": ("parameters", "ParametersPane", Qt.DockWidgetArea.RightDockWidgetArea),
    "Run": ("run", "RunPane", Qt.DockWidgetArea.RightDockWidgetArea),
    "Compare": ("compare", "ComparePane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Composition": ("composition", "CompositionPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "MST partition": ("mst_partition", "MstPartitionPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Clusters": ("clusters", "ClustersPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Metrics": ("metrics", "MetricsPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Privacy": ("privacy", "PrivacyPane", Qt.DockWidgetArea.BottomDockWidgetArea),
}
#: panes that show a run's outcome (``show_outcome`` / ``clear``)
RESULT_PANES = ("Method", "Run", "Compare", "Composition", "MST partition", "Clusters", "Metrics", "Privacy")

DATA_FILTER = "Tables (*.csv *.tsv *.txt *.parquet);;All files (*)"
FASTA_FILTER = "FASTA (*.fasta *.fa *.faa *.fna *.fas);;All files (*)"
PROJECT_FILTER = "anonstudio projects (*.anonstudio.json *.json);;Jobs (*.toml);;All files (*)"
MAX_RECENT = 8
AUTOSAVE_MS = 60_000


class MainWindow(QMainWindow):
    """The anonstudio workbench.

    Parameters
    ----------
    settings:
        Where layout and recent files are kept (default: the application's ``QSettings``).
    """

    #: a run ended: the Outcome, the exception, or None when cancelled
    runFinished = Signal(object)
    #: a sweep ended: the list of point rows
    sweepFinished = Signal(object)
    #: a data file was read and is shown (its path)
    dataOpened = Signal(str)
    #: a project or job was read and is shown (its path)
    projectOpened = Signal(str)

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings if settings is not None else QSettings()
        self.state = WorkbenchState()
        self.runner = TaskRunner(self)
        self.runner.idle.connect(self._update_actions)
        self.worker: RunWorker | None = None
        #: a finished run being shown pane by pane: (outcome, titles of the panes still to show it)
        self._presenting: tuple[Any, list[str]] | None = None
        self._task = "run"
        #: a file being read on a worker: (path, kind, read options, title of the error dialog if it fails)
        self._pending_open: tuple[str, str, dict | None, str] | None = None
        self.sweep_dialog: SweepDialog | None = None
        self.experiments_window = None
        self.panes: dict[str, QWidget] = {}
        self.docks: dict[str, QDockWidget] = {}
        self.setObjectName("anonstudioMainWindow")
        self.setDockNestingEnabled(True)
        self.resize(1400, 900)

        self._make_panes()
        self._make_actions()
        self._make_menus()
        self._make_status_bar()
        self.state.subscribe(self._on_state)
        self._restore_layout()

        self.autosave_timer = QTimer(self, interval=AUTOSAVE_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()
        self._update_title()
        self._update_actions()

    # -- construction ------------------------------------------------------------------------------------
    def _make_panes(self) -> None:
        previous_bottom: QDockWidget | None = None
        for title, (module, cls_name, area) in PANES.items():
            name = f"anonstudio.gui.panes.{module}"
            try:
                mod = import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name != name:
                    raise  # a pane that exists but cannot import is a bug to see, not to hide
                continue  # a pane this build does not have
            cls = getattr(mod, cls_name)
            pane = cls(parent=None)
            if hasattr(pane, "set_state"):
                pane.set_state(self.state)
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock:{title}")
            dock.setWidget(pane)
            dock.setFeatures(
                QDockWidget.DockWidgetFeature.DockWidgetMovable
                | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                | QDockWidget.DockWidgetFeature.DockWidgetClosable
            )
            self.addDockWidget(area, dock)
            if area == Qt.DockWidgetArea.BottomDockWidgetArea:
                if previous_bottom is not None:
                    self.tabifyDockWidget(previous_bottom, dock)
                previous_bottom = dock
            self.panes[title] = pane
            self.docks[title] = dock
        if "Data" in self.docks and "Hierarchies" in self.docks:
            self.splitDockWidget(self.docks["Data"], self.docks["Hierarchies"], Qt.Orientation.Horizontal)
        if "Method" in self.docks and "Run" in self.docks:
            self.splitDockWidget(self.docks["Method"], self.docks["Run"], Qt.Orientation.Vertical)
        if "Compare" in self.docks:
            self.docks["Compare"].raise_()
        bottom = [d for t, d in self.docks.items() if PANES[t][2] == Qt.DockWidgetArea.BottomDockWidgetArea]
        top = [d for t, d in self.docks.items() if PANES[t][2] != Qt.DockWidgetArea.BottomDockWidgetArea]
        if bottom and top:
            self.resizeDocks([top[0], bottom[0]], [560, 300], Qt.Orientation.Vertical)
        sides = [self.docks[t] for t in ("Data", "Hierarchies", "Method") if t in self.docks]
        if len(sides) == 3:
            self.resizeDocks(sides, [620, 380, 400], Qt.Orientation.Horizontal)
        run = self.panes.get("Run")
        if run is not None and hasattr(run, "cancelRequested"):
            run.cancelRequested.connect(self.cancel_run)
        hier = self.panes.get("Hierarchies")
        data = self.panes.get("Data")
        if data is not None and hasattr(data, "roleChanged") and hier is not None:
            data.roleChanged.connect(lambda *_: hier.refresh())

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if tip:
            act.setStatusTip(tip)
            act.setToolTip(tip)
        act.triggered.connect(lambda _=False: slot())
        return act

    def _make_actions(self) -> None:
        K = QKeySequence.StandardKey
        self.act_open_table = self._action("Open &table…", self.open_table_dialog, K.Open, "Open a delimited table or Parquet file")
        self.act_open_events = self._action("Open &event sequences…", self.open_events_dialog, "Ctrl+Shift+E", "Open an event log (one row per event)")
        self.act_open_fasta = self._action("Open &FASTA…", self.open_fasta_dialog, "Ctrl+Shift+F", "Open protein or DNA sequences")
        self.act_open_project = self._action("Open &project or job…", self.open_project_dialog, "Ctrl+Shift+O", "Open a project (.json) or a job (.toml)")
        self.act_save = self._action("&Save project", self.save_project, K.Save, "Save the project")
        self.act_save_as = self._action("Save project &as…", self.save_project_as, K.SaveAs)
        self.act_save_job = self._action("Save &job…", self.save_job_dialog, "Ctrl+J", "Write a job file that `anonstudio run` runs unchanged")
        self.act_export_data = self._action("E&xport anonymized data…", self.export_data_dialog, "Ctrl+E", "Write the verified output")
        self.act_export_report = self._action("Export &report…", self.export_report_dialog, "Ctrl+Shift+R", "Write the run's report (JSON)")
        self.act_quit = self._action("&Quit", self.close, K.Quit)
        self.act_run = self._action("&Run", self.start_run, "F5", "Anonymize with the chosen method (F5)")
        self.act_cancel = self._action("&Cancel", self.cancel_run, "Esc", "Stop the running job")
        self.act_sweep = self._action("Run &sweep…", self.sweep_dialog_open, "Shift+F5", "Run the method over several values of one parameter")
        self.act_experiments = self._action("Paper &experiments…", self.experiments_open, "Ctrl+Shift+X", "Reproduce a paper's figures (CSV + PNG), as `anonstudio experiment` does")
        self.act_about = self._action("&About anonstudio", self.show_about)
        self.act_papers = self._action("&Papers behind the methods", self.show_papers, "F1")
        self.act_reset_layout = self._action("Reset &layout", self.reset_layout)

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        open_menu = file_menu.addMenu("&Open data")
        open_menu.addActions([self.act_open_table, self.act_open_events, self.act_open_fasta])
        file_menu.addAction(self.act_open_project)
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addSeparator()
        file_menu.addActions([self.act_save, self.act_save_as, self.act_save_job])
        file_menu.addSeparator()
        file_menu.addActions([self.act_export_data, self.act_export_report])
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self._fill_recent_menu()

        run_menu = bar.addMenu("&Run")
        run_menu.addActions([self.act_run, self.act_cancel, self.act_sweep])
        run_menu.addSeparator()
        run_menu.addAction(self.act_experiments)

        self.view_menu = bar.addMenu("&View")
        for dock in self.docks.values():
            self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.act_reset_layout)

        help_menu = bar.addMenu("&Help")
        help_menu.addActions([self.act_papers, self.act_about])

        tools = self.addToolBar("Main")
        tools.setObjectName("toolbar:main")
        tools.addActions([self.act_open_table, self.act_open_project, self.act_save])
        tools.addSeparator()
        tools.addActions([self.act_run, self.act_cancel])
        tools.addSeparator()
        tools.addAction(self.act_export_data)

    def _make_status_bar(self) -> None:
        self.size_label = QLabel("no data")
        self.verdict_label = QLabel("")
        self.statusBar().addPermanentWidget(self.size_label)
        self.statusBar().addPermanentWidget(self.verdict_label)

    # -- layout and settings -----------------------------------------------------------------------------
    def _restore_layout(self) -> None:
        self._default_layout = self.saveState()
        geometry = self.settings.value("window/geometry")
        layout = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if layout is not None:
            self.restoreState(layout)

    def reset_layout(self) -> None:
        self.restoreState(self._default_layout)
        for dock in self.docks.values():
            dock.show()

    def recent_files(self) -> list[str]:
        value = self.settings.value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def add_recent(self, path: str | Path) -> None:
        p = str(Path(path).resolve())
        files = [p] + [f for f in self.recent_files() if f != p]
        self.settings.setValue("recentFiles", files[:MAX_RECENT])
        self._fill_recent_menu()

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for i, f in enumerate(files):
            act = self.recent_menu.addAction(f"&{i + 1} {Path(f).name}")
            act.setToolTip(f)
            act.triggered.connect(lambda _=False, f=f: self.open_path(f, wait=False))
        self.recent_menu.setEnabled(bool(files))

    # -- state ----------------------------------------------------------------------------------------------
    def _on_state(self, what: str) -> None:
        data_pane = self.panes.get("Data")
        hier = self.panes.get("Hierarchies")
        if what == "data":
            self._presenting = None
            if data_pane is not None:
                data_pane.refresh()
            if hier is not None:
                hier.refresh()
            self._clear_results()
        elif what == "roles":
            if data_pane is not None:
                data_pane.roles_changed()
            if hier is not None:
                hier.refresh()
        elif what == "hierarchies":
            if hier is not None and not getattr(hier, "applying", False):
                hier.refresh()
        elif what == "outcome":
            if self.state.outcome is None:
                self._clear_results()
        self._update_title()
        self._update_status()
        self._update_actions()

    def _clear_results(self) -> None:
        for title in RESULT_PANES:
            pane = self.panes.get(title)
            if pane is not None and title not in ("Method",) and hasattr(pane, "clear"):
                pane.clear()

    def _update_title(self) -> None:
        self.setWindowTitle(self.state.title())

    def _update_status(self) -> None:
        for label, text in ((self.size_label, self.state.size_text()), (self.verdict_label, self.state.verdict_text())):
            label.setText(text)
            label.setMinimumWidth(label.fontMetrics().horizontalAdvance(text) + 12 if text else 0)

    def _update_actions(self) -> None:
        busy = self.runner.busy or self._presenting is not None
        has_data = self.state.data is not None
        self.act_run.setEnabled(has_data and not busy)
        self.act_sweep.setEnabled(has_data and not busy)
        self.act_cancel.setEnabled(busy)
        self.act_export_data.setEnabled(self.state.outcome is not None)
        self.act_export_report.setEnabled(self.state.outcome is not None or self.state.last_report is not None)
        self.act_save_job.setEnabled(has_data)

    def error(self, title: str, exc: BaseException | str) -> None:
        """Show an error dialog (the error's own text: file, where, what)."""
        QMessageBox.critical(self, title, exc if isinstance(exc, str) else error_text(exc))

    # -- opening ---------------------------------------------------------------------------------------------
    def open_path(self, path: str | Path, *, wait: bool = True) -> bool:
        """Open whatever ``path`` is: a project, a job, FASTA or a table (``wait=False``: data files are
        read on a worker thread)."""
        kind = proj.guess_kind(path)
        if kind == "project":
            return self.open_project(path, wait=wait)
        if kind == "job":
            return self.open_job(path, wait=wait)
        if not wait:
            return self.open_data_async(path, kind) is not None
        return self.open_data(path, kind)

    def open_data(self, path: str | Path, kind: str = "table", options: dict[str, Any] | None = None) -> bool:
        """Read a data file now (blocking); on error show a dialog and keep the current data."""
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            data = proj.read_data(path, kind, options)
        except (AnonStudioError, OSError, ValueError) as exc:
            QApplication.restoreOverrideCursor()
            self.error("Cannot open data", exc)
            return False
        QApplication.restoreOverrideCursor()
        self._show_data(data, path, options)
        return True

    def open_data_async(self, path: str | Path, kind: str = "table", options: dict[str, Any] | None = None) -> RunWorker | None:
        """Read a data file on a worker thread (large files do not freeze the window); ``dataOpened`` or an
        error dialog follows. What the menus use."""
        worker = RunWorker(proj.read_data, path, kind, options, progress_kw="")
        return self._read_on_worker(worker, (str(path), kind, options, "Cannot open data"), self._data_read)

    def _read_on_worker(self, worker: RunWorker, pending: tuple, on_read) -> RunWorker | None:
        """Start ``worker`` reading ``pending[0]`` (one file at a time: ``None`` while another is being read);
        ``on_read`` gets what it read, a failure becomes a dialog titled ``pending[3]``."""
        if self._pending_open is not None:
            return None
        self._pending_open = pending
        worker.finished.connect(on_read)
        worker.failed.connect(self._data_failed)
        self.statusBar().showMessage(f"Reading {Path(pending[0]).name}…")
        QApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        return self.runner.start_worker(worker)

    def _data_read(self, data: Any) -> None:
        QApplication.restoreOverrideCursor()
        pending, self._pending_open = self._pending_open, None
        if pending is not None:
            self._show_data(data, pending[0], pending[2])

    def _data_failed(self, exc: BaseException) -> None:
        QApplication.restoreOverrideCursor()
        pending, self._pending_open = self._pending_open, None
        self.statusBar().clearMessage()
        self.error(pending[3] if pending is not None else "Cannot open data", exc)

    def _show_data(self, data: Any, path: str | Path, options: dict[str, Any] | None) -> None:
        self.state.set_data(data, Path(path).resolve(), read_options=options)
        self.add_recent(path)
        self.statusBar().showMessage(f"Opened {Path(path).name}", 5000)
        self.dataOpened.emit(str(path))

    def open_table_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open table", self._last_dir(), DATA_FILTER)
        if path:
            self._remember_dir(path)
            self.open_data_async(path, "table")

    def open_fasta_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open FASTA", self._last_dir(), FASTA_FILTER)
        if path:
            self._remember_dir(path)
            self.open_data_async(path, "fasta")

    def open_events_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open event sequences", self._last_dir(), DATA_FILTER)
        if not path:
            return
        self._remember_dir(path)
        try:
            columns = proj.read_data(path, "table").df.columns.astype(str).tolist()
        except (AnonStudioError, OSError, ValueError) as exc:
            self.error("Cannot open data", exc)
            return
        dialog = EventColumnsDialog(columns, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.open_data_async(path, "events", {"sequence_id": dialog.sequence_id.currentText(), "event_order": dialog.event_order.currentText()})

    def _confirm_discard(self) -> bool:
        """True when there are no unsaved changes or the user saved or discarded them."""
        if not self.state.dirty or self.state.data is None:
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            f"Save the changes to {self.state.project_name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save_project()
        return answer == QMessageBox.StandardButton.Discard

    def open_project(self, path: str | Path, *, wait: bool = True) -> bool:
        try:
            outside = proj.outside_files(path)
        except (AnonStudioError, OSError, ValueError) as exc:
            self.error("Cannot open project", exc)
            return False
        if outside:
            answer = QMessageBox.question(
                self, "Files outside the project's folder",
                f"{Path(path).name} reads {len(outside)} file(s) from outside its own folder "
                f"({', '.join(outside[:3])}{' …' if len(outside) > 3 else ''}). Open them only if you trust where "
                "this project comes from. Open it?",
                QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
            if answer != QMessageBox.StandardButton.Open:
                return False
        return self._open_state(path, partial(proj.read_project, allow_outside=True), "Cannot open project", wait)

    def open_job(self, path: str | Path, *, wait: bool = True) -> bool:
        return self._open_state(path, proj.state_from_job, "Cannot open job", wait)

    def _open_state(self, path: str | Path, read, title: str, wait: bool = True) -> bool:
        """Read a project or job with ``read`` (with its data and hierarchies); on failure show the error and
        keep the current state. ``wait=False`` (the menus): read on a worker thread, so a large data file
        does not freeze the window; ``projectOpened`` or an error dialog follows."""
        if not self._confirm_discard():
            return False
        if not wait:
            worker = RunWorker(read, path, progress_kw="")
            pending = (str(path), proj.guess_kind(path), None, title)
            return self._read_on_worker(worker, pending, self._state_read) is not None
        try:
            new = read(path)
        except (AnonStudioError, OSError, ValueError) as exc:
            self.error(title, exc)
            return False
        self._show_state(new, path)
        return True

    def _state_read(self, new: WorkbenchState) -> None:
        QApplication.restoreOverrideCursor()
        pending, self._pending_open = self._pending_open, None
        if pending is not None:
            self._show_state(new, pending[0])

    def _show_state(self, new: WorkbenchState, path: str | Path) -> None:
        self.adopt_state(new)
        self.add_recent(path)
        self.statusBar().showMessage(f"Opened {Path(path).name}", 5000)
        self.projectOpened.emit(str(path))

    def adopt_state(self, new: WorkbenchState) -> None:
        """Show a project or job just read (keeps this window's state object, which the panes hold)."""
        method, params, dirty = new.method, dict(new.params), new.dirty
        self.state.replace_from(new)
        # a pane that follows the data kind may have reset the method to its defaults: put the project's back
        if (self.state.method, self.state.params) != (method, params):
            self.state.set_method(method, params)
        pane = self.panes.get("Method")
        if method and pane is not None and hasattr(pane, "method") and pane.method() != method:
            QMessageBox.warning(
                self,
                "Method not available",
                f"The method '{method}' is not available for {self.state.kind} data in this version: "
                "choose another one in the Method pane.",
            )
        self.state.dirty = dirty
        self.state.notify("dirty")

    def open_project_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open project or job", self._last_dir(), PROJECT_FILTER)
        if path:
            self._remember_dir(path)
            self.open_path(path, wait=False)

    def open_demo(self, folder: str | Path | None = None) -> bool:
        """Copy the bundled demo to ``folder`` (default: a new temporary folder) and open its table job."""
        from anonstudio.core.demo import prepare_demo

        try:
            out = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="anonstudio-demo-"))
            prepare_demo(out)
        except (AnonStudioError, OSError) as exc:
            self.error("Cannot open the demo", exc)
            return False
        job = out / "table-mst.toml"
        if job.exists():
            try:
                self.adopt_state(proj.state_from_job(job))
                return True
            except (AnonStudioError, OSError, ValueError):
                pass  # e.g. the job's method is not in this build: open its data and hierarchies below
        table = next(iter(sorted(out.glob("adult*.csv"))), None)
        if table is None:
            self.error("Cannot open the demo", f"{out}: no demo table (adult-sample.csv) found")
            return False
        if not self.open_data(table, "table"):
            return False
        if job.exists():
            self._apply_demo_roles(job)
        return True

    def _apply_demo_roles(self, job: Path) -> None:
        import tomllib

        try:
            raw = tomllib.loads(job.read_text(encoding="utf-8"))
            inp = raw.get("input", {})
            for col in inp.get("quasi_identifiers", []):
                self.state.set_role(col, "quasi-identifying")
            for col in inp.get("sensitive", []):
                self.state.set_role(col, "sensitive")
            for attr, spec in raw.get("hierarchies", {}).items():
                if isinstance(spec, str):
                    path = (job.parent / spec).resolve()
                    self.state.set_hierarchy(attr, proj.read_hierarchy_file(path, attr), str(path))
                elif isinstance(spec, dict):
                    from anonstudio.gui.panes.hierarchy_editor import build_from_spec

                    self.state.set_hierarchy(attr, build_from_spec(attr, spec, self.state.column_values(attr)), spec)
        except (AnonStudioError, OSError, ValueError, KeyError) as exc:
            self.error("Demo job", exc)

    # -- saving ----------------------------------------------------------------------------------------------
    def save_project(self) -> bool:
        if self.state.project_path is None:
            return self.save_project_as()
        return self.save_project_to(self.state.project_path)

    def save_project_as(self) -> bool:
        start = str(self.state.data_path.with_suffix(proj.PROJECT_SUFFIX)) if self.state.data_path else self._last_dir()
        path, _ = QFileDialog.getSaveFileName(self, "Save project", start, PROJECT_FILTER)
        if not path:
            return False
        return self.save_project_to(path)

    def save_project_to(self, path: str | Path) -> bool:
        try:
            proj.write_project(self.state, path)
        except (AnonStudioError, OSError, ValueError) as exc:
            self.error("Cannot save project", exc)
            return False
        auto = proj.autosave_path(self.state.project_path) if self.state.project_path else None
        self.state.mark_saved(path)
        for stale in {auto, proj.autosave_path(path)}:
            if stale is not None and stale.exists():
                stale.unlink()
        self.add_recent(path)
        self.statusBar().showMessage(f"Saved {Path(path).name}", 5000)
        return True

    def autosave(self) -> Path | None:
        """Write ``<name>.autosave.json`` beside the project (or in the app data folder) if anything changed."""
        if not self.state.dirty or self.state.data is None:
            return None
        fallback = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation) or tempfile.gettempdir()
        target = proj.autosave_path(self.state.project_path, fallback)
        try:
            proj.write_project(self.state, target)
        except (AnonStudioError, OSError, ValueError) as exc:
            self.statusBar().showMessage(f"Autosave failed: {error_text(exc)}", 10000)
            return None
        return target

    def save_job(self, path: str | Path) -> bool:
        try:
            proj.save_job(self.state, path)
        except (AnonStudioError, OSError, ValueError) as exc:
            self.error("Cannot save job", exc)
            return False
        self.statusBar().showMessage(f"Saved job {Path(path).name}: run it with `anonstudio run {Path(path).name}`", 8000)
        return True

    def save_job_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save job", self._last_dir(), "Jobs (*.toml)")
        if path:
            self.save_job(path)

    def export_data(self, path: str | Path) -> bool:
        from anonstudio.core import jobs

        if self.state.outcome is None:
            return False
        try:
            jobs.write_outputs(self.state.outcome, Path(path), None, reads=self.state.files_read())
        except (AnonStudioError, OSError, ValueError) as exc:
            self.error("Cannot export data", exc)
            return False
        self.statusBar().showMessage(f"Wrote {Path(path).name}", 5000)
        return True

    def export_data_dialog(self) -> None:
        ext = ".fasta" if self.state.kind == "fasta" else (self.state.data_path.suffix if self.state.data_path else ".csv")
        path, _ = QFileDialog.getSaveFileName(self, "Export anonymized data", f"anonymized{ext}", "All files (*)")
        if path:
            self.export_data(path)

    def export_report(self, path: str | Path) -> bool:
        from anonstudio.core.io import refuse_overwrites, write_json

        rep = self.state.outcome.report if self.state.outcome is not None else self.state.last_report
        if rep is None:
            return False
        try:
            refuse_overwrites({"the report": Path(path)}, self.state.files_read())
            write_json(rep, Path(path))
        except (AnonStudioError, OSError, ValueError, TypeError) as exc:
            self.error("Cannot export report", exc)
            return False
        return True

    def export_report_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export report", "report.json", "JSON (*.json)")
        if path:
            self.export_report(path)

    # -- running ---------------------------------------------------------------------------------------------
    def _method_and_params(self) -> tuple[str | None, dict]:
        pane = self.panes.get("Method")
        if pane is not None and hasattr(pane, "method") and pane.method():
            if hasattr(pane, "is_valid") and not pane.is_valid():
                raise AnonStudioError("the method's parameters are not valid: see the Method pane")
            return pane.method(), dict(pane.params())
        return self.state.method, dict(self.state.params)

    def start_run(self, method: str | None = None, params: dict | None = None) -> RunWorker | None:
        """Run the chosen method on a worker thread; the panes show progress and then the outcome."""
        if self.runner.busy:
            return None
        if self.state.data is None:
            self.error("Nothing to run", "Open a data file first (File ▸ Open data).")
            return None
        try:
            if method is None:
                method, params = self._method_and_params()
            if not method:
                raise AnonStudioError("choose a method in the Method pane first")
            params = dict(params or {})
            from anonstudio.core import algorithms

            algorithms.get(method)(**params)  # parameter errors now, as a dialog
        except AnonStudioError as exc:
            self.error("Cannot run", exc)
            return None
        if method != self.state.method or params != self.state.params:
            self.state.set_method(method, params)
        data = proj.copy_for_run(self.state.data)
        worker = RunWorker(proj.run_method, data, dict(self.state.hierarchies), method, params)
        return self._start_task(worker, "run", f"Running {method}…", self._run_finished)

    def _start_task(self, worker: RunWorker, task: str, text: str, on_finished) -> RunWorker:
        """Start a run or sweep ``worker``: progress to the Run pane and status bar, ``on_finished`` with its
        result; failure and cancel are shown alike for both."""
        self._task = task
        run_pane = self.panes.get("Run")
        if run_pane is not None:
            run_pane.start(text)
            worker.progress.connect(run_pane.progress)
        # only bound methods of GUI-thread objects: their calls are queued to this thread
        worker.progress.connect(self._show_progress)
        worker.finished.connect(on_finished)
        worker.failed.connect(self._run_failed)
        worker.cancelled.connect(self._run_cancelled)
        self.worker = worker
        self.runner.start_worker(worker)
        self._update_actions()
        return worker

    def _show_progress(self, fraction: float, message: str) -> None:
        self.statusBar().showMessage(f"{message} ({fraction:.0%})")

    def _sweep_finished(self, rows: list) -> None:
        self.worker = None
        run_pane = self.panes.get("Run")
        if run_pane is not None:
            run_pane.finish(True, f"Sweep done: {len(rows)} points")
        self.statusBar().showMessage(f"Sweep done: {len(rows)} points", 8000)
        self._update_actions()
        self.sweepFinished.emit(rows)

    def cancel_run(self) -> None:
        self.runner.cancel()

    def _run_finished(self, outcome: Any) -> None:
        """Show a finished run: one result pane per turn of the event loop, then the state, then
        ``runFinished``. Each pane's share of the work is drawing (the worker thread already computed its
        views, ``project.run_method``), and the window answers input between two panes."""
        self.worker = None
        self._presenting = (outcome, [t for t in RESULT_PANES if hasattr(self.panes.get(t), "show_outcome")])
        self._update_actions()
        QTimer.singleShot(0, self._present_next)

    def _present_next(self) -> None:
        if self._presenting is None:
            return  # new data was opened meanwhile: the panes were cleared and stay so
        outcome, titles = self._presenting
        if titles:
            pane = self.panes.get(titles.pop(0))
            if pane is not None and getattr(pane, "outcome", None) is not outcome:
                pane.show_outcome(outcome)
            QTimer.singleShot(0, self._present_next)
            return
        self._presenting = None
        self.state.set_outcome(outcome)  # the panes already show it: their state listeners have nothing to do
        self._raise_result_view(outcome)
        verdict = self.state.verdict_text()
        run_pane = self.panes.get("Run")
        if run_pane is not None:
            run_pane.finish(True, verdict)
        self.statusBar().showMessage(f"Done: {verdict}", 8000)
        self._update_actions()
        self.runFinished.emit(outcome)

    def _raise_result_view(self, outcome) -> None:
        """Bring the pane the method declares as its own result view to the front (e.g. Clusters for CBMSA)."""
        from anonstudio.core import algorithms

        try:
            view = algorithms.get(outcome.report.get("algorithm", "")).result_view
        except AnonStudioError:
            return
        if view in self.docks:
            self.docks[view].raise_()

    def _run_failed(self, exc: BaseException) -> None:
        self.worker = None
        run_pane = self.panes.get("Run")
        if run_pane is not None:
            run_pane.finish(False, error_text(exc))
        self.statusBar().showMessage("The run failed: nothing was published", 10000)
        self._update_status()
        self._update_actions()
        self.error("The sweep failed" if self._task == "sweep" else "The run failed", exc)
        self.runFinished.emit(exc)

    def _run_cancelled(self) -> None:
        self.worker = None
        run_pane = self.panes.get("Run")
        if run_pane is not None:
            run_pane.finish(False, "Cancelled")
        self.statusBar().showMessage("Cancelled", 5000)
        self._update_actions()
        self.runFinished.emit(None)

    def start_sweep(self, points: list[dict], method: str | None = None, params: dict | None = None) -> SweepWorker | None:
        """Run the method once per point (``{"k": 5}`` …); each point's figures arrive as ``point(dict)``."""
        if self.runner.busy or self.state.data is None:
            return None
        try:
            if method is None:
                method, params = self._method_and_params()
            if not method:
                raise AnonStudioError("choose a method in the Method pane first")
        except AnonStudioError as exc:
            self.error("Cannot run sweep", exc)
            return None
        data = proj.copy_for_run(self.state.data)
        hierarchies = dict(self.state.hierarchies)
        base = dict(params or {})

        def one(point: dict, progress=None) -> dict:
            return proj.sweep_point(data, hierarchies, method, base, point, progress)

        worker = SweepWorker(one, points)
        metrics = self.panes.get("Metrics")
        if metrics is not None and hasattr(metrics, "add_sweep_point"):
            worker.point.connect(metrics.add_sweep_point)
        return self._start_task(worker, "sweep", f"Sweep of {method} over {len(points)} points…",
                                self._sweep_finished)

    def sweep_dialog_open(self) -> None:
        try:
            method, params = self._method_and_params()
            if not method:
                raise AnonStudioError("choose a method in the Method pane first")
            from anonstudio.core import algorithms

            cls = algorithms.get(method)
        except AnonStudioError as exc:
            self.error("Cannot run sweep", exc)
            return
        names = [p.name for p in cls.parameters if getattr(p, "kind", None) in ("int", "float")]
        if not names:
            self.error("Cannot run sweep", f"method '{method}' has no numeric parameter to sweep")
            return
        dialog = SweepDialog(names, self)
        self.sweep_dialog = dialog

        def go() -> None:
            try:
                points = dialog.points()
            except ValueError as exc:
                self.error("Sweep values", str(exc))
                return
            worker = self.start_sweep(points, method, params)
            if worker is not None:
                worker.point.connect(dialog.add_point)

        dialog.buttons.accepted.connect(go)
        dialog.show()

    # -- help ------------------------------------------------------------------------------------------------
    def papers_html(self) -> str:
        """The methods this build provides, each with the paper it implements (``Algorithm.reference``)."""
        from anonstudio.core import algorithms

        items = []
        for cls in algorithms.available():
            items.append(f"<li><b>{cls.title or cls.name}</b> (<code>{cls.name}</code>, {cls.data_kind}):<br>{cls.reference}</li>")
        if not items:
            return "<p>No methods are available in this build.</p>"
        return "<h3>The papers behind each method</h3><ul>" + "".join(items) + "</ul>"

    def experiments_open(self):
        """Open (or raise) the paper experiments window; a FASTA open here is its default input."""
        from anonstudio.gui.experiments import ExperimentsWindow

        fasta = self.state.data_path if self.state.kind == "fasta" else None
        if self.experiments_window is None:
            self.experiments_window = ExperimentsWindow(self, fasta=fasta)
        else:
            self.experiments_window.set_fasta(fasta)
        self.experiments_window.show()
        self.experiments_window.raise_()
        return self.experiments_window

    def show_papers(self) -> None:
        dialog = QDialog(self)
        dialog.setWindowTitle("Papers behind the methods")
        view = QTextBrowser()
        view.setOpenExternalLinks(True)
        view.setHtml(self.papers_html())
        layout = QVBoxLayout(dialog)
        layout.addWidget(view)
        dialog.resize(640, 480)
        dialog.show()

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            "About anonstudio",
            f"<b>anonstudio {__version__}</b><br>A workbench for anonymizing tables, event sequences and "
            "protein/DNA strings before sharing. Every output is re-checked by an independent verifier.",
        )

    # -- helpers ---------------------------------------------------------------------------------------------
    def _last_dir(self) -> str:
        return str(self.settings.value("lastDir", str(Path.home())))

    def _remember_dir(self, path: str) -> None:
        self.settings.setValue("lastDir", str(Path(path).parent))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        preload_engine()  # once per process: numba's imports then never stall a run's GUI thread
        if not hasattr(self, "_kernel_timer"):
            self._kernel_timer = QTimer(self, interval=250, timeout=self._show_kernel_state)
            self._kernel_timer.start()

    def _show_kernel_state(self) -> None:
        """Status bar while the kernels are compiled in the background (first start after an install)."""
        from anonstudio.gui import workers

        if workers.preload_state == "compiling":
            self.statusBar().showMessage("preparing kernels… (first start: compiling them once)")
        elif workers.preload_state == "done":
            self._kernel_timer.stop()
            if self.statusBar().currentMessage().startswith("preparing kernels"):
                self.statusBar().showMessage("kernels ready", 3000)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self._confirm_discard():
            event.ignore()
            return
        self.autosave_timer.stop()
        self.runner.shutdown()
        if self.experiments_window is not None:
            self.experiments_window.runner.shutdown()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()
        event.accept()
