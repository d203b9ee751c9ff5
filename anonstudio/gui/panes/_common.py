"""Qt helpers shared by the result panes: binding to the workbench state, a read-only frame model with
highlighted cells, colours, and a placeholder message."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from PySide6 import QtCore, QtGui, QtWidgets

#: background of a cell whose value the method changed
CHANGED = QtGui.QColor("#ffd9a0")
#: background of the rows in the selected record's group
GROUP = QtGui.QColor("#cfe3ff")
#: background of a changed cell in the selected group
GROUP_CHANGED = QtGui.QColor("#f2b880")
#: border and text colour of an invalid entry
INVALID = "#c62828"
OK_COLOUR = "#2e7d32"

#: colours of methods in plots (cycled)
SERIES_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


_BRUSH_CHANGED = QtGui.QBrush(CHANGED)
_BRUSH_GROUP = QtGui.QBrush(GROUP)
_BRUSH_GROUP_CHANGED = QtGui.QBrush(GROUP_CHANGED)
_DISPLAY = QtCore.Qt.DisplayRole
_EDIT = QtCore.Qt.EditRole
_BACKGROUND = QtCore.Qt.BackgroundRole
_TOOLTIP = QtCore.Qt.ToolTipRole
_FONT = QtCore.Qt.FontRole


def bold_font() -> QtGui.QFont:
    """The application font in bold (changed cells are shown so)."""
    font = QtGui.QFont()
    font.setBold(True)
    return font


#: the style of a message that says what is wrong (hierarchy editor, typed combinations)
ERROR_STYLE = "color: #b00020; font-weight: bold;"

def weak_callback(method: Callable[..., Any], default: Any = None) -> Callable[..., Any]:
    """A plain function calling the bound ``method`` through a weak reference (``default`` once its object
    is gone). Handing bound methods of a pane to its own child items would make reference cycles, which
    the garbage collector may break in the middle of a paint event, destroying a live widget."""
    ref = weakref.WeakMethod(method)

    def call(*args: Any, **kwargs: Any) -> Any:
        bound = ref()
        return default if bound is None else bound(*args, **kwargs)

    return call


class StateBinding:
    """Calls ``callback(what)`` on every change of a :class:`~anonstudio.core.workspace.Workspace` for as
    long as ``widget`` lives. Only weak references to the widget and to a bound-method callback are kept,
    so the state never keeps a pane alive; the listener removes itself once the pane is gone."""

    def __init__(self, widget: QtWidgets.QWidget, callback: Callable[[str], None]) -> None:
        self._widget = weakref.ref(widget)
        self._callback = weak_callback(callback) if hasattr(callback, "__self__") else callback
        self.state: Any = None

    def bind(self, state: Any) -> None:
        if self.state is not None and hasattr(self.state, "unsubscribe"):
            self.state.unsubscribe(self._listen)
        self.state = state
        if state is not None and hasattr(state, "subscribe"):
            state.subscribe(self._listen)

    def _listen(self, what: str) -> None:
        widget = self._widget()
        try:
            alive = widget is not None and widget.isVisible() is not None
        except RuntimeError:  # the C++ widget is gone
            alive = False
        if not alive:
            if self.state is not None:
                self.state.unsubscribe(self._listen)
            return
        self._callback(what)


class FrameModel(QtCore.QAbstractTableModel):
    """A read-only view of a DataFrame (cells shown as text) with optional per-cell ``changed`` marks and
    per-row ``highlight`` marks, shown as background colours."""

    _n = 0  # what a model the cyclic collector cleared shows (see gui/models/table.py)
    _columns: list[str] = []

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._frame: pd.DataFrame | None = None
        self._n = 0
        self._blocks: dict[int, np.ndarray] = {}
        self._columns: list[str] = []
        self._row_labels: list[str] | None = None
        self._changed: np.ndarray | None = None
        self._highlight = np.zeros(0, dtype=bool)
        self._tooltips: list[str] | None = None
        self._bold: QtGui.QFont | None = None

    def set_frame(
        self,
        frame: pd.DataFrame | None,
        changed: np.ndarray | None = None,
        row_labels: list[str] | None = None,
        tooltips: list[str] | None = None,
    ) -> None:
        self.beginResetModel()
        self._frame, self._blocks = frame, {}
        self._n = 0 if frame is None else len(frame)
        self._columns = [] if frame is None else [str(c) for c in frame.columns]
        self._changed = changed
        self._row_labels = row_labels
        self._tooltips = tooltips
        self._highlight = np.zeros(self._n, dtype=bool)
        self.endResetModel()

    #: rows turned into text at a time, and how many such blocks are kept: only what is on screen is
    #: formatted (a million-row result costs the GUI thread a few blocks, not 9M strings)
    BLOCK = 1024
    MAX_BLOCKS = 64

    def _text(self, block: int) -> np.ndarray:
        """Rows ``[block*BLOCK, (block+1)*BLOCK)`` as text (missing values empty), as an object array."""
        hit = self._blocks.get(block)
        if hit is None:
            from anonstudio.core.views import frame_text

            if len(self._blocks) >= self.MAX_BLOCKS:
                self._blocks.clear()
            hit = self._blocks[block] = frame_text(self._frame.iloc[block * self.BLOCK : (block + 1) * self.BLOCK])
        return hit

    def cell_text(self, row: int, col: int) -> str:
        return self._text(row // self.BLOCK)[row % self.BLOCK, col]

    def set_highlight(self, rows: np.ndarray | None) -> None:
        new = np.zeros(self._n, dtype=bool)
        if rows is not None and len(rows):
            rows = np.asarray(rows, dtype=np.int64)
            new[rows[(rows >= 0) & (rows < len(new))]] = True
        touched = np.flatnonzero(new != self._highlight)
        self._highlight = new
        if len(touched):
            last = self.columnCount() - 1
            self.dataChanged.emit(
                self.index(int(touched.min()), 0), self.index(int(touched.max()), last), [QtCore.Qt.BackgroundRole]
            )

    def highlighted_rows(self) -> np.ndarray:
        return np.flatnonzero(self._highlight)

    def is_changed(self, row: int, col: int) -> bool:
        return bool(self._changed is not None and self._changed[row, col])

    def column_width(self, col: int, metrics: QtGui.QFontMetrics, header: QtGui.QFontMetrics, rows: int = 200) -> int:
        """Pixels column ``col`` needs for its header and its first ``rows`` cells (each distinct text measured
        once: far cheaper than letting Qt ask ``data()`` for every cell and role)."""
        texts = set(self._text(0)[:rows, col].tolist()) if self._n else set()
        # 80 characters are wider than any column is made (a protein sequence need not be measured whole)
        cells = max((metrics.horizontalAdvance(str(t)[:80]) for t in texts), default=0)
        return max(cells, header.horizontalAdvance(self._columns[col]) + 20) + 12

    # -- Qt model interface ------------------------------------------------------------------------------
    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._n

    def columnCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.DisplayRole) -> Any:
        if role == _DISPLAY or role == _EDIT:
            return self.cell_text(index.row(), index.column())
        if role == _BACKGROUND:
            r, c = index.row(), index.column()
            changed = self._changed is not None and self._changed[r, c]
            if self._highlight[r]:
                return _BRUSH_GROUP_CHANGED if changed else _BRUSH_GROUP
            return _BRUSH_CHANGED if changed else None
        if role == _FONT:
            if self._changed is not None and self._changed[index.row(), index.column()]:
                if self._bold is None:
                    self._bold = bold_font()
                return self._bold
            return None
        if role == _TOOLTIP and self._tooltips is not None:
            return self._tooltips[index.row()]
        return None

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation, role: int = QtCore.Qt.DisplayRole) -> Any:
        if role != QtCore.Qt.DisplayRole:
            return None
        if orientation == QtCore.Qt.Horizontal:
            return self._columns[section] if section < len(self._columns) else None
        if self._row_labels is not None and section < len(self._row_labels):
            return self._row_labels[section]
        return str(section + 1)


class OutcomePane(QtWidgets.QWidget):
    """Base of the panes that show a run's outcome (Compare, Composition, MST partition, Privacy).

    It follows a :class:`~anonstudio.core.workspace.Workspace` (a changed outcome or data calls
    :meth:`show_outcome`) and switches between a placeholder and its body with :meth:`_stack`.
    Subclasses implement ``show_outcome(outcome)`` and ``clear()``.
    """

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._binding = StateBinding(self, self._on_state)

    def set_state(self, state: Any) -> None:
        self._binding.bind(state)
        self.show_outcome(getattr(state, "outcome", None))

    def _on_state(self, what: str) -> None:
        state = self._binding.state
        outcome = getattr(state, "outcome", None)
        # an outcome gone out of date (changed parameters, roles, hierarchies) stays on screen for the window to
        # grey under its banner; new data clears it
        if what == "data" or (what == "outcome" and (outcome is not None or not getattr(state, "stale_reason", None))):
            self.show_outcome(outcome)
        elif what == "release" and hasattr(self, "_release_changed"):
            self._release_changed()  # shuffled rows or not: the warnings a publication gives change

    def warnings_of(self, outcome: Any) -> list[str]:
        """The warnings to show with ``outcome``: the workspace's (every one the command line prints, with the
        release options on screen), or the report's when no workspace is bound — each naming its fix as the
        workbench applies it (:func:`anonstudio.core.views.workbench_words.in_workbench_words`)."""
        from anonstudio.core.views.workbench_words import all_in_workbench_words

        state = self._binding.state
        if state is not None and hasattr(state, "warnings_for"):
            return all_in_workbench_words(state.warnings_for(outcome))
        return all_in_workbench_words([str(w) for w in (getattr(outcome, "report", None) or {}).get("warnings") or []])

    def _fresh(self, outcome: Any, shown: Any) -> bool:
        """Whether ``outcome`` is to be drawn: ``None`` clears the pane; the outcome already ``shown`` is not
        drawn twice (the state's notification and the window may both deliver it)."""
        if outcome is None:
            self.clear()
            return False
        return outcome is not shown

    def _stack(self, empty: QtWidgets.QWidget, body: QtWidgets.QWidget) -> QtWidgets.QStackedWidget:
        """Lay the pane out as a stack: page 0 the placeholder ``empty``, page 1 ``body``."""
        stack = QtWidgets.QStackedWidget()
        stack.addWidget(empty)
        stack.addWidget(body)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(stack)
        return stack


def placeholder(text: str, parent: QtWidgets.QWidget | None = None) -> QtWidgets.QLabel:
    """A centred grey label for a pane with nothing to show yet."""
    label = QtWidgets.QLabel(text, parent)
    label.setAlignment(QtCore.Qt.AlignCenter)
    label.setWordWrap(True)
    label.setStyleSheet("color: #777; font-style: italic; padding: 12px;")
    return label


def run_preview(widget: QtWidgets.QWidget, title: str) -> None:
    """Show ``widget`` alone in a window (the panes' ``__main__`` previews) and run the event loop; with
    ``QT_QPA_PLATFORM=offscreen`` it quits after a moment so the preview can be smoke-tested."""
    import os
    import sys

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    widget.setWindowTitle(title)
    widget.resize(900, 600)
    widget.show()
    if os.environ.get("QT_QPA_PLATFORM") == "offscreen" or os.environ.get("ANONSTUDIO_PREVIEW_QUIT"):
        QtCore.QTimer.singleShot(300, app.quit)
    app.exec()


class ViewPane(OutcomePane):
    """A method family's own result view (Clusters, Randomization, Anatomy): an info line over a body when the
    outcome is one it can show, a placeholder saying why not otherwise.

    Subclasses build their widgets, then call :meth:`_view_layout`; they implement ``make_view(outcome)``
    (a Qt-free view, or ``None`` for an outcome of another kind), ``_present(view, outcome)`` and ``_reset()``
    (empty their widgets), and set ``NOT_MINE`` (the placeholder text, ``{method}`` filled in).
    """

    NOT_MINE = "The method '{method}' is not shown in this view."

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.view: Any = None
        self._outcome: Any = None
        self.info = QtWidgets.QLabel()
        self.info.setWordWrap(True)

    def _view_layout(self, content: QtWidgets.QWidget, empty_text: str) -> None:
        self.empty = placeholder(empty_text)
        self.stack = self._stack(self.empty, column(self.info, (content, 1)))

    #: what every subclass implements (Qt's metaclass rules out ``abc``: checked when a subclass is defined)
    _HOOKS = ("make_view", "_present", "_reset")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        missing = [name for name in ViewPane._HOOKS if getattr(cls, name) is getattr(ViewPane, name)]
        if missing:
            raise TypeError(f"{cls.__name__} must implement {', '.join(missing)}")

    def make_view(self, outcome: Any) -> Any:
        """The Qt-free view of ``outcome``, or ``None`` for an outcome of another kind."""

    def _present(self, view: Any, outcome: Any) -> None:
        """Show ``view`` in the subclass's widgets."""

    def _reset(self) -> None:
        """Empty the subclass's widgets."""

    def clear(self) -> None:
        self.view = None
        self._outcome = None
        self._reset()
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if not self._fresh(outcome, self._outcome):
            return
        view = self.make_view(outcome)
        if view is None:
            self.clear()
            self.empty.setText(self.NOT_MINE.format(method=outcome.report.get("algorithm", "")))
            return
        self.view, self._outcome = view, outcome
        self.stack.setCurrentIndex(1)
        self._present(view, outcome)


def column(*items) -> QtWidgets.QWidget:
    """A widget stacking ``items`` top to bottom without margins; an item is a widget or a layout, or
    ``(item, stretch)``."""
    box = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    for item in items:
        item, stretch = item if isinstance(item, tuple) else (item, 0)
        if isinstance(item, QtWidgets.QLayout):
            lay.addLayout(item, stretch)
        else:
            lay.addWidget(item, stretch)
    return box


class FittingScrollArea(QtWidgets.QScrollArea):
    """A frameless scroll area that gives its widget the viewport's size, or the widget's *minimum* where that is
    larger (then it scrolls). Qt's resizable scroll area gives a widget with word-wrapped labels its *preferred*
    height for the width, so a result pane's plots grew past a 1280 × 720 window's dock and their axes scrolled out
    of sight (issue 40 item 3)."""

    def __init__(self, widget: QtWidgets.QWidget, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.NoFrame)
        self.setWidgetResizable(False)
        self.setWidget(widget)
        widget.installEventFilter(self)
        self.viewport().installEventFilter(self)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if (kind == QtCore.QEvent.LayoutRequest and watched is self.widget()) or (
                kind == QtCore.QEvent.Resize and watched is self.viewport()):
            self.fit()
        return False

    def fit(self) -> None:
        """Size the widget: the viewport's width and height, or its minimum where that is larger."""
        widget = self.widget()
        if widget is None:
            return
        least = widget.minimumSizeHint().expandedTo(widget.minimumSize())
        # not the layout's height for the width: for a box layout that is its preferred height, not its least
        width = max(self.viewport().width(), least.width())
        height = max(self.viewport().height(), least.height())
        if widget.size() != QtCore.QSize(width, height):
            widget.resize(width, height)


def scrolling(widget: QtWidgets.QWidget) -> QtWidgets.QScrollArea:
    """``widget`` in a frameless scroll area that fits it to the dock, scrolling only what cannot shrink further
    (:class:`FittingScrollArea`)."""
    return FittingScrollArea(widget)


#: the out-of-date banner over a result view
STALE_STYLE = "background: #fff3cd; color: #664d03; border: 1px solid #ffe69c; padding: 4px;"


class ResultHolder(QtWidgets.QWidget):
    """A result dock's content: the pane in a scroll area, under a banner shown while the results on screen no
    longer belong to the data, roles, hierarchies or parameters (issue 15 item 1): the view is greyed and the
    banner says why until the next run."""

    def __init__(self, pane: QtWidgets.QWidget, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.pane = pane
        self.banner = QtWidgets.QLabel()
        self.banner.setObjectName("staleBanner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(STALE_STYLE)
        self.banner.hide()
        self.view = scrolling(pane)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.banner)
        lay.addWidget(self.view, 1)

    def set_stale(self, reason: str | None) -> None:
        """Grey the view under a banner saying ``reason`` (``None``: current again)."""
        self.banner.setText(f"Out of date: {reason}. These are the last run's results, kept for reference; run "
                            "again (F5) to refresh them — export is off until then." if reason else "")
        self.banner.setVisible(bool(reason))
        self.view.setEnabled(not reason)

    @property
    def stale(self) -> bool:
        return not self.view.isEnabled()


def readonly_table(headers: list[str], name: str) -> QtWidgets.QTableWidget:
    """A read-only table with whole-row single selection and compact rows (the result panes' lists)."""
    table = QtWidgets.QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
    table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectRows)
    table.setSelectionMode(QtWidgets.QAbstractItemView.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(22)
    return table


def fill_table(table: QtWidgets.QTableWidget, rows: list[list[str]]) -> None:
    """Replace the rows of ``table`` with ``rows`` (strings) and fit the columns."""
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.setItem(r, c, QtWidgets.QTableWidgetItem(text))
    table.resizeColumnsToContents()


def selected_row(table: QtWidgets.QTableWidget) -> int | None:
    """The selected row of a single-selection table, or ``None``."""
    rows = table.selectionModel().selectedRows()
    return rows[0].row() if rows else None


# -- the window's words for a workspace (title bar, status bar): presentation, kept out of the engine ---------------
def size_text(state: Any) -> str:
    """One line for the status bar about the open data, e.g. ``"32,561 rows × 15 columns"``."""
    from anonstudio.core.data import EventLog, Table

    d = state.data
    if d is None:
        return "no data"
    if isinstance(d, Table):
        return f"{len(d):,} rows × {d.df.shape[1]} columns"
    if isinstance(d, EventLog):
        return f"{len(d):,} sequences, {d.n_events:,} events"
    return f"{len(d):,} sequences, {int(d.offsets[-1]):,} residues"


def verdict_text(state: Any) -> str:
    """The last run's verdict for the status bar, e.g. ``"k-anonymous, k = 5, verified"``, from the workspace's
    outcome and :meth:`~anonstudio.core.workspace.Workspace.release_verdict`."""
    if state.outcome is None:
        # never a verdict about something that is not on screen: changed inputs, a failed run or a
        # reopened project without its output
        if state.stale_reason:
            return f"results out of date ({state.stale_reason}): run again"
        if state.last_report:
            return "the last run's output is not open: run again to verify and export"
        return ""
    rep = state.outcome.report
    ver = rep.get("verification", {}) or {}
    params = rep.get("parameters", {}) or {}
    model = str(ver.get("model", ""))
    passed = bool(ver.get("passed"))
    bits: list[str] = []
    if model == "k-anonymity":
        bits.append("k-anonymous")
    elif model:
        bits.append(model)
    for key in ("k", "l", "c"):
        if params.get(key) is not None:
            bits.append(f"{key} = {params[key]}")
    bits.append("verified" if passed else "NOT verified")
    verdict = state.release_verdict()
    text = ", ".join(bits)
    if passed and not verdict.safe_to_publish:
        text += f" — NOT safe to publish ({len(verdict.risks)} release risk{'s' if len(verdict.risks) != 1 else ''})"
    elif passed:
        text += "; safe to publish"
    return text


def window_title(state: Any) -> str:
    """The window title: the project's name — or the job's file name (``table-mst.toml``) when a job was opened and
    not yet saved as a project — ``*`` when there are unsaved changes, and the version."""
    from pathlib import Path

    from anonstudio import __version__

    name = state.project_name
    if state.project_path is None and state.job_path is not None:
        name = Path(state.job_path).name
    return f"{name}{'*' if state.dirty else ''} — anonstudio {__version__}"
