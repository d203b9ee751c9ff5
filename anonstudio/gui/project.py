"""Project files, reading data for the workbench, and jobs to and from the workbench state — no Qt.

A project is a JSON file (never pickle, never ``eval``)::

    {
      "format": "anonstudio-project", "version": 1,
      "data": {"path": "adult.csv", "kind": "table", "read_options": {...},
               "roles": {"age": "quasi-identifying", ...}, "types": {"age": "numeric", ...}},
      "hierarchies": {"age": {"rows": [["17", "15-19", "*"], ...], "source": "hierarchies/age.csv"}},
      "method": {"name": "mst", "params": {"k": 5}},
      "last_report": {... the report of the last run ...},
      "history": [{"number": 1, "time": "...", "method": "mst", "parameters": {...}, "report": {...}}, ...]
    }

Paths are stored relative to the project file when they are below its folder. Hierarchies are always
stored inline as rows (hand edits survive), with where they came from kept for the job file. Saving is
atomic; :func:`autosave_path` names the minute-by-minute autosave beside the project.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from anonstudio.core import jobs
from anonstudio.core.io import to_jsonable
from anonstudio.core.io._project_schema import FORMAT, VERSION, ProjectError, load_project_json
from anonstudio.core.data import AttrType, EventLog, Role, SequenceSet, Table, is_number
from anonstudio.core.errors import AnonStudioError, InputError, JobError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.gui.state import WorkbenchState, kind_of, profile_columns

PROJECT_SUFFIX = ".anonstudio.json"
FASTA_EXT = {".fasta", ".fa", ".faa", ".fna", ".fas"}
TABLE_EXT = {".csv", ".tsv", ".txt", ".parquet", ".pq"}


# ---------------------------------------------------------------------------------------------------------
# data
def guess_kind(path: str | Path) -> str:
    """What a file given to ``anonstudio gui FILE`` is: ``project``, ``job``, ``fasta`` or ``table``."""
    p = Path(path)
    name = p.name.lower()
    if name.endswith(".json"):
        return "project"
    if p.suffix.lower() == ".toml":
        return "job"
    if p.suffix.lower() in FASTA_EXT:
        return "fasta"
    return "table"


def read_data(path: str | Path, kind: str, options: dict[str, Any] | None = None) -> Table | EventLog | SequenceSet:
    """Read a data file of ``kind`` with the engine's readers.

    ``options``: for tables ``delimiter``, ``encoding``, ``missing``; for events additionally
    ``sequence_id`` and ``event_order`` (required), ``quasi_identifiers``, ``sensitive``; for FASTA
    ``alphabet`` (default protein-25) and ``label_pattern``. The columns of a table or event log are profiled
    here too (:func:`~anonstudio.gui.state.profile_columns`: distinct values, missing cells), so a reader on a
    worker thread leaves the window only lookups to do.
    """
    return profile_columns(_read_data(path, kind, options))


def reading(func: Any, *args: Any, progress: Any = None, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` — a data, project or job reader — as a cancellable task for a worker: inside
    one :func:`~anonstudio.core.progress.phase`, whose ``progress`` raises once the task was cancelled, every
    checkpoint of the readers (between slices of text, parsed rows, profiled chunks) may stop it."""
    from anonstudio.core.progress import phase

    with phase(progress, 0.0, "reading"):
        return func(*args, **kwargs)


def _read_data(path: str | Path, kind: str, options: dict[str, Any] | None = None) -> Table | EventLog | SequenceSet:
    from anonstudio.core import io

    path = Path(path)
    opts = dict(options or {})
    io.recover(path)  # an interrupted publication in its folder is rolled forward or back before reading
    if not path.exists():
        raise InputError("file not found", file=path)
    if kind == "fasta":
        return io.read_fasta(path, alphabet=opts.get("alphabet") or "protein-25", label_pattern=opts.get("label_pattern"))
    table = io.read_table(path, delimiter=opts.get("delimiter"), encoding=opts.get("encoding"), missing=opts.get("missing"))
    if kind == "table":
        return table
    if kind == "events":
        seq, order = opts.get("sequence_id"), opts.get("event_order")
        if not seq or not order:
            raise InputError("event sequences need a sequence id column and an event order column", file=path)
        return EventLog(
            table.df,
            sequence_id=seq,
            event_order=order,
            quasi_identifiers=list(opts.get("quasi_identifiers") or []),
            sensitive=opts.get("sensitive"),
            source=path,
            delimiter=table.delimiter,
            encoding=table.encoding,
        )
    raise InputError(f"unknown kind of data '{kind}' (table, events or fasta)", file=path)


def read_hierarchy_file(path: str | Path, attribute: str) -> Hierarchy:
    """An ARX hierarchy CSV (``;``-separated, leaf first, root last) through the engine's reader."""
    from anonstudio.core import io

    return io.read_hierarchy(Path(path), attribute=attribute)


def write_hierarchy_file(hierarchy: Hierarchy, path: str | Path) -> Path:
    """Write ARX CSV rows (``;``-separated) atomically."""
    from anonstudio.core import io

    if hasattr(io, "write_hierarchy"):
        io.write_hierarchy(hierarchy, Path(path))
    else:
        import csv

        with io.atomic_write(Path(path), "w", encoding="utf-8", newline="") as fh:
            csv.writer(fh, delimiter=";", lineterminator="\n").writerows(hierarchy.to_rows())
    return Path(path)


# ---------------------------------------------------------------------------------------------------------
# projects
def _rel(path: Path | None, base: Path) -> str | None:
    if path is None:
        return None
    path = Path(path).resolve()
    try:
        return path.relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def _abs(text: str | None, base: Path) -> Path | None:
    if text is None:
        return None
    p = Path(text)
    return p if p.is_absolute() else (base / p).resolve()


def project_dict(state: WorkbenchState, project_path: str | Path) -> dict[str, Any]:
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
        elif isinstance(state.data, EventLog):
            data["read_options"].update(
                sequence_id=state.data.sequence_id,
                event_order=state.data.event_order,
                quasi_identifiers=list(state.data.quasi_identifiers),
                sensitive=state.data.sensitive,
            )
    hierarchies = {}
    for attr, h in state.hierarchies.items():
        entry: dict[str, Any] = {"rows": h.to_rows()}
        src = state.hierarchy_sources.get(attr)
        if isinstance(src, str):
            entry["source"] = _rel(Path(src), base)
        elif isinstance(src, dict):
            entry["source"] = to_jsonable(src)
        hierarchies[attr] = entry
    report = state.outcome.report if state.outcome is not None else state.last_report
    return {
        "format": FORMAT,
        "version": VERSION,
        "data": data,
        "hierarchies": hierarchies,
        "method": {"name": state.method, "params": to_jsonable(state.params)},
        "last_report": to_jsonable(report) if report is not None else None,
        "history": to_jsonable(state.history),
    }


def write_project(state: WorkbenchState, path: str | Path) -> Path:
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


def _load_project_json(path: Path) -> dict:
    """The project's JSON, checked against the schema (``core.io._project_schema``) before anything is built from
    it; an interrupted publication in its folder is rolled forward or back first."""
    from anonstudio.core import io

    io.recover(path)
    return load_project_json(path)


def outside_files(path: str | Path) -> list[str]:
    """The names of the files a project reads from outside its own folder (a project received from someone
    else could otherwise make the workbench open any file on this computer). Names only, no folders."""
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
        target = jobs.io.real_path(_abs(text, base))
        if not target.is_relative_to(jobs.io.real_path(base)):
            out.append(target.name)
    return out


def read_project(path: str | Path, *, allow_outside: bool = False) -> WorkbenchState:
    """A new :class:`WorkbenchState` from a project file; the data file is read again.

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
    state = WorkbenchState()
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
        state.set_data(obj, data_path, read_options=options)
    for attr, entry in (raw.get("hierarchies") or {}).items():
        if not isinstance(entry, dict):
            raise ProjectError(f"hierarchy of '{attr}' must be an object", file=path, key=f"hierarchies.{attr}")
        src = entry.get("source")
        if "rows" in entry:
            h = Hierarchy(attr, entry["rows"], source=path)
        elif isinstance(src, str):
            h = read_hierarchy_file(_abs(src, base), attr)
        else:
            raise ProjectError(f"hierarchy of '{attr}' has neither rows nor a source file", file=path, key=f"hierarchies.{attr}")
        source = str(_abs(src, base)) if isinstance(src, str) else src
        state.set_hierarchy(attr, h, source)
    state.set_method(method.get("name"), method.get("params") or {})
    state.last_report = raw.get("last_report")
    history = raw.get("history", [])
    if not isinstance(history, list) or not all(
            isinstance(e, dict) and isinstance(e.get("number"), int) and isinstance(e.get("report"), dict)
            for e in history):
        raise ProjectError("'history' must be a list of runs, each with a number and a report", file=path,
                           key="history")
    state.history = history
    state.project_path = path
    state.dirty = False
    return state


# ---------------------------------------------------------------------------------------------------------
# jobs
def state_from_job(path: str | Path) -> WorkbenchState:
    """A new state from a job file: its data (with roles), hierarchies and method settings."""
    from anonstudio.core import algorithms, jobs

    job = jobs.load_job(path)
    data = jobs.load_data(job.input)
    hierarchies, _notes = jobs.load_hierarchies(job.hierarchies, data,
                                                required=algorithms.get(job.algorithm).needs_hierarchies)
    state = WorkbenchState()
    options: dict[str, Any] = {}
    for key in ("delimiter", "encoding", "missing", "sequence_id", "event_order", "label_pattern", "alphabet"):
        value = getattr(job.input, key)
        if value is not None:
            options[key] = value
    state.set_data(data, job.input.path, read_options=options)
    for attr, h in hierarchies.items():
        spec = job.hierarchies.get(attr)
        state.set_hierarchy(attr, h, str(spec) if isinstance(spec, Path) else spec)
    state.set_method(job.algorithm, dict(job.params))
    state.dirty = False
    return state


def job_dict(state: WorkbenchState, job_path: str | Path, *, output_path: str | Path | None = None) -> dict[str, Any]:
    """A job (``cli-contract.md``) reproducing the workbench's settings, to be saved at ``job_path``.

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
    inp: dict[str, Any] = {"path": _rel(state.data_path, base), "format": state.kind}
    if isinstance(d, Table):
        inp["quasi_identifiers"] = d.quasi_identifiers
        if d.sensitive:
            inp["sensitive"] = d.sensitive
        if d.identifying:
            inp["identifying"] = d.identifying
    elif isinstance(d, EventLog):
        inp.update(sequence_id=d.sequence_id, event_order=d.event_order, quasi_identifiers=list(d.quasi_identifiers))
        if d.sensitive:
            inp["sensitive"] = [d.sensitive]
    for key in ("delimiter", "encoding", "missing", "label_pattern", "alphabet"):
        if state.read_options.get(key) is not None:
            inp[key] = state.read_options[key]
    hierarchies: dict[str, Any] = {}
    for attr, h in state.hierarchies.items():
        if attr not in state.quasi_identifiers():
            continue
        src = state.hierarchy_sources.get(attr)
        if isinstance(src, dict):
            hierarchies[attr] = src
        elif isinstance(src, str) and Path(src).exists():
            hierarchies[attr] = _rel(Path(src), base)
        else:
            target = base / f"{job_path.stem}-hierarchies" / f"{_safe(attr)}.csv"
            write_hierarchy_file(h, target)
            hierarchies[attr] = _rel(target, base)
    ext = state.data_path.suffix if state.kind != "fasta" else ".fasta"
    out = Path(output_path) if output_path is not None else base / f"{job_path.stem}-output{ext or '.csv'}"
    report = out.with_name(f"{out.stem}.report.json")
    job: dict[str, Any] = {"input": inp}
    if hierarchies:
        job["hierarchies"] = hierarchies
    job["algorithm"] = {"name": state.method, **to_jsonable(state.params)}
    job["output"] = {"path": _rel(out, base), "report": _rel(report, base)}
    return job


def save_job(state: WorkbenchState, job_path: str | Path, **kwargs: Any) -> Path:
    """Write the workbench's job file (validated, atomic)."""
    from anonstudio.core import jobs

    return jobs.save_job(job_dict(state, job_path, **kwargs), job_path)


# ---------------------------------------------------------------------------------------------------------
# running (the plain function the workbench runs on a worker thread)
def complete_hierarchies(data: Any, hierarchies: dict[str, Hierarchy], *,
                         required: bool = True) -> tuple[dict[str, Hierarchy], list[str]]:
    """The hierarchies a run needs: the given ones for the quasi-identifiers (checked to cover the data),
    and the engine's default interval hierarchy for a numeric quasi-identifier without one."""
    from anonstudio.core import hierarchy as hmod
    from anonstudio.core.data._chunks import distinct
    from anonstudio.core.jobs import hierarchy_attributes

    out: dict[str, Hierarchy] = {}
    notes: list[str] = []
    frame = data.df if isinstance(data, (Table, EventLog)) else None
    for attr in hierarchy_attributes(data):
        values = [str(v) for v in distinct(frame[attr])]  # in slices: a worker never holds the lock long
        h = hierarchies.get(attr)
        if h is None and not required:
            continue  # the method publishes this column's values as they are
        if h is None:
            numeric = all(is_number(v) for v in values)
            if not numeric or not hasattr(hmod, "default_numeric_hierarchy"):
                raise JobError(f"quasi-identifier '{attr}' has no hierarchy: import or build one in the Hierarchies pane",
                               file=getattr(data, "source", None), column=attr)
            h, note = hmod.default_numeric_hierarchy(attr, values)
            notes.append(note)
        h.check_covers(values, data_file=getattr(data, "source", None))
        out[attr] = h
    return out, notes


def run_method(data: Any, hierarchies: dict[str, Hierarchy], method: str, params: dict[str, Any],
               progress: Any = None) -> Any:
    """Anonymize, verify and evaluate in memory (:func:`anonstudio.core.jobs.run`) → ``Outcome``.

    Runs on the worker thread, so it also computes what the result panes will show
    (:func:`anonstudio.gui.panes._results.prepare_views`): the GUI thread then only draws.
    """
    from anonstudio.core import algorithms, jobs
    from anonstudio.core.progress import phase, report, subrange
    from anonstudio.gui.panes._results import prepare_views

    params = dict(params)
    max_suppression = params.pop("max_suppression", None)  # a pipeline key, not the method's
    algorithm = algorithms.get(method)(**params)
    # one phase around the whole run: every checkpoint between the steps' own reports (the sliced column
    # operations of core.data._chunks, building the published table, the release warnings) may cancel it
    with phase(progress, 0.0, "checking the hierarchies") as running:
        full, notes = complete_hierarchies(data, hierarchies, required=algorithm.needs_hierarchies)
        outcome = jobs.run(data, full, algorithm, subrange(running, 0.0, 0.9), notes=notes,
                           parameters={"name": method, **algorithm.params}, max_suppression=max_suppression)
    source = getattr(data, "source", None)
    if source is not None:
        outcome.report["input"]["path"] = str(source)
    with phase(progress, 0.9, "preparing the result views"):  # cancellable between chunks (checkpoint)
        prepare_views(outcome)
    # the Run pane reaches 100 % when the panes have drawn the outcome (MainWindow._present_next)
    report(progress, 0.95, "drawing the results")
    return outcome


def sweep_point(data: Any, hierarchies: dict[str, Hierarchy], method: str, params: dict[str, Any],
                point: dict[str, Any], progress: Any = None) -> dict[str, Any]:
    """One point of a parameter sweep: run with ``params`` updated by ``point``; the figures a plot needs."""
    outcome = run_method(data, hierarchies, method, {**params, **point}, progress)
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


def copy_for_run(data: Any) -> Any:
    """A shallow copy whose roles cannot change under a running job (the frame itself is shared and
    never modified)."""
    import copy
    from dataclasses import replace

    if isinstance(data, Table):
        return replace(data, roles=dict(data.roles), types=dict(data.types))
    if isinstance(data, EventLog):
        dup = copy.copy(data)
        dup.quasi_identifiers = list(data.quasi_identifiers)
        return dup
    return data


# ---------------------------------------------------------------------------------------------------------
def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "attribute"


__all__ = [
    "AnonStudioError",
    "ProjectError",
    "autosave_path",
    "guess_kind",
    "job_dict",
    "project_dict",
    "read_data",
    "read_hierarchy_file",
    "read_project",
    "save_job",
    "state_from_job",
    "write_hierarchy_file",
    "write_project",
    "kind_of",
]
