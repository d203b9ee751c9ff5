"""Running what a workspace holds: the plain functions a worker thread runs (Orange3's ``run(inputs, state)``
habit), testable without Qt, and the same functions ``anonstudio run`` runs in its own thread.

A :class:`RunRequest` is taken from a :class:`~anonstudio.core.workspace.Workspace` on the thread that owns it
(:meth:`~anonstudio.core.workspace.Workspace.request`); :func:`run_request` runs it anywhere.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from anonstudio.core.data import EventLog, Table


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


def copy_for_run(data: Any) -> Any:
    """A shallow copy whose roles cannot change under a running job (the frame itself is shared and never
    modified)."""
    if isinstance(data, Table):
        return replace(data, roles=dict(data.roles), types=dict(data.types))
    if isinstance(data, EventLog):
        dup = copy.copy(data)
        dup.quasi_identifiers = list(data.quasi_identifiers)
        return dup
    return data


def run_request(request: RunRequest, progress: Any = None, *, views: bool = True) -> Any:
    """Anonymize, verify and evaluate (:func:`anonstudio.core.jobs.execute`, the pipeline ``anonstudio run``
    runs) → ``Outcome``. ``views``: then compute what the result views show
    (:func:`anonstudio.core.views.prepare_views`), so that on a worker thread the GUI thread only draws."""
    from anonstudio.core.jobs import execute
    from anonstudio.core.progress import phase, report, subrange

    outcome = execute(request.data, request.specs, request.method, request.params, declared=request.declared,
                      source=request.source, execution=request.execution, key_file=request.key_file,
                      key_fingerprint=request.key_fingerprint,
                      progress=subrange(progress, 0.0, 0.9 if views else 1.0))
    path = getattr(request.declared, "path", None)
    if path is None or str(path) in ("", "."):
        path = getattr(request.data, "source", None)
    if path is not None:
        outcome.report["input"]["path"] = str(path)
    if views:
        from anonstudio.core.views import prepare_views

        with phase(progress, 0.9, "preparing the result views"):  # cancellable between chunks (checkpoint)
            prepare_views(outcome)
        # the Run pane reaches 100 % when the panes have drawn the outcome (the window's presentation)
        report(progress, 0.95, "drawing the results")
    return outcome


def sweep_point(request: RunRequest, point: dict[str, Any], progress: Any = None) -> dict[str, Any]:
    """One point of a parameter sweep: the request with ``point``'s parameters; the figures a plot needs."""
    outcome = run_request(request.with_params(**point), progress, views=False)
    rep = outcome.report
    row: dict[str, Any] = {
        "runtime_s": rep["runtime_s"],
        "suppressed": rep["suppressed"],
        "groups": rep["groups"]["count"],
        "verified": rep["verification"]["passed"],
    }
    for key, value in rep.get("metrics", {}).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            row[key] = value
    return row
