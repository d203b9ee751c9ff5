"""The attributes panel (issue 15 item 3, after ARX's attribute settings): one row per column.

Each row: the column, its role (a combo box: identifying / identifying — the person (tables: the column naming
each record's person, so that every class holds k people) / quasi-identifying / sensitive / insensitive), its
detected type, how many distinct values and missing cells it has, its hierarchy (a file, a builder, edited by
hand, default bands at run time, or none) and warnings in words ("looks like an identifier: every value is
distinct", values missing from the hierarchy, a quasi-identifier without a hierarchy). Roles set here and in the
data pane's header menu are the same state (:class:`~anonstudio.core.workspace.Workspace`); double-clicking a
row's hierarchy opens it in the hierarchy editor (``editHierarchy``).

Distinct and missing counts are computed once per loaded data set (:meth:`Workspace.column_profile`), not
on every role click.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QMenu, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from anonstudio.core.data import EventLog, Role, Table
from anonstudio.gui.panes._common import StateBinding
from anonstudio.core.workspace import Workspace
from anonstudio.core.views.workbench_words import counted

#: the roles a user can choose, in the combo box's order, with the words shown
ROLES = [
    (Role.IDENTIFYING, "identifying"),
    (Role.QUASI, "quasi-identifier"),
    (Role.SENSITIVE, "sensitive"),
    (Role.INSENSITIVE, "insensitive"),
]
#: the role box's choice that marks an identifying column as the person each record is of (tables only; saved in
#: projects and jobs as ``person``): every privacy model then counts distinct people per class
PERSON = ("person", "identifying — the person")
#: what the role box shows while a column still needs a role
NO_ROLE = "— choose a role —"
#: short columns first, so that at 1280 × 720 Type, Distinct and Missing are never cut off; Warnings last, stretched
HEADERS = ["Column", "Role", "Type", "Distinct", "Missing", "Hierarchy", "Warnings"]
COL_ROLE, COL_HIERARCHY, COL_WARNINGS = 1, 5, 6
#: the widest the Hierarchy column starts (a long file name is elided; its tooltip and the editor show it all)
HIERARCHY_WIDTH = 130
WARN_BRUSH = QBrush(QColor(176, 0, 32))


def hierarchy_text(state: Workspace, column: str) -> str:
    """Where ``column``'s hierarchy comes from, in words."""
    if column in state.hierarchies:
        source = state.hierarchy_sources.get(column)
        if isinstance(source, dict):
            kind = next(iter(source), "builder")
            return f"built ({kind})"
        if source:
            return Path(str(source)).name
        return "edited by hand"
    if column not in state.quasi_identifiers():
        return "—"
    if state.gets_default_bands(column):  # the run's rule (the command line's): a numeric column
        return "default bands at run time"
    return "none"


def warnings_of(state: Workspace, column: str) -> list[str]:
    """What a user should look at before a run, for ``column``."""
    profile = state.column_profile(column)
    role = state.role(column)
    out: list[str] = []
    if column in state.unroled_columns():
        out.append("needs a role: Run asks, and a column left without one becomes quasi-identifying")
    if column in state.proposed:
        out.append(f"proposed identifying (dropped from the output): {state.proposed[column]}")
    n = state.n_rows()
    if n > 1 and profile["distinct"] == n - profile["missing"] and role not in (Role.IDENTIFYING,) \
            and not (isinstance(state.data, EventLog) and column in (state.data.sequence_id, state.data.event_order)):
        out.append("looks like an identifier: every value is distinct")
    if profile["missing"]:
        out.append(f"{profile['missing']:,} missing cell(s)")
    if role is Role.QUASI:
        h = state.hierarchies.get(column)
        if h is not None:
            missing = state.missing_values(column)
            if missing:
                out.append(f"{counted(len(missing), 'value')} not in its hierarchy")
        elif not state.gets_default_bands(column) and state.method_needs_hierarchies():
            out.append("needs a hierarchy (Import… or Build… in Hierarchies)")
    # what a run warns about this column's hierarchy (an interval label that does not hold its values, a
    # hierarchy for a column that is not a quasi-identifier): the command line's words
    out.extend(state.hierarchy_warnings(column))
    return out


class AttributesPane(QWidget):
    """One row per column: role, type, distinct values, missing cells, hierarchy, warnings.

    Signals
    -------
    editHierarchy(str):
        The user double-clicked a quasi-identifier's hierarchy: open it in the hierarchy editor.
    """

    editHierarchy = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state: Workspace | None = None
        self._shown = None  # the data whose rows are shown
        self._rows: list = []  # what the rows show (refresh skips a rebuild that would change nothing)
        self._binding = StateBinding(self, self._on_state)
        self.note = QLabel("Open a table or an event log to set its columns' roles here.")
        self.note.setWordWrap(True)
        self.note.setToolTip("Select several rows (Shift/Ctrl+click, Ctrl+A) to give them one role at once, or "
                             "right-click them")
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setObjectName("attributesTable")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        # many columns at once (issue 40 item 4): select rows (Shift/Ctrl+click, Ctrl+A), then one role for all —
        # the box above the table, or the right-click menu
        self.table.setSelectionMode(QTableWidget.SelectionMode.ExtendedSelection)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        header.setSectionResizeMode(COL_HIERARCHY, QHeaderView.ResizeMode.Interactive)  # long file names elided
        header.resizeSection(COL_HIERARCHY, HIERARCHY_WIDTH)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.cellDoubleClicked.connect(self._double_clicked)
        for i, tip in enumerate([
            "The column's name in the file",
            "Identifying columns are dropped; quasi-identifiers are generalized; sensitive values are protected "
            "by l-diversity or (k,c); insensitive columns are published unchanged",
            "Detected from the values: numeric columns get interval hierarchies by default",
            "How many different values the column holds",
            "Empty cells and missing-value markers ('?', 'NA' …)",
            "Where the hierarchy comes from; double-click to edit it",
            "What to look at before a run",
        ]):
            self.table.horizontalHeaderItem(i).setToolTip(tip)
        self.bulk_role = QComboBox()
        self.bulk_role.setObjectName("bulkRole")
        for role, label in ROLES:
            self.bulk_role.addItem(label, role.value)
        self.bulk_button = QPushButton("Set for the selected")
        self.bulk_button.setObjectName("bulkRoleButton")
        self.bulk_button.setToolTip("Give every selected column (select rows with Shift/Ctrl+click, or Ctrl+A) the "
                                    "role chosen on the left")
        self.bulk_button.clicked.connect(lambda: self.set_roles(self.selected_columns(), self.bulk_role.currentData()))
        # shown in the note's place while two or more rows are selected (the table keeps its height)
        self.bulk = QWidget()
        bulk = QHBoxLayout(self.bulk)
        bulk.setContentsMargins(0, 0, 0, 0)
        self.bulk_label = QLabel("Role of the selected columns:")
        bulk.addWidget(self.bulk_label)
        bulk.addWidget(self.bulk_role)
        bulk.addWidget(self.bulk_button)
        bulk.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.note)
        layout.addWidget(self.bulk)
        layout.addWidget(self.table, 1)
        self._selection_changed()

    def set_state(self, state: Workspace) -> None:
        self.state = state
        self._binding.bind(state)
        self.refresh()

    def _on_state(self, what: str) -> None:
        if what in ("data", "roles", "hierarchies", "method"):
            self.refresh()

    # -- contents ------------------------------------------------------------------------------------------
    def columns(self) -> list[str]:
        return [self.table.item(r, 0).text() for r in range(self.table.rowCount()) if self.table.item(r, 0)]

    def row_of(self, column: str) -> int:
        return self.columns().index(column)

    def role_box(self, column: str) -> QComboBox:
        return self.table.cellWidget(self.row_of(column), COL_ROLE)

    def cell(self, column: str, header: str) -> str:
        return self.table.item(self.row_of(column), HEADERS.index(header)).text()

    def refresh(self) -> None:
        """Rebuild the rows from the state (data, roles, hierarchies or method changed)."""
        state = self.state
        data = state.data if state is not None else None
        columns = state.columns() if isinstance(data, (Table, EventLog)) else []
        rebuild = data is not self._shown or columns != self.columns()
        if rebuild:  # new data: new role boxes (a role change only updates them, so a box is never deleted
            for r in range(self.table.rowCount()):  # while its own signal runs)
                self.table.removeCellWidget(r, COL_ROLE)
            self.table.setRowCount(len(columns))
            self._shown = data
        if data is None:
            self.note.setText("Open a table or an event log to set its columns' roles here.")
        elif not columns:
            self.note.setText("Sequences (FASTA) have no columns: their methods work on the letters themselves.")
        else:
            self.note.setText(f"{len(columns)} columns. Set each column's role; double-click a hierarchy to edit it.")
        rows = []
        for column in columns:
            profile = state.column_profile(column)
            attr_type = state.attr_type(column)
            type_text = attr_type.value if attr_type is not None else ("numeric" if profile["numeric"] else "text")
            warnings = warnings_of(state, column)
            cells = [column, "", type_text, f"{profile['distinct']:,}", f"{profile['missing']:,}",
                     hierarchy_text(state, column), "; ".join(warnings)]
            rows.append((column, cells, warnings, self._role_value(column)))
        if not rebuild and rows == self._rows:
            return  # nothing on screen would change (a project read notifies data, roles, hierarchies, method)
        self._rows = rows
        for r, (column, cells, warnings, _role) in enumerate(rows):
            for c, text in enumerate(cells):
                if c == COL_ROLE:
                    continue
                item = QTableWidgetItem(text)
                if c == COL_WARNINGS and warnings:
                    item.setForeground(WARN_BRUSH)
                    item.setToolTip("\n".join(warnings))
                if c == COL_HIERARCHY:
                    item.setToolTip(f"{text}\n" if text not in ("—", "none") else "")
                    item.setToolTip(item.toolTip() + ("Double-click to edit this hierarchy" if state.role(column) is Role.QUASI
                                    else "Only quasi-identifiers are generalized, so only they need a hierarchy"))
                self.table.setItem(r, c, item)
            if rebuild:
                self.table.setCellWidget(r, COL_ROLE, self._role_combo(column))

            else:
                box = self.table.cellWidget(r, COL_ROLE)
                box.blockSignals(True)
                box.setCurrentIndex(max(0, box.findData(self._role_value(column))))
                box.blockSignals(False)

    def _role_combo(self, column: str) -> QComboBox:
        state = self.state
        box = QComboBox()
        box.setObjectName(f"role:{column}")
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        events = isinstance(state.data, EventLog)
        box.addItem(NO_ROLE, "")  # a column just opened has no role until the user chooses one
        for role, label in ROLES:
            if events and role is Role.IDENTIFYING:
                continue
            box.addItem(label, role.value)
            if role is Role.IDENTIFYING and isinstance(state.data, Table):
                box.addItem(PERSON[1], PERSON[0])
                box.setItemData(box.count() - 1, "This column names the person each record is of (several records "
                                "per person: visits, prescriptions, claims). It is dropped like an identifying column, "
                                "and every class must then hold k distinct people, not k records",
                                Qt.ItemDataRole.ToolTipRole)
        fixed = events and column in (state.data.sequence_id, state.data.event_order)
        if fixed:
            box.clear()
            box.addItem("sequence id" if column == state.data.sequence_id else "event order", "")
            box.setEnabled(False)
            box.setToolTip("This column identifies sequences or orders their events; its role is fixed")
        else:
            box.setCurrentIndex(max(0, box.findData(self._role_value(column))))
            box.currentIndexChanged.connect(lambda _i, c=column, b=box: self._role_chosen(c, b.currentData()))
        return box

    # -- many columns at once -----------------------------------------------------------------------------
    def selected_columns(self) -> list[str]:
        """The columns of the selected rows, in table order."""
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.table.item(r, 0).text() for r in rows if self.table.item(r, 0) is not None]

    def _selection_changed(self) -> None:
        n = len(self.selected_columns())
        self.bulk_button.setEnabled(n > 0)
        self.bulk_button.setText(f"Set for the {n} selected" if n > 1 else "Set for the selected")
        self.bulk.setVisible(n > 1)
        self.note.setVisible(n <= 1)

    def _settable(self, column: str, role: str) -> bool:
        data = self.state.data if self.state is not None else None
        if isinstance(data, EventLog):
            return column not in (data.sequence_id, data.event_order) and role != Role.IDENTIFYING.value
        return True

    def set_roles(self, columns: list[str], role: str) -> list[str]:
        """Give each of ``columns`` the role ``role`` (one choice for many: 17 columns, one click). An event log's
        sequence id and event order keep theirs; returns the columns changed."""
        if self.state is None or not role:
            return []
        changed = []
        for column in columns:
            if self._settable(column, role) and (self.state.role(column).value != role
                                                 or column in self.state.unroled_columns()):
                self.state.set_role(column, role)
                changed.append(column)
        return changed

    def _context_menu(self, pos) -> None:
        menu = self.role_menu()
        if menu.actions():
            menu.exec(self.table.viewport().mapToGlobal(pos))

    def role_menu(self) -> QMenu:
        """The right-click menu: one role for every selected column."""
        menu = QMenu(self)
        columns = self.selected_columns()
        if not columns:
            return menu
        what = f"the {len(columns)} selected columns" if len(columns) > 1 else f"'{columns[0]}'"
        menu.addSection(f"Role of {what}")
        for role, label in ROLES:
            action = menu.addAction(label)
            action.setData(role.value)
            action.setEnabled(any(self._settable(c, role.value) for c in columns))
            action.triggered.connect(lambda _=False, v=role.value, cs=columns: self.set_roles(cs, v))
        return menu

    def _role_value(self, column: str) -> str:
        """The role box's value for ``column``: ``""`` while it still needs a role, else its role."""
        if column in self.state.unroled_columns():
            return ""
        if self.state.person() == column:
            return PERSON[0]
        return self.state.role(column).value

    def _role_chosen(self, column: str, value: str) -> None:
        if self.state is None or not value:
            return
        if value == PERSON[0]:
            if self.state.person() != column:
                from anonstudio.core.errors import AnonStudioError

                try:
                    self.state.set_person(column)
                except AnonStudioError as exc:  # a record without an id: said, and the box shows the role again
                    from PySide6.QtWidgets import QMessageBox

                    QMessageBox.warning(self, "Person column", str(exc))
                    self._rows = []  # the box shows the state again
                    self.refresh()
            return
        if self.state.person() == column or self.state.role(column).value != value \
                or column in self.state.unroled_columns():
            self.state.set_role(column, value)

    def _double_clicked(self, row: int, col: int) -> None:
        column = self.table.item(row, 0).text()
        if col == COL_HIERARCHY and self.state is not None and self.state.role(column) is Role.QUASI:
            self.editHierarchy.emit(column)
