"""The data pane: the loaded table, FASTA records or event sequences.

Tables: a virtual view (a million rows scroll smoothly); right-click a column header to set the column's
role (identifying / quasi-identifying / sensitive / insensitive) and type. FASTA: the records with their
lengths and a sequence viewer that wraps and colours residues. Events: the sequences, the events of the
selected one, and an overview (events per sequence, a column's value distribution) before any run.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QMenu,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from anonstudio.core.data import AttrType, EventLog, Role, SequenceSet, Table
from anonstudio.gui.models import EventsModel, FrameModel, SequenceListModel, SequenceRecordsModel
from anonstudio.gui.panes._common import size_text
from anonstudio.gui.panes._events_overview import EventsOverview
from anonstudio.core.workspace import Workspace

#: residue colours (Clustal-like groups); anything else is drawn in grey
RESIDUE_COLOURS = {
    **dict.fromkeys("AVLIMFWC", "#1f5fbf"),  # hydrophobic
    **dict.fromkeys("KR", "#c0392b"),  # positive
    **dict.fromkeys("DE", "#8e44ad"),  # negative
    **dict.fromkeys("NQST", "#1e8449"),  # polar
    "G": "#d35400",
    "P": "#b7950b",
    **dict.fromkeys("HY", "#117a8b"),
}
DNA_COLOURS = {"A": "#1e8449", "C": "#1f5fbf", "G": "#b7950b", "T": "#c0392b", "U": "#c0392b"}

ROLE_LABELS = [
    (Role.IDENTIFYING, "Identifying (dropped from output)"),
    (Role.QUASI, "Quasi-identifying"),
    (Role.SENSITIVE, "Sensitive"),
    (Role.INSENSITIVE, "Insensitive"),
]
TYPE_LABELS = [(AttrType.CATEGORICAL, "Categorical"), (AttrType.ORDINAL, "Ordinal"), (AttrType.NUMERIC, "Numeric")]


def coloured_sequence_html(text: str, *, dna: bool = False) -> str:
    """HTML of a sequence with each residue in its group's colour (monospace, wraps in the viewer)."""
    colours = DNA_COLOURS if dna else RESIDUE_COLOURS
    out: list[str] = []
    run_colour = None
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(f'<span style="color:{run_colour or "#777777"}">{html.escape("".join(run))}</span>')

    for ch in text:
        colour = colours.get(ch.upper())
        if colour != run_colour:
            flush()
            run, run_colour = [], colour
        run.append(ch)
    flush()
    return '<div style="font-family:monospace; font-size:11pt">' + "".join(out) + "</div>"


class SequenceViewer(QTextEdit):
    """Read-only, wrapping, residue-coloured view of one sequence."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(self.wordWrapMode().WrapAnywhere)
        self.setPlaceholderText("Select a record to see its sequence")
        self.sequence = ""

    def show_sequence(self, header: str, text: str, *, dna: bool = False) -> None:
        self.sequence = text
        self.setHtml(f"<b>&gt;{html.escape(header)}</b> <i>({len(text)} residues)</i><br>" + coloured_sequence_html(text, dna=dna))


class DataPane(QWidget):
    """Shows the workbench state's data; role and type changes go to the state.

    Signals
    -------
    roleChanged(str, str):
        A column's role was set from the header menu (column, role value).
    """

    roleChanged = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state: Workspace | None = None
        self.summary = QLabel("No data. Use File ▸ Open data… (Ctrl+O) to open a table, event sequences or FASTA.")
        self.summary.setWordWrap(True)
        self.stack = QStackedWidget()

        # empty
        self.empty = QLabel("Open a data file to begin.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.empty)

        # tables
        self.table_model = FrameModel(role_of=self._role_of, type_of=self._type_of, all_distinct=self._all_distinct)
        self.table_view = self._make_view(self.table_model)
        # cells, rows or whole columns: Ctrl/Shift+click on headers selects columns for one role at once
        self.table_view.setSelectionBehavior(QTableView.SelectionBehavior.SelectItems)
        self.table_view.setSelectionMode(QTableView.SelectionMode.ExtendedSelection)
        header = self.table_view.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        self.stack.addWidget(self.table_view)

        # FASTA
        self.records_model = SequenceRecordsModel()
        self.records_view = self._make_view(self.records_model)
        self.records_view.selectionModel().currentRowChanged.connect(self._show_record)
        self.viewer = SequenceViewer()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.records_view)
        split.addWidget(self.viewer)
        split.setSizes([300, 200])
        self.fasta_widget = split
        self.stack.addWidget(split)

        # events
        self.sequences_model = SequenceListModel()
        self.sequences_view = self._make_view(self.sequences_model)
        self.sequences_view.selectionModel().currentRowChanged.connect(self._show_events)
        self.events_model = EventsModel(role_of=self._role_of, all_distinct=self._all_distinct)
        self.events_view = self._make_view(self.events_model)
        self.events_view.horizontalHeader().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.events_view.horizontalHeader().customContextMenuRequested.connect(self._header_menu_events)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.sequences_view)
        split.addWidget(self.events_view)
        split.setSizes([200, 500])
        self.events_overview = EventsOverview()
        outer = QSplitter(Qt.Orientation.Vertical)
        outer.addWidget(split)
        outer.addWidget(self.events_overview)
        outer.setSizes([320, 220])
        self.events_widget = outer
        self.stack.addWidget(outer)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.summary)
        layout.addWidget(self.stack, 1)

    @staticmethod
    def _make_view(model) -> QTableView:
        view = QTableView()
        view.setModel(model)
        view.setAlternatingRowColors(True)
        view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        view.setWordWrap(False)
        view.verticalHeader().setDefaultSectionSize(22)
        view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no per-row measuring
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        view.horizontalHeader().setDefaultSectionSize(110)
        view.horizontalHeader().setStretchLastSection(True)
        return view

    # -- state -------------------------------------------------------------------------------------------
    def set_state(self, state: Workspace) -> None:
        self.state = state
        self.refresh()

    def refresh(self) -> None:
        """Show the state's data (after it was replaced)."""
        d = self.state.data if self.state is not None else None
        self.summary.setText(
            f"{self.state.data_path.name if self.state and self.state.data_path else 'data'}: {size_text(self.state)}"
            if d is not None
            else "No data. Use File ▸ Open data… (Ctrl+O) to open a table, event sequences or FASTA."
        )
        if isinstance(d, Table):
            self.table_model.set_frame(d.df)
            self.stack.setCurrentWidget(self.table_view)
        elif isinstance(d, SequenceSet):
            self.records_model.set_sequences(d)
            self.stack.setCurrentWidget(self.fasta_widget)
            if len(d):
                self.records_view.selectRow(0)
        elif isinstance(d, EventLog):
            self.sequences_model.set_log(d)
            self.events_overview.set_log(d)
            self.stack.setCurrentWidget(self.events_widget)
            if len(d):
                self.sequences_view.selectRow(0)
        else:
            self.table_model.set_frame(None)
            self.records_model.set_sequences(None)
            self.sequences_model.set_log(None)
            self.events_model.set_frame(None)
            self.events_overview.set_log(None)
            self.stack.setCurrentWidget(self.empty)

    def roles_changed(self) -> None:
        self.table_model.roles_changed()
        self.events_model.roles_changed()
        if isinstance(self.state.data if self.state is not None else None, EventLog):
            self.events_overview.roles_changed()

    def _role_of(self, column: str) -> Role:
        return self.state.role(column) if self.state is not None else Role.INSENSITIVE

    def _all_distinct(self, column: str) -> bool:
        return bool(self.state is not None and column in self.state.columns()
                    and self.state.column_profile(column)["all_distinct"])

    def _type_of(self, column: str):
        return self.state.attr_type(column) if self.state is not None else None

    # -- header menu -------------------------------------------------------------------------------------
    def column_menu(self, column: str) -> QMenu:
        """The role/type menu of ``column`` (what right-clicking its header opens)."""
        menu = QMenu(self)
        menu.setObjectName(f"columnMenu:{column}")
        title = menu.addAction(f"Column '{column}'")
        title.setEnabled(False)
        current = self._role_of(column)
        group = QActionGroup(menu)
        fixed = isinstance(self.state.data, EventLog) and column in (self.state.data.sequence_id, self.state.data.event_order)
        for role, label in ROLE_LABELS:
            if isinstance(self.state.data, EventLog) and role is Role.IDENTIFYING:
                continue
            act = QAction(label, menu, checkable=True)
            act.setChecked(role is current)
            act.setData(("role", role.value))
            act.setEnabled(not fixed)
            act.triggered.connect(lambda _=False, c=column, r=role: self.set_role(c, r))
            group.addAction(act)
            menu.addAction(act)
        if isinstance(self.state.data, Table):
            menu.addSeparator()
            tmenu = menu.addMenu("Type")
            tgroup = QActionGroup(tmenu)
            for attr_type, label in TYPE_LABELS:
                act = QAction(label, tmenu, checkable=True)
                act.setChecked(self.state.attr_type(column) is attr_type)
                act.setData(("type", attr_type.value))
                act.triggered.connect(lambda _=False, c=column, t=attr_type: self.set_type(c, t))
                tgroup.addAction(act)
                tmenu.addAction(act)
        return menu

    def columns_menu(self, columns: list[str]) -> QMenu:
        """One role for many columns (issue 40 item 4): what right-clicking one of several selected headers opens
        (Ctrl/Shift+click the headers to select them)."""
        menu = QMenu(self)
        menu.setObjectName("columnsMenu")
        title = menu.addAction(f"{len(columns)} selected columns")
        title.setEnabled(False)
        for role, label in ROLE_LABELS:
            if isinstance(self.state.data, EventLog) and role is Role.IDENTIFYING:
                continue
            act = QAction(label, menu)
            act.setData(("role", role.value))
            act.triggered.connect(lambda _=False, cs=list(columns), r=role: self.set_roles(cs, r))
            menu.addAction(act)
        return menu

    def set_roles(self, columns: list[str], role: Role) -> None:
        """Give every column of ``columns`` the role (an event log's sequence id and event order keep theirs)."""
        data = self.state.data
        for column in columns:
            if isinstance(data, EventLog) and column in (data.sequence_id, data.event_order):
                continue
            self.set_role(column, role)

    def selected_columns(self) -> list[str]:
        """The columns whose headers are selected (whole columns), in table order."""
        model = self.table_view.selectionModel()
        if model is None:
            return []
        return [self.table_model.column_name(i.column()) for i in sorted(model.selectedColumns(), key=lambda i: i.column())]

    def _header_menu(self, pos: QPoint) -> None:
        col = self.table_view.horizontalHeader().logicalIndexAt(pos)
        if col < 0 or self.state is None:
            return
        column = self.table_model.column_name(col)
        selected = self.selected_columns()
        menu = self.columns_menu(selected) if column in selected and len(selected) > 1 else self.column_menu(column)
        menu.exec(self.table_view.horizontalHeader().mapToGlobal(pos))

    def _header_menu_events(self, pos: QPoint) -> None:
        col = self.events_view.horizontalHeader().logicalIndexAt(pos)
        if col < 0 or self.state is None:
            return
        menu = self.column_menu(self.events_model.column_name(col))
        menu.exec(self.events_view.horizontalHeader().mapToGlobal(pos))

    def set_role(self, column: str, role: Role) -> None:
        self.state.set_role(column, role)
        self.roles_changed()
        self.roleChanged.emit(column, Role(role).value)

    def set_type(self, column: str, attr_type: AttrType) -> None:
        self.state.set_type(column, attr_type)
        self.roles_changed()

    # -- FASTA / events ----------------------------------------------------------------------------------
    def _show_record(self, current, _previous=None) -> None:
        seqs = self.records_model.sequences
        if seqs is None or not current.isValid():
            self.viewer.clear()
            return
        i = current.row()
        dna = set(seqs.alphabet.symbols) <= set("ACGTUN")
        self.viewer.show_sequence(seqs.headers[i], seqs.sequence(i), dna=dna)

    def _show_events(self, current, _previous=None) -> None:
        log = self.state.data if self.state is not None else None
        if not isinstance(log, EventLog) or not current.isValid():
            self.events_model.set_frame(None)
            return
        self.events_model.show_sequence(log, self.sequences_model.event_rows(current.row()))


if __name__ == "__main__":  # runnable preview
    import sys

    import numpy as np
    import pandas as pd
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv)
    rng = np.random.default_rng(0)
    n = 1_000_000
    df = pd.DataFrame({"age": rng.integers(17, 90, n).astype(str), "sex": rng.choice(["Male", "Female"], n)})
    state = Workspace()
    state.set_data(Table(df), "preview.csv")
    pane = DataPane()
    pane.set_state(state)
    pane.resize(700, 500)
    pane.show()
    sys.exit(app.exec())
