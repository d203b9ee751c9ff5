"""The hierarchy editor: import/export ARX CSV, edit the tree, builders with preview, missing values."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

from anonstudio.gui.panes.hierarchy_editor import HierarchyEditor, parse_groups, parse_numbers

pytestmark = pytest.mark.gui


@pytest.fixture
def editor(window, adult_csv, messages):
    messages.answer = QMessageBox.StandardButton.Yes  # "assign anyway" for the partial education hierarchy
    window.open_data(adult_csv, "table")
    for col in ("sex", "education", "age"):
        window.state.set_role(col, "quasi-identifying")
    ed = window.panes["Hierarchies"]
    assert isinstance(ed, HierarchyEditor)
    return ed


def test_import_arx_csv_shows_tree_and_sets_state(editor, window, sex_hierarchy_csv, screenshot):
    assert editor.import_file(sex_hierarchy_csv, "sex")
    assert editor.attribute == "sex"
    assert sorted(editor.model.leaf_labels()) == ["Female", "Male"]
    assert [r.text() for r in editor.model.roots()] == ["*"]
    h = window.state.hierarchies["sex"]
    assert h.root_label == "*" and sorted(h.leaves) == ["Female", "Male"]
    assert window.state.hierarchy_sources["sex"] == str(sex_hierarchy_csv.resolve())
    assert editor.status.text().startswith("Valid")
    screenshot(editor, "hierarchy_editor_imported")


def test_bad_hierarchy_file_shows_error_and_keeps_tree(editor, window, sex_hierarchy_csv, tmp_path, messages):
    editor.import_file(sex_hierarchy_csv, "sex")
    before = window.state.hierarchies["sex"]
    bad = tmp_path / "bad.csv"
    bad.write_text("Male;*\nFemale;Other\n", encoding="utf-8")  # two roots
    assert not editor.import_file(bad, "sex")
    [text] = messages.texts("critical")
    assert "bad.csv" in text and "root" in text
    assert window.state.hierarchies["sex"] is before
    assert sorted(editor.model.leaf_labels()) == ["Female", "Male"]


def test_add_rename_delete_and_reparent(editor, window, education_hierarchy_csv, screenshot):
    editor.import_file(education_hierarchy_csv, "education")
    model = editor.model
    root = model.roots()[0]
    higher = model.find("Higher")
    # add a node and move a leaf under it (what a drag does)
    postgrad = editor.add_child(root, "Postgraduate")
    editor.move_item(model.find("Bachelors"), postgrad)
    h = window.state.hierarchies["education"]
    assert h.ancestors_of("Bachelors") == ["Bachelors", "Postgraduate", "*"]
    # rename
    editor.rename_item(model.find("Secondary"), "School")
    assert window.state.hierarchies["education"].ancestors_of("11th") == ["11th", "School", "*"]
    # "Higher" now has no children: it became a leaf value, which delete removes
    assert higher.rowCount() == 0 and "Higher" in window.state.hierarchies["education"].leaves
    editor.delete_item(higher)
    assert "Higher" not in window.state.hierarchies["education"].leaves
    # moving a node under its own child is refused and changes nothing
    editor.move_item(model.find("School"), model.find("HS-grad"))
    assert window.state.hierarchies["education"].ancestors_of("HS-grad") == ["HS-grad", "School", "*"]
    assert window.state.dirty
    screenshot(editor, "hierarchy_editor_edited")


def test_invalid_edit_is_reported_and_state_keeps_last_valid(editor, window, education_hierarchy_csv):
    editor.import_file(education_hierarchy_csv, "education")
    good = window.state.hierarchies["education"]
    editor.add_child(editor.model.find("Secondary"), "Bachelors")  # duplicate leaf
    assert "Not a valid hierarchy" in editor.status.text()
    assert "Bachelors" in editor.status.text()
    assert window.state.hierarchies["education"] is good


def test_missing_values_highlighted_and_added_as_leaves(editor, window, education_hierarchy_csv, screenshot):
    editor.import_file(education_hierarchy_csv, "education")
    assert editor.missing_values() == ["Masters", "9th"]
    assert editor.missing_box.isVisibleTo(editor)
    assert editor.missing_list.item(0).background().color().red() > 240
    assert "not leaves" in editor.status.text()
    editor.tree.setCurrentIndex(editor.model.index_of(editor.model.find("Higher")))
    editor.validate()
    assert editor.fix_button.text() == "Add 2 as leaves under 'Higher'"
    screenshot(editor, "hierarchy_editor_missing")
    editor.fix_button.click()
    assert editor.missing_values() == []
    assert editor.status.text().startswith("Valid")
    assert window.state.hierarchies["education"].ancestors_of("Masters") == ["Masters", "Higher", "*"]


def test_categorical_without_hierarchy_can_be_started_from_its_values(editor, window):
    editor.select_attribute("sex")
    assert editor.missing_values() == ["Male", "Female"]
    assert editor.add_missing_as_leaves() == 2
    assert window.state.hierarchies["sex"].ancestors_of("Female") == ["Female", "*"]


def test_export_round_trips(editor, window, education_hierarchy_csv, tmp_path):
    editor.import_file(education_hierarchy_csv, "education")
    out = tmp_path / "exported.csv"
    assert editor.export_file(out)
    assert editor.import_file(out, "education")
    assert sorted(window.state.hierarchies["education"].to_rows()) == sorted(
        [["Bachelors", "Higher", "*"], ["HS-grad", "Secondary", "*"], ["11th", "Secondary", "*"]]
    )


def test_builder_dialog_live_preview(editor, window, qtbot, screenshot):
    editor.select_attribute("age")
    dialog = editor.make_builder()
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    dialog.tabs.setCurrentIndex(0)
    dialog.widths.setText("10, 20")
    dialog.update_preview()
    assert ok.isEnabled()
    assert dialog.preview.rowCount() == 10  # one row per distinct age
    assert dialog.preview.columnCount() == 4  # value, 10-wide, 20-wide, *
    assert dialog.spec == {"intervals": [10, 20]}
    labels = {dialog.preview.item(r, 0).text(): dialog.preview.item(r, 1).text() for r in range(10)}
    assert labels["39"] != labels["42"]  # different 10-wide bands
    dialog.show()
    screenshot(dialog, "hierarchy_builder_intervals")
    dialog.widths.setText("ten")
    dialog.update_preview()
    assert not ok.isEnabled() and dialog.status.text()
    # grouping, typed as text
    dialog.tabs.setCurrentIndex(2)
    dialog.groups.setPlainText("young: 28, 31, 37, 38, 39\nold: 42, 49, 50, 52, 53\n---\nall: young, old")
    dialog.update_preview()
    assert ok.isEnabled(), dialog.status.text()
    editor.set_hierarchy("age", dialog.hierarchy, dialog.spec)
    assert window.state.hierarchies["age"].ancestors_of("31") == ["31", "young", "all", "*"]
    assert window.state.hierarchy_sources["age"]["groups"][1] == {"all": ["young", "old"]}
    assert editor.status.text().startswith("Valid")


def test_text_parsers():
    assert parse_numbers("5, 10; 2.5") == [5, 10, 2.5]
    assert parse_groups("a: 1, 2\nb: 3\n---\nall: a, b\n") == [{"a": ["1", "2"], "b": ["3"]}, {"all": ["a", "b"]}]
    with pytest.raises(ValueError):
        parse_groups("no colon here")


def test_drag_and_drop_moves_a_subtree(editor, window, education_hierarchy_csv, qtbot):
    """What the tree view does on a drop: the model takes the dragged rows' MIME data under the target,
    then the view removes the source rows."""
    from PySide6.QtCore import Qt

    editor.import_file(education_hierarchy_csv, "education")
    model = editor.model
    assert editor.tree.dragDropMode() == editor.tree.DragDropMode.InternalMove
    source = model.index_of(model.find("11th"))
    target = model.index_of(model.find("Higher"))
    mime = model.mimeData([source])
    assert model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, 0, target)
    assert model.dropMimeData(mime, Qt.DropAction.MoveAction, -1, 0, target)
    model.removeRow(source.row(), source.parent())
    qtbot.waitUntil(lambda: window.state.hierarchies["education"].ancestors_of("11th") == ["11th", "Higher", "*"])


def test_numeric_attribute_can_take_the_default_bands(editor, window):
    editor.select_attribute("age")
    assert "numeric" in editor.status.text()
    assert editor.default_button.isVisibleTo(editor)
    editor.default_button.click()
    h = window.state.hierarchies["age"]
    assert sorted(h.leaves, key=float) == sorted(window.state.column_values("age"), key=float)
    assert h.height >= 2
    assert window.state.hierarchy_sources["age"]["intervals"]  # saved to a job as a builder spec
    assert editor.status.text().startswith("Valid")
    assert not editor.default_button.isVisibleTo(editor)


def test_renaming_a_group_to_another_values_label_is_refused(editor, window, education_hierarchy_csv):
    """Issue 11 item 4: a group labelled like a value would publish its members under that value."""
    editor.import_file(education_hierarchy_csv, "education")
    good = window.state.hierarchies["education"]
    editor.rename_item(editor.model.find("Secondary"), "Bachelors")
    assert "Not a valid hierarchy" in editor.status.text()
    assert "label 'Bachelors' means two different things" in editor.status.text()
    assert window.state.hierarchies["education"] is good


def test_a_hierarchy_that_does_not_fit_its_column_is_refused_when_assigned(editor, window, sex_hierarchy_csv, messages):
    """Issue 15 item 4: a gender hierarchy given to age is refused at once, naming the values that do not fit."""
    assert not editor.import_file(sex_hierarchy_csv, "age")
    [text] = messages.texts("critical")
    assert "sex.csv does not fit column 'age'" in text and "10 of its 10 values" in text and "'39'" in text
    assert "age" not in window.state.hierarchies


def test_a_hierarchy_missing_some_values_is_assigned_only_when_the_user_agrees(editor, window, education_hierarchy_csv,
                                                                               messages):
    messages.answer = QMessageBox.StandardButton.No
    assert not editor.import_file(education_hierarchy_csv, "education")
    [text] = messages.texts("question")
    assert "2 of the 5 values of column 'education'" in text and "'Masters', '9th'" in text
    assert "education" not in window.state.hierarchies
    messages.answer = QMessageBox.StandardButton.Yes
    assert editor.import_file(education_hierarchy_csv, "education")
    assert editor.missing_values() == ["Masters", "9th"]


def test_date_builder_from_day_to_month_year_spans(window, qtbot, tmp_path, screenshot):
    """Issue 15 item 5: a date column opens the builder on its Dates tab; the ticked levels build day → month →
    5-year span → *, previewed live, assigned with its spec (the same spec a job file takes)."""
    csv = tmp_path / "visits.csv"
    csv.write_text("patient;visit_date;diagnosis\n" + "".join(
        f"p{i};20{10 + i % 12:02d}-{1 + i % 12:02d}-{1 + i % 27:02d};flu\n" for i in range(40)), encoding="utf-8")
    assert window.open_data(csv, "table")
    window.state.set_role("visit_date", "quasi-identifying")
    editor = window.panes["Hierarchies"]
    editor.select_attribute("visit_date")
    dialog = editor.make_builder()
    qtbot.addWidget(dialog)
    assert dialog.tabs.tabText(dialog.tabs.currentIndex()) == "Dates"
    dialog.date_parts["year"].setChecked(False)
    dialog.date_parts["5 years"].setChecked(True)
    dialog.update_preview()
    assert dialog.spec == {"date": ["month", "5 years"]}
    first = [dialog.preview.item(0, c).text() for c in range(dialog.preview.columnCount())]
    assert first == ["2010-01-01", "2010-01", "2010-2014", "*"]
    dialog.show()
    print(f"screenshot: {screenshot(dialog, 'hierarchy_builder_dates')}")
    for box in dialog.date_parts.values():
        box.setChecked(False)
    dialog.update_preview()
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    assert "tick at least one" in dialog.status.text()
    dialog.date_parts["year"].setChecked(True)
    dialog.update_preview()
    editor.set_hierarchy("visit_date", dialog.hierarchy, dialog.spec)
    assert window.state.hierarchies["visit_date"].ancestors_of("2015-06-06") == ["2015-06-06", "2015", "*"]
    assert editor.status.text().startswith("Valid")
