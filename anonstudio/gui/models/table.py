"""A virtual table model over a pandas DataFrame (a :class:`~anonstudio.core.data.Table`'s ``df``).

``data()`` reads only the cell asked for, from blocks of rows fetched on first use (a bounded cache), so
the view's cost and memory depend on the visible cells, not on the number of rows.
"""

from __future__ import annotations

from typing import Any

from collections.abc import Callable

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from anonstudio.core.data import Role

#: tint of the cells of each role (insensitive columns stay plain)
ROLE_COLOURS = {
    Role.IDENTIFYING: QColor(235, 235, 235),
    Role.QUASI: QColor(222, 235, 252),
    Role.SENSITIVE: QColor(252, 228, 222),
}
#: short role marks in column headers
ROLE_MARKS = {Role.IDENTIFYING: "ID", Role.QUASI: "QI", Role.SENSITIVE: "S", Role.INSENSITIVE: ""}

_Index = QModelIndex | QPersistentModelIndex


class FrameModel(QAbstractTableModel):
    """Rows and columns of a DataFrame, read lazily.

    Parameters
    ----------
    frame:
        The data; cells are shown as text, missing cells (NA) as a grey ``NA``.
    role_of:
        Optional ``column -> Role`` used to tint columns and mark headers.
    type_of:
        Optional ``column -> AttrType | None`` shown in header tooltips.
    rows:
        Optional row positions to show (a view on part of the frame, e.g. one sequence's events).
    all_distinct:
        Optional ``column -> bool``: every record holds a different value (the workbench's column profile,
        computed once per load); without it the model counts the distinct values itself, once per frame.
    """

    # What the model shows when its instance dict is gone: the cyclic collector (run on the GUI thread) can
    # clear a dead pane's model while Qt still asks its view for headers — an empty model, not an
    # AttributeError inside Qt's event loop (seen once in a fresh-clone CI run).
    _frame = pd.DataFrame()
    _rows = None
    _role_of = None
    _type_of = None

    def __init__(
        self,
        frame: pd.DataFrame | None = None,
        *,
        role_of: Callable[[str], Role] | None = None,
        type_of: Callable[[str], object] | None = None,
        rows: np.ndarray | None = None,
        all_distinct: Callable[[str], bool] | None = None,
        parent=None,
    ) -> None:
        super().__init__(parent)
        self._frame = frame if frame is not None else pd.DataFrame()
        self._rows = rows
        self._role_of = role_of
        self._type_of = type_of
        self._all_distinct = all_distinct
        self._columns: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._na_font = QFont()
        self._na_font.setItalic(True)

    # -- content -----------------------------------------------------------------------------------------
    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    def set_frame(self, frame: pd.DataFrame | None, rows: np.ndarray | None = None) -> None:
        self.beginResetModel()
        self._frame = frame if frame is not None else pd.DataFrame()
        self._rows = rows
        self._columns.clear()
        self.endResetModel()

    def roles_changed(self) -> None:
        """Re-read roles and types (header marks and tints)."""
        if self.columnCount():
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.columnCount() - 1)
            self.dataChanged.emit(self.index(0, 0), self.index(max(0, self.rowCount() - 1), self.columnCount() - 1))

    #: rows fetched from the frame at a time, and how many such blocks are kept
    BLOCK = 2048
    MAX_BLOCKS = 512

    def _block(self, col: int, block: int) -> tuple[np.ndarray, np.ndarray]:
        """Cells ``[block*BLOCK, (block+1)*BLOCK)`` of frame column ``col`` (values, missing mask)."""
        key = (col, block)
        cached = self._columns.get(key)
        if cached is None:
            if len(self._columns) >= self.MAX_BLOCKS:
                self._columns.clear()
            part = self._frame.iloc[block * self.BLOCK : (block + 1) * self.BLOCK, col]
            cached = (part.to_numpy(dtype=object), part.isna().to_numpy())
            self._columns[key] = cached
        return cached

    def column_name(self, col: int) -> str:
        return str(self._frame.columns[col])

    def cell_text(self, row: int, col: int) -> str | None:
        """The cell as shown (``None`` for a missing value)."""
        r = int(self._rows[row]) if self._rows is not None else row
        values, na = self._block(col, r // self.BLOCK)
        i = r % self.BLOCK
        return None if na[i] else str(values[i])

    # -- Qt model API ------------------------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        return len(self._rows) if self._rows is not None else len(self._frame)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._frame.shape[1]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            text = self.cell_text(index.row(), index.column())
            return "NA" if text is None else text
        if role == Qt.ItemDataRole.ForegroundRole:
            if self.cell_text(index.row(), index.column()) is None:
                return QBrush(QColor(150, 150, 150))
            return None
        if role == Qt.ItemDataRole.FontRole:
            return self._na_font if self.cell_text(index.row(), index.column()) is None else None
        if role == Qt.ItemDataRole.BackgroundRole and self._role_of is not None:
            colour = ROLE_COLOURS.get(self._role_of(self.column_name(index.column())))
            return QBrush(colour) if colour is not None else None
        return None

    def looks_like_identifier(self, name: str, role_value: Any) -> bool:
        """A column without a role (or insensitive) whose values are all different (issue 11 #14); the
        distinct counts are computed once per frame."""
        if self._role_of is None or (role_value is not None and getattr(role_value, "value", role_value) != "insensitive"):
            return False  # a view without roles (compare), or a column that has one
        if self._all_distinct is not None:
            return bool(self._all_distinct(name))
        cache = getattr(self, "_distinct_cache", None)
        if cache is None or cache[0] is not self._frame:
            cache = (self._frame, {})
            self._distinct_cache = cache
        counts = cache[1]
        if name not in counts:
            column = self._frame[name]
            counts[name] = len(column) > 1 and column.nunique(dropna=False) == len(column)
        return counts[name]

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Vertical:
            if role == Qt.ItemDataRole.DisplayRole:
                r = int(self._rows[section]) if self._rows is not None else section
                return str(r + 1)
            return None
        if section >= self._frame.shape[1]:
            return None
        name = self.column_name(section)
        role_value = self._role_of(name) if self._role_of is not None else None
        looks_like_id = self.looks_like_identifier(name, role_value)
        if role == Qt.ItemDataRole.DisplayRole:
            mark = ROLE_MARKS.get(role_value, "") if role_value is not None else ""
            text = f"{name} [{mark}]" if mark else name
            return f"⚠ {text}" if looks_like_id else text
        if role == Qt.ItemDataRole.ToolTipRole:
            bits = [name]
            if looks_like_id:
                bits.append("⚠ a different value in every record and no role: it looks like an identifier and would "
                            "be published as it is — mark it identifying to drop it")
            if role_value is not None:
                bits.append(f"role: {role_value.value}")
            if self._type_of is not None and self._type_of(name) is not None:
                bits.append(f"type: {getattr(self._type_of(name), 'value', self._type_of(name))}")
            bits.append("right-click to set role and type")
            return "\n".join(bits)
        if role == Qt.ItemDataRole.BackgroundRole and role_value is not None:
            colour = ROLE_COLOURS.get(role_value)
            return QBrush(colour) if colour is not None else None
        return None
