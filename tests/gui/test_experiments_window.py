"""The paper experiments window: the same commands as `anonstudio experiment`, run on a worker thread, with the
figures and table they wrote shown; bad input, bad parameters and cancel as a user meets them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtGui import QImage

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
DEMO_FASTA = ROOT / "anonstudio" / "resources" / "demo" / "proteins.fasta"


def _open(window, qtbot):
    window.act_experiments.trigger()
    exp = window.experiments_window
    assert exp is not None and exp.isVisible()
    return exp


def _type(exp, name: str, **values) -> None:
    exp.select(name)
    exp.form.set_values({**exp.form.values(), **values})


def _run(exp, qtbot, timeout=60_000):
    with qtbot.waitSignal(exp.experimentFinished, timeout=timeout) as blocker:
        exp.run_button.click()
    return blocker.args[0]


def _distinct_colours(label) -> int:
    img = label.pixmap().toImage().convertToFormat(QImage.Format.Format_RGB32)
    arr = np.frombuffer(img.constBits(), np.uint32, img.width() * img.height())
    return len(np.unique(arr))


def test_lists_every_experiment_with_its_parameters(window, qtbot):
    from anonstudio.core.experiments import EXPERIMENTS

    exp = _open(window, qtbot)
    assert [exp.list.item(i).text() for i in range(exp.list.count())] == list(EXPERIMENTS)
    exp.select("condensation-ordering")
    assert set(exp.form.parameters.names()) == set(EXPERIMENTS["condensation-ordering"].parameters.names())
    assert "Fig. 9" in exp.help.text()
    assert exp.output.text().endswith("condensation-ordering")


def test_condensation_cd_runs_and_shows_its_figure_and_table(window, qtbot, tmp_path, screenshot, messages):
    exp = _open(window, qtbot)
    _type(exp, "condensation-cd", input=str(DEMO_FASTA), group_sizes="5,10,20")
    exp.output.setText(str(tmp_path / "cd"))
    paths = _run(exp, qtbot)
    assert messages.calls == []
    assert sorted(p.name for p in paths) == ["condensation-cd.csv", "condensation-cd.png"]
    assert all(p.is_file() for p in paths)
    df = pd.read_csv(tmp_path / "cd" / "condensation-cd.csv")
    assert df["group_size"].tolist() == [5, 10, 20] and (df["CD"] < 0.1).all()
    # the figure tab shows the PNG as written; the table tab the CSV's rows
    labels = exp.figure_labels()
    assert len(labels) == 1 and not labels[0].pixmap().isNull()
    assert _distinct_colours(labels[0]) > 20  # a drawn plot, not a blank image
    tabs = [exp.results.tabText(i) for i in range(exp.results.count())]
    assert tabs == ["condensation-cd", "table: condensation-cd.csv"]
    table = exp.results.widget(1)
    assert table.rowCount() == 3 and table.item(2, 0).text() == "20"
    assert "Done: 2 files" in exp.status.text()
    assert exp.run_button.isEnabled() and not exp.cancel_button.isEnabled()
    screenshot(exp, "experiments_condensation_cd")


def test_the_open_fasta_is_the_default_input(window, qtbot, tmp_path, monkeypatch):
    fasta = tmp_path / "mine.fasta"
    fasta.write_bytes(DEMO_FASTA.read_bytes())
    with qtbot.waitSignal(window.dataOpened, timeout=20_000):
        assert window.open_path(fasta, wait=False)
    exp = _open(window, qtbot)
    exp.select("condensation-composition")
    assert exp.form.values()["input"] == str(fasta)


def test_a_missing_input_file_is_one_dialog_and_writes_nothing(window, qtbot, tmp_path, messages):
    exp = _open(window, qtbot)
    _type(exp, "condensation-cd", input=str(tmp_path / "nowhere.fasta"), group_sizes="5")
    exp.output.setText(str(tmp_path / "out"))
    result = _run(exp, qtbot)
    assert isinstance(result, Exception)
    assert [c[0] for c in messages.calls] == ["critical"]
    assert "nowhere.fasta" in messages.calls[0][2]
    assert not list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else True
    assert exp.run_button.isEnabled()


def test_an_unexpected_failure_is_a_sentence_with_details_and_is_logged(window, qtbot, tmp_path, messages,
                                                                       monkeypatch):
    """Issue 30 item 2: a bug inside an experiment reaches the user as the workbench's own error dialog (a sentence,
    the log file, the traceback behind "Show Details…"), never as the raw exception."""
    log = tmp_path / "errors.log"
    monkeypatch.setenv("ANONSTUDIO_ERROR_LOG", str(log))
    exp = _open(window, qtbot)
    _type(exp, "condensation-cd", input=str(DEMO_FASTA), group_sizes="5")
    exp.output.setText(str(tmp_path / "out"))

    def broken(*args, **kwargs):
        raise ZeroDivisionError("an internal invariant broke")

    import dataclasses

    monkeypatch.setitem(exp.experiments, "condensation-cd",
                        dataclasses.replace(exp.experiments["condensation-cd"], func=broken))
    result = _run(exp, qtbot)
    assert isinstance(result, ZeroDivisionError)
    box = exp.last_error_box
    assert box is not None and box.isVisible() and not messages.texts("critical")
    assert "ZeroDivisionError" not in box.text() and "not in your data or settings" in box.text()
    assert "ZeroDivisionError: an internal invariant broke" in box.detailedText()
    assert "ZeroDivisionError" in log.read_text(encoding="utf-8") and str(log) in box.informativeText()
    box.close()
    assert exp.run_button.isEnabled()


def test_a_nonsense_parameter_is_refused_before_running(window, qtbot, tmp_path, messages):
    exp = _open(window, qtbot)
    _type(exp, "condensation-composition", input=str(DEMO_FASTA), k=1)
    exp.output.setText(str(tmp_path / "out"))
    assert exp.start() is None
    assert messages.calls and messages.calls[0][0] == "critical" and messages.calls[0][2].startswith("k — smallest group size: must be")
    assert not (tmp_path / "out").exists() and not exp.runner.busy


def test_cancel_leaves_no_file(window, qtbot, tmp_path, messages):
    exp = _open(window, qtbot)
    _type(exp, "condensation-ordering", input=str(DEMO_FASTA), group_sizes="5,10,20,40")
    exp.output.setText(str(tmp_path / "out"))
    with qtbot.waitSignal(exp.experimentFinished, timeout=60_000) as blocker:
        exp.run_button.click()
        assert exp.cancel_button.isEnabled() and not exp.run_button.isEnabled()
        exp.cancel_button.click()
    assert blocker.args[0] is None
    assert "Cancelled" in exp.status.text()
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    assert messages.calls == []


@pytest.mark.realdata
def test_mst_adult_shows_one_tab_per_figure(window, qtbot, tmp_path, shared_data, screenshot, messages):
    exp = _open(window, qtbot)
    _type(exp, "mst-adult", k_values=["3", "6"], qi_sizes=["2"], methods=["mst", "mondrian"], rows=2000,
          data=str(shared_data / "adult"))
    exp.output.setText(str(tmp_path / "mst"))
    paths = _run(exp, qtbot, timeout=120_000)
    assert messages.calls == []
    assert {p.name for p in paths} == {"results.csv", "gcp.png", "dm.png", "cavg.png"}
    assert [exp.results.tabText(i) for i in range(exp.results.count())] == ["gcp", "dm", "cavg", "table: results.csv"]
    assert all(_distinct_colours(label) > 20 for label in exp.figure_labels())
    table = exp.results.widget(3)
    assert table.rowCount() == 4  # 2 methods x 2 k values x 1 QI size
    screenshot(exp, "experiments_mst_adult")


def test_cbmsa_hhp_shows_the_claims_first_then_the_figures(window, qtbot, tmp_path, screenshot, messages):
    exp = _open(window, qtbot)
    _type(exp, "cbmsa-hhp", sequences=["120"], k_values=["5", "10"], c_values=["0.5", "0.9"])
    exp.output.setText(str(tmp_path / "cbmsa"))
    paths = _run(exp, qtbot, timeout=120_000)
    assert messages.calls == []
    assert {p.name for p in paths} == {"results.csv", "datasets.csv", "claims.md", "il_vs_k.png", "il_vs_c.png",
                                       "runtime_vs_k.png"}
    tabs = [exp.results.tabText(i) for i in range(exp.results.count())]
    assert tabs == ["claims", "il_vs_k", "il_vs_c", "runtime_vs_k", "table: results.csv"]
    claims = exp.results.widget(0).toPlainText()
    assert "Data_120_5_3" in claims and "Our run: the claim holds at" in claims
    assert all(_distinct_colours(label) > 20 for label in exp.figure_labels())
    assert exp.results.widget(4).rowCount() == 8  # (2 k + 2 c) x 2 methods
    exp.results.setCurrentIndex(1)
    screenshot(exp, "experiments_cbmsa_hhp")


@pytest.mark.realdata
def test_ra_adult_shows_the_claims_and_every_figure(window, qtbot, tmp_path, shared_data, screenshot, messages):
    exp = _open(window, qtbot)
    _type(exp, "ra-adult", rows=3000, queries=30, bias_runs=4, k_values=["1", "5"], data=str(shared_data / "adult"))
    exp.output.setText(str(tmp_path / "ra"))
    paths = _run(exp, qtbot, timeout=180_000)
    assert messages.calls == []
    assert {p.name for p in paths} >= {"claims.md", "queries.csv", "rules.csv", "bias.csv", "fig6a_error_vs_attributes.png",
                                       "fig7_rules_ra_vs_anatomy.png", "fig8a_rules_vs_k.png", "bias.png"}
    tabs = [exp.results.tabText(i) for i in range(exp.results.count())]
    assert tabs[0] == "claims" and "fig6a_error_vs_attributes" in tabs and "bias" in tabs
    claims = exp.results.widget(0).toPlainText()
    assert "probabilistic anonymity" in claims and "claims reproduced" in claims
    assert all(_distinct_colours(label) > 20 for label in exp.figure_labels())
    exp.results.setCurrentIndex(tabs.index("fig6a_error_vs_attributes"))
    screenshot(exp, "experiments_ra_adult")


def test_reproduce_shows_the_reproduction_table_first(window, qtbot, tmp_path, screenshot, messages):
    exp = _open(window, qtbot)
    _type(exp, "reproduce", paper="004", scale="quick")
    exp.output.setText(str(tmp_path / "repro"))
    paths = _run(exp, qtbot, timeout=180_000)
    assert messages.calls == []
    assert paths[0].name == "REPRODUCTION.md" and (tmp_path / "repro" / "004" / "cbmsa-1k" / "results.csv").exists()
    tabs = [exp.results.tabText(i) for i in range(exp.results.count())]
    assert tabs[0] == "REPRODUCTION" and {"il_vs_k", "il_vs_c", "runtime_vs_k"} <= set(tabs)
    assert tabs[-1] == "table: reproduction.csv"
    text = exp.results.widget(0).toPlainText()
    assert "004: Sehatkar & Matwin" in text and "Fig. 2a (IL vs k" in text and "partly reproduced" in text
    assert "The data: the paper's beside ours" in text and "Table 1 → Table 2" in text
    assert all(_distinct_colours(label) > 20 for label in exp.figure_labels())
    screenshot(exp, "experiments_reproduce")
