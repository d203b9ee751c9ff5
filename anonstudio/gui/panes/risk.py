"""The Risk pane: re-identification risk of the table loaded and, after a run, of the input and the release side by
side (issue 32 item 3) — the record-level prosecutor risk distribution as bars (before blue, after orange, ARX's
bins), the threshold the user sets, and a table of the figures (prosecutor, journalist and marketer risk, records
above the threshold, sample uniques, population uniques by Pitman, Zayatz, SNB and Dankar's rule).

The pane is a view of the workspace (:class:`~anonstudio.core.workspace.Workspace`): with no run on screen it
measures the table loaded on its quasi-identifiers — :func:`anonstudio.core.views.table_risk_view`, the figures of
``anonstudio risk``, on a worker thread (about 0.1 s on Adult) — again whenever the data or the roles change; after
a run it shows the report's ``risk`` section (:func:`~anonstudio.core.views.release_risk_view`), which the run
computed on its own worker. A new threshold recounts the records above it from each side's class sizes
(:func:`~anonstudio.core.views.risk_rows`): nothing is measured again.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

from anonstudio.core.population import COUNTRY_POPULATIONS, US_POPULATION
from anonstudio.core.risk import DEFAULT_THRESHOLD
from anonstudio.core.views import RiskView, records_above, release_risk_view, risk_bars, risk_rows, table_risk_view
from anonstudio.core.views._risk import RISK_FIGURES
from anonstudio.gui.panes._common import INVALID, StateBinding, placeholder
from anonstudio.gui.panes._plots import legend_outside, readable_axes
from anonstudio.gui.workers import ReadWorker, TaskRunner

BEFORE_BRUSH = "#4c72b0"
AFTER_BRUSH = "#dd8452"

EMPTY_TEXT = ("Open a table and give it quasi-identifiers to see its re-identification risk; after a run this pane "
              "shows the input's and the release's side by side.")
NOT_TABLE = "Re-identification risk is measured on tables: this {what} has no equivalence classes on columns."


def _measure(data: Any, qis: list[str], sensitive: list[str], identifying: list[str], person: str | None = None,
             population: tuple = (), progress: Any = None) -> Any:
    """On the worker: the table's risk on the roles taken when it was asked for (a role changed meanwhile starts
    another measurement), for the population chosen then (``(population, sampling_fraction)``); with a person
    column, per person."""
    size, fraction = population or (None, None)
    return table_risk_view(data, quasi_identifiers=qis, sensitive=sensitive, identifying=identifying,
                           person=person, progress=progress, population=size, sampling_fraction=fraction)


def _measure_release(outcome: Any, population: tuple, progress: Any = None) -> Any:
    """On the worker: a run's input and release measured again for another population."""
    size, fraction = population
    return release_risk_view(outcome, population=size, sampling_fraction=fraction)


#: how the population's origin reads on screen (the engine names the command line's flags)
ORIGINS = {"--population": "as given", "--sampling-fraction": "from the sampling fraction",
           "--population-table": "the population table's records"}


class RiskPane(QtWidgets.QWidget):
    """Risk before and after: distribution bars, threshold, figures."""

    #: figures were drawn (the table loaded, or a run's input and release)
    riskShown = Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._binding = StateBinding(self, self._on_state)
        self.runner = TaskRunner(self)
        self.view: RiskView | None = None
        self._outcome: Any = None  # the run shown, or None while the table loaded is shown
        self._shown_key: Any = None  # what the table view on screen was measured on
        self._asked_key: Any = None  # what the running measurement measures
        self._again = False  # the roles or data changed while a measurement ran
        self._measuring = False  # a measurement's worker has not said done yet (the runner's thread may outlive it)
        self._labels: list[str] = []

        self.heading = QtWidgets.QLabel()
        self.heading.setObjectName("riskHeading")
        self.heading.setWordWrap(True)
        self.threshold = QtWidgets.QDoubleSpinBox()
        self.threshold.setObjectName("threshold")
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setDecimals(3)
        self.threshold.setSingleStep(0.01)
        self.threshold.setValue(DEFAULT_THRESHOLD)
        self.threshold.setToolTip("a record is at risk when its re-identification risk 1/(size of its class) "
                                  "exceeds this; 0.2 = classes under 5 records (ARX's default)")
        self.threshold.valueChanged.connect(self._threshold_changed)
        self.status = QtWidgets.QLabel()
        self.status.setObjectName("riskStatus")
        # the population the table is a sample of (issue 40 item 7), as `anonstudio risk` takes it: a country from a
        # short list, a number of people, or the sampling fraction
        self.population_box = QtWidgets.QComboBox()
        self.population_box.setObjectName("population")
        for name, size in COUNTRY_POPULATIONS.items():
            self.population_box.addItem(f"{name}: {size:,}", ("country", name))
        self.population_box.addItem("a number of people…", ("number", None))
        self.population_box.addItem("a sampling fraction…", ("fraction", None))
        self.population_box.setToolTip("The population the table is a sample of: the population uniques (Pitman, "
                                       "Zayatz, SNB, Dankar's rule) and the marketer risk depend on it. Mid-2023 "
                                       "totals, approximately (World Bank); the USA's is ARX's default figure")
        self.population_number = QtWidgets.QDoubleSpinBox()
        self.population_number.setObjectName("populationNumber")
        self.population_number.setDecimals(0)
        self.population_number.setRange(1, 1e10)
        self.population_number.setGroupSeparatorShown(True)
        self.population_number.setValue(1_000_000)
        self.population_number.setToolTip("How many people the population has (anonstudio risk --population)")
        self.sampling_fraction = QtWidgets.QDoubleSpinBox()
        self.sampling_fraction.setObjectName("samplingFraction")
        self.sampling_fraction.setDecimals(6)
        self.sampling_fraction.setRange(0.000001, 1.0)
        self.sampling_fraction.setSingleStep(0.01)
        self.sampling_fraction.setValue(0.01)
        self.sampling_fraction.setToolTip("The table's share of the population, in (0, 1]: the population is records "
                                          "/ fraction (anonstudio risk --sampling-fraction)")
        self.population_error = QtWidgets.QLabel()
        self.population_error.setObjectName("populationError")
        self.population_error.setStyleSheet(f"color: {INVALID};")
        self.population_error.setWordWrap(True)
        self.population_error.setVisible(False)
        self.population_box.currentIndexChanged.connect(self._population_changed)
        self.population_number.valueChanged.connect(self._population_changed)
        self.sampling_fraction.valueChanged.connect(self._population_changed)
        self._show_population_fields()
        controls = QtWidgets.QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(QtWidgets.QLabel("Records at risk above:"))
        controls.addWidget(self.threshold)
        controls.addWidget(QtWidgets.QLabel("Population:"))
        controls.addWidget(self.population_box)
        controls.addWidget(self.population_number)
        controls.addWidget(self.sampling_fraction)
        controls.addWidget(self.status, 1)

        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumHeight(120)
        self.plot.setLabel("left", "% of records")
        self.plot.setLabel("bottom", "prosecutor risk 1/f (upper end of each of ARX's bins)")
        self.plot.showGrid(y=True, alpha=0.25)
        self.plot.setMouseEnabled(x=False, y=False)
        readable_axes(self.plot)
        legend_outside(self.plot)
        self.before_bars = pg.BarGraphItem(x=[], height=[], width=0.4, brush=BEFORE_BRUSH, name="before: input")
        self.after_bars = pg.BarGraphItem(x=[], height=[], width=0.4, brush=AFTER_BRUSH, name="after: release")
        self.plot.addItem(self.before_bars)
        self.plot.addItem(self.after_bars)
        self.threshold_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(INVALID, width=1.5, style=QtCore.Qt.DashLine),
                                              label="threshold", labelOpts={"position": 0.9, "color": INVALID})
        self.plot.addItem(self.threshold_line)

        self.table = QtWidgets.QTableWidget(0, 3)
        self.table.setObjectName("riskFigures")
        self.table.setHorizontalHeaderLabels(["figure", "before: input", "after: release"])
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(True)

        split = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(self.table)
        split.setSizes([560, 480])
        body = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.heading)
        lay.addLayout(controls)
        lay.addWidget(self.population_error)
        lay.addWidget(split, 1)
        self.empty = placeholder(EMPTY_TEXT)
        self.stack = QtWidgets.QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(body)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(self.stack)

    # -- the workspace ------------------------------------------------------------------------------------
    def set_state(self, state: Any) -> None:
        self._binding.bind(state)
        outcome = getattr(state, "outcome", None)
        if outcome is not None:
            self.show_outcome(outcome)
        else:
            self.clear()

    def _on_state(self, what: str) -> None:
        state = self._binding.state
        outcome = getattr(state, "outcome", None)
        if what == "data":
            self._outcome = None
            # the population is the new data's to choose (what a table is a sample of): back to the default
            for box in (self.population_box, self.population_number, self.sampling_fraction):
                box.blockSignals(True)
            self.population_box.setCurrentIndex(0)
            for box in (self.population_box, self.population_number, self.sampling_fraction):
                box.blockSignals(False)
            self._show_population_fields()
            self.population_error.setVisible(False)
            self.clear()
        elif what == "outcome":
            if outcome is not None:
                self.show_outcome(outcome)
            elif not getattr(state, "stale_reason", None):
                self.clear()  # no run: the table loaded; a run gone out of date stays for the window to grey
        elif what == "roles" and self._outcome is None:
            self._measure_table()

    # -- the population -----------------------------------------------------------------------------------
    def population(self) -> tuple[int | None, float | None]:
        """``(population, sampling_fraction)`` as chosen (``(None, None)``: ARX's default, the USA)."""
        kind, name = self.population_box.currentData() or ("country", None)
        if kind == "number":
            return int(self.population_number.value()), None
        if kind == "fraction":
            return None, float(self.sampling_fraction.value())
        size = COUNTRY_POPULATIONS.get(name or "")
        return (None, None) if size is None or size == US_POPULATION else (size, None)

    def set_population(self, *, country: str | None = None, number: int | None = None,
                       fraction: float | None = None) -> None:
        """Choose the population as a user does (a country of the list, a number, or a sampling fraction)."""
        for i in range(self.population_box.count()):
            kind, name = self.population_box.itemData(i)
            if (country is not None and kind == "country" and name.startswith(country)) or (
                    number is not None and kind == "number") or (fraction is not None and kind == "fraction"):
                if number is not None:
                    self.population_number.setValue(number)
                if fraction is not None:
                    self.sampling_fraction.setValue(fraction)
                self.population_box.setCurrentIndex(i)
                return
        raise KeyError(country)

    def _show_population_fields(self) -> None:
        kind = (self.population_box.currentData() or ("country", None))[0]
        self.population_number.setVisible(kind == "number")
        self.sampling_fraction.setVisible(kind == "fraction")

    def _population_changed(self, *_: Any) -> None:
        self._show_population_fields()
        self.population_error.setVisible(False)
        if self._outcome is not None:
            outcome, self._outcome = self._outcome, None
            self.show_outcome(outcome)
        else:
            self._measure_table()

    def _population_failed(self, exc: BaseException) -> None:
        from anonstudio.gui.dialogs import error_text

        self.status.setText("")
        self.population_error.setText(f"Not measured for this population: {error_text(exc)}")
        self.population_error.setVisible(True)

    # -- result pane API ----------------------------------------------------------------------------------
    def show_outcome(self, outcome: Any) -> None:
        """Show a finished run's input and release (``None``: the table loaded) for the population chosen (another
        than the report's is measured again, on a worker)."""
        if outcome is None:
            self.clear()
            return
        if outcome is self._outcome:
            return
        self._outcome = outcome
        population = self.population()
        if population != (None, None) and release_risk_view(outcome) is not None:
            self.status.setText("measuring the risk for this population…")
            worker = ReadWorker(_measure_release, outcome, population)
            worker.finished.connect(lambda view, o=outcome, p=population: self._release_measured(view, o, p))
            worker.failed.connect(self._population_failed)
            self.runner.start_worker(worker)
            return
        view = release_risk_view(outcome)
        if view is None:
            self.view = None
            self.empty.setText(NOT_TABLE.format(what="release"))
            self.stack.setCurrentIndex(0)
            return
        self._present(view)

    def _release_measured(self, view: Any, outcome: Any, population: tuple) -> None:
        if outcome is self._outcome and population == self.population() and view is not None:
            self._present(view)

    def clear(self) -> None:
        """No run on screen: show the risk of the table loaded (measured on a worker when it is not on screen)."""
        self._outcome = None
        self._measure_table()

    # -- the table loaded ---------------------------------------------------------------------------------
    def _table_key(self) -> Any:
        from anonstudio.core.data import Role, Table

        data = getattr(self._binding.state, "data", None)
        if not isinstance(data, Table):
            return None if data is None else ("not a table", id(data))
        qis = list(data.quasi_identifiers)
        if not qis or len(data.df) == 0:
            return None
        identifying = [str(c) for c in data.df.columns if data.role(c) is Role.IDENTIFYING]
        return (id(data), id(data.df), tuple(qis), tuple(data.sensitive), tuple(identifying), data.person,
                self.population())

    def _measure_table(self) -> None:
        key = self._table_key()
        if key is None or key[0] == "not a table":
            self._again = False
            self.view, self._shown_key = None, None
            data = getattr(self._binding.state, "data", None)
            self.empty.setText(EMPTY_TEXT if key is None else NOT_TABLE.format(
                what="event log" if hasattr(data, "sequence_id") else "sequence set"))
            self.stack.setCurrentIndex(0)
            return
        if key == self._shown_key and self.view is not None:
            self._present(self.view)  # already measured (e.g. the window clears results after new roles)
            return
        if self._measuring:  # latest wins: measured again once this one is in
            self._again = key != self._asked_key
            return
        data = self._binding.state.data
        self._asked_key, self._measuring = key, True
        self.status.setText("measuring the table's risk…")
        worker = ReadWorker(_measure, data, list(key[2]), list(key[3]), list(key[4]), key[5], key[6])
        worker.finished.connect(self._table_measured)
        worker.failed.connect(self._table_failed)
        worker.done.connect(self._measured_done)
        self.runner.start_worker(worker)

    def _table_measured(self, view: Any) -> None:
        if self._outcome is not None or self._asked_key != self._table_key():
            return  # a run, or other roles, arrived meanwhile
        self._shown_key = self._asked_key
        if view is None:
            self._measure_table()
            return
        self._present(view)

    def _table_failed(self, exc: BaseException) -> None:
        from anonstudio.core.errors import ParameterError

        if isinstance(exc, ParameterError) and self.view is not None:  # e.g. fewer people than records
            self._population_failed(exc)
            return
        if self._outcome is None:
            self.view = None
            self.empty.setText(f"The table's risk could not be measured: {exc}")
            self.stack.setCurrentIndex(0)

    def _measured_done(self) -> None:
        self._measuring = False
        if self._again:
            self._again = False
            QtCore.QTimer.singleShot(0, self._measure_if_table)

    def _measure_if_table(self) -> None:
        if self._outcome is None:
            self._measure_table()

    # -- drawing ------------------------------------------------------------------------------------------
    def _present(self, view: RiskView) -> None:
        self.view = view
        pop = view.population
        qis = view.quasi_identifiers
        self.heading.setText(
            f"<b>Re-identification risk of {view.what}</b> on {len(qis)} quasi-identifier"
            f"{'s' if len(qis) != 1 else ''} ({', '.join(qis)}); population {int(pop['size']):,} "
            f"({self._origin(pop)}), sampling fraction {float(pop['sampling_fraction']):.4g}.")
        bars = risk_bars(view)
        x = np.arange(len(bars.upper), dtype=float)
        both = bars.after is not None
        width = 0.4 if both else 0.7
        before = bars.before if bars.before is not None else np.zeros(len(x))
        self.before_bars.setOpts(x=x - (0.2 if both else 0.0), height=100.0 * before, width=width)
        self.after_bars.setOpts(x=x + 0.2 if both else [], height=100.0 * bars.after if both else [], width=width)
        self.after_bars.setVisible(both)
        legend = self.plot.getPlotItem().legend
        legend.clear()
        legend.addItem(self.before_bars, "before: input" if both else "the table loaded")
        if both:
            legend.addItem(self.after_bars, "after: release")
        self._labels = list(bars.labels)
        self.plot.getAxis("bottom").setTicks([[(float(i), label) for i, label in enumerate(bars.labels)]])
        self.plot.setXRange(-0.6, len(x) - 0.4, padding=0)
        top = 100.0 * max(float(before.max(initial=0.0)), float(bars.after.max(initial=0.0)) if both else 0.0)
        self.plot.setYRange(0.0, max(top, 1.0) * 1.12, padding=0)
        self.table.setColumnHidden(2, not both)
        self.table.setHorizontalHeaderLabels(["figure", "before: input" if both else "the table loaded",
                                              "after: release"])
        self.stack.setCurrentIndex(1)
        self._threshold_changed()
        self.status.setText("")
        self.riskShown.emit()

    def _origin(self, pop: dict) -> str:
        """Where the population's size comes from, in words: the country chosen, "as given", ARX's default."""
        kind, name = self.population_box.currentData() or ("country", None)
        size = COUNTRY_POPULATIONS.get(name or "")
        if kind == "country" and size is not None and int(pop["size"]) == size and size != US_POPULATION:
            return f"{name}, mid-2023, approximately"
        return ORIGINS.get(str(pop["source"]), str(pop["source"]))

    def _threshold_changed(self, *_: Any) -> None:
        view = self.view
        if view is None:
            return
        t = float(self.threshold.value())
        rows = risk_rows(view, t)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QtWidgets.QTableWidgetItem(text)
                item.setToolTip(RISK_FIGURES[row[0]] if c == 0 else text)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        bars = risk_bars(view)
        self.threshold_line.setValue(bars.threshold_position(t))
        self.threshold_line.label.setFormat(f"threshold {t:g}")
        above = {side: records_above(figures, t) for side, figures in view.sides.items()}
        title = f"Records by prosecutor risk: {100 * above['before']:.3g} % above {t:g}" + (
            " before" if "after" in above else "")
        if "after" in above:
            title += f", {100 * above['after']:.3g} % after"
        self.plot.setTitle(title, color="k", size="10pt")

    # -- what tests read ----------------------------------------------------------------------------------
    def figures(self) -> dict[str, tuple[str, str]]:
        """Each figure's row as shown: ``name → (before, after)`` (``after`` empty before a run)."""
        return {self.table.item(r, 0).text(): (self.table.item(r, 1).text(), self.table.item(r, 2).text())
                for r in range(self.table.rowCount())}

    def bar_heights(self) -> tuple[np.ndarray, np.ndarray]:
        """``(before, after)``: the bars' heights as drawn, in % of records (``after`` empty before a run)."""
        after = self.after_bars.opts["height"] if self.after_bars.isVisible() else []
        return np.asarray(self.before_bars.opts["height"], dtype=float), np.asarray(after, dtype=float)

    def tick_labels(self) -> list[str]:
        """The bins' labels under the bars (their upper ends)."""
        return list(self._labels)


if __name__ == "__main__":
    import sys

    from anonstudio.core.views import samples as _samples
    from anonstudio.gui.panes._common import run_preview

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    pane = RiskPane()
    pane.show_outcome(_samples.preview_outcome("table"))
    run_preview(pane, "Risk — preview")
