"""Dialogs of the workbench window: choosing an event file's columns, and setting up a parameter sweep."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from anonstudio.core.errors import AnonStudioError


#: what a user can cause and fix (a bad file, a folder that cannot be written): one dialog, not a crash
USER_ERRORS = (AnonStudioError, OSError, ValueError)
#: "failed", as returned by the main window's ``attempt`` (a call may return None when it succeeds)
FAILED = object()


def error_text(exc: BaseException) -> str:
    """The dialog text of an error: an AnonStudioError already names file, line and column."""
    if isinstance(exc, AnonStudioError):
        return str(exc)
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


class EventColumnsDialog(QDialog):
    """Ask which columns identify a sequence and order its events."""

    def __init__(self, columns: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Event sequences")
        self.sequence_id = QComboBox()
        self.event_order = QComboBox()
        self.sequence_id.addItems(columns)
        self.event_order.addItems(columns)
        lowered = [c.lower() for c in columns]
        for box, hints in ((self.sequence_id, ("pid", "patient", "id", "sequence")), (self.event_order, ("vid", "visit", "order", "time", "date"))):
            for hint in hints:
                match = next((i for i, c in enumerate(lowered) if hint in c), None)
                if match is not None:
                    box.setCurrentIndex(match)
                    break
        form = QFormLayout(self)
        form.addRow("Sequence id column", self.sequence_id)
        form.addRow("Event order column", self.event_order)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class SweepDialog(QDialog):
    """Choose a numeric parameter and its values; shows the sweep's points as they arrive."""

    def __init__(self, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run sweep")
        self.parameter = QComboBox()
        self.parameter.addItems(names)
        self.values = QLineEdit("2, 5, 10, 20, 50")
        self.table = QTableWidget(0, 0)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Close)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start")
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Parameter", self.parameter)
        form.addRow("Values", self.values)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.rows: list[dict] = []
        self.resize(560, 380)

    def points(self) -> list[dict]:
        from anonstudio.gui.panes.hierarchy_editor import parse_numbers

        return [{self.parameter.currentText(): v} for v in parse_numbers(self.values.text())]

    def add_point(self, row: dict) -> None:
        self.rows.append(row)
        keys: list[str] = []
        for r in self.rows:
            keys += [k for k in r if k not in keys]
        self.table.setColumnCount(len(keys))
        self.table.setHorizontalHeaderLabels(keys)
        self.table.setRowCount(len(self.rows))
        for i, r in enumerate(self.rows):
            for j, k in enumerate(keys):
                v = r.get(k, "")
                self.table.setItem(i, j, QTableWidgetItem(f"{v:.4g}" if isinstance(v, float) else str(v)))
