"""An editable tree model of one generalization hierarchy.

The tree shows the root at the top and the data values (leaves) at the bottom. Chains that the ARX
format pads by repeating a label (``[leaf, leaf, root]`` for a leaf directly under the root) are shown
once; :meth:`HierarchyItemModel.to_rows` writes the paths back (``Hierarchy`` pads them again), so a
hierarchy round-trips through the editor unchanged.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel

from anonstudio.core.hierarchy import Hierarchy

LEAF_COLOUR = QColor(40, 40, 40)
NODE_COLOUR = QColor(20, 70, 140)


_START = re.compile(r"^\s*[\[(]?\s*(-?\d+(?:\.\d+)?)")


def label_key(label: str) -> tuple:
    """How a node's children are ordered (issue 40 item 4, as ARX shows them): labels that start with a number
    — values and intervals, ``"20-39"``, ``"[20, 40["`` — by that number (the interval's start), before the other
    labels in text order."""
    m = _START.match(label)
    return (0, float(m.group(1)), label) if m else (1, 0.0, label)


class HierarchyItemModel(QStandardItemModel):
    """One attribute's hierarchy as a tree of :class:`QStandardItem` (editable, drag-and-drop moves)."""

    def __init__(self, attribute: str = "", parent=None) -> None:
        super().__init__(parent)
        self.attribute = attribute
        self.setHorizontalHeaderLabels(["node"])
        # a drag-and-drop move inserts rows: leaves may have become nodes and back
        self.rowsInserted.connect(self._schedule_restyle)
        self.rowsRemoved.connect(self._schedule_restyle)
        self._restyle_pending = False

    # -- building ----------------------------------------------------------------------------------------
    def set_rows(self, attribute: str, rows: list[list[str]]) -> None:
        """Fill the tree from ARX rows ``[leaf, level1, ..., root]``."""
        self.attribute = attribute
        self.clear()
        self.setHorizontalHeaderLabels([attribute or "node"])
        nodes: dict[tuple[str, ...], QStandardItem] = {}
        tops: list[QStandardItem] = []
        # build detached items first (no model signals per item), then insert the root(s) once; the paths sorted
        # from the root down, so every node's children are in order (40-59 after 20-39, not in the data's order)
        paths: list[list[str]] = []
        for row in rows:
            path: list[str] = []
            for label in reversed([str(c) for c in row]):
                if path and path[-1] == label:
                    continue  # padding: the same label repeated down a chain
                path.append(label)
            paths.append(path)
        paths.sort(key=lambda p: [label_key(label) for label in p])
        for path in paths:
            parent: QStandardItem | None = None
            for depth in range(len(path)):
                key = tuple(path[: depth + 1])
                item = nodes.get(key)
                if item is None:
                    item = self._new_item(path[depth])
                    if parent is None:
                        tops.append(item)
                    else:
                        parent.appendRow(item)
                    nodes[key] = item
                parent = item
        for item in nodes.values():
            self._restyle(item)
        for top in tops:
            self.invisibleRootItem().appendRow(top)

    def set_hierarchy(self, hierarchy: Hierarchy) -> None:
        self.set_rows(hierarchy.attribute, hierarchy.to_rows())

    @staticmethod
    def _new_item(label: str) -> QStandardItem:
        item = QStandardItem(label)
        item.setEditable(True)
        item.setDragEnabled(True)
        item.setDropEnabled(True)
        return item

    # -- reading back ------------------------------------------------------------------------------------
    def roots(self) -> list[QStandardItem]:
        inv = self.invisibleRootItem()
        return [inv.child(i) for i in range(inv.rowCount())]

    def iter_items(self):
        """Every item, depth first, root(s) first."""
        stack = list(reversed(self.roots()))
        while stack:
            item = stack.pop()
            yield item
            for i in range(item.rowCount() - 1, -1, -1):
                stack.append(item.child(i))

    def leaves(self) -> list[QStandardItem]:
        return [it for it in self.iter_items() if it.rowCount() == 0]

    def leaf_labels(self) -> list[str]:
        return [it.text() for it in self.leaves()]

    @staticmethod
    def path_of(item: QStandardItem) -> list[str]:
        """Labels from ``item`` up to its root."""
        out = []
        while item is not None:
            out.append(item.text())
            item = item.parent()
        return out

    def to_rows(self) -> list[list[str]]:
        """ARX rows, one per leaf: ``[leaf, ..., root]``."""
        rows = []
        for leaf in self.leaves():
            path = self.path_of(leaf)
            rows.append(path if len(path) > 1 else path * 2)
        return rows

    def to_hierarchy(self) -> Hierarchy:
        """Validate the tree as a :class:`Hierarchy` (raises ``HierarchyError`` saying what is wrong)."""
        return Hierarchy(self.attribute, self.to_rows())

    def find(self, label: str) -> QStandardItem | None:
        return next((it for it in self.iter_items() if it.text() == label), None)

    # -- editing -----------------------------------------------------------------------------------------
    def add_child(self, parent: QStandardItem | None, label: str) -> QStandardItem:
        """Add a node under ``parent`` (a new root when ``None``)."""
        item = self._new_item(label)
        (parent or self.invisibleRootItem()).appendRow(item)
        self._restyle_all()
        return item

    def add_leaves(self, parent: QStandardItem, labels: list[str]) -> list[QStandardItem]:
        items = [self._new_item(label) for label in labels]
        for item in items:
            parent.appendRow(item)
        self._restyle_all()
        return items

    def rename(self, item: QStandardItem, label: str) -> None:
        item.setText(label)

    def remove(self, item: QStandardItem) -> None:
        """Delete a node and everything under it."""
        parent = item.parent() or self.invisibleRootItem()
        parent.removeRow(item.row())
        self._restyle_all()

    def move(self, item: QStandardItem, new_parent: QStandardItem) -> None:
        """Re-parent ``item`` (with its subtree) under ``new_parent`` — what a drag in the tree does."""
        probe = new_parent
        while probe is not None:
            if probe is item:
                raise ValueError(f"cannot move '{item.text()}' under its own descendant '{new_parent.text()}'")
            probe = probe.parent()
        old_parent = item.parent() or self.invisibleRootItem()
        taken = old_parent.takeRow(item.row())
        new_parent.appendRow(taken)
        self._restyle_all()

    # -- looks -------------------------------------------------------------------------------------------
    def _restyle(self, item: QStandardItem) -> None:
        leaf = item.rowCount() == 0
        item.setForeground(QBrush(LEAF_COLOUR if leaf else NODE_COLOUR))
        font = item.font()
        font.setBold(not leaf)
        item.setFont(font)
        item.setToolTip("data value (leaf)" if leaf else f"{item.rowCount()} children")

    def _restyle_all(self) -> None:
        self._restyle_pending = False
        for item in self.iter_items():
            self._restyle(item)

    def _schedule_restyle(self, *args) -> None:
        if not self._restyle_pending:
            from PySide6.QtCore import QTimer

            self._restyle_pending = True
            QTimer.singleShot(0, self._restyle_all)

    def index_of(self, item: QStandardItem) -> QModelIndex:
        return self.indexFromItem(item)

    def flags(self, index):
        flags = super().flags(index)
        if not index.isValid():
            return flags | Qt.ItemFlag.ItemIsDropEnabled
        return flags
