"""The workbench window: menus, toolbar, dockable panes, status bar, runs on a worker thread.

File actions, run control and help live in their own modules (:mod:`~anonstudio.gui.window_files`,
:mod:`~anonstudio.gui.window_run`, :mod:`~anonstudio.gui.window_help`) as mixins; this module keeps the
layout, the actions and menus, and the wiring between the state and the panes.

Panes are docks named Data, Hierarchies, Attributes, Method, Run, Compare, Composition, MST partition, Clusters,
Randomization, Anatomy, Metrics, Privacy, Risk, Lattice, Utility and History. All of them read one :class:`~anonstudio.core.workspace.Workspace`; the window changes it (open,
save, run) and forwards its change notifications. Methods come from the engine's registry
(``core.algorithms.available``). A file that cannot be read (data, hierarchy, project, job) shows a dialog
with the error — which file, where, what — and leaves the workbench as it was.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMessageBox, QWidget

from anonstudio.gui.panes._common import ResultHolder, size_text, verdict_text, window_title
from anonstudio.core.workspace import Workspace
from anonstudio.core.views.workbench_words import all_in_workbench_words
from anonstudio.gui.dialogs import SweepDialog, error_text, unexpected_error_box
from anonstudio.gui.workers import RunWorker, TaskRunner, preload_engine
from anonstudio.gui.window_files import FileActions
from anonstudio.gui.window_help import HelpActions
from anonstudio.gui.window_layout import LayoutActions
from anonstudio.gui.window_run import RunControl

#: dock title → (module in anonstudio.gui.panes, class, dock area)
PANES: dict[str, tuple[str, str, Qt.DockWidgetArea]] = {
    "Data": ("data", "DataPane", Qt.DockWidgetArea.LeftDockWidgetArea),
    "Hierarchies": ("hierarchy_editor", "HierarchyEditor", Qt.DockWidgetArea.LeftDockWidgetArea),
    "Attributes": ("attributes", "AttributesPane", Qt.DockWidgetArea.LeftDockWidgetArea),
    "Method": ("parameters", "ParametersPane", Qt.DockWidgetArea.RightDockWidgetArea),
    "Run": ("run", "RunPane", Qt.DockWidgetArea.RightDockWidgetArea),
    "Summary": ("summary", "SummaryPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Compare": ("compare", "ComparePane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Composition": ("composition", "CompositionPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "MST partition": ("mst_partition", "MstPartitionPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Clusters": ("clusters", "ClustersPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Randomization": ("randomization", "RandomizationPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Anatomy": ("anatomy", "AnatomyPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Metrics": ("metrics", "MetricsPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Privacy": ("privacy", "PrivacyPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Risk": ("risk", "RiskPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Lattice": ("lattice", "LatticePane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "Utility": ("utility", "UtilityPane", Qt.DockWidgetArea.BottomDockWidgetArea),
    "History": ("history", "HistoryPane", Qt.DockWidgetArea.BottomDockWidgetArea),
}
#: panes that show a run's outcome (``show_outcome`` / ``clear``)
RESULT_PANES = ("Method", "Run", "Summary", "Compare", "Composition", "MST partition", "Clusters", "Randomization", "Anatomy",
                "Metrics", "Privacy", "Risk", "Lattice", "Utility")

AUTOSAVE_MS = 60_000


class MainWindow(FileActions, RunControl, HelpActions, LayoutActions, QMainWindow):
    """The anonstudio workbench.

    Parameters
    ----------
    settings:
        Where layout and recent files are kept (default: the application's ``QSettings``).
    """

    #: the panes a finished run is presented to, in order (:class:`~anonstudio.gui.window_run.RunControl`)
    result_panes = RESULT_PANES
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
        self.state = Workspace()
        self.runner = TaskRunner(self)
        self.runner.idle.connect(self._update_actions)
        self.worker: RunWorker | None = None
        #: a finished run being shown pane by pane: (outcome, titles of the panes still to show it)
        self._presenting: tuple[Any, list[str]] | None = None
        self._task = "run"
        #: a file being read on a worker: (path, kind, read options, title of the error dialog if it fails)
        self._pending_open: tuple[str, str, dict | None, str] | None = None
        self.sweep_dialog: SweepDialog | None = None
        #: the last "something went wrong inside anonstudio" box (a bug, logged; see ``error``)
        self.last_error_box = None
        self.experiments_window = None
        self.panes: dict[str, QWidget] = {}
        self.docks: dict[str, QDockWidget] = {}
        #: the result docks' contents (pane, scroll area, out-of-date banner)
        self.holders: dict[str, ResultHolder] = {}
        self._results_shown = False  # a run's results are on screen (current or out of date)
        self.setObjectName("anonstudioMainWindow")
        self.setDockNestingEnabled(True)
        self.resize(1400, 900)

        self._make_panes()
        self._make_actions()
        self._make_menus()
        self._make_status_bar()
        self.state.subscribe(self._on_state)
        self._restore_layout()
        self.show_result_tabs(None, force=True)

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
            if title in RESULT_PANES and area == Qt.DockWidgetArea.BottomDockWidgetArea:  # scrolls; greys when stale
                self.holders[title] = ResultHolder(pane)
            dock.setWidget(self.holders.get(title, pane))
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
        if "Attributes" in self.docks and "Data" in self.docks:  # below the data, as ARX has it (tabified beside
            # Hierarchies, Qt 6 leaves a second, stale tab bar on screen)
            self.splitDockWidget(self.docks["Data"], self.docks["Attributes"], Qt.Orientation.Vertical)
            self.resizeDocks([self.docks["Data"], self.docks["Attributes"]], [330, 230], Qt.Orientation.Vertical)
        run = self.panes.get("Run")
        if run is not None and hasattr(run, "cancelRequested"):
            run.cancelRequested.connect(self.cancel_run)
        if run is not None and hasattr(run, "runRequested"):
            run.runRequested.connect(lambda: self.act_run.trigger())
        method = self.panes.get("Method")
        if method is not None and hasattr(method, "paramsChanged"):  # Run follows the parameters' validity
            method.paramsChanged.connect(lambda *_: self._update_actions())
            method.validityChanged.connect(lambda *_: self._update_actions())
        hier = self.panes.get("Hierarchies")
        data = self.panes.get("Data")
        if data is not None and hasattr(data, "roleChanged") and hier is not None:
            data.roleChanged.connect(lambda *_: hier.refresh())
        attributes = self.panes.get("Attributes")
        if attributes is not None:
            attributes.editHierarchy.connect(self.edit_hierarchy)
        if "History" in self.panes:
            self.panes["History"].showRun.connect(self.show_history_run)
        if "Lattice" in self.panes:
            self.panes["Lattice"].publishRequested.connect(self.publish_transformation)

    def edit_hierarchy(self, column: str) -> None:
        """Show ``column``'s hierarchy in the hierarchy editor."""
        self.docks["Hierarchies"].raise_()
        self.panes["Hierarchies"].select_attribute(column)

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
        self.act_open_data = self._action("&Open data…", self.open_data_dialog, K.Open, "Open a table, event sequences or FASTA sequences")
        self.act_open_table = self._action("Open &table…", self.open_table_dialog, None, "Open a delimited table or Parquet file")
        self.act_open_events = self._action("Open &event sequences…", self.open_events_dialog, "Ctrl+Shift+E", "Open an event log (one row per event)")
        self.act_open_fasta = self._action("Open &sequences (FASTA)…", self.open_fasta_dialog, "Ctrl+Shift+F", "Open protein or DNA sequences")
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
        self.act_guide = self._action("User &guide", self.show_guide, "F1", "Job files, what every figure means, scripts")
        self.act_papers = self._action("&Papers behind the methods", self.show_papers)
        self.act_reset_layout = self._action("Reset &layout", self.reset_layout)

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addAction(self.act_open_data)
        open_menu = file_menu.addMenu("Open &as")
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
        help_menu.addActions([self.act_guide, self.act_papers, self.act_about])

        tools = self.addToolBar("Main")
        tools.setObjectName("toolbar:main")
        tools.addActions([self.act_open_data, self.act_open_project, self.act_save])
        tools.addSeparator()
        tools.addActions([self.act_run, self.act_cancel])
        tools.addSeparator()
        tools.addAction(self.act_export_data)

    def _make_status_bar(self) -> None:
        self.size_label = QLabel("no data")
        self.verdict_label = QLabel("")
        self.statusBar().addPermanentWidget(self.size_label)
        self.statusBar().addPermanentWidget(self.verdict_label)

    # -- state ----------------------------------------------------------------------------------------------
    def _on_state(self, what: str) -> None:
        data_pane = self.panes.get("Data")
        hier = self.panes.get("Hierarchies")
        if what == "data":
            self._presenting = None
            for title in ("Hierarchies", "Attributes"):  # sequences have no columns, so no roles or hierarchies
                if title in self.docks and self.state.kind is not None:
                    self.docks[title].setVisible(self.state.kind != "fasta")
            if data_pane is not None:
                data_pane.refresh()
            if hier is not None:
                hier.refresh()
            self._clear_results()
            self.show_result_tabs(self.state.method, force=True)
            if self.isVisible():  # new data, no results yet: the setup docks get the room again
                QTimer.singleShot(0, self.apply_shares)
        elif what == "roles":
            if data_pane is not None:
                data_pane.roles_changed()
            if hier is not None:
                hier.refresh()
        elif what == "hierarchies":
            if hier is not None and not getattr(hier, "applying", False):
                hier.refresh()
        elif what == "method":
            if hier is not None:
                hier.validate()  # a method that needs no hierarchy makes a missing one no error
            if not self._results_shown:  # the tabs of the method chosen; shown results keep their run's tabs
                self.show_result_tabs(self.state.method)
        elif what == "outcome":
            if self.state.outcome is None and not self.state.stale_reason:
                self._clear_results()
        # results that no longer belong to what is on screen stay, greyed under a banner saying why
        stale = self.state.stale_reason if self.state.outcome is None and self._results_shown else None
        for holder in self.holders.values():
            holder.set_stale(stale)
        if stale and hasattr(self.panes.get("Run"), "mark_stale"):
            self.panes["Run"].mark_stale(stale)
        self._update_title()
        self._update_status()
        self._update_actions()

    def _clear_results(self) -> None:
        self._results_shown = False
        for title in RESULT_PANES:
            pane = self.panes.get(title)
            if pane is not None and title not in ("Method",) and hasattr(pane, "clear"):
                pane.clear()

    def _update_title(self) -> None:
        self.setWindowTitle(window_title(self.state))

    def _update_status(self) -> None:
        for label, text in ((self.size_label, size_text(self.state)), (self.verdict_label, verdict_text(self.state))):
            label.setText(text)
            label.setMinimumWidth(label.fontMetrics().horizontalAdvance(text) + 12 if text else 0)
        verdict = self.state.release_verdict()  # the engine judges; red when the model holds but a risk is left
        unsafe = verdict.model_holds is not None and not verdict.safe_to_publish
        self.verdict_label.setStyleSheet("color: #b00020; font-weight: bold;" if unsafe else "")
        self.verdict_label.setToolTip("\n".join(all_in_workbench_words(verdict.risks)) if unsafe else "")

    def _update_actions(self) -> None:
        if not hasattr(self, "act_run"):
            return  # still being built
        busy = self.runner.busy or self._presenting is not None
        has_data = self.state.data is not None
        blocked = self.run_blocked_reason() if has_data else ""
        self.act_run.setEnabled(has_data and not busy and not blocked)
        self.act_run.setToolTip(blocked or "Anonymize with the chosen method (F5)")
        run = self.panes.get("Run")
        if run is not None and hasattr(run, "set_runnable"):
            run.set_runnable(self.act_run.isEnabled(), "" if busy else blocked)
        self.act_sweep.setEnabled(has_data and not busy)
        self.act_cancel.setEnabled(busy)
        self.act_export_data.setEnabled(self.state.outcome is not None)
        self.act_export_report.setEnabled(self.state.outcome is not None or self.state.last_report is not None)
        self.act_save_job.setEnabled(has_data)

    def run_blocked_reason(self) -> str:
        """Why Run is off although data is open (issue 40 item 4), ``""`` when it may start: no method chosen, or
        a parameter the engine would refuse — named by its label, with the engine's message."""
        pane = self.panes.get("Method")
        if pane is None or not hasattr(pane, "is_valid") or not hasattr(getattr(pane, "method_box", None), "count"):
            return ""
        if pane.method_box.count() == 0:
            return ""  # nothing offered for this data: Run says so itself
        if pane.method() is None:
            return "Run is off: choose a method in the Method pane"
        errors = pane.errors()
        if errors:
            name, message = next(iter(errors.items()))
            label = pane.form.field(name).param.label
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            what = message if label.lower() in message.lower() else f"{label}: {message}"
            return f"Run is off: {what}{more}"
        if not pane.is_valid():
            return "Run is off: the method's parameters do not fit together (see the Method pane)"
        return ""

    def error(self, title: str, exc: BaseException | str, *, unexpected: bool | None = None) -> None:
        """Show an error dialog (the error's own text: file, where, what). An exception that is a bug (``unexpected``;
        by default anything but an engine error, an ``OSError`` or a ``ValueError`` a form raised) becomes a sentence
        with a "details" disclosure and is logged (:func:`~anonstudio.gui.dialogs.unexpected_error_box`)."""
        from anonstudio.core.error_log import is_unexpected

        if not isinstance(exc, str):
            if unexpected is None:
                unexpected = is_unexpected(exc) and not isinstance(exc, ValueError)
            if unexpected:
                self.last_error_box = unexpected_error_box(self, title, exc)
                return
        QMessageBox.critical(self, title, exc if isinstance(exc, str) else error_text(exc))

    def install_excepthook(self) -> None:
        """Route exceptions that escape a Qt slot on the GUI thread (PySide6 hands them to ``sys.excepthook``)
        to :meth:`error` as unexpected: logged, a sentence and the details, and the window goes on."""
        import sys

        previous = sys.excepthook

        def hook(kind, exc, tb) -> None:
            if issubclass(kind, KeyboardInterrupt):
                previous(kind, exc, tb)
                return
            if exc.__traceback__ is None:
                exc = exc.with_traceback(tb)
            self.error("Unexpected error", exc, unexpected=True)

        sys.excepthook = hook

    def showEvent(self, event) -> None:
        super().showEvent(event)
        saved = getattr(self, "_saved_size", None)
        if self._sized and saved is not None and (abs(saved.width() - self.width()) > 0.1 * saved.width()
                                                  or abs(saved.height() - self.height()) > 0.1 * saved.height()):
            self._sized = False  # a layout saved at another size: this window's shares, not its pixels
        if not self._sized:  # dock sizes only take once the window has its size: data on top gets the most
            self._sized = True
            QTimer.singleShot(0, self._default_sizes)
        elif self._shared_at is None:
            self._shared_at = self.size()
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
        for runner in self.findChildren(TaskRunner):  # the panes' own (risk, randomization): cancel and wait too
            if runner is not self.runner:
                runner.shutdown()
        if self.experiments_window is not None:
            self.experiments_window.runner.shutdown()
        self.save_layout()
        self.settings.sync()
        event.accept()
