"""The attributes panel (issue 15 item 3): one row per column with role, type, distinct values, hierarchy and
warnings; roles set there and in the data pane's header menu are one state."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from anonstudio.core.data import Role
from anonstudio.gui.panes.attributes import COL_HIERARCHY, AttributesPane

pytestmark = pytest.mark.gui


@pytest.fixture
def with_ids(tmp_path, adult_csv):
    df = pd.read_csv(adult_csv, sep=";", dtype=str)
    df.insert(0, "patient", [f"p{i}" for i in range(len(df))])
    df.loc[3, "education"] = None
    path = tmp_path / "patients.csv"
    df.to_csv(path, index=False, sep=";")
    return path


def test_one_row_per_column_with_what_a_user_checks_before_a_run(window, with_ids, screenshot):
    assert window.open_data(with_ids, "table")
    pane = window.panes["Attributes"]
    assert isinstance(pane, AttributesPane)
    assert window.docks["Attributes"].isVisible()
    assert pane.columns() == ["patient", "age", "sex", "education", "salary-class"]
    assert pane.cell("age", "Type") in ("numeric", "ordinal") and pane.cell("sex", "Distinct") == "2"
    assert pane.cell("education", "Missing") == "1" and "1 missing cell" in pane.cell("education", "Warnings")
    assert "looks like an identifier" in pane.cell("patient", "Warnings")
    assert "looks like an identifier" not in pane.cell("sex", "Warnings")
    for col in ("age", "sex"):
        window.state.set_role(col, Role.QUASI)
    window.state.set_role("education", Role.SENSITIVE)
    screenshot(window, "main_window_attributes")
    path = screenshot(window.docks["Attributes"], "attributes_panel")
    print(f"screenshot: {path}")


def test_roles_set_in_the_panel_and_in_the_header_menu_are_one_state(window, with_ids):
    window.open_data(with_ids, "table")
    pane, data = window.panes["Attributes"], window.panes["Data"]
    box = pane.role_box("sex")
    box.setCurrentIndex(box.findData(Role.QUASI.value))
    assert window.state.role("sex") is Role.QUASI
    assert "QI" in str(data.table_model.headerData(2, Qt.Orientation.Horizontal))
    assert "needs a hierarchy" in pane.cell("sex", "Warnings")  # categorical QI, generalizing method (none chosen)
    data.set_role("patient", Role.IDENTIFYING)  # the header menu's action
    assert pane.role_box("patient").currentData() == Role.IDENTIFYING.value
    assert "looks like an identifier" not in pane.cell("patient", "Warnings")
    assert window.state.dirty


def test_hierarchy_column_names_its_source_and_double_click_opens_it(window, with_ids, sex_hierarchy_csv, qtbot):
    window.open_data(with_ids, "table")
    for col in ("sex", "age"):
        window.state.set_role(col, Role.QUASI)
    pane = window.panes["Attributes"]
    assert pane.cell("age", "Hierarchy") == "default bands at run time" and pane.cell("sex", "Hierarchy") == "none"
    assert window.panes["Hierarchies"].import_file(sex_hierarchy_csv, "sex")
    assert pane.cell("sex", "Hierarchy") == "sex.csv" and "hierarchy" not in pane.cell("sex", "Warnings")
    window.panes["Hierarchies"].select_attribute("age")
    row = pane.row_of("sex")
    pane.table.cellDoubleClicked.emit(row, COL_HIERARCHY)
    assert window.panes["Hierarchies"].attribute == "sex"
    assert not window.docks["Hierarchies"].visibleRegion().isEmpty()


def test_fasta_has_no_attributes_and_says_why(window, tmp_path):
    fasta = tmp_path / "p.fasta"
    fasta.write_text(">a\nMKV\n>b\nMKL\n", encoding="utf-8")
    assert window.open_data(fasta, "fasta")
    pane = window.panes["Attributes"]
    assert pane.columns() == [] and "no columns" in pane.note.text()


def test_an_identifying_column_marked_as_the_person_is_saved_in_projects_and_jobs(window, with_ids, tmp_path):
    """Issue 39 item 2: the role box's "identifying — the person" marks the column each record's person is named by;
    it is identifying (dropped), every model then counts people, and projects and jobs keep it."""
    from anonstudio.core.workspace import Workspace
    from anonstudio.gui.panes.attributes import PERSON

    window.open_data(with_ids, "table")
    pane = window.panes["Attributes"]
    box = pane.role_box("patient")
    box.setCurrentIndex(box.findData(PERSON[0]))
    assert window.state.person() == "patient" and window.state.role("patient") is Role.IDENTIFYING
    assert window.state.input_spec().person == "patient"
    window.state.set_role("age", Role.QUASI)
    project = tmp_path / "p.anonstudio.json"
    window.state.save_project(project)
    assert Workspace.from_project(project).person() == "patient"
    box = pane.role_box("patient")
    box.setCurrentIndex(box.findData(Role.IDENTIFYING.value))  # identifying only: records are counted again
    assert window.state.person() is None and window.state.role("patient") is Role.IDENTIFYING
