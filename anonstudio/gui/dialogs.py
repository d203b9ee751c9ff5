"""Dialogs of the workbench window: choosing an event file's columns, and setting up a parameter sweep."""

from __future__ import annotations

import re

from PySide6.QtWidgets import (
    QComboBox,
    QMessageBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from anonstudio.core.errors import AnonStudioError, ParameterError
from anonstudio.core.params import TITLES, label_of


#: what a user can cause and fix (a bad file, a folder that cannot be written): one dialog, not a crash
USER_ERRORS = (AnonStudioError, OSError, ValueError)
#: "failed", as returned by the main window's ``attempt`` (a call may return None when it succeeds)
FAILED = object()


#: job-file keys as the workbench shows them
SCREEN_KEYS = {
    "input.quasi_identifiers": "the quasi-identifiers (Attributes pane, Role column)",
    "input.sensitive": "the sensitive attribute (Attributes pane, Role column)",
    "input.identifying": "the identifying columns (Attributes pane, Role column)",
    "input.sequence_id": "the sequence id column",
    "input.event_order": "the event order column",
    "input.path": "the data file",
    "output.path": "the output file",
    "output.max_suppression": "the suppression limit",
}


def in_screen_words(text: str) -> str:
    """An engine message as the workbench speaks: job-file keys become what the user sees on screen and
    ``parameter 'k' must …`` becomes ``k — smallest group size: must …``; a fix named as a job key names the
    control that applies it (:func:`anonstudio.core.views.workbench_words.in_workbench_words`)."""
    from anonstudio.core.views.workbench_words import in_workbench_words

    text = in_workbench_words(text)
    for key, words in SCREEN_KEYS.items():
        text = text.replace(f"'{key}'", words).replace(key, words)
    text = re.sub(r"(?:(?:parameter|column) )?'([a-z_]+)' (?=must|is |has|needs|cannot)",
                  lambda m: f"{label_of(m.group(1))}: " if m.group(1) in TITLES or m.group(0).startswith("parameter")
                  else m.group(0), text)
    return re.sub(r"'algorithm\.([a-z_]+)'|algorithm\.([a-z_]+)", lambda m: label_of(m.group(1) or m.group(2)), text)


def error_text(exc: BaseException) -> str:
    """The dialog text of an error: which file, line or record, and what is wrong, in the words on screen (a
    parameter by its label, never a job-file key)."""
    if isinstance(exc, AnonStudioError):
        key = (exc.key or "").removeprefix("algorithm.")
        param = key if key in TITLES else (exc.column if isinstance(exc, ParameterError) and exc.column in TITLES
                                           else None)
        # where, without the job-file key; a parameter's column is named by its label instead
        where = exc.location(column=exc.column != param, key=False)
        message = in_screen_words(exc.message)
        if param is not None and not message.startswith(label_of(param)):
            message = f"{label_of(param)}: {message}"
        return f"{where}: {message}" if where else message
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def unexpected_error_box(parent: QWidget | None, title: str, exc: BaseException, context: str = "") -> QMessageBox:
    """An exception that is a bug of anonstudio (``core.error_log.is_unexpected``), as a user should meet it: one
    sentence saying what happened and that it is not their fault, the log file it was written to, and the
    traceback behind a "Show Details…" disclosure — never the raw exception as the message. Logged first
    (:func:`anonstudio.core.error_log.log_unexpected`); the box is opened window-modal and returned."""
    from anonstudio.core.error_log import details_of, error_log_path, log_unexpected

    logged = log_unexpected(exc, context or title)
    box = QMessageBox(QMessageBox.Icon.Critical, title,
                      "Something went wrong inside anonstudio — not in your data or settings. Nothing was written or "
                      "published; what is open stays as it was. You can try again.", QMessageBox.StandardButton.Ok,
                      parent)
    box.setObjectName("unexpectedError")
    box.setInformativeText(f"The details were written to {logged} (Help ▸ About names this file); please send them "
                           "with a bug report." if logged is not None else
                           f"The details could not be written to {error_log_path()}: see Show Details.")
    box.setDetailedText(details_of(exc))
    box.open()
    return box


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
