"""The one entry of every run: :func:`run` takes a :class:`~anonstudio.core.jobs.Job` (the command line, scripts)
or a :class:`RunRequest` (the workbench's worker, a sweep's point) and returns the verified
:class:`~anonstudio.core.jobs.Outcome`.

Below it, one path: :func:`~anonstudio.core.jobs.execute` completes the hierarchies once (the one completer), builds
the method, and :func:`~anonstudio.core.jobs.anonymize` runs, verifies and evaluates it. Above it, thin adapters
only: :func:`~anonstudio.core.jobs.run_job` (run, then publish where the job says),
:meth:`Workspace.run <anonstudio.core.workspace.Workspace.run>` (run what the workspace holds, keep the outcome),
:func:`~anonstudio.core.workspace.run_request` (run, then compute the result views on the worker thread). Nothing is
written here; :func:`~anonstudio.core.jobs.publish_job` publishes. Cancelling is the progress callback raising
:class:`~anonstudio.core.progress.Cancelled` (STYLE.md 2): no cancel flag is threaded through.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anonstudio.core.progress import ProgressCallback, report, subrange

if TYPE_CHECKING:
    from anonstudio.core.jobs._pipeline import Outcome
    from anonstudio.core.jobs._schema import Job


@dataclass(frozen=True)
class RunRequest:
    """What one run reads: ``data`` (a copy whose roles cannot change under the run), ``specs`` (per attribute a
    :class:`~anonstudio.core.hierarchy.Hierarchy`, an ARX file or a builder spec), the ``method`` and its
    ``params`` (pipeline keys such as ``max_suppression`` included), ``declared`` (the roles to verify against,
    a job's ``[input]``), the ``execution`` engine (``None``: local), the job file errors name (``source``) and
    the workspace's revision when it was taken (a run whose revision is no longer the workspace's was verified
    against settings no longer on screen)."""

    data: Any
    specs: dict[str, Any]
    method: str
    params: dict[str, Any]
    declared: Any = None
    execution: Any = None
    source: Path | None = None
    revision: int = 0
    #: the release key a method with secret draws draws from (``None``: the user's default key) and the
    #: fingerprint the job names
    key_file: Path | None = None
    key_fingerprint: str | None = None

    def with_params(self, **changes: Any) -> RunRequest:
        """The same request with some parameters changed (a sweep's point)."""
        return replace(self, params={**self.params, **changes})


def request_for(job: Job, progress: ProgressCallback | None = None) -> RunRequest:
    """A job as a :class:`RunRequest`: the engine and written secrets refused first (exit 2), then its input read
    with its roles (:func:`~anonstudio.core.jobs.load_data`, the one reader). The hierarchies stay the job's
    specs: the run completes them, once."""
    from anonstudio.core.jobs._pipeline import check_engine, load_data

    check_engine(job)
    job.refuse_written_secrets()
    report(progress, 0.0, f"reading {job.input.path.name}")
    return RunRequest(load_data(job.input), dict(job.hierarchies), job.algorithm, dict(job.params), job.input,
                      job.execution, job.file, key_file=job.key_file, key_fingerprint=job.key_fingerprint)


def run(what: Job | RunRequest, progress: ProgressCallback | None = None) -> Outcome:
    """Run a job or a request: read the input (a job), complete the hierarchies, anonymize, verify independently and
    evaluate → :class:`~anonstudio.core.jobs.Outcome` (its report's ``input.path`` names the input file as the job
    or the workspace gives it). Raises :class:`~anonstudio.core.errors.PrivacyError` (exit 1) when the verifier
    refuses, another :class:`~anonstudio.core.errors.AnonStudioError` (exit 2) for a bad input, and
    :class:`~anonstudio.core.progress.Cancelled` when ``progress`` raises it. Writes nothing."""
    from anonstudio.core.jobs._pipeline import execute
    from anonstudio.core.jobs._schema import Job

    if isinstance(what, Job):
        request = request_for(what, progress)
        progress = subrange(progress, 0.05, 1.0)
    elif isinstance(what, RunRequest):
        request = what
    else:
        raise TypeError(f"run() takes a Job or a RunRequest, not {type(what).__name__}")
    outcome = execute(request.data, request.specs, request.method, request.params, declared=request.declared,
                      source=request.source, execution=request.execution, key_file=request.key_file,
                      key_fingerprint=request.key_fingerprint, progress=progress)
    path = getattr(request.declared, "path", None)
    if path is None or str(path) in ("", "."):
        path = getattr(request.data, "source", None)
    if path is not None:
        outcome.report["input"]["path"] = str(path)
    return outcome
