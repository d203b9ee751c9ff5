"""The compare pane: the original and the anonymized data side by side.

* Tables: both tables with synchronised scrolling, every cell the method changed highlighted, and the
  equivalence class of the selected record highlighted on both sides.
* Strings: the original strings and the pseudo-strings, each with its group; selecting one highlights its
  group on both sides and aligns an original and a pseudo-string of that group under each other
  (Needleman–Wunsch, :func:`anonstudio.core.metrics._display_alignment.align_for_display`).
* Event sequences: one row per sequence on each side (the anonymized side in the original's order,
  removed sequences marked); selecting one shows its events and their anonymized form under each other.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd
from PySide6 import QtCore, QtGui, QtWidgets

from anonstudio.core.data import EventLog, SequenceSet
from anonstudio.core.metrics._display_alignment import align_for_display
from anonstudio.gui.panes._common import (
    CHANGED,
    GROUP,
    FrameModel,
    OutcomePane,
    bold_font,
    placeholder,
    weak_callback,
)
from anonstudio.core.views import (
    changed_mask,
    data_kind,
    equivalence_classes,
    frame_of,
    group_members,
    pseudo_groups,
    sequence_rows,
)

_LINE = 60


def alignment_html(original: list[str], pseudo: list[str], label_a: str, label_b: str, score: int) -> str:
    """The aligned pair as HTML: blocks of 60 columns, matches marked with ``|``, mismatches and gaps
    coloured."""
    width = max(len(label_a), len(label_b), 6)
    sep = "" if all(len(s) <= 1 for s in original + pseudo) else " "
    parts = ["<div style='font-family: monospace; white-space: pre;'>"]
    matches = sum(1 for a, b in zip(original, pseudo) if a == b and a != "-")
    n = len(original)
    parts.append(
        html.escape(f"{n} aligned columns, {matches} identical ({100 * matches / max(n, 1):.0f}%), score {score}")
        + "<br><br>"
    )
    for start in range(0, n, _LINE):
        a = original[start : start + _LINE]
        b = pseudo[start : start + _LINE]
        row_a, row_m, row_b = [], [], []
        for x, y in zip(a, b):
            w = max(len(x), len(y))
            same = x == y and x != "-"
            colour = "" if same else ("#888" if "-" in (x, y) else "#c62828")
            style = f" style='color:{colour}; background:#fff0e0;'" if colour else ""
            row_a.append(f"<span{style}>{html.escape(x.ljust(w))}</span>")
            row_b.append(f"<span{style}>{html.escape(y.ljust(w))}</span>")
            row_m.append(("|" if same else " ").ljust(w))
        pos = f"{start + 1}".rjust(5)
        parts.append(f"{html.escape(label_a.ljust(width))} {pos} {sep.join(row_a)}<br>")
        parts.append(f"{' ' * width} {' ' * 5} {sep.join(row_m)}<br>")
        parts.append(f"{html.escape(label_b.ljust(width))} {pos} {sep.join(row_b)}<br><br>")
    parts.append("</div>")
    return "".join(parts)


class _SyncedPair(QtWidgets.QSplitter):
    """Two table views side by side whose vertical scroll bars move together."""

    def __init__(self, left_title: str, right_title: str, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(QtCore.Qt.Horizontal, parent)
        self.left_model = FrameModel(self)
        self.right_model = FrameModel(self)
        self.left = self._view(self.left_model)
        self.right = self._view(self.right_model)
        self.left_title = QtWidgets.QLabel(left_title)
        self.right_title = QtWidgets.QLabel(right_title)
        for title, view in ((self.left_title, self.left), (self.right_title, self.right)):
            box = QtWidgets.QWidget()
            lay = QtWidgets.QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            title.setStyleSheet("font-weight: bold;")
            lay.addWidget(title)
            lay.addWidget(view)
            self.addWidget(box)
        self._syncing = False
        sync = weak_callback(self._sync)  # (no lambda over self: it would make a reference cycle)
        self.left.verticalScrollBar().valueChanged.connect(lambda v, s=sync: s("left", v))
        self.right.verticalScrollBar().valueChanged.connect(lambda v, s=sync: s("right", v))
        #: also scroll sideways together (when both sides have the same columns)
        self.sync_horizontal = False
        hsync = weak_callback(self._sync_h)
        self.left.horizontalScrollBar().valueChanged.connect(lambda v, s=hsync: s("left", v))
        self.right.horizontalScrollBar().valueChanged.connect(lambda v, s=hsync: s("right", v))

    @staticmethod
    def _view(model: FrameModel) -> QtWidgets.QTableView:
        view = QtWidgets.QTableView()
        view.setModel(model)
        view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectRows)
        view.setSelectionMode(QtWidgets.QAbstractItemView.SingleSelection)
        view.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        view.setVerticalScrollMode(QtWidgets.QAbstractItemView.ScrollPerItem)
        view.verticalHeader().setDefaultSectionSize(22)
        view.horizontalHeader().setStretchLastSection(True)
        view.horizontalHeader().setResizeContentsPrecision(200)  # size columns from the first 200 rows
        return view

    def fit_columns(self) -> None:
        """Size columns to their header and the first 200 rows (measured in bold, as changed cells are), at
        most 320 px each."""
        for view in (self.left, self.right):
            model = view.model()
            header = view.horizontalHeader()
            cells = QtGui.QFontMetrics(bold_font())
            for c in range(model.columnCount()):
                header.resizeSection(c, min(320, model.column_width(c, cells, header.fontMetrics())))

    def scroll_to(self, side: str, row: int) -> None:
        """Bring ``row`` of one side into view without moving the other side."""
        view = self.left if side == "left" else self.right
        self._syncing = True
        try:
            view.scrollTo(view.model().index(row, 0), QtWidgets.QAbstractItemView.EnsureVisible)
        finally:
            self._syncing = False

    def _sync_h(self, side: str, value: int) -> None:
        if not self.sync_horizontal or self._syncing:
            return
        target = self.right if side == "left" else self.left
        self._syncing = True
        try:
            target.horizontalScrollBar().setValue(value)
        finally:
            self._syncing = False

    def _sync(self, side: str, value: int) -> None:
        source, target = (self.left, self.right) if side == "left" else (self.right, self.left)
        if self._syncing:
            return
        self._syncing = True
        try:
            s_max = source.verticalScrollBar().maximum()
            t_bar = target.verticalScrollBar()
            if s_max == t_bar.maximum() or s_max == 0:
                t_bar.setValue(value)
            else:  # different lengths (strings): keep the same relative position
                t_bar.setValue(int(round(value * t_bar.maximum() / s_max)))
        finally:
            self._syncing = False


class ComparePane(OutcomePane):
    """Original vs anonymized data, with changed cells and the selected record's group highlighted."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome: Any = None
        self.mode: str | None = None
        self._groups = np.zeros(0, dtype=np.int64)
        self._right_groups = np.zeros(0, dtype=np.int64)
        self._seq_rows: tuple[Any, Any] | None = None
        self.selected_record: int | None = None

        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        legend = QtWidgets.QLabel(
            f"<span style='background:{CHANGED.name()}'>&nbsp;changed cell&nbsp;</span>&nbsp;&nbsp;"
            f"<span style='background:{GROUP.name()}'>&nbsp;group of the selected record&nbsp;</span>"
        )
        self.pair = _SyncedPair("Original", "Anonymized")
        self.detail_pair = _SyncedPair("Original events", "Anonymized events")
        self.alignment = QtWidgets.QTextEdit()
        self.alignment.setReadOnly(True)
        self.alignment.setLineWrapMode(QtWidgets.QTextEdit.NoWrap)
        self.alignment.setObjectName("alignment")
        self.detail = QtWidgets.QStackedWidget()
        self.detail.addWidget(QtWidgets.QWidget())
        self.detail.addWidget(self.alignment)
        self.detail.addWidget(self.detail_pair)
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Vertical)
        self.splitter.addWidget(self.pair)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.empty = placeholder("Run a method to compare the original with the anonymized data.")

        body = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 0, 0)
        head = QtWidgets.QHBoxLayout()
        head.addWidget(self.summary, 1)
        head.addWidget(legend)
        lay.addLayout(head)
        lay.addWidget(self.splitter, 1)
        self.stack = self._stack(self.empty, body)

        select = weak_callback(self._select)  # (no lambda over self: it would make a reference cycle)
        self.pair.left.clicked.connect(lambda idx, f=select: f("left", idx.row()))
        self.pair.right.clicked.connect(lambda idx, f=select: f("right", idx.row()))
        self.pair.left.selectionModel().currentRowChanged.connect(lambda cur, _, f=select: f("left", cur.row()))
        self.pair.right.selectionModel().currentRowChanged.connect(lambda cur, _, f=select: f("right", cur.row()))

    # -- public API ----------------------------------------------------------------------------------------
    @property
    def left_model(self) -> FrameModel:
        return self.pair.left_model

    @property
    def right_model(self) -> FrameModel:
        return self.pair.right_model

    def clear(self) -> None:
        self.outcome = None
        self.mode = None
        self.selected_record = None
        self.pair.left_model.set_frame(None)
        self.pair.right_model.set_frame(None)
        self.detail_pair.left_model.set_frame(None)
        self.detail_pair.right_model.set_frame(None)
        self.alignment.clear()
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if not self._fresh(outcome, self.outcome):
            return
        self.outcome = outcome
        self.selected_record = None
        # tables: the equivalence classes a reader of the output sees (identical published values)
        self._groups = equivalence_classes(outcome)
        data, output = outcome.data, outcome.result.output
        kind = data_kind(data)
        if kind == "fasta" and isinstance(output, SequenceSet):
            self._show_strings(data, output)
        elif kind == "events" and isinstance(output, EventLog):
            self._show_events(data, output)
        else:
            self._show_table(frame_of(data), frame_of(output))
        self.stack.setCurrentIndex(1)

    def select_record(self, record: int) -> None:
        """Select original record (row, string or sequence) ``record`` as if clicked."""
        self.pair.left.selectRow(record)
        self._select("left", record)

    # -- tables ----------------------------------------------------------------------------------------
    def _show_table(self, original: pd.DataFrame, output: pd.DataFrame) -> None:
        self.mode = "table"
        if original is None or output is None:
            self.clear()
            return
        changed_out = changed_mask(original, output)
        changed_in = np.zeros(original.shape, dtype=bool)
        for j, col in enumerate(original.columns):
            if col in output.columns:
                k = list(output.columns).index(col)
                n = min(len(original), len(output))
                changed_in[:n, j] = changed_out[:n, k]
        self.pair.left_model.set_frame(original, changed_in)
        self.pair.right_model.set_frame(output, changed_out)
        self.pair.fit_columns()
        self.pair.sync_horizontal = list(original.columns) == list(output.columns)
        if self.pair.sync_horizontal:  # same columns: same widths, so sideways scrolling lines up
            for c in range(len(output.columns)):
                w = max(self.pair.left.columnWidth(c), self.pair.right.columnWidth(c))
                self.pair.left.setColumnWidth(c, w)
                self.pair.right.setColumnWidth(c, w)
        self._right_groups = self._groups
        self.pair.left_title.setText(f"Original — {len(original):,} rows")
        self.pair.right_title.setText(f"Anonymized — {len(output):,} rows")
        n_changed = int(changed_out.sum())
        rows_changed = int(changed_out.any(axis=1).sum())
        self.summary.setText(
            f"{n_changed:,} cells changed in {rows_changed:,} of {len(output):,} rows. "
            "Select a record to highlight its equivalence class on both sides."
        )
        self.detail.setCurrentIndex(0)
        self.detail.hide()

    # -- strings ---------------------------------------------------------------------------------------
    def _show_strings(self, data: SequenceSet, output: SequenceSet) -> None:
        self.mode = "fasta"
        self.pair.sync_horizontal = False
        self._right_groups = pseudo_groups(output, getattr(self.outcome.result, "details", {}))
        self._data, self._output = data, output
        left = pd.DataFrame({
            "id": data.ids,
            "group": [str(g) if g >= 0 else "removed" for g in self._groups[: len(data)]],
            "length": data.lengths.astype(str),
            "sequence": data.strings(),
        })
        right = pd.DataFrame({
            "pseudo-string": [h.split()[0] if h else i for h, i in zip(output.headers, output.ids)],
            "group": [str(g) for g in self._right_groups],
            "length": output.lengths.astype(str),
            "sequence": output.strings(),
        })
        self.pair.left_model.set_frame(left, tooltips=data.headers)
        self.pair.right_model.set_frame(right, tooltips=output.headers)
        self.pair.fit_columns()
        self.pair.left_title.setText(f"Original strings — {len(data):,}")
        self.pair.right_title.setText(f"Pseudo-strings — {len(output):,}")
        self.summary.setText(
            f"{len(data):,} strings condensed into {len(np.unique(self._groups[self._groups >= 0])):,} groups, "
            f"{len(output):,} pseudo-strings. Select a string to see its group and align it with a "
            "pseudo-string of the same group."
        )
        self.alignment.setHtml("<i>Select a string to align it with a pseudo-string of its group.</i>")
        self.detail.setCurrentWidget(self.alignment)
        self.detail.show()

    def align(self, original: int, pseudo: int) -> tuple[list[str], list[str]]:
        """Align original string ``original`` with pseudo-string ``pseudo`` and show it; returns the rows."""
        a = self._data.symbols_of(original)
        b = self._output.symbols_of(pseudo)
        row_a, row_b, score = align_for_display(a, b)
        self.alignment.setHtml(
            alignment_html(row_a, row_b, self._data.ids[original][:18], self._output.ids[pseudo][:18], score)
        )
        return row_a, row_b

    # -- events ----------------------------------------------------------------------------------------
    def _show_events(self, data: EventLog, output: EventLog) -> None:
        self.mode = "events"
        self.pair.sync_horizontal = False
        orig = sequence_rows(data)
        anon = sequence_rows(output, ids=orig.ids)
        self._seq_rows = (orig, anon)
        self._data, self._output = data, output
        groups = [str(g) if g >= 0 else "removed" for g in self._groups[: len(orig.ids)]]
        left = pd.DataFrame({"sequence": orig.ids, "group": groups, "events": orig.n_events.astype(str),
                             "events (QI/sensitive)": orig.text})
        right = pd.DataFrame({"sequence": anon.ids, "group": groups, "events": anon.n_events.astype(str),
                              "events (QI/sensitive)": anon.text})
        changed = np.zeros(right.shape, dtype=bool)
        changed[:, 2] = orig.n_events != anon.n_events
        changed[:, 3] = np.array([a != b for a, b in zip(orig.text, anon.text)], dtype=bool)
        self.pair.left_model.set_frame(left, changed)
        self.pair.right_model.set_frame(right, changed)
        self.pair.fit_columns()
        self._right_groups = self._groups
        self.pair.left_title.setText(f"Original — {len(orig.ids):,} sequences, {data.n_events:,} events")
        self.pair.right_title.setText(f"Anonymized — {len(output):,} sequences, {output.n_events:,} events")
        removed = int((anon.n_events == 0).sum())
        self.summary.setText(
            f"{int(changed[:, 3].sum()):,} of {len(orig.ids):,} sequences changed, {removed:,} removed, "
            f"{data.n_events - output.n_events:,} events suppressed. Select a sequence to see its events."
        )
        self.detail_pair.left_model.set_frame(None)
        self.detail_pair.right_model.set_frame(None)
        self.detail.setCurrentWidget(self.detail_pair)
        self.detail.show()

    def _show_sequence(self, i: int) -> None:
        orig, anon = self._seq_rows
        data, output = self._data, self._output
        cols = [c for c in data.df.columns if c != data.sequence_id]
        a = data.df.iloc[orig.rows[i]][cols].reset_index(drop=True)
        b_rows = output.df.iloc[anon.rows[i]] if len(anon.rows[i]) else output.df.iloc[0:0]
        out_cols = [c for c in cols if c in output.df.columns]
        aligned = pd.DataFrame("", index=range(len(a)), columns=out_cols, dtype=object)
        labels = []
        for r, p in enumerate(self._published_rows(orig.rows[i], b_rows, a[data.event_order].astype(str))):
            if p is not None:  # the kept event's published row, under the original event it came from
                aligned.iloc[r] = b_rows[out_cols].iloc[p].astype("string").fillna("").tolist()
                labels.append(str(p + 1))  # its number in the published sequence (events are numbered 1..m)
            else:
                labels.append("suppressed")
        changed = changed_mask(a, aligned)
        self.detail_pair.left_model.set_frame(a, changed_mask(aligned, a))
        self.detail_pair.right_model.set_frame(aligned, changed, row_labels=labels)
        self.detail_pair.fit_columns()
        self.detail_pair.left_title.setText(f"Sequence {orig.ids[i]} — {len(a)} events")
        self.detail_pair.right_title.setText(f"Anonymized — {len(b_rows)} events kept")

    def _published_rows(self, original_rows: np.ndarray, b_rows: pd.DataFrame, order_values: pd.Series) -> list:
        """For each original event of a sequence (``original_rows``, rows of the input in event order), the
        row of ``b_rows`` (its published events) it became, or ``None`` if suppressed. From the run's own
        record of which events it kept (CBMSA's ``event_rows``/``event_published_row``): published events
        are numbered 1..m, so their numbers no longer name the original events. Without that record (an
        output from elsewhere), events are matched by equal order values."""
        details = getattr(getattr(self.outcome, "result", None), "details", None) or {}
        rows, published = details.get("event_rows"), details.get("event_published_row")
        if rows is not None and published is not None and len(b_rows):
            pub_of = np.full(int(np.max(rows)) + 1, -1, dtype=np.int64)
            pub_of[np.asarray(rows)] = np.asarray(published)
            position = {int(label): p for p, label in enumerate(b_rows.index)}  # output row -> row of b_rows
            return [position.get(int(pub_of[r])) if r < len(pub_of) else None for r in original_rows]
        by_order = {str(v): r for r, v in enumerate(b_rows[self._output.event_order].astype(str))}
        return [by_order.get(v) for v in order_values]

    # -- selection -------------------------------------------------------------------------------------
    def _select(self, side: str, row: int) -> None:
        if self.outcome is None or row < 0:
            return
        if self.mode == "fasta":
            if side == "left":
                g = self._groups[row] if row < len(self._groups) else -1
                original = row
                candidates = np.flatnonzero(self._right_groups == g) if g >= 0 else np.zeros(0, dtype=np.int64)
                pseudo = int(candidates[0]) if len(candidates) else None
            else:
                g = self._right_groups[row]
                pseudo = row
                members = np.flatnonzero(self._groups == g)
                original = self.selected_record if self.selected_record in set(members.tolist()) else (
                    int(members[0]) if len(members) else None
                )
            self.selected_record = original
            self.pair.left_model.set_highlight(np.flatnonzero(self._groups == g) if g >= 0 else
                                               np.array([row]) if side == "left" else None)
            self.pair.right_model.set_highlight(np.flatnonzero(self._right_groups == g) if g >= 0 else None)
            if side == "left" and pseudo is not None:
                self.pair.scroll_to("right", pseudo)  # the group's pseudo-strings come into view
            elif side == "right" and original is not None:
                self.pair.scroll_to("left", original)
            if original is not None and pseudo is not None:
                self.align(original, pseudo)
            else:
                self.alignment.setHtml("<i>This string was removed: it is in no group.</i>")
            return
        members = group_members(self._groups, row)
        self.selected_record = row
        self.pair.left_model.set_highlight(members)
        self.pair.right_model.set_highlight(members)
        other = self.pair.right if side == "left" else self.pair.left
        if other.currentIndex().row() != row:
            blocker = QtCore.QSignalBlocker(other.selectionModel())
            other.selectRow(row)
            del blocker
        if self.mode == "events":
            self._show_sequence(row)


if __name__ == "__main__":
    import sys

    from anonstudio.gui.panes._common import run_preview
    from anonstudio.core.views import samples as _samples

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    kind = sys.argv[1] if len(sys.argv) > 1 else "table"
    pane = ComparePane()
    pane.show_outcome(_samples.preview_outcome(kind))
    pane.select_record(0)
    run_preview(pane, f"Compare ({kind}) — preview")
