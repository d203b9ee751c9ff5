"""The run pane: progress with the engine's messages, elapsed time, Cancel."""

from __future__ import annotations

import time

from PySide6.QtWidgets import QApplication

from anonstudio.gui.panes import _samples
from anonstudio.gui.panes.run import RunPane, format_elapsed


def test_progress_messages_elapsed_and_finish(qtbot, screenshot):
    pane = RunPane(parent=None)
    qtbot.addWidget(pane)
    pane.resize(900, 600)
    pane.show()
    assert not pane.cancel_button.isEnabled()
    pane.start("Running mst…")
    assert pane.cancel_button.isEnabled() and pane.bar.value() == 0
    pane.progress(0.42, "merging classes")
    assert pane.bar.value() == 420 and pane.message.text() == "merging classes"
    time.sleep(1.1)  # (plain sleep: another test's app.exec()/quit() can make qtbot.wait return at once)
    assert pane.elapsed_ms() >= 1000
    QApplication.processEvents()  # the 200 ms timer is due: the label follows the clock
    assert pane.elapsed.text() == "0:01"
    pane.finish(True, "k-anonymous, k = 3, verified")
    assert pane.bar.value() == 1000 and not pane.cancel_button.isEnabled()
    assert "verified" in pane.result.text()
    outcome = _samples.table_outcome()
    pane.show_outcome(outcome)
    # a table release counts its published classes (records with identical published quasi-identifiers)
    classes = outcome.report["groups"]
    assert classes["unit"] == "classes"
    assert f"{classes['count']:,} classes (sizes {classes['min_size']}–{classes['max_size']})" in pane.result.text()
    assert "passed" in pane.result.text()
    screenshot(pane, "run")


def test_cancel_emits_once_and_failure_is_shown(qtbot):
    pane = RunPane()
    qtbot.addWidget(pane)
    pane.start()
    with qtbot.waitSignal(pane.cancelRequested, timeout=1000):
        pane.cancel_button.click()
    assert not pane.cancel_button.isEnabled() and "Cancelling" in pane.message.text()
    with qtbot.assertNotEmitted(pane.cancelRequested):
        pane._on_cancel()  # a second request while cancelling is ignored
    pane.finish(False, "Cancelled")
    assert pane.state.ok is False and pane.result.text() == "Cancelled"
    assert "Stopped" in pane.message.text()


def test_cancel_is_unavailable_when_nothing_runs(qtbot):
    pane = RunPane()
    qtbot.addWidget(pane)
    with qtbot.assertNotEmitted(pane.cancelRequested):
        pane._on_cancel()


def test_format_elapsed():
    assert format_elapsed(0) == "0:00"
    assert format_elapsed(61_500) == "1:01"
    assert format_elapsed(3_723_000) == "1:02:03"
