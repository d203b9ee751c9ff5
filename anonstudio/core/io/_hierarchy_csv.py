"""ARX hierarchy CSV: ``;``-separated, no header, one row per leaf, coarser levels to the right, ``*`` last.

Read tolerantly (a UTF-8 byte-order mark, CRLF or CR line ends, no final line break, blank lines) and
written back as read: a hierarchy that was not changed since it was read is written with the very lines
of its file, so the round trip is byte-for-byte up to line endings (always LF when written).
"""

from __future__ import annotations

import csv
import io
import re
import weakref
from dataclasses import dataclass
from pathlib import Path

from anonstudio.core.errors import HierarchyError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.io._atomic import atomic_write
from anonstudio.core.io._common import decode, delimiter_name, normalize_delimiter, read_bytes

_PLAUSIBLE = (";", ",", "\t", "|")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class _FileLayout:
    """How a hierarchy looked in its file: enough to write it back unchanged."""

    rows: tuple[tuple[str, ...], ...]  # the padded rows right after reading (to notice edits)
    lines: tuple[str, ...]  # the file's lines, without line ends and without trailing blank lines
    final_newline: bool
    encoding: str
    delimiter: str


_LAYOUTS: weakref.WeakKeyDictionary[Hierarchy, _FileLayout] = weakref.WeakKeyDictionary()


def read_hierarchy(path: str | Path, *, attribute: str, delimiter: str = ";") -> Hierarchy:
    """Read an ARX hierarchy file into a validated :class:`Hierarchy` of ``attribute``.

    Rows may be ragged (padded as :class:`Hierarchy` explains); blank lines are skipped; cells may be
    quoted as in CSV. Raises :class:`HierarchyError` naming the file and line: empty file, a file that reads
    as one column but contains another delimiter ("wrong delimiter?"), and everything :class:`Hierarchy`
    rejects (empty label, duplicate leaf, two parents, several roots).
    """
    path = Path(path)
    delim = normalize_delimiter(delimiter, path, HierarchyError) or ";"
    text, encoding = decode(read_bytes(path, HierarchyError), path, None, HierarchyError)
    lines = _LINE_BREAK.split(text)
    final_newline = len(lines) > 1 and lines[-1] == ""
    while lines and lines[-1].strip() == "":
        lines.pop()
    if not lines:
        raise HierarchyError("the hierarchy file is empty", file=path, line=1, column=attribute)
    rows: list[list[str]] = []
    linenos: list[int] = []
    for lineno, line in enumerate(lines, start=1):
        if line.strip() == "":
            continue
        try:
            row = next(csv.reader([line], delimiter=delim, strict=True))
        except csv.Error as exc:
            raise HierarchyError(f"malformed quoting: {exc}", file=path, line=lineno, column=attribute) from None
        rows.append(row)
        linenos.append(lineno)
    if all(len(r) == 1 for r in rows):
        others = [c for c in _PLAUSIBLE if c != delim and c in lines[linenos[0] - 1]]
        if others:
            raise HierarchyError(
                f"wrong delimiter? every row reads as one label with delimiter {delimiter_name(delim)} but the "
                f"rows contain {delimiter_name(others[0])}; give delimiter={others[0]!r}",
                file=path,
                line=linenos[0],
                column=attribute,
            )
    h = Hierarchy(attribute, rows, source=path, lines=linenos)
    _LAYOUTS[h] = _FileLayout(
        rows=tuple(tuple(r) for r in h.rows),
        lines=tuple(lines),
        final_newline=final_newline,
        encoding=encoding,
        delimiter=delim,
    )
    return h


def write_hierarchy(h: Hierarchy, path: str | Path, *, delimiter: str | None = None) -> Path:
    """Write ``h`` atomically in ARX format, LF line ends.

    A hierarchy read by :func:`read_hierarchy` and not changed since is written with its file's own lines
    (same row order, quoting, spacing, ragged rows, encoding and final line break). Otherwise its rows are
    written (padded, one per leaf, in its leaf order) with ``delimiter`` (default ``;``) in UTF-8.
    """
    path = Path(path)
    delim = normalize_delimiter(delimiter, path, HierarchyError)
    layout = _LAYOUTS.get(h)
    unchanged = layout is not None and tuple(tuple(r) for r in h.rows) == layout.rows
    if layout is not None and unchanged and (delim is None or delim == layout.delimiter):
        text = "\n".join(layout.lines) + ("\n" if layout.final_newline else "")
        encoding = layout.encoding
    else:
        buf = io.StringIO()
        csv.writer(buf, delimiter=delim or ";", lineterminator="\n").writerows(h.rows)
        text, encoding = buf.getvalue(), "utf-8"
    with atomic_write(path, "w", encoding=encoding, newline="") as fh:
        fh.write(text)
    return path
