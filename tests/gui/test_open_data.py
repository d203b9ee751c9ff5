"""File ▸ Open data… (Ctrl+O) takes every kind of data (issue 15 item 12): the chosen filter says which, and
"All files" goes by the extension; sequences have no columns, so the hierarchy and attribute panes step aside;
path parameters of the experiments have Browse… buttons."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QFileDialog

from anonstudio.gui.window_files import OPEN_FILTERS

pytestmark = pytest.mark.gui


def _pick(monkeypatch, path, filter_name):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), filter_name)))


@pytest.fixture
def fasta(tmp_path):
    path = tmp_path / "proteins.fa"
    path.write_text(">sp|P1 one\nMKVLAAGIVG\n>sp|P2 two\nMKLLTAGIVA\n", encoding="utf-8")
    return path


def test_ctrl_o_opens_fasta_by_its_extension_and_hides_the_column_panes(window, qtbot, monkeypatch, fasta, adult_csv):
    assert window.act_open_data.shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    _pick(monkeypatch, fasta, "All files (*)")
    with qtbot.waitSignal(window.dataOpened, timeout=20_000):
        window.act_open_data.trigger()
    assert window.state.kind == "fasta" and len(window.state.data) == 2
    assert not window.docks["Hierarchies"].isVisible() and not window.docks["Attributes"].isVisible()
    _pick(monkeypatch, adult_csv, next(f for f, k in OPEN_FILTERS.items() if k == "table"))
    with qtbot.waitSignal(window.dataOpened, timeout=20_000):
        window.act_open_data.trigger()
    assert window.state.kind == "table"
    assert window.docks["Hierarchies"].isVisible() or window.docks["Attributes"].isVisible()
    assert window.docks["Attributes"].isVisible()


def test_the_event_filter_asks_for_the_sequence_columns(window, qtbot, monkeypatch, tmp_path):
    from anonstudio.gui.dialogs import EventColumnsDialog

    log = tmp_path / "visits.csv"
    log.write_text("PID,VID,age,diagnosis\np1,1,30,flu\np1,2,31,HIV\np2,1,40,flu\n", encoding="utf-8")
    asked = []

    def accept(dialog):
        asked.append([dialog.sequence_id.itemText(i) for i in range(dialog.sequence_id.count())])
        dialog.event_order.setCurrentText("VID")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(EventColumnsDialog, "exec", accept)
    _pick(monkeypatch, log, next(f for f, k in OPEN_FILTERS.items() if k == "events"))
    with qtbot.waitSignal(window.dataOpened, timeout=20_000):
        window.act_open_data.trigger()
    assert asked == [["PID", "VID", "age", "diagnosis"]]
    assert window.state.kind == "events" and len(window.state.data) == 2


def test_path_parameters_of_experiments_have_browse_buttons(qtbot, monkeypatch, fasta):
    from anonstudio.gui.experiments import ExperimentsWindow

    w = ExperimentsWindow()
    qtbot.addWidget(w)
    name = next(n for n in w.experiments if "input" in w.experiments[n].parameters.names())
    w.select(name)
    button = w.form.field("input").browse
    assert button is not None and button.text() == "Browse…"
    _pick(monkeypatch, fasta, "")
    button.click()
    assert w.form.values()["input"] == str(fasta)


def test_the_export_dialog_offers_each_format_and_starts_with_the_chosen_one(window, qtbot, monkeypatch, tmp_path):
    """Issue 44 item 3: the Export dialog's filters are the format registry's; an input ending no format knows
    (UCI's adult.data) starts as CSV, a name typed without an ending gets the chosen filter's, and the next
    export starts in the format last chosen."""
    from anonstudio.core.io import read_data

    data = tmp_path / "adult.data"
    data.write_text("age,sex\n30,F\n31,M\n", encoding="utf-8")
    window.state.open_data(read_data(data, format="table"), data)
    asked = []

    def save(parent, title, start, filters, selected):
        asked.append((start, filters.split(";;"), selected))
        return str(tmp_path / "release"), "Parquet (*.parquet *.pq)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save))
    assert window.export_path_dialog() == str(tmp_path / "release.parquet")
    start, filters, selected = asked[0]
    assert start.endswith("anonymized.csv") and selected == "CSV (*.csv)"
    assert filters == ["CSV (*.csv)", "TSV (*.tsv)", "Delimited text (*.txt)", "Parquet (*.parquet *.pq)",
                       "All files (*)"]
    window.state.output_path = tmp_path / "release.parquet"  # what an export to that path leaves
    window.export_path_dialog()
    assert asked[1][0].endswith("anonymized.parquet") and asked[1][2] == "Parquet (*.parquet *.pq)"
