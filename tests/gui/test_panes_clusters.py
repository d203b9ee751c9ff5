"""The clusters pane (CBMSA results) and the highly-sensitive picker of the parameters pane."""

from __future__ import annotations

import numpy as np
import pytest

from anonstudio.core.views import samples as _samples
from anonstudio.gui.panes.clusters import GENERALIZED, SUPPRESSED, ClustersPane, cluster_members, cluster_view


@pytest.fixture(scope="module")
def outcome():
    return _samples.events_outcome(k=3)


@pytest.fixture
def pane(shown):
    return shown(ClustersPane)


def test_every_cluster_is_listed_and_plotted_with_its_loss_and_confidence(pane, outcome, screenshot):
    pane.show_outcome(outcome)
    d = outcome.result.details
    n = outcome.report["metrics"]["clusters"]
    assert pane.stack.currentIndex() == 1 and pane.table.rowCount() == n
    il, conf = pane.bar_heights()
    assert np.allclose(il, d["cluster_loss"]) and np.allclose(conf, d["cluster_confidence"])
    assert pane.c_line.value() == pytest.approx(0.5)
    for r in range(n):
        assert int(pane.table.item(r, 1).text()) == d["cluster_size"][r] >= 3
        assert pane.table.item(r, 6).text() == "yes"  # every published cluster keeps the bound
    removed = outcome.report["metrics"]["removed_sequences"]
    said = pane.info.text()
    assert "sequence(s)" not in said and "clusters of at least k = 3 sequences" in said
    assert (f"{removed:,} sequence{'s' if removed != 1 else ''} removed: the last cluster could not satisfy"
            in said) if removed else ("no sequence removed" in said and "could not satisfy" not in said)
    screenshot(pane, "clusters_pane")


def test_a_cluster_shows_its_sequences_before_and_after_aligned(pane, outcome, screenshot):
    pane.show_outcome(outcome)
    d = outcome.result.details
    g = int(np.argmax([(len(m["events"]) - len(m["published"])) > 0 for m in
                       (cluster_members(outcome, c)[0] for c in range(len(d["cluster_size"])))]))
    pane.select_cluster(g)
    members = cluster_members(outcome, g)
    assert pane.members.rowCount() == 2 * len(members)
    width = len(members[0]["published"])
    assert all(len(m["published"]) == width for m in members)  # one representative per cluster
    assert pane.members.columnCount() == width + 1
    # every published row is the same generalized sequence, column by column
    for t in range(width):
        cells = {pane.member_cell(2 * i + 1, t) for i in range(len(members))}
        assert len(cells) == 1
    # suppressed events are listed in the last column, marked; generalized cells tinted
    for i, m in enumerate(members):
        n_sup = sum(s < 0 for s in m["slots"])
        cell = pane.members.item(2 * i, width)
        if n_sup:
            assert cell.background().color() == SUPPRESSED and cell.font().strikeOut()
            assert cell.text().count("|") == n_sup - 1
        else:
            assert cell is None
    tinted = [pane.members.item(r, t) for r in range(pane.members.rowCount()) for t in range(width)]
    assert any(item is not None and item.background().color() == GENERALIZED for item in tinted)
    assert f"Cluster {g + 1}:" in pane.members_title.text()
    screenshot(pane, "clusters_pane_members")


def test_other_methods_say_this_view_is_for_event_clusters(pane):
    pane.show_outcome(_samples.table_outcome(k=3))
    assert pane.stack.currentIndex() == 0 and "does not cluster sequences" in pane.empty.text()
    assert cluster_view(_samples.table_outcome(k=3)) is None


def test_highly_sensitive_values_are_picked_from_the_sensitive_column(qtbot):
    from anonstudio.gui.panes.parameters import ParametersPane
    from anonstudio.core.workspace import Workspace

    state = Workspace()
    log = _samples.sample_events(n=10)
    state.set_data(log, None)
    pane = ParametersPane(parent=None)
    qtbot.addWidget(pane)
    pane.set_state(state)
    assert pane.method() == "cbmsa"
    field = pane.form.field("highly_sensitive")
    assert field.picker.isVisibleTo(pane)
    assert field.choices() == sorted(log.df["diagnosis"].unique())
    hiv = next(a for a in field.picker.menu().actions() if a.text() == "HIV")
    hiv.setChecked(True)
    assert pane.params()["highly_sensitive"] == ["HIV"]
    next(a for a in field.picker.menu().actions() if a.text() == "hepatitis").setChecked(True)
    assert pane.params()["highly_sensitive"] == ["HIV", "hepatitis"]
    hiv.setChecked(False)
    assert pane.params()["highly_sensitive"] == ["hepatitis"]
    # a typed value that is not in the column stays (the run warns about it)
    field.editor.setText("hepatitis, Ebola")
    field._sync_picks()
    assert [a.text() for a in field.picker.menu().actions() if a.isChecked()] == ["hepatitis"]
    # another sensitive column: its values are offered
    state.set_role("diagnosis", "insensitive")
    assert not field.picker.isVisibleTo(pane) or pane.form.field("highly_sensitive").choices() == []


def test_marks_tell_published_from_suppressed_highly_sensitive_values(pane, outcome):
    pane.show_outcome(outcome)
    d = outcome.result.details
    for g in range(len(d["cluster_size"])):
        pane.select_cluster(g)
        members = cluster_members(outcome, g)
        labels = [pane.members.verticalHeaderItem(2 * i).text() for i in range(len(members))]
        # the cluster's HighSensList counts exactly the members marked as publishing a highly-sensitive value
        assert sum(" ⚠ original" in t for t in labels) == d["cluster_high"][g]
        for m, t in zip(members, labels):
            assert ("(⚠ suppressed)" in t) == (m["high"] and not m["high_published"])


def test_a_loaded_event_log_shows_lengths_and_value_distributions(qtbot, screenshot):
    from anonstudio.gui.panes.data import DataPane
    from anonstudio.core.workspace import Workspace

    state = Workspace()
    log = _samples.sample_events(n=30)
    state.set_data(log, None)
    pane = DataPane(parent=None)
    qtbot.addWidget(pane)
    pane.resize(900, 650)
    pane.show()
    pane.set_state(state)
    ov = pane.events_overview
    lengths, values = ov.heights()
    _, _, offsets = log.sequence_index()
    assert lengths.sum() == 30 and set(np.unique(np.diff(offsets))) == set(ov.lengths_bars.opts["x"])
    # the sensitive column first: every event counted once, most frequent value first
    assert ov.column_box.currentText() == "diagnosis"
    assert values.sum() == len(log.df) and list(values) == sorted(values, reverse=True)
    assert ov.labels[0] == log.df["diagnosis"].value_counts().idxmax()
    ov.column_box.setCurrentText("zip")
    _, values = ov.heights()
    assert len(values) == log.df["zip"].nunique() and values.sum() == len(log.df)
    screenshot(pane, "data_pane_events_overview")
