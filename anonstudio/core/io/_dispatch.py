"""Choosing a reader or writer by type or file name, reading an output back for ``verify``, JSON reports."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, SequenceSet, Table
from anonstudio.core.errors import InputError
from anonstudio.core.io._atomic import atomic_write
from anonstudio.core.io._common import read_bytes
from anonstudio.core.io._events import read_events, write_events
from anonstudio.core.io._fasta import read_fasta, write_fasta
from anonstudio.core.io._table import read_table, table_bytes, write_table
from anonstudio.core.io.formats import DATA_KINDS, formats_for, reader_for, table_format
from anonstudio.core.io.formats import kind_of as format_of

#: the data kinds a job's ``input.format`` names
FORMATS = DATA_KINDS


def _endings(kind: str) -> str:
    return " ".join(s for f in formats_for(kind) for s in f.suffixes)


def read_data(path: str | Path, *, format: str | None = None, **options: Any) -> Table | EventLog | SequenceSet:
    """Read a data file by its ending (a table format of :mod:`.formats` → :func:`read_table`, FASTA →
    :func:`read_fasta`) or by ``format`` (``table | events | fasta``); ``options`` go to that reader
    (``events`` needs ``sequence_id`` and ``event_order``)."""
    path = Path(path)
    kind = format or format_of(path)
    if kind is None:
        raise InputError(
            f"cannot tell the format from the extension '{path.suffix}' (tables: {_endings('table')}; sequences: "
            f"{_endings('fasta')}); give format= one of {', '.join(FORMATS)}",
            file=path,
        )
    if kind not in FORMATS:
        raise InputError(f"unknown format '{kind}' (known: {', '.join(FORMATS)})", file=path)
    if kind == "events" and ("sequence_id" not in options or "event_order" not in options):
        raise InputError("an event file needs sequence_id and event_order", file=path)
    reader: Any = reader_for(kind)
    return reader(path, **options)


def _layout_of(obj: Any) -> tuple[str | None, str | None]:
    if isinstance(obj, (Table, EventLog)):
        return obj.delimiter, obj.encoding
    return None, None


def write_output(obj: Any, path: str | Path, like: Any = None) -> list[Path]:
    """Write an anonymized result atomically by its type; returns the paths written.

    A :class:`Table` is written with its own delimiter and encoding (``like``'s, if given, e.g. the input),
    without identifying columns; a DataFrame with ``like``'s layout (else tab for ``.tsv``, comma otherwise);
    an :class:`EventLog` with :func:`write_events`; a :class:`SequenceSet` as FASTA, 60 letters a line.
    """
    path = Path(path)
    like_delim, like_enc = _layout_of(like)
    if isinstance(obj, Table):
        write_table(obj, path, delimiter=like_delim or obj.delimiter, encoding=like_enc or obj.encoding)
    elif isinstance(obj, EventLog):
        write_events(obj, path, delimiter=like_delim or obj.delimiter, encoding=like_enc or obj.encoding)
    elif isinstance(obj, pd.DataFrame):
        default = table_format(path).delimiter or ","
        write_table(obj, path, delimiter=like_delim or default, encoding=like_enc or "utf-8")
    elif isinstance(obj, SequenceSet):
        write_fasta(obj, path)
    else:
        raise TypeError(f"cannot write a {type(obj).__name__}: expected Table, DataFrame, EventLog or SequenceSet")
    return [path]


def output_bytes(obj: Any, path: str | Path, like: Any = None) -> bytes:
    """The bytes :func:`write_output` writes for ``obj`` at ``path`` (its canonical form: the format by the
    path's extension, the delimiter and encoding of ``like`` or of ``obj``) — what ``verify`` re-derives a release
    into, to compare with the files on disk."""
    from anonstudio.core.io._canonical import fasta_bytes
    from anonstudio.core.io._fasta import _sequence_strings

    path = Path(path)
    like_delim, like_enc = _layout_of(like)
    if isinstance(obj, (Table, EventLog, pd.DataFrame)):
        if isinstance(obj, Table):
            frame, delim, enc = obj.publish_frame(), like_delim or obj.delimiter, like_enc or obj.encoding
        elif isinstance(obj, EventLog):
            frame, delim, enc = obj.df, like_delim or obj.delimiter, like_enc or obj.encoding
        else:
            frame = obj
            delim, enc = like_delim or table_format(path).delimiter or ",", like_enc or "utf-8"
        return table_bytes(frame, path, delimiter=delim or ",", encoding=enc or "utf-8")
    if isinstance(obj, SequenceSet):
        tokenized = not obj.alphabet.single_letter
        seqs = [obj.symbols_of(i) for i in range(len(obj))] if tokenized else _sequence_strings(obj)
        return fasta_bytes(list(obj.headers), seqs, tokenized=tokenized)
    raise TypeError(f"cannot write a {type(obj).__name__}: expected Table, DataFrame, EventLog or SequenceSet")


def read_output_like(input_data: Any, path: str | Path,
                     missing: list[str] | None = None) -> Table | EventLog | SequenceSet:
    """Read an anonymized output back as the same kind as ``input_data`` (for ``anonstudio verify``).

    Table: read with the input's delimiter and encoding, the input's roles on the columns present, and the
    missing tokens ``missing`` (the job's ``input.missing``; ``None``: the readers' default) — cells the job
    reads as missing in the input are missing in the output too.
    EventLog: the input's column roles. SequenceSet: FASTA with alphabet ``"as-found"`` (an empty file is
    an empty set: every string may have been removed).
    """
    path = Path(path)
    if isinstance(input_data, Table):
        delim = None if table_format(path).binary else input_data.delimiter
        # a Parquet file's stored index is published too: read it as columns, so the verifier sees it
        out = read_table(path, delimiter=delim, encoding=input_data.encoding, missing=missing, index_columns=True)
        roles = {c: r for c, r in input_data.roles.items() if c in out.df.columns}
        return Table(out.df, roles=roles, source=out.source, delimiter=out.delimiter, encoding=out.encoding,
                     header_lines=out.header_lines, missing_text=out.missing_text)
    if isinstance(input_data, EventLog):
        return read_events(
            path,
            sequence_id=input_data.sequence_id,
            event_order=input_data.event_order,
            quasi_identifiers=list(input_data.quasi_identifiers),
            sensitive=input_data.sensitive,
            delimiter=input_data.delimiter,
            encoding=input_data.encoding,
            index_columns=True,  # a Parquet file's stored index is published too
        )
    if isinstance(input_data, SequenceSet):
        if path.is_file() and read_bytes(path, max_line=None).strip() == b"":
            return SequenceSet.from_strings([], ids=[], headers=[], alphabet="as-found", source=path)
        return read_fasta(path, alphabet="as-found")
    raise TypeError(f"not a data container: {type(input_data).__name__}")


def to_jsonable(obj: Any) -> Any:
    """Plain JSON values: numpy scalars/arrays, paths, enums, dates, dataclasses converted; NaN/inf → null."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else None
    if isinstance(obj, dict):
        return {str(to_jsonable(k)) if not isinstance(k, str) else k: to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        items = [to_jsonable(v) for v in obj]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, enum.Enum):
        return to_jsonable(obj.value)
    if isinstance(obj, (_dt.datetime, _dt.date, pd.Timestamp)):
        return obj.isoformat()
    if obj is pd.NA or obj is pd.NaT:
        return None
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return to_jsonable(dataclasses.asdict(obj))
    if hasattr(obj, "as_dict"):
        return to_jsonable(obj.as_dict())
    raise TypeError(f"cannot write a {type(obj).__name__} to JSON")


def write_json(obj: Any, path: str | Path) -> Path:
    """Write ``obj`` as JSON atomically: UTF-8, indent 2, a final line break; numpy values converted."""
    path = Path(path)
    text = json.dumps(to_jsonable(obj), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return path
