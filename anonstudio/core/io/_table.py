"""Delimited tables (CSV / TSV / ``;``-separated) and Parquet, read into a :class:`Table` of strings.

Cells are kept as the exact strings of the file (missing-value tokens become ``pd.NA``), so that a table
written back reproduces the input's formatting. The happy path parses with pandas' C parser; a precise
pass with the :mod:`csv` module locates problems (ragged rows, blank lines) and parses quoted files.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

from anonstudio.core.data import Table
from anonstudio.core.data._chunks import isin
from anonstudio.core.errors import InputError
from anonstudio.core.io._atomic import atomic_write
from anonstudio.core.io._common import decode_slices, delimiter_name, line_ranges, normalize_delimiter, read_bytes
from anonstudio.core.progress import checkpoint

#: Cells equal to one of these are missing (``pd.NA``) unless the caller gives its own list.
DEFAULT_MISSING: tuple[str, ...] = ("", "NA", "?")
#: Delimiters tried when none is given, in order of preference on a tie.
SNIFFED_DELIMITERS: tuple[str, ...] = (";", ",", "\t")
_PLAUSIBLE = (";", ",", "\t", "|")
_SNIFF_CHARS = 65536


def _missing_tokens(missing: Sequence[str] | str | None) -> list[str]:
    if missing is None:
        return list(DEFAULT_MISSING)
    if isinstance(missing, str):
        return [missing]
    return [str(m) for m in missing]


def _strip_trailing_blank_lines(text: str) -> str:
    """Drop empty lines at the end, keeping one final line break if there was one. (A last line of spaces
    is data, and so a ragged row.)"""
    tail = text[-64:]
    end = len(tail.rstrip("\r\n"))
    if tail[end:] in ("", "\n") and (end > 0 or len(text) <= 64):
        return text  # nothing to drop (the usual case): no copy of a large text
    stripped = text.rstrip("\r\n")
    return stripped + "\n" if len(stripped) < len(text) else stripped


def _head(parts: list[str], chars: int = 1 << 20) -> str:
    """The first slices of the text, joined, up to the first that ends past ``chars`` characters (with 4 MB
    slices: the first slice alone), so what is read from the first megabyte is what the whole text holds."""
    taken, size = [], 0
    for text in parts:
        taken.append(text)
        size += len(text)
        if size > chars:
            break
    return taken[0] if len(taken) == 1 else "".join(taken)


def _strip_trailing_blank_slices(parts: list[str]) -> tuple[list[str], int]:
    """:func:`_strip_trailing_blank_lines` on a text held as slices of whole lines. Also returns how many
    bytes of the file to leave out at its end so that its bytes, too, end with the last line that is not
    blank and that line's own break (CR and LF are one byte each in UTF-8)."""
    parts = list(parts)
    while len(parts) > 1 and parts[-1].strip("\r\n") == "":  # a last slice of blank lines only (rare)
        parts[-2:] = [parts[-2] + parts[-1]]
    if not parts:
        return parts, 0
    last = parts[-1]
    parts[-1] = _strip_trailing_blank_lines(last)
    if parts[-1] is last:
        return parts, 0
    content = len(last.rstrip("\r\n"))
    breaks = last[content : content + 2]
    kept = 2 if breaks == "\r\n" else min(len(breaks), 1)
    return parts, len(last) - content - kept


def sniff_delimiter(text: str) -> str | None:
    """The candidate among ``;`` ``,`` tab that splits the header into more than one column and the
    sampled rows into as many fields as the header; ``None`` if none splits the header."""
    sample = text[:_SNIFF_CHARS]
    truncated = len(text) > _SNIFF_CHARS
    best: tuple[float, int, int] | None = None
    choice: str | None = None
    for rank, cand in enumerate(SNIFFED_DELIMITERS):
        try:
            rows = [r for r in csv.reader(io.StringIO(sample, newline=""), delimiter=cand) if r]
        except csv.Error:
            continue
        if truncated and len(rows) > 1:
            rows = rows[:-1]
        if not rows or len(rows[0]) < 2:
            continue
        width = len(rows[0])
        body = rows[1:]
        consistency = sum(len(r) == width for r in body) / len(body) if body else 1.0
        score = (consistency, width, -rank)
        if best is None or score > best:
            best, choice = score, cand
    return choice


def _names_split(header: str, delimiter: str) -> bool:
    parts = header.split(delimiter)
    return len(parts) > 1 and all(p.strip() for p in parts)


def _check_header(header: list[str], path: Path, header_line: int) -> None:
    from anonstudio.core.limits import MAX_COLUMNS

    if len(header) > MAX_COLUMNS:
        raise InputError(f"the header has {len(header):,} columns; anonstudio reads at most {MAX_COLUMNS:,} (keep the "
                         "columns to publish in a file of their own)", file=path, line=header_line)
    seen: dict[str, int] = {}
    for i, name in enumerate(header, start=1):
        if name.strip() == "":
            raise InputError(
                f"column {i} of the header has no name: every column needs a name",
                file=path,
                line=header_line,
            )
        if name in seen:
            raise InputError(
                f"column name '{name}' appears twice in the header (columns {seen[name]} and {i})",
                file=path,
                line=header_line,
                column=name,
            )
        seen[name] = i


def _ragged(path: Path, line: int, got: int, expected: int, delimiter: str) -> InputError:
    if got == 0:
        return InputError(
            f"line is blank but the header has {expected} fields (blank lines are allowed only at the end)",
            file=path,
            line=line,
        )
    return InputError(
        f"row has {got} field{'s' if got != 1 else ''} but the header has {expected} "
        f"(delimiter {delimiter_name(delimiter)})",
        file=path,
        line=line,
    )


#: characters checked (and encoded for pandas) at a time, and rows parsed per pandas call, by the fast reader:
#: pandas' C parser holds the interpreter lock for a whole call (~30 ms per 32,768 rows of 9 columns)
_SLICE = 1 << 22
_ROWS_PER_PARSE = 32_768


class _EncodedSlices(io.RawIOBase):
    """A binary stream of the text held in ``parts`` in UTF-8, encoded slice by slice as the parser reads it
    (one ``encode`` of an 80 MB text holds the interpreter lock ~50 ms, and the bytes would be a second copy
    of the file)."""

    def __init__(self, parts: list[str], step: int = 1 << 20) -> None:
        super().__init__()
        self._steps = (part[i : i + step] for part in parts for i in range(0, len(part), step))
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if not len(self._pending):
            piece = next(self._steps, None)
            if piece is None:
                return 0
            self._pending = memoryview(piece.encode("utf-8"))
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


class _ByteWindow(io.RawIOBase):
    """A binary stream of ``raw[start:stop]`` without copying it (the file's own UTF-8 bytes, for the
    parser)."""

    def __init__(self, raw: bytes, start: int, stop: int) -> None:
        super().__init__()
        self._view, self._pos, self._stop = memoryview(raw), start, stop

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        size = min(len(buffer), self._stop - self._pos)
        if size <= 0:
            return 0
        buffer[:size] = self._view[self._pos : self._pos + size]
        self._pos += size
        return size


def _joined(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The parsed slices as one frame, built column by column (``pd.concat`` of a million rows copies every
    column in one call that holds the lock)."""
    if len(parts) == 1:
        return parts[0]
    rows = sum(len(p) for p in parts)
    df = pd.DataFrame(index=pd.RangeIndex(rows))
    for j, name in enumerate(parts[0].columns):
        df[name] = pd.Series(np.concatenate([p.iloc[:, j].to_numpy(dtype=object) for p in parts]), dtype=object)
    return df


def _lone_cr(parts: list[str]) -> bool:
    """Whether the text has a CR that does not start a CRLF, counted slice by slice (short calls; the slices
    end after a line feed, so a CRLF never straddles two)."""
    for text in parts:
        crs = sum(text.count("\r", i, i + _SLICE) for i in range(0, len(text), _SLICE))
        if not crs:
            continue
        crlfs = sum(text.count("\r\n", start, stop) for start, stop in line_ranges(text, size=_SLICE))
        if crs != crlfs:
            return True
    return False


def _parse_fast(parts: list[str], delimiter: str, n: int, path: Path, source: io.RawIOBase) -> pd.DataFrame | None:
    """pandas' C parser reading ``source`` (the text in UTF-8), after a field count per line of ``parts``
    (exact when the text has no quotes)."""
    want, count = n - 1, 0
    for text in parts:  # in slices of whole lines: no single call holds the lock for long
        for start, stop in line_ranges(text, size=_SLICE):
            lines = text[start:stop].split("\n")
            if lines[-1] == "":
                lines.pop()
            for line in lines:
                count += 1
                got = line.count(delimiter)
                if got != want and count > 1:
                    blank = line.rstrip("\r") == ""
                    raise _ragged(path, count, 0 if blank else got + 1, n, delimiter)
            checkpoint()  # a read on the workbench's worker may be cancelled between slices
    chunks = pd.read_csv(
        io.BufferedReader(source, 1 << 20),  # not a StringIO: 4 bytes a character
        encoding="utf-8",
        sep=delimiter,
        header=0,
        dtype=object,
        na_filter=False,
        skip_blank_lines=False,
        index_col=False,
        engine="c",
        quoting=csv.QUOTE_NONE,
        chunksize=_ROWS_PER_PARSE,
    )
    parts = []
    for part in chunks:
        parts.append(part)
        checkpoint()
    df = _joined(parts)
    if df.shape != (count - 1, n):
        return None  # pandas disagrees with the line count: let the precise pass decide
    return df


def _parse_precise(parts: list[str], delimiter: str, n: int, path: Path) -> pd.DataFrame:
    """The :mod:`csv` module, record by record, with the line each record starts on (a quoted field may span
    lines, and so slices: the reader asks for lines until the record is whole)."""
    lines = itertools.chain.from_iterable(io.StringIO(text, newline="") for text in parts)
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    rows: list[list[str]] = []
    start = 1
    try:
        next(reader)  # header, already checked
        start = reader.line_num + 1
        for row in reader:
            if len(row) != n:
                if not row and n == 1:
                    row = [""]
                else:
                    raise _ragged(path, start, len(row), n, delimiter)
            rows.append(row)
            start = reader.line_num + 1
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            raise InputError("a quoted field starting on this line is never closed", file=path, line=start) from None
        raise InputError(f"malformed quoting: {exc}", file=path, line=reader.line_num) from None
    df = pd.DataFrame(rows, columns=range(n), dtype=object) if rows else pd.DataFrame(
        {i: pd.Series([], dtype=object) for i in range(n)}
    )
    return df


def _apply_missing(df: pd.DataFrame, tokens: list[str]) -> tuple[pd.DataFrame, dict[str, pd.Series]]:
    """Missing tokens → NA; returns the frame and, per column, the token each non-empty missing cell had
    (so outputs can write untouched columns back as they were)."""
    spelled: dict[str, pd.Series] = {}
    if not tokens or df.empty:
        return df, spelled
    for j, col in enumerate(df.columns):  # column by column: short calls (a reader on a worker thread never
        column = df.iloc[:, j]            # holds the interpreter lock long enough to freeze the workbench)
        mask = isin(column, tokens)
        if mask.any():
            hit = column[mask]
            hit = hit[hit != ""]
            if len(hit):
                spelled[col] = hit.astype(object)
            df.isetitem(j, column.astype(object).mask(mask, pd.NA))
    return df, spelled


def read_table(
    path: str | Path,
    *,
    delimiter: str | None = None,
    encoding: str | None = None,
    missing: Sequence[str] | str | None = None,
    index_columns: bool = False,
) -> Table:
    """Read a delimited text table (or Parquet) into a :class:`Table` whose cells are the exact strings read.

    Parameters
    ----------
    path:
        A delimited text (any name) or a file of the registry's binary table format, Parquet
        (:mod:`anonstudio.core.io.formats`).
    delimiter:
        One character (``"\\t"``/``"tab"`` for a tab); ``None`` sniffs among ``;`` ``,`` tab.
    encoding:
        ``None`` tries UTF-8 (with or without a byte-order mark) and falls back to latin-1; the encoding used
        is reported in ``Table.encoding``.
    missing:
        Cell values read as missing (``pd.NA``); default ``["", "NA", "?"]``. ``[]`` keeps every cell.
    index_columns:
        Parquet: the columns the file stores as a pandas index (its metadata says so; pandas would restore
        them as the frame's index, out of sight) are read as columns too, named as stored — for reading an
        output back to verify it, where everything the file publishes must be seen.

    Raises
    ------
    InputError
        Empty file, no header, an empty or duplicate column name, a row with a different number of fields
        than the header (naming its 1-based line and both counts), a one-column header that contains
        another plausible delimiter ("wrong delimiter?"), undecodable bytes, malformed quoting.
    """
    path = Path(path)
    tokens = _missing_tokens(missing)
    if _binary(path):
        return _read_parquet(path, tokens, index_columns)
    given = normalize_delimiter(delimiter, path)
    raw = read_bytes(path)
    parts, enc, offset = decode_slices(raw, path, encoding)  # slices of whole lines, never one joined text
    parts, dropped = _strip_trailing_blank_slices(parts)
    if all(not text or text.isspace() for text in parts):
        raise InputError("the file is empty: a header line naming the columns is required", file=path, line=1)
    text = _head(parts)  # the header, the delimiter sniffed on the first 64 KB
    first_line = text[: text.find("\n")] if "\n" in text else text
    first_line = first_line.rstrip("\r")
    if first_line.strip() == "":
        raise InputError("the first line is blank: it must be the header naming the columns", file=path, line=1)

    delim = given if given is not None else (sniff_delimiter(text) or ",")
    head_end = text.find("\n", 1 << 20)  # the header is read from the first megabyte (whole lines)
    head = text if head_end < 0 else text[: head_end + 1]
    reader = csv.reader(io.StringIO(head, newline=""), delimiter=delim, strict=True)
    try:
        header = next(reader)
    except csv.Error as exc:
        raise InputError(f"malformed quoting in the header: {exc}", file=path, line=1) from None
    header_lines = reader.line_num
    if len(header) == 1 and not first_line.lstrip().startswith('"'):
        # plausible: splitting the header by it gives several non-empty names
        others = [c for c in _PLAUSIBLE if c != delim and _names_split(header[0], c)]
        if others:
            how = "given" if given is not None else "sniffed among ';' ',' tab"
            raise InputError(
                f"wrong delimiter? the header reads as one column with delimiter {delimiter_name(delim)} ({how}) "
                f"but contains {delimiter_name(others[0])}; give delimiter={others[0]!r}",
                file=path,
                line=1,
            )
    _check_header(header, path, 1)
    n = len(header)

    df: pd.DataFrame | None = None
    if not any('"' in text for text in parts) and not _lone_cr(parts) and n > 1 and header_lines == 1:
        # the parser reads the file's own bytes when they are the text in UTF-8 (no copy, nothing encoded)
        source = (_ByteWindow(raw, offset, len(raw) - dropped) if offset >= 0 else _EncodedSlices(parts))
        df = _parse_fast(parts, delim, n, path, source)
    if df is None:
        df = _parse_precise(parts, delim, n, path)
    df.columns = pd.Index(header, dtype=object)
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0:
        df = df.reset_index(drop=True)
    df, spelled = _apply_missing(df, tokens)
    return Table(df, source=path, delimiter=delim, encoding=enc, header_lines=header_lines, missing_text=spelled,
                 missing_tokens=tuple(tokens))


def _stored_index(path: Path, columns) -> list[str]:
    """The columns a Parquet file stores that pandas restores as the frame's index, not as ``columns``
    (a name may repeat a column's). A plain row count (a range index) is no stored column."""
    import pyarrow.parquet as pq

    from collections import Counter

    seen = Counter(str(c) for c in columns)
    hidden = []
    for name in (str(c) for c in pq.read_schema(path).names):
        if seen[name]:
            seen[name] -= 1
        else:
            hidden.append(name)
    return hidden


def parquet_index_left_out(table: Table) -> list[str]:
    """The stored index columns of the Parquet file ``table`` was read from, which the reader leaves out
    (``read_table`` without ``index_columns``): [] for any other table, or if the file cannot be read now."""
    source = table.source
    if not isinstance(source, Path) or not _binary(source):
        return []
    try:
        return _stored_index(source, table.df.columns)
    except Exception:  # noqa: BLE001 — moved or changed since it was read: nothing to say about it
        return []


def table_bytes(frame: pd.DataFrame, path: Path, *, delimiter: str = ",", encoding: str = "utf-8") -> bytes:
    """The bytes :func:`write_table` writes for ``frame`` at ``path``: the canonical form of the format the path's
    ending names (delimited text with ``delimiter`` in ``encoding`` unless that is a binary format)."""
    fmt = _formats().table_format(path)
    delim = "," if fmt.binary else (normalize_delimiter(delimiter, path) or ",")
    return fmt.table_bytes(frame, delimiter=delim, encoding=encoding)


def _formats() -> ModuleType:
    """The format registry (:mod:`.formats`), which imports this module's reader and writer."""
    from anonstudio.core.io import formats

    return formats


def _binary(path: Path) -> bool:
    """Whether ``path`` names the registry's binary table format (Parquet), read by :func:`_read_parquet`."""
    fmt = _formats().format_for(path, "table")
    return fmt is not None and fmt.binary


def _read_parquet(path: Path, tokens: list[str], index_columns: bool = False) -> Table:
    if not path.is_file():
        read_bytes(path)  # raises the right "not found / folder" error
    try:
        frame = pd.read_parquet(path, dtype_backend="numpy_nullable")
        if index_columns:
            hidden = _stored_index(path, frame.columns)
            if hidden:
                index = frame.index.to_frame(index=False)
                if index.shape[1] == len(hidden):
                    index.columns = hidden
                frame = pd.concat([frame.reset_index(drop=True), index], axis=1)
    except ImportError as exc:
        raise InputError(f"reading Parquet needs pyarrow: {exc}", file=path) from None
    except Exception as exc:  # pyarrow raises its own types for a corrupt or non-Parquet file
        raise InputError(f"not a readable Parquet file: {exc}", file=path) from None
    header = [str(c) for c in frame.columns]
    _check_header(header, path, 1)
    cols = {}
    for name, col in zip(header, frame.columns):
        s = frame[col]
        present = s.notna().to_numpy()
        out = pd.Series([pd.NA] * len(s), dtype=object)
        out[present] = s[present].astype(str).to_numpy(dtype=object)
        cols[name] = out
    df = pd.DataFrame(cols, columns=header) if cols else pd.DataFrame()
    df, spelled = _apply_missing(df, tokens)
    return Table(df, source=path, delimiter=",", encoding="utf-8", header_lines=0, missing_text=spelled,
                 missing_tokens=tuple(tokens))


def write_table(
    df_or_table: Table | pd.DataFrame,
    path: str | Path,
    *,
    delimiter: str = ",",
    encoding: str = "utf-8",
) -> Path:
    """Write a table atomically in its canonical form (:mod:`._canonical`): header, then one line per row, LF
    line endings, minimal quoting, missing cells as spelled (empty if not kept).

    A :class:`Table` is written without its identifying columns (:meth:`Table.publish_frame`), in its column
    order, in the format the path's ending names (:func:`~anonstudio.core.io.formats.table_format`: Parquet is
    string columns, no metadata). Returns the path.
    """
    path = Path(path)
    frame = df_or_table.publish_frame() if isinstance(df_or_table, Table) else df_or_table
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"write_table needs a Table or a DataFrame, got {type(frame).__name__}")
    try:
        data = table_bytes(frame, path, delimiter=delimiter, encoding=encoding)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise InputError(f"the text {bad!r} cannot be written in encoding {encoding}", file=path) from None
    with atomic_write(path, "wb") as fh:
        fh.write(data)
    return path
