"""The workspace: one Qt-free object under both faces.

A :class:`Workspace` holds what a run reads — the open data with its roles, the hierarchies and where they came
from, the method and its parameters, the engine, the release options and output paths — and what runs produced:
the last outcome and the run history. A job opened in the workbench (or a script) is "load a job into a workspace,
run, publish"; ``anonstudio run`` runs a job through the run entry itself (:func:`anonstudio.core.jobs.run`),
without a workspace::

    ws = Workspace.from_job("adult-mst.toml", overrides=["algorithm.k=10"])
    ws.run(progress)          # the run entry on ws.request(): anonymize, verify, evaluate
    ws.publish()              # canonical files, re-verified as written, published as a pair, then logged

The workbench's window is a view and controller of one workspace: panes read it and subscribe to its changes, the
window's actions change it, its worker thread runs :func:`run_request` on what :meth:`Workspace.request` took. Project
files (:func:`write_project`, :func:`read_project`) and jobs (:func:`workspace_from_job`, :func:`job_dict`,
:func:`save_job`) go to and from a workspace here; data is read as a job reads it (:func:`read_data`).
"""

from __future__ import annotations

from anonstudio.core.data import kind_of
from anonstudio.core.io._project_schema import FORMAT, VERSION, ProjectError
from anonstudio.core.workspace._files import (
    PROJECT_SUFFIX,
    autosave_path,
    guess_kind,
    input_spec,
    job_dict,
    outside_files,
    outside_paths,
    project_dict,
    read_data,
    read_hierarchy_file,
    read_project,
    reading,
    save_job,
    workspace_from_job,
    write_hierarchy_file,
    write_project,
)
from anonstudio.core.workspace._profiles import PROFILE_CHUNK, profile_columns
from anonstudio.core.workspace._running import RunRequest, copy_for_run, run_request, sweep_point
from anonstudio.core.workspace._workspace import CHANGES, Listener, ReleaseOptions, Workspace

__all__ = [
    "CHANGES", "FORMAT", "VERSION", "Listener", "PROFILE_CHUNK", "PROJECT_SUFFIX", "ProjectError", "ReleaseOptions",
    "RunRequest", "Workspace", "autosave_path", "copy_for_run", "guess_kind", "input_spec", "job_dict",
    "kind_of", "outside_files", "outside_paths", "profile_columns", "project_dict", "read_data", "read_hierarchy_file",
    "read_project", "reading", "run_request", "save_job", "sweep_point", "workspace_from_job",
    "write_hierarchy_file", "write_project",
]
