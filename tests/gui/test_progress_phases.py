"""Every phase of a run reports progress and can be cancelled inside it (issue 15 item 10b): verification,
evaluation and the result views report through :func:`anonstudio.core.progress.phase`, and their chunked loops
call :func:`checkpoint` — so Cancel is honoured during them, not only between them."""

from __future__ import annotations

import pytest

from anonstudio.core.data import Role
from anonstudio.core.generate import adult_hierarchies, adult_like_table
from anonstudio.core.data import Table
from anonstudio.core.progress import Cancelled, checkpoint, phase

QIS = ["age", "workclass", "education", "sex"]


def _table() -> Table:
    table = Table(adult_like_table(3000, 3))
    for q in QIS:
        table.roles[q] = Role.QUASI
    return table


def test_checkpoint_repeats_the_phase_report_and_nothing_outside_one():
    seen = []
    checkpoint()  # outside a phase: nothing to call
    with phase(lambda f, m: seen.append((f, m)), 0.4, "verifying"):
        checkpoint()
        with phase(None, 0.5, "inner"):  # a phase without a callback silences checkpoints inside it only
            checkpoint()
        checkpoint()
    checkpoint()
    assert seen == [(0.4, "verifying")] * 3


def _request():
    """What the workbench's Run hands its worker: a workspace's request (mondrian, k = 5)."""
    from anonstudio.core.workspace import Workspace

    ws = Workspace()
    ws.set_data(_table())
    for attr, h in adult_hierarchies(QIS).items():
        ws.set_hierarchy(attr, h)
    return ws.request("mondrian", {"k": 5})


@pytest.mark.parametrize("where", ["verifying", "evaluating", "preparing the result views"])
def test_a_run_is_cancelled_inside_each_late_phase(where):
    from anonstudio.core.workspace import run_request  # the workbench's worker function (no Qt needed)

    calls: list[str] = []

    def progress(fraction: float, message: str) -> None:
        calls.append(message)
        if calls.count(where) == 2:  # the second report of the phase comes from a checkpoint inside it
            raise Cancelled("cancelled by the user")

    with pytest.raises(Cancelled):
        run_request(_request(), progress)
    assert calls.count(where) == 2 and "drawing the results" not in calls


def test_progress_never_reaches_100_percent_before_the_window_has_drawn_the_result():
    from anonstudio.core.workspace import run_request

    fractions: list[float] = []
    run_request(_request(), lambda f, m: fractions.append(f))
    assert fractions == sorted(fractions) and max(fractions) == 0.95  # the Run pane sets 100 % after drawing


def test_a_checkpoint_repeats_the_latest_report_so_the_bar_never_moves_back():
    seen = []
    with phase(lambda f, m: seen.append((f, m)), 0.85, "evaluating") as evaluating:
        evaluating(0.9, "k-NN accuracy")
        checkpoint()
        evaluating(0.88, "")  # a sub-step's lower figure does not move the bar back either
        checkpoint()
    assert [f for f, _ in seen] == [0.85, 0.9, 0.9, 0.9, 0.9] and seen[2] == (0.9, "k-NN accuracy")
