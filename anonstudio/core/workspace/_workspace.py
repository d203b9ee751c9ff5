"""The workspace: everything a run reads and a project file stores — the open data with its roles, the
hierarchies and where they came from, the method and its parameters, the release options, the last outcome and
the run history — as one Qt-free object both faces drive.

A job opened in the workbench is loaded into a workspace (:meth:`Workspace.from_job`), run (:meth:`Workspace.run`,
the run entry :func:`anonstudio.core.jobs.run`) and published (:meth:`Workspace.publish`); the window is a view and
controller of one workspace: its
panes read it and bind to it (glue's ``viewers/*/state.py`` pattern), its actions change it, and its worker thread
runs what :meth:`Workspace.request` hands over (:func:`anonstudio.core.workspace.run_request`). Listeners registered
with :meth:`Workspace.subscribe` are plain callables ``(what: str) -> None`` (the window forwards them to Qt
signals); ``what`` is one of :data:`CHANGES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from anonstudio.core.data import AttrType, EventLog, Role, SequenceSet, Table, kind_of
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.workspace._profiles import ID_MIN_ROWS, _profile, _profiles_of, looks_like_identifier
from anonstudio.core.workspace._runs import RunsAndResults

#: change notifications sent to listeners
CHANGES = ("data", "roles", "hierarchies", "method", "outcome", "release", "project", "dirty")

Listener = Callable[[str], None]

__all__ = ["CHANGES", "ID_MIN_ROWS", "Listener", "ReleaseOptions", "Workspace", "looks_like_identifier"]


@dataclass
class ReleaseOptions:
    """How a release is published (the job's ``[output]`` keys besides the paths): ``shuffle_rows`` (tables
    and event logs: rows / sequences in a random order after verification, the order drawn from the release
    key), ``shuffle_seed`` (always ``None``: a seed written in a job is refused — kept so an older job's is
    refused by name), ``release_log`` (where the release log is kept; ``None``: the user's data folder),
    ``key_file`` (the release key; ``None``: the user's default key, made on first use) and ``key_fingerprint``
    (the key a job was written for: another key is refused)."""

    shuffle_rows: bool = False
    shuffle_seed: int | None = None
    release_log: Path | None = None
    key_file: Path | None = None
    key_fingerprint: str | None = None


@dataclass
class Workspace(RunsAndResults):
    """Everything a run reads, the workbench shows and a project file stores.

    Attributes
    ----------
    data:
        The loaded :class:`Table`, :class:`EventLog` or :class:`SequenceSet` (roles included), or ``None``.
    data_path:
        The file ``data`` was read from.
    kind:
        ``"table"``, ``"events"`` or ``"fasta"`` (``None`` without data).
    read_options:
        How ``data`` was read (``sequence_id``, ``event_order``, ``delimiter``, ``label_pattern`` …), so a
        project or job can read it again the same way.
    hierarchies:
        One validated :class:`Hierarchy` per attribute.
    hierarchy_sources:
        Where each hierarchy came from: a file path (``str``) or a builder spec (``dict``, as in a job's
        ``[hierarchies]``); attributes edited by hand are absent (the project stores their rows inline). A job's
        hierarchy for a column that is not a quasi-identifier is kept here (not built) as the job gave it.
    method, params:
        The chosen method's job-file name and its parameters (without ``name``).
    outcome:
        The last finished run (:class:`anonstudio.core.jobs.Outcome`) or ``None``.
    last_report:
        The report of the last run as stored in a project (``outcome.report`` once a run finishes here).
    release:
        The release options (:class:`ReleaseOptions`).
    execution:
        A job's ``[execution]`` (:class:`~anonstudio.core.execution.Execution`; ``None``: local).
    output_path, report_path:
        Where the release was last published (or where the job publishes it): what a saved job names.
    job_path, project_path:
        The job or project file the workspace was read from or saved to.
    dirty:
        True when something changed since the project was last saved or opened.
    """

    data: Table | EventLog | SequenceSet | None = None
    data_path: Path | None = None
    kind: str | None = None
    read_options: dict[str, Any] = field(default_factory=dict)
    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    hierarchy_sources: dict[str, Any] = field(default_factory=dict)
    method: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    outcome: Any = None
    #: why the last outcome no longer belongs to what is on screen (None: nothing stale)
    stale_reason: str | None = None
    last_report: dict[str, Any] | None = None
    #: the runs on this data since the project was opened (and those saved in it): ``{"number", "time", "method",
    #: "parameters", "report"}``, oldest first, at most :attr:`HISTORY_KEPT`; their outcomes, while in memory, in
    #: :attr:`outcomes` (the latest :attr:`OUTCOMES_KEPT`). Opening other data clears both (issue 44 item 1: every
    #: run's whole outcome was kept for the life of the window, across new data)
    history: list[dict[str, Any]] = field(default_factory=list)
    outcomes: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)
    release: ReleaseOptions = field(default_factory=ReleaseOptions)
    execution: Any = None
    output_path: Path | None = None
    report_path: Path | None = None
    job_path: Path | None = None
    project_path: Path | None = None
    dirty: bool = False
    #: columns of data just opened whose role the user has not chosen yet (:meth:`propose_roles`); a run asks
    #: about them, and :meth:`apply_fallback_roles` makes them quasi-identifying (ARX's default)
    unroled: list[str] = field(default_factory=list)
    #: roles proposed when the data was opened, column → why (an identifier-looking column: identifying)
    proposed: dict[str, str] = field(default_factory=dict)
    #: counts changes to what a run reads (data, roles, hierarchies, method, parameters): a run started at
    #: one count and finished at another was verified against settings no longer on screen
    revision: int = field(default=0, repr=False, compare=False)
    _listeners: list[Listener] = field(default_factory=list, repr=False, compare=False)

    #: how many runs' outcomes (their data, output and views) stay in memory to be shown again
    OUTCOMES_KEPT: ClassVar[int] = 5
    #: how many runs the history lists (reports only; the oldest dropped first)
    HISTORY_KEPT: ClassVar[int] = 200

    # -- listeners ---------------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(what)`` after every change (``what`` in :data:`CHANGES`)."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def notify(self, what: str) -> None:
        for listener in list(self._listeners):
            listener(what)

    def _changed(self, what: str) -> None:
        was = self.dirty
        self.dirty = True
        self.notify(what)
        if not was:
            self.notify("dirty")

    def replace_from(self, other: Workspace) -> None:
        """Take over everything ``other`` holds (a project or job just read), keeping this object — and
        the panes bound to it — and its listeners; then notify every kind of change."""
        for name in ("data", "data_path", "kind", "read_options", "hierarchies", "hierarchy_sources", "method",
                     "params", "outcome", "last_report", "history", "outcomes", "release", "execution",
                     "output_path", "report_path", "job_path", "project_path", "dirty", "stale_reason", "unroled",
                     "proposed"):
            setattr(self, name, getattr(other, name))
        self.revision += 1
        for what in CHANGES:
            self.notify(what)

    # -- data --------------------------------------------------------------------------------------------
    def set_data(
        self,
        data: Table | EventLog | SequenceSet | None,
        path: str | Path | None = None,
        *,
        read_options: dict[str, Any] | None = None,
    ) -> None:
        """Replace the data; hierarchies of columns the new data lacks and the last outcome are dropped,
        and a method for another kind of data is forgotten."""
        kind = kind_of(data)
        self.data = data
        self.data_path = Path(path) if path is not None else getattr(data, "source", None)
        self.read_options = dict(read_options or {})
        columns = set(self.columns())
        for attr in list(self.hierarchies) + list(self.hierarchy_sources):
            if attr not in columns:
                self.hierarchies.pop(attr, None)
                self.hierarchy_sources.pop(attr, None)
        if kind != self.kind:
            self.method = None
            self.params = {}
        self.kind = kind
        self.unroled = []
        self.proposed = {}
        self._invalidate("other data was opened since this run")
        # the runs were of other data: forgotten (neither shown again nor compared with runs on this data)
        had_runs = bool(self.history or self.outcomes)
        self.history = []
        self.outcomes = {}
        self._changed("data")
        if had_runs:
            self.notify("outcome")

    def open_data(
        self,
        data: Table | EventLog | SequenceSet,
        path: str | Path | None = None,
        *,
        read_options: dict[str, Any] | None = None,
    ) -> None:
        """Open a data file by hand (issue 40 item 1): nothing of the data open before is carried over — not its
        roles, hierarchies (built or given by a job), last outcome and report, run history (with the outcomes
        kept in memory), release options, output paths, engine, nor the job or project it came from (the window
        shows "untitled"). Only the chosen method and its parameters stay when the new data is of the same kind
        (a choice of the user's, not a property of the data). Listeners hear every kind of change, as for a
        project or job just read (:meth:`replace_from`)."""
        fresh = Workspace()
        fresh.set_data(data, path, read_options=read_options)
        if fresh.kind == self.kind and self.method is not None:
            fresh.method, fresh.params = self.method, dict(self.params)
            if self._needs_random_row_order(self.method):
                fresh.release = ReleaseOptions(shuffle_rows=True)
        fresh.dirty = True
        self.replace_from(fresh)

    def propose_roles(self) -> None:
        """Safe defaults for data just opened by hand (issue 30 item 1): every column without a role starts
        *unroled* — a run names them and asks (:meth:`unroled_columns`) — except one that looks like an identifier
        (:func:`looks_like_identifier`), whose proposed role is *identifying* (it is then dropped from the output,
        never published as it is). Jobs and projects state their roles and are not touched."""
        d = self.data
        if not isinstance(d, (Table, EventLog)):
            return
        fixed = {d.sequence_id, d.event_order} if isinstance(d, EventLog) else set()
        unroled, proposed = [], {}
        for column in self.columns():
            if column in fixed or self.role(column) is not Role.INSENSITIVE:
                continue
            why = looks_like_identifier(column, self.column_profile(column), self.n_rows())
            if why and isinstance(d, Table):
                d.roles[column] = Role.IDENTIFYING
                proposed[column] = why
            else:
                unroled.append(column)
        self.unroled, self.proposed = unroled, proposed
        self._invalidate("roles changed since this run")
        self._changed("roles")

    def unroled_columns(self) -> list[str]:
        """Columns still waiting for the user to choose a role (what Run names before it starts)."""
        columns = set(self.columns())
        return [c for c in self.unroled if c in columns]

    def apply_fallback_roles(self) -> list[str]:
        """The user ran without choosing: every unroled column becomes quasi-identifying (ARX's habit, the safe
        side: generalized, never published as it is). Returns those columns."""
        chosen = self.unroled_columns()
        for column in chosen:
            self.set_role(column, Role.QUASI)
        self.unroled = []
        return chosen

    def columns(self) -> list[str]:
        """The data's column names (tables and event logs), else ``[]``."""
        if isinstance(self.data, (Table, EventLog)):
            return [str(c) for c in self.data.df.columns]
        return []

    def n_records(self) -> int:
        """Rows of a table, sequences of an event log or strings of a sequence set."""
        return 0 if self.data is None else len(self.data)

    # -- roles -------------------------------------------------------------------------------------------
    def role(self, column: str) -> Role:
        d = self.data
        if isinstance(d, Table):
            return d.role(column)
        if isinstance(d, EventLog):
            if column in d.quasi_identifiers:
                return Role.QUASI
            if column == d.sensitive:
                return Role.SENSITIVE
            if column in (d.sequence_id,):
                return Role.IDENTIFYING
        return Role.INSENSITIVE

    def quasi_identifiers(self) -> list[str]:
        d = self.data
        if isinstance(d, (Table, EventLog)):
            return list(d.quasi_identifiers)
        return []

    def set_role(self, column: str, role: Role | str) -> None:
        """Set a column's role (tables: any role; event logs: quasi-identifying, sensitive or insensitive;
        the sequence id and event order columns keep theirs)."""
        role = Role(role)
        d = self.data
        if column not in self.columns():
            raise KeyError(column)
        if column in self.unroled:
            self.unroled = [c for c in self.unroled if c != column]
        self.proposed.pop(column, None)
        if isinstance(d, Table):
            if role is Role.INSENSITIVE:
                d.roles.pop(column, None)
            else:
                d.roles[column] = role
            if d.person == column:
                d.person = None  # a role chosen for the person column unmarks it (set_person marks it again)
        elif isinstance(d, EventLog):
            if column in (d.sequence_id, d.event_order):
                raise ValueError(f"'{column}' identifies sequences or orders events; its role is fixed")
            if column in d.quasi_identifiers:
                d.quasi_identifiers.remove(column)
            if d.sensitive == column:
                d.sensitive = None
            if role is Role.QUASI:
                d.quasi_identifiers.append(column)
            elif role is Role.SENSITIVE:
                d.sensitive = column
            elif role is Role.IDENTIFYING:
                raise ValueError("event logs have no identifying columns besides the sequence id")
        else:
            raise ValueError("this data has no columns")
        self._invalidate("roles changed since this run")
        self._changed("roles")

    def person(self) -> str | None:
        """The column naming each record's person (a table's identifying column; ``None``: records are counted)."""
        return self.data.person if isinstance(self.data, Table) else None

    def set_person(self, column: str | None) -> None:
        """Mark ``column`` as the person (it becomes identifying: never published) — every privacy model then counts
        distinct people per class — or ``None`` to count records again. A missing id is refused (InputError)."""
        d = self.data
        if not isinstance(d, Table):
            raise ValueError("only a table's records belong to people: event logs and strings have no person column")
        if column is not None:
            if column not in self.columns():
                raise KeyError(column)
            from anonstudio.core.privacy._people import check_person_column

            previous = d.person
            d.person = column
            try:
                check_person_column(d)
            except Exception:
                d.person = previous
                raise
            self.unroled = [c for c in self.unroled if c != column]
            self.proposed.pop(column, None)
            d.roles[column] = Role.IDENTIFYING
        else:
            d.person = None
        self._invalidate("the person column changed since this run")
        self._changed("roles")

    def attr_type(self, column: str) -> AttrType | None:
        if isinstance(self.data, Table):
            return self.data.types.get(column)
        return None

    def set_type(self, column: str, attr_type: AttrType | str) -> None:
        """Set a table column's type (categorical / ordinal / numeric)."""
        if not isinstance(self.data, Table):
            raise ValueError("only table columns have types")
        if column not in self.columns():
            raise KeyError(column)
        self.data.types[column] = AttrType(attr_type)
        self._changed("roles")

    def column_values(self, column: str) -> list[str]:
        """The distinct non-missing values of a column as strings, in first-seen order (computed once per
        loaded data set)."""
        if not isinstance(self.data, (Table, EventLog)) or column not in self.columns():
            return []
        return list(self.column_profile(column)["values"])

    def column_profile(self, column: str) -> dict[str, Any]:
        """``{"values", "distinct", "missing", "numeric", "all_distinct"}`` of a table or event-log column,
        computed once per loaded data set — by the worker that read it (:func:`profile_columns`), else here
        on first use; role clicks and panel refreshes reuse it."""
        if not isinstance(self.data, (Table, EventLog)):
            raise KeyError(column)  # FASTA data has no columns
        profiles = _profiles_of(self.data)
        hit = profiles.get(column)
        if hit is None:
            hit = profiles[column] = _profile(self.data.df[column])
        return hit

    def n_rows(self) -> int:
        """Rows of a table or events of an event log (0 otherwise)."""
        return len(self.data.df) if isinstance(self.data, (Table, EventLog)) else 0

    # -- hierarchies -------------------------------------------------------------------------------------
    def set_hierarchy(self, attribute: str, hierarchy: Hierarchy, source: Any = None) -> None:
        """Set (or replace) an attribute's hierarchy; ``source`` is its file path or builder spec."""
        self.hierarchies[attribute] = hierarchy
        if source is None:
            self.hierarchy_sources.pop(attribute, None)
        else:
            self.hierarchy_sources[attribute] = str(source) if isinstance(source, Path) else source
        self._invalidate("a hierarchy changed since this run")
        self._changed("hierarchies")

    def remove_hierarchy(self, attribute: str) -> None:
        had = attribute in self.hierarchies
        self.hierarchies.pop(attribute, None)
        self.hierarchy_sources.pop(attribute, None)
        if had:  # the shown outcome was made with it: out of date, as for a changed one
            self._invalidate("a hierarchy was removed since this run")
        self._changed("hierarchies")

    def missing_values(self, attribute: str) -> list[str]:
        """Data values of ``attribute`` that are not leaves of its hierarchy (all of them without one)."""
        values = self.column_values(attribute)
        h = self.hierarchies.get(attribute)
        return values if h is None else h.missing(values)

    def gets_default_bands(self, attribute: str) -> bool:
        """Whether a run gives ``attribute`` the default interval bands when it has no hierarchy (else a run
        refuses it): the command line's rule, :func:`anonstudio.core.jobs.gets_default_bands`."""
        from anonstudio.core.jobs import gets_default_bands

        return self.data is not None and gets_default_bands(self.data, attribute)

    def hierarchy_warnings(self, attribute: str | None = None) -> list[str]:
        """The warnings a run gives about the hierarchies (of ``attribute`` only, if given), before any run:
        a hierarchy for a column that is not a quasi-identifier, interval labels that do not hold their values
        (:func:`anonstudio.core.jobs.hierarchy_warnings`, what the command line prints) — none about hierarchies the
        chosen method does not use."""
        from anonstudio.core import algorithms
        from anonstudio.core.errors import AnonStudioError
        from anonstudio.core.jobs import hierarchy_warnings

        if self.data is None:
            return []
        specs = {a: s for a, s in self.hierarchy_specs().items() if attribute is None or a == attribute}
        built = {a: h for a, h in self.hierarchies.items() if attribute is None or a == attribute}
        used = None  # the chosen method's hierarchies only (random anonymization and anatomy use none)
        if self.method is not None:
            try:
                cls = algorithms.get(self.method)
                used = None if cls.needs_hierarchies else {str(a) for a in (self.params.get("level") or {})}
            except AnonStudioError:
                used = None
        return hierarchy_warnings(specs, self.data, built, used=used)

    def hierarchy_specs(self) -> dict[str, Any]:
        """What a run completes the hierarchies from (:func:`anonstudio.core.jobs.load_hierarchies`): each built
        hierarchy as it is, and a job's spec (a file or a builder) for an attribute whose hierarchy was not built."""
        out: dict[str, Any] = {}
        for attr, source in self.hierarchy_sources.items():
            if attr not in self.hierarchies:
                out[attr] = Path(source) if isinstance(source, str) else source
        out.update(self.hierarchies)
        return out

    # -- method ------------------------------------------------------------------------------------------
    def available_methods(self) -> list[Any]:
        """The algorithm classes for the current kind of data (from the engine's registry)."""
        from anonstudio.core import algorithms

        return algorithms.available(self.kind) if self.kind else []

    def method_needs_hierarchies(self) -> bool:
        """Whether the chosen method generalizes (ra, ra-enhanced and anatomy do not); ``True`` when none is chosen."""
        from anonstudio.core import algorithms
        from anonstudio.core.errors import AnonStudioError

        try:
            return self.method is None or bool(algorithms.get(self.method).needs_hierarchies)
        except AnonStudioError:
            return True

    def set_method(self, method: str | None, params: dict[str, Any] | None = None) -> None:
        if (method, dict(params or {})) != (self.method, self.params):
            self.revision += 1  # a run going now was started with the earlier choice
        self.method = method
        self.params = dict(params or {})
        if self.outcome is not None and not self._outcome_matches(method, self.params):
            self._invalidate("parameters changed since this run")
            self._changed("outcome")
        self._changed("method")
        if not self.release.shuffle_rows and self._needs_random_row_order(method):
            # its guarantee needs a random row order (SafePub): on by itself, as a job without it is refused
            self.set_release(shuffle_rows=True)

    @staticmethod
    def _needs_random_row_order(method: str | None) -> bool:
        from anonstudio.core import algorithms
        from anonstudio.core.errors import AnonStudioError

        try:
            return method is not None and bool(algorithms.get(method).random_row_order)
        except AnonStudioError:
            return False

    def _outcome_matches(self, method: str | None, params: dict[str, Any]) -> bool:
        """Whether the shown outcome was produced with ``method`` and ``params``."""
        rep = getattr(self.outcome, "report", None) or {}
        ran = rep.get("parameters", {}) or {}
        return rep.get("algorithm") == method and all(ran.get(k) == v for k, v in params.items())

    def _invalidate(self, why: str) -> None:
        """What is on screen changed: the outcome no longer belongs to it (export off, status says so)."""
        self.revision += 1
        if self.outcome is not None or self.last_report is not None:
            self.stale_reason = why
        self.outcome = None

    # -- release options ---------------------------------------------------------------------------------
    def set_release(self, **options: Any) -> None:
        """Change release options (``shuffle_rows``, ``shuffle_seed``, ``release_log``): what an export
        publishes, not what was verified, so the outcome stays current."""
        from dataclasses import replace

        unknown = set(options) - {"shuffle_rows", "shuffle_seed", "release_log", "key_file", "key_fingerprint"}
        if options.get("shuffle_seed") is not None:
            from anonstudio.core.jobs import refuse_written_secrets

            refuse_written_secrets(str(self.method or ""), {}, options["shuffle_seed"])
        if options.get("key_file") is not None:
            options["key_file"] = Path(options["key_file"])
        if unknown:
            raise KeyError(sorted(unknown)[0])
        if "release_log" in options and options["release_log"] is not None:
            options["release_log"] = Path(options["release_log"])
        new = replace(self.release, **options)
        if new != self.release:
            self.release = new
            self._changed("release")

    # -- project -----------------------------------------------------------------------------------------
    @property
    def project_name(self) -> str:
        if self.project_path is not None:
            name = Path(self.project_path).name
            return name[: -len(".anonstudio.json")] if name.endswith(".anonstudio.json") else Path(name).stem
        return "untitled"

    def files_read(self) -> dict[str, Path]:
        """The files the workspace was read from, by the job key that names them (a publication may overwrite
        none of them): ``input.path``, ``hierarchies.<attribute>``, the job file, the project file."""
        out: dict[str, Path] = {}
        if self.data_path is not None:
            out["input.path"] = Path(self.data_path)
        for attr, source in self.hierarchy_sources.items():
            if isinstance(source, (str, Path)):
                out[f"hierarchies.{attr}"] = Path(source)
        if self.job_path is not None:
            out["the job file"] = Path(self.job_path)
        if self.project_path is not None:
            out["the project file"] = Path(self.project_path)
        return out

    def mark_saved(self, path: str | Path | None = None) -> None:
        if path is not None:
            self.project_path = Path(path)
        self.dirty = False
        self.notify("project")
        self.notify("dirty")

    # -- files -------------------------------------------------------------------------------------------
    @classmethod
    def from_job(cls, path: str | Path, overrides: list[str] | None = None) -> Workspace:
        """A workspace holding a job: its data read with its roles, its hierarchies, method, parameters, engine,
        release options and output paths (:func:`anonstudio.core.workspace.workspace_from_job`)."""
        from anonstudio.core.workspace._files import workspace_from_job

        return workspace_from_job(path, overrides)

    @classmethod
    def from_project(cls, path: str | Path, *, allow_outside: bool = False) -> Workspace:
        """A workspace from a project file (:func:`anonstudio.core.workspace.read_project`)."""
        from anonstudio.core.workspace._files import read_project

        return read_project(path, allow_outside=allow_outside)

    def save_project(self, path: str | Path) -> Path:
        """Write the project file (atomic) and mark the workspace saved."""
        from anonstudio.core.workspace._files import write_project

        written = write_project(self, path)
        self.mark_saved(path)
        return written

    def save_job(self, path: str | Path, **kwargs: Any) -> Path:
        """Write a job that reproduces this workspace (:func:`anonstudio.core.workspace.save_job`)."""
        from anonstudio.core.workspace._files import save_job

        return save_job(self, path, **kwargs)


