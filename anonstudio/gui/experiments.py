"""The papers' experiments in the workbench: the same :data:`anonstudio.core.experiments.EXPERIMENTS` commands
that ``anonstudio experiment NAME --out DIR`` runs, with a form for their parameters, a background run with
progress and cancel, and the figures and table they wrote shown side by side.

The experiment writes its CSV and PNG files into the chosen folder (atomically, as on the command line); the
window then shows each PNG in a tab and the first CSV as a table. A bad parameter or input file gets one
dialog naming it; a cancelled experiment writes nothing new.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, Qt, Signal, Slot
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from anonstudio.core.errors import AnonStudioError
from anonstudio.gui.dialogs import error_text
from anonstudio.gui.panes.parameters import ParamForm
from anonstudio.gui.workers import RunWorker, TaskRunner

#: rows of a result CSV shown in the table tab (the file itself holds all of them)
MAX_TABLE_ROWS = 2000


class FigureView(QLabel):
    """A saved figure, shrunk to fit the tab (aspect kept, never enlarged beyond the file's pixels)."""

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"figure:{path.name}")
        self.original = QPixmap(str(path))
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.setMinimumSize(120, 90)
        self.setToolTip(str(path))
        self._fit()

    def _fit(self) -> None:
        if self.original.isNull():
            self.setText("(the figure could not be read)")
            return
        size = self.original.size().boundedTo(self.size()) if self.width() > 1 else self.original.size()
        self.setPixmap(self.original.scaled(size, Qt.AspectRatioMode.KeepAspectRatio,
                                            Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit()


def default_output_folder(name: str) -> Path:
    """``<Documents>/anonstudio/experiments/<name>`` (the home folder when there is no Documents folder)."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or str(Path.home())
    return Path(docs) / "anonstudio" / "experiments" / name


class ExperimentsWindow(QDialog):
    """Choose a paper's experiment, set its parameters and an output folder, run it, look at what it wrote.

    Signals
    -------
    experimentFinished(object):
        The list of paths written, the exception that stopped the run, or ``None`` when it was cancelled.
        Emitted on the GUI thread after the window shows the outcome (tests wait on it).
    """

    experimentFinished = Signal(object)

    def __init__(self, parent: QWidget | None = None, *, fasta: str | Path | None = None) -> None:
        super().__init__(parent)
        from anonstudio.core.experiments import EXPERIMENTS

        self.setWindowTitle("Paper experiments")
        self.setModal(False)
        self.experiments = EXPERIMENTS
        self.runner = TaskRunner(self)
        self.worker: RunWorker | None = None
        self.paths: list[Path] = []
        self.last_error_box: QMessageBox | None = None  # the last unexpected failure's dialog (tests)
        self._fasta = str(fasta) if fasta else ""
        self._outputs: dict[str, str] = {}
        self._values: dict[str, dict[str, Any]] = {}
        self._current = ""

        self.list = QListWidget()
        self.list.addItems(list(EXPERIMENTS))
        self.list.setMinimumWidth(210)
        self.help = QLabel()
        self.help.setWordWrap(True)
        self.form = ParamForm()
        form_scroll = QScrollArea()
        form_scroll.setWidgetResizable(True)
        form_scroll.setWidget(self.form)
        self.output = QLineEdit()
        self.output.setToolTip("Folder the experiment writes its CSV and PNG files into")
        self.browse = QPushButton("Choose…")
        self.browse.clicked.connect(self._choose_folder)
        self.run_button = QPushButton("Run experiment")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.status = QLabel("Choose an experiment, check its parameters and run it.")
        self.status.setWordWrap(True)
        self.results = QTabWidget()
        self.placeholder = QLabel("The experiment's figures and table appear here when it has run.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.results.addTab(self.placeholder, "Results")

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(QLabel("Experiment"))
        lv.addWidget(self.list, 1)
        middle = QWidget()
        mv = QVBoxLayout(middle)
        mv.setContentsMargins(0, 0, 0, 0)
        mv.addWidget(self.help)
        mv.addWidget(form_scroll, 1)
        out_row = QHBoxLayout()
        out_row.addWidget(QLabel("Output folder"))
        out_row.addWidget(self.output, 1)
        out_row.addWidget(self.browse)
        mv.addLayout(out_row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)
        mv.addLayout(buttons)
        mv.addWidget(self.status)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(middle)
        split.addWidget(self.results)
        split.setStretchFactor(2, 1)
        split.setSizes([220, 420, 640])
        layout = QVBoxLayout(self)
        layout.addWidget(split)
        self.resize(1300, 640)

        self.list.currentTextChanged.connect(self.select)
        self.list.setCurrentRow(0)
        self._update_buttons()

    # -- choosing --------------------------------------------------------------------------------------------
    @Slot(str)
    def select(self, name: str) -> None:
        """Show experiment ``name``'s parameters (keeping what was typed for the previous one)."""
        if name not in self.experiments:
            return
        if name == self._current:
            return
        if self._current:
            self._values[self._current] = self.form.values()
            self._outputs[self._current] = self.output.text()
        self._current = name
        if self.list.currentItem() is None or self.list.currentItem().text() != name:
            blocked = self.list.blockSignals(True)
            self.list.setCurrentRow(list(self.experiments).index(name))
            self.list.blockSignals(blocked)
        cmd = self.experiments[name]
        self.help.setText(f"<b>{name}</b> — {cmd.help}")
        self.form.set_parameters(cmd.parameters)
        values = dict(self._values.get(name, {}))
        if not values and self._fasta and "input" in cmd.parameters.names():
            values["input"] = self._fasta  # the FASTA open in the workbench
        if values:
            self.form.set_values(values)
        self.output.setText(self._outputs.get(name) or str(default_output_folder(name)))

    def set_fasta(self, path: str | Path | None) -> None:
        """Make ``path`` (the FASTA open in the workbench) the default input; an empty input field takes it now."""
        self._fasta = str(path) if path else ""
        if self._fasta and "input" in self.form.parameters.names() and not self.form.values().get("input"):
            self.form.set_values({**self.form.values(), "input": self._fasta})

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Output folder", self.output.text())
        if folder:
            self.output.setText(folder)

    # -- running ---------------------------------------------------------------------------------------------
    def start(self) -> RunWorker | None:
        """Validate the parameters and run the experiment on a worker thread (``None``: refused, with a dialog)."""
        if self.worker is not None:
            return None
        cmd = self.experiments[self._current]
        try:
            params = cmd.parameters.validate(self.form.values())
            folder = self.output.text().strip()
            if not folder:
                raise AnonStudioError("choose an output folder for the experiment's files")
        except AnonStudioError as exc:
            QMessageBox.critical(self, "Cannot run the experiment", error_text(exc))
            return None
        self.status.setText(f"Running {cmd.name}…")
        self.progress.setValue(0)
        worker = RunWorker(cmd.run, Path(folder), **params)
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        self.worker = self.runner.start_worker(worker)
        self._update_buttons()
        return worker

    def cancel(self) -> None:
        if self.worker is not None:
            self.status.setText("Cancelling…")
            self.worker.cancel()

    @Slot(float, str)
    def _on_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(round(1000 * max(0.0, min(1.0, fraction)))))
        if message:
            self.status.setText(message)

    @Slot(object)
    def _on_finished(self, paths: list) -> None:
        self.worker = None
        self.paths = [Path(p) for p in paths]
        self.progress.setValue(1000)
        folder = self.paths[0].parent if self.paths else self.output.text()
        self.status.setText(f"Done: {len(self.paths)} files in {folder}")
        self.show_results(self.paths)
        self._update_buttons()
        self.experimentFinished.emit(self.paths)

    @Slot(object)
    def _on_failed(self, exc: BaseException) -> None:
        self.worker = None
        self.status.setText("The experiment failed.")
        self._update_buttons()
        from anonstudio.core.error_log import is_unexpected

        if is_unexpected(exc):  # a bug of ours: a sentence, the log file, the traceback behind "Show Details…"
            from anonstudio.gui.dialogs import unexpected_error_box

            self.last_error_box = unexpected_error_box(self, "The experiment failed", exc, context="paper experiment")
        else:
            QMessageBox.critical(self, "The experiment failed", error_text(exc))
        self.experimentFinished.emit(exc)

    @Slot()
    def _on_cancelled(self) -> None:
        self.worker = None
        self.progress.setValue(0)
        self.status.setText("Cancelled: no new files were written.")
        self._update_buttons()
        self.experimentFinished.emit(None)

    def _update_buttons(self) -> None:
        busy = self.worker is not None
        self.run_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.list.setEnabled(not busy)
        self.form.setEnabled(not busy)

    # -- showing ---------------------------------------------------------------------------------------------
    def show_results(self, paths: list[Path]) -> None:
        """One tab per Markdown report written (the paper's claims against our run, first: it is the verdict),
        one per PNG (the figure as saved) and one with the first CSV as a table."""
        while self.results.count():
            widget = self.results.widget(0)
            self.results.removeTab(0)
            if widget is not self.placeholder:
                widget.deleteLater()
        for p in paths:
            if p.suffix.lower() == ".md":
                view = QTextBrowser()
                view.setObjectName(f"report:{p.name}")
                view.setMarkdown(p.read_text(encoding="utf-8"))
                self.results.addTab(view, p.stem)
        for p in paths:
            if p.suffix.lower() == ".png":
                self.results.addTab(FigureView(p), p.stem)
        csvs = [p for p in paths if p.suffix.lower() == ".csv"]
        if csvs:
            self.results.addTab(self._table(csvs[0]), f"table: {csvs[0].name}")
        if not self.results.count():
            self.results.addTab(self.placeholder, "Results")

    @staticmethod
    def _table(path: Path) -> QTableWidget:
        import pandas as pd

        df = pd.read_csv(path)
        shown = df.head(MAX_TABLE_ROWS)
        table = QTableWidget(len(shown), len(df.columns))
        table.setObjectName(f"table:{path.name}")
        table.setHorizontalHeaderLabels([str(c) for c in df.columns])
        for i, row in enumerate(shown.itertuples(index=False)):
            for j, v in enumerate(row):
                table.setItem(i, j, QTableWidgetItem(f"{v:.4g}" if isinstance(v, float) else str(v)))
        table.resizeColumnsToContents()
        return table

    def figure_labels(self) -> list[FigureView]:
        """The figure tabs (for tests and screenshots)."""
        return [self.results.widget(i) for i in range(self.results.count())
                if isinstance(self.results.widget(i), FigureView)]

    def closeEvent(self, event) -> None:  # noqa: N802
        self.runner.shutdown()
        super().closeEvent(event)
