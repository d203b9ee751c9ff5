"""The hierarchy editor: one generalization tree per quasi-identifier.

Add, rename (double-click), delete and drag nodes to re-parent them; build a hierarchy from intervals,
masking or groups with a live preview; import and export ARX CSV. Every edit is validated at once: a tree
that is not a valid hierarchy shows why, and data values missing from the leaves are listed in red with a
one-click "add as leaves under …". The last valid tree of each attribute is what the workbench uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QStandardItem
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from anonstudio.core.data import is_number
from anonstudio.core.errors import AnonStudioError
from anonstudio.core.hierarchy import DATE_PARTS, Hierarchy
from anonstudio.core.io import formats
from anonstudio.gui.models import HierarchyItemModel
from anonstudio.gui.panes._common import ERROR_STYLE
from anonstudio.core.workspace import Workspace
from anonstudio.core.views.workbench_words import counted, is_are

OK_STYLE = "color: #1e7b34;"
MISSING_BRUSH = QBrush(QColor(253, 226, 226))


def build_from_spec(attribute: str, spec: dict[str, Any], values: list[str]) -> Hierarchy:
    """Build with the engine's builders (``core.hierarchy.build_hierarchy``)."""
    from anonstudio.core import hierarchy as hmod

    build = getattr(hmod, "build_hierarchy", None)
    if build is None:
        raise AnonStudioError("hierarchy builders are not available in this version of the engine", column=attribute)
    return build(attribute, spec, values)


def _all_dates(values: list[str]) -> bool:
    """Whether every value reads as an ISO date (``YYYY-MM-DD``, a time may follow) and none as a plain number."""
    import pandas as pd

    if any(is_number(v) for v in values[:50]):
        return False
    return bool(pd.to_datetime(pd.Series(values), errors="coerce", format="ISO8601").notna().all())


def parse_numbers(text: str) -> list[float | int]:
    """``"5, 10, 20"`` → ``[5, 10, 20]`` (ints where whole)."""
    out: list[float | int] = []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        value = float(part)
        out.append(int(value) if value.is_integer() else value)
    return out


def parse_groups(text: str) -> list[dict[str, list[str]]]:
    """Groups typed one per line as ``label: member, member``; levels separated by a ``---`` line."""
    levels: list[dict[str, list[str]]] = [{}]
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("---"):
            if levels[-1]:
                levels.append({})
            continue
        if ":" not in line:
            raise ValueError(f"group line '{line}' needs 'label: member, member'")
        label, members = line.split(":", 1)
        levels[-1][label.strip()] = [m.strip() for m in members.split(",") if m.strip()]
    return [lvl for lvl in levels if lvl]


def format_groups(levels: list[dict[str, list[str]]]) -> str:
    """The text :func:`parse_groups` reads back: ``label: member, member`` per line, ``---`` between levels."""
    return "\n---\n".join("\n".join(f"{label}: {', '.join(members)}" for label, members in level.items())
                           for level in levels if level)


def grouped(text: str, label: str, values: list[str]) -> str:
    """The groups ``text`` with ``values`` put into level-1 group ``label`` (made if new, taken out of any other
    level-1 group; a group left empty goes, with its name in the levels above)."""
    levels = (parse_groups(text) if text.strip() else []) or [{}]
    first = levels[0]
    moved = set(values)
    for name in list(first):
        first[name] = [v for v in first[name] if v not in moved]
    first.setdefault(label, [])
    first[label] += [v for v in values if v not in first[label]]
    gone = {name for name, members in first.items() if not members}
    for name in gone:
        del first[name]
    for level in levels[1:]:
        for name in list(level):
            level[name] = [m for m in level[name] if m not in gone]
            if not level[name]:
                del level[name]
    return format_groups([lvl for lvl in levels if lvl])


class GroupList(QListWidget):
    """The level-1 groups of the Grouping tab: values dragged from the values list onto a group join it (on empty
    space: a new group)."""

    def __init__(self, dropped, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._dropped = dropped
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if isinstance(event.source(), QListWidget) and event.source() is not self:
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if isinstance(event.source(), QListWidget) and event.source() is not self:
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802
        source = event.source()
        if not isinstance(source, QListWidget) or source is self:
            event.ignore()
            return
        item = self.itemAt(event.position().toPoint())
        self._dropped(item.data(Qt.ItemDataRole.UserRole) if item is not None else None,
                      [it.text() for it in source.selectedItems()])
        event.acceptProposedAction()


class BuilderDialog(QDialog):
    """Build a hierarchy for one attribute from intervals, masking or groups, with a live preview."""

    PREVIEW_ROWS = 200

    def __init__(self, attribute: str, values: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Build hierarchy for '{attribute}'")
        self.attribute = attribute
        self.values = values
        self.hierarchy: Hierarchy | None = None
        self.spec: dict[str, Any] | None = None

        self.tabs = QTabWidget()
        # intervals
        w = QWidget()
        f = QFormLayout(w)
        self.widths = QLineEdit("5, 10, 20")
        self.widths.setToolTip("Band widths, one per level, finest first; '*' is added on top")
        self.start = QLineEdit("")
        self.start.setPlaceholderText("smallest value (default: from the data)")
        f.addRow("Band widths", self.widths)
        f.addRow("Start at", self.start)
        self.tabs.addTab(w, "Intervals")
        # masking
        w = QWidget()
        f = QFormLayout(w)
        self.mask_char = QLineEdit("*")
        self.mask_char.setMaxLength(1)
        f.addRow("Mask character", self.mask_char)
        f.addRow(QLabel("One more character is masked from the right at each level."))
        self.tabs.addTab(w, "Masking")
        # grouping (issue 40 item 4, as ARX's): the column's values listed; select some and group them, or drag
        # them onto a group; the text below is the whole spec (more levels after a '---' line)
        w = QWidget()
        v = QVBoxLayout(w)
        self.ungrouped = QListWidget()
        self.ungrouped.setObjectName("ungroupedValues")
        self.ungrouped.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.ungrouped.setDragEnabled(True)
        self.ungrouped.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.group_list = GroupList(self._drop_into_group)
        self.group_list.setObjectName("groups")
        self.group_name = QLineEdit()
        self.group_name.setPlaceholderText("name of the new group")
        self.new_group_button = QPushButton("New group →")
        self.new_group_button.setToolTip("Put the selected values into a new group named as typed above")
        self.new_group_button.clicked.connect(self.group_selected)
        self.add_to_group_button = QPushButton("Add to group →")
        self.add_to_group_button.setToolTip("Put the selected values into the group selected on the right")
        self.add_to_group_button.clicked.connect(self.add_selected_to_group)
        self.rest_button = QPushButton("The rest → new group")
        self.rest_button.setToolTip("Put every value not yet in a group into a new group named as typed above")
        self.rest_button.clicked.connect(self.group_the_rest)
        picker = QHBoxLayout()
        left = QVBoxLayout()
        self.ungrouped_label = QLabel()
        left.addWidget(self.ungrouped_label)
        left.addWidget(self.ungrouped, 1)
        middle = QVBoxLayout()
        middle.addStretch(1)
        middle.addWidget(self.group_name)
        for b in (self.new_group_button, self.add_to_group_button, self.rest_button):
            middle.addWidget(b)
        middle.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(QLabel("Groups (drag values onto one)"))
        right.addWidget(self.group_list, 1)
        picker.addLayout(left, 2)
        picker.addLayout(middle, 1)
        picker.addLayout(right, 2)
        v.addLayout(picker, 3)
        v.addWidget(QLabel("As text: one group per line as  label: value, value, …  — a line '---' starts the next "
                           "level (groups of the groups)."))
        self.groups = QPlainTextEdit()
        self.groups.setPlaceholderText("Young: 17, 18, 19\nOld: 80, 81\n---\nAny age: Young, Old")
        self.groups.textChanged.connect(self._show_groups)
        v.addWidget(self.groups, 1)
        self.tabs.addTab(w, "Grouping")
        # dates
        w = QWidget()
        v = QVBoxLayout(w)
        v.addWidget(QLabel("Each level coarser than the one before; the values are dates (YYYY-MM-DD, a time may "
                           "follow). Day → the parts ticked → *."))
        self.date_parts: dict[str, QCheckBox] = {}
        for part in DATE_PARTS:
            box = QCheckBox({"5 years": "5-year span (2020-2024)", "decade": "Decade (2020s)",
                             "quarter": "Quarter (2020-Q1)", "month": "Month (2020-03)", "year": "Year (2020)"}[part])
            box.setObjectName(f"date_{part.replace(' ', '_')}")
            box.setChecked(part in ("month", "year"))
            box.toggled.connect(lambda _on: self._timer.start())
            self.date_parts[part] = box
            v.addWidget(box)
        v.addStretch(1)
        self.tabs.addTab(w, "Dates")

        self.preview = QTableWidget(0, 0)
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"{len(values)} distinct values of '{attribute}'"))
        layout.addWidget(self.tabs, 1)
        layout.addWidget(QLabel("Preview"))
        layout.addWidget(self.preview, 2)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(760, 680)

        self._timer = QTimer(self, singleShot=True, interval=150)
        self._timer.timeout.connect(self.update_preview)
        for edit in (self.widths, self.start, self.mask_char):
            edit.textChanged.connect(self._timer.start)
        self.groups.textChanged.connect(self._timer.start)
        self.tabs.currentChanged.connect(self._timer.start)
        if values and _all_dates(values):
            self.tabs.setCurrentIndex(3)
        elif values and not all(is_number(v) for v in values):
            self.tabs.setCurrentIndex(2)  # text: grouped, as ARX opens it (masking a word tells little)
        self._show_groups()
        self.update_preview()

    # -- grouping ----------------------------------------------------------------------------------------
    def _levels(self) -> list[dict[str, list[str]]]:
        try:
            return parse_groups(self.groups.toPlainText()) or [{}]
        except ValueError:
            return [{}]

    def _show_groups(self) -> None:
        """List the values in no level-1 group yet and the level-1 groups (with their sizes)."""
        first = self._levels()[0]
        inside = {m for members in first.values() for m in members}
        left = [v for v in self.values if v not in inside]
        self.ungrouped.clear()
        self.ungrouped.addItems(left)
        self.ungrouped_label.setText(f"Values in no group yet ({len(left)} of {len(self.values)})")
        selected = self.group_list.currentItem().data(Qt.ItemDataRole.UserRole) if self.group_list.currentItem() else None
        self.group_list.clear()
        for label, members in first.items():
            item = QListWidgetItem(f"{label}  ({len(members)})")
            item.setData(Qt.ItemDataRole.UserRole, label)
            item.setToolTip(", ".join(members))
            self.group_list.addItem(item)
            if label == selected:
                self.group_list.setCurrentItem(item)

    def _group(self, label: str | None, values: list[str]) -> None:
        if not values:
            return
        if not label:
            label = self.group_name.text().strip() or self._new_group_name()
        self.groups.setPlainText(grouped(self.groups.toPlainText(), label, values))
        self.group_name.clear()

    def _new_group_name(self) -> str:
        taken = set(self._levels()[0])
        n = len(taken) + 1
        while f"group {n}" in taken:
            n += 1
        return f"group {n}"

    def _drop_into_group(self, label: str | None, values: list[str]) -> None:
        self._group(label, values)

    def group_selected(self) -> None:
        """New group →: the selected values into a new group (named as typed, else "group N")."""
        self._group(None, [it.text() for it in self.ungrouped.selectedItems()])

    def add_selected_to_group(self) -> None:
        """Add to group →: the selected values into the group selected on the right."""
        item = self.group_list.currentItem()
        if item is not None:
            self._group(item.data(Qt.ItemDataRole.UserRole), [it.text() for it in self.ungrouped.selectedItems()])

    def group_the_rest(self) -> None:
        self._group(None, [self.ungrouped.item(i).text() for i in range(self.ungrouped.count())])

    def current_spec(self) -> dict[str, Any]:
        tab = self.tabs.currentIndex()
        if tab == 0:
            spec: dict[str, Any] = {"intervals": parse_numbers(self.widths.text())}
            if self.start.text().strip():
                spec["start"] = parse_numbers(self.start.text())[0]
            return spec
        if tab == 1:
            return {"mask": self.mask_char.text() or "*"}
        if tab == 3:
            parts = [p for p, box in self.date_parts.items() if box.isChecked()]
            if not parts:
                raise ValueError("tick at least one date level (month, year, …)")
            return {"date": parts}
        return {"groups": parse_groups(self.groups.toPlainText())}

    def update_preview(self) -> None:
        """Rebuild from the current settings and show the first rows (or the error)."""
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        try:
            spec = self.current_spec()
            h = build_from_spec(self.attribute, spec, self.values)
        except (AnonStudioError, ValueError, KeyError, TypeError) as exc:
            self.hierarchy = self.spec = None
            self.status.setText(str(exc))
            self.status.setStyleSheet(ERROR_STYLE)
            ok.setEnabled(False)
            return
        self.hierarchy, self.spec = h, spec
        rows = sorted(h.to_rows(), key=lambda r: (0, float(r[0]), "") if is_number(r[0]) else (1, 0.0, r[0]))
        shown = rows[: self.PREVIEW_ROWS]
        self.preview.clear()
        self.preview.setRowCount(len(shown))
        self.preview.setColumnCount(h.height + 1)
        self.preview.setHorizontalHeaderLabels(["value"] + [f"level {i}" for i in range(1, h.height + 1)])
        for r, row in enumerate(shown):
            for c, label in enumerate(row):
                self.preview.setItem(r, c, QTableWidgetItem(label))
        more = f" (first {self.PREVIEW_ROWS} shown)" if len(rows) > self.PREVIEW_ROWS else ""
        self.status.setText(f"{len(h.leaves)} leaves, {h.height} levels above the values{more}")
        self.status.setStyleSheet(OK_STYLE)
        ok.setEnabled(True)


def _rows_key(h: Hierarchy) -> list[tuple[str, ...]]:
    """A hierarchy's paths in a canonical order (the tree may list leaves in another order)."""
    return sorted(tuple(r) for r in h.to_rows())


class HierarchyEditor(QWidget):
    """Edit the workbench state's hierarchies.

    Signals
    -------
    hierarchyChanged(str):
        An attribute's hierarchy in the state was replaced by a valid edited, imported or built one.
    """

    hierarchyChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state: Workspace | None = None
        self.models: dict[str, HierarchyItemModel] = {}
        #: attributes whose tree is (or was) the state's hierarchy: one gone from the state was removed there,
        #: and its tree goes too (a tree never applied — still being built — stays)
        self._in_state: set[str] = set()
        self._loading = False
        #: True while this editor writes to the state (the window then does not ask it to refresh)
        self.applying = False

        self.attribute_box = QComboBox()
        self.attribute_box.setMinimumContentsLength(12)
        self.attribute_box.currentTextChanged.connect(self._show_attribute)

        def button(text: str, tip: str, slot) -> QToolButton:
            b = QToolButton()
            b.setText(text)
            # never narrower than its text (a squeezed tool button reads "Im…t…")
            b.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            return b

        self.import_button = button("Import…", "Import an ARX hierarchy CSV (';'-separated, value first, root last)", self.import_dialog)
        self.export_button = button("Export…", "Export this hierarchy as ARX CSV", self.export_dialog)
        self.build_button = button("Build…", "Build from intervals, masking or groups", self.build_dialog)
        self.add_button = button("Add", "Add a child under the selected node", self._add_clicked)
        self.rename_button = button("Rename", "Rename the selected node (or double-click it)", self._rename_clicked)
        self.delete_button = button("Delete", "Delete the selected node and everything under it", self._delete_clicked)

        top = QHBoxLayout()
        top.addWidget(QLabel("Attribute"))
        top.addWidget(self.attribute_box, 1)
        # the file buttons on a row of their own: beside the attribute they do not fit a 1280-pixel window's column
        file_row = QHBoxLayout()
        for b in (self.import_button, self.export_button, self.build_button):
            file_row.addWidget(b)
        file_row.addStretch(1)
        edit_row = QHBoxLayout()
        for b in (self.add_button, self.rename_button, self.delete_button):
            edit_row.addWidget(b)
        edit_row.addStretch(1)

        self.tree = QTreeView()
        self.tree.setHeaderHidden(False)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.tree.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.tree.setDragEnabled(True)
        self.tree.setAcceptDrops(True)
        self.tree.setDropIndicatorShown(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed)

        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setMinimumHeight(self.status.fontMetrics().lineSpacing() * 3 + 4)
        self.status.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.missing_label = QLabel()
        self.missing_list = QListWidget()
        self.missing_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.fix_button = QPushButton()
        self.fix_button.clicked.connect(lambda: self.add_missing_as_leaves())
        self.default_button = QPushButton("Use the default bands")
        self.default_button.setToolTip("Build the interval hierarchy a run would use, to see and edit it")
        self.default_button.clicked.connect(lambda: self.use_default_bands())
        missing_box = QWidget()
        mv = QVBoxLayout(missing_box)
        mv.setContentsMargins(0, 0, 0, 0)
        mv.addWidget(self.missing_label)
        mv.addWidget(self.missing_list, 1)
        mv.addWidget(self.fix_button)
        self.missing_box = missing_box

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(missing_box)
        split.setSizes([400, 140])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addLayout(file_row)
        layout.addLayout(edit_row)
        layout.addWidget(self.status)
        layout.addWidget(self.default_button)
        layout.addWidget(split, 1)

        self._validate_timer = QTimer(self, singleShot=True, interval=0)
        self._validate_timer.timeout.connect(self.validate)
        self.refresh()

    # -- state -------------------------------------------------------------------------------------------
    def set_state(self, state: Workspace) -> None:
        self.state = state
        self.refresh()

    def forget(self) -> None:
        """Drop every tree (other data is about to be shown): none is carried to it, none applied to it."""
        self._validate_timer.stop()
        self.tree.setModel(None)
        for model in self.models.values():
            model.deleteLater()
        self.models.clear()
        self._in_state.clear()
        self.attribute_box.blockSignals(True)
        self.attribute_box.clear()
        self.attribute_box.blockSignals(False)

    def attributes(self) -> list[str]:
        """Quasi-identifiers first, then other attributes that have a hierarchy."""
        if self.state is None:
            return []
        attrs = list(self.state.quasi_identifiers())
        attrs += [a for a in self.state.hierarchies if a not in attrs]
        return attrs

    def refresh(self) -> None:
        """Rebuild the attribute list and trees from the state (data, roles or hierarchies changed)."""
        current = self.attribute_box.currentText()
        attrs = self.attributes()
        for attr in list(self.models):
            if attr not in attrs:
                del self.models[attr]
                self._in_state.discard(attr)
        for attr in attrs:
            h = self.state.hierarchies.get(attr)
            model = self.models.get(attr)
            if model is None:
                model = self._new_model(attr)
                if h is not None:
                    self._load(model, h)
            elif h is not None and (
                model.rowCount() == 0 or (self._valid(model) and _rows_key(model.to_hierarchy()) != _rows_key(h))
            ):
                self._load(model, h)  # set from outside (a project, a job, the demo): show it
            if h is not None:
                self._in_state.add(attr)
            elif attr in self._in_state:  # removed from the state: not put back from the tree
                self._in_state.discard(attr)
                self._loading = True
                try:
                    model.set_rows(attr, [])
                finally:
                    self._loading = False
        self.attribute_box.blockSignals(True)
        self.attribute_box.clear()
        self.attribute_box.addItems(attrs)
        self.attribute_box.blockSignals(False)
        if current in attrs:
            self.attribute_box.setCurrentText(current)
        self._show_attribute(self.attribute_box.currentText())

    def reload_attribute(self, attribute: str) -> None:
        """Show the state's hierarchy of ``attribute`` again (after it was set from outside)."""
        h = self.state.hierarchies.get(attribute) if self.state else None
        model = self.models.get(attribute) or self._new_model(attribute)
        if h is not None:
            self._load(model, h)
        if self.attribute_box.currentText() == attribute:
            self.validate()

    def _new_model(self, attr: str) -> HierarchyItemModel:
        model = HierarchyItemModel(attr, self)
        model.dataChanged.connect(self._edited)
        model.rowsInserted.connect(self._edited)
        model.rowsRemoved.connect(self._edited)
        self.models[attr] = model
        return model

    def _load(self, model: HierarchyItemModel, h: Hierarchy) -> None:
        self._loading = True
        try:
            model.set_hierarchy(h)
        finally:
            self._loading = False
        self._in_state.add(model.attribute)

    @staticmethod
    def _valid(model: HierarchyItemModel) -> bool:
        try:
            model.to_hierarchy()
        except AnonStudioError:
            return False
        return True

    @property
    def attribute(self) -> str:
        return self.attribute_box.currentText()

    @property
    def model(self) -> HierarchyItemModel | None:
        return self.models.get(self.attribute)

    def select_attribute(self, attribute: str) -> None:
        self.attribute_box.setCurrentText(attribute)

    def _show_attribute(self, attr: str) -> None:
        model = self.models.get(attr)
        if self.tree.model() is not model:
            self.tree.setModel(model)
            if model is not None:
                self.tree.expandToDepth(1)
        enabled = model is not None
        self.tree.setVisible(enabled)
        for b in (self.import_button, self.build_button, self.add_button, self.rename_button, self.delete_button):
            b.setEnabled(enabled)
        self.export_button.setEnabled(enabled and attr in (self.state.hierarchies if self.state else {}))
        self.validate()

    # -- validation --------------------------------------------------------------------------------------
    def _edited(self, *args) -> None:
        if not self._loading:
            self._validate_timer.start()

    def _method_needs_hierarchies(self) -> bool:
        return self.state is None or self.state.method_needs_hierarchies()

    def validate(self) -> bool:
        """Check the shown tree; apply it to the state when valid; list missing data values."""
        attr, model = self.attribute, self.model
        if model is not None and attr not in self.attributes():
            model = None  # a tree of data no longer open (or of a column no longer a quasi-identifier): never applied
        self.missing_list.clear()
        self.default_button.setVisible(False)
        if model is None or self.state is None:
            if self.state is None or self.state.data is None:
                text = "No data loaded."
            elif self.state.kind == "fasta":
                text = "Strings (FASTA) need no hierarchies: their methods work on the letters themselves."
            else:
                text = "Set a column's role to quasi-identifying (Data pane, right-click its header) to give it a hierarchy."
            self.status.setText(text)
            self.status.setStyleSheet("")
            self.missing_box.setVisible(False)
            return False
        if model.rowCount() == 0:
            values = self.state.column_values(attr)
            if self.state.gets_default_bands(attr):  # the run's rule (the command line's)
                self.status.setText(
                    f"'{attr}' is numeric and has no hierarchy: a run uses default interval bands. "
                    "Use Build… to choose the bands, or Import… an ARX file."
                )
                self.status.setStyleSheet("")
                self._show_missing([])
                self.default_button.setVisible(True)
                return True
            if not self._method_needs_hierarchies():
                self.status.setText(f"'{attr}' has no hierarchy; {self.state.method} needs none (it publishes values, not "
                                    "generalizations). Import… or Build… one only to run a method that generalizes.")
                self.status.setStyleSheet("")
                self._show_missing([])
                return True
            self.status.setText(f"'{attr}' has no hierarchy yet: Import… or Build… one, or add the values below as leaves.")
            self.status.setStyleSheet(ERROR_STYLE)
            self._show_missing(values)
            return False
        try:
            h = model.to_hierarchy()
        except AnonStudioError as exc:
            self.status.setText(f"Not a valid hierarchy: {exc.message}")
            self.status.setStyleSheet(ERROR_STYLE)
            self._show_missing([])
            return False
        if not self._loading:
            old = self.state.hierarchies.get(attr)
            if old is None or _rows_key(old) != _rows_key(h):
                self.applying = True
                try:
                    self.state.set_hierarchy(attr, h, None)  # hand-edited: no file or builder behind it any more
                finally:
                    self.applying = False
                self._in_state.add(attr)
                self.export_button.setEnabled(True)
                self.hierarchyChanged.emit(attr)
        missing = h.missing(self.state.column_values(attr))
        self._show_missing(missing)
        if missing:
            self.status.setText(f"{counted(len(missing), 'value')} of '{attr}' in the data {is_are(len(missing))} not "
                                f"{'a leaf' if len(missing) == 1 else 'leaves'} of the tree (listed in red).")
            self.status.setStyleSheet(ERROR_STYLE)
            return False
        warnings = self.state.hierarchy_warnings(attr)
        if warnings:  # valid, but a run publishes what it warns about (ARX's age hierarchy: 20 under '15-19')
            self.status.setText(f"Covers every value of '{attr}', but: {'; '.join(warnings)}")
            self.status.setStyleSheet(ERROR_STYLE)
            return True
        self.status.setText(f"Valid: {len(h.leaves)} leaves, height {h.height}; covers every value of '{attr}'.")
        self.status.setStyleSheet(OK_STYLE)
        return True

    def _show_missing(self, missing: list[str]) -> None:
        self.missing_box.setVisible(bool(missing))
        self.missing_label.setText(f"Missing from the tree ({len(missing)}):")
        for value in missing:
            item = QListWidgetItem(value)
            item.setBackground(MISSING_BRUSH)
            item.setForeground(QBrush(QColor(150, 0, 0)))
            self.missing_list.addItem(item)
        target = self._target_node()
        where = target.text() if target is not None else "a new root"
        self.fix_button.setText(f"Add {len(missing)} as leaves under '{where}'")

    def missing_values(self) -> list[str]:
        return [self.missing_list.item(i).text() for i in range(self.missing_list.count())]

    # -- editing -----------------------------------------------------------------------------------------
    def selected_item(self) -> QStandardItem | None:
        model = self.model
        idx = self.tree.currentIndex()
        if model is None or not idx.isValid():
            return None
        return model.itemFromIndex(idx)

    def _target_node(self) -> QStandardItem | None:
        """Where "add as leaves" puts values: the selected node (its parent if it is a leaf), else the root."""
        model = self.model
        if model is None:
            return None
        item = self.selected_item()
        if item is not None and item.rowCount() == 0 and item.parent() is not None:
            item = item.parent()
        if item is None:
            roots = model.roots()
            item = roots[0] if roots else None
        return item

    def add_missing_as_leaves(self, parent: QStandardItem | None = None, values: list[str] | None = None) -> int:
        """Add missing data values (all, or ``values``) as leaves under ``parent`` (default: see
        :meth:`_target_node`); a tree without nodes gets a ``*`` root first. Returns how many were added."""
        model = self.model
        if model is None:
            return 0
        values = values if values is not None else self.missing_values()
        if model.rowCount() == 0:
            values = values or self.state.column_values(self.attribute)
            parent = model.add_child(None, "*")
        parent = parent or self._target_node()
        if not values or parent is None:
            return 0
        model.add_leaves(parent, values)
        self.tree.expand(model.index_of(parent))
        self.validate()
        return len(values)

    def use_default_bands(self) -> bool:
        """Give a numeric attribute the engine's default interval hierarchy (what a run would use)."""
        from anonstudio.core import hierarchy as hmod

        attr = self.attribute
        try:
            widths = hmod.nice_widths(self.state.column_values(attr))
            h, _note = hmod.default_numeric_hierarchy(attr, self.state.column_values(attr))
        except (AnonStudioError, AttributeError, ValueError) as exc:
            QMessageBox.critical(self, "Cannot build default bands", str(exc))
            return False
        self.set_hierarchy(attr, h, {"intervals": widths})
        return True

    def add_child(self, parent: QStandardItem | None, label: str) -> QStandardItem:
        item = self.model.add_child(parent, label)
        if parent is not None:
            self.tree.expand(self.model.index_of(parent))
        self.validate()
        return item

    def rename_item(self, item: QStandardItem, label: str) -> None:
        self.model.rename(item, label)
        self.validate()

    def delete_item(self, item: QStandardItem) -> None:
        self.model.remove(item)
        self.validate()

    def move_item(self, item: QStandardItem, new_parent: QStandardItem) -> None:
        try:
            self.model.move(item, new_parent)
        except ValueError as exc:
            QMessageBox.warning(self, "Cannot move", str(exc))
            return
        self.validate()

    def _add_clicked(self) -> None:
        label, ok = QInputDialog.getText(self, "Add node", "Label of the new node:")
        if ok and label.strip():
            self.add_child(self.selected_item(), label.strip())

    def _rename_clicked(self) -> None:
        item = self.selected_item()
        if item is not None:
            self.tree.edit(self.model.index_of(item))

    def _delete_clicked(self) -> None:
        item = self.selected_item()
        if item is not None:
            self.delete_item(item)

    # -- files and builders ------------------------------------------------------------------------------
    def set_hierarchy(self, attribute: str, h: Hierarchy, source: Any) -> None:
        """Replace ``attribute``'s hierarchy (imported or built) in the state and the tree."""
        self.applying = True
        try:
            self.state.set_hierarchy(attribute, h, source)
        finally:
            self.applying = False
        model = self.models.get(attribute) or self._new_model(attribute)
        self._load(model, h)
        if self.attribute != attribute:
            self.select_attribute(attribute)
        self._show_attribute(attribute)
        self.hierarchyChanged.emit(attribute)

    def import_file(self, path: str | Path, attribute: str | None = None) -> bool:
        """Import an ARX CSV for ``attribute`` (default: the shown one); a bad file shows a dialog and
        keeps the current tree."""
        from anonstudio.core.workspace import read_hierarchy_file

        attribute = attribute or self.attribute
        try:
            h = read_hierarchy_file(path, attribute)
        except (AnonStudioError, OSError) as exc:
            QMessageBox.critical(self, "Cannot import hierarchy", str(exc))
            return False
        if not self.fits(attribute, h, Path(path).name):
            return False
        self.set_hierarchy(attribute, h, str(Path(path).resolve()))
        return True

    def fits(self, attribute: str, h: Hierarchy, name: str) -> bool:
        """Whether ``h`` may be assigned to ``attribute``, asked when it is assigned, not at run time.

        Every value of the column is a leaf: yes. Half or more of the column's values are not (a gender
        hierarchy given to age): refused, naming the values that do not fit. Some are not: the user is asked,
        with the values listed; assigned ones show them in red with a button that adds them as leaves."""
        values = self.state.column_values(attribute) if self.state is not None else []
        missing = h.missing(values)
        if not missing:
            return True
        listed = ", ".join(f"'{v}'" for v in missing[:12]) + (f" … ({len(missing)} in all)" if len(missing) > 12 else "")
        if 2 * len(missing) >= len(values):
            QMessageBox.critical(self, "Hierarchy does not fit",
                                 f"{name} does not fit column '{attribute}': {len(missing)} of its {counted(len(values), 'value')} "
                                 f"{is_are(len(missing))} not in it ({listed}). It was not assigned; choose the hierarchy made for '{attribute}'.")
            return False
        answer = QMessageBox.question(
            self, "Hierarchy misses values",
            f"{len(missing)} of the {counted(len(values), 'value')} of column '{attribute}' {is_are(len(missing))} not in "
            f"{name}: {listed}.\n\n"
            f"Assign it anyway and add {'it' if len(missing) == 1 else 'them'} to the tree (listed in red until then)?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def export_file(self, path: str | Path) -> bool:
        from anonstudio.core.workspace import write_hierarchy_file

        h = self.state.hierarchies.get(self.attribute) if self.state else None
        if h is None:
            return False
        try:
            write_hierarchy_file(h, path)
        except (AnonStudioError, OSError) as exc:
            QMessageBox.critical(self, "Cannot export hierarchy", str(exc))
            return False
        return True

    def import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, f"Import hierarchy for '{self.attribute}'", "",
                                              formats.dialog_filter("hierarchy"))
        if path:
            self.import_file(path)

    def export_dialog(self) -> None:
        start = f"{self.attribute}{formats.get('arx-hierarchy').suffix}"
        path, _ = QFileDialog.getSaveFileName(self, f"Export hierarchy of '{self.attribute}'", start,
                                              formats.dialog_filter("hierarchy", all_files=False))
        if path:
            self.export_file(path)

    def make_builder(self) -> BuilderDialog:
        return BuilderDialog(self.attribute, self.state.column_values(self.attribute), self)

    def build_dialog(self) -> None:
        dialog = self.make_builder()
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.hierarchy is not None:
            self.set_hierarchy(self.attribute, dialog.hierarchy, dialog.spec)


if __name__ == "__main__":  # runnable preview
    import sys

    import pandas as pd
    from PySide6.QtWidgets import QApplication

    from anonstudio.core.data import Table

    app = QApplication(sys.argv)
    frame = pd.DataFrame({"education": ["Bachelors", "Masters", "HS-grad", "11th", "9th", "Doctorate"]})
    state = Workspace()
    state.set_data(Table(frame), "preview.csv")
    state.set_role("education", "quasi-identifying")
    state.set_hierarchy("education", Hierarchy("education", [["Bachelors", "Higher", "*"], ["HS-grad", "School", "*"], ["11th", "School", "*"]]))
    editor = HierarchyEditor()
    editor.set_state(state)
    editor.resize(420, 560)
    editor.show()
    sys.exit(app.exec())
