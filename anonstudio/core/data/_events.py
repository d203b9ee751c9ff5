"""The event-log container: long-form multidimensional event sequences (one row per event)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from anonstudio.core.errors import InputError


@dataclass
class EventLog:
    """Event sequences in long form, as in Sehatkar & Matwin (004): each row is one event (e.g. a visit)
    of one sequence (a patient), with quasi-identifier columns and one sensitive column.

    Rows are kept in file order; :meth:`sequence_index` groups them by sequence (sequences in order of first
    appearance, events by the event-order column, numerically when it is numeric).
    """

    df: pd.DataFrame
    sequence_id: str
    event_order: str
    quasi_identifiers: list[str] = field(default_factory=list)
    sensitive: str | None = None
    source: Path | None = None
    delimiter: str = ","
    encoding: str = "utf-8"
    #: the cell values the file was read with as missing (``None``: the readers' default), so a release is
    #: read back the same way
    missing_tokens: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        needed = [self.sequence_id, self.event_order, *self.quasi_identifiers]
        if self.sensitive:
            needed.append(self.sensitive)
        for col in needed:
            if col not in self.df.columns:
                raise InputError(
                    f"no column named '{col}' (columns: {', '.join(map(str, self.df.columns))})",
                    file=self.source,
                    column=col,
                )

    def __len__(self) -> int:
        """Number of sequences."""
        return int(self.df[self.sequence_id].nunique())

    @property
    def n_events(self) -> int:
        return len(self.df)

    def sequence_index(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """``(ids, order, offsets)``: ``df.iloc[order[offsets[i]:offsets[i+1]]]`` are sequence ``ids[i]``'s
        events in event order."""
        sid = self.df[self.sequence_id].astype(str)
        first = pd.unique(sid)
        rank = pd.Series(np.arange(len(first)), index=first)
        seq_rank = rank.loc[sid.to_numpy()].to_numpy()
        ord_col = pd.to_numeric(self.df[self.event_order], errors="coerce")
        key = ord_col.to_numpy(dtype=float, na_value=np.nan) if ord_col.notna().all() else None
        if key is None:
            key = pd.factorize(self.df[self.event_order].astype(str), sort=True)[0].astype(float)
        order = np.lexsort((np.arange(len(sid)), key, seq_rank))
        counts = np.bincount(seq_rank, minlength=len(first))
        offsets = np.zeros(len(first) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return [str(x) for x in first], order.astype(np.int64), offsets
