"""Writers the generator commands use (atomic, LF line ends, deterministic bytes)."""

from __future__ import annotations

import csv
import io as _io
from pathlib import Path

import pandas as pd

from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.io import atomic_write


def write_table(df: pd.DataFrame, path: str | Path, *, delimiter: str = ",") -> Path:
    path = Path(path)
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        df.to_csv(fh, sep=delimiter, index=False, na_rep="", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    return path


def write_fasta(headers: list[str], sequences: list[str], path: str | Path, width: int = 60) -> Path:
    path = Path(path)
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        for head, seq in zip(headers, sequences):
            fh.write(f">{head}\n")
            for i in range(0, len(seq), width):
                fh.write(seq[i : i + width] + "\n")
    return path


def write_hierarchy(h: Hierarchy, path: str | Path) -> Path:
    path = Path(path)
    buf = _io.StringIO()
    csv.writer(buf, delimiter=";", lineterminator="\n").writerows(h.rows)
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(buf.getvalue())
    return path


def write_lines(lines: list[str], path: str | Path) -> Path:
    path = Path(path)
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.writelines(line + "\n" for line in lines)
    return path
