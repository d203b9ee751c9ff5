"""The compare pane: original vs anonymized side by side, changed cells and the selected group."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from anonstudio.core.views import samples as _samples
from anonstudio.gui.panes._common import CHANGED, GROUP, GROUP_CHANGED
from anonstudio.gui.panes.compare import ComparePane


@pytest.fixture
def pane(shown):
    return shown(ComparePane, 900, 600)


def _bg(model, row, col):
    brush = model.data(model.index(row, col), Qt.BackgroundRole)
    return None if brush is None else brush.color().name()


def test_table_cells_changes_and_group_highlight(pane, screenshot):
    outcome = _samples.table_outcome(k=3)
    pane.show_outcome(outcome)
    left, right = pane.left_model, pane.right_model
    out = outcome.result.output.df
    orig = outcome.data.df
    assert right.rowCount() == len(out) and left.rowCount() == len(orig)
    age = list(out.columns).index("age")
    assert right.data(right.index(0, age), Qt.DisplayRole) == out["age"].iloc[0]
    # a generalized age is highlighted as changed; the untouched disease column is not
    row = int(np.flatnonzero(out["age"].to_numpy() != orig["age"].to_numpy())[0])
    assert _bg(right, row, age) == CHANGED.name()
    assert _bg(right, row, list(out.columns).index("disease")) is None
    assert _bg(left, row, list(orig.columns).index("age")) == CHANGED.name()
    # selecting a record highlights its whole class on both sides, and nothing else
    pane.select_record(row)
    members = np.flatnonzero(outcome.result.groups == outcome.result.groups[row])
    assert right.highlighted_rows().tolist() == members.tolist() == left.highlighted_rows().tolist()
    other = int(members[-1])
    assert _bg(right, other, list(out.columns).index("disease")) == GROUP.name()
    if right.is_changed(other, age):
        assert _bg(right, other, age) == GROUP_CHANGED.name()
    outsider = int(np.flatnonzero(outcome.result.groups != outcome.result.groups[row])[0])
    assert _bg(right, outsider, list(out.columns).index("disease")) is None
    assert f"{int((out.to_numpy() != orig[out.columns].to_numpy()).sum()):,} cells changed" in pane.summary.text()
    screenshot(pane, "compare")


def test_scrolling_is_synchronised(pane, qtbot):
    pane.show_outcome(_samples.table_outcome(k=3, n=200))
    qtbot.waitUntil(lambda: pane.pair.left.verticalScrollBar().maximum() > 10)
    pane.pair.left.verticalScrollBar().setValue(40)
    assert pane.pair.right.verticalScrollBar().value() == 40
    pane.pair.right.verticalScrollBar().setValue(7)
    assert pane.pair.left.verticalScrollBar().value() == 7


def test_strings_group_and_alignment(pane, screenshot):
    outcome = _samples.strings_outcome()
    pane.show_outcome(outcome)
    assert pane.mode == "fasta"
    assert pane.left_model.rowCount() == len(outcome.data)
    assert pane.right_model.rowCount() == len(outcome.result.output)
    pane.select_record(8)
    g = outcome.result.groups[8]
    assert pane.left_model.highlighted_rows().tolist() == np.flatnonzero(outcome.result.groups == g).tolist()
    pseudo_rows = pane.right_model.highlighted_rows()
    assert len(pseudo_rows) and all(f"group={g}" in outcome.result.output.headers[r] for r in pseudo_rows)
    right = pane.pair.right
    assert right.visualRect(right.model().index(int(pseudo_rows[0]), 0)).intersects(right.viewport().rect())
    row_a, row_b = pane.align(8, int(pseudo_rows[0]))
    assert "".join(x for x in row_a if x != "-") == outcome.data.sequence(8)
    text = pane.alignment.toPlainText()
    assert outcome.data.ids[8][:18] in text and "identical" in text
    screenshot(pane, "compare_strings")


def test_events_sequence_and_its_anonymized_form(pane, screenshot):
    outcome = _samples.events_outcome()
    pane.show_outcome(outcome)
    assert pane.mode == "events"
    log = outcome.data
    ids, order, offsets = log.sequence_index()
    assert pane.left_model.rowCount() == len(ids) == pane.right_model.rowCount()
    out = outcome.result.output.df
    kept_per = out.groupby("PID").size().reindex(ids, fill_value=0).to_numpy()
    lost = np.flatnonzero((kept_per > 0) & (kept_per < np.diff(offsets)))
    i = int(lost[0])  # a published sequence that lost events
    pane.select_record(i)
    d_left, d_right = pane.detail_pair.left_model, pane.detail_pair.right_model
    assert d_left.rowCount() == offsets[i + 1] - offsets[i] == d_right.rowCount()
    labels = [d_right.headerData(r, Qt.Vertical) for r in range(d_right.rowCount())]
    assert labels.count("suppressed") == d_right.rowCount() - kept_per[i]
    # each kept event sits beside the original event it came from (published events are numbered 1..m, so
    # their numbers do not say which): its sensitive value, published as it is, is that event's
    kept = [r for r, label in enumerate(labels) if label != "suppressed"]
    assert [labels[r] for r in kept] == [str(n) for n in range(1, kept_per[i] + 1)]
    disease = [d_right.headerData(c, Qt.Horizontal) for c in range(d_right.columnCount())].index("diagnosis")
    left_disease = [d_left.headerData(c, Qt.Horizontal) for c in range(d_left.columnCount())].index("diagnosis")
    for r in kept:
        assert d_right.data(d_right.index(r, disease), Qt.DisplayRole) == \
            d_left.data(d_left.index(r, left_disease), Qt.DisplayRole)
    ev = outcome.result.details
    source = ev["event_rows"][ev["event_kept"]]  # the input row of each published event, in output order
    seq_rows = np.flatnonzero(out["PID"].astype(str).to_numpy() == str(ids[i]))
    assert sorted(int(np.flatnonzero(order[offsets[i]:offsets[i + 1]] == source[p])[0]) for p in seq_rows) == kept
    # a sequence whose ages were generalized to a band shows the band, marked changed
    j = ids.index(out.loc[out["age"].str.contains("-"), "PID"].iloc[0]) if isinstance(ids, list) else \
        int(np.flatnonzero(np.asarray(ids) == out.loc[out["age"].str.contains("-"), "PID"].iloc[0])[0])
    pane.select_record(j)
    d_right = pane.detail_pair.right_model
    age = [d_right.headerData(c, Qt.Horizontal) for c in range(d_right.columnCount())].index("age")
    ranged = [r for r in range(d_right.rowCount()) if "-" in (d_right.data(d_right.index(r, age), Qt.DisplayRole) or "")]
    assert ranged and d_right.is_changed(ranged[0], age)
    screenshot(pane, "compare_events")


def test_clear(pane):
    pane.show_outcome(_samples.table_outcome())
    pane.clear()
    assert pane.left_model.rowCount() == 0 and pane.stack.currentIndex() == 0


def test_tables_with_the_same_columns_scroll_sideways_together(pane, qtbot):
    outcome = _samples.table_outcome(k=3)
    from anonstudio.core.data import Table

    roles = {c: r for c, r in outcome.data.roles.items() if c != "id"}
    outcome.data = Table(outcome.data.df.drop(columns=["id"]), roles=roles)  # the same columns on both sides
    pane.resize(300, 400)
    pane.show_outcome(outcome)
    assert pane.pair.sync_horizontal
    qtbot.waitUntil(lambda: pane.pair.left.horizontalScrollBar().maximum() > 0)
    pane.pair.left.horizontalScrollBar().setValue(pane.pair.left.horizontalScrollBar().maximum())
    assert pane.pair.right.horizontalScrollBar().value() == pane.pair.left.horizontalScrollBar().value() > 0
