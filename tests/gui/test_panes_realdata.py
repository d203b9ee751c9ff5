"""The result panes on the real Adult table (30,162 records), generalized one level up its ARX
hierarchies: they must stay quick and show the right figures."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import Qt

from anonstudio.core.algorithms import Result
from anonstudio.core.data import Table
from anonstudio.core.jobs import Outcome
from anonstudio.gui.panes._common import CHANGED
from anonstudio.gui.panes._samples import _k_verdict, _report
from anonstudio.gui.panes.compare import ComparePane
from anonstudio.gui.panes.privacy import PrivacyPane

pytestmark = pytest.mark.realdata

QIS = ["age", "workclass", "sex", "education", "occupation"]


@pytest.fixture(scope="module")
def adult_outcome(shared_data):
    from anonstudio.core import io

    folder = shared_data / "adult"
    table = io.read_table(folder / "adult.csv").with_roles(QIS, ["salary-class"])
    hs = {a: io.read_hierarchy(folder / "hierarchies" / f"adult_hierarchy_{a}.csv", attribute=a) for a in QIS}
    out = table.df.copy()
    for a, h in hs.items():
        level1 = {v: h.generalize(v, 1) for v in out[a].unique()}
        out[a] = out[a].map(level1)
    key = out[QIS].astype(str).agg("|".join, axis=1)
    groups = np.unique(key, return_inverse=True)[1].astype(np.int64)
    verdict = _k_verdict(groups, 1)
    rep = _report("generalize-level-1", {"k": 1}, len(out), len(out), groups, 0, verdict, {})
    return Outcome(Result(Table(out, roles=dict(table.roles)), groups), verdict, rep, table, hs)


def test_compare_pane_on_adult_is_quick_and_marks_generalized_cells(shown, adult_outcome):
    pane = shown(ComparePane, 900, 600)
    start = time.perf_counter()
    pane.show_outcome(adult_outcome)
    pane.select_record(100)
    elapsed = time.perf_counter() - start
    print(f"\nCompare pane, Adult: shown in {elapsed:.2f} s")  # timed on demand in tests/benchmarks/bench_gui_scale.py
    right = pane.right_model
    assert right.rowCount() == 30162
    col = [right.headerData(c, Qt.Horizontal) for c in range(right.columnCount())].index("age")
    assert "-" in right.data(right.index(0, col))  # 39 → 35-39
    assert right.data(right.index(0, col), Qt.BackgroundRole).color() == CHANGED
    g = adult_outcome.result.groups
    assert len(right.highlighted_rows()) == int((g == g[100]).sum())


def test_privacy_pane_counts_the_classes_of_adult(qtbot, adult_outcome):
    pane = PrivacyPane()
    qtbot.addWidget(pane)
    pane.show_outcome(adult_outcome)
    x, h = pane.bar_heights()
    assert int((x * h).sum()) == 30162  # every record is in one class
    assert int(h.sum()) == adult_outcome.report["groups"]["count"]
