"""Running, publishing and the results of a :class:`~anonstudio.core.workspace.Workspace`: what one run reads
(:meth:`~RunsAndResults.request`), running it here, the warnings and verdict of the shown outcome, publishing it,
and the run history. The workspace's data, roles, hierarchies and method are in :mod:`._workspace`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from anonstudio.core.data import EventLog, Role, Table

if TYPE_CHECKING:
    from anonstudio.core.data import SequenceSet
    from anonstudio.core.workspace._workspace import ReleaseOptions


class RunsAndResults:
    """The running and results half of :class:`~anonstudio.core.workspace.Workspace` (a mixin: the state it reads
    is the workspace's)."""

    if TYPE_CHECKING:  # the workspace's fields and methods these read
        data: Table | EventLog | SequenceSet | None
        data_path: Path | None
        kind: str | None
        read_options: dict[str, Any]
        method: str | None
        params: dict[str, Any]
        outcome: Any
        stale_reason: str | None
        last_report: dict[str, Any] | None
        history: list[dict[str, Any]]
        outcomes: dict[int, Any]
        release: ReleaseOptions
        execution: Any
        output_path: Path | None
        report_path: Path | None
        job_path: Path | None
        revision: int
        OUTCOMES_KEPT: ClassVar[int]
        HISTORY_KEPT: ClassVar[int]

        def _changed(self, what: str) -> None: ...
        def hierarchy_specs(self) -> dict[str, Any]: ...
        def hierarchy_warnings(self, attribute: str | None = None) -> list[str]: ...
        def _outcome_matches(self, method: str | None, params: dict[str, Any]) -> bool: ...
        def files_read(self) -> dict[str, Path]: ...

    # -- running -----------------------------------------------------------------------------------------
    def input_spec(self) -> Any:
        """The data's roles and how it was read, as a job's ``[input]`` (:class:`anonstudio.core.jobs.InputSpec`):
        what the verifier checks a run against (the roles on screen, never fewer)."""
        from anonstudio.core.jobs import InputSpec

        d, opts = self.data, self.read_options
        path = self.data_path or getattr(d, "source", None)
        spec = InputSpec(path=Path(path) if path is not None else Path(""), format=self.kind or "table",
                         delimiter=opts.get("delimiter"), encoding=opts.get("encoding"), missing=opts.get("missing"),
                         label_pattern=opts.get("label_pattern"), alphabet=opts.get("alphabet"))
        if isinstance(d, Table):
            spec.quasi_identifiers = list(d.quasi_identifiers)
            spec.sensitive = list(d.sensitive)
            spec.identifying = list(d.identifying)
            spec.person = d.person
        elif isinstance(d, EventLog):
            spec.sequence_id, spec.event_order = d.sequence_id, d.event_order
            spec.quasi_identifiers = list(d.quasi_identifiers)
            spec.sensitive = [d.sensitive] if d.sensitive else []
            spec.identifying = list(opts.get("identifying") or [])
        return spec

    def request(self, method: str | None = None, params: dict[str, Any] | None = None) -> Any:
        """What one run reads, taken now (:class:`~anonstudio.core.workspace.RunRequest`): a copy of the data whose
        roles cannot change under the run, the hierarchies, the method and parameters (the workspace's, or those
        given), the roles to verify against and the engine. Raises the command line's error when there is no
        data or no method."""
        from anonstudio.core.errors import JobError
        from anonstudio.core.workspace._running import RunRequest, copy_for_run

        method = self.method if method is None else method
        params = dict(self.params if params is None else params)
        if self.data is None:
            raise JobError("open a data file first: a run needs its input")
        if not method:
            raise JobError("choose a method first: a run needs [algorithm] name")
        return RunRequest(copy_for_run(self.data), self.hierarchy_specs(), method, params, self.input_spec(),
                          self.execution, self.job_path, self.revision, key_file=self.release.key_file,
                          key_fingerprint=self.release.key_fingerprint)

    def run(self, progress: Any = None, *, views: bool = False) -> Any:
        """Run the method on what the workspace holds, in this thread, through the one run entry
        (:func:`anonstudio.core.jobs.run`); the outcome becomes the workspace's and joins the history.
        ``views``: also compute what the result views show (:func:`anonstudio.core.views.prepare_views`)."""
        from anonstudio.core.workspace._running import run_request

        request = self.request()
        outcome = run_request(request, progress, views=views)
        self.set_outcome(outcome)
        return outcome

    def warnings(self) -> list[str]:
        """Every warning the command line prints for the current outcome with the current release options —
        hierarchies, the release's risks, the method's own, the input order unless rows are shuffled, a short
        shuffle seed; after an export, also an earlier release of this input — else the hierarchies' warnings
        before a run. The Privacy pane and the Summary show these."""
        if self.outcome is None:
            return self.hierarchy_warnings()
        return self.warnings_for(self.outcome)

    def warnings_for(self, outcome: Any) -> list[str]:
        """The warnings of ``outcome``'s report as a publication with the current release options gives them
        (:func:`anonstudio.core.publication.publication_warnings`)."""
        from anonstudio.core.publication import publication_warnings

        return publication_warnings(outcome.report or {}, getattr(outcome.result, "output", None),
                                    shuffle_rows=self.release.shuffle_rows, shuffle_seed=self.release.shuffle_seed)

    def publish(self, output_path: str | Path | None = None, report_path: str | Path | None = None, *,
                accepted_risks: list[str] | None = None) -> list[Path]:
        """Publish the current outcome (:func:`anonstudio.core.publication.write_outputs`: canonical files,
        re-verified as written, output and report as a pair, then the release log) with the release options; the
        output defaults to :attr:`output_path` and the report to ``<output stem>.report.json`` beside it (or the
        job's report). The paths published become :attr:`output_path` / :attr:`report_path`, what a saved job
        names. Only an outcome verified against what the workspace holds is published."""
        from anonstudio.core.errors import JobError
        from anonstudio.core.publication import write_outputs

        if self.outcome is None:
            raise JobError("nothing to publish: run first")
        if not self.outcome_is_current():
            raise JobError("the roles, method or parameters are not those this output was verified against: run "
                           "again to verify and export")
        out = Path(output_path) if output_path is not None else self.output_path
        if out is None:
            raise JobError("give the output file to publish to", key="output.path")
        if report_path is not None:
            rep: Path | None = Path(report_path)
        elif output_path is None or Path(output_path) == self.output_path:
            rep = self.report_path
        else:
            rep = out.with_name(f"{out.stem}.report.json")
        confirmation = None
        if accepted_risks is not None:
            from anonstudio.core.release_verdict import confirmation_entry

            left = [r for r in self.release_verdict().risks if r not in accepted_risks]
            if left:
                raise JobError("the release has risks that were not confirmed: " + "; ".join(left))
            confirmation = confirmation_entry(list(accepted_risks)) if accepted_risks else None
        if self.data_path is not None:
            self.outcome.report["input"]["path"] = str(self.data_path)
        done = write_outputs(self.outcome, out, rep, reads=self.files_read(), shuffle_rows=self.release.shuffle_rows,
                             shuffle_seed=self.release.shuffle_seed, release_log=self.release.release_log,
                             confirmation=confirmation, key_file=self.release.key_file,
                             key_fingerprint=self.release.key_fingerprint)
        self.output_path, self.report_path = out, rep
        self.last_report = self.outcome.report
        self._changed("release")
        return done

    def report_for_export(self) -> dict[str, Any] | None:
        """The last run's report as a publication writes it: files named without their folders, the output's
        name once the release was published (``None`` before), the warnings :meth:`warnings` gives."""
        import copy

        from anonstudio.core.io import to_jsonable

        rep = self.outcome.report if self.outcome is not None else self.last_report
        if rep is None:
            return None
        out: dict[str, Any] = copy.deepcopy(to_jsonable(rep))
        if isinstance(out.get("parameters"), dict):  # as a publication writes it: never the seed (kept in the job)
            out["parameters"].pop("seed", None)
        for side in ("input", "output"):
            if isinstance(out.get(side), dict) and out[side].get("path"):
                out[side]["path"] = Path(str(out[side]["path"])).name
        if self.outcome is not None:
            out["warnings"] = self.warnings()
        return out

    # -- results -----------------------------------------------------------------------------------------
    def set_outcome(self, outcome: Any) -> None:
        """Show a finished run's ``outcome``; a new one joins the run history."""
        self.outcome = outcome
        self.stale_reason = None
        self.last_report = outcome.report if outcome is not None else self.last_report
        if outcome is not None and all(o is not outcome for o in self.outcomes.values()):
            from datetime import datetime

            from anonstudio.core.io import to_jsonable

            number = max((int(e.get("number", 0)) for e in self.history), default=0) + 1
            report = to_jsonable(outcome.report or {})
            self.history.append({"number": number, "time": datetime.now().isoformat(timespec="seconds"),
                                 "method": report.get("algorithm"), "parameters": report.get("parameters", {}),
                                 "report": report})
            self.outcomes[number] = outcome
            del self.history[:-self.HISTORY_KEPT]
            for old in sorted(self.outcomes)[:-self.OUTCOMES_KEPT]:
                if self.outcomes[old] is not outcome:
                    del self.outcomes[old]
        self._changed("outcome")

    def outcome_is_current(self) -> bool:
        """Whether the shown outcome was verified against what is on screen now: the roles the run's copy of
        the data held, the method and its parameters (an export writes only such an outcome)."""
        if self.outcome is None:
            return False
        ran = getattr(self.outcome, "data", None)
        d = self.data
        if isinstance(d, Table):
            same_roles = isinstance(ran, Table) and {c: r for c, r in ran.roles.items() if r is not Role.INSENSITIVE} \
                == {c: r for c, r in d.roles.items() if r is not Role.INSENSITIVE}
        elif isinstance(d, EventLog):
            same_roles = isinstance(ran, EventLog) and (list(ran.quasi_identifiers), ran.sensitive) == (
                list(d.quasi_identifiers), d.sensitive)
        else:
            same_roles = ran is not None and type(ran) is type(d)
        return same_roles and self._outcome_matches(self.method, self.params)

    def history_entry(self, number: int) -> dict[str, Any]:
        return next(e for e in self.history if e.get("number") == number)

    def release_verdict(self) -> Any:
        """The shown run's two verdicts — the model holds, safe to publish — with the current release options
        (:func:`anonstudio.core.release_verdict.release_verdict`)."""
        from anonstudio.core.release_verdict import release_verdict

        if self.outcome is None:
            return release_verdict(None, [])
        return release_verdict(self.outcome.report, self.warnings())
