"""Issue 29, item 5: a project file is checked against its schema before anything is built from it — every
malformed file is one :class:`ProjectError` naming the file and the key, never a raw Python error.

The fuzzer that found 12 raw errors in 38 malformed projects (``read_options``/``roles``/``hierarchies`` of the
wrong type, ``last_report`` as a string raising inside the metrics pane, JSON nested 100,000 deep) is the
Hypothesis property below: any value of any JSON type put at any key of a valid project either validates or is
refused with the key named.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonstudio.core.io import ProjectError, load_project_json, validate_project

VALID = {
    "format": "anonstudio-project",
    "version": 1,
    "data": {"path": "adult.csv", "kind": "table",
             "read_options": {"delimiter": ";", "encoding": "utf-8", "missing": ["?", "NA"]},
             "roles": {"age": "quasi-identifying", "salary": "sensitive"}, "types": {"age": "numeric"}},
    "hierarchies": {"sex": {"rows": [["Male", "*"], ["Female", "*"]], "source": "sex.csv"},
                    "zip": {"rows": [["12345", "1234*", "*"]], "source": {"mask": "*"}}},
    "method": {"name": "mondrian", "params": {"k": 5}},
    "last_report": {"anonstudio_version": "0.2.0", "algorithm": "mondrian", "parameters": {"k": 5},
                    "input": {"path": "adult.csv", "records": 100}, "output": {"path": "o.csv", "records": 100},
                    "suppressed": 0, "groups": {"count": 9, "min_size": 5, "max_size": 20}, "runtime_s": 0.5,
                    "execution": "local",
                    "verification": {"passed": True, "model": "k-anonymity", "details": {"k": 5}, "problems": []},
                    "metrics": {"NCP": 1.5, "GCP": 0.2}, "notes": [], "warnings": ["rows keep the input's order"]},
    "history": [{"number": 1, "time": "2026-01-01T10:00:00", "method": "mondrian", "parameters": {"k": 5},
                 "report": {"verification": {"passed": True, "model": "k-anonymity"}}}],
}


def test_a_project_the_workbench_writes_is_valid():
    assert validate_project(copy.deepcopy(VALID), "p.json") == VALID
    assert validate_project({"format": "anonstudio-project"}) == {"format": "anonstudio-project"}


@pytest.mark.parametrize(("change", "key", "words"), [
    (("data", "read_options", "not an object"), "data.read_options", "must be an object, got text"),
    (("data", "roles", ["age"]), "data.roles", "must be an object, got a list"),
    (("data", "roles", {"age": "secret"}), "data.roles.age", "must be one of identifying, quasi-identifying"),
    (("hierarchies", None, [["Male", "*"]]), "hierarchies", "must be an object, got a list"),
    (("hierarchies", "sex", {"rows": "Male;*"}), "hierarchies.sex.rows", "must be a non-empty list"),
    (("last_report", None, "done"), "last_report", "must be an object, got text \"done\""),
    (("last_report", "verification", {"passed": "yes"}), "last_report.verification.passed", "must be true or false"),
    (("last_report", "groups", {"count": 1.5}), "last_report.groups.count", "must be a whole number ≥ 0"),
    (("history", None, {"number": 1}), "history", "must be a list"),
    (("history", 0, {"number": "one", "report": {}}), "history[0].number", "must be a whole number"),
    (("data", "path", "a\x00b"), "data.path", "contains a NUL character"),
    (("data", "kind", "spreadsheet"), "data.kind", "must be one of table, events, fasta"),
    (("method", "name", 5), "method.name", "must be text, got a number 5"),
    (("version", None, "1"), "version", "must be a whole number"),
])
def test_each_malformed_key_is_one_error_naming_the_file_and_key(change, key, words):
    section, inner, value = change
    doc = copy.deepcopy(VALID)
    if inner is None:
        doc[section] = value
    else:
        doc[section][inner] = value
    with pytest.raises(ProjectError) as err:
        validate_project(doc, "study.anonstudio.json")
    assert err.value.file == "study.anonstudio.json" and err.value.key == key
    assert words in err.value.message, err.value.message
    assert f"key '{key}'" in str(err.value)


def test_a_missing_required_key_is_named():
    doc = copy.deepcopy(VALID)
    del doc["data"]["kind"]
    with pytest.raises(ProjectError, match="'data.kind' is missing"):
        validate_project(doc, "p.json")


def test_a_newer_version_is_refused():
    with pytest.raises(ProjectError, match="project version 7 is newer"):
        validate_project(dict(VALID, version=7), "p.json")


def test_json_nested_100000_deep_is_one_error_with_its_line(tmp_path):
    path = tmp_path / "deep.anonstudio.json"
    path.write_text('{"format": "anonstudio-project",\n"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ProjectError) as err:
        load_project_json(path)
    assert err.value.file == str(path) and err.value.line == 2 and "more than 32 deep" in err.value.message


def test_syntax_and_encoding_errors_name_the_line(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"format": "anonstudio-project",\n"data": }')
    with pytest.raises(ProjectError, match="not valid JSON") as err:
        load_project_json(path)
    assert err.value.line == 2
    path.write_bytes(b'{"format": "anonstudio-project",\n"x": "\xff"}')
    with pytest.raises(ProjectError, match="not UTF-8") as err:
        load_project_json(path)
    assert err.value.line == 2


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


PATHS = [p for p in _paths(VALID) if p]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(PATHS), value=JSON_VALUES)
def test_any_value_at_any_key_validates_or_names_the_key(where, value):
    doc = copy.deepcopy(VALID)
    node = doc
    for step in where[:-1]:
        node = node[step]
    node[where[-1]] = value
    try:
        validate_project(doc, "p.json")
    except ProjectError as exc:
        assert exc.file == "p.json"
        assert exc.key is not None or exc.line == 1  # "not an anonstudio project" names its first line
        if exc.key:
            dotted = ".".join(str(s) for s in where if not isinstance(s, int))
            head = dotted.split(".")[0]
            assert exc.key.split(".")[0].split("[")[0] == head, (exc.key, where)
        json.dumps(str(exc))  # one printable sentence


def test_a_number_too_long_for_python_is_one_error_naming_file_line_and_key(tmp_path):
    """Issue 44 item 10: a 5,000-digit integer (more than ``sys.get_int_max_str_digits``) was a raw ValueError."""
    path = tmp_path / "p.anonstudio.json"
    path.write_text('{\n  "version": 1,\n  "method": {"name": "mondrian", "params": {"k": ' + "7" * 5000 + "}}\n}\n")
    with pytest.raises(ProjectError) as caught:
        load_project_json(path)
    text = str(caught.value)
    assert "p.anonstudio.json" in text and ":3" in text and "key 'k'" in text and "5,000 digits" in text, text
