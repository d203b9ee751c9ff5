"""The summary card: the headline of a run, first (issue 15, item 7).

What a privacy officer reads before anything else: which method ran with which parameters (in words), the
independent verifier's verdict and what it checked, how many records were published, suppressed or removed,
the method's utility figures with one line saying what each means, the time it took, and the run's notes and
warnings. Built from the run's report (the contract's dict) by :func:`anonstudio.core.views.summary_sections` (no
Qt: tested directly, usable by a report) and drawn as one read-only rich-text card; the warnings are the
workspace's (:meth:`~anonstudio.core.workspace.Workspace.warnings_for`: every one the command line prints, with the
release options on screen). The window brings it to the front after every run of a
method without a result view of its own.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtWidgets

from anonstudio.core.views import Summary, generalization_levels, summary_html, summary_sections
from anonstudio.core.views.workbench_words import shuffling_fixes
from anonstudio.gui.panes._common import OutcomePane, column, placeholder

class SummaryPane(OutcomePane):
    """The run's headline: method, verdict, records, utility, time (see the module)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome: Any = None
        self.summary: Summary | None = None
        self.card = QtWidgets.QTextBrowser()
        self.card.setObjectName("summary")
        self.card.setOpenExternalLinks(False)
        self.empty = placeholder("Run a method to see its summary: the verdict, what was checked, the records "
                                 "published and suppressed, the utility figures and the time.")
        # the fix of a release risk, as a button (issue 40 item 2): rows in the input's order → shuffle them
        self.shuffle_button = QtWidgets.QPushButton("Shuffle rows")
        self.shuffle_button.setObjectName("fixShuffleRows")
        self.shuffle_button.setToolTip("Publish the rows (an event log's sequences) in a random order: ticks “Publish "
                                       "rows in a random order” under Release in the Method pane")
        self.shuffle_button.clicked.connect(self.shuffle_rows)
        self.shuffle_button.setVisible(False)
        fixes = QtWidgets.QHBoxLayout()
        fixes.addWidget(self.shuffle_button)
        fixes.addStretch(1)
        self.stack = self._stack(self.empty, column((self.card, 1), fixes))

    def clear(self) -> None:
        self.outcome = None
        self.summary = None
        self.card.clear()
        self.shuffle_button.setVisible(False)
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if not self._fresh(outcome, self.outcome):
            return
        self.outcome = outcome
        self._draw()

    def _draw(self) -> None:
        warnings = self.warnings_of(self.outcome)
        self.summary = summary_sections(self.outcome.report or {}, warnings=warnings,
                                        levels=generalization_levels(self.outcome))
        self.card.setHtml(summary_html(self.summary))
        self.shuffle_button.setVisible(any(shuffling_fixes(w) for w in warnings))
        self.stack.setCurrentIndex(1)

    def _release_changed(self) -> None:
        if self.outcome is not None:
            self._draw()

    def shuffle_rows(self) -> None:
        """The Shuffle rows button: the release's rows in a random order (a release option: the verified outcome
        stays current, the warning about the input's order goes)."""
        state = self._binding.state
        if state is not None and hasattr(state, "set_release"):
            state.set_release(shuffle_rows=True)

    def text(self) -> str:
        return self.card.toPlainText()
