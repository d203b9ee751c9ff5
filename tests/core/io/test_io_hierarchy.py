"""ARX hierarchy CSV: tolerant reading, errors with file and line, byte-for-byte round trip."""

from __future__ import annotations

import pytest

from anonstudio.core.errors import HierarchyError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.io import read_hierarchy, write_hierarchy

AGE = "24;20-25;20-30;*\n25;20-25;20-30;*\n28;25-30;20-30;*\n35;30-40;*\n"


def put(tmp_path, data: bytes | str, name: str = "h.csv"):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def test_reads_rows_and_pads_ragged_ones(tmp_path):
    h = read_hierarchy(put(tmp_path, AGE), attribute="age")
    assert h.attribute == "age" and h.leaves == ["24", "25", "28", "35"]
    assert h.height == 3
    assert h.ancestors_of("35") == ["35", "30-40", "30-40", "*"]
    assert h.lca(["24", "28"]) == (2, "20-30")


@pytest.mark.parametrize(
    "data",
    [
        AGE.replace("\n", "\r\n").encode(),  # CRLF
        AGE.rstrip("\n").encode(),  # no final line break
        b"\xef\xbb\xbf" + AGE.encode(),  # BOM
        (AGE + "\n\n  \n").encode(),  # blank trailing lines
    ],
    ids=["crlf", "no-final-newline", "bom", "blank-trailing"],
)
def test_tolerated_quirks_load_and_round_trip(tmp_path, data):
    src = put(tmp_path, data)
    h = read_hierarchy(src, attribute="age")
    assert h.leaves == ["24", "25", "28", "35"] and h.root_label == "*"
    out = write_hierarchy(h, tmp_path / "out.csv")
    expected = data.replace(b"\r\n", b"\n").rstrip(b" \n") + (b"\n" if data.endswith(b"\n") else b"")
    assert out.read_bytes() == expected


def test_round_trip_keeps_row_order_ragged_rows_and_quoting(tmp_path):
    data = 'b;x;*\na;x;*\n"c";*\n'
    h = read_hierarchy(put(tmp_path, data), attribute="v")
    assert h.rows[2] == ["c", "c", "*"]
    assert write_hierarchy(h, tmp_path / "o.csv").read_text() == data


def test_a_built_or_edited_hierarchy_writes_its_rows(tmp_path):
    h = Hierarchy("v", [["a", "x", "*"], ["b", "*"]])
    assert write_hierarchy(h, tmp_path / "o.csv").read_text() == "a;x;*\nb;b;*\n"
    h2 = read_hierarchy(put(tmp_path, "a;x;*\nb;x;*\n"), attribute="v")
    h2.rows[1][1] = "y"  # edited after reading: the file's lines no longer describe it
    assert write_hierarchy(h2, tmp_path / "o2.csv").read_text() == "a;x;*\nb;y;*\n"


def test_errors_name_file_and_original_line(tmp_path):
    path = put(tmp_path, "a;x;*\n\nb;x;*\na;y;*\n")  # a blank line is skipped but still counted
    with pytest.raises(HierarchyError, match="'a' is listed twice \\(first on line 1\\)") as exc:
        read_hierarchy(path, attribute="v")
    assert f"{path}:4" in str(exc.value)


def test_empty_label_names_line(tmp_path):
    path = put(tmp_path, "a;x;*\nb;;*\n")
    with pytest.raises(HierarchyError, match="empty label") as exc:
        read_hierarchy(path, attribute="v")
    assert f"{path}:2" in str(exc.value)


@pytest.mark.parametrize("data", [b"", b"\n\r\n", b"\xef\xbb\xbf"])
def test_empty_file(tmp_path, data):
    path = put(tmp_path, data)
    with pytest.raises(HierarchyError, match="empty") as exc:
        read_hierarchy(path, attribute="v")
    assert f"{path}:1" in str(exc.value)


def test_wrong_delimiter(tmp_path):
    path = put(tmp_path, "a,x,*\nb,x,*\n")
    with pytest.raises(HierarchyError, match=r"wrong delimiter\?.*','") as exc:
        read_hierarchy(path, attribute="v")
    assert f"{path}:1" in str(exc.value)
    assert read_hierarchy(path, attribute="v", delimiter=",").leaves == ["a", "b"]


def test_missing_file(tmp_path):
    with pytest.raises(HierarchyError, match="file not found") as exc:
        read_hierarchy(tmp_path / "none.csv", attribute="v")
    assert "none.csv" in str(exc.value)


def test_reading_never_modifies_the_input(tmp_path):
    path = put(tmp_path, AGE.replace("\n", "\r\n"))
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    read_hierarchy(path, attribute="age")
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
