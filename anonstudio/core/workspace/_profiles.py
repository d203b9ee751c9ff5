"""Column profiles, computed once per data set: distinct values, missing cells, whether every value is a number,
whether every record holds a different value — read by the workbench's panes, computed by the worker that read the
data (:func:`profile_columns`); and what a profile says of a column that looks like an identifier
(:func:`looks_like_identifier`)."""

from __future__ import annotations

import re
import weakref
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, Table, is_number
from anonstudio.core.progress import checkpoint


_PROFILES: dict[int, tuple[weakref.ref[Any], dict[str, dict[str, Any]]]] = {}
#: rows per pandas call while profiling: each call stays short, so a profile computed on a worker thread
#: never holds the interpreter lock long enough to freeze the window (1M rows at once: 1.3 s)
PROFILE_CHUNK = 131_072


def _profiles_of(data: Any) -> dict[str, dict[str, Any]]:
    """The profiles kept for ``data`` (while it lives)."""
    hit = _PROFILES.get(id(data))
    if hit is None or hit[0]() is not data:
        key = id(data)

        def forget(_ref: weakref.ref[Any]) -> None:
            _PROFILES.pop(key, None)

        ref = weakref.ref(data, forget)
        hit = _PROFILES[id(data)] = (ref, {})
    return hit[1]


_Data = TypeVar("_Data")


def profile_columns(data: _Data) -> _Data:
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


#: column names that name a person or a record: ``patient_id``, ``ID``, ``ssn``, ``e-mail`` …
#: the rows a text column needs before "every value is distinct" proposes it identifying
ID_MIN_ROWS = 20
_ID_WORDS = ("id", "uuid", "guid", "ssn", "email", "mail", "phone", "telephone", "fullname", "surname",
             "firstname", "lastname", "mrn", "passport", "iban")


def looks_like_identifier(column: str, profile: dict[str, Any], n_rows: int) -> str | None:
    """Why ``column`` looks like an identifier, or ``None``: its name holds one of :data:`_ID_WORDS` (``patient_id``,
    ``PatientID``, ``e-mail`` …), or it is text with a different value in every one of at least
    :data:`ID_MIN_ROWS` rows (in a handful of rows, distinct values say little; distinct numbers are often
    measurements, so only the warning flags them)."""
    words = [w.lower() for w in re.split(r"[^0-9a-zA-Z]+|(?<=[a-z])(?=[A-Z])", str(column)) if w]
    if any(w in _ID_WORDS for w in words):
        return f"its name ('{column}') names a person or a record"
    distinct = profile.get("distinct", 0)
    if n_rows >= ID_MIN_ROWS and not profile.get("numeric") and distinct == n_rows - profile.get("missing", 0):
        return "every value is distinct"
    return None
