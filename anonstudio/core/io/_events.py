"""Event CSV: one row per event (a visit of a patient), read into an :class:`EventLog`.

The file is a delimited table read by :func:`read_table` (same sniffing, encodings, missing tokens and
errors); the event log adds its column roles and checks that every event has a sequence id and an order
that can be parsed (numbers, or ISO dates), and that no (sequence, order) pair occurs twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, Table
from anonstudio.core.errors import InputError
from anonstudio.core.io._table import read_table, write_table


def _refuse_first(bad: np.ndarray, table: Table, column: str, message: str) -> None:
    """Raise :class:`InputError` for the first row flagged in ``bad`` (``{value}`` in ``message`` is its cell)."""
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(message.format(value=table.df[column].iloc[row]), file=table.source,
                         line=table.line_of(row), column=column)


def _parse_order(table: Table, column: str) -> np.ndarray:
    """The event-order column as sortable floats: numbers, else ISO dates (as nanoseconds)."""
    col = table.df[column]
    _refuse_first(col.isna().to_numpy(), table, column, "event has no order value")
    numbers = pd.to_numeric(col, errors="coerce")
    is_num = numbers.notna().to_numpy()
    if is_num.all():
        return numbers.to_numpy(dtype=float)
    if is_num.any():
        _refuse_first(~is_num, table, column,
                      "event order '{value}' is not a number (the other orders in this column are numbers)")
    dates = pd.to_datetime(col, errors="coerce", format="ISO8601")
    _refuse_first(~dates.notna().to_numpy(), table, column,
                  "event order '{value}' is neither a number nor an ISO date (YYYY-MM-DD)")
    return dates.to_numpy(dtype="datetime64[ns]").astype(np.int64).astype(float)


def read_events(
    path: str | Path,
    *,
    sequence_id: str,
    event_order: str,
    quasi_identifiers: Sequence[str] = (),
    sensitive: str | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    missing: Sequence[str] | str | None = None,
    index_columns: bool = False,
) -> EventLog:
    """Read an event CSV (one row per event) into an :class:`EventLog`.

    Parameters
    ----------
    sequence_id:
        Column naming the sequence (patient) each event belongs to.
    event_order:
        Column ordering the events of a sequence: numbers or ISO dates.
    quasi_identifiers, sensitive:
        Column roles (the sensitive column is optional).
    delimiter, encoding, missing, index_columns:
        As for :func:`read_table`.

    Raises
    ------
    InputError
        Everything :func:`read_table` raises; a named column that does not exist (header line); an event
        without sequence id or order, an order that is not a number/ISO date, or a (sequence, order) pair
        that occurs twice — naming the file, line and column.
    """
    table = read_table(path, delimiter=delimiter, encoding=encoding, missing=missing, index_columns=index_columns)
    path = table.source
    columns = list(table.df.columns)
    named = [("sequence_id", sequence_id), ("event_order", event_order)]
    named += [("quasi_identifiers", q) for q in quasi_identifiers]
    if sensitive:
        named.append(("sensitive", sensitive))
    for role, col in named:
        if col not in columns:
            raise InputError(
                f"{role} names '{col}', which is not a column of the file (columns: {', '.join(columns)})",
                file=path,
                line=1,
                column=col,
            )
    sid = table.df[sequence_id]
    missing_id = sid.isna().to_numpy()
    if missing_id.any():
        row = int(np.flatnonzero(missing_id)[0])
        raise InputError("event has no sequence id", file=path, line=table.line_of(row), column=sequence_id)
    order = _parse_order(table, event_order)
    key = pd.DataFrame({"s": sid.astype(str).to_numpy(), "o": order})
    later = key.duplicated(keep="first").to_numpy()
    if later.any():
        second = int(np.flatnonzero(later)[0])
        same = (key["s"] == key["s"].iat[second]).to_numpy() & (key["o"] == key["o"].iat[second]).to_numpy()
        first = int(np.flatnonzero(same)[0])
        raise InputError(
            f"sequence '{sid.iloc[first]}' has two events with order '{table.df[event_order].iloc[second]}' "
            f"(first on line {table.line_of(first)})",
            file=path,
            line=table.line_of(second),
            column=event_order,
        )
    return EventLog(
        table.df,
        sequence_id,
        event_order,
        list(quasi_identifiers),
        sensitive,
        source=path,
        delimiter=table.delimiter,
        encoding=table.encoding,
        missing_tokens=table.missing_tokens,
    )


def write_events(
    log_or_df: EventLog | pd.DataFrame,
    path: str | Path,
    *,
    delimiter: str | None = None,
    encoding: str | None = None,
) -> Path:
    """Write an event log atomically: its columns (the input's), one row per kept event, in its row order.

    ``delimiter``/``encoding`` default to the log's own (how its input was read), or ``,``/UTF-8 for a
    DataFrame. Returns the path.
    """
    if isinstance(log_or_df, EventLog):
        frame = log_or_df.df
        delimiter = delimiter or log_or_df.delimiter
        encoding = encoding or log_or_df.encoding
    elif isinstance(log_or_df, pd.DataFrame):
        frame = log_or_df
    else:
        raise TypeError(f"write_events needs an EventLog or a DataFrame, got {type(log_or_df).__name__}")
    return write_table(frame, path, delimiter=delimiter or ",", encoding=encoding or "utf-8")
