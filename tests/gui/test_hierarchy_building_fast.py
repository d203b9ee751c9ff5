"""Issue 40 item 4: building hierarchies and setting roles as fast as in ARX — a text column's builder opens on
Grouping with the column's values listed and groups made by selecting (or dragging) values; the interval tree in
the order of the intervals; one role for many selected columns; Run off, with the reason beside it, while a
parameter is invalid; k at most the number of records and never negative."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import QItemSelectionModel, QMimeData, QPointF, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QDialog

from anonstudio.gui.panes.hierarchy_editor import BuilderDialog

pytestmark = pytest.mark.gui

JOBS = ["admin", "clerk", "nurse", "doctor", "surgeon", "cleaner", "manager"]


@pytest.fixture
def staff_csv(tmp_path):
    """17 columns, 21 rows: age (numbers), job (text) and 15 columns of codes."""
    frame = {"age": [str(20 + 3 * i) for i in range(21)], "job": [JOBS[i % 7] for i in range(21)]}
    for c in range(15):
        frame[f"c{c}"] = [str((i * (c + 1)) % 4) for i in range(21)]
    path = tmp_path / "staff.csv"
    pd.DataFrame(frame).to_csv(path, index=False, sep=";")
    return path


def test_a_text_columns_builder_opens_on_grouping_with_its_values_and_groups_them(window, staff_csv, monkeypatch,
                                                                                   screenshot):
    window.open_data(staff_csv, "table")
    window.state.set_role("job", "quasi-identifying")
    editor = window.panes["Hierarchies"]
    editor.select_attribute("job")
    built: list[BuilderDialog] = []

    def use(dialog):
        built.append(dialog)
        assert dialog.tabs.tabText(dialog.tabs.currentIndex()) == "Grouping"
        listed = [dialog.ungrouped.item(i).text() for i in range(dialog.ungrouped.count())]
        assert sorted(listed) == sorted(JOBS)  # every value of the column, none grouped yet
        # select two values, name the group, New group →
        for i in range(dialog.ungrouped.count()):
            dialog.ungrouped.item(i).setSelected(dialog.ungrouped.item(i).text() in ("nurse", "doctor", "surgeon"))
        dialog.group_name.setText("medical")
        dialog.new_group_button.click()
        assert dialog.ungrouped.count() == 4 and dialog.group_list.count() == 1
        # drag one value onto the group: it joins it
        dialog.ungrouped.clearSelection()
        dialog.ungrouped.findItems("cleaner", Qt.MatchFlag.MatchExactly)[0].setSelected(True)
        target = dialog.group_list.visualItemRect(dialog.group_list.item(0)).center()
        mime = QMimeData()
        drop = QDropEvent(QPointF(target), Qt.DropAction.MoveAction, mime, Qt.MouseButton.LeftButton,
                          Qt.KeyboardModifier.NoModifier)
        monkeypatch.setattr(QDropEvent, "source", lambda self: dialog.ungrouped)
        dialog.group_list.dropEvent(drop)
        assert "cleaner" in dialog._levels()[0]["medical"] and dialog.ungrouped.count() == 3
        # the rest into one group, named
        dialog.group_name.setText("office")
        dialog.rest_button.click()
        assert dialog.ungrouped.count() == 0
        dialog.update_preview()
        assert dialog.hierarchy is not None, dialog.status.text()
        screenshot(dialog, "builder_grouping")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(BuilderDialog, "exec", use)
    editor.build_dialog()
    h = window.state.hierarchies["job"]
    assert {r[0]: r[1] for r in h.to_rows()} == {"nurse": "medical", "doctor": "medical", "surgeon": "medical",
                                                 "cleaner": "medical", "admin": "office", "clerk": "office",
                                                 "manager": "office"}
    assert window.state.hierarchy_sources["job"]["groups"][0]["office"] == ["admin", "clerk", "manager"]
    assert editor.status.text().startswith("Valid"), editor.status.text()


def test_the_interval_tree_is_in_the_order_of_the_intervals(window, staff_csv):
    window.open_data(staff_csv, "table")
    window.state.set_role("age", "quasi-identifying")
    editor = window.panes["Hierarchies"]
    editor.select_attribute("age")
    assert editor.use_default_bands()
    model = editor.model

    def children(item):
        return [item.child(i).text() for i in range(item.rowCount())]

    def start(label):
        return float(label.strip("[(").replace(",", "-").split("-")[0])

    checked = 0
    for item in model.iter_items():
        labels = children(item)
        if len(labels) > 1:
            assert [start(x) for x in labels] == sorted(start(x) for x in labels), (item.text(), labels)
            checked += 1
    assert checked >= 2  # the root's bands and the bands' values


def test_one_role_for_many_selected_columns(window, staff_csv, screenshot):
    window.open_data(staff_csv, "table")
    pane = window.panes["Attributes"]
    window.docks["Attributes"].raise_()
    table = pane.table
    codes = [f"c{c}" for c in range(15)]
    selection = table.selectionModel()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for column in codes:  # Ctrl+click on fifteen rows
        selection.select(table.model().index(pane.row_of(column), 0), flags)
    assert pane.selected_columns() == codes and "15 selected" in pane.bulk_button.text()
    assert pane.bulk.isVisibleTo(pane) and not pane.note.isVisibleTo(pane)  # in the note's place
    pane.bulk_role.setCurrentIndex(pane.bulk_role.findData("insensitive"))
    pane.bulk_button.click()  # one click
    assert all(window.state.role(c).value == "insensitive" for c in codes)
    assert sorted(window.state.unroled_columns()) == ["age", "job"]
    assert all(pane.role_box(c).currentData() == "insensitive" for c in codes)
    # the right-click menu does the same for the two left
    table.clearSelection()
    for column in ("age", "job"):
        selection.select(table.model().index(pane.row_of(column), 0), flags)
    menu = pane.role_menu()
    next(a for a in menu.actions() if a.data() == "quasi-identifying").trigger()
    assert window.state.quasi_identifiers() == ["age", "job"] and window.state.unroled_columns() == []
    screenshot(window.docks["Attributes"], "attributes_many_roles")


def test_run_is_off_with_the_reason_while_a_parameter_is_invalid_and_k_is_bounded(window, staff_csv, screenshot):
    window.open_data(staff_csv, "table")
    pane = window.panes["Method"]
    run = window.panes["Run"]
    box = pane.method_box
    box.setCurrentIndex(box.findData("mondrian"))
    k = pane.form.editor("k")
    assert k.minimum() >= 0 and k.maximum() == 21  # the number of records
    k.setValue(-2_000_000_000)
    assert k.value() >= 0
    k.setValue(10**9)
    assert k.value() == 21
    k.setValue(1)  # below k's own low: typed, marked red, and Run is off with the reason beside it
    assert not pane.is_valid()
    assert not window.act_run.isEnabled() and not run.run_button.isEnabled()
    assert run.blocked.isVisibleTo(run) and "≥ 2" in run.blocked.text(), run.blocked.text()
    assert window.act_run.toolTip() == run.blocked.text()
    window.docks["Run"].raise_()
    screenshot(window.docks["Run"], "run_blocked")
    k.setValue(3)
    assert window.act_run.isEnabled() and run.run_button.isEnabled() and not run.blocked.isVisibleTo(run)


def test_one_role_for_many_column_headers_selected_in_the_data_pane(window, staff_csv):
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    window.open_data(staff_csv, "table")
    data = window.panes["Data"]
    header = data.table_view.horizontalHeader()
    names = [data.table_model.column_name(j) for j in range(data.table_model.columnCount())]
    columns = [f"c{c}" for c in range(4)]
    for i, column in enumerate(columns):  # click the first header, Ctrl+click the others
        modifier = Qt.KeyboardModifier.NoModifier if i == 0 else Qt.KeyboardModifier.ControlModifier
        x = header.sectionViewportPosition(names.index(column)) + 5
        QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, modifier, QPoint(x, 5))
    assert data.selected_columns() == columns
    menu = data.columns_menu(data.selected_columns())  # what right-clicking one of them opens
    next(a for a in menu.actions() if a.data() == ("role", "sensitive")).trigger()
    assert all(window.state.role(c).value == "sensitive" for c in columns)
    assert not set(columns) & set(window.state.unroled_columns())
