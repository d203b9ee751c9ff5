"""The table container: a pandas DataFrame plus per-column roles and types."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path

import numpy as np
import pandas as pd

from anonstudio.core.data import _chunks
from anonstudio.core.errors import InputError
from anonstudio.core.progress import checkpoint


class Role(str, Enum):
    """What a column is to the privacy model (ARX's attribute types)."""

    IDENTIFYING = "identifying"
    QUASI = "quasi-identifying"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


class AttrType(str, Enum):
    """How a column's values are ordered: categories, ordered categories, or numbers."""

    CATEGORICAL = "categorical"
    ORDINAL = "ordinal"
    NUMERIC = "numeric"


#: rows converted to text per pandas call (:meth:`Table.text_column`)
_TEXT_CHUNK = 131_072


def text_cells(series: pd.Series, missing: str = "") -> np.ndarray:
    """A column's cells as text in an object array, missing cells ``missing``: cells already strings (what
    the readers produce) are taken as they are — half the time of pandas' string dtype, which re-checks every
    cell — and anything else goes through ``astype("string")``, whose spelling (``39``, ``39.5``) it keeps.
    Never the caller's array: the result may be changed."""
    values = series.to_numpy(dtype=object)
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        out = values.copy()
        out[_chunks.isna(values)] = missing
        return out
    return series.astype("string").fillna(missing).to_numpy(dtype=object)


def read_alike(text: str) -> str:
    """``text`` as a reader tells values apart: Unicode compatibility form (NFKC: an accent composed or not,
    full-width letters), invisible format characters dropped (zero-width space, BOM, soft hyphen), whitespace
    of any kind trimmed and collapsed to one space, case folded. ``'HIV'``, ``' HIV'``, ``'HIV\u200b'`` and
    ``'hiv'`` read alike: a class holding them holds one sensitive value, not several."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.split()).casefold()


def value_codes(series: pd.Series) -> tuple[np.ndarray, int]:
    """``(codes int32, n)``: per cell the code of its value as :func:`read_alike` reads it (``-1``: missing,
    or nothing but blanks and invisible characters), ``n`` distinct values — how the methods that count
    sensitive values (Mondrian's l-diversity, Anatomy's buckets) tell them apart, as the verifiers do."""
    cells = coded_cells(series, "").read_alike()
    values = np.flatnonzero(cells.texts != "")
    remap = np.full(len(cells.texts), -1, dtype=np.int32)
    remap[values] = np.arange(len(values), dtype=np.int32)
    return remap[cells.codes], int(len(values))


@dataclass(frozen=True)
class CodedCells:
    """A column's cells as :func:`text_cells` spells them, each distinct text stored once: cell ``i`` is
    ``texts[codes[i]]``. Equality of cells is equality of codes, so verifiers compare, group and count
    integers instead of millions of Python strings."""

    codes: np.ndarray  # int64, one per cell
    texts: np.ndarray  # object, distinct

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i: int) -> str:
        return self.texts[self.codes[i]]

    def take(self, rows: np.ndarray) -> CodedCells:
        return CodedCells(self.codes[rows], self.texts)

    def isin(self, values) -> np.ndarray:
        """Per cell: is its text one of ``values``?"""
        return np.isin(self.texts, list(values))[self.codes] if len(self.texts) else np.zeros(0, dtype=bool)

    def array(self) -> np.ndarray:
        """The cells as an object array of text (what :func:`text_cells` returns)."""
        return self.texts[self.codes]

    def read_alike(self, keep: str | None = None) -> CodedCells:
        """These cells with the texts that :func:`read_alike` reads alike sharing one code (each distinct text is
        normalized once); the text ``keep`` (a missing-cell token) is left as it is."""
        texts = np.array([t if t == keep else read_alike(t) for t in self.texts.tolist()], dtype=object)
        merged, uniques = pd.factorize(texts)
        return CodedCells(merged.astype(np.int64)[self.codes], np.asarray(uniques, dtype=object))


def _holds_text(part: pd.Series) -> bool:
    """Cells that are strings or missing: pandas' string dtypes, or objects that are all ``str``."""
    if isinstance(part.dtype, pd.StringDtype):
        return True
    return part.dtype == object and pd.api.types.infer_dtype(part, skipna=True) in ("string", "empty")


def coded_cells(series: pd.Series, missing: str = "") -> CodedCells:
    """:func:`text_cells` of ``series`` as :class:`CodedCells` (``coded_cells(s, m).array()`` equals
    ``text_cells(s, m)``). Text columns are factorized as they are — pyarrow's dictionary encoding for
    pandas' default string dtype — and only their distinct values become Python strings; other columns are
    spelled first. Chunk by chunk (short calls: a worker thread never holds the interpreter lock for long),
    then the chunks' distinct texts are merged."""
    n = len(series)
    codes = np.empty(n, dtype=np.int64)
    parts: list[np.ndarray] = []
    offset = 0
    for start in range(0, n, _TEXT_CHUNK):
        part = series.iloc[start : start + _TEXT_CHUNK]
        if _holds_text(part):
            c, u = pd.factorize(part)  # missing cells: -1
        else:
            c, u = pd.factorize(text_cells(part, missing))
        u = np.asarray(u, dtype=object)
        codes[start : start + len(part)] = np.where(c >= 0, c + offset, -1)
        parts.append(u)
        offset += len(u)
        checkpoint()
    every = np.concatenate([*parts, np.array([missing], dtype=object)])
    codes[codes < 0] = len(every) - 1
    merged, texts = pd.factorize(every)  # a text may be distinct in several chunks
    return CodedCells(merged.astype(np.int64)[codes], np.asarray(texts, dtype=object))


def type_of_values(distinct) -> AttrType:
    """A column's type from its distinct present values: numeric when there is one and every one reads as a
    number, else categorical."""
    present = pd.Series(distinct, dtype=object)
    if len(present) and pd.to_numeric(present, errors="coerce").notna().all():
        return AttrType.NUMERIC
    return AttrType.CATEGORICAL


@dataclass
class Table:
    """A microdata table.

    Cells are kept as the strings read from the file (missing cells as ``pd.NA``), so that a written
    output reproduces the input's formatting exactly; :meth:`numeric` converts a column when needed.
    Columns without an explicit role are insensitive. Identifying columns are dropped from every output.

    Attributes
    ----------
    df:
        The data, one row per record, in file order.
    roles, types:
        Per-column :class:`Role` and :class:`AttrType` (missing keys: insensitive / inferred).
    source:
        The file it was read from, if any (used in error messages).
    delimiter, encoding:
        How it was read, so that outputs are written the same way.
    header_lines:
        Number of lines before the first data row in ``source`` (1 for a header), to map rows to lines.
    """

    df: pd.DataFrame
    roles: dict[str, Role] = field(default_factory=dict)
    types: dict[str, AttrType] = field(default_factory=dict)
    source: Path | None = None
    delimiter: str = ","
    encoding: str = "utf-8"
    header_lines: int = 1
    #: how each missing cell was written in the file, per column (row index → token such as ``?`` or
    #: ``NA``); cells absent here were empty. Outputs write non-QI missing cells back byte for byte.
    missing_text: dict[str, pd.Series] = field(default_factory=dict)
    #: the cell values the file was read with as missing (``None``: the readers' default), so a release is
    #: read back the same way
    missing_tokens: tuple[str, ...] | None = None
    #: the column naming the person each record is of (``[input] person``; an identifying column, never
    #: published): when set, every privacy model counts distinct people per class, not records
    person: str | None = None

    def __post_init__(self) -> None:
        for col in list(self.roles) + list(self.types):
            if col not in self.df.columns:
                raise InputError(f"no column named '{col}'", file=self.source, column=col)
        if self.person is not None and self.person not in self.df.columns:
            raise InputError(f"input.person names '{self.person}', which is not a column of the file (columns: "
                             f"{', '.join(map(str, self.df.columns))})", file=self.source, column=self.person)
        for col in self.df.columns:
            if col not in self.types:
                self.types[col] = self._infer_type(col)

    # -- roles -------------------------------------------------------------------------------------------
    def role(self, column: str) -> Role:
        return self.roles.get(column, Role.INSENSITIVE)

    def columns_with(self, role: Role) -> list[str]:
        return [c for c in self.df.columns if self.role(c) is role]

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.columns_with(Role.QUASI)

    @property
    def sensitive(self) -> list[str]:
        return self.columns_with(Role.SENSITIVE)

    @property
    def identifying(self) -> list[str]:
        return self.columns_with(Role.IDENTIFYING)

    def with_roles(
        self,
        quasi_identifiers: list[str] | None = None,
        sensitive: list[str] | None = None,
        identifying: list[str] | None = None,
    ) -> Table:
        """A copy with the given columns' roles set (others keep theirs); unknown names are errors."""
        roles = dict(self.roles)
        given: dict[str, Role] = {}
        for names, role in ((quasi_identifiers, Role.QUASI), (sensitive, Role.SENSITIVE), (identifying, Role.IDENTIFYING)):
            for name in names or []:
                if name in given and given[name] is not role:
                    # a column in two roles would silently take the last one (and be published unprotected)
                    raise InputError(
                        f"column '{name}' is given two roles, {given[name].value} and {role.value}: a column holds one role",
                        file=self.source,
                        column=name,
                    )
                given[name] = role
                if name not in self.df.columns:
                    raise InputError(
                        f"no column named '{name}' (columns: {', '.join(map(str, self.df.columns))})",
                        file=self.source,
                        column=name,
                    )
                roles[name] = role
        return replace(self, roles=roles, types=dict(self.types))

    # -- values ------------------------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return len(self.df)

    def __len__(self) -> int:
        return len(self.df)

    def line_of(self, row: int) -> int:
        """1-based line in the source file of 0-based data row ``row``."""
        return row + 1 + self.header_lines

    def numeric(self, column: str) -> np.ndarray:
        """The column as float64; a non-number is an :class:`InputError` naming its line."""
        values = pd.to_numeric(self.df[column], errors="coerce")
        bad = values.isna() & self.df[column].notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(
                f"'{self.df[column].iloc[row]}' is not a number",
                file=self.source,
                line=self.line_of(row),
                column=column,
            )
        return values.to_numpy(dtype=float, na_value=np.nan)

    def _infer_type(self, column: str) -> AttrType:
        return type_of_values(_chunks.distinct(self.df[column]))  # distinct values only: same answer, faster

    def output_frame(self) -> pd.DataFrame:
        """The frame to publish: identifying columns dropped, everything else as is."""
        return self.df.drop(columns=self.identifying)

    def publish_frame(self) -> pd.DataFrame:
        """:meth:`output_frame` with every missing cell spelled as it was read (``?``, ``NA``, empty), so
        a column the method does not touch is written back byte for byte."""
        frame = self.output_frame()
        spelled = {c: t for c, t in self.missing_text.items() if c in frame.columns and len(t)}
        if not spelled:
            return frame
        frame = frame.copy()
        for col, tokens in spelled.items():
            values = frame[col].astype(object)
            at = tokens.index[values.loc[tokens.index].isna().to_numpy()]
            values.loc[at] = tokens.loc[at]
            frame[col] = values
        return frame

    def text_column(self, column: str) -> np.ndarray:
        """A column as it reads in the file: strings, missing cells in their own spelling ("" if empty)."""
        series = self.df[column]
        values = np.empty(len(series), dtype=object)
        for start in range(0, len(series), _TEXT_CHUNK):  # short calls: a verifier on the workbench's worker
            part = series.iloc[start : start + _TEXT_CHUNK]  # thread never holds the lock for long
            values[start : start + len(part)] = text_cells(part)
            checkpoint()
        tokens = self.missing_text.get(column)
        if tokens is not None and len(tokens):
            positions = self.df.index.get_indexer(tokens.index)
            mask = pd.isna(self.df[column]).to_numpy()[positions]
            values[positions[mask]] = tokens.to_numpy(dtype=object)[mask]
        return values
