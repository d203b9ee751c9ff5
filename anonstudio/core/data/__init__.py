"""Data containers: :class:`Table`, :class:`EventLog`, :class:`SequenceSet`."""

from anonstudio.core.data._events import EventLog
from anonstudio.core.data._sequences import NAMED_ALPHABETS, Alphabet, SequenceSet
from anonstudio.core.data._table import AttrType, Role, Table

__all__ = ["Alphabet", "AttrType", "EventLog", "NAMED_ALPHABETS", "Role", "SequenceSet", "Table"]
