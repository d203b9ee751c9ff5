"""Qt-free views of a finished run, shared by the result panes.

Everything a result pane shows is computed here from a :class:`anonstudio.core.jobs.Outcome` with plain
numpy / pandas, so it can be tested without a ``QApplication`` (Orange3's ``run(inputs, state)`` habit):
changed cells, the members of a record's group, symbol compositions and their difference CD, class
sizes, the report as rows, sweep series and the MST drawing.
"""

from __future__ import annotations

import math
import re
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, SequenceSet, Table, text_cells
from anonstudio.core.progress import checkpoint

#: most nodes the MST pane lays out; above it whole classes are sampled
MST_MAX_NODES = 1000

_GROUP_RE = re.compile(r"(?:^|\s)group=(-?\d+)")


# ---------------------------------------------------------------------------------------------------------
# views computed once per object (see prepare_views)
_VIEWS: dict[tuple, tuple[tuple[weakref.ref, ...], Any]] = {}
_PREPARING = threading.local()


def cached_view(name: str, objects: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, or the value :func:`prepare_views` stored for these ``objects`` (keyed by identity,
    kept for as long as every one of them lives).

    Result panes call the view functions below on the GUI thread; :func:`prepare_views` calls them on the
    worker thread right after a run and keeps what they return, so that showing a large result costs the
    GUI thread only the Qt work. Only views of a finished run's outcome (never modified afterwards) are
    kept; any other call computes afresh. What it returns is shared: callers must not modify it.
    """
    key = (name, *(id(o) for o in objects))
    hit = _VIEWS.get(key)
    if hit is not None and all(ref() is o for ref, o in zip(hit[0], objects)):
        return hit[1]
    value = compute()
    if getattr(_PREPARING, "active", False):
        try:
            refs = tuple(weakref.ref(o, lambda _ref, key=key: _VIEWS.pop(key, None)) for o in objects)
        except TypeError:  # an object without weak references: not kept
            return value
        _VIEWS[key] = (refs, value)
    return value


def prepare_views(outcome: Any) -> Any:
    """Compute the costly views of ``outcome`` now (on the worker thread that ran it); returns it.

    What the result panes later ask for — equivalence classes, changed cells, the frames as text, the MST
    layout — then comes from :func:`cached_view`, so the GUI thread never converts whole frames.
    """
    _PREPARING.active = True
    try:
        _prepare(outcome)
    finally:
        _PREPARING.active = False
    return outcome


def _prepare(outcome: Any) -> None:
    class_sizes(equivalence_classes(outcome))
    if getattr(outcome.result, "groups", None) is not None:
        class_sizes(outcome.result.groups)
    data, output = getattr(outcome, "data", None), getattr(outcome.result, "output", None)
    if data_kind(data) == "table" and data_kind(output) == "table":
        original, published = frame_of(data), frame_of(output)
        if original is not None and published is not None:
            changed_mask(original, published)  # the tables format their visible rows only (FrameModel)
    if (getattr(outcome.result, "details", None) or {}).get("mst_edges") is not None:
        mst_view(outcome)
    if data_kind(data) == "fasta" and data_kind(output) == "fasta":
        fragment_lengths(outcome)


def fragment_lengths(outcome: Any) -> np.ndarray:
    """Per pseudo-string, the longest run of symbols it shares with any input (from the inputs' one
    fragment index, already built by the run's verification)."""
    from anonstudio.core.privacy import FragmentIndex

    data, output = outcome.data, outcome.result.output
    return cached_view("fragment_lengths", (data, output), lambda: FragmentIndex.of(data).longest_shared(output))


def frame_text(frame: pd.DataFrame) -> np.ndarray:
    """``frame``'s cells as an object array of strings (missing values empty), as tables show them."""
    return cached_view("frame_text", (frame,), lambda: frame.astype("string").fillna("").to_numpy(dtype=object))


# ---------------------------------------------------------------------------------------------------------
# data kinds and frames
def data_kind(data: Any) -> str | None:
    """``"table"``, ``"events"`` or ``"fasta"`` for a container (or a DataFrame, taken as a table)."""
    if data is None:
        return None
    if isinstance(data, (Table, pd.DataFrame)):
        return "table"
    if isinstance(data, EventLog):
        return "events"
    if isinstance(data, SequenceSet):
        return "fasta"
    return None


def frame_of(data: Any) -> pd.DataFrame | None:
    """The DataFrame inside a Table or EventLog (a DataFrame as it is)."""
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, (Table, EventLog)):
        return data.df
    return None


def as_text(value: Any) -> str:
    """A cell as the user reads it: missing values as an empty string."""
    if value is None:
        return ""
    try:
        if pd.isna(value):
            return ""
    except (TypeError, ValueError):
        pass
    return str(value)


def changed_mask(original: pd.DataFrame, output: pd.DataFrame) -> np.ndarray:
    """``bool[len(output), n_output_columns]``: the output cells that differ from the original's cell in
    the same row and column (columns matched by name; rows by position). Rows or columns the original
    lacks count as unchanged."""
    return cached_view("changed_mask", (original, output), lambda: _changed_mask(original, output))


def _changed_mask(original: pd.DataFrame, output: pd.DataFrame) -> np.ndarray:
    mask = np.zeros(output.shape, dtype=bool)
    n = min(len(original), len(output))
    for j, col in enumerate(output.columns):
        if col not in original.columns or n == 0:
            continue
        for start in range(0, n, _CHUNK):  # short pandas calls: the worker never holds the lock for long
            stop = min(n, start + _CHUNK)
            a = text_cells(original[col].iloc[start:stop])
            b = text_cells(output[col].iloc[start:stop])
            mask[start:stop, j] = a != b
            checkpoint()
    return mask


#: rows per pandas call in the views prepared on the worker thread (each call stays well under 100 ms)
_CHUNK = 131_072


def group_members(groups: np.ndarray, record: int) -> np.ndarray:
    """Indices of the records in ``record``'s group (just itself when suppressed, group -1)."""
    groups = np.asarray(groups)
    if record < 0 or record >= len(groups):
        return np.zeros(0, dtype=np.int64)
    g = groups[record]
    if g < 0:
        return np.array([record], dtype=np.int64)
    return np.flatnonzero(groups == g)


# ---------------------------------------------------------------------------------------------------------
# event sequences
@dataclass
class SequenceRows:
    """One row per sequence of an event log: its id, number of events and its events as one line."""

    ids: list[str]
    n_events: np.ndarray
    text: list[str]
    rows: list[np.ndarray]


def sequence_rows(log: EventLog, ids: list[str] | None = None) -> SequenceRows:
    """Summarise ``log`` per sequence, in the order of ``ids`` (default: the log's own order); a sequence
    the log lacks (removed by the method) has no events and the text ``(removed)``."""
    own_ids, order, offsets = log.sequence_index()
    where = {sid: i for i, sid in enumerate(own_ids)}
    cols = [c for c in [*log.quasi_identifiers, *( [log.sensitive] if log.sensitive else [])] if c in log.df.columns]
    values = log.df[cols].astype("string").fillna("").to_numpy(dtype=object) if cols else None
    ids = own_ids if ids is None else ids
    n_events = np.zeros(len(ids), dtype=np.int64)
    text: list[str] = []
    rows: list[np.ndarray] = []
    for k, sid in enumerate(ids):
        i = where.get(sid)
        if i is None:
            text.append("(removed)")
            rows.append(np.zeros(0, dtype=np.int64))
            continue
        r = order[offsets[i] : offsets[i + 1]]
        rows.append(r)
        n_events[k] = len(r)
        if values is None:
            text.append(f"{len(r)} events")
        else:
            text.append(" → ".join("/".join(values[e]) for e in r))
    return SequenceRows(list(ids), n_events, text, rows)


# ---------------------------------------------------------------------------------------------------------
# strings: pseudo-string groups and compositions
def pseudo_groups(output: SequenceSet, details: dict | None = None) -> np.ndarray:
    """The group of every pseudo-string: ``details["pseudo_groups"]`` or ``output.extra["groups"]`` when the
    method gave them, else the ``group=<g>`` field of each FASTA header (``-1`` when neither says)."""
    details = details or {}
    given = details.get("pseudo_groups")
    if given is None:
        given = (getattr(output, "extra", None) or {}).get("groups")
    if given is not None and len(given) == len(output):
        return np.asarray(given, dtype=np.int64)
    out = np.full(len(output), -1, dtype=np.int64)
    for i, header in enumerate(output.headers):
        m = _GROUP_RE.search(header)
        if m:
            out[i] = int(m.group(1))
    return out


def symbol_counts(seqs: SequenceSet, indices: np.ndarray | None = None) -> dict[str, int]:
    """How often each symbol of the alphabet occurs in the chosen strings (all when ``indices`` is None)."""
    if indices is None:
        codes = seqs.codes
    else:
        parts = [seqs.codes_of(int(i)) for i in indices]
        codes = np.concatenate(parts) if parts else np.zeros(0, dtype=seqs.codes.dtype)
    counts = np.bincount(codes.astype(np.int64), minlength=len(seqs.alphabet))
    return {s: int(counts[i]) for i, s in enumerate(seqs.alphabet.symbols)}


@dataclass
class Composition:
    """Fractional symbol frequencies of the original strings ``f`` and the pseudo-strings ``f_pseudo``
    over ``symbols``, and their compositional difference ``cd``."""

    symbols: list[str]
    f: np.ndarray
    f_pseudo: np.ndarray
    n_original: int
    n_pseudo: int

    @property
    def cd(self) -> float:
        """Aggarwal & Yu (2008), Sect. 4: CD(f, f') = Σ_i |f_i − f'_i| over the alphabet."""
        return float(np.abs(self.f - self.f_pseudo).sum())


def composition(
    original: SequenceSet,
    pseudo: SequenceSet,
    original_idx: np.ndarray | None = None,
    pseudo_idx: np.ndarray | None = None,
) -> Composition:
    """Compare the symbol composition of (some of) the original strings with (some of) the pseudo-strings.
    Symbols are matched by name, in the original alphabet's order, then any the pseudo-strings add."""
    a = symbol_counts(original, original_idx)
    b = symbol_counts(pseudo, pseudo_idx)
    symbols = list(a) + [s for s in b if s not in a]
    ca = np.array([a.get(s, 0) for s in symbols], dtype=float)
    cb = np.array([b.get(s, 0) for s in symbols], dtype=float)
    fa = ca / ca.sum() if ca.sum() else ca
    fb = cb / cb.sum() if cb.sum() else cb
    n_a = len(original) if original_idx is None else len(original_idx)
    n_b = len(pseudo) if pseudo_idx is None else len(pseudo_idx)
    return Composition(symbols, fa, fb, n_a, n_b)


# ---------------------------------------------------------------------------------------------------------
# classes
def class_sizes(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(class_ids, sizes)`` of the equivalence classes (suppressed records, group -1, left out); kept for
    an outcome's arrays by :func:`prepare_views` (a sort of every record: 0.1 s at 1M rows)."""
    return cached_view("class_sizes", (groups,), lambda: _class_sizes(groups))


def _class_sizes(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    g = np.asarray(groups, dtype=np.int64)
    g = g[g >= 0]
    if len(g) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ids, sizes = np.unique(g, return_counts=True)
    return ids, sizes


def equivalence_classes(outcome: Any) -> np.ndarray:
    """Per input record, its equivalence class as a reader of the output sees it.

    For a table whose output keeps the input's rows, records are in one class when their published
    quasi-identifier values are identical (two groups of a method that generalize to the same values form
    one class; this is what the verifiers count). Suppressed records (group -1, or every quasi-identifier
    published as ``*`` or its hierarchy's root, as :func:`anonstudio.core.privacy.suppressed_rows` says)
    are -1. For
    other outputs (strings, event sequences) the method's groups are the classes.
    """
    return cached_view("equivalence_classes", (outcome,), lambda: _equivalence_classes(outcome))


def _equivalence_classes(outcome: Any) -> np.ndarray:
    groups = np.asarray(outcome.result.groups, dtype=np.int64)
    output = frame_of(getattr(outcome.result, "output", None))
    qis = [q for q in (getattr(outcome.data, "quasi_identifiers", []) or [])]
    if (data_kind(outcome.data) != "table" or output is None or len(output) != len(groups) or not qis
            or any(q not in output.columns for q in qis)):
        return groups
    from anonstudio.core.privacy import suppressed_rows

    # suppressed: removed by the method, or published with every QI cell '*' or its hierarchy's root
    keep = (groups >= 0) & ~suppressed_rows(output, qis, getattr(outcome, "hierarchies", None) or {})
    classes = np.full(len(groups), -1, dtype=np.int64)
    if keep.any():  # the kept rows' distinct QI tuples, numbered by first appearance (in slices of rows)
        from anonstudio.core.data._chunks import row_classes

        classes[keep] = row_classes([text_cells(output[q], "")[keep] for q in qis], int(keep.sum()))
    return classes


def size_histogram(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(size, number_of_classes)`` for every class size that occurs, ascending."""
    if len(sizes) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    values, counts = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    return values, counts


def verification_dict(outcome: Any) -> dict[str, Any]:
    """The verifier's verdict as a dict (``passed``, ``model``, ``details``, ``problems``)."""
    ver = getattr(outcome, "verification", None)
    if ver is not None and hasattr(ver, "as_dict"):
        out = dict(ver.as_dict())
    elif isinstance(ver, dict):
        out = dict(ver)
    else:
        out = dict((getattr(outcome, "report", None) or {}).get("verification", {}))
    if ver is not None and hasattr(ver, "summary") and "summary" not in out:
        try:
            out["summary"] = ver.summary()
        except Exception:  # noqa: BLE001 - a summary is decoration; the verdict itself is shown regardless
            pass
    return out


#: report metric names (substrings, lower case) that describe leaks of original string fragments
LEAK_WORDS = ("leak", "fragment", "copied", "copies", "longest_shared", "shared_substring", "common_substring",
              "longest_match", "shared_kmer", "near_copy")

#: what the condensation report's fragment figures mean
LEAK_MEANINGS = {
    "exact_copies": "pseudo-strings equal to an input (must be 0)",
    "longest_shared_substring.pseudo_mean": "longest fragment shared with an input, mean",
    "longest_shared_substring.pseudo_max": "longest fragment shared with an input, max",
    "longest_shared_substring.random_mean": "same for random strings (chance level), mean",
    "longest_shared_substring.random_max": "same for random strings (chance level), max",
    # the pseudo-string verifier's own figures
    "verification.exact_copies": "verifier: pseudo-strings equal to an input",
    "verification.longest_shared_max": "verifier: longest fragment shared with an input, max",
    "verification.longest_shared_mean": "verifier: longest fragment shared with an input, mean",
    "verification.longest_shared_median": "verifier: longest fragment shared with an input, median",
    "verification.longest_shared_record": "verifier: the pseudo-string with the longest fragment",
    "near_copy_strings_drawn": "pseudo-strings drawn with a near-copy of fewer than k inputs (repaired)",
    "near_copy_symbols_redrawn": "symbols redrawn to repair them",
    "verification.near_copy_strings": "verifier: pseudo-strings with a near-copy of fewer than k inputs (must be 0)",
}


def leak_metrics(report: dict) -> list[tuple[str, str, str]]:
    """The report's fragment-leak figures for strings, as ``(name, value, meaning)`` rows."""
    rows: list[tuple[str, str, str]] = []
    for key, value in flatten_dict(report.get("metrics", {})):
        if any(w in key.lower() for w in LEAK_WORDS):
            rows.append((key, format_value(value), LEAK_MEANINGS.get(key, "")))
    for key, value in flatten_dict(report.get("verification", {}).get("details", {}) or {}):
        if any(w in key.lower() for w in LEAK_WORDS):
            name = f"verification.{key}"
            rows.append((name, format_value(value), LEAK_MEANINGS.get(name, "")))
    return rows


# ---------------------------------------------------------------------------------------------------------
# report as rows
def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "n/a"
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e6):
            return f"{v:.4g}"
        return f"{v:.4f}".rstrip("0").rstrip(".") if not v.is_integer() else f"{v:.0f}"
    if isinstance(value, (list, tuple)):
        if len(value) > 8:
            return ", ".join(format_value(v) for v in value[:8]) + f", … ({len(value)} values)"
        return ", ".join(format_value(v) for v in value)
    if value is None:
        return "—"
    return str(value)


def flatten_dict(d: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Nested dicts as ``("a.b.c", value)`` pairs in insertion order."""
    out: list[tuple[str, Any]] = []
    if not isinstance(d, dict):
        return [(prefix, d)] if prefix else []
    for key, value in d.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out.extend(flatten_dict(value, name))
        else:
            out.append((name, value))
    return out


#: report sections in the order the metrics table shows them
REPORT_ORDER = (
    "algorithm", "parameters", "input", "output", "suppressed", "groups", "runtime_s", "verification", "metrics",
    "notes",
)


def report_rows(report: dict) -> list[tuple[str, str, str]]:
    """The report as ``(section, name, value)`` rows: contract keys first, in a fixed order."""
    rows: list[tuple[str, str, str]] = []
    keys = [k for k in REPORT_ORDER if k in report] + [k for k in report if k not in REPORT_ORDER]
    for key in keys:
        value = report[key]
        if key == "notes":
            for i, note in enumerate(value or []):
                rows.append(("notes", str(i + 1), str(note)))
        elif isinstance(value, dict):
            for name, v in flatten_dict(value):
                if key == "verification" and name.startswith("details."):
                    name = name[len("details."):]  # the verifier's figures, without the container's name
                rows.append((key, name, format_value(v)))
        else:
            rows.append((key, "", format_value(value)))
    return rows


def numeric_metrics(metrics: dict) -> dict[str, float]:
    """The finite numeric entries of a (nested) metrics dict, keyed by dotted name."""
    out: dict[str, float] = {}
    for name, value in flatten_dict(metrics):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            continue
        v = float(value)
        if math.isfinite(v):
            out[name] = v
    return out


@dataclass
class SweepState:
    """Points of a sweep: per method, ``(x, {metric: value})`` in arrival order."""

    x_name: str = "k"
    points: dict[str, list[tuple[float, dict[str, float]]]] = field(default_factory=dict)

    def add(self, method: str, x: float, metrics: dict) -> None:
        """Add a point; a second point of the same method at the same x replaces the first (a re-run)."""
        pts = self.points.setdefault(method, [])
        pts[:] = [p for p in pts if p[0] != float(x)]
        pts.append((float(x), numeric_metrics(metrics)))

    def clear(self, x_name: str | None = None) -> None:
        self.points.clear()
        if x_name is not None:
            self.x_name = x_name

    def metric_names(self) -> list[str]:
        names: list[str] = []
        for pts in self.points.values():
            for _, m in pts:
                names.extend(n for n in m if n not in names)
        return names

    def series(self, metric: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per method, ``(x, y)`` sorted by x, for the points that have ``metric``."""
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for method, pts in self.points.items():
            xy = sorted((x, m[metric]) for x, m in pts if metric in m)
            if xy:
                arr = np.array(xy, dtype=float)
                out[method] = (arr[:, 0], arr[:, 1])
        return out


# ---------------------------------------------------------------------------------------------------------
# MST partition drawing
@dataclass
class MstView:
    """What the MST pane draws: node positions, class per node, kept and removed edges (node indices into
    the drawn nodes), and labels for hover text."""

    pos: np.ndarray
    node_class: np.ndarray
    node_ids: np.ndarray
    kept: np.ndarray
    removed: np.ndarray
    n_total: int
    unit: str
    labels: list[str]
    class_size: dict[int, int]

    @property
    def sampled(self) -> bool:
        return len(self.node_ids) < self.n_total


def _as_edges(a: Any) -> np.ndarray:
    arr = np.asarray(a if a is not None else np.zeros((0, 2)), dtype=np.int64)
    return arr.reshape(-1, 2) if arr.size else np.zeros((0, 2), dtype=np.int64)


def mst_view(outcome: Any, *, max_nodes: int = MST_MAX_NODES, seed: int = 0) -> MstView | None:
    """Lay out the MST of ``outcome.result.details`` in 2-D, or ``None`` when the method has no MST.

    Nodes are records, or distinct quasi-identifier tuples when ``details["tuple_of_record"]`` maps records
    to tuples. ``details["removed_edges"]`` is either indices into ``mst_edges`` or an m×2 array of node
    pairs, or a boolean mask over ``mst_edges``. Above ``max_nodes`` nodes, whole classes are sampled at random (fixed seed) until the limit.
    Layout: :func:`class_packed_layout` — each class by :func:`force_layout` of its tree edges (weighted by
    ``1 / (1 + weight)``), the classes packed on a grid.
    """
    return cached_view(f"mst_view:{max_nodes}:{seed}", (outcome,), lambda: _mst_view(outcome, max_nodes, seed))


def _mst_view(outcome: Any, max_nodes: int, seed: int) -> MstView | None:
    result = outcome.result
    details = result.details or {}
    if details.get("mst_edges") is None:
        return None
    edges = _as_edges(details["mst_edges"])
    weights = np.asarray(details.get("mst_weights", np.ones(len(edges))), dtype=float).reshape(-1)
    if len(weights) != len(edges):
        weights = np.ones(len(edges))
    removed_raw = details.get("removed_edges")
    removed_mask = np.zeros(len(edges), dtype=bool)
    if removed_raw is not None and np.size(removed_raw):
        raw = np.asarray(removed_raw)
        r = raw.astype(np.int64)
        if raw.dtype == bool and raw.ndim == 1 and len(raw) == len(edges):  # a mask over mst_edges
            removed_mask = raw.copy()
        elif r.ndim == 2:
            pairs = {(min(a, b), max(a, b)) for a, b in r}
            removed_mask = np.array([(min(a, b), max(a, b)) in pairs for a, b in edges], dtype=bool)
        else:
            removed_mask[r[(r >= 0) & (r < len(edges))]] = True

    groups = np.asarray(result.groups, dtype=np.int64)
    tor = details.get("tuple_of_record")
    frame = frame_of(outcome.data)
    qis = list(getattr(outcome.data, "quasi_identifiers", []) or [])
    if tor is not None:
        tor = np.asarray(tor, dtype=np.int64)
        n_total = int(max(tor.max(initial=-1), edges.max(initial=-1)) + 1)
        node_class = np.full(n_total, -1, dtype=np.int64)
        first_record = np.full(n_total, -1, dtype=np.int64)
        multiplicity = np.bincount(tor[tor >= 0], minlength=n_total)
        order = np.arange(len(tor))[::-1]
        first_record[tor[order]] = order  # the first record of each tuple wins (written last)
        valid = first_record >= 0
        node_class[valid] = groups[first_record[valid]]
        unit = "tuples"
    else:
        n_total = int(max(len(groups), edges.max(initial=-1) + 1))
        node_class = np.full(n_total, -1, dtype=np.int64)
        node_class[: len(groups)] = groups
        first_record = np.arange(n_total)
        multiplicity = np.ones(n_total, dtype=np.int64)
        unit = "records"

    # choose the nodes to draw
    rng = np.random.default_rng(seed)
    if n_total <= max_nodes:
        chosen = np.arange(n_total)
    else:
        classes = np.unique(node_class)
        rng.shuffle(classes)
        members = {int(c): np.flatnonzero(node_class == c) for c in classes}
        picked: list[np.ndarray] = []
        total = 0
        for c in classes:
            m = members[int(c)]
            if c < 0:  # suppressed nodes are sampled singly
                m = m[: max(0, min(len(m), (max_nodes - total) // 10))]
            if total + len(m) > max_nodes and total > 0:
                continue
            picked.append(m)
            total += len(m)
            if total >= max_nodes:
                break
        chosen = np.sort(np.concatenate(picked)) if picked else np.zeros(0, dtype=np.int64)
    local = np.full(n_total, -1, dtype=np.int64)
    local[chosen] = np.arange(len(chosen))
    keep_edge = (local[edges[:, 0]] >= 0) & (local[edges[:, 1]] >= 0) if len(edges) else np.zeros(0, dtype=bool)
    e_local = local[edges[keep_edge]] if len(edges) else np.zeros((0, 2), dtype=np.int64)
    w_local = weights[keep_edge]
    rem_local = removed_mask[keep_edge]

    node_class_c = node_class[chosen]
    pos = class_packed_layout(node_class_c, e_local, 1.0 / (1.0 + np.maximum(w_local, 0.0)), seed=seed)
    ids, sizes = class_sizes(groups)
    class_size = {int(c): int(s) for c, s in zip(ids, sizes)}
    labels: list[str] = []
    values = frame[qis].astype("string").fillna("").to_numpy(dtype=object) if frame is not None and qis else None
    for n in chosen:
        rec = int(first_record[n])
        cls = int(node_class[n])
        head = f"record {rec + 1}" if unit == "records" else f"tuple {n} (first record {rec + 1}, ×{multiplicity[n]})"
        body = ""
        if values is not None and 0 <= rec < len(values):
            body = "\n" + ", ".join(f"{q}={v}" for q, v in zip(qis, values[rec]))
        cls_text = "suppressed" if cls < 0 else f"class {cls} ({class_size.get(cls, 0)} records)"
        labels.append(f"{head}{body}\n{cls_text}")
    return MstView(
        pos=pos,
        node_class=node_class_c,
        node_ids=chosen,
        kept=e_local[~rem_local],
        removed=e_local[rem_local],
        n_total=n_total,
        unit=unit,
        labels=labels,
        class_size=class_size,
    )


def class_packed_layout(node_class: np.ndarray, edges: np.ndarray, weights: np.ndarray, *, seed: int = 0) -> np.ndarray:
    """Each class laid out on its own (:func:`force_layout` of its vertices and the tree edges inside it), the
    classes then packed on a grid in class order, each in a cell scaled by the square root of its size — so
    classes read as separate clusters and the removed edges between them as the cuts. Returns ``float[n, 2]``."""
    n = len(node_class)
    pos = np.zeros((n, 2))
    if n == 0:
        return pos
    classes = list(dict.fromkeys(node_class.tolist()))
    cols = int(np.ceil(np.sqrt(len(classes))))
    a = edges[:, 0] if len(edges) else np.zeros(0, dtype=np.int64)
    b = edges[:, 1] if len(edges) else np.zeros(0, dtype=np.int64)
    largest = max(int((node_class == c).sum()) for c in classes)
    for i, c in enumerate(classes):
        members = np.flatnonzero(node_class == c)
        local = np.full(n, -1, dtype=np.int64)
        local[members] = np.arange(len(members))
        inside = (local[a] >= 0) & (local[b] >= 0) if len(a) else np.zeros(0, dtype=bool)
        sub_edges = np.stack([local[a[inside]], local[b[inside]]], 1) if inside.any() else np.zeros((0, 2), dtype=np.int64)
        p = force_layout(len(members), sub_edges, np.asarray(weights)[inside] if len(a) else np.zeros(0), seed=seed)
        p = p - p.mean(0)
        extent = np.abs(p).max() or 1.0
        radius = 0.42 * np.sqrt(len(members) / largest)
        pos[members] = p / extent * radius + np.array([i % cols, -(i // cols)], dtype=float)
    return pos


def force_layout(n: int, edges: np.ndarray, weights: np.ndarray, *, iterations: int = 60, seed: int = 0) -> np.ndarray:
    """Fruchterman & Reingold's force-directed placement (Softw. Pract. Exper. 21(11), 1991): all pairs
    repel with k²/d, edge ends attract with w·d²/k, moves capped by a cooling temperature.

    The same algorithm as networkx's ``spring_layout``, vectorised over all pairs with numpy (float32
    n×n per iteration), which is ~30× faster for the ≤ 1000 vertices drawn here. Returns ``float[n, 2]``.
    """
    rng = np.random.default_rng(seed)
    if n == 0:
        return np.zeros((0, 2))
    x = rng.random(n).astype(np.float32)
    y = rng.random(n).astype(np.float32)
    if n == 1:
        return np.stack([x, y], 1).astype(float)
    k2 = np.float32(1.0 / n)
    k = float(np.sqrt(k2))
    a = edges[:, 0].astype(np.int64) if len(edges) else np.zeros(0, dtype=np.int64)
    b = edges[:, 1].astype(np.int64) if len(edges) else np.zeros(0, dtype=np.int64)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    t = 0.1
    dt = t / (iterations + 1)
    for _ in range(iterations):
        dx = x[:, None] - x[None, :]
        dy = y[:, None] - y[None, :]
        f = dx * dx
        f += dy * dy
        np.maximum(f, np.float32(1e-6), out=f)
        np.divide(k2, f, out=f)
        disp_x = (dx * f).sum(1, dtype=np.float64)
        disp_y = (dy * f).sum(1, dtype=np.float64)
        if len(a):
            ex = (x[a] - x[b]).astype(np.float64)
            ey = (y[a] - y[b]).astype(np.float64)
            d = np.sqrt(ex * ex + ey * ey) * w / k
            disp_x -= np.bincount(a, ex * d, n) - np.bincount(b, ex * d, n)
            disp_y -= np.bincount(a, ey * d, n) - np.bincount(b, ey * d, n)
        length = np.sqrt(disp_x * disp_x + disp_y * disp_y) + 1e-9
        step = np.minimum(length, t) / length
        x += (disp_x * step).astype(np.float32)
        y += (disp_y * step).astype(np.float32)
        t -= dt
    return np.stack([x, y], 1).astype(float)
