"""Files of a workspace — no Qt: reading data (the engine's one reader, as a job reads it), project files, and jobs
to and from a workspace.

A project is a JSON file (never pickle, never ``eval``)::

    {
      "format": "anonstudio-project", "version": 1,
      "data": {"path": "adult.csv", "kind": "table", "read_options": {...},
               "roles": {"age": "quasi-identifying", ...}, "types": {"age": "numeric", ...}},
      "hierarchies": {"age": {"rows": [["17", "15-19", "*"], ...], "source": "hierarchies/age.csv"}},
      "method": {"name": "mst", "params": {"k": 5}},
      "release": {"shuffle_rows": false, "shuffle_seed": null, "release_log": null,
                  "key_file": null, "key_fingerprint": "8f70505edd0e63a8",
                  "output": "adult-mst.csv", "report": "adult-mst.report.json"},
      "last_report": {... the report of the last run ...},
      "history": [{"number": 1, "time": "...", "method": "mst", "parameters": {...}, "report": {...}}, ...]
    }

Paths are stored relative to the project file when they are below its folder. Hierarchies are always
stored inline as rows (hand edits survive), with where they came from kept for the job file. Saving is
atomic; :func:`autosave_path` names the minute-by-minute autosave beside the project.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, overload

from anonstudio.core import io, jobs
from anonstudio.core.data import AttrType, EventLog, Role, SequenceSet, Table
from anonstudio.core.errors import AnonStudioError, InputError, JobError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.io import to_jsonable
from anonstudio.core.io._project_schema import FORMAT, VERSION, ProjectError, load_project_json
from anonstudio.core.workspace._profiles import profile_columns
from anonstudio.core.workspace._workspace import ReleaseOptions, Workspace

PROJECT_SUFFIX = io.formats.get("project").suffix


# ---------------------------------------------------------------------------------------------------------
# data
def guess_kind(path: str | Path) -> str:
    """What a file given to ``anonstudio gui FILE`` is: ``project``, ``job``, ``fasta`` or ``table``."""
    fmt = io.formats.format_for(path)
    kind = fmt.kinds[0] if fmt is not None else "table"
    return kind if kind in ("project", "job", "fasta") else "table"


def read_data(path: str | Path, kind: str, options: dict[str, Any] | None = None) -> Table | EventLog | SequenceSet:
    """Read a data file of ``kind`` as a job's ``[input]`` reads it (:func:`anonstudio.core.jobs.load_data`: one
    reader, one set of checks and messages for both faces).

    ``options`` are the job's ``[input]`` keys: for tables ``delimiter``, ``encoding``, ``missing`` and the roles
    ``quasi_identifiers``, ``sensitive``, ``identifying``; for events also ``sequence_id`` and ``event_order``
    (required); for FASTA ``alphabet`` (default protein-25) and ``label_pattern``. The columns of a table or event
    log are profiled here too (:func:`~anonstudio.core.workspace.profile_columns`: distinct values, missing
    cells), so a reader on a worker thread leaves the window only lookups to do.
    """
    return profile_columns(_read_data(path, kind, options))


def reading(func: Any, *args: Any, progress: Any = None, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` — a data, project or job reader — as a cancellable task for a worker: inside
    one :func:`~anonstudio.core.progress.phase`, whose ``progress`` raises once the task was cancelled, every
    checkpoint of the readers (between slices of text, parsed rows, profiled chunks) may stop it."""
    from anonstudio.core.progress import phase

    with phase(progress, 0.0, "reading"):
        return func(*args, **kwargs)


def input_spec(path: str | Path, kind: str, options: dict[str, Any] | None = None) -> jobs.InputSpec:
    """A job's ``[input]`` for reading ``path`` as ``kind`` with ``options``."""
    opts = dict(options or {})
    if kind not in io.FORMATS:
        raise InputError(f"unknown kind of data '{kind}' (table, events or fasta)", file=path)

    def names(key: str) -> list[str]:
        value = opts.get(key) or []
        return [value] if isinstance(value, str) else list(value)

    spec = jobs.InputSpec(path=Path(path), format=kind, more_paths=[Path(p) for p in names("more_paths")],
                          labels=names("labels") or None, quasi_identifiers=names("quasi_identifiers"),
                          sensitive=names("sensitive"), identifying=names("identifying"),
                          sequence_id=opts.get("sequence_id"), event_order=opts.get("event_order"),
                          label_pattern=opts.get("label_pattern"), delimiter=opts.get("delimiter"),
                          encoding=opts.get("encoding"), missing=opts.get("missing"), alphabet=opts.get("alphabet"))
    if kind == "events" and (not spec.sequence_id or not spec.event_order):
        raise JobError("events input needs input.sequence_id and input.event_order", file=path,
                       key="input.sequence_id")
    return spec


def _read_data(path: str | Path, kind: str, options: dict[str, Any] | None = None) -> Table | EventLog | SequenceSet:
    path = Path(path)
    io.recover(path)  # an interrupted publication in its folder is rolled forward or back before reading
    return jobs.load_data(input_spec(path, kind, options))


def read_hierarchy_file(path: str | Path, attribute: str) -> Hierarchy:
    """An ARX hierarchy CSV (``;``-separated, leaf first, root last) through the engine's reader."""
    return io.read_hierarchy(Path(path), attribute=attribute)


def write_hierarchy_file(hierarchy: Hierarchy, path: str | Path) -> Path:
    """Write ARX CSV rows (``;``-separated) atomically."""
    io.write_hierarchy(hierarchy, Path(path))
    return Path(path)


# ---------------------------------------------------------------------------------------------------------
# projects
def _fingerprint_of(state: Workspace) -> str | None:
    """The fingerprint of the release key the shown (or last) run drew from, else the one the job named."""
    report = state.outcome.report if state.outcome is not None else state.last_report
    used = (report or {}).get("key") if isinstance(report, dict) else None
    if isinstance(used, dict) and isinstance(used.get("fingerprint"), str):
        return str(used["fingerprint"])
    return state.release.key_fingerprint


def _rel(path: Path | None, base: Path) -> str | None:
    """``path`` relative to ``base`` — with ``..`` when it lies beside or above it, so a job or project and its
    files travel together (issue 30 item 5) — or absolute when no relative path exists (another drive)."""
    if path is None:
        return None
    path = Path(path).resolve()
    try:
        return Path(os.path.relpath(path, base.resolve())).as_posix()
    except ValueError:
        return str(path)


@overload
def _abs(text: str, base: Path) -> Path: ...


@overload
def _abs(text: None, base: Path) -> None: ...


def _abs(text: str | None, base: Path) -> Path | None:
    if text is None:
        return None
    p = Path(text)
    return p if p.is_absolute() else (base / p).resolve()


def project_dict(state: Workspace, project_path: str | Path) -> dict[str, Any]:
    """The JSON-ready content of a project file for ``state`` saved at ``project_path``."""
    base = Path(project_path).resolve().parent
    data: dict[str, Any] | None = None
    if state.data is not None:
        data = {
            "path": _rel(state.data_path, base),
            "kind": state.kind,
            "read_options": to_jsonable(state.read_options),
            "roles": {},
            "types": {},
        }
        if isinstance(state.data, Table):
            data["roles"] = {c: r.value for c, r in state.data.roles.items()}
            data["types"] = {c: t.value for c, t in state.data.types.items()}
            if state.data.person is not None:
                data["person"] = state.data.person
        elif isinstance(state.data, EventLog):
            data["read_options"].update(
                sequence_id=state.data.sequence_id,
                event_order=state.data.event_order,
                quasi_identifiers=list(state.data.quasi_identifiers),
                sensitive=state.data.sensitive,
            )
    hierarchies = {}
    for attr in list(state.hierarchies) + [a for a in state.hierarchy_sources if a not in state.hierarchies]:
        h = state.hierarchies.get(attr)
        entry: dict[str, Any] = {"rows": h.to_rows()} if h is not None else {}  # unbuilt: a job's spec, kept
        src = state.hierarchy_sources.get(attr)
        if isinstance(src, str):
            entry["source"] = _rel(Path(src), base)
        elif isinstance(src, dict):
            entry["source"] = to_jsonable(src)
        hierarchies[attr] = entry
    report = state.outcome.report if state.outcome is not None else state.last_report
    # the release key is named by its file and fingerprint only, never its bytes
    release = {"shuffle_rows": state.release.shuffle_rows, "shuffle_seed": None,
               "release_log": _rel(state.release.release_log, base),
               "key_file": _rel(state.release.key_file, base), "key_fingerprint": _fingerprint_of(state),
               "output": _rel(state.output_path, base), "report": _rel(state.report_path, base)}
    return {
        "format": FORMAT,
        "version": VERSION,
        "data": data,
        "hierarchies": hierarchies,
        "method": {"name": state.method, "params": to_jsonable(state.params)},
        "release": release,
        "last_report": to_jsonable(report) if report is not None else None,
        "history": to_jsonable(state.history),
    }


def write_project(state: Workspace, path: str | Path) -> Path:
    """Save ``state`` to ``path`` atomically (the state itself is not changed)."""
    from anonstudio.core.io import atomic_write

    path = Path(path)
    text = json.dumps(project_dict(state, path), indent=2, ensure_ascii=False)
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    return path


def autosave_path(project_path: str | Path | None, fallback_dir: str | Path | None = None) -> Path:
    """``<name>.autosave.json`` beside the project (or ``untitled.autosave.json`` in ``fallback_dir``)."""
    if project_path is None:
        return Path(fallback_dir or Path.home()) / "untitled.autosave.json"
    p = Path(project_path)
    name = p.name
    stem = name[: -len(PROJECT_SUFFIX)] if name.endswith(PROJECT_SUFFIX) else p.stem
    return p.with_name(f"{stem}.autosave.json")


def _load_project_json(path: Path) -> dict[str, Any]:
    """The project's JSON, checked against the schema (``core.io._project_schema``) before anything is built from
    it; an interrupted publication in its folder is rolled forward or back first."""
    from anonstudio.core import io

    io.recover(path)
    return load_project_json(path)


def outside_files(path: str | Path, trusted: set[Path] | frozenset[Path] = frozenset()) -> list[str]:
    """The names of the files a project reads from outside its own folder (a project received from someone
    else could otherwise make the workbench open any file on this computer). Names only, no folders. Files in
    ``trusted`` (real paths: files this user chose before, :func:`outside_paths`) are left out."""
    return [p.name for p in outside_paths(path) if p not in trusted]


def outside_paths(path: str | Path) -> list[Path]:
    """The real paths of the files a project reads from neither its own folder nor a folder below it."""
    path = Path(path)
    raw = _load_project_json(path)
    base = path.resolve().parent
    wanted = []
    data = raw.get("data")
    if isinstance(data, dict) and isinstance(data.get("path"), str):
        wanted.append(data["path"])
    for entry in (raw.get("hierarchies") or {}).values() if isinstance(raw.get("hierarchies"), dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("source"), str):
            wanted.append(entry["source"])
    out = []
    for text in wanted:
        target = io.real_path(_abs(text, base))
        if not target.is_relative_to(io.real_path(base)):
            out.append(target)
    return out


def read_project(path: str | Path, *, allow_outside: bool = False, restore: bool = True) -> Workspace:
    """A new :class:`Workspace` from a project file; the data file is read again.

    ``restore``: the release the project last published is read back from its output and re-verified
    (:func:`anonstudio.core.workspace._reopen.restored_outcome`) and becomes the workspace's outcome — what the
    Summary shows and Export publishes — with its views prepared (this runs on the workbench's reader thread);
    when it cannot be, :attr:`Workspace.stale_reason` says why.

    Validated as strictly as a job: a known method with valid parameters, a known data kind, roles and types
    of the data's columns. Files outside the project's folder are read only with ``allow_outside`` (the
    workbench asks first). Raises :class:`ProjectError` (or the reader's :class:`AnonStudioError`) naming the
    file and line or key; messages name files, never print their content or foreign folders.
    """
    path = Path(path)
    raw = _load_project_json(path)
    if not allow_outside:
        outside = outside_files(path)
        if outside:
            raise ProjectError(f"the project reads files outside its folder ({', '.join(outside[:3])}): open it from "
                               "the workbench to confirm, or move them beside the project", file=path)
    method = raw.get("method") or {}
    if not isinstance(method, dict):
        raise ProjectError("'method' must be an object with 'name' and 'params'", file=path, key="method")
    if method.get("name") is not None:
        from anonstudio.core import algorithms

        params = method.get("params") or {}
        if not isinstance(params, dict):
            raise ProjectError("'method.params' must be an object", file=path, key="method.params")
        try:
            cls = algorithms.get(method["name"]) if isinstance(method["name"], str) else None
            if cls is None:
                raise ProjectError(f"method name must be text, got {jobs.short_repr(method['name'])}", key="method.name")
            cls(**{k: v for k, v in params.items() if not (k == "seed" and "seed" not in cls.parameters.names())})
        except AnonStudioError as exc:
            raise ProjectError(exc.message, file=path, key=f"method.{exc.key or 'name'}") from None
    base = path.resolve().parent
    state = Workspace()
    data = raw.get("data")
    if data is not None:
        if not isinstance(data, dict) or not isinstance(data.get("path"), str) or "kind" not in data:
            raise ProjectError("'data' needs 'path' and 'kind'", file=path, key="data")
        if data["kind"] not in ("table", "events", "fasta"):
            raise ProjectError(f"data kind must be table, events or fasta, got {jobs.short_repr(data['kind'])}",
                               file=path, key="data.kind")
        data_path = _abs(data["path"], base)
        options = dict(data.get("read_options") or {})
        obj = read_data(data_path, data["kind"], options)
        if isinstance(obj, Table):
            try:
                roles = {c: Role(r) for c, r in (data.get("roles") or {}).items()}
                types = {c: AttrType(t) for c, t in (data.get("types") or {}).items()}
            except ValueError as exc:
                raise ProjectError(f"bad role or type: {exc}", file=path, key="data.roles") from None
            for col in list(roles) + list(types):
                if col not in obj.df.columns:
                    raise ProjectError(f"column '{col}' is not in {data_path.name}", file=path, column=col)
            obj.roles.update(roles)
            obj.types.update(types)
            person = data.get("person")
            if person is not None:
                if person not in obj.df.columns:
                    raise ProjectError(f"the person column '{person}' is not in {data_path.name}", file=path,
                                       key="data.person", column=person)
                from anonstudio.core.privacy._people import check_person_column

                obj.roles[person] = Role.IDENTIFYING
                obj.person = person
                check_person_column(obj)
        state.set_data(obj, data_path, read_options=options)
    for attr, entry in (raw.get("hierarchies") or {}).items():
        if not isinstance(entry, dict):
            raise ProjectError(f"hierarchy of '{attr}' must be an object", file=path, key=f"hierarchies.{attr}")
        src = entry.get("source")
        source = str(_abs(src, base)) if isinstance(src, str) else src
        if "rows" in entry:
            state.set_hierarchy(attr, Hierarchy(attr, entry["rows"], source=path), source)
        elif src is not None:  # a job's hierarchy that was never built (not a quasi-identifier): kept as given
            if state.data is not None and attr not in state.columns():
                raise ProjectError(f"hierarchy given for '{attr}', which is not a column of the data", file=path,
                                   key=f"hierarchies.{attr}")
            state.hierarchy_sources[attr] = source
        else:
            raise ProjectError(f"hierarchy of '{attr}' has neither rows nor a source", file=path,
                               key=f"hierarchies.{attr}")
    state.set_method(method.get("name"), method.get("params") or {})
    release = raw.get("release") or {}
    if release.get("shuffle_seed") is not None:  # a project saved before release keys: its seed is refused
        jobs.refuse_written_secrets(str(method.get("name") or ""), {}, release.get("shuffle_seed"), file=path)
    state.release = ReleaseOptions(bool(release.get("shuffle_rows", False)), None,
                                   _abs(release.get("release_log"), base), _abs(release.get("key_file"), base),
                                   release.get("key_fingerprint"))
    state.output_path, state.report_path = _abs(release.get("output"), base), _abs(release.get("report"), base)
    state.last_report = raw.get("last_report")
    history = raw.get("history", [])
    if not isinstance(history, list) or not all(
            isinstance(e, dict) and isinstance(e.get("number"), int) and isinstance(e.get("report"), dict)
            for e in history):
        raise ProjectError("'history' must be a list of runs, each with a number and a report", file=path,
                           key="history")
    state.history = history
    state.project_path = path
    if restore and state.last_report and state.output_path is not None:
        from anonstudio.core.workspace._reopen import restored_outcome

        outcome, why = restored_outcome(state)
        if outcome is not None:
            from anonstudio.core.views import prepare_views

            state.outcome = prepare_views(outcome)
        else:
            state.stale_reason = why
    state.dirty = False
    return state


# ---------------------------------------------------------------------------------------------------------
# jobs
def workspace_from_job(path: str | Path, overrides: list[str] | None = None) -> Workspace:
    """A workspace holding a job (``overrides``: ``--set section.key=value``): its data read with its roles
    (:func:`anonstudio.core.jobs.load_data`), its hierarchies built as a run builds them
    (:func:`anonstudio.core.jobs.load_hierarchies`: a quasi-identifier's hierarchy, a numeric one's default bands
    left to the run; a hierarchy given for another column kept as the job gives it), the method and its
    parameters, the engine, the release options and the output paths. Refuses what ``anonstudio run`` refuses,
    with its words: the job is parsed and checked by the same code."""
    job = jobs.load_job(path, overrides)
    jobs.check_engine(job)
    job.refuse_written_secrets()
    data = profile_columns(jobs.load_data(job.input))
    # the given ones, as a run builds them; a quasi-identifier without one is completed by the run
    hierarchies, _notes = jobs.load_hierarchies(job.hierarchies, data, source=job.file, required=False)
    state = Workspace()
    options: dict[str, Any] = {}
    for key in ("delimiter", "encoding", "missing", "sequence_id", "event_order", "label_pattern", "alphabet"):
        value = getattr(job.input, key)
        if value is not None:
            options[key] = value
    if isinstance(data, EventLog) and job.input.identifying:
        options["identifying"] = list(job.input.identifying)  # dropped as read: a saved job drops them again
    if job.input.more_paths:
        options["more_paths"] = [str(p) for p in job.input.more_paths]
    if job.input.labels is not None:
        options["labels"] = list(job.input.labels)
    state.set_data(data, job.input.path, read_options=options)
    for attr, spec in job.hierarchies.items():
        if attr in hierarchies:
            state.set_hierarchy(attr, hierarchies[attr], str(spec) if isinstance(spec, Path) else spec)
        else:  # not a quasi-identifier: kept as the job gives it (a run warns that it is unused, as the CLI does)
            state.hierarchy_sources[attr] = str(spec) if isinstance(spec, Path) else spec
    state.set_method(job.algorithm, dict(job.params))
    state.release = ReleaseOptions(job.shuffle_rows, job.shuffle_seed, job.release_log, job.key_file,
                                   job.key_fingerprint)
    state.execution = job.execution
    state.output_path, state.report_path, state.job_path = job.output_path, job.report_path, job.file
    state.dirty = False
    return state


def job_dict(state: Workspace, job_path: str | Path, *, output_path: str | Path | None = None) -> dict[str, Any]:
    """A job (``cli-contract.md``) reproducing the workspace, to be saved at ``job_path``: paths relative to the
    job file; the output the release was last published to (``output_path`` if given, else the workspace's,
    else ``<job stem>-output<ext>``) with its report; the release options.

    Hierarchies edited by hand (no file or builder behind them) are written as ARX CSV files in
    ``<job stem>-hierarchies/`` beside the job.
    """
    if state.data is None or state.data_path is None:
        raise JobError("open a data file first: a job needs its input")
    if not state.method:
        raise JobError("choose a method first: a job needs [algorithm] name")
    job_path = Path(job_path)
    base = job_path.resolve().parent
    d = state.data
    more = [_rel(Path(p), base) for p in state.read_options.get("more_paths") or []]
    inp: dict[str, Any] = {"path": [_rel(state.data_path, base), *more] if more else _rel(state.data_path, base),
                           "format": state.kind}
    if isinstance(d, Table):
        inp["quasi_identifiers"] = d.quasi_identifiers
        if d.sensitive:
            inp["sensitive"] = d.sensitive
        if d.identifying:
            inp["identifying"] = d.identifying
        if d.person is not None:
            inp["person"] = d.person
    elif isinstance(d, EventLog):
        inp.update(sequence_id=d.sequence_id, event_order=d.event_order, quasi_identifiers=list(d.quasi_identifiers))
        if d.sensitive:
            inp["sensitive"] = [d.sensitive]
        if state.read_options.get("identifying"):
            inp["identifying"] = list(state.read_options["identifying"])
    for key in ("delimiter", "encoding", "missing", "label_pattern", "alphabet", "labels"):
        if state.read_options.get(key) is not None:
            inp[key] = state.read_options[key]
    hierarchies: dict[str, Any] = {}
    for attr in list(state.hierarchies) + [a for a in state.hierarchy_sources if a not in state.hierarchies]:
        src = state.hierarchy_sources.get(attr)
        if isinstance(src, dict):
            hierarchies[attr] = src
        elif isinstance(src, str) and Path(src).exists():
            hierarchies[attr] = _rel(Path(src), base)
        elif attr in state.hierarchies:
            target = base / f"{job_path.stem}-hierarchies" / f"{_safe(attr)}{io.formats.get('arx-hierarchy').suffix}"
            write_hierarchy_file(state.hierarchies[attr], target)
            hierarchies[attr] = _rel(target, base)
    ext = io.formats.export_format(state.kind or "table", chosen=state.output_path, input_path=state.data_path).suffix
    report: Path | None
    if output_path is not None:
        out, report = Path(output_path), Path(output_path).with_name(f"{Path(output_path).stem}.report.json")
    elif state.output_path is not None:
        out, report = state.output_path, state.report_path
    else:
        out = base / f"{job_path.stem}-output{ext}"
        report = out.with_name(f"{out.stem}.report.json")
    job: dict[str, Any] = {"input": inp}
    if hierarchies:
        job["hierarchies"] = hierarchies
    # an optional parameter left unset (None) is a key the job does not write
    job["algorithm"] = {"name": state.method, **{k: v for k, v in to_jsonable(state.params).items() if v is not None}}
    output: dict[str, Any] = {"path": _rel(out, base)}
    if report is not None:
        output["report"] = _rel(report, base)
    if state.release.shuffle_rows:
        output["shuffle_rows"] = True
    if state.release.release_log is not None:
        output["release_log"] = _rel(state.release.release_log, base)
    if state.release.key_file is not None:
        output["key_file"] = _rel(state.release.key_file, base)
    fingerprint = _fingerprint_of(state)
    if fingerprint is not None:  # the key its draws came from, by its fingerprint (never the key)
        output["key_fingerprint"] = fingerprint
    job["output"] = output
    return job


def save_job(state: Workspace, job_path: str | Path, **kwargs: Any) -> Path:
    """Write a job that reproduces the workspace (validated as ``anonstudio run`` reads it, atomic)."""
    return jobs.save_job(job_dict(state, job_path, **kwargs), job_path)


# ---------------------------------------------------------------------------------------------------------
def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "attribute"


