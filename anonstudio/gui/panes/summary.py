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

from anonstudio.core.views import Summary, summary_html, summary_sections
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
        self.stack = self._stack(self.empty, column((self.card, 1)))

    def clear(self) -> None:
        self.outcome = None
        self.summary = None
        self.card.clear()
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if not self._fresh(outcome, self.outcome):
            return
        self.outcome = outcome
        self._draw()

    def _draw(self) -> None:
        self.summary = summary_sections(self.outcome.report or {}, warnings=self.warnings_of(self.outcome))
        self.card.setHtml(summary_html(self.summary))
        self.stack.setCurrentIndex(1)

    def _release_changed(self) -> None:
        if self.outcome is not None:
            self._draw()

    def text(self) -> str:
        return self.card.toPlainText()
