"""Many workbench condensation runs back to back, with another process loading the machine (issue 30 item 2: one
run of seven once failed with "ValueError: generator already executing", shown raw). Every run must end verified,
and no run may end in an error dialog."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = [pytest.mark.gui, pytest.mark.realdata]

RUNS = 8


def test_condensation_runs_back_to_back_under_load(window, qtbot, shared_data, messages):
    assert window.open_data(shared_data / "proteins" / "yeast_swissprot_1000.fasta", "fasta")
    load = subprocess.Popen([sys.executable, "-c", "while True: pass"])  # another process loads the machine
    failures = []
    try:
        for seed in range(RUNS):
            with qtbot.waitSignal(window.runFinished, timeout=240_000) as blocker:
                assert window.start_run("condensation", {"k": 20, "seed": seed}) is not None
            qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)
            outcome = blocker.args[0]
            if isinstance(outcome, BaseException) or outcome is None:
                failures.append((seed, repr(outcome)))
            else:
                assert outcome.report["verification"]["passed"]
    finally:
        load.kill()
        load.wait()
    assert not failures, failures
    assert not messages.texts("critical")
