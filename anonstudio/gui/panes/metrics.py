"""The metrics pane: the run's report as a table, and sweep plots.

The report table lists the contract keys (algorithm, parameters, records in and out, suppressed, groups,
runtime, verification, metrics, notes). The sweep plot shows one metric against the swept parameter
(k, c, group size …) for one method or several side by side; the main window feeds it with
:meth:`MetricsPane.add_point` as each point of a sweep arrives. The plot exports to PNG or SVG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pyqtgraph.exporters  # noqa: F401  (registers pg.exporters)
from PySide6 import QtCore, QtWidgets

from anonstudio.gui.panes._common import SERIES_COLOURS, StateBinding, column, placeholder
from anonstudio.gui.panes._plots import legend_outside, readable_axes
from anonstudio.core.views import MEANINGS, SweepState, report_rows

_SYMBOLS = ("o", "s", "t", "d", "+", "x", "star", "h")


class MetricsPane(QtWidgets.QWidget):
    """Report table above, sweep plot below (metric chooser, export)."""

    #: the plotted metric changed (its dotted name)
    metricChanged = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._binding = StateBinding(self, self._on_state)
        self.sweep = SweepState()
        self.failed_points = 0
        self.curves: dict[str, pg.PlotDataItem] = {}

        self.table = QtWidgets.QTableWidget(0, 3)
        self.table.setObjectName("report")
        self.table.setHorizontalHeaderLabels(["section", "name", "value"])
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setAlternatingRowColors(True)
        self.report_empty = placeholder("Run a method to see its report.")
        self.report_stack = QtWidgets.QStackedWidget()
        self.report_stack.addWidget(self.report_empty)
        self.report_stack.addWidget(self.table)

        self.metric_box = QtWidgets.QComboBox()
        self.metric_box.setObjectName("metric")
        self.metric_box.setMinimumContentsLength(16)
        self.metric_box.currentTextChanged.connect(self._on_metric)
        self.export_button = QtWidgets.QPushButton("Export plot…")
        self.export_button.clicked.connect(self._export_dialog)
        self.plot = pg.PlotWidget(background="w")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        readable_axes(self.plot)  # a GCP of 0.33 reads 0.33, never 330 under "(x0.001)"
        legend_outside(self.plot)  # beside the axes: the last point of a sweep stays visible
        self.plot.setLabel("bottom", self.sweep.x_name)
        self.sweep_info = QtWidgets.QLabel("No sweep yet: run a sweep over k, c or the group size to plot a "
                                           "metric against it.")
        self.sweep_info.setWordWrap(True)

        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(QtWidgets.QLabel("Sweep metric"))
        bar.addWidget(self.metric_box)
        bar.addStretch(1)
        bar.addWidget(self.export_button)
        sweep_box = column(bar, (self.plot, 1), self.sweep_info)
        splitter = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        splitter.addWidget(self.report_stack)
        splitter.addWidget(sweep_box)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([480, 420])
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

    # -- public API: the report ------------------------------------------------------------------------------
    def set_state(self, state: Any) -> None:
        self._binding.bind(state)
        self._refresh_from_state()

    def show_outcome(self, outcome: Any) -> None:
        self.show_report(None if outcome is None else outcome.report)

    def show_report(self, report: dict | None) -> None:
        """Fill the table from a report dict (also one read back from a project or a report file)."""
        if not report:
            self.table.setRowCount(0)
            self.report_stack.setCurrentIndex(0)
            return
        rows = report_rows(report)
        self.table.setRowCount(len(rows))
        last = None
        for r, (section, name, value) in enumerate(rows):
            for c, text in enumerate((section if section != last else "", name, value)):
                item = QtWidgets.QTableWidgetItem(text)
                meaning = MEANINGS.get(name, "") if section == "metrics" else ""
                item.setToolTip((f"{section}.{name} = {value}" if name else f"{section} = {value}")
                                + (f"\n{meaning}" if meaning else ""))
                if c == 0:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(r, c, item)
            last = section
        header = self.table.horizontalHeader()
        for c, cap in ((0, 100), (1, 170)):
            self.table.resizeColumnToContents(c)
            header.resizeSection(c, min(header.sectionSize(c), cap))
        header.setSectionResizeMode(2, QtWidgets.QHeaderView.Stretch)
        self.report_stack.setCurrentIndex(1)

    def report_row(self, section: str, name: str = "") -> str | None:
        """The value shown for ``section``/``name`` (``None`` when absent)."""
        current = None
        for r in range(self.table.rowCount()):
            s = self.table.item(r, 0).text() or current
            current = s
            if s == section and self.table.item(r, 1).text() == name:
                return self.table.item(r, 2).text()
        return None

    def clear(self) -> None:
        self.show_report(None)
        self.clear_sweep()

    # -- public API: sweeps ----------------------------------------------------------------------------------
    def clear_sweep(self, x_name: str | None = None) -> None:
        """Forget all points; ``x_name`` labels the swept parameter (``"k"``, ``"c"``, ``"group size"``)."""
        self.sweep.clear(x_name)
        self.failed_points = 0
        for curve in self.curves.values():
            self.plot.removeItem(curve)
        self.curves.clear()
        legend = self.plot.getPlotItem().legend
        if legend is not None:
            legend.clear()
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        self.metric_box.blockSignals(False)
        self.plot.setLabel("bottom", self.sweep.x_name)
        self.plot.setTitle("")

    start_sweep = clear_sweep

    def add_point(self, method: str, x: float, metrics: dict) -> None:
        """One finished point of a sweep: ``method`` run with the swept parameter at ``x`` gave ``metrics``
        (a report's ``metrics`` dict, nested dicts allowed; non-numeric entries are ignored)."""
        self.sweep.add(method, x, metrics)
        names = self.sweep.metric_names()
        self.metric_box.blockSignals(True)
        for name in names:
            if self.metric_box.findText(name) < 0:
                self.metric_box.addItem(name)
        self.metric_box.blockSignals(False)
        if not self.metric_box.currentText() and names:
            self.metric_box.setCurrentIndex(0)
        self._redraw()

    def add_sweep_point(self, row: dict, method: str | None = None) -> None:
        """A row as the sweep worker emits it: ``{**point, **figures}`` (e.g. ``{"k": 5, "NCP": 0.2, …}``).

        The swept parameter is the current sweep's x name when the row has it, else the row's first key
        (a new x name starts a new sweep). ``method`` defaults to the workbench state's method. Rows with
        an ``"error"`` key (a point that failed) are counted but not plotted.
        """
        if not row:
            return
        if "error" in row:
            self.failed_points += 1
            self._redraw()
            return
        x_name = self.sweep.x_name if self.sweep.x_name in row else next(iter(row))
        if x_name != self.sweep.x_name:
            self.clear_sweep(x_name)
        if method is None:
            method = getattr(self._binding.state, "method", None) or "run"
        figures = {k: v for k, v in row.items() if k != x_name}
        self.add_point(method, float(row[x_name]), figures)

    def set_metric(self, name: str) -> None:
        i = self.metric_box.findText(name)
        if i < 0:
            raise KeyError(f"no sweep point has the metric '{name}'")
        self.metric_box.setCurrentIndex(i)
        self._redraw()

    def current_metric(self) -> str:
        return self.metric_box.currentText()

    def export(self, path: str | Path) -> Path:
        """Write the sweep plot to ``path``: ``.svg`` as SVG, anything else (``.png``) as an image."""
        path = Path(path)
        item = self.plot.getPlotItem()
        if path.suffix.lower() == ".svg":
            try:
                pg.exporters.SVGExporter(item).export(str(path))
            except ValueError:
                # pyqtgraph's SVG exporter cannot parse the path data newer Qt writes (pyqtgraph issue
                # #3485); render the plot through Qt's own SVG generator instead
                self._export_svg_qt(path)
            return path
        else:
            exporter = pg.exporters.ImageExporter(item)
            exporter.parameters()["width"] = max(800, int(item.sceneBoundingRect().width()))
        exporter.export(str(path))
        return path

    def _export_svg_qt(self, path: Path) -> None:
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        size = self.plot.size()
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(size)
        gen.setViewBox(QtCore.QRect(0, 0, size.width(), size.height()))
        gen.setTitle(self.plot.getPlotItem().titleLabel.text or "anonstudio sweep")
        painter = QPainter(gen)
        try:
            self.plot.render(painter)
        finally:
            painter.end()

    # -- internals -----------------------------------------------------------------------------------------
    def _on_metric(self, name: str) -> None:
        self._redraw()
        if name:
            self.metricChanged.emit(name)

    def _redraw(self) -> None:
        metric = self.metric_box.currentText()
        series = self.sweep.series(metric) if metric else {}
        for i, method in enumerate(self.sweep.points):
            curve = self.curves.get(method)
            if curve is None:
                colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
                curve = self.plot.plot([], [], pen=pg.mkPen(colour, width=2), symbol=_SYMBOLS[i % len(_SYMBOLS)],
                                       symbolBrush=colour, symbolPen="w", symbolSize=8, name=method)
                self.curves[method] = curve
            x, y = series.get(method, ([], []))
            curve.setData(x, y)
        self.plot.setLabel("left", metric)
        self.plot.setLabel("bottom", self.sweep.x_name)
        self.plot.setToolTip(f"{metric}: {MEANINGS[metric]}" if metric in MEANINGS else "")
        if metric:
            self.plot.setTitle(f"{metric} vs {self.sweep.x_name}", color="k", size="11pt")
        n = sum(len(p) for p in self.sweep.points.values())
        failed = f" {self.failed_points} point(s) failed and are not shown." if self.failed_points else ""
        self.sweep_info.setText(
            (f"{n} point{'s' if n != 1 else ''} from {len(self.sweep.points)} method"
             f"{'s' if len(self.sweep.points) != 1 else ''}." if n else "No sweep yet.") + failed
        )

    def _export_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export plot", "sweep.png",
                                                        "PNG image (*.png);;SVG drawing (*.svg)")
        if path:
            self.export(path)

    def _refresh_from_state(self) -> None:
        state = self._binding.state
        if state is None:
            return
        outcome = getattr(state, "outcome", None)
        self.show_report(outcome.report if outcome is not None else getattr(state, "last_report", None))

    def _on_state(self, what: str) -> None:
        if what in ("outcome", "data", "project"):
            self._refresh_from_state()


if __name__ == "__main__":
    import sys

    from anonstudio.core.views import samples as _samples
    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    pane = MetricsPane()
    pane.show_outcome(_samples.preview_outcome("table"))
    pane.clear_sweep("k")
    for k in (2, 3, 4, 5, 6, 8):
        out = _samples.table_outcome(k=k)
        pane.add_point("mst", k, out.report["metrics"])
    run_preview(pane, "Metrics — preview")
