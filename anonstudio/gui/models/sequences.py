"""Models over strings (FASTA records of a :class:`SequenceSet`) and event sequences (an :class:`EventLog`)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from anonstudio.core.data import EventLog, SequenceSet
from anonstudio.gui.models.table import FrameModel

_Index = QModelIndex | QPersistentModelIndex


class SequenceRecordsModel(QAbstractTableModel):
    """One row per string: identifier, length, label (if any) and header. Reads the set lazily."""

    COLUMNS = ("id", "length", "label", "header")
    _seqs = None  # empty when the collector cleared the instance (see FrameModel)
    _lengths = np.zeros(0, dtype=np.int64)

    def __init__(self, sequences: SequenceSet | None = None, parent=None) -> None:
        super().__init__(parent)
        self._seqs = sequences
        self._lengths = sequences.lengths if sequences is not None else np.zeros(0, dtype=np.int64)

    def set_sequences(self, sequences: SequenceSet | None) -> None:
        self.beginResetModel()
        self._seqs = sequences
        self._lengths = sequences.lengths if sequences is not None else np.zeros(0, dtype=np.int64)
        self.endResetModel()

    @property
    def sequences(self) -> SequenceSet | None:
        return self._seqs

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self._seqs is None else len(self._seqs)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self._seqs is None:
            return None
        r, c = index.row(), index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if c == 0:
                return self._seqs.ids[r]
            if c == 1:
                return str(int(self._lengths[r]))
            if c == 2:
                return self._seqs.labels[r] if self._seqs.labels else ""
            return self._seqs.headers[r]
        if role == Qt.ItemDataRole.UserRole and c == 1:
            return int(self._lengths[r])
        if role == Qt.ItemDataRole.TextAlignmentRole and c == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section] if section < len(self.COLUMNS) else None
        return str(section + 1)


class SequenceListModel(QAbstractTableModel):
    """One row per event sequence of an :class:`EventLog`: its id and number of events."""

    COLUMNS = ("sequence", "events")
    _log = None  # empty when the collector cleared the instance (see FrameModel)
    _ids: list = []
    _order = np.zeros(0, np.int64)
    _offsets = np.zeros(1, np.int64)

    def __init__(self, log: EventLog | None = None, parent=None) -> None:
        super().__init__(parent)
        self.set_log(log)

    def set_log(self, log: EventLog | None) -> None:
        self.beginResetModel()
        self._log = log
        if log is not None:
            self._ids, self._order, self._offsets = log.sequence_index()
        else:
            self._ids, self._order, self._offsets = [], np.zeros(0, np.int64), np.zeros(1, np.int64)
        self.endResetModel()

    def event_rows(self, row: int) -> np.ndarray:
        """Row positions (in the log's frame) of sequence ``row``'s events, in event order."""
        return self._order[self._offsets[row] : self._offsets[row + 1]]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 2

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        r = index.row()
        if index.column() == 0:
            return self._ids[r]
        return str(int(self._offsets[r + 1] - self._offsets[r]))

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section] if section < 2 else None
        return str(section + 1)


class EventsModel(FrameModel):
    """The events of one sequence (rows of the log's frame, in event order)."""

    def show_sequence(self, log: EventLog, rows: np.ndarray) -> None:
        self.set_frame(log.df, rows)
