"""The canonical form of a release: the one serializer ``run`` publishes with and ``verify`` compares with.

A release is accepted only if its bytes are exactly what this module produces from the content parsed out of
them (issue 28): quoting, line endings, encoding, byte-order mark, trailing bytes, column order, Parquet schema
and metadata have one form each, so none of them can carry information. :func:`write_table` and
:func:`write_fasta` write these bytes; the verifier (``core.privacy._canonical``) re-serializes what it parsed
with the same functions and requires byte equality.

- **Delimited tables** (tables, event logs, Anatomy's QIT and ST): a header line, one line per row, fields
  joined by the input's delimiter, ``\\n`` after every line (none before the first, nothing after the last),
  a field quoted (``"…"`` with ``""`` inside) only when it holds the delimiter, a quote, CR or LF, a missing
  cell written as it was spelled where the content keeps that spelling, else empty; the input's encoding
  (``utf-8-sig`` writes a byte-order mark, as the input had).
- **Parquet**: one string column per column, written by pyarrow with no key-value metadata of its own (no
  pandas schema, no ``attrs``, no index), Snappy compression, one row group.
- **FASTA**: ``>header`` lines, then the sequence in lines of 60 symbols (space-separated tokens for
  multi-letter item alphabets, 60 a line), ``\\n`` line endings, UTF-8.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
import pandas as pd

#: Symbols (or tokens) per FASTA sequence line.
FASTA_WIDTH = 60
#: Anatomy's group column and its sensitive table's count column (``cli-contract.md``).
GROUP_COLUMN = "group"
COUNT_COLUMN = "count"


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _column_cells(values: np.ndarray, special: tuple[str, ...], lone: bool) -> list[str]:
    """One column's fields as written: text (missing → empty), quoted where it holds a special character (and,
    for a table of one column, where it is empty: an empty line would read as no row at all)."""
    from pandas.api.types import infer_dtype

    if infer_dtype(values, skipna=False) != "string":  # some cells missing or not text (the usual case is text)
        values = np.array(values, dtype=object)
        values[pd.isna(values)] = ""
        if infer_dtype(values, skipna=False) != "string":
            values = np.array([v if isinstance(v, str) else str(v) for v in values.tolist()], dtype=object)
    out = values.tolist()
    joined = "".join(out)
    if any(ch in joined for ch in special):
        out = [_quoted(t) if any(ch in t for ch in special) else t for t in out]
    if lone:
        out = [t if t else '""' for t in out]
    return out


def delimited_text(frame: pd.DataFrame, delimiter: str) -> str:
    """The canonical text of ``frame``: header, rows, ``\\n`` line ends, minimal quoting (see module doc).

    A field is quoted (``"…"``, a quote doubled inside) exactly when it holds the delimiter, a quote, CR or LF —
    or, in a table of one column, when it is empty. Built column by column (a whole Adult table in tens of
    milliseconds: ``verify`` serializes every release it reads)."""
    special = (delimiter, '"', "\r", "\n")
    lone = frame.shape[1] == 1
    header = _column_cells(np.asarray([str(c) for c in frame.columns], dtype=object), special, lone)
    columns = [_column_cells(frame.iloc[:, j].to_numpy(dtype=object), special, lone) for j in range(frame.shape[1])]
    lines = [delimiter.join(header)]
    if columns:
        lines.extend(map(delimiter.join, zip(*columns)))
    return "\n".join(lines) + "\n"


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """The canonical Parquet bytes of ``frame``: string columns, no key-value metadata, one row group."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = []
    for j in range(frame.shape[1]):
        col = frame.iloc[:, j]
        values = [None if (v is None or v is pd.NA or (isinstance(v, float) and v != v)) else str(v)
                  for v in col.tolist()]
        arrays.append(pa.array(values, type=pa.string()))
    table = pa.Table.from_arrays(arrays, names=[str(c) for c in frame.columns]).replace_schema_metadata(None)
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="snappy", row_group_size=max(len(frame), 1), store_schema=False,
                   write_statistics=False)
    return sink.getvalue()


def table_bytes(frame: pd.DataFrame, *, delimiter: str = ",", encoding: str = "utf-8") -> bytes:
    """The canonical bytes of a table published as delimited text in ``encoding`` (the text formats of
    :mod:`anonstudio.core.io.formats`; Parquet's are :func:`parquet_bytes`).

    Raises :class:`UnicodeEncodeError` if a cell cannot be written in ``encoding``."""
    return delimited_text(frame, delimiter).encode(encoding)


def fasta_bytes(headers: Sequence[str], sequences: Sequence, *, tokenized: bool = False,
                width: int = FASTA_WIDTH) -> bytes:
    """The canonical FASTA bytes: ``>header`` then the sequence ``width`` symbols a line (tokens joined by a
    space when ``tokenized``), ``\\n`` line ends, UTF-8."""
    if len(headers) != len(sequences):
        raise ValueError(f"{len(headers)} headers but {len(sequences)} sequences")
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    out = io.StringIO()
    for head, seq in zip(headers, sequences):
        head = str(head)
        if "\n" in head or "\r" in head:
            raise ValueError(f"a FASTA header cannot contain a line break: {head!r}")
        out.write(">" + (head[1:] if head.startswith(">") else head) + "\n")
        if tokenized or not isinstance(seq, str):
            toks = [str(t) for t in seq]
            for i in range(0, len(toks), width):
                out.write(" ".join(toks[i : i + width]) + "\n")
        else:
            for i in range(0, len(seq), width):
                out.write(seq[i : i + width] + "\n")
    return out.getvalue().encode("utf-8")


def first_difference(actual: bytes, expected: bytes) -> tuple[int, int, int, str, str] | None:
    """Where ``actual`` first departs from ``expected``: ``(byte offset, line, column, actual line, expected
    line)`` — line and column 1-based, the lines shown as text (cut to 80 characters, control characters
    escaped) — or ``None`` if the two are equal."""
    if actual == expected:
        return None
    n = min(len(actual), len(expected))
    a = np.frombuffer(actual[:n], dtype=np.uint8)
    e = np.frombuffer(expected[:n], dtype=np.uint8)
    diff = np.flatnonzero(a != e)
    pos = int(diff[0]) if len(diff) else n
    line_start = actual.rfind(b"\n", 0, pos) + 1
    line = actual.count(b"\n", 0, pos) + 1
    column = pos - line_start + 1

    def shown(data: bytes) -> str:
        end = data.find(b"\n", line_start)
        chunk = data[line_start : (end + 1 if end >= 0 else len(data))]
        if not chunk:
            return "(end of file)"
        text = chunk.decode("utf-8", errors="backslashreplace")
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
        return text if len(text) <= 80 else text[:79] + "…"

    return pos, line, column, shown(actual), shown(expected)


def canonical_groups(cells: np.ndarray) -> np.ndarray:
    """Group ids 1..G in order of first appearance, from the group column's cells as written."""
    return pd.factorize(pd.Series(cells, dtype=object))[0].astype(np.int64) + 1


def sensitive_table(group_ids: np.ndarray, values: pd.Series, sensitive: str) -> pd.DataFrame:
    """Anatomy's sensitive table (Xiao & Tao, Definition 3) in its canonical form: one row per (group, value)
    with its count, sorted by group (as a number), then value (as text); every cell text."""
    frame = pd.DataFrame({GROUP_COLUMN: np.asarray(group_ids, dtype=np.int64),
                          sensitive: values.astype(object).to_numpy()})
    st = frame.groupby([GROUP_COLUMN, sensitive], sort=True, dropna=False).size().reset_index(name=COUNT_COLUMN)
    st.columns = [GROUP_COLUMN, sensitive, COUNT_COLUMN]
    st[GROUP_COLUMN] = st[GROUP_COLUMN].astype(str)
    st[COUNT_COLUMN] = st[COUNT_COLUMN].astype(str)
    return st


def permutation(n: int, seed: int) -> np.ndarray:
    """The row (or sequence) order a shuffled release publishes: position ``i`` holds row ``order[i]``."""
    return np.random.default_rng(seed).permutation(n)
