"""The workbench's run control: start a run or a sweep on the worker thread, show its progress, cancel it,
and present the outcome pane by pane. A mixin of :class:`~anonstudio.gui.main_window.MainWindow`."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer

from anonstudio.core.errors import AnonStudioError
from anonstudio.core import workspace as proj
from anonstudio.gui.dialogs import FAILED, SweepDialog, error_text
from anonstudio.gui.panes._common import verdict_text
from anonstudio.gui.workers import RunWorker, SweepWorker
from anonstudio.core.views.workbench_words import counted

class RunControl:
    """Run, sweep, progress, cancel and the outcome's presentation (the engine's ``jobs.anonymize`` on a worker)."""

    # -- running ---------------------------------------------------------------------------------------------
    def _method_and_params(self) -> tuple[str | None, dict]:
        pane = self.panes.get("Method")
        if pane is not None and hasattr(pane, "method") and pane.method():
            if hasattr(pane, "is_valid") and not pane.is_valid():
                raise AnonStudioError("the method's parameters are not valid: see the Method pane")
            return pane.method(), dict(pane.params())
        return self.state.method, dict(self.state.params)

    def _chosen(self, method: str | None, params: dict | None) -> tuple[str, dict]:
        """``method`` and ``params``, or the Method pane's choice when no method is given."""
        if method is None:
            method, params = self._method_and_params()
        if not method:
            raise AnonStudioError("choose a method in the Method pane first")
        return method, dict(params or {})

    def start_run(self, method: str | None = None, params: dict | None = None) -> RunWorker | None:
        """Run the chosen method on a worker thread; the panes show progress and then the outcome.

        The Run action (F5, no ``method`` given) first names the columns still without a role and asks
        (:meth:`_ask_unroled`); a script or test that names the method runs the roles as they are (the release
        verdict still says when columns published unchanged single out records)."""
        if self.runner.busy:
            return None
        if self.state.data is None:
            self.error("Nothing to run", "Open a data file first (File ▸ Open data).")
            return None
        if method is None and not self._ask_unroled():
            return None
        def check() -> tuple:
            from anonstudio.core.jobs import make_algorithm

            chosen = self._chosen(method, params)
            make_algorithm(*chosen)  # parameter errors now, as a dialog (the job file's checks, its words)
            return chosen

        chosen = self.attempt("Cannot run", check, errors=(AnonStudioError,))
        if chosen is FAILED:
            return None
        method, params = chosen
        if method != self.state.method or params != self.state.params:
            self.state.set_method(method, params)
        request = self.attempt("Cannot run", self.state.request, errors=(AnonStudioError,))
        if request is FAILED:
            return None
        self._run_revision = request.revision  # what the run reads; a change while it goes makes it stale
        worker = RunWorker(proj.run_request, request)
        return self._start_task(worker, "run", f"Running {method}…", self._run_finished)

    def publish_transformation(self, levels: dict, path: str | None = None) -> RunWorker | None:
        """The lattice view's Publish (issue 40 item 5): run ``global`` again at the transformation ``levels``
        (attribute → level: the job key ``algorithm.transformation``, shown in the Method pane) with the other
        parameters on screen; once that run is verified, export it as every release is exported — the release
        risks confirmed, the file chosen (or ``path``), written and verified as written by ``Workspace.publish``."""
        chosen = self.attempt("Cannot publish this transformation", self._chosen, None, None,
                              errors=(AnonStudioError,))
        if chosen is FAILED:
            return None
        method, params = chosen
        if method != "global":
            self.error("Cannot publish this transformation", "The lattice belongs to a run of 'global': choose "
                       "'global' in the Method pane and run it first.")
            return None
        # the results on screen, to come back to when the transformation is refused (a pale-blue node is checked
        # only now): the user then picks another one in the same lattice
        before = (self.state.outcome, self.state.method, dict(self.state.params)) \
            if self.state.outcome_is_current() else None
        params["transformation"] = {str(a): int(v) for a, v in levels.items()}
        pane = self.panes.get("Method")
        if pane is not None and hasattr(pane, "set_values"):
            pane.set_values(method, params)  # the Method pane shows what is published (and a saved job names it)

        def then(outcome: Any) -> None:
            self.runFinished.disconnect(then)
            if isinstance(outcome, BaseException) or outcome is None:
                # refused or cancelled (the run pane and its dialog said why): nothing is published; the lattice
                # run's results and parameters come back
                if before is not None and self.state.outcome is None:
                    previous, old_method, old_params = before
                    if pane is not None and hasattr(pane, "set_values"):
                        pane.set_values(old_method, old_params)
                    self.state.set_method(old_method, old_params)
                    self.state.set_outcome(previous)
                return
            if outcome is not self.state.outcome:
                return  # the settings changed while it ran: not what was asked for, nothing is published
            if path is None:
                self.export_data_dialog()
                return
            accepted = self.confirm_release_risks()
            if accepted is not None:
                self.export_data(path, accepted_risks=accepted)

        worker = self.start_run(method, params)
        if worker is not None:
            self.runFinished.connect(then)
        return worker

    def _ask_unroled(self) -> bool:
        """Before a run from the Run action: name the columns that still need a role. The user either goes back
        to the Attributes pane (no run) or runs with them quasi-identifying — ARX's default, the safe side: they are
        generalized, never published as they are (``Workspace.apply_fallback_roles``). True: go on."""
        from PySide6.QtWidgets import QMessageBox

        unroled = self.state.unroled_columns()
        if not unroled:
            return True
        shown = ", ".join(f"'{c}'" for c in unroled[:8]) + (" …" if len(unroled) > 8 else "")
        answer = QMessageBox.question(
            self, "Columns without a role",
            f"{counted(len(unroled), 'column')} still need{'s' if len(unroled) == 1 else ''} a role: {shown}.\n\nChoose their roles in the Attributes pane, or "
            "run with them quasi-identifying (ARX's default: they are generalized, never published as they are).\n\n"
            "Run with them quasi-identifying?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
        if answer != QMessageBox.StandardButton.Yes:
            if "Attributes" in self.docks:
                self.docks["Attributes"].raise_()
            self.statusBar().showMessage(f"Choose a role for {shown} in the Attributes pane, then run", 10000)
            return False
        self.state.apply_fallback_roles()
        return True

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
        views, ``core.workspace.run_request``), and the window answers input between two panes."""
        self.worker = None
        self._presenting = (outcome, [t for t in self.result_panes if hasattr(self.panes.get(t), "show_outcome")])
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
        self._results_shown = True
        self.state.set_outcome(outcome)  # the panes already show it: their state listeners have nothing to do
        if getattr(self, "_run_revision", self.state.revision) != self.state.revision or not self.state.outcome_is_current():
            # roles, hierarchies, method or parameters changed while the run was going: it was verified against
            # the settings it started with, not those on screen — kept in the history, never exportable
            self.state._invalidate("the settings changed while this run was going")
            self.state.notify("outcome")
        self._raise_result_view(outcome)
        verdict = verdict_text(self.state)
        run_pane = self.panes.get("Run")
        if run_pane is not None:
            run_pane.finish(True, verdict)
            if not self.state.release_verdict().safe_to_publish:  # the model holds, the release is not safe: red
                run_pane.result.setStyleSheet("color: #b00020; font-weight: bold;")
        self.statusBar().showMessage(f"Done: {verdict}", 8000)
        self._update_actions()
        self.runFinished.emit(outcome)

    def show_restored_outcome(self) -> None:
        """A reopened project's last release, re-verified as the project was read (``core.workspace._reopen``):
        shown in every result pane as the current outcome, so the Summary has its verdict and Export is on."""
        outcome = self.state.outcome
        if outcome is None:
            return
        for title in self.result_panes:
            pane = self.panes.get(title)
            if title != "Method" and pane is not None and hasattr(pane, "show_outcome"):
                pane.show_outcome(outcome)
        run_pane = self.panes.get("Run")
        if run_pane is not None:
            run_pane.show_outcome(outcome)
            run_pane.finish(True, f"Last release re-verified: {verdict_text(self.state)}")
            if not self.state.release_verdict().safe_to_publish:
                run_pane.result.setStyleSheet("color: #b00020; font-weight: bold;")
        self._results_shown = True
        self.state.notify("outcome")
        self._raise_result_view(outcome)
        self.statusBar().showMessage(f"Reopened the last release, re-verified: {verdict_text(self.state)}", 8000)

    def show_history_run(self, number: int) -> None:
        """Show run ``number`` of the history again, for reference: greyed under a banner, never as the current
        result (the data, roles or hierarchies may have changed since), so export stays off until a new run."""
        outcome = self.state.outcomes.get(number)
        if outcome is None or self.runner.busy:
            return
        self.state._invalidate(f"this is run {number} from the history, shown for reference")
        for title in self.result_panes:
            if title in ("Method", "Run") or not hasattr(self.panes.get(title), "show_outcome"):
                continue
            self.panes[title].show_outcome(outcome)
        self._results_shown = True
        self.state.notify("outcome")
        self._raise_result_view(outcome)

    def _raise_result_view(self, outcome) -> None:
        """Show the result tabs that apply to the run (:meth:`show_result_tabs`), then bring the pane the method declares as its own result view to the front (e.g. Clusters for CBMSA);
        for a method without one, the summary card (the Summary tab is one click away either way)."""
        from anonstudio.core import algorithms

        self.show_result_tabs(outcome.report.get("algorithm") or None)
        try:
            view = algorithms.get(outcome.report.get("algorithm", "")).result_view
        except AnonStudioError:
            view = None
        view = view if view in self.docks else "Summary"
        if view in self.docks:
            self.docks[view].raise_()
            self._grow_results(view)

    def _grow_results(self, view: str) -> None:
        """After a run the results get the larger share of the height: at least 45 % of the window for the
        result views (the data keeps the rest; a user who made the results larger keeps that)."""
        dock = self.docks[view]
        if dock.isFloating() or "Data" not in self.docks or dock.height() >= 0.45 * self.height():
            return
        roles = self.docks.get("Attributes")
        self._attributes_kept = roles.height() if roles is not None and roles.isVisible() else None
        self.apply_shares(results=True)

    def _run_failed(self, exc: BaseException) -> None:
        self.worker = None
        run_pane = self.panes.get("Run")
        if run_pane is not None:
            from anonstudio.core.error_log import is_unexpected

            run_pane.finish(False, "Stopped by an error inside anonstudio (details in the dialog)" if is_unexpected(exc)
                            else error_text(exc))
        self.statusBar().showMessage("The run failed: nothing was published", 10000)
        self._update_status()
        self._update_actions()
        from anonstudio.core.error_log import is_unexpected

        # an engine error names its file, line or key; anything else is a bug: a sentence, details, the log
        self.error("The sweep failed" if self._task == "sweep" else "The run failed", exc,
                   unexpected=is_unexpected(exc))
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
        chosen = self.attempt("Cannot run sweep", self._chosen, method, params, errors=(AnonStudioError,))
        if chosen is FAILED:
            return None
        method, params = chosen
        request = self.attempt("Cannot run sweep", self.state.request, method, params, errors=(AnonStudioError,))
        if request is FAILED:
            return None

        def one(point: dict, progress=None) -> dict:
            return proj.sweep_point(request, point, progress)

        worker = SweepWorker(one, points)
        metrics = self.panes.get("Metrics")
        if metrics is not None and hasattr(metrics, "add_sweep_point"):
            worker.point.connect(metrics.add_sweep_point)
        return self._start_task(worker, "sweep", f"Sweep of {method} over {len(points)} points…",
                                self._sweep_finished)

    def sweep_dialog_open(self) -> None:
        def chosen_class() -> tuple:
            from anonstudio.core import algorithms

            method, params = self._method_and_params()
            if not method:
                raise AnonStudioError("choose a method in the Method pane first")
            return method, params, algorithms.get(method)

        chosen = self.attempt("Cannot run sweep", chosen_class, errors=(AnonStudioError,))
        if chosen is FAILED:
            return
        method, params, cls = chosen
        names = [p.name for p in cls.parameters if getattr(p, "kind", None) in ("int", "float")]
        if not names:
            self.error("Cannot run sweep", f"method '{method}' has no numeric parameter to sweep")
            return
        dialog = SweepDialog(names, self)
        self.sweep_dialog = dialog

        def go() -> None:
            points = self.attempt("Sweep values", dialog.points, errors=(ValueError,))
            if points is FAILED:
                return
            worker = self.start_sweep(points, method, params)
            if worker is not None:
                worker.point.connect(dialog.add_point)

        dialog.buttons.accepted.connect(go)
        dialog.show()
