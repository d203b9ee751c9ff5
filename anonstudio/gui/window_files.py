"""The workbench's file actions: open data, projects, jobs and the demo (asking before unsaved work is
discarded), save projects and jobs, export verified output and reports. A mixin of
:class:`~anonstudio.gui.main_window.MainWindow`, which provides the state, panes, runner and dialogs."""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, Qt
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMessageBox

from anonstudio.core.errors import AnonStudioError
from anonstudio.core.io import formats
from anonstudio.core import workspace as proj
from anonstudio.core.workspace import Workspace
from anonstudio.gui.dialogs import FAILED, USER_ERRORS, EventColumnsDialog, error_text
from anonstudio.gui.workers import ReadWorker, RunWorker

# every filter is the format registry's (anonstudio.core.io.formats): a format added there is offered here
DATA_FILTER = formats.dialog_filter("table", label="Tables")
FASTA_FILTER = formats.dialog_filter("fasta")
#: File ▸ Open data… (Ctrl+O): every kind; the filter chosen says which, "All files" decides by extension
OPEN_FILTERS = {
    formats.dialog_filter("table", label="Tables", all_files=False): "table",
    formats.dialog_filter("table", label="Event sequences, one row per event", all_files=False): "events",
    formats.dialog_filter("fasta", label="Sequences, FASTA", all_files=False): "fasta",
    formats.ALL_FILES: "",
}
#: files remembered as chosen by this user (``trustedFiles`` in the settings)
MAX_TRUSTED = 200
#: the colour of a release risk (status bar, Summary, export dialog)
RISK_COLOUR = "#b00020"
PROJECT_FILTER = ";;".join((formats.get("project").filter, formats.get("job").filter, formats.ALL_FILES))


class FileActions:
    """File ▸ Open, Save and Export: every read goes through the workspace's readers (a job's, one set of checks),
    every write through the workspace: ``Workspace.publish`` (the publication ``anonstudio run`` makes) or its
    project and job files (atomic)."""

    def attempt(self, title: str, func, *args, errors: tuple = USER_ERRORS, busy: bool = False, **kwargs):
        """``func(*args, **kwargs)``, or :data:`FAILED` after one dialog titled ``title`` with the error's own
        text (file, where, what) — the one place the file actions turn an engine error into a dialog.
        ``busy``: a wait cursor while it runs."""
        if busy:
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            return func(*args, **kwargs)
        except errors as exc:
            if busy:
                QApplication.restoreOverrideCursor()
                busy = False
            self.error(title, exc)
            return FAILED
        finally:
            if busy:
                QApplication.restoreOverrideCursor()

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
        data = self.attempt("Cannot open data", proj.read_data, path, kind, options, busy=True)
        if data is FAILED:
            return False
        self._show_data(data, path, options)
        return True

    def open_data_async(self, path: str | Path, kind: str = "table", options: dict[str, Any] | None = None) -> RunWorker | None:
        """Read a data file on a worker thread (large files do not freeze the window); ``dataOpened`` or an
        error dialog follows. What the menus use."""
        worker = ReadWorker(proj.reading, proj.read_data, path, kind, options)  # Cancel stops it
        return self._read_on_worker(worker, (str(path), kind, options, "Cannot open data"), self._data_read)

    def _read_on_worker(self, worker: RunWorker, pending: tuple, on_read) -> RunWorker | None:
        """Start ``worker`` reading ``pending[0]`` (one file at a time: ``None`` while another is being read);
        ``on_read`` gets what it read, a failure becomes a dialog titled ``pending[3]``."""
        if self._pending_open is not None:
            return None
        self._pending_open = pending
        worker.finished.connect(on_read)
        worker.failed.connect(self._data_failed)
        worker.cancelled.connect(self._read_cancelled)
        self.statusBar().showMessage(f"Reading {Path(pending[0]).name}… (Esc cancels)")
        QApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        self.runner.start_worker(worker)
        self._update_actions()  # Cancel is on while it reads
        return worker

    def _data_read(self, data: Any) -> None:
        QApplication.restoreOverrideCursor()
        pending, self._pending_open = self._pending_open, None
        if pending is not None:
            self._show_data(data, pending[0], pending[2])

    def _read_cancelled(self) -> None:
        """Cancel while reading: nothing was opened, what was open stays."""
        QApplication.restoreOverrideCursor()
        pending, self._pending_open = self._pending_open, None
        name = Path(pending[0]).name if pending is not None else "the file"
        self.statusBar().showMessage(f"Cancelled: {name} was not opened", 5000)

    def _data_failed(self, exc: BaseException) -> None:
        QApplication.restoreOverrideCursor()
        pending, self._pending_open = self._pending_open, None
        self.statusBar().clearMessage()
        from anonstudio.core.error_log import is_unexpected

        self.error(pending[3] if pending is not None else "Cannot open data", exc, unexpected=is_unexpected(exc))

    def _show_data(self, data: Any, path: str | Path, options: dict[str, Any] | None) -> None:
        self.forget_per_data_views()
        self.state.open_data(data, Path(path).resolve(), read_options=options)  # nothing of the earlier data stays
        self.trust_files([path])
        self.state.propose_roles()  # columns start without a role; an identifier-looking one is proposed identifying
        self.add_recent(path)
        self.statusBar().showMessage(f"Opened {Path(path).name}", 5000)
        self.dataOpened.emit(str(path))

    def forget_per_data_views(self) -> None:
        """Before other data, a job or a project is shown (issue 40 item 1): the views that keep something of the
        data open now drop it — the hierarchy editor's trees (one still being built included), a run being
        presented, a sweep's points — so nothing of it is applied to what comes next."""
        self._presenting = None
        hier = self.panes.get("Hierarchies")
        if hier is not None and hasattr(hier, "forget"):
            hier.forget()
        metrics = self.panes.get("Metrics")
        if metrics is not None and hasattr(metrics, "clear_sweep"):
            metrics.clear_sweep()

    def open_data_dialog(self) -> None:
        """File ▸ Open data… (Ctrl+O): a table, an event log or FASTA sequences, as the chosen filter says."""
        path, chosen = QFileDialog.getOpenFileName(self, "Open data", self._last_dir(), ";;".join(OPEN_FILTERS))
        if path:
            self._remember_dir(path)
            self.open_as(path, OPEN_FILTERS.get(chosen, ""))

    def open_as(self, path: str | Path, kind: str = "") -> None:
        """Open ``path`` as ``kind`` (``""``: FASTA by its extension, else a table); event logs first ask which
        columns hold the sequence id and the event order."""
        kind = kind or ("fasta" if formats.format_for(path, "fasta") else "table")
        if kind == "events":
            self.open_events(path)
        else:
            self.open_data_async(path, kind)

    def open_table_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open table", self._last_dir(), DATA_FILTER)
        if path:
            self._remember_dir(path)
            self.open_data_async(path, "table")

    def open_fasta_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open sequences (FASTA)", self._last_dir(), FASTA_FILTER)
        if path:
            self._remember_dir(path)
            self.open_data_async(path, "fasta")

    def open_events_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open event sequences", self._last_dir(), DATA_FILTER)
        if path:
            self._remember_dir(path)
            self.open_events(path)

    def open_events(self, path: str | Path) -> None:
        """Ask which columns hold the sequence id and the event order, then read ``path`` as an event log."""
        table = self.attempt("Cannot open data", proj.read_data, path, "table")
        if table is FAILED:
            return
        columns = table.df.columns.astype(str).tolist()
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
        """Open a project; files it reads from outside its folder (and below) raise the trust question unless this
        user chose them before (:meth:`trusted_files`)."""
        outside = self.attempt("Cannot open project", proj.outside_files, path, self.trusted_files())
        if outside is FAILED:
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
        return self._open_state(path, proj.workspace_from_job, "Cannot open job", wait)

    def _open_state(self, path: str | Path, read, title: str, wait: bool = True) -> bool:
        """Read a project or job with ``read`` (with its data and hierarchies); on failure show the error and
        keep the current state. ``wait=False`` (the menus): read on a worker thread, so a large data file
        does not freeze the window; ``projectOpened`` or an error dialog follows."""
        if not self._confirm_discard():
            return False
        if not wait:
            worker = ReadWorker(proj.reading, read, path)  # Cancel stops it
            pending = (str(path), proj.guess_kind(path), None, title)
            return self._read_on_worker(worker, pending, self._state_read) is not None
        new = self.attempt(title, read, path)
        if new is FAILED:
            return False
        self._show_state(new, path)
        return True

    def trusted_files(self) -> set[Path]:
        """Real paths of the files this user chose (opened as data, or saved in a project of theirs): a project
        reading them from another folder raises no trust question."""
        from anonstudio.core.io import real_path

        value = self.settings.value("trustedFiles", [])
        if isinstance(value, str):
            value = [value]
        return {real_path(v) for v in (value or [])}

    def trust_files(self, paths) -> None:
        from anonstudio.core.io import real_path

        known = [str(p) for p in self.trusted_files()]
        new = [str(real_path(p)) for p in paths if str(real_path(p)) not in known]
        if new:
            self.settings.setValue("trustedFiles", (new + known)[:MAX_TRUSTED])

    def _state_read(self, new: Workspace) -> None:
        QApplication.restoreOverrideCursor()
        pending, self._pending_open = self._pending_open, None
        if pending is not None:
            self._show_state(new, pending[0])

    def _show_state(self, new: Workspace, path: str | Path) -> None:
        self.adopt_state(new)
        self.add_recent(path)
        self.statusBar().showMessage(f"Opened {Path(path).name}", 5000)
        self.projectOpened.emit(str(path))

    def adopt_state(self, new: Workspace) -> None:
        """Show a project or job just read (keeps this window's state object, which the panes hold)."""
        method, params, dirty, restored = new.method, dict(new.params), new.dirty, new.outcome
        self.forget_per_data_views()
        self.state.replace_from(new)
        # a pane that follows the data kind may have reset the method to its defaults: put the project's back
        if (self.state.method, self.state.params) != (method, params):
            self.state.set_method(method, params)
        if restored is not None and self.state.outcome is None:  # dropped by that reset only: it is the project's
            self.state.outcome, self.state.stale_reason = restored, None
            if not self.state.outcome_is_current():
                self.state._invalidate("the project's method is not available to check its last release")
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
        if self.state.outcome is not None:  # a project's last release, re-verified as it was read
            self.show_restored_outcome()
        elif self.state.stale_reason and self.state.last_report:
            self.statusBar().showMessage(f"The last release was not restored: {self.state.stale_reason}", 10000)

    def open_project_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open project or job", self._last_dir(), PROJECT_FILTER)
        if path:
            self._remember_dir(path)
            self.open_path(path, wait=False)

    def open_demo(self, folder: str | Path | None = None) -> bool:
        """Copy the bundled demo to ``folder`` (default: a new temporary folder) and open its table job."""
        from anonstudio.core.demo import prepare_demo

        def prepare() -> Path:
            out = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="anonstudio-demo-"))
            prepare_demo(out)
            return out

        out = self.attempt("Cannot open the demo", prepare, errors=(AnonStudioError, OSError))
        if out is FAILED:
            return False
        job = out / "table-mst.toml"
        if job.exists():
            try:
                self.adopt_state(proj.workspace_from_job(job))
                return True
            except USER_ERRORS:
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
        except (*USER_ERRORS, KeyError) as exc:
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
        if self.attempt("Cannot save project", proj.write_project, self.state, path) is FAILED:
            return False
        self.trust_files(self.state.files_read().values())  # the user's own choice: never asked about again
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
        except USER_ERRORS as exc:
            self.statusBar().showMessage(f"Autosave failed: {error_text(exc)}", 10000)
            return None
        return target

    def save_job(self, path: str | Path) -> bool:
        if self.attempt("Cannot save job", proj.save_job, self.state, path) is FAILED:
            return False
        self.statusBar().showMessage(f"Saved job {Path(path).name}: run it with `anonstudio run {Path(path).name}`", 8000)
        return True

    def save_job_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save job", self._last_dir(), formats.get("job").filter)
        if path:
            self.save_job(path)

    def export_data(self, path: str | Path, *, accepted_risks: list[str] | None = None) -> bool:
        """Publish the current outcome to ``path`` with its report ``<stem>.report.json`` beside it, as
        ``anonstudio run`` publishes (``Workspace.publish``): the release options (shuffled rows) apply, and a
        saved job then names these files. ``accepted_risks``: the release risks the user confirmed in the export
        dialog (:meth:`confirm_release_risks`), written into the report."""
        if self.state.outcome is None:
            return False
        if not self.state.outcome_is_current():
            self.state._invalidate("the roles, method or parameters changed since this run")
            self.state.notify("outcome")
            self.error("Cannot export data", "The roles, method or parameters on screen are not those this output "
                       "was verified against: run again to verify and export.")
            return False
        if self.attempt("Cannot export data", self.state.publish, Path(path), accepted_risks=accepted_risks) is FAILED:
            return False
        report = self.state.report_path
        self.statusBar().showMessage(f"Wrote {Path(path).name}" + (f" and {report.name}" if report else ""), 5000)
        return True

    def confirm_release_risks(self) -> list[str] | None:
        """Before an export: when the engine's release verdict says the model holds but release-level risks
        crossed their thresholds (``Workspace.release_verdict``), say so in red, each risk naming its fix as the
        workbench applies it (:mod:`anonstudio.core.views.workbench_words`), and ask for an explicit confirmation. When shuffling
        the rows removes a risk, the dialog's Apply button does it (ticks “Publish rows in a random order”) and
        asks again about what is left. Returns the risks confirmed (``[]``: none to confirm), or ``None`` when the
        user declined."""
        from html import escape

        from anonstudio.core.views.workbench_words import in_workbench_words, shuffling_fixes

        verdict = self.state.release_verdict()
        if verdict.safe_to_publish or not verdict.model_holds:
            return []
        items = "".join(f"<li>{escape(in_workbench_words(r))}</li>" for r in verdict.risks)
        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel
        fixable = any(shuffling_fixes(r) for r in verdict.risks)
        apply = ""
        if fixable:
            buttons |= QMessageBox.StandardButton.Apply
            apply = (" <b>Apply</b> shuffles the rows (ticks “Publish rows in a random order”) and asks again about "
                     "what is left.")
        answer = QMessageBox.question(
            self, "Not safe to publish",
            f"<p style='color:{RISK_COLOUR}'><b>{escape(verdict.headline())}</b></p><ul style='color:{RISK_COLOUR}'>"
            f"{items}</ul><p>The privacy model holds, but these risks are not covered by it.{apply} Publish anyway? "
            "Your confirmation and these risks are written into the report.</p>",
            buttons, QMessageBox.StandardButton.Cancel)
        if fixable and answer == QMessageBox.StandardButton.Apply:
            self.state.set_release(shuffle_rows=True)
            self.statusBar().showMessage("Rows are published in a random order (Release, in the Method pane)", 8000)
            return self.confirm_release_risks()
        if answer != QMessageBox.StandardButton.Yes:
            self.statusBar().showMessage("Export cancelled: nothing was published", 5000)
            return None
        return list(verdict.risks)

    def export_data_dialog(self) -> None:
        accepted = self.confirm_release_risks()
        if accepted is None:
            return
        path = self.export_path_dialog()
        if path:
            self._remember_dir(path)
            self.export_data(path, accepted_risks=accepted)

    def export_path_dialog(self) -> str:
        """Where File ▸ Export writes: one filter per format that holds the data (the format registry's), the
        format named by the job's or the last export's output selected (else the input's, else CSV / FASTA:
        ``formats.export_format``); a name typed without an ending gets the chosen filter's. ``""``: cancelled."""
        kind = "table" if self.state.kind == "events" else self.state.kind
        fmt = formats.export_format(kind, chosen=self.state.output_path, input_path=self.state.data_path)
        start = str(Path(self._last_dir()) / f"anonymized{fmt.suffix}")
        path, chosen = QFileDialog.getSaveFileName(self, "Export anonymized data", start,
                                                   formats.dialog_filter(kind, each=True), fmt.filter)
        picked = formats.filter_format(chosen, kind)
        if path and picked is not None and not Path(path).suffix:
            path = str(formats.with_suffix(path, picked))
        return path

    def export_report(self, path: str | Path) -> bool:
        """Write the last run's report as a publication writes it (files named without their folders; the
        output's name once it was exported, else none)."""
        from anonstudio.core.io import refuse_overwrites, write_json

        rep = self.state.report_for_export()
        if rep is None:
            return False

        def export() -> None:
            refuse_overwrites({"the report": Path(path)}, self.state.files_read())
            write_json(rep, Path(path))

        if self.attempt("Cannot export report", export, errors=(*USER_ERRORS, TypeError)) is FAILED:
            return False
        return True

    def export_report_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export report", "report.json", "JSON (*.json)")
        if path:
            self.export_report(path)
