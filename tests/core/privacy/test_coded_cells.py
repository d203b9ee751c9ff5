"""The verifiers compare, group and count coded text (``coded_cells``: codes + distinct texts) instead of
object arrays of strings. The coding must spell every cell exactly as ``text_cells`` does, across chunk
boundaries and for every dtype a script may hand in — a coding that merged two different spellings would let
a changed cell pass."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.data import Table, coded_cells, text_cells
from anonstudio.core.data import _table
from anonstudio.core.privacy import verify_k_anonymity

CELLS = st.one_of(st.sampled_from(["a", "b", "", "1", "True", "*"]), st.none(), st.integers(0, 2),
                  st.booleans(), st.sampled_from([1.0, 1.5, float("nan")]))
DTYPES = [object, "string", "str", "category"]


@settings(max_examples=150, deadline=None)
@given(cells=st.lists(CELLS, max_size=12), dtype=st.sampled_from(DTYPES), missing=st.sampled_from(["", "\x00NA"]),
       chunk=st.integers(1, 5))
def test_coded_cells_spell_every_cell_as_text_cells_does(cells, dtype, missing, chunk):
    if dtype is not object:  # the string dtypes hold text only
        cells = [c if c is None or isinstance(c, str) else str(c) for c in cells]
    series = pd.Series(cells, dtype=dtype)
    old = _table._TEXT_CHUNK
    _table._TEXT_CHUNK = chunk
    try:
        coded = coded_cells(series, missing)
    finally:
        _table._TEXT_CHUNK = old
    assert coded.array().tolist() == text_cells(series, missing).tolist()
    assert len(set(coded.texts.tolist())) == len(coded.texts)  # one code per distinct text


def test_a_cell_changed_to_a_value_python_calls_equal_is_still_changed():
    """1, 1.0 and True are equal to Python (and to a hash table of objects), but not the same published
    cell: a quasi-identifier published as True where the input had 1 is not the original value."""
    original = Table(pd.DataFrame({"q": pd.Series([1, 1, 2, 2], dtype=object),
                                   "s": ["x", "y", "x", "y"]})).with_roles(["q"], ["s"])
    published = pd.DataFrame({"q": pd.Series([True, True, 2, 2], dtype=object), "s": ["x", "y", "x", "y"]})
    v = verify_k_anonymity(original, published, {}, 2)
    assert not v.passed
    assert v.details["invalid_cells"] == 2


@pytest.mark.parametrize("dtype", ["str", object])
def test_chunks_merge_a_text_seen_in_several_chunks(monkeypatch, dtype):
    monkeypatch.setattr(_table, "_TEXT_CHUNK", 2)
    series = pd.Series(["a", "b", None, "a", "b", "c", None], dtype=dtype)
    coded = coded_cells(series, "-")
    assert coded.texts.tolist() == ["a", "b", "c", "-"]
    assert coded.codes.tolist() == [0, 1, 3, 0, 1, 2, 3]
    assert coded.isin(["a", "-"]).tolist() == [True, False, True, True, False, False, True]
