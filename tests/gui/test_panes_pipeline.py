"""The result panes on outcomes of the real pipeline (``core.jobs.run``: method → independent verifier →
evaluation), for a test method and every table method this build registers."""

from __future__ import annotations

import numpy as np
import pytest

from anonstudio.core import algorithms, jobs
from anonstudio.core.hierarchy import build_hierarchy
from anonstudio.core.views import samples as _samples
from anonstudio.gui.panes.compare import ComparePane
from anonstudio.gui.panes.metrics import MetricsPane
from anonstudio.gui.panes.mst_partition import MstPartitionPane
from anonstudio.gui.panes.privacy import PrivacyPane
from tests.gui.conftest import GeneraliseAll

SPECS = {"age": {"intervals": [10, 20, 40]}, "zip": {"mask": "*"}, "sex": {"mask": "*"}}


@pytest.fixture(scope="module")
def table_and_hierarchies():
    from anonstudio.core.data import Table

    sample = _samples.sample_table(n=80)  # without its identifying column (the test method keeps every column)
    table = Table(sample.df.drop(columns=sample.identifying),
                  roles={c: r for c, r in sample.roles.items() if c not in sample.identifying})
    hs = {a: build_hierarchy(a, spec, table.df[a].unique()) for a, spec in SPECS.items()}
    return table, hs


def _methods():
    # the k-anonymity methods (their panes show classes against k); random anonymization and anatomy
    # publish no classes and have their own checks in tests/core/algorithms/test_ra.py
    return [GeneraliseAll, *[c for c in algorithms.available("table") if "k-anonymity" in c.privacy_models]]


@pytest.mark.parametrize("cls", _methods(), ids=lambda c: c.name)
def test_panes_show_a_verified_pipeline_outcome(qtbot, table_and_hierarchies, cls, screenshot):
    table, hs = table_and_hierarchies
    params = {"k": 4} if "k" in cls.parameters.names() else {}
    # the test method publishes every record at the root (fully suppressed): allow it for that one
    outcome = jobs.anonymize(table, hs, cls(**params), max_suppression=1.0 if cls is GeneraliseAll else None)
    assert hasattr(outcome.verification, "as_dict")  # the verifier's own object, not a dict
    ver = outcome.verification.as_dict()

    privacy = PrivacyPane()
    qtbot.addWidget(privacy)
    privacy.show_outcome(outcome)
    assert privacy.verdict_passed() is True and "Verified" in privacy.verdict.text()
    assert (privacy.sizes >= 4).all()
    if "classes" in ver.get("details", {}):
        assert len(privacy.sizes) == ver["details"]["classes"]  # the pane counts classes as the verifier does

    compare = ComparePane()
    qtbot.addWidget(compare)
    compare.show_outcome(outcome)
    out = outcome.result.output.df
    orig = table.df[out.columns]
    changed = int((out.astype(str).to_numpy() != orig.astype(str).to_numpy()).sum())
    assert compare.summary.text().startswith(f"{changed:,} cells changed")
    compare.select_record(0)
    cls0 = compare.right_model.highlighted_rows()
    if (out.iloc[0][["age", "zip", "sex"]] == "*").all():  # suppressed: in no class
        assert cls0.tolist() == [0]
    else:
        assert len(cls0) >= 4 and (out.iloc[cls0][["age", "zip", "sex"]].nunique() == 1).all()

    metrics = MetricsPane()
    qtbot.addWidget(metrics)
    metrics.show_outcome(outcome)
    assert metrics.report_row("algorithm") == cls.name
    assert metrics.report_row("verification", "passed") == "yes"

    mst = MstPartitionPane()
    qtbot.addWidget(mst)
    mst.show_outcome(outcome)
    if "mst_edges" in outcome.result.details:
        assert mst.point_count() == len(table.df)
        removed = np.asarray(outcome.result.details["removed_edges"])
        n_removed = int(removed.sum()) if removed.dtype == bool else len(removed)
        assert mst.removed_edge_count() == n_removed
        mst.resize(900, 600)
        mst.show()
        screenshot(mst, f"mst_partition_pipeline_{cls.name}")
    else:
        assert mst.stack.currentIndex() == 0


@pytest.mark.parametrize("cls", algorithms.available("fasta"), ids=lambda c: c.name)
def test_string_panes_show_a_verified_pipeline_outcome(qtbot, cls, screenshot):
    from anonstudio.core.views import composition
    from anonstudio.gui.panes.composition import CompositionPane

    data = _samples.sample_strings(n_families=4, per_family=8)
    outcome = jobs.anonymize(data, {}, cls(k=4))
    comp = CompositionPane()
    qtbot.addWidget(comp)
    comp.show_outcome(outcome)
    expected = composition(data, outcome.result.output)
    assert np.allclose(comp.original_bars.opts["height"], expected.f)
    assert f"CD = {expected.cd:.4f}" in comp.title_text()
    if isinstance(outcome.report["metrics"].get("CD"), float):
        assert abs(outcome.report["metrics"]["CD"] - expected.cd) < 1e-4  # the pane agrees with the report

    compare = ComparePane()
    qtbot.addWidget(compare)
    compare.show_outcome(outcome)
    kept = int(np.flatnonzero(outcome.result.groups >= 0)[0])
    compare.resize(900, 600)
    compare.show()
    qtbot.waitExposed(compare)
    compare.select_record(kept)
    rows = compare.right_model.highlighted_rows()
    assert len(rows) >= 1
    right = compare.pair.right  # the group's pseudo-strings are scrolled into view
    assert right.visualRect(right.model().index(int(rows[0]), 0)).intersects(right.viewport().rect())
    assert "identical" in compare.alignment.toPlainText()
    screenshot(compare, f"compare_pipeline_{cls.name}")

    privacy = PrivacyPane()
    qtbot.addWidget(privacy)
    privacy.show_outcome(outcome)
    assert privacy.verdict_passed() is True and privacy.leak_box.isVisibleTo(privacy)
    assert privacy.leaks.rowCount() >= 1 and privacy.leaks.item(0, 0).text() != "(none reported)"
