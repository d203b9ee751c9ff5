"""Running what a workspace holds: the plain functions a worker thread runs (Orange3's ``run(inputs, state)``
habit), testable without Qt.

A :class:`~anonstudio.core.jobs.RunRequest` is taken from a :class:`~anonstudio.core.workspace.Workspace` on the thread
that owns it (:meth:`~anonstudio.core.workspace.Workspace.request`); the one run entry
(:func:`anonstudio.core.jobs.run`) runs it anywhere; :func:`run_request` adds the result views.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from anonstudio.core.data import EventLog, Table
from anonstudio.core.jobs import RunRequest

__all__ = ["RunRequest", "copy_for_run", "run_request", "sweep_point"]


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
    """The workbench's worker task: the run entry (:func:`anonstudio.core.jobs.run`) → ``Outcome``, then (``views``)
    what the result views show (:func:`anonstudio.core.views.prepare_views`), so that the GUI thread only draws."""
    from anonstudio.core.jobs import run
    from anonstudio.core.progress import phase, report, subrange

    outcome = run(request, subrange(progress, 0.0, 0.9 if views else 1.0))
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
