"""The workbench state: a small Qt-free object every pane reads and the main window changes.

Panes bind to a :class:`WorkbenchState` (glue's ``viewers/*/state.py`` pattern): they read ``data``,
``hierarchies``, ``method``/``params`` and ``outcome`` from it and never keep copies of their own. The
state holds no Qt object, so it can be built, changed and tested without a ``QApplication``; listeners
registered with :meth:`WorkbenchState.subscribe` are plain callables ``(what: str) -> None`` that the
main window forwards to Qt signals.

``what`` is one of :data:`CHANGES`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import KINDS, AttrType, EventLog, Role, SequenceSet, Table, is_number, kind_of  # noqa: F401 (KINDS, kind_of re-exported)
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.progress import checkpoint

#: change notifications sent to listeners
CHANGES = ("data", "roles", "hierarchies", "method", "outcome", "project", "dirty")

Listener = Callable[[str], None]


@dataclass
class WorkbenchState:
    """Everything the workbench shows and a project file stores.

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
        ``[hierarchies]``); attributes edited by hand are absent (the project stores their rows inline).
    method, params:
        The chosen method's job-file name and its parameters (without ``name``).
    outcome:
        The last finished run (:class:`anonstudio.core.jobs.Outcome`) or ``None``.
    last_report:
        The report of the last run as stored in a project (``outcome.report`` once a run finishes here).
    project_path:
        The project file, once saved or opened.
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
    #: every run since the project was opened (and those saved in it): ``{"number", "time", "method",
    #: "parameters", "report"}``, oldest first; their outcomes, while in memory, in :attr:`outcomes`
    history: list[dict[str, Any]] = field(default_factory=list)
    outcomes: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)
    project_path: Path | None = None
    dirty: bool = False
    #: counts changes to what a run reads (data, roles, hierarchies, method, parameters): a run started at
    #: one count and finished at another was verified against settings no longer on screen
    revision: int = field(default=0, repr=False, compare=False)
    _listeners: list[Listener] = field(default_factory=list, repr=False, compare=False)

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

    def replace_from(self, other: WorkbenchState) -> None:
        """Take over everything ``other`` holds (a project or job just read), keeping this object — and
        the panes bound to it — and its listeners; then notify every kind of change."""
        for name in ("data", "data_path", "kind", "read_options", "hierarchies", "hierarchy_sources", "method",
                     "params", "outcome", "last_report", "history", "outcomes", "project_path", "dirty",
                     "stale_reason"):
            setattr(self, name, getattr(other, name))
        for what in ("data", "roles", "hierarchies", "method", "outcome", "project", "dirty"):
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
        for attr in list(self.hierarchies):
            if attr not in columns:
                del self.hierarchies[attr]
                self.hierarchy_sources.pop(attr, None)
        if kind != self.kind:
            self.method = None
            self.params = {}
        self.kind = kind
        self._invalidate("other data was opened since this run")
        self._changed("data")

    def columns(self) -> list[str]:
        """The data's column names (tables and event logs), else ``[]``."""
        if isinstance(self.data, (Table, EventLog)):
            return [str(c) for c in self.data.df.columns]
        return []

    def n_records(self) -> int:
        """Rows of a table, sequences of an event log or strings of a sequence set."""
        return 0 if self.data is None else len(self.data)

    def size_text(self) -> str:
        """One line for the status bar, e.g. ``"32,561 rows × 15 columns"``."""
        d = self.data
        if d is None:
            return "no data"
        if isinstance(d, Table):
            return f"{len(d):,} rows × {d.df.shape[1]} columns"
        if isinstance(d, EventLog):
            return f"{len(d):,} sequences, {d.n_events:,} events"
        return f"{len(d):,} sequences, {int(d.offsets[-1]):,} residues"

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
        if isinstance(d, Table):
            if role is Role.INSENSITIVE:
                d.roles.pop(column, None)
            else:
                d.roles[column] = role
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
        return self.column_profile(column)["values"]

    def column_profile(self, column: str) -> dict[str, Any]:
        """``{"values", "distinct", "missing", "numeric", "all_distinct"}`` of a table or event-log column,
        computed once per loaded data set — by the worker that read it (:func:`profile_columns`), else here
        on first use; role clicks and panel refreshes reuse it."""
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

    # -- method ------------------------------------------------------------------------------------------
    def available_methods(self) -> list:
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

    def verdict_text(self) -> str:
        """The last run's verdict for the status bar, e.g. ``"k-anonymous, k = 5, verified"``."""
        if self.outcome is None:
            # never a verdict about something that is not on screen: changed inputs, a failed run or a
            # reopened project without its output
            if self.stale_reason:
                return f"results out of date ({self.stale_reason}): run again"
            if self.last_report:
                return "the last run's output is not open: run again to verify and export"
            return ""
        rep = self.outcome.report
        ver = rep.get("verification", {}) or {}
        params = rep.get("parameters", {}) or {}
        model = str(ver.get("model", ""))
        passed = bool(ver.get("passed"))
        bits: list[str] = []
        if model == "k-anonymity":
            bits.append("k-anonymous")
        elif model:
            bits.append(model)
        for key in ("k", "l", "c"):
            if params.get(key) is not None:
                bits.append(f"{key} = {params[key]}")
        bits.append("verified" if passed else "NOT verified")
        return ", ".join(bits)

    # -- project -----------------------------------------------------------------------------------------
    @property
    def project_name(self) -> str:
        if self.project_path is not None:
            name = Path(self.project_path).name
            return name[: -len(".anonstudio.json")] if name.endswith(".anonstudio.json") else Path(name).stem
        return "untitled"

    def files_read(self) -> dict[str, Path]:
        """The files the work on screen was read from (an export may overwrite none of them)."""
        out: dict[str, Path] = {}
        if self.data_path is not None:
            out["the data file"] = Path(self.data_path)
        for attr, source in self.hierarchy_sources.items():
            if isinstance(source, (str, Path)):
                out[f"the hierarchy file of '{attr}'"] = Path(source)
        if self.project_path is not None:
            out["the project file"] = Path(self.project_path)
        return out

    def title(self) -> str:
        """Window title: project name, ``*`` when there are unsaved changes, and the version."""
        from anonstudio import __version__

        return f"{self.project_name}{'*' if self.dirty else ''} — anonstudio {__version__}"

    def mark_saved(self, path: str | Path | None = None) -> None:
        if path is not None:
            self.project_path = Path(path)
        self.dirty = False
        self.notify("project")
        self.notify("dirty")


# ---------------------------------------------------------------------------------------------------------
# column profiles, once per data set
_PROFILES: dict[int, tuple[weakref.ref, dict[str, dict[str, Any]]]] = {}
#: rows per pandas call while profiling: each call stays short, so a profile computed on a worker thread
#: never holds the interpreter lock long enough to freeze the window (1M rows at once: 1.3 s)
PROFILE_CHUNK = 131_072


def _profiles_of(data: Any) -> dict[str, dict[str, Any]]:
    """The profiles kept for ``data`` (while it lives)."""
    hit = _PROFILES.get(id(data))
    if hit is None or hit[0]() is not data:
        ref = weakref.ref(data, lambda _ref, key=id(data): _PROFILES.pop(key, None))
        hit = _PROFILES[id(data)] = (ref, {})
    return hit[1]


def profile_columns(data: Any) -> Any:
    """Profile every column of a table or event log now (call it on the worker thread that read ``data``;
    the Attributes panel, the role checks and the data view then only look it up). Returns ``data``."""
    if isinstance(data, (Table, EventLog)):
        profiles = _profiles_of(data)
        for column in data.df.columns:
            if column not in profiles:
                profiles[column] = _profile(data.df[column])
    return data


def _profile(series: pd.Series) -> dict[str, Any]:
    """Distinct non-missing values (as text, first seen first), their number, missing cells, whether every
    value is a number, and whether every record holds a different value (a missing cell counting as one
    value). Computed over chunks of :data:`PROFILE_CHUNK` rows."""
    n, missing, parts = len(series), 0, []
    for start in range(0, n, PROFILE_CHUNK):
        part = series.iloc[start : start + PROFILE_CHUNK]
        na = part.isna().to_numpy()
        missing += int(na.sum())
        parts.append(pd.unique(part[~na].astype(str).to_numpy(dtype=object)))
        checkpoint()  # reading on the worker may be cancelled between chunks
    uniques = pd.unique(np.concatenate(parts)) if len(parts) > 1 else (parts[0] if parts else [])
    values = [str(v) for v in uniques]
    numeric = bool(values) and all(is_number(v) for v in values)
    return {"values": values, "distinct": len(values), "missing": missing, "numeric": numeric,
            "all_distinct": n > 1 and missing <= 1 and len(values) + (missing > 0) == n}
