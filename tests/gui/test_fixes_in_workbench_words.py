"""Issue 40 item 2: every risk the workbench shows names its fix as the user applies it there — the Release
checkbox or a button that applies it — never a job key ("set output.shuffle_rows = true"); counts agree with their
verbs; the window's title names the job opened."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from anonstudio.core.publication import ORDER_WARNING, SEQUENCE_ORDER_WARNING
from anonstudio.core.publication_rules import SHUFFLE_REQUIRED
from anonstudio.core.views.workbench_words import SHUFFLE_CONTROL, counted, in_workbench_words, is_are, shuffling_fixes

pytestmark = pytest.mark.gui

DEMO = Path(__file__).resolve().parents[2] / "anonstudio" / "resources" / "demo"


def test_the_engines_job_key_fixes_read_as_the_workbenchs_controls():
    for warning in (ORDER_WARNING, SEQUENCE_ORDER_WARNING, SHUFFLE_REQUIRED.format(method="safepub")):
        shown = in_workbench_words(warning)
        assert "output.shuffle_rows" not in shown and SHUFFLE_CONTROL in shown, shown
    assert shuffling_fixes(in_workbench_words(ORDER_WARNING)) and shuffling_fixes(SEQUENCE_ORDER_WARNING)
    assert (counted(1, "value"), is_are(1), counted(12, "value"), is_are(12)) == ("1 value", "is", "12 values", "are")


@pytest.fixture
def demo(tmp_path) -> Path:
    out = tmp_path / "demo"
    shutil.copytree(DEMO, out, ignore=shutil.ignore_patterns("*.py", "__pycache__", "results"))
    return out


def test_a_release_in_the_inputs_order_names_the_checkbox_and_its_button_shuffles(window, demo, qtbot, messages,
                                                                                   screenshot):
    """The MST demo job publishes rows in the input's order: the Summary, the Privacy pane, the status bar's tooltip
    and the export dialog name the Release checkbox; the Summary's Shuffle rows button ticks it and the risk goes."""
    assert window.open_job(demo / "table-mst.toml")
    assert "table-mst.toml" in window.windowTitle()
    with qtbot.waitSignal(window.runFinished, timeout=120_000):
        window.act_run.trigger()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)
    state = window.state
    assert any(shuffling_fixes(r) for r in state.release_verdict().risks)
    summary, privacy = window.panes["Summary"], window.panes["Privacy"]
    window.docks["Summary"].raise_()
    for text in (summary.text(), " ".join(privacy.warnings), window.verdict_label.toolTip()):
        assert "output.shuffle_rows" not in text and "Publish rows in a random order" in text, text
    assert summary.shuffle_button.isVisibleTo(summary)
    screenshot(window.docks["Summary"], "fix_shuffle_rows_summary")
    # the export dialog names it too, and its Apply button applies it
    messages.answer = QMessageBox.StandardButton.Cancel
    assert window.confirm_release_risks() is None
    kind, title, text = messages.calls[-1]
    assert title == "Not safe to publish" and "output.shuffle_rows" not in text and "Apply" in text, text
    # the Summary's button: rows shuffled, the checkbox ticked, the order risk gone, the outcome still current
    summary.shuffle_button.click()
    assert state.release.shuffle_rows and window.panes["Method"].shuffle_rows.isChecked()
    assert not any(shuffling_fixes(r) for r in state.release_verdict().risks)
    assert not summary.shuffle_button.isVisibleTo(summary) and state.outcome_is_current()


def test_the_export_dialogs_apply_button_shuffles_and_asks_about_what_is_left(window, demo, qtbot, messages):
    assert window.open_job(demo / "table-mst.toml")
    with qtbot.waitSignal(window.runFinished, timeout=120_000):
        window.act_run.trigger()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=20_000)
    answers = [QMessageBox.StandardButton.Apply, QMessageBox.StandardButton.Yes]
    asked: list[str] = []

    def question(parent, title, text, buttons, default):
        asked.append(text)
        return answers.pop(0)

    import anonstudio.gui.window_files as wf

    original = wf.QMessageBox.question
    wf.QMessageBox.question = staticmethod(question)
    try:
        accepted = window.confirm_release_risks()
    finally:
        wf.QMessageBox.question = original
    assert window.state.release.shuffle_rows
    left = window.state.release_verdict().risks
    if left:  # asked again about what shuffling does not fix, and those are what the user confirmed
        assert len(asked) == 2 and accepted == left and not any(shuffling_fixes(r) for r in left)
    else:
        assert len(asked) == 1 and accepted == []


def test_a_hierarchy_that_misses_one_value_says_is(window, tmp_path, messages):
    table = tmp_path / "t.csv"
    table.write_text("sex;age\n" + "".join(f"{s};{a}\n" for s, a in [("Male", 1), ("Female", 2), ("Other", 3)] * 3),
                     encoding="utf-8")
    window.open_data(table, "table")
    window.state.set_role("sex", "quasi-identifying")
    h = tmp_path / "sex.csv"
    h.write_text("Male;*\nFemale;*\n", encoding="utf-8")
    messages.answer = QMessageBox.StandardButton.No
    editor = window.panes["Hierarchies"]
    editor.select_attribute("sex")
    editor.import_file(h, "sex")
    text = messages.texts("question")[-1]
    assert "1 of the 3 values of column 'sex' is not in" in text and "add it to the tree" in text, text
