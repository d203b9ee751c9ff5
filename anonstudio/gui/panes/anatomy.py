"""The anatomy pane: Anatomy's (Xiao & Tao, VLDB 2006) two published tables, linked by group.

Left, every group with its size, its distinct sensitive values and its largest sensitive share (at most
1/l by construction, checked by the verifier). Selecting a group shows, on the right, its rows of the
quasi-identifier table (QIT: the quasi-identifiers exactly as read, plus the group) above its rows of the
sensitive table (ST: group, sensitive value, count) and a bar plot of those counts — what a reader of the
release can link: each record of the group to any of its sensitive values, each with probability
count / size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from anonstudio.gui.panes._common import FrameModel, ViewPane, column, fill_table, readonly_table, selected_row
from anonstudio.gui.panes._plots import readable_axes


@dataclass
class AnatomyView:
    """Anatomy's published tables, indexed by group (no Qt: tested directly)."""

    qit: pd.DataFrame
    st: pd.DataFrame
    sensitive: str
    l: int
    groups: list[str]
    size: np.ndarray
    distinct: np.ndarray
    top_share: np.ndarray

    def rows(self) -> list[list[str]]:
        return [[g, str(int(self.size[i])), str(int(self.distinct[i])), f"{self.top_share[i]:.2f}"]
                for i, g in enumerate(self.groups)]

    def members(self, index: int) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The QIT rows and the ST rows of the ``index``-th group."""
        g = self.groups[index]
        return (self.qit[self.qit["group"].astype(str) == g],
                self.st[self.st["group"].astype(str) == g].reset_index(drop=True))


def anatomy_view(outcome: Any) -> AnatomyView | None:
    """The two tables of ``outcome``, or ``None`` when its method is not Anatomy."""
    result = getattr(outcome, "result", None)
    st = (getattr(result, "side_outputs", None) or {}).get("sensitive")
    sensitive = (getattr(result, "details", None) or {}).get("sensitive")
    if st is None or sensitive is None:
        return None
    qit = result.output.df
    counts = pd.to_numeric(st["count"])
    per_group = pd.DataFrame({"group": st["group"].astype(str), "count": counts}).groupby("group", sort=False)["count"]
    size, distinct, top = per_group.sum(), per_group.size(), per_group.max()
    order = sorted(size.index, key=lambda g: (len(g), g))  # 1, 2, …, 10 (the ids are numbers as text)
    return AnatomyView(qit=qit, st=st, sensitive=str(sensitive), l=int(outcome.report["parameters"].get("l", 0)),
                       groups=order, size=size[order].to_numpy(), distinct=distinct[order].to_numpy(),
                       top_share=(top[order] / size[order]).to_numpy())


class AnatomyPane(ViewPane):
    """Anatomy's result view: groups on the left; the chosen group's QIT rows, ST rows and counts."""

    NOT_MINE = "The method '{method}' publishes one table; this view shows Anatomy's two."

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.groups = readonly_table(["group", "records", "distinct sensitive", "largest share"], "groups")
        self.groups.itemSelectionChanged.connect(self._on_group)
        self.qit_model = FrameModel(self)
        self.qit = QtWidgets.QTableView()
        self.qit.setObjectName("qit")
        self.qit.setModel(self.qit_model)
        self.qit.verticalHeader().setDefaultSectionSize(22)
        self.st_model = FrameModel(self)
        self.st = QtWidgets.QTableView()
        self.st.setObjectName("st")
        self.st.setModel(self.st_model)
        self.st.verticalHeader().setDefaultSectionSize(22)
        self.qit_title = QtWidgets.QLabel("Quasi-identifier table (QIT)")
        self.st_title = QtWidgets.QLabel("Sensitive table (ST)")
        self.plot = pg.PlotWidget(title="sensitive values of the group")
        self.plot.setBackground("w")
        self.plot.setMinimumHeight(120)
        self.plot.setLabel("left", "records")
        readable_axes(self.plot)
        self.plot.showGrid(y=True, alpha=0.25)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush="#dd8452")
        self.plot.addItem(self.bars)

        low = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        low.addWidget(column(self.st_title, self.st))
        low.addWidget(self.plot)
        low.setSizes([300, 320])
        right = column(self.qit_title, (self.qit, 2), (low, 2))
        split = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        split.addWidget(self.groups)
        split.addWidget(right)
        split.setSizes([330, 620])
        self._view_layout(split, "Run Anatomy on a table to see its two published tables linked by group: each "
                                 "group's records and the sensitive values they share.")

    # -- public API ----------------------------------------------------------------------------------------
    make_view = staticmethod(anatomy_view)

    def _reset(self) -> None:
        self.groups.setRowCount(0)
        self.qit_model.set_frame(None)
        self.st_model.set_frame(None)
        self.bars.setOpts(x=[], height=[])

    def _present(self, view: AnatomyView, outcome: Any) -> None:
        self.info.setText(
            f"{len(view.groups):,} groups of {int(view.size.min())}–{int(view.size.max())} records, each with at least "
            f"l = {view.l} different '{view.sensitive}' values; largest share in any group "
            f"{float(view.top_share.max()):.2f} (≤ 1/l = {1 / max(view.l, 1):.2f})."
        )
        fill_table(self.groups, view.rows())
        if view.groups:
            self.groups.selectRow(0)

    def bar_heights(self) -> np.ndarray:
        return np.asarray(self.bars.opts.get("height", []))

    # -- internals -----------------------------------------------------------------------------------------
    def _on_group(self) -> None:
        row = selected_row(self.groups)
        if row is None or self.view is None:
            return
        qit, st = self.view.members(row)
        self.qit_model.set_frame(qit.reset_index(drop=True), row_labels=[str(i + 1) for i in qit.index])
        self.st_model.set_frame(st)
        self.qit_title.setText(f"Quasi-identifier table (QIT), group {self.view.groups[row]}: {len(qit)} records "
                               "(row numbers of the release)")
        self.st_title.setText(f"Sensitive table (ST), group {self.view.groups[row]}")
        counts = pd.to_numeric(st["count"]).to_numpy(dtype=float)
        self.bars.setOpts(x=np.arange(len(counts)), height=counts, width=0.7)
        self.plot.getAxis("bottom").setTicks([[(i, str(v)[:14]) for i, v in enumerate(st[self.view.sensitive])]])
        self.plot.enableAutoRange()
