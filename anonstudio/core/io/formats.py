"""The file formats anonstudio reads and writes: one entry each, read by io, the workspace, the CLI and the GUI.

An entry says what a format is called, which kinds of data it holds, the file-name endings it is known by, the
text of its file-dialog filter, its reader and writer, and the function giving its canonical bytes (the exact
bytes a release is written as, which ``verify`` re-derives and compares). Adding a format is one
:class:`Format` in :data:`REGISTRY`: the suffix lookups (:func:`format_for`), the dialogs' filters
(:func:`dialog_filter`) and the writers' choice of bytes (:meth:`Format.table_bytes`) follow from it.

Data kinds: ``table`` and ``events`` (an event log is a table read by :func:`~anonstudio.core.io.read_events`:
every table format holds one), ``fasta`` (sequences), ``hierarchy`` (ARX's generalization hierarchy CSV),
``project`` and ``job`` (the workbench's project file and the job file ``anonstudio run`` reads).

The format of an export
    A release is written in the format its output path names (a job's ``output.path``, the file name chosen in
    File ▸ Export). Where nothing names one, :func:`export_format` decides: the format the user last exported
    in, else the input's format when it is a registered one that holds the data, else the kind's first format
    (CSV for tables and event logs, FASTA for sequences) — an input ending ``.data`` is not exported as
    ``.data``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from anonstudio.core.io._canonical import fasta_bytes, parquet_bytes, table_bytes
from anonstudio.core.io._events import read_events
from anonstudio.core.io._fasta import read_fasta, write_fasta
from anonstudio.core.io._hierarchy_csv import read_hierarchy, write_hierarchy
from anonstudio.core.io._table import read_table, write_table

#: the kinds of data a job's ``input.format`` names (the rest are files around the data)
DATA_KINDS = ("table", "events", "fasta")


def _text_bytes(frame: pd.DataFrame, delimiter: str, encoding: str) -> bytes:
    """Delimited text in ``encoding`` (raises :class:`UnicodeEncodeError` for a cell it cannot write)."""
    return table_bytes(frame, delimiter=delimiter, encoding=encoding)


def _parquet_bytes(frame: pd.DataFrame, delimiter: str, encoding: str) -> bytes:
    """Parquet holds typed columns, not text: no delimiter, no encoding."""
    del delimiter, encoding
    return parquet_bytes(frame)


@dataclass(frozen=True)
class Format:
    """One file format.

    ``kinds``: the data it holds (the first is what ``reader`` returns). ``suffixes``: the endings it is known
    by, the first one given to a file named for it. ``delimiter``: the field separator of a delimited text
    written from a bare DataFrame (a :class:`~anonstudio.core.data.Table` keeps its own). ``binary``: not text
    (no delimiter or encoding applies). ``canonical``: the canonical bytes — for a table format
    ``canonical(frame, delimiter, encoding)``, for FASTA ``canonical(headers, sequences, tokenized=...)``.
    ``reader``/``writer``: ``None`` where the file is not data (projects and jobs have their own modules).
    """

    name: str
    label: str
    kinds: tuple[str, ...]
    suffixes: tuple[str, ...]
    reader: Callable[..., Any] | None = None
    writer: Callable[..., Any] | None = None
    canonical: Callable[..., bytes] | None = None
    delimiter: str | None = None
    binary: bool = False

    @property
    def suffix(self) -> str:
        """The ending a new file in this format is given."""
        return self.suffixes[0]

    @property
    def filter(self) -> str:
        """The file-dialog filter: ``"CSV (*.csv)"``."""
        return f"{self.label} ({' '.join('*' + s for s in self.suffixes)})"

    def matches(self, path: str | Path) -> bool:
        name = Path(path).name.lower()
        return any(name.endswith(s) and len(name) > len(s) for s in self.suffixes)

    def table_bytes(self, frame: pd.DataFrame, *, delimiter: str = ",", encoding: str = "utf-8") -> bytes:
        """The canonical bytes of the published table ``frame`` in this format (a table format only)."""
        if self.canonical is None or not set(self.kinds) & {"table", "events"}:
            raise ValueError(f"{self.label} does not hold a table")
        return self.canonical(frame, delimiter, encoding)


#: every format, in the order dialogs list them and suffixes are looked up
REGISTRY: tuple[Format, ...] = (
    Format("csv", "CSV", ("table", "events"), (".csv",), read_table, write_table, _text_bytes, delimiter=","),
    Format("tsv", "TSV", ("table", "events"), (".tsv",), read_table, write_table, _text_bytes, delimiter="\t"),
    Format("text", "Delimited text", ("table", "events"), (".txt",), read_table, write_table, _text_bytes,
           delimiter=","),
    Format("parquet", "Parquet", ("table", "events"), (".parquet", ".pq"), read_table, write_table, _parquet_bytes,
           binary=True),
    Format("fasta", "FASTA", ("fasta",), (".fasta", ".fa", ".faa", ".fna", ".fas"), read_fasta, write_fasta,
           fasta_bytes),
    Format("arx-hierarchy", "ARX hierarchy", ("hierarchy",), (".csv",), read_hierarchy, write_hierarchy,
           delimiter=";"),
    Format("project", "anonstudio projects", ("project",), (".anonstudio.json", ".json")),
    Format("job", "Jobs", ("job",), (".toml",)),
)
ALL_FILES = "All files (*)"
# an event log is read from a table format by its own reader
_KIND_READERS: dict[str, Callable[..., Any]] = {"events": read_events}


def get(name: str) -> Format:
    """The format called ``name`` (``"csv"``, ``"parquet"``, …)."""
    for fmt in REGISTRY:
        if fmt.name == name:
            return fmt
    raise KeyError(f"no format '{name}' (known: {', '.join(f.name for f in REGISTRY)})")


def formats_for(kind: str) -> tuple[Format, ...]:
    """The formats that hold ``kind``, in registry order."""
    return tuple(f for f in REGISTRY if kind in f.kinds)


def format_for(path: str | Path, kind: str | None = None) -> Format | None:
    """The format a file name ends in (among those holding ``kind``, if given), the longest ending first;
    ``None`` for an ending no format knows."""
    candidates = formats_for(kind) if kind else REGISTRY
    best: tuple[int, Format] | None = None
    name = Path(path).name.lower()
    for fmt in candidates:
        for s in fmt.suffixes:
            if name.endswith(s) and len(name) > len(s) and (best is None or len(s) > best[0]):
                best = (len(s), fmt)
    return best[1] if best else None


def kind_of(path: str | Path) -> str | None:
    """``"table"`` or ``"fasta"`` from a data file's name, else ``None`` (an event log must be asked for)."""
    for kind in ("table", "fasta"):
        if format_for(path, kind) is not None:
            return kind
    return None


def table_format(path: str | Path) -> Format:
    """The format a table is written in at ``path``: the one its ending names, else delimited text (the
    engine writes a table to any name the user gives; only a registered ending changes the bytes)."""
    return format_for(path, "table") or get("csv")


def reader_for(kind: str) -> Callable[..., Any]:
    """The reader of a data kind."""
    if kind in _KIND_READERS:
        return _KIND_READERS[kind]
    fmt = formats_for(kind)
    if not fmt or fmt[0].reader is None:
        raise KeyError(f"no reader for '{kind}'")
    return fmt[0].reader


def dialog_filter(kind: str, *, label: str | None = None, each: bool = False, all_files: bool = True) -> str:
    """A file dialog's filter string for ``kind``: one line naming every ending (``label`` its text, else
    the single format's label), or one line per format (``each``); ``All files (*)`` last unless not wanted."""
    fmts = formats_for(kind)
    if each:
        lines = [f.filter for f in fmts]
    else:
        suffixes = [s for f in fmts for s in f.suffixes]
        text = label or (fmts[0].label if len(fmts) == 1 else kind.capitalize())
        lines = [f"{text} ({' '.join('*' + s for s in suffixes)})"]
    return ";;".join(lines + ([ALL_FILES] if all_files else []))


def filter_format(filter_line: str, kind: str) -> Format | None:
    """The format a chosen filter line names (``None``: all files, or another kind's)."""
    for fmt in formats_for(kind):
        if fmt.filter == filter_line:
            return fmt
    return None


def export_format(kind: str, *, chosen: str | Path | None = None, input_path: str | Path | None = None) -> Format:
    """The format an export of ``kind`` defaults to: the one ``chosen`` names (a path or a format name the user
    or the job chose), else the input's format if it is registered for ``kind``, else the kind's first format."""
    data_kind = "table" if kind == "events" else kind
    if chosen is not None:
        named = next((f for f in formats_for(data_kind) if f.name == str(chosen)), None)
        fmt = named or format_for(chosen, data_kind)
        if fmt is not None:
            return fmt
    if input_path is not None:
        fmt = format_for(input_path, data_kind)
        if fmt is not None:
            return fmt
    return formats_for(data_kind)[0]


def with_suffix(path: str | Path, fmt: Format) -> Path:
    """``path`` as a file of ``fmt``: unchanged if its name already ends in one of ``fmt``'s suffixes, else the
    format's suffix appended (a name the user typed without one)."""
    path = Path(path)
    return path if fmt.matches(path) else path.with_name(path.name + fmt.suffix)
