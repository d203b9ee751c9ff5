"""The randomization pane: what random anonymization (Yang & Qiao, paper 001) did to a table.

Above, one row per quasi-identifier — its choice probability ``p_i``, its diversity ``e^{Entropy}``, how
many cells were redrawn, and the total-variation distance between its marginal before and after — with the
probabilistic anonymity Pa (Eq. 1) at the weights used, its maximum Σ e^H (Proposition 7) and Eq. 3's
uniform estimate. Beside it, the selected attribute's marginal distribution, original and anonymized bars
side by side (its 25 most frequent values). Below, the relative bias of supports (§5.2): for the 20 most
frequent values and pairs, the analytic E R(q) (Eq. 10 and its exact variance) against R(q) measured over
the method's reruns (``bias_runs``), ±2 standard errors; selecting a combination marks it in the plot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from anonstudio.gui.panes._common import ERROR_STYLE, ViewPane, column, fill_table, readonly_table, selected_row
from anonstudio.gui.panes._plots import legend_outside, readable_axes
from anonstudio.gui.workers import RunWorker, TaskRunner

#: values shown in the marginal plot
TOP_VALUES = 25


@dataclass
class RandomizationView:
    """The per-attribute figures of an RA outcome (no Qt: tested directly)."""

    attributes: list[str]
    weights: dict
    diversity: dict
    redrawn: dict
    variation: dict
    pa: float | None
    pa_max: float
    pa_uniform: float
    bias: pd.DataFrame | None

    def rows(self) -> list[list[str]]:
        return [[a, f"{self.weights.get(a, float('nan')):.3f}", f"{self.diversity.get(a, float('nan')):.2f}",
                 f"{self.redrawn.get(a, 0):,}", f"{self.variation.get(a, float('nan')):.4f}"] for a in self.attributes]

    def bias_rows(self) -> list[list[str]]:
        if self.bias is None:
            return []
        rows = []
        for r in self.bias.to_dict("records"):
            measured = (f"{r['empirical_mean']:+.4f} ± {r['empirical_se']:.4f}" if pd.notna(r.get("empirical_mean"))
                        else "not measured")
            rows.append([r["combination"], f"{r['support']:.3f}", f"{r['R_mean']:+.4f} (sd {r['R_sd']:.4f})", measured,
                         f"{r['z']:+.2f}" if pd.notna(r.get("z")) else ""])
        return rows


def randomization_view(outcome: Any) -> RandomizationView | None:
    """The figures of ``outcome``, or ``None`` when its method is not random anonymization."""
    report = getattr(outcome, "report", None) or {}
    m = report.get("metrics", {})
    if "redrawn_cells" not in m or "probabilistic_anonymity_max" not in m:
        return None
    details = getattr(getattr(outcome, "result", None), "details", None) or {}
    entropy = m.get("entropy", {})
    return RandomizationView(
        attributes=list(m["redrawn_cells"]), weights=dict(m.get("weights", {})),
        diversity={a: float(np.exp(h)) for a, h in entropy.items()}, redrawn=dict(m["redrawn_cells"]),
        variation=dict(m.get("total_variation", {})), pa=m.get("probabilistic_anonymity"),
        pa_max=float(m["probabilistic_anonymity_max"]), pa_uniform=float(m.get("probabilistic_anonymity_uniform_estimate", 0)),
        bias=details.get("bias"),
    )


def marginals(outcome: Any, attribute: str, top: int = TOP_VALUES) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(values, original share, anonymized share)`` of ``attribute``'s most frequent ``top`` values (by the
    original), as published (at the method's level, when one was named)."""
    details = outcome.result.details
    before = outcome.data.df[attribute]
    level = (details.get("levels") or {}).get(attribute)
    if level:
        h = outcome.hierarchies[attribute]
        before = before.map(lambda v: h.generalize(str(v), level) if pd.notna(v) else v)
    after = outcome.result.output.df[attribute]
    b = before.astype("string").fillna("(missing)").value_counts(normalize=True)
    a = after.astype("string").fillna("(missing)").value_counts(normalize=True)
    values = list(b.index[:top])
    return [str(v) for v in values], b.reindex(values).fillna(0).to_numpy(), a.reindex(values).fillna(0).to_numpy()


def parse_combination(text: str, outcome: Any) -> dict:
    """``"sex=Female, race=Black"`` → ``{"sex": "Female", "race": "Black"}`` with each value as it is in the
    published columns; a ``ValueError`` naming what is wrong (not a quasi-identifier, not one of its values)."""
    from anonstudio.core.algorithms.ra import published_original

    details = outcome.result.details
    qis = details["attributes"]
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise ValueError("type a combination such as " + ", ".join(f"{a}=…" for a in qis[:2]))
    original = published_original(outcome.data, qis, details.get("levels") or {}, outcome.hierarchies)
    combo = {}
    for part in parts:
        attr, eq, value = (x.strip() for x in part.partition("="))
        if not eq:
            raise ValueError(f"'{part}' is not attribute=value")
        if attr not in qis:
            raise ValueError(f"'{attr}' is not a quasi-identifier ({', '.join(qis)})")
        if attr in combo:
            raise ValueError(f"'{attr}' is named twice")
        values = {str(v): v for v in original[attr].dropna().unique()}
        if value not in values:
            raise ValueError(f"'{value}' is not a value of {attr}")
        combo[attr] = values[value]
    return combo


def combination_bias(outcome: Any, combo: dict, progress=None) -> pd.DataFrame:
    """The bias row of ``combo`` for this RA outcome: analytic, and measured over the method's reruns (runs on a
    worker thread: the reruns take ``bias_runs`` times one run)."""
    from anonstudio.core.algorithms import get

    cls = get(outcome.report["algorithm"])
    names = set(cls.parameters.names())
    method = cls(**{k: v for k, v in outcome.report["parameters"].items() if k in names})
    return method.bias_of(outcome.data, outcome.result, outcome.hierarchies, [combo], progress)


class RandomizationPane(ViewPane):
    """Random anonymization's result view: attributes and Pa, marginals before/after, bias analytic vs
    measured."""

    NOT_MINE = "The method '{method}' does not randomize; this view shows ra and ra-enhanced runs."

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = readonly_table(["quasi-identifier", "p (chosen)", "diversity e^H", "cells redrawn",
                                     "total variation"], "attributes")
        self.table.itemSelectionChanged.connect(self._on_attribute)
        self.marginal_plot = pg.PlotWidget(title="marginal distribution: original vs anonymized")
        self.marginal_plot.setBackground("w")
        self.marginal_plot.setMinimumHeight(150)
        self.marginal_plot.setLabel("left", "share of records")
        readable_axes(self.marginal_plot)
        self.marginal_plot.showGrid(y=True, alpha=0.25)
        legend_outside(self.marginal_plot)
        self.before_bars = pg.BarGraphItem(x=[], height=[], width=0.4, brush="#4c72b0", name="original")
        self.after_bars = pg.BarGraphItem(x=[], height=[], width=0.4, brush="#dd8452", name="anonymized")
        self.marginal_plot.addItem(self.before_bars)
        self.marginal_plot.addItem(self.after_bars)

        self.bias_table = readonly_table(["value combination q", "support", "analytic E R(q)", "measured R(q) ± se",
                                          "z"], "bias")
        self.bias_table.itemSelectionChanged.connect(self._on_combination)
        self.bias_plot = pg.PlotWidget(title="bias R(q): analytic × vs measured ● ± 2 se")
        self.bias_plot.setBackground("w")
        self.bias_plot.setMinimumHeight(150)
        self.bias_plot.setLabel("left", "R(q)")
        readable_axes(self.bias_plot)
        self.bias_plot.setLabel("bottom", "combination (most frequent values, then pairs)")
        self.bias_plot.showGrid(y=True, alpha=0.25)
        self.analytic = pg.ScatterPlotItem(symbol="x", size=10, pen=pg.mkPen("#b00020", width=2))
        self.measured = pg.ScatterPlotItem(symbol="o", size=6, brush="#1f77b4")
        self.errors = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), height=np.zeros(0), pen="#1f77b4")
        self.pick = pg.ScatterPlotItem(symbol="s", size=16, pen=pg.mkPen("#000000", width=2), brush=None)
        for item in (self.errors, self.measured, self.analytic, self.pick):
            self.bias_plot.addItem(item)

        # a combination the user types: analytic at once, measured over the reruns on a worker thread
        self.combo_edit = QtWidgets.QLineEdit()
        self.combo_edit.setObjectName("combination")
        self.combo_edit.setPlaceholderText("your combination, e.g. sex=Female, race=Black")
        self.combo_edit.returnPressed.connect(self.add_combination)
        self.combo_button = QtWidgets.QPushButton("Measure")
        self.combo_button.setToolTip("add this combination's analytic and measured R(q) to the table")
        self.combo_button.clicked.connect(self.add_combination)
        self.combo_status = QtWidgets.QLabel()
        self.combo_status.setWordWrap(True)
        row = QtWidgets.QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo_edit, 1)
        row.addWidget(self.combo_button)
        left = column((self.bias_table, 1), row, self.combo_status)
        self.runner = TaskRunner(self)
        self._measuring: Any = None
        # the two tables on the left, the two plots as tabs on the right: stacked, two plots did not fit a 1280 × 720
        # window's result dock with their axes; choosing an attribute shows its marginals, a combination its bias
        tables = QtWidgets.QSplitter(QtCore.Qt.Vertical)
        tables.addWidget(self.table)
        tables.addWidget(left)
        self.plots = QtWidgets.QTabWidget()
        self.plots.setObjectName("randomizationPlots")
        self.plots.addTab(self.marginal_plot, "Marginal distribution")
        self.plots.addTab(self.bias_plot, "Bias R(q)")
        split = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        split.addWidget(tables)
        split.addWidget(self.plots)
        split.setSizes([600, 520])  # the combinations are long: room for the analytic and measured columns
        self._view_layout(split, "Run random anonymization (ra or ra-enhanced) on a table to see which values were "
                                 "redrawn, the marginals before and after, Pa and the bias of supports.")

    # -- public API ----------------------------------------------------------------------------------------
    make_view = staticmethod(randomization_view)

    def _reset(self) -> None:
        self.runner.cancel()
        self.combo_status.setText("")
        self.combo_status.setStyleSheet("")
        self.table.setRowCount(0)
        self.bias_table.setRowCount(0)
        for bars in (self.before_bars, self.after_bars):
            bars.setOpts(x=[], height=[])
        for item in (self.analytic, self.measured, self.pick):
            item.setData([], [])
        self.errors.setData(x=np.zeros(0), y=np.zeros(0), height=np.zeros(0))

    def _present(self, view: RandomizationView, outcome: Any) -> None:
        total = sum(view.redrawn.values())
        pa = f"Pa = {view.pa:.1f} at these weights (Eq. 1); " if view.pa is not None else ""
        self.info.setText(
            f"{total:,} cells redrawn. {pa}maximum Σ e^H = {view.pa_max:.1f} (Proposition 7); uniform-weight estimate "
            f"{view.pa_uniform:.1f} (Eq. 3). A reader's chance of guessing a record's original quasi-identifiers is "
            f"about 1/Pa."
        )
        fill_table(self.table, view.rows())
        fill_table(self.bias_table, view.bias_rows())
        self._plot_bias()
        if view.attributes:
            self.table.selectRow(int(np.argmax([view.redrawn[a] for a in view.attributes])))

    def add_combination(self) -> None:
        """Measure the typed combination: its analytic row appears with the reruns' figures once they are in."""
        if self.view is None or self.runner.busy:
            return
        try:
            combo = parse_combination(self.combo_edit.text(), self._outcome)
        except ValueError as exc:
            self.combo_status.setText(str(exc))
            self.combo_status.setStyleSheet(ERROR_STYLE)
            return
        self.combo_status.setStyleSheet("")
        self.combo_status.setText("measuring over the reruns…")
        self.combo_button.setEnabled(False)
        worker = RunWorker(combination_bias, self._outcome, combo)
        worker.finished.connect(self._combination_measured)
        worker.failed.connect(self._combination_failed)
        worker.done.connect(self._combination_done)
        self._measuring = self._outcome
        self.runner.start_worker(worker)

    def _combination_done(self) -> None:
        self.combo_button.setEnabled(True)

    def _combination_measured(self, rows: pd.DataFrame) -> None:
        if self.view is None or self.view.bias is None or self._measuring is not self._outcome:
            return  # another run's outcome arrived meanwhile
        self.view.bias = pd.concat([self.view.bias, rows], ignore_index=True)
        fill_table(self.bias_table, self.view.bias_rows())
        self._plot_bias()
        self.bias_table.selectRow(len(self.view.bias) - 1)
        self.bias_table.scrollToBottom()
        self.combo_status.setText(f"{rows['combination'].iloc[0]}: added as row {len(self.view.bias)}")

    def _combination_failed(self, exc: BaseException) -> None:
        self.combo_status.setText(f"could not measure it: {exc}")
        self.combo_status.setStyleSheet(ERROR_STYLE)

    def marginal_heights(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.asarray(self.before_bars.opts.get("height", [])), np.asarray(self.after_bars.opts.get("height", [])))

    # -- internals -----------------------------------------------------------------------------------------
    def _on_attribute(self) -> None:
        row = selected_row(self.table)
        if row is None or self.view is None:
            return
        self.plots.setCurrentWidget(self.marginal_plot)
        attr = self.view.attributes[row]
        values, before, after = marginals(self._outcome, attr)
        x = np.arange(len(values))
        self.before_bars.setOpts(x=x - 0.2, height=before, width=0.4)
        self.after_bars.setOpts(x=x + 0.2, height=after, width=0.4)
        axis = self.marginal_plot.getAxis("bottom")
        axis.setTicks([[(i, v if len(v) <= 12 else v[:11] + "…") for i, v in enumerate(values)]])
        self.marginal_plot.setLabel("bottom", f"{attr} (most frequent {len(values)} values)")
        self.marginal_plot.enableAutoRange()

    def _plot_bias(self) -> None:
        b = self.view.bias if self.view is not None else None
        if b is None or not len(b):
            return
        x = np.arange(len(b), dtype=float)
        self.analytic.setData(x, b["R_mean"].to_numpy(dtype=float))
        if "empirical_mean" in b:
            y = b["empirical_mean"].to_numpy(dtype=float)
            se = np.nan_to_num(b["empirical_se"].to_numpy(dtype=float))
            self.measured.setData(x, y)
            self.errors.setData(x=x, y=y, height=4 * se)  # ±2 se
        self.bias_plot.enableAutoRange()

    def _on_combination(self) -> None:
        row = selected_row(self.bias_table)
        b = self.view.bias if self.view is not None else None
        if row is None or b is None:
            return
        self.plots.setCurrentWidget(self.bias_plot)
        self.pick.setData([float(row)], [float(b["R_mean"].iloc[row])])
