"""Issue 29, item 5, at the workbench's door: a project file the workbench wrote, with any value at any key, is
opened or refused with one error naming the file (the dialog's text) — and what it opens, the panes can show
(``last_report`` as a string once raised inside the metrics pane). The fuzzer of the issue as a Hypothesis
property; the schema's own tests are ``tests/core/io/test_project_schema.py``."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonstudio.core.errors import AnonStudioError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.gui import project as proj
from anonstudio.gui.panes._results import report_rows
from anonstudio.gui.panes.summary import summary_sections
from anonstudio.gui.state import WorkbenchState

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=6)


def _project(adult_csv, sex_hierarchy_csv, folder) -> dict:
    state = WorkbenchState()
    state.set_data(proj.read_data(adult_csv, "table"), adult_csv)
    state.set_role("sex", "quasi-identifying")
    state.set_role("salary-class", "sensitive")
    state.set_hierarchy("sex", proj.read_hierarchy_file(sex_hierarchy_csv, "sex"), str(sex_hierarchy_csv))
    state.set_hierarchy("education", Hierarchy("education", [["Bachelors", "*"], ["HS-grad", "*"], ["11th", "*"],
                                                             ["Masters", "*"], ["9th", "*"]]))
    state.set_method("mondrian", {"k": 2})
    report = {"anonstudio_version": "0.2.0", "algorithm": "mondrian", "parameters": {"k": 2},
              "input": {"path": "adult.csv", "records": 10}, "output": {"path": "o.csv", "records": 10},
              "suppressed": 0, "groups": {"count": 2, "min_size": 4, "max_size": 6}, "runtime_s": 0.1,
              "execution": "local", "verification": {"passed": True, "model": "k-anonymity", "details": {"k": 2},
                                                     "problems": []},
              "metrics": {"NCP": 1.0}, "notes": ["a note"], "warnings": []}
    state.last_report = report
    state.history = [{"number": 1, "time": "2026-01-01T10:00:00", "method": "mondrian", "parameters": {"k": 2},
                      "report": report}]
    path = proj.write_project(state, folder / "study.anonstudio.json")
    return json.loads(path.read_text(encoding="utf-8"))


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:2]):
            yield from _paths(v, (*prefix, i))


def test_any_value_at_any_key_opens_or_is_one_error_naming_the_file(adult_csv, sex_hierarchy_csv, tmp_path):
    base = _project(adult_csv, sex_hierarchy_csv, tmp_path)
    where_to = [p for p in _paths(base) if p]
    target = tmp_path / "m.anonstudio.json"
    outcomes = {"opened": 0, "refused": 0}

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.function_scoped_fixture])
    @given(where=st.sampled_from(where_to), value=VALUES)
    def check(where, value):
        doc = copy.deepcopy(base)
        node = doc
        for step in where[:-1]:
            node = node[step]
        node[where[-1]] = value
        target.write_text(json.dumps(doc), encoding="utf-8")
        try:
            state = proj.read_project(target)
        except AnonStudioError as exc:
            outcomes["refused"] += 1
            text = str(exc)
            # the project file named (or, for data it points to, that file): what the dialog shows
            assert "m.anonstudio.json" in text or "adult.csv" in text or "sex.csv" in text or str(tmp_path) in text, text
            assert "\n" not in text
            return
        outcomes["opened"] += 1
        for report in [state.last_report] + [e["report"] for e in state.history]:
            if report:
                summary_sections(report)
                report_rows(report)

    check()
    assert outcomes["opened"] and outcomes["refused"], outcomes
