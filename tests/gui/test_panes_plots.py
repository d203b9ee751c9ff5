"""The plotting panes (composition, MST partition, metrics, privacy): what they draw, checked on the
items and on the rendered pixels."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from anonstudio.core.algorithms import Result
from anonstudio.core.views import samples as _samples
from anonstudio.core.views import class_sizes, composition
from anonstudio.gui.panes.compare import ComparePane
from anonstudio.gui.panes.parameters import ParametersPane
from anonstudio.gui.panes.run import RunPane
from anonstudio.gui.panes.composition import ORIGINAL_BRUSH, PSEUDO_BRUSH, CompositionPane
from anonstudio.gui.panes.metrics import MetricsPane
from anonstudio.gui.panes.mst_partition import MstPartitionPane
from anonstudio.gui.panes.privacy import BAR_BRUSH, PrivacyPane
from tests.gui._trees import components_after_cut


def _pixels(widget, colour: str, tol: int = 8) -> int:
    """How many pixels of the rendered widget have (about) ``colour``."""
    img = widget.grab().toImage().convertToFormat(QImage.Format_RGB32)
    w, h = img.width(), img.height()
    arr = np.frombuffer(img.constBits(), dtype=np.uint8, count=img.sizeInBytes()).reshape(h, img.bytesPerLine())
    rgb = arr[:, : w * 4].reshape(h, w, 4)[:, :, [2, 1, 0]].astype(int)
    c = QColor(colour)
    target = np.array([c.red(), c.green(), c.blue()])
    return int((np.abs(rgb - target).max(axis=2) <= tol).sum())


def _show(qtbot, cls):
    pane = cls(parent=None)
    qtbot.addWidget(pane)
    pane.resize(900, 600)
    pane.show()
    qtbot.waitExposed(pane)
    return pane


# ---------------------------------------------------------------------------------------------------------
def test_composition_bars_are_the_frequencies_and_cd_is_in_the_title(qtbot, screenshot):
    outcome = _samples.strings_outcome()
    pane = _show(qtbot, CompositionPane)
    pane.show_outcome(outcome)
    expected = composition(outcome.data, outcome.result.output)
    assert np.allclose(pane.original_bars.opts["height"], expected.f)
    assert np.allclose(pane.pseudo_bars.opts["height"], expected.f_pseudo)
    assert f"CD = {expected.cd:.4f}" in pane.title_text()
    assert abs(expected.f.sum() - 1) < 1e-9
    assert _pixels(pane, ORIGINAL_BRUSH) > 2000 and _pixels(pane, PSEUDO_BRUSH) > 2000
    screenshot(pane, "composition")
    # one group
    assert pane.scope.count() == 1 + len(np.unique(outcome.result.groups))
    pane.set_group(2)
    members = np.flatnonzero(outcome.result.groups == 2)
    assert "group 2" in pane.title_text()
    assert pane.current.n_original == len(members) and pane.current.n_pseudo == len(members)
    g = composition(outcome.data, outcome.result.output, members,
                    np.flatnonzero([("group=2" in h) for h in outcome.result.output.headers]))
    assert np.allclose(pane.pseudo_bars.opts["height"], g.f_pseudo)
    assert f"CD = {g.cd:.4f}" in pane.title_text()


def test_composition_pane_plots_the_fragment_lengths_against_the_fragment_rule(qtbot, screenshot):
    """Issue 11 item 6: the condensation result shows how long a run each pseudo-string shares with an
    input, with the rule's limit L drawn, and says what the verifier found."""
    from anonstudio.core import jobs
    from anonstudio.core.algorithms import get
    from anonstudio.core.data import SequenceSet
    from anonstudio.core.generate import protein_like
    from anonstudio.core.privacy import FragmentIndex

    ids, seqs = protein_like(120, seed=4, mean_length=120, max_length=300)
    data = SequenceSet.from_strings(seqs, ids=ids)
    outcome = jobs.anonymize(data, {}, get("condensation")(k=6, max_fragment=12), parameters={"k": 6, "max_fragment": 12})
    pane = _show(qtbot, CompositionPane)
    pane.resize(900, 800)
    pane.show_outcome(outcome)
    lengths = FragmentIndex.of(outcome.data).longest_shared(outcome.result.output)
    assert pane.fragment_counts.tolist() == np.bincount(lengths).tolist()
    assert int(pane.fragment_counts.sum()) == len(outcome.result.output)
    limit = outcome.report["parameters"]["max_fragment"]
    assert pane.limit_line.isVisible() and pane.limit_line.value() == limit - 0.5
    assert f"no run of {limit} or more symbols held by fewer than k" in pane.fragment_info.text()
    assert "verified: 0 pseudo-strings break it" in pane.fragment_info.text()
    assert _pixels(pane.fragments, PSEUDO_BRUSH) > 300
    screenshot(pane, "composition_fragments")


def test_composition_explains_itself_for_tables(qtbot):
    pane = _show(qtbot, CompositionPane)
    pane.show_outcome(_samples.table_outcome())
    assert pane.stack.currentIndex() == 0 and "for strings" in pane.empty.text()


# ---------------------------------------------------------------------------------------------------------
def test_mst_points_edges_dashed_removed_and_hover(qtbot, screenshot):
    outcome = _samples.table_outcome(k=3, n=90)
    pane = _show(qtbot, MstPartitionPane)
    pane.show_outcome(outcome)
    d = outcome.result.details
    assert pane.point_count() == 90
    assert pane.removed_edge_count() == len(d["removed_edges"])
    assert pane.kept_edge_count() == len(d["mst_edges"]) - len(d["removed_edges"])
    assert pane.removed_item.opts["pen"].style() == Qt.DashLine
    assert pane.kept_item.opts["pen"].style() == Qt.SolidLine
    # one colour per class
    brushes = {b.color().name() for b in pane.points.data["brush"]}
    assert len(brushes) >= min(len(np.unique(outcome.result.groups)), 10)
    text = pane.hover_text(4)
    assert "record 5" in text and f"class {outcome.result.groups[4]}" in text and "age=" in text
    pts = pane.points.points()
    pane._on_hover(pane.points, [pts[4]], None)
    assert "record 5" in pane.hover.text()
    assert "all 90 records" in pane.plot.getPlotItem().titleLabel.text
    assert _pixels(pane, "#d62728", tol=30) > 50  # dashed removed edges are drawn
    screenshot(pane, "mst_partition")


def test_mst_synthetic_outcome_with_tuples_and_sampling(qtbot):
    rng = np.random.default_rng(4)
    n = 2400
    parent = np.array([rng.integers(max(0, i - 5), i) for i in range(1, n)])
    edges = np.stack([parent, np.arange(1, n)], 1)
    removed = np.arange(0, n - 1, 6)
    tor = np.repeat(np.arange(n), 2)
    node_group = components_after_cut(n, edges, removed)
    details = {"mst_edges": edges, "mst_weights": rng.random(n - 1), "removed_edges": removed,
               "tuple_of_record": tor}
    outcome = SimpleNamespace(result=Result(None, node_group[tor], details=details), data=None,
                              report={"algorithm": "mst"})
    pane = _show(qtbot, MstPartitionPane)
    pane.show_outcome(outcome)
    title = pane.plot.getPlotItem().titleLabel.text
    assert pane.point_count() <= pane.max_nodes < n
    assert f"showing {pane.point_count():,} of {n:,} tuples" in title
    assert "×2" in pane.hover_text(0)


def test_mst_pane_says_when_a_method_has_no_tree(qtbot):
    pane = _show(qtbot, MstPartitionPane)
    outcome = _samples.strings_outcome()
    pane.show_outcome(outcome)
    assert pane.stack.currentIndex() == 0 and "condensation" in pane.empty.text()


# ---------------------------------------------------------------------------------------------------------
def test_metrics_report_table_sweep_points_and_export(qtbot, screenshot, tmp_path):
    outcome = _samples.table_outcome(k=3)
    pane = _show(qtbot, MetricsPane)
    pane.show_outcome(outcome)
    rep = outcome.report
    assert pane.report_row("algorithm") == "mst"
    assert pane.report_row("groups", "count") == str(rep["groups"]["count"])
    assert pane.report_row("verification", "passed") == "yes"
    assert pane.report_row("metrics", "DM") == str(rep["metrics"]["DM"])
    pane.clear_sweep("k")
    ks = (2, 3, 4, 6)
    for k in ks:
        pane.add_point("mst", k, _samples.table_outcome(k=k).report["metrics"])
        assert len(pane.curves["mst"].xData) == ks.index(k) + 1  # drawn as each point arrives
    pane.add_sweep_point({"k": 3, "DM": 200, "runtime_s": 0.1}, method="mondrian")
    pane.add_sweep_point({"k": 5, "error": "k is larger than the table"}, method="mondrian")
    pane.set_metric("DM")
    assert pane.curves["mst"].xData.tolist() == list(ks)
    assert pane.curves["mst"].yData.tolist() == [_samples.table_outcome(k=k).report["metrics"]["DM"] for k in ks]
    assert pane.curves["mondrian"].yData.tolist() == [200]
    assert "1 point(s) failed" in pane.sweep_info.text()
    assert pane.plot.getPlotItem().titleLabel.text == "DM vs k"
    png, svg = pane.export(tmp_path / "sweep.png"), pane.export(tmp_path / "sweep.svg")
    assert png.stat().st_size > 5000 and QImage(str(png)).width() >= 800
    assert svg.read_text(encoding="utf-8").lstrip().startswith("<?xml") and "<svg" in svg.read_text(encoding="utf-8")
    screenshot(pane, "metrics")
    # a new swept parameter starts a new sweep
    pane.add_sweep_point({"c": 0.5, "DM": 1}, method="cbmsa")
    assert pane.sweep.x_name == "c" and list(pane.curves) == ["cbmsa"]


def test_metrics_pane_shows_the_last_report_of_a_project(qtbot):
    from anonstudio.core.workspace import Workspace

    state = Workspace()
    state.last_report = _samples.table_outcome().report
    pane = _show(qtbot, MetricsPane)
    pane.set_state(state)
    assert pane.report_row("algorithm") == "mst"
    state.set_outcome(_samples.strings_outcome())
    assert pane.report_row("algorithm") == "condensation"


# ---------------------------------------------------------------------------------------------------------
def test_privacy_verdict_histogram_and_smallest_classes(qtbot, screenshot):
    outcome = _samples.table_outcome(k=3, n=120)
    pane = _show(qtbot, PrivacyPane)
    pane.show_outcome(outcome)
    assert pane.verdict_passed() is True and "Verified" in pane.verdict.text()
    _, sizes = class_sizes(outcome.result.groups)
    x, h = pane.bar_heights()
    values, counts = np.unique(sizes, return_counts=True)
    assert x.tolist() == values.tolist() and h.tolist() == counts.tolist()
    assert pane.k_line.isVisible() and pane.k_line.value() == 2.5
    first = [pane.smallest.item(r, 1).text() for r in range(pane.smallest.rowCount())]
    assert first[0] == str(sizes.min()) and first == sorted(first, key=int)
    cls = int(pane.smallest.item(0, 0).text())
    member = int(np.flatnonzero(outcome.result.groups == cls)[0])
    assert f"age={outcome.result.output.df['age'].iloc[member]}" in pane.smallest.item(0, 3).text()
    assert not pane.leak_box.isVisibleTo(pane)
    assert _pixels(pane, BAR_BRUSH) > 2000
    screenshot(pane, "privacy")


def test_privacy_failed_verdict_and_string_leaks(qtbot, screenshot):
    outcome = _samples.strings_outcome()
    pane = _show(qtbot, PrivacyPane)
    pane.show_outcome(outcome)
    assert pane.leak_box.isVisibleTo(pane)
    figures = {pane.leaks.item(r, 0).text(): pane.leaks.item(r, 1).text() for r in range(pane.leaks.rowCount())}
    leak = outcome.report["metrics"]["longest_shared_substring"]
    assert figures["longest fragment shared with an input, max"] == str(leak["pseudo_max"])
    assert figures["pseudo-strings equal to an input (must be 0)"] == "0"
    assert pane.smallest.horizontalHeaderItem(3).text() == "pseudo-strings"
    assert pane.smallest.item(0, 3).text() == "6"  # each sample group has 6 pseudo-strings
    assert "k = 6" in pane.k_line.label.toPlainText()
    screenshot(pane, "privacy_strings")
    failed = _samples.table_outcome(k=3)
    failed.verification = {"passed": False, "model": "k-anonymity", "details": {"k": 10},
                           "problems": ["class 0 has 3 records, fewer than k = 10"]}
    pane.show_outcome(failed)
    assert pane.verdict_passed() is False
    assert "NOT verified" in pane.verdict.text() and "fewer than k = 10" in pane.verdict.text()
    assert pane.k_line.value() == 9.5


@pytest.mark.parametrize("cls", [CompositionPane, MstPartitionPane, MetricsPane, PrivacyPane])
def test_clear_returns_to_the_placeholder(qtbot, cls):
    pane = _show(qtbot, cls)
    pane.show_outcome(_samples.strings_outcome() if cls is CompositionPane else _samples.table_outcome())
    pane.clear()
    stack = pane.report_stack if cls is MetricsPane else pane.stack
    assert stack.currentIndex() == 0


def test_panes_follow_the_workbench_state_and_draw_an_outcome_once(qtbot, monkeypatch):
    from anonstudio.core import views as _results
    from anonstudio.core.workspace import Workspace

    state = Workspace()
    pane = _show(qtbot, MstPartitionPane)
    pane.set_state(state)
    calls = []
    real = _results.mst_view
    monkeypatch.setattr("anonstudio.gui.panes.mst_partition.mst_view",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    outcome = _samples.table_outcome()
    state.set_outcome(outcome)  # the state's notification draws it …
    pane.show_outcome(outcome)  # … and the window's call does not lay it out again
    assert len(calls) == 1 and pane.point_count() == 60
    state.set_data(_samples.sample_table())  # new data forgets the outcome
    assert pane.stack.currentIndex() == 0


def test_composition_of_a_large_item_alphabet_shows_the_most_frequent_symbols(qtbot):
    from anonstudio.core.algorithms import Result
    from anonstudio.core.data import SequenceSet
    from anonstudio.core.jobs import Outcome

    rng = np.random.default_rng(2)
    items = [f"item{i}" for i in range(120)]
    p = np.linspace(1, 0.05, 120)
    p /= p.sum()
    from anonstudio.core.data import Alphabet

    alphabet = Alphabet("items", tuple(items))
    data = SequenceSet.from_strings([list(rng.choice(items, 12, p=p)) for _ in range(40)], alphabet=alphabet)
    pseudo = SequenceSet.from_strings([list(rng.choice(items, 12, p=p)) for _ in range(40)], alphabet=data.alphabet,
                                      headers=[f"pseudo_{i + 1} segment=0 group={i // 10}" for i in range(40)])
    outcome = Outcome(Result(pseudo, np.arange(40) // 10), {"passed": True, "model": "pseudo-strings"},
                      {"metrics": {}}, data, {})
    pane = _show(qtbot, CompositionPane)
    pane.show_outcome(outcome)
    assert len(pane.original_bars.opts["height"]) == 40 == len(pane.shown_symbols)
    top = set(np.array(pane.current.symbols)[np.argsort(-np.maximum(pane.current.f, pane.current.f_pseudo), kind="stable")[:40]])
    assert set(pane.shown_symbols) == top
    assert "40 most frequent of" in pane.info.text()
    assert f"CD = {pane.current.cd:.4f}" in pane.title_text()


@pytest.mark.parametrize("cls", [CompositionPane, MstPartitionPane, MetricsPane, PrivacyPane, ComparePane,
                                 ParametersPane, RunPane])
def test_a_state_does_not_keep_a_closed_pane_alive(qapp, cls):
    """No reference cycle through the state or the plot items: a dropped pane is freed at once (a cycle
    would be broken later by the garbage collector, possibly in the middle of a paint event)."""
    import gc
    import weakref

    from anonstudio.core.workspace import Workspace

    state = Workspace()
    gc.collect()
    gc.disable()
    try:
        pane = cls()
        pane.set_state(state)
        state.set_outcome(_samples.table_outcome())
        ref = weakref.ref(pane)
        del pane
        assert ref() is None
    finally:
        gc.enable()
    state.set_outcome(None)  # the dead pane's listener removes itself
    assert state._listeners == []


def test_privacy_pane_counts_classes_as_a_reader_sees_them(qtbot):
    outcome = _samples.table_outcome(k=3)
    out, groups = outcome.result.output.df, outcome.result.groups
    a, b = np.flatnonzero(groups == 0), np.flatnonzero(groups == 1)
    for q in ("age", "zip", "sex"):
        out.loc[b, q] = out.loc[a[0], q]
    pane = _show(qtbot, PrivacyPane)
    pane.show_outcome(outcome)
    assert len(pane.sizes) == len(np.unique(groups)) - 1
    assert len(a) + len(b) in pane.sizes.tolist()
    assert pane.class_note.isVisibleTo(pane) and "share their published values" in pane.class_note.text()


def test_privacy_pane_lists_the_risks_the_model_does_not_cover(qtbot, screenshot):
    """Issue 11 items 14 and 16: the workbench shows the report's warnings beside the verdict."""
    from anonstudio.core import jobs
    from anonstudio.core.algorithms import get
    from anonstudio.core.data import Table
    from anonstudio.core.generate import adult_hierarchies, adult_like_table

    frame = adult_like_table(200, seed=5)
    frame.insert(0, "patient", [f"p{i:04d}" for i in range(len(frame))])
    table = Table(frame).with_roles(["age", "sex", "education"], ["salary-class"])
    outcome = jobs.anonymize(table, adult_hierarchies(["age", "sex", "education"]), get("mondrian")(k=5), max_suppression=1.0)
    pane = _show(qtbot, PrivacyPane)
    pane.resize(1000, 700)
    pane.show_outcome(outcome)
    from anonstudio.core.views.workbench_words import all_in_workbench_words

    assert pane.warnings == all_in_workbench_words(outcome.report["warnings"])  # fixes named as the workbench applies them
    text = pane.verdict.text()
    assert "Risks the privacy model does not cover" in text
    assert ("column &#x27;patient&#x27; is published unchanged" in text
            or "column 'patient' is published unchanged" in text)
    assert "rows keep the input&#x27;s order" in text or "rows keep the input's order" in text
    screenshot(pane, "privacy_warnings")


def test_privacy_pane_shows_no_class_sizes_for_random_anonymization(qtbot):
    from anonstudio.core import jobs
    from anonstudio.core.algorithms import get
    from anonstudio.core.data import Table
    from anonstudio.core.generate import adult_like_table

    frame = adult_like_table(200, seed=5)
    table = Table(frame).with_roles(["age", "sex", "education"], ["salary-class"])
    outcome = jobs.anonymize(table, {}, get("ra")(seed=2))
    pane = _show(qtbot, PrivacyPane)
    pane.show_outcome(outcome)
    assert "random anonymization" in pane.verdict.text() and "Verified" in pane.verdict.text()
    assert not pane.classes_view.isVisible()


def test_composition_lists_the_strings_that_were_not_published_with_the_reason(qtbot):
    """Issue 15 item 12: suppressed proteins are listed with why."""
    from anonstudio.core import jobs
    from anonstudio.core.algorithms import get
    from anonstudio.core.data import SequenceSet

    rng = np.random.default_rng(3)
    strings = ["".join(rng.choice(list("ACDEFGHIKLMNPQRSTVWY"), 30)) for _ in range(12)] + ["MKV" * 70]
    outcome = jobs.anonymize(SequenceSet.from_strings(strings), {}, get("condensation")(k=4, epsilon=0.5))
    pane = _show(qtbot, CompositionPane)
    pane.show_outcome(outcome)
    assert pane.suppressed.isVisibleTo(pane) and pane.suppressed.rowCount() == 1
    assert pane.suppressed.item(0, 1).text() == "210"
    assert "fits no length segment of at least k = 4" in pane.suppressed.item(0, 2).text()
    assert "1 input string(s) were not published" in pane.suppressed_info.text()
    pane.show_outcome(_samples.strings_outcome())
    assert not pane.suppressed.isVisibleTo(pane) and "none" in pane.suppressed_info.text()
