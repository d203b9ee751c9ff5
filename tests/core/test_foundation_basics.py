"""The pieces every method stands on: parameters, hierarchy trees, data containers, atomic writes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.data import SequenceSet, Table
from anonstudio.core.errors import HierarchyError, InputError, ParameterError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.io import atomic_write
from anonstudio.core.params import Param, ParamSet

AGE_ROWS = [
    ["24", "[20-25]", "[20-30]", "[20-40]"],
    ["25", "[20-25]", "[20-30]", "[20-40]"],
    ["28", "[25-30]", "[20-30]", "[20-40]"],
    ["35", "[30-40]", "[30-40]", "[20-40]"],
]


def test_params_validate_ranges_and_unknown_keys():
    ps = ParamSet((Param("k", "int", 5, low=2), Param("epsilon", "float", 1.5, low=0, low_open=True)))
    assert ps.validate({"k": 10}) == {"k": 10, "epsilon": 1.5}
    with pytest.raises(ParameterError, match="'k' must be ≥ 2, got 1"):
        ps.validate({"k": 1})
    with pytest.raises(ParameterError, match="'epsilon' must be > 0"):
        ps.validate({"epsilon": 0})
    with pytest.raises(ParameterError, match="unknown parameter 'kk'"):
        ps.validate({"kk": 3})
    with pytest.raises(ParameterError, match="whole number"):
        ps.validate({"k": 2.5})


def test_hierarchy_levels_lca_and_arrays():
    h = Hierarchy("age", AGE_ROWS)
    assert h.height == 3
    assert h.lca(["24", "25"]) == (1, "[20-25]")
    assert h.lca(["24", "28"]) == (2, "[20-30]")
    assert h.lca(["24", "35"]) == (3, "[20-40]")
    a = h.arrays
    assert a.ancestor.shape == (4, 4)
    root = h.node(3, "[20-40]")
    assert a.node_leaves[root] == 4 and a.node_min[root] == 24 and a.node_max[root] == 35
    assert a.node_leaves[h.node(1, "[20-25]")] == 2
    table = h.lca_level_table()
    assert table[0, 1] == 1 and table[0, 2] == 2 and table[2, 3] == 3 and table[1, 1] == 0


def test_hierarchy_rejects_two_parents_and_duplicates_with_line():
    rows = [["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "x", "other"]]
    with pytest.raises(HierarchyError, match="more than one root|two parents") as exc:
        Hierarchy("attr", rows, source="h.csv")
    assert exc.value.line == 4 and "h.csv:4" in str(exc.value)
    with pytest.raises(HierarchyError, match="listed twice"):
        Hierarchy("attr", [["a", "*"], ["a", "*"]])
    bad = [["a", "x", "*"], ["b", "y", "*"], ["c", "x", "*"], ["b2", "x", "*"], ["e", "z", "*"]]
    Hierarchy("attr", bad)  # fine
    with pytest.raises(HierarchyError, match="two parents"):
        Hierarchy("attr", [["a", "x", "p", "*"], ["b", "x", "q", "*"]])


def test_hierarchy_pads_ragged_rows_by_repeating_last_label_before_root():
    h = Hierarchy("w", [["a", "g1", "top", "*"], ["b", "*"]])
    assert h.rows[1] == ["b", "b", "b", "*"]
    assert h.missing(["a", "b", "c", "c"]) == ["c"]
    with pytest.raises(HierarchyError, match="'c'"):
        h.check_covers(["a", "c"])


def test_table_roles_and_numeric_errors_name_the_line():
    t = Table(pd.DataFrame({"age": ["30", "x"], "sex": ["M", "F"]}, dtype=object), source="t.csv")
    t2 = t.with_roles(["age", "sex"])
    assert t2.quasi_identifiers == ["age", "sex"]
    with pytest.raises(InputError) as exc:
        t2.numeric("age")
    assert exc.value.line == 3 and "t.csv:3" in str(exc.value)
    with pytest.raises(InputError, match="no column named 'zip'"):
        t.with_roles(["zip"])


def test_sequence_set_encodes_and_reports_bad_letters():
    s = SequenceSet.from_strings(["ACD", "WY"], alphabet="protein-20")
    assert s.codes.dtype == np.uint8 and list(s.lengths) == [3, 2] and s.sequence(1) == "WY"
    with pytest.raises(InputError, match="position 2"):
        SequenceSet.from_strings(["AJ"], ids=["p1"], alphabet="protein-20")


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as fh:
            fh.write("half")
            raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]
    with atomic_write(target) as fh:
        fh.write("new")
    assert target.read_text() == "new"


def test_atomic_write_gives_ordinary_file_permissions(tmp_path):
    import os

    umask = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "o.csv") as fh:
            fh.write("x")
    finally:
        os.umask(umask)
    assert (tmp_path / "o.csv").stat().st_mode & 0o777 == 0o644


def test_optional_parameter_without_default_may_stay_unset():
    ps = ParamSet((Param("k", "int", 5, low=2), Param("l", "int", None, low=2)))
    assert ps.validate(ps.defaults()) == {"k": 5, "l": None}
    with pytest.raises(ParameterError, match="'l' must be ≥ 2"):
        ps.validate({"l": 1})
