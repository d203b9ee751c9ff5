"""Tables and classes as a result view shows them: changed cells, a record's group, equivalence classes as a reader
of the output sees them, class sizes, event sequences per row — plain numpy / pandas, no Qt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, SequenceSet, Table, text_cells
from anonstudio.core.progress import checkpoint
from anonstudio.core.views._cache import cached_view


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




def model_failures(outcome: Any) -> list[tuple[str, str, str, str]]:
    """The classes the verdict names as breaking a privacy model the spec lists under ``models``: per class
    ``(model, first row, records, why)`` — which model each failing class breaks (the verdict lists the first few
    of each model; ``details.violations`` counts them all)."""
    details = verification_dict(outcome).get("details") or {}
    out = []
    for record in details.get("first_violations") or []:
        if isinstance(record, dict) and record.get("model"):
            out.append((str(record["model"]), str(record.get("row", "")), str(record.get("records", "")),
                        str(record.get("why", ""))))
    return out
