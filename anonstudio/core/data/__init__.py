"""Data containers: :class:`Table`, :class:`EventLog`, :class:`SequenceSet`; what kind a container is, and
whether a cell's text is a number (the one rule every reader, completer and editor uses)."""

from typing import Any

from anonstudio.core.data._events import EventLog
from anonstudio.core.data._sequences import NAMED_ALPHABETS, Alphabet, SequenceSet
from anonstudio.core.data._table import (
    AttrType,
    CodedCells,
    Role,
    Table,
    coded_cells,
    read_alike,
    text_cells,
    value_codes,
)

#: the kinds of data (``core.algorithms.Algorithm.data_kind``)
KINDS = ("table", "events", "fasta")


def kind_of(data: Any) -> str | None:
    """``"table"``, ``"events"`` or ``"fasta"`` for a data container; ``None`` for ``None``."""
    if data is None:
        return None
    if isinstance(data, Table):
        return "table"
    if isinstance(data, EventLog):
        return "events"
    if isinstance(data, SequenceSet):
        return "fasta"
    raise TypeError(f"not a data container: {type(data).__name__}")


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a number (``float`` accepts it)."""
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


__all__ = ["Alphabet", "AttrType", "CodedCells", "EventLog", "KINDS", "NAMED_ALPHABETS", "Role", "SequenceSet", "Table", "coded_cells", "is_number", "text_cells",
           "kind_of", "read_alike", "value_codes"]
