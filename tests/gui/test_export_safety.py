"""The workbench exports only an output verified against what is on screen: roles, hierarchies, method and
parameters changed while a run was going (the run works on a copy taken at its start) make its outcome stale,
never "verified" and never exportable."""

from __future__ import annotations

import pytest

from tests.gui.test_main_window import _open_adult_with_roles

pytestmark = pytest.mark.gui


def test_a_role_changed_during_a_run_makes_its_outcome_stale(window, adult_csv, sex_hierarchy_csv, test_method,
                                                              qtbot, tmp_path):
    """'age' was made a quasi-identifier while the run (started with 'sex' the only one) was going: the
    outcome, verified with 'sex' only, publishes every age as it is, yet it was shown as verified and written."""
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.runFinished, timeout=20_000):
        window.start_run(test_method, {"k": 2, "delay": 0.05})
        qtbot.waitUntil(lambda: window.runner.busy, timeout=5_000)
        window.state.set_role("age", "quasi-identifying")
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)
    assert window.state.outcome is None
    assert not window.act_export_data.isEnabled() and "verified" not in window.verdict_label.text()
    target = tmp_path / "out.csv"
    assert not window.export_data(target) and not target.exists()


def test_parameters_changed_during_a_run_make_its_outcome_stale(window, adult_csv, sex_hierarchy_csv, test_method,
                                                                 qtbot, tmp_path):
    """k raised to 20 on screen while a k = 2 run was going: its output was shown as verified and exported."""
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.runFinished, timeout=20_000):
        window.start_run(test_method, {"k": 2, "delay": 0.05})
        qtbot.waitUntil(lambda: window.runner.busy, timeout=5_000)
        window.state.set_method(test_method, {"k": 20, "delay": 0.05})
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=10_000)
    assert window.state.outcome is None and not window.act_export_data.isEnabled()
    assert len(window.state.history) == 1  # kept in the history, for reference
    target = tmp_path / "out.csv"
    assert not window.export_data(target) and not target.exists()


def test_a_hierarchy_removed_after_a_run_makes_its_outcome_out_of_date(window, adult_csv, sex_hierarchy_csv,
                                                                        test_method, qtbot, tmp_path):
    """Removing a quasi-identifier's hierarchy left the finished run current and exportable, where changing
    it made the run out of date (docs/guide.md: results that no longer match the hierarchies on screen are greyed
    and export is off); and the hierarchy editor put the removed tree straight back into the state."""
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    with qtbot.waitSignal(window.runFinished, timeout=20_000):
        window.start_run(test_method, {"k": 2})
    assert window.state.outcome is not None and window.act_export_data.isEnabled()
    window.state.remove_hierarchy("sex")
    qtbot.wait(100)  # the hierarchy editor, which showed the tree, put it back into the state
    assert "sex" not in window.state.hierarchies and window.panes["Hierarchies"].models["sex"].rowCount() == 0
    assert window.state.outcome is None and not window.act_export_data.isEnabled()
    assert "hierarchy was removed" in window.state.stale_reason
    target = tmp_path / "out.csv"
    assert not window.export_data(target) and not target.exists()
    window.state.remove_hierarchy("sex")  # none left: nothing changes, nothing to say
    assert "hierarchy was removed" in window.state.stale_reason
