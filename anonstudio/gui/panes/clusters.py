"""The clusters pane: what CBMSA (Sehatkar & Matwin, 004) made of an event log, one cluster at a time.

Above, every cluster with its size, information loss (004 Eq. 2) and the share of its sequences that show a
highly-sensitive value (HighSensList / size) against the bound c, beside two plots: IL per cluster and that
confidence per cluster with c drawn as a line. Below, the selected cluster's sequences, each as two rows —
the original events and the published ones — aligned on the cluster's representative: column *t* holds the
event each member publishes as the representative's *t*-th event, so a column reads as one generalized
event across all members. Generalized cells are tinted, suppressed events are listed (struck out, red) in the
last column, and sequences that publish a highly-sensitive value are marked (those whose highly-sensitive
events were all suppressed are marked apart: they do not count against c).

The method's ``Result.details`` must carry ``sequence_ids``, ``sequence_offsets``, ``event_rows``,
``event_kept``, ``event_published_row``, ``sequence_cluster``, ``sequence_loss``, ``cluster_loss``,
``cluster_size``, ``cluster_high``, ``cluster_confidence``, ``c`` and ``highly_sensitive`` (as CBMSA's do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from anonstudio.gui.panes._common import ViewPane, column
from anonstudio.gui.panes._plots import readable_axes

GENERALIZED = QtGui.QColor("#fff2b3")
SUPPRESSED = QtGui.QColor("#f6c4c4")
HIGH = QtGui.QColor("#b00020")
_KEYS = ("sequence_cluster", "cluster_loss", "cluster_confidence", "event_kept", "event_published_row")


@dataclass
class ClusterView:
    """The per-cluster figures of a CBMSA outcome (no Qt: tested directly)."""

    size: np.ndarray
    loss: np.ndarray
    high: np.ndarray
    confidence: np.ndarray
    c: float
    k: int
    omega: list[str]
    removed: int

    def caption(self) -> str:
        """The line above the clusters: sequences counted as sequences, the removed ones only when there are
        any (with why), the bound and the total loss."""
        from anonstudio.core.views import plural

        removed = (f"{plural(self.removed, 'sequence')} removed: the last cluster could not satisfy (k,c) and was "
                   "left out" if self.removed else "no sequence removed")
        return (f"{plural(len(self.size), 'cluster')} of at least k = {self.k} sequences; {removed}. Highly "
                f"sensitive: {', '.join(self.omega) or 'none named'}; bound c = {self.c:g}. "
                f"Total IL {self.loss.sum():.2f}.")

    def rows(self) -> list[list[str]]:
        return [[str(g + 1), str(int(self.size[g])), f"{self.loss[g]:.3f}", f"{self.loss[g] / max(self.size[g], 1):.3f}",
                 str(int(self.high[g])), f"{self.confidence[g]:.2f}",
                 "yes" if self.confidence[g] <= self.c + 1e-12 else "NO"] for g in range(len(self.size))]


def cluster_view(outcome: Any) -> ClusterView | None:
    """The clusters of ``outcome``, or ``None`` when its method does not cluster sequences."""
    details = getattr(getattr(outcome, "result", None), "details", None) or {}
    if not all(k in details for k in _KEYS):
        return None
    return ClusterView(
        size=np.asarray(details["cluster_size"]), loss=np.asarray(details["cluster_loss"], dtype=float),
        high=np.asarray(details["cluster_high"]), confidence=np.asarray(details["cluster_confidence"], dtype=float),
        c=float(details["c"]), k=int(details["k"]), omega=[str(v) for v in details["highly_sensitive"]],
        removed=int((np.asarray(details["sequence_cluster"]) < 0).sum()),
    )


def member_cells(outcome: Any) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The original QI cells, sensitive values and published QI cells of ``outcome`` as strings (built once
    per outcome: :class:`ClustersPane` keeps them while the user goes through the clusters)."""
    data, out = outcome.data, outcome.result.output
    qis = list(data.quasi_identifiers)
    sens = data.df[data.sensitive].astype(str).to_numpy() if data.sensitive else None
    return data.df[qis].astype(str).to_numpy(), sens, out.df[qis].astype(str).to_numpy()


def cluster_members(outcome: Any, cluster: int, cells: tuple | None = None) -> list[dict]:
    """Per member sequence of ``cluster``: its id, original events (QI tuples), for each the slot of the
    representative it is published as (-1: suppressed), the published events, the sensitive values and
    whether it shows a highly-sensitive value. ``cells``: :func:`member_cells` of the outcome, if at hand."""
    details = outcome.result.details
    seq_off = np.asarray(details["sequence_offsets"])
    rows = np.asarray(details["event_rows"])
    kept = np.asarray(details["event_kept"])
    pub = np.asarray(details["event_published_row"])
    omega = {str(v) for v in details["highly_sensitive"]}
    orig_q, sens, out_q = cells if cells is not None else member_cells(outcome)
    members = []
    for s in np.flatnonzero(np.asarray(details["sequence_cluster"]) == cluster):
        lo, hi = int(seq_off[s]), int(seq_off[s + 1])
        slots = np.where(kept[lo:hi], np.cumsum(kept[lo:hi]) - 1, -1)
        events = [tuple(orig_q[rows[e]]) for e in range(lo, hi)]
        published = [tuple(out_q[pub[e]]) for e in range(lo, hi) if kept[e]]
        sv = [str(sens[rows[e]]) for e in range(lo, hi)] if sens is not None else [""] * (hi - lo)
        members.append({"id": details["sequence_ids"][s], "events": events, "slots": slots.tolist(),
                        "published": published, "sensitive": sv, "high": any(v in omega for v in sv),
                        "high_published": any(v in omega for v, t in zip(sv, slots) if t >= 0),
                        "loss": float(details["sequence_loss"][s])})
    return members


class ClustersPane(ViewPane):
    """Clusters of an event-sequence run: table and plots above, the chosen cluster's sequences below."""

    NOT_MINE = ("The method '{method}' does not cluster sequences; this view shows CBMSA runs on event logs.")

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._cells: tuple | None = None
        self.table = QtWidgets.QTableWidget(0, 7)
        self.table.setObjectName("clusters")
        self.table.setHorizontalHeaderLabels(["cluster", "sequences", "IL (Eq. 2)", "IL / sequence",
                                              "highly sensitive", "confidence", "≤ c"])
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setSortingEnabled(False)
        self.table.itemSelectionChanged.connect(self._on_select)

        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setBackground("w")
        self.plots.setMinimumHeight(150)  # two plots side by side, axes readable in a 1280 × 720 window's dock
        self.il_plot = self.plots.addPlot(row=0, col=0, title="IL per cluster")
        self.conf_plot = self.plots.addPlot(row=0, col=1, title="highly-sensitive share per cluster")
        for p in (self.il_plot, self.conf_plot):
            p.showGrid(x=False, y=True, alpha=0.25)
            p.setLabel("bottom", "cluster")
            readable_axes(p)
        self.il_plot.setLabel("left", "IL")
        self.conf_plot.setLabel("left", "share of sequences")
        self.il_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#4c72b0")
        self.conf_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#dd8452")
        self.il_plot.addItem(self.il_bars)
        self.conf_plot.addItem(self.conf_bars)
        self.c_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#b00020", width=2, style=QtCore.Qt.DashLine),
                                      label="c", labelOpts={"color": "#b00020", "position": 0.95})
        self.conf_plot.addItem(self.c_line)
        self.marker = pg.ScatterPlotItem(size=12, symbol="t", brush="#000000")
        self.il_plot.addItem(self.marker)

        self.members = QtWidgets.QTableWidget(0, 0)
        self.members.setObjectName("members")
        self.members.setMinimumHeight(60)
        self.members.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.members.verticalHeader().setDefaultSectionSize(22)
        self.members_title = QtWidgets.QLabel("Select a cluster to see its sequences before and after.")
        self.members_title.setWordWrap(True)

        top = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        top.addWidget(self.table)
        top.addWidget(self.plots)
        top.setSizes([400, 800])
        bottom = column(self.members_title, (self.members, 1))
        split = QtWidgets.QSplitter(QtCore.Qt.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setSizes([300, 300])
        self._view_layout(split, "Run CBMSA or its baseline on an event log to see its clusters: each one's "
                                 "sequences before and after, its loss and its highly-sensitive share against c.")

    # -- public API ----------------------------------------------------------------------------------------
    make_view = staticmethod(cluster_view)

    def _reset(self) -> None:
        self._cells = None
        self.table.setRowCount(0)
        self.members.setRowCount(0)
        self.members.setColumnCount(0)
        self.il_bars.setOpts(x=[], height=[])
        self.conf_bars.setOpts(x=[], height=[])
        self.marker.setData([], [])

    def _present(self, view: ClusterView, outcome: Any) -> None:
        self._cells = member_cells(outcome)
        n = len(view.size)
        self.info.setText(view.caption())
        self.table.setRowCount(n)
        for r, row in enumerate(view.rows()):
            for col, text in enumerate(row):
                item = QtWidgets.QTableWidgetItem(text)
                if col == 6 and text != "yes":
                    item.setForeground(HIGH)
                self.table.setItem(r, col, item)
        self.table.resizeColumnsToContents()
        x = np.arange(1, n + 1)
        self.il_bars.setOpts(x=x, height=view.loss, width=0.8)
        self.conf_bars.setOpts(x=x, height=view.confidence, width=0.8)
        self.c_line.setValue(view.c)
        self.conf_plot.setYRange(0, max(1.0, float(view.confidence.max()) if n else 1.0) * 1.05)
        self.il_plot.autoRange()
        if n:
            self.select_cluster(int(np.argmax(view.loss)))

    def select_cluster(self, cluster: int) -> None:
        """Show cluster ``cluster`` (0-based) below and mark it in the IL plot."""
        self.table.selectRow(cluster)

    def selected_cluster(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def bar_heights(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.asarray(self.il_bars.opts.get("height", [])), np.asarray(self.conf_bars.opts.get("height", [])))

    # -- internals -----------------------------------------------------------------------------------------
    def _on_select(self) -> None:
        g = self.selected_cluster()
        if g is None or self.view is None:
            return
        self.marker.setData([g + 1], [float(self.view.loss[g])])
        members = cluster_members(self._outcome, g, self._cells)
        width = max((len(m["published"]) for m in members), default=0)
        self.members.clear()
        self.members.setColumnCount(width + 1)
        self.members.setHorizontalHeaderLabels([f"event {t + 1}" for t in range(width)] + ["suppressed"])
        self.members.setRowCount(2 * len(members))
        labels = []
        for i, m in enumerate(members):
            # ⚠: publishes a highly-sensitive value (counts in the cluster's HighSensList); in brackets: its
            # only highly-sensitive events were suppressed
            mark = " ⚠" if m["high_published"] else " (⚠ suppressed)" if m["high"] else ""
            labels += [f"{m['id']}{mark} original", f"{m['id']} published"]
            suppressed = []
            for e, (ev, slot) in enumerate(zip(m["events"], m["slots"])):
                text = " · ".join(ev) + (f"  [{m['sensitive'][e]}]" if m["sensitive"][e] else "")
                item = QtWidgets.QTableWidgetItem(text)
                if m["sensitive"][e] in self.view.omega:
                    item.setForeground(HIGH)
                if slot < 0:
                    suppressed.append(text)
                    continue
                pub = m["published"][slot]
                changed = pub != ev
                if changed:
                    item.setBackground(GENERALIZED)
                self.members.setItem(2 * i, slot, item)
                out = QtWidgets.QTableWidgetItem(" · ".join(pub))
                if changed:
                    out.setBackground(GENERALIZED)
                    out.setToolTip("generalized: " + ", ".join(f"{a} → {b}" for a, b in zip(ev, pub) if a != b))
                self.members.setItem(2 * i + 1, slot, out)
            if suppressed:
                item = QtWidgets.QTableWidgetItem(" | ".join(suppressed))
                item.setBackground(SUPPRESSED)
                f = item.font()
                f.setStrikeOut(True)
                item.setFont(f)
                item.setToolTip("suppressed: not published")
                self.members.setItem(2 * i, width, item)
        self.members.setVerticalHeaderLabels(labels)
        self.members.resizeColumnsToContents()
        v = self.view
        self.members_title.setText(
            f"Cluster {g + 1}: {int(v.size[g])} sequences, IL {v.loss[g]:.3f}, {int(v.high[g])} showing a highly-"
            f"sensitive value (confidence {v.confidence[g]:.2f} vs c = {v.c:g}). Each column is one published "
            "event; tinted cells were generalized, struck-out events suppressed; ⚠ marks a sequence that "
            "publishes a highly-sensitive value, (⚠ suppressed) one whose such events were all suppressed.")

    def member_cell(self, row: int, col: int) -> str:
        item = self.members.item(row, col)
        return item.text() if item is not None else ""


if __name__ == "__main__":
    import sys

    from anonstudio.core.views import samples as _samples
    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    pane = ClustersPane()
    pane.show_outcome(_samples.preview_outcome("events"))
    run_preview(pane, "Clusters — preview")
