"""The run pane: progress of the running job with the engine's messages, elapsed time and Cancel.

The pane starts nothing itself (``gui/workers.py`` runs jobs); the main window calls :meth:`RunPane.start`,
forwards the worker's progress to :meth:`RunPane.progress` and ends with :meth:`RunPane.finish`. Cancel
emits :attr:`RunPane.cancelRequested`; the worker's progress callback then raises ``Cancelled``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6 import QtCore, QtWidgets

from anonstudio.core.views import counts_line
from anonstudio.gui.panes._common import INVALID, OK_COLOUR, StateBinding


def format_elapsed(ms: int) -> str:
    """``"0:07"``, ``"1:02:03"``: elapsed milliseconds as [h:]m:ss."""
    s = max(0, int(ms)) // 1000
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


@dataclass
class RunState:
    """What the run pane shows, without Qt: running or not, the last fraction and message, the end text."""

    running: bool = False
    fraction: float = 0.0
    message: str = ""
    ok: bool | None = None
    text: str = ""
    cancel_requested: bool = False


class RunPane(QtWidgets.QWidget):
    """Progress bar, the engine's current message, elapsed time and a Cancel button."""

    cancelRequested = QtCore.Signal()
    #: the Run button was pressed (the window starts the run, as F5 does)
    runRequested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = RunState()
        self._binding = StateBinding(self, lambda what: None)
        self._clock = QtCore.QElapsedTimer()
        self._elapsed_ms = 0
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self._tick)

        self.bar = QtWidgets.QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setValue(0)
        self.bar.setFormat("%p%")
        self.message = QtWidgets.QLabel("Ready.")
        self.message.setWordWrap(True)
        self.message.setObjectName("run_message")
        self.elapsed = QtWidgets.QLabel("0:00")
        self.elapsed.setObjectName("elapsed")
        self.elapsed.setMinimumWidth(60)
        self.elapsed.setAlignment(QtCore.Qt.AlignRight | QtCore.Qt.AlignVCenter)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self._on_cancel)
        self.result = QtWidgets.QLabel()
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)

        # Run, off while a parameter is invalid, with the reason beside it (issue 40 item 4)
        self.run_button = QtWidgets.QPushButton("Run")
        self.run_button.setObjectName("runButton")
        self.run_button.setToolTip("Anonymize with the chosen method (F5)")
        self.run_button.setEnabled(False)
        self.run_button.clicked.connect(self.runRequested)
        self.blocked = QtWidgets.QLabel()
        self.blocked.setObjectName("runBlocked")
        self.blocked.setWordWrap(True)
        self.blocked.setStyleSheet(f"color: {INVALID};")
        self.blocked.setVisible(False)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.run_button)
        top.addWidget(self.blocked, 1)

        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.bar, 1)
        row.addWidget(self.elapsed)
        row.addWidget(self.cancel_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addLayout(row)
        layout.addWidget(self.message)
        layout.addWidget(self.result)
        layout.addStretch(1)

    # -- public API ----------------------------------------------------------------------------------------
    def set_state(self, state: Any) -> None:
        self._binding.bind(state)

    def set_runnable(self, enabled: bool, reason: str = "") -> None:
        """Whether Run can start now; ``reason``: why not (an invalid parameter, no method), shown beside it."""
        self.run_button.setEnabled(enabled)
        self.blocked.setText(reason)
        self.blocked.setVisible(bool(reason))
        self.run_button.setToolTip(reason or "Anonymize with the chosen method (F5)")

    def start(self, text: str = "Starting…") -> None:
        """A run has started: reset the bar, start the clock, enable Cancel."""
        self.state = RunState(running=True, message=text)
        self.bar.setValue(0)
        self.message.setText(text)
        self.result.clear()
        self.result.setStyleSheet("")
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Cancel")
        self._clock.start()
        self._elapsed_ms = 0
        self.elapsed.setText(format_elapsed(0))
        self._timer.start()

    def progress(self, fraction: float, message: str = "") -> None:
        """The engine's progress: ``fraction`` in [0, 1] and its message."""
        fraction = min(1.0, max(0.0, float(fraction)))
        self.state.fraction = fraction
        self.bar.setValue(int(round(fraction * 1000)))
        if message:
            self.state.message = message
            self.message.setText(message)
        self._tick()

    def finish(self, ok: bool, text: str = "") -> None:
        """The run ended: ``ok`` False for failure or cancellation; ``text`` says what happened."""
        if self._clock.isValid():
            self._elapsed_ms = int(self._clock.elapsed())
        self._timer.stop()
        self.state.running = False
        self.state.ok = bool(ok)
        self.state.text = text
        if ok:
            self.bar.setValue(1000)
        self.elapsed.setText(format_elapsed(self._elapsed_ms))
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancel")
        colour = OK_COLOUR if ok else INVALID
        self.result.setStyleSheet(f"color: {colour}; font-weight: bold;")
        self.result.setText(text or ("Finished." if ok else "Failed."))
        self.message.setText(f"{'Finished' if ok else 'Stopped'} after {format_elapsed(self._elapsed_ms)}.")

    def show_outcome(self, outcome: Any) -> None:
        """Summarise a finished run (records, classes, verdict) under the bar."""
        if outcome is None:
            return
        rep = outcome.report
        ver = rep.get("verification", {})
        text = (
            f"{counts_line(rep)}; verification "
            f"{'passed' if ver.get('passed') else 'FAILED'} ({ver.get('model', '')}); "
            f"engine time {rep.get('runtime_s', 0):.2f} s"
        )
        if not self.state.running:
            self.bar.setValue(1000)
            self.result.setStyleSheet(f"color: {OK_COLOUR if ver.get('passed') else INVALID};")
            self.result.setText(f"{self.state.text}\n{text}" if self.state.text else text)

    def mark_stale(self, reason: str | None) -> None:
        """The last run's verdict no longer belongs to what is on screen: say so instead of vouching for it."""
        if reason and self.result.text() and not self.state.running:
            self.result.setStyleSheet("color: #8a6d3b;")
            self.result.setText(f"Out of date ({reason}): run again to verify.")

    def clear(self) -> None:
        self._timer.stop()
        self.state = RunState()
        self.bar.setValue(0)
        self.message.setText("Ready.")
        self.result.clear()
        self.elapsed.setText("0:00")
        self.cancel_button.setEnabled(False)

    def elapsed_ms(self) -> int:
        if self.state.running and self._clock.isValid():
            return int(self._clock.elapsed())
        return self._elapsed_ms

    # -- internals -----------------------------------------------------------------------------------------
    def _tick(self) -> None:
        if self.state.running and self._clock.isValid():
            self.elapsed.setText(format_elapsed(int(self._clock.elapsed())))

    def _on_cancel(self) -> None:
        if not self.state.running or self.state.cancel_requested:
            return
        self.state.cancel_requested = True
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancelling…")
        self.message.setText("Cancelling: the engine stops at its next progress report…")
        self.cancelRequested.emit()


if __name__ == "__main__":
    import sys

    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    pane = RunPane()
    pane.cancelRequested.connect(lambda: pane.finish(False, "Cancelled by the user."))
    pane.start("Running a simulated job…")
    steps = iter(range(1, 101))

    def step() -> None:
        i = next(steps, None)
        if i is None:
            timer.stop()
            pane.finish(True, "Done: 100 simulated chunks.")
        elif pane.state.running:
            pane.progress(i / 100, f"chunk {i} of 100")

    timer = QtCore.QTimer(pane)
    timer.timeout.connect(step)
    timer.start(40)
    run_preview(pane, "Run — preview")
