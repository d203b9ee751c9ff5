"""The workbench's user guide window (Help ▸ User guide, F1): the guide's Markdown rendered beside a contents tree
of its headings (click one to jump there) and a search bar (find next / previous, every match highlighted, "n
matches"). The text is ``anonstudio.resources.guide_text()``, built from the docs pages by ``scripts/sync-guide``."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence, QShortcut, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (QDialog, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSplitter, QTextBrowser,
                               QTextEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

#: the background every match gets; the current match is the view's own selection
MATCH_COLOUR = QColor(255, 235, 120)
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)


def match_label(count: int, current: int | None) -> str:
    """The words beside the search box: how many matches, and which one is shown."""
    if count == 0:
        return "no matches"
    where = f" — {current + 1} of {count}" if current is not None else ""
    return f"{count} match{'es' if count != 1 else ''}{where}"


class GuideWindow(QDialog):
    """The guide with its contents (``guideContents``), the text (``guideText``) and the search bar
    (``guideSearch``, ``guidePrevious``, ``guideNext``, ``guideMatches``)."""

    def __init__(self, markdown: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guide")
        self.setWindowTitle("anonstudio — user guide")
        self.view = QTextBrowser(self)
        self.view.setObjectName("guideText")
        self.view.setOpenExternalLinks(True)
        self.view.setMarkdown(_COMMENT.sub("", markdown))
        self.contents = QTreeWidget(self)
        self.contents.setObjectName("guideContents")
        self.contents.setHeaderHidden(True)
        self.contents.itemClicked.connect(self._jump)
        self.contents.itemActivated.connect(self._jump)
        self.search = QLineEdit(self)
        self.search.setObjectName("guideSearch")
        self.search.setPlaceholderText("Search the guide (Ctrl+F; Enter: next, Shift+Enter: previous)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.find_all)
        self.search.returnPressed.connect(self.find_next)
        self.previous_button = QPushButton("◀ Previous", self)
        self.previous_button.setObjectName("guidePrevious")
        self.previous_button.clicked.connect(self.find_previous)
        self.next_button = QPushButton("Next ▶", self)
        self.next_button.setObjectName("guideNext")
        self.next_button.clicked.connect(self.find_next)
        self.matches_label = QLabel("", self)
        self.matches_label.setObjectName("guideMatches")
        self.matches: list[QTextCursor] = []
        self.current: int | None = None
        bar = QHBoxLayout()
        for widget in (self.search, self.previous_button, self.next_button, self.matches_label):
            bar.addWidget(widget)
        bar.setStretch(0, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.contents)
        splitter.addWidget(self.view)
        splitter.setSizes([260, 740])
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)
        QShortcut(QKeySequence.StandardKey.Find, self, self._focus_search)
        QShortcut(QKeySequence.StandardKey.FindNext, self, self.find_next)
        QShortcut(QKeySequence.StandardKey.FindPrevious, self, self.find_previous)
        self.search.installEventFilter(self)  # Shift+Enter in the search box: the previous match
        self._fill_contents()
        self._show_count()
        self.resize(1000, 700)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.search and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent)
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
                and event.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            self.find_previous()
            return True
        return super().eventFilter(watched, event)

    # -- contents --------------------------------------------------------------------------------------------
    def _fill_contents(self) -> None:
        """One entry per heading of the rendered document, nested by level."""
        parents: list[tuple[int, QTreeWidgetItem]] = []
        block = self.view.document().begin()
        while block.isValid():
            level = block.blockFormat().headingLevel()
            if level > 0 and block.text().strip():
                while parents and parents[-1][0] >= level:
                    parents.pop()
                item = QTreeWidgetItem([block.text().strip()])
                item.setData(0, Qt.ItemDataRole.UserRole, block.position())
                item.setToolTip(0, block.text().strip())
                if parents:
                    parents[-1][1].addChild(item)
                else:
                    self.contents.addTopLevelItem(item)
                parents.append((level, item))
            block = block.next()
        self.contents.expandToDepth(0)

    def headings(self) -> list[str]:
        """The contents' entries in document order (every level)."""
        out: list[str] = []

        def walk(item: QTreeWidgetItem | None) -> None:
            if item is None:
                return
            out.append(item.text(0))
            for i in range(item.childCount()):
                walk(item.child(i))

        for i in range(self.contents.topLevelItemCount()):
            walk(self.contents.topLevelItem(i))
        return out

    def _jump(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        self.scroll_to(int(item.data(0, Qt.ItemDataRole.UserRole)))

    def scroll_to(self, position: int) -> None:
        """Put the block at ``position`` at the top of the view (as far as the document's end allows)."""
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(position)
        self.view.setTextCursor(cursor)
        block = self.view.document().findBlock(position)
        top = self.view.document().documentLayout().blockBoundingRect(block).top()
        self.view.verticalScrollBar().setValue(int(top))

    # -- search ----------------------------------------------------------------------------------------------
    def _focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def find_all(self, term: str | None = None) -> int:
        """Find every occurrence of the search text (case-insensitive), highlight them all and show the first one
        after the view's position; returns how many there are."""
        term = self.search.text() if term is None else term
        self.matches = []
        document = self.view.document()
        if term:
            cursor = document.find(term, 0)
            while not cursor.isNull():
                self.matches.append(cursor)
                cursor = document.find(term, cursor)
        highlights = []
        for match in self.matches:
            selection = QTextEdit.ExtraSelection()
            selection.cursor = match
            fmt = QTextCharFormat()
            fmt.setBackground(MATCH_COLOUR)
            selection.format = fmt
            highlights.append(selection)
        self.view.setExtraSelections(highlights)
        self.current = None
        if self.matches:
            self.find_next()
        else:
            self._show_count()
        return len(self.matches)

    def find_next(self) -> None:
        self._step(+1)

    def find_previous(self) -> None:
        self._step(-1)

    def _step(self, direction: int) -> None:
        if not self.matches:
            self._show_count()
            return
        if self.current is None:
            start = self.view.textCursor().selectionStart() if direction > 0 else self.view.textCursor().selectionEnd()
            after = [i for i, m in enumerate(self.matches) if m.selectionStart() >= start]
            before = [i for i, m in enumerate(self.matches) if m.selectionStart() < start]
            if direction > 0:
                self.current = after[0] if after else 0
            else:
                self.current = before[-1] if before else len(self.matches) - 1
        else:
            self.current = (self.current + direction) % len(self.matches)
        self.view.setTextCursor(self.matches[self.current])
        bar = self.view.verticalScrollBar()  # the match in the middle of the view, not at its edge
        bar.setValue(bar.value() + self.view.cursorRect().center().y() - self.view.viewport().height() // 2)
        self._show_count()

    def selected_text(self) -> str:
        return self.view.textCursor().selectedText()

    def _show_count(self) -> None:
        self.matches_label.setText(match_label(len(self.matches), self.current) if self.search.text() else "")
        enabled = len(self.matches) > 0
        self.previous_button.setEnabled(enabled)
        self.next_button.setEnabled(enabled)


__all__ = ["GuideWindow", "match_label"]
