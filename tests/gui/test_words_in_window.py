"""Issue 30 item 6 as a user meets it in the window: with the demo's MST job open (an age hierarchy whose interval
label does not hold its value, three columns without a role), switching to random anonymization or Anatomy drops
the warnings about the hierarchy and k-anonymity those methods do not use — in the Attributes panel, the Summary and
the Privacy pane — and the Summary counts no "1 groups" for random anonymization."""

from __future__ import annotations

import pytest

from anonstudio.core.demo import prepare_demo

pytestmark = pytest.mark.gui


@pytest.fixture
def demo(tmp_path):
    folder = prepare_demo(tmp_path / "demo")
    path = folder / "hierarchies" / "adult_hierarchy_age.csv"
    rows = [line.split(";") for line in path.read_text().splitlines()]
    nineteen = next(r for r in rows if r[0] == "19")
    path.write_text("\n".join(";".join([r[0], *nineteen[1:]] if r[0] == "20" else r) for r in rows) + "\n")
    return folder


def _run(window, qtbot, method, params):
    with qtbot.waitSignal(window.runFinished, timeout=60_000):
        window.start_run(method, params)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)


@pytest.mark.parametrize("method, params", [("ra", {"bias_runs": 0}), ("anatomy", {"l": 5})])
def test_methods_that_use_no_hierarchy_and_no_k_anonymity_are_not_warned_about_them(window, qtbot, demo, method,
                                                                                      params, screenshot):
    assert window.open_job(demo / "table-mst.toml")
    attributes = window.panes["Attributes"]
    assert "hierarchy of 'age'" in attributes.cell("age", "Warnings")  # MST uses it: the warning stays
    window.state.set_role("salary-class", "insensitive")
    window.state.set_role("occupation", "sensitive")
    _run(window, qtbot, method, params)
    assert window.state.outcome.report["algorithm"] == method
    qtbot.waitUntil(lambda: "hierarchy" not in attributes.cell("age", "Warnings"), timeout=5_000)
    summary = window.panes["Summary"]
    window.docks["Summary"].raise_()
    text = summary.text()
    assert "verified" in text and "k-anonymity" not in text and "hierarchy of 'age'" not in text, text
    privacy = window.panes["Privacy"]
    assert privacy.warnings and not [w for w in privacy.warnings if "k-anonymity" in w or "hierarchy" in w]
    counts = {row[0]: row[1] for row in summary.summary.records}
    if method == "ra":  # no "1 groups (sizes 2000–2000)": random anonymization forms none
        assert not [c for c in counts if "group" in c or "class" in c], counts
        assert "random anonymization redraws only quasi-identifier values" in text
    else:
        assert counts["groups"] == "400 groups of 5 records" and "anatomy protects only the link to 'occupation'" in text
    print(f"screenshot: {screenshot(summary, f'summary_{method}_words')}")
