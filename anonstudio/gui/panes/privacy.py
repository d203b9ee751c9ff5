"""The privacy pane: the independent verifier's verdict, the distribution of equivalence-class sizes, the
smallest classes, and for strings the fragment-leak figures of the report.

The verdict is the one :mod:`anonstudio.core.privacy` reached by re-checking the output from scratch
(``outcome.verification``); class sizes are counted here from ``outcome.result.groups``.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from anonstudio.core.data import SequenceSet
from anonstudio.gui.panes._common import INVALID, OK_COLOUR, OutcomePane, placeholder
from anonstudio.gui.panes._plots import readable_axes
from anonstudio.core.views import (
    checked_meaning,
    class_sizes,
    flatten_dict,
    format_value,
    frame_of,
    equivalence_classes,
    leak_metrics,
    model_failures,
    pseudo_groups,
    size_histogram,
    verification_dict,
)

#: how many of the smallest classes the table lists
SMALLEST = 25
WARNING_COLOUR = "#b35c00"
BAR_BRUSH = "#4c72b0"


class PrivacyPane(OutcomePane):
    """Verdict, class-size histogram, smallest classes and (strings) fragment-leak figures."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.outcome: Any = None
        self.sizes = np.zeros(0, dtype=np.int64)
        #: the run's warnings as shown (risks outside the privacy model)
        self.warnings: list[str] = []

        self.verdict = QtWidgets.QLabel()
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        self.details = self._table(["check", "value", "meaning"])
        self.details.setObjectName("verification_details")
        # which privacy model each failing class breaks (the models a method enforces beyond k, as the verdict names them)
        self.failures = self._table(["model", "row", "records", "why"])
        self.failures.setObjectName("model_failures")
        self.failure_box = QtWidgets.QGroupBox("Classes that break a privacy model")
        QtWidgets.QVBoxLayout(self.failure_box).addWidget(self.failures)
        self.failure_box.hide()
        self.leaks = self._table(["figure", "value"])
        self.leaks.setObjectName("leaks")
        self.leak_box = QtWidgets.QGroupBox("Fragments of originals in the pseudo-strings")
        QtWidgets.QVBoxLayout(self.leak_box).addWidget(self.leaks)

        self.hist = pg.PlotWidget(background="w")
        self.hist.setLabel("bottom", "class size (records)")
        self.hist.setLabel("left", "number of classes")
        self.hist.showGrid(y=True, alpha=0.25)
        self.hist.setMouseEnabled(y=False)
        readable_axes(self.hist)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=BAR_BRUSH)
        self.hist.addItem(self.bars)
        self.k_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(INVALID, width=1.5, style=QtCore.Qt.DashLine),
                                      label="k", labelOpts={"position": 0.92, "color": INVALID})
        self.k_line.hide()
        self.hist.addItem(self.k_line)
        self.smallest = self._table(["class", "size", "records", "shared values"])
        self.smallest.setObjectName("smallest")
        self.class_note = QtWidgets.QLabel()
        self.class_note.setWordWrap(True)
        self.class_note.hide()

        left = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.verdict)
        ll.addWidget(self.details, 1)
        ll.addWidget(self.failure_box, 1)
        ll.addWidget(self.leak_box, 1)
        right = QtWidgets.QSplitter(QtCore.Qt.Vertical)
        self.classes_view = right
        hist_box = QtWidgets.QWidget()
        hl = QtWidgets.QVBoxLayout(hist_box)
        hl.setContentsMargins(0, 0, 0, 0)
        hl.addWidget(self.hist, 1)
        hl.addWidget(self.class_note)
        right.addWidget(hist_box)
        box = QtWidgets.QGroupBox(f"Smallest classes (up to {SMALLEST})")
        QtWidgets.QVBoxLayout(box).addWidget(self.smallest)
        right.addWidget(box)
        right.setSizes([320, 260])
        splitter = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([340, 560])
        self.empty = placeholder("Run a method to see the verifier's verdict and the class sizes.")
        self.stack = self._stack(self.empty, splitter)

    @staticmethod
    def _table(headers: list[str]) -> QtWidgets.QTableWidget:
        t = QtWidgets.QTableWidget(0, len(headers))
        t.setHorizontalHeaderLabels(headers)
        t.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        t.verticalHeader().setVisible(False)
        t.verticalHeader().setDefaultSectionSize(22)
        t.horizontalHeader().setStretchLastSection(True)
        return t

    @staticmethod
    def _fill(table: QtWidgets.QTableWidget, rows: list[tuple[str, ...]]) -> None:
        table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QtWidgets.QTableWidgetItem(text)
                item.setToolTip(text)
                table.setItem(r, c, item)
        table.resizeColumnsToContents()

    # -- public API ----------------------------------------------------------------------------------------
    def clear(self) -> None:
        self.outcome = None
        self.sizes = np.zeros(0, dtype=np.int64)
        self.bars.setOpts(x=[], height=[])
        for t in (self.details, self.leaks, self.smallest, self.failures):
            t.setRowCount(0)
        self.failure_box.hide()
        self.verdict.clear()
        self.warnings = []
        self.stack.setCurrentIndex(0)

    def show_outcome(self, outcome: Any) -> None:
        if not self._fresh(outcome, self.outcome):
            return
        self.outcome = outcome
        ver = verification_dict(outcome)
        self._show_verdict(ver, self.warnings_of(outcome))
        failures = model_failures(outcome)
        self._fill(self.failures, failures)
        self.failure_box.setVisible(bool(failures))
        groups = equivalence_classes(outcome)
        ids, sizes = class_sizes(groups)
        self.sizes = sizes
        self._show_histogram(sizes, self._k(outcome, ver))
        n_groups = len(class_sizes(outcome.result.groups)[0])
        self.class_note.setText(
            "" if n_groups == len(sizes) else
            f"The method formed {n_groups:,} groups; some share their published values, so a reader of the "
            f"output sees {len(sizes):,} equivalence classes (counted here, as the verifier does)."
        )
        self.class_note.setVisible(n_groups != len(sizes))
        self._show_smallest(outcome, groups, ids, sizes)
        # random anonymization and anatomy publish no equivalence classes: a class-size histogram of their
        # quasi-identifiers would suggest a k that nothing promised
        model = str(ver.get("model", ""))
        self.classes_view.setVisible(model.startswith("k-anonymity") or model == "(k,c)-privacy")
        leaks = leak_metrics(outcome.report)
        is_strings = isinstance(outcome.data, SequenceSet)
        self.leak_box.setVisible(is_strings or bool(leaks))
        self._fill(self.leaks, [(meaning or name, value) for name, value, meaning in leaks]
                   or [("(none reported)", "the report has no fragment-leak figure")])
        for r, (name, _, _) in enumerate(leaks):
            self.leaks.item(r, 0).setToolTip(f"report key: {name}")
        self.leaks.horizontalHeader().setSectionResizeMode(0, QtWidgets.QHeaderView.Stretch)
        self.leaks.horizontalHeader().setStretchLastSection(False)
        self.leaks.resizeColumnToContents(1)
        self.leaks.setWordWrap(True)
        self.leaks.resizeRowsToContents()
        self.stack.setCurrentIndex(1)

    def _release_changed(self) -> None:
        if self.outcome is not None:
            self._show_verdict(verification_dict(self.outcome), self.warnings_of(self.outcome))

    def failing_models(self) -> list[tuple[str, str]]:
        """``(model, row)`` of each failing class the pane lists."""
        return [(self.failures.item(r, 0).text(), self.failures.item(r, 1).text())
                for r in range(self.failures.rowCount())]

    def verdict_passed(self) -> bool | None:
        return None if self.outcome is None else bool(verification_dict(self.outcome).get("passed"))

    def bar_heights(self) -> tuple[np.ndarray, np.ndarray]:
        """``(x, height)`` of the histogram bars as drawn."""
        return np.asarray(self.bars.opts["x"], dtype=float), np.asarray(self.bars.opts["height"], dtype=float)

    # -- internals -----------------------------------------------------------------------------------------
    @staticmethod
    def _k(outcome: Any, ver: dict) -> int | None:
        for source in (ver.get("details") or {}, outcome.report.get("parameters", {})):
            k = source.get("k") if isinstance(source, dict) else None
            if isinstance(k, (int, float)) and not isinstance(k, bool):
                return int(k)
        return None

    def _show_verdict(self, ver: dict, warnings: list[str] = ()) -> None:
        passed = bool(ver.get("passed"))
        model = ver.get("model", "")
        colour = OK_COLOUR if passed else INVALID
        head = "✔ Verified" if passed else "✘ NOT verified"
        lines = [f"<div style='font-size: 14pt; font-weight: bold; color: {colour};'>{head}: "
                 f"{html.escape(str(model))}</div>"]
        if ver.get("summary"):
            lines.append(f"<div>{html.escape(str(ver['summary']))}</div>")
        problems = ver.get("problems") or []
        if problems:
            items = "".join(f"<li>{html.escape(str(p))}</li>" for p in problems[:20])
            more = f"<li>… {len(problems) - 20} more</li>" if len(problems) > 20 else ""
            lines.append(f"<ul style='color: {INVALID}; margin: 0;'>{items}{more}</ul>")
        lines.append("<div style='color:#555;'>Re-checked from the output by the independent verifier.</div>")
        if warnings:
            items = "".join(f"<li>{html.escape(str(w))}</li>" for w in warnings)
            lines.append(f"<div style='color:{WARNING_COLOUR}; font-weight: bold; margin-top: 6px;'>⚠ Risks the "
                         f"privacy model does not cover:</div><ul style='color:{WARNING_COLOUR}; margin: 0;'>{items}</ul>")
        self.warnings = list(warnings)
        self.verdict.setText("".join(lines))
        rows = [("passed", format_value(passed), "whether the output holds the model"),
                ("model", str(model), "the privacy model the verifier checked")]
        rows += [(name, format_value(v), checked_meaning(str(model), name))
                 for name, v in flatten_dict(ver.get("details") or {})]
        self._fill(self.details, rows)

    def _show_histogram(self, sizes: np.ndarray, k: int | None) -> None:
        values, counts = size_histogram(sizes)
        self.bars.setOpts(x=values.astype(float), height=counts.astype(float), width=0.8)
        n = len(sizes)
        if n:
            self.hist.setTitle(
                f"Class sizes: {n:,} classes, smallest {int(sizes.min())}, largest {int(sizes.max())}, "
                f"mean {float(sizes.mean()):.1f}", color="k", size="10pt")
            lo = min(int(values.min()), k if k is not None else int(values.min()))
            self.hist.setXRange(lo - 1, int(values.max()) + 1, padding=0.02)
            self.hist.setYRange(0, float(counts.max()) * 1.1, padding=0)
        else:
            self.hist.setTitle("No classes (every record was suppressed)", color="k", size="10pt")
        if k is not None:
            self.k_line.show()  # before the text changes: a hidden label does not update
            self.k_line.label.setFormat(f"k = {k}")
            self.k_line.setValue(k - 0.5)
            self.k_line.label.valueChanged()
        else:
            self.k_line.hide()

    def _show_smallest(self, outcome: Any, groups: np.ndarray, ids: np.ndarray, sizes: np.ndarray) -> None:
        order = np.lexsort((ids, sizes))[:SMALLEST]
        output = frame_of(outcome.result.output)
        qis = [q for q in (getattr(outcome.data, "quasi_identifiers", []) or [])
               if output is not None and q in output.columns]
        rows: list[tuple[str, ...]] = []
        positions: dict[int, np.ndarray] = {}
        if len(order):
            for g in set(ids[order].tolist()):  # a pass per listed class, not a sort of every record
                positions[g] = np.flatnonzero(groups == g)
        same_rows = output is not None and len(output) == len(groups)
        pseudo_count: dict[int, int] = {}
        if isinstance(outcome.result.output, SequenceSet):
            pg_ids, pg_counts = np.unique(pseudo_groups(outcome.result.output, outcome.result.details),
                                          return_counts=True)
            pseudo_count = dict(zip(pg_ids.tolist(), pg_counts.tolist()))
        self.smallest.setHorizontalHeaderLabels(
            ["class", "size", "records", "pseudo-strings" if pseudo_count else "shared values"])
        for i in order:
            g = int(ids[i])
            members = positions.get(g, np.zeros(0, dtype=np.int64))
            rec = ", ".join(str(int(m) + 1) for m in members[:6]) + (" …" if len(members) > 6 else "")
            shared = ""
            if same_rows and qis and len(members):
                first = output.iloc[int(members[0])]
                shared = ", ".join(f"{q}={first[q]}" for q in qis)
            elif pseudo_count:
                shared = str(pseudo_count.get(g, 0))
            rows.append((str(g), str(int(sizes[i])), rec, shared))
        self._fill(self.smallest, rows)


if __name__ == "__main__":
    import sys

    from anonstudio.core.views import samples as _samples
    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    pane = PrivacyPane()
    kind = sys.argv[1] if len(sys.argv) > 1 else "table"
    pane.show_outcome(_samples.preview_outcome("fasta" if kind == "fasta" else "table"))
    run_preview(pane, "Privacy — preview")
