"""The Qt-free views behind the result panes (no QApplication needed)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.algorithms import Result
from anonstudio.core.data import SequenceSet
from anonstudio.core import views as R
from anonstudio.core.views import samples as _samples
from tests.gui._trees import components_after_cut


def test_changed_mask_compares_cells_by_column_name_and_treats_missing_as_empty():
    a = pd.DataFrame({"id": ["1", "2"], "age": ["30", pd.NA], "zip": ["13053", "14850"]})
    b = pd.DataFrame({"age": ["30-39", ""], "zip": ["13053", "148**"]})
    mask = R.changed_mask(a, b)
    assert mask.tolist() == [[True, False], [False, True]]


def test_group_members_and_suppressed_records():
    groups = np.array([0, 1, 0, -1, 1])
    assert R.group_members(groups, 0).tolist() == [0, 2]
    assert R.group_members(groups, 3).tolist() == [3]
    assert R.group_members(groups, 9).tolist() == []


def test_composition_and_cd_follow_the_paper_definition():
    orig = SequenceSet.from_strings(["AAC", "AC"], alphabet="dna")
    pseudo = SequenceSet.from_strings(["CCC", "AA"], alphabet="dna")
    comp = R.composition(orig, pseudo)
    assert comp.symbols == ["A", "C", "G", "T"]
    assert comp.f.tolist() == pytest.approx([0.6, 0.4, 0, 0])
    assert comp.f_pseudo.tolist() == pytest.approx([0.4, 0.6, 0, 0])
    assert comp.cd == pytest.approx(0.4)  # |0.6-0.4| + |0.4-0.6|


def test_pseudo_groups_come_from_headers_or_details():
    out = SequenceSet.from_strings(["AC", "CA", "GG"], headers=["pseudo_1 segment=0 group=3", "pseudo_2 group=5",
                                                                "pseudo_3"], alphabet="dna")
    assert R.pseudo_groups(out).tolist() == [3, 5, -1]
    assert R.pseudo_groups(out, {"pseudo_groups": [1, 1, 2]}).tolist() == [1, 1, 2]


def test_class_sizes_histogram_leaves_out_suppressed():
    ids, sizes = R.class_sizes(np.array([2, 2, 2, 5, 5, -1, 7, 7, 7]))
    assert ids.tolist() == [2, 5, 7] and sizes.tolist() == [3, 2, 3]
    assert [v.tolist() for v in R.size_histogram(sizes)] == [[2, 3], [1, 2]]


def test_report_rows_flatten_contract_keys_in_order():
    rep = _samples.table_outcome().report
    rows = R.report_rows(rep)
    sections = [s for s, _, _ in rows]
    assert sections[0] == "algorithm"
    assert sections.index("groups") < sections.index("verification") < sections.index("metrics")
    assert ("groups", "min_size", str(rep["groups"]["min_size"])) in rows
    assert ("verification", "passed", "yes") in rows


def test_sweep_state_sorts_by_x_and_replaces_reruns():
    s = R.SweepState("k")
    s.add("mst", 5, {"NCP": 0.3, "note": "x"})
    s.add("mst", 2, {"NCP": 0.1, "nested": {"a": 1}})
    s.add("mst", 5, {"NCP": 0.35})
    s.add("mondrian", 2, {"DM": 10})
    x, y = s.series("NCP")["mst"]
    assert x.tolist() == [2, 5] and y.tolist() == [0.1, 0.35]
    assert "mondrian" not in s.series("NCP")
    assert s.metric_names() == ["NCP", "nested.a", "DM"]


def _tree_outcome(n: int, removed_every: int, tuple_of_record=None):
    rng = np.random.default_rng(1)
    parent = np.array([rng.integers(0, i) for i in range(1, n)])
    edges = np.stack([parent, np.arange(1, n)], 1)
    removed = np.arange(0, n - 1, removed_every)
    node_group = components_after_cut(n, edges, removed)
    groups = node_group if tuple_of_record is None else node_group[tuple_of_record]
    details = {"mst_edges": edges, "mst_weights": rng.random(n - 1), "removed_edges": removed}
    if tuple_of_record is not None:
        details["tuple_of_record"] = tuple_of_record
    return SimpleNamespace(result=Result(None, groups, details=details), data=None, report={}), removed


def test_mst_view_draws_every_node_and_splits_removed_edges():
    outcome, removed = _tree_outcome(200, 9)
    view = R.mst_view(outcome)
    assert view.pos.shape == (200, 2) and np.isfinite(view.pos).all()
    assert len(view.removed) == len(removed) and len(view.kept) == 199 - len(removed)
    assert not view.sampled


def test_mst_view_accepts_removed_edges_as_pairs_and_tuples_of_records():
    tor = np.repeat(np.arange(50), 3)  # 150 records, 50 distinct tuples
    outcome, removed = _tree_outcome(50, 7, tuple_of_record=tor)
    outcome.result.details["removed_edges"] = outcome.result.details["mst_edges"][removed][:, ::-1]
    view = R.mst_view(outcome)
    assert view.unit == "tuples" and len(view.node_ids) == 50
    assert len(view.removed) == len(removed)
    assert "×3" in view.labels[0]


def test_mst_view_samples_whole_classes_above_the_limit():
    outcome, _ = _tree_outcome(3000, 10)
    view = R.mst_view(outcome, max_nodes=400)
    assert view.sampled and 0 < len(view.node_ids) <= 400
    groups = outcome.result.groups
    for c in np.unique(view.node_class):
        assert (view.node_class == c).sum() == (groups == c).sum()  # classes are drawn whole


def test_mst_view_is_none_without_an_mst():
    assert R.mst_view(SimpleNamespace(result=Result(None, np.zeros(3, np.int64)), data=None, report={})) is None


def test_force_layout_puts_tree_neighbours_closer_than_strangers():
    n = 60
    edges = np.array([(i, i + 1) for i in range(n - 1)])
    pos = R.force_layout(n, edges, np.ones(n - 1))
    d_edge = np.linalg.norm(pos[edges[:, 0]] - pos[edges[:, 1]], axis=1).mean()
    d_far = np.linalg.norm(pos[0] - pos[n - 1])
    assert d_edge < d_far / 5


def test_sample_outcomes_are_k_anonymous_and_consistent():
    o = _samples.table_outcome(k=4)
    _, sizes = R.class_sizes(o.result.groups)
    assert sizes.min() >= 4 and o.report["verification"]["passed"]
    out = o.result.output.df
    for g in np.unique(o.result.groups):
        rows = out[o.result.groups == g][["age", "zip", "sex"]]
        assert len(rows.drop_duplicates()) == 1  # one generalized tuple per class


def test_mst_view_accepts_removed_edges_as_a_boolean_mask():
    outcome, removed = _tree_outcome(120, 8)
    mask = np.zeros(119, dtype=bool)
    mask[removed] = True
    outcome.result.details["removed_edges"] = mask
    view = R.mst_view(outcome)
    assert len(view.removed) == len(removed) and len(view.kept) == 119 - len(removed)


def test_equivalence_classes_join_groups_that_publish_the_same_values():
    o = _samples.table_outcome(k=3)
    groups = o.result.groups.copy()
    out = o.result.output.df
    # make the first two groups publish identical quasi-identifier values
    a, b = np.flatnonzero(groups == 0), np.flatnonzero(groups == 1)
    for q in ("age", "zip", "sex"):
        out.loc[b, q] = out.loc[a[0], q]
    classes = R.equivalence_classes(o)
    assert classes[a[0]] == classes[b[0]]
    assert len(np.unique(classes)) == len(np.unique(groups)) - 1
    o.result.groups[5] = -1  # a suppressed record stays out of every class
    assert R.equivalence_classes(o)[5] == -1
    strings = _samples.strings_outcome()
    assert R.equivalence_classes(strings).tolist() == strings.result.groups.tolist()
