"""A large table is read as slices of whole lines that are never joined into one text (issue 15 item 10b:
joining the decoded slices of an 80 MB file held the interpreter lock 50-230 ms, a frozen workbench while a
worker read it). Tiny slices here make a small file behave like a large one: whatever the file holds, the
sliced read gives the same table, the same errors and the same line numbers as a read in one piece (the header
and the sniffed delimiter come from the first megabyte, as they would with 4 MB slices)."""

from __future__ import annotations

import codecs

import pandas as pd
import pytest

from anonstudio.core.errors import InputError
from anonstudio.core.io import _common, _table, read_table

ROWS = [f"p{i};{20 + i % 50};{1000 + i};caf\u00e9 {i % 3}" for i in range(300)]


def _read(path, **kwargs):
    """The table read, or the error's (line, message)."""
    try:
        return read_table(path, **kwargs)
    except InputError as exc:
        return exc.line, exc.message


def _read_both(path, monkeypatch, **kwargs):
    whole = _read(path, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(_common, "SLICE", 64)
        m.setattr(_table, "_SLICE", 50)
        m.setattr(_table, "_ROWS_PER_PARSE", 29)
        sliced = _read(path, **kwargs)
    return whole, sliced


def _same(whole, sliced):
    if isinstance(whole, tuple):  # an error: the same one, on the same line
        assert whole == sliced
        return
    pd.testing.assert_frame_equal(whole.df, sliced.df)
    assert (whole.delimiter, whole.encoding, whole.header_lines) == (sliced.delimiter, sliced.encoding,
                                                                     sliced.header_lines)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("plain", ("name;age;zip;town\n" + "\n".join(ROWS) + "\n").encode()),
        ("no final line break", ("name;age;zip;town\n" + "\n".join(ROWS)).encode()),
        ("byte-order mark", codecs.BOM_UTF8 + ("name;age;zip;town\n" + "\n".join(ROWS) + "\n").encode()),
        ("CRLF line ends", ("name;age;zip;town\r\n" + "\r\n".join(ROWS) + "\r\n").encode()),
        # blank lines at the end are dropped, even when they fill whole slices of their own
        ("trailing blank lines", ("name;age;zip;town\n" + "\n".join(ROWS) + "\n" * 200).encode()),
        # not UTF-8 (a latin-1 byte in a late slice): the whole file is read as latin-1
        ("latin-1 late", ("name;age;zip;town\n" + "\n".join(ROWS[:250]) + "\nx;1;2;\xe9t\xe9\n").encode("latin-1")),
        # quotes: the csv module reads records across slices, a quoted field spanning lines included
        ("quoted field over lines", ("name;age;zip;town\n" + "\n".join(ROWS[:200])
                                     + '\n"multi\nline\nname";1;2;"a;b"\n' + "\n".join(ROWS[200:]) + "\n").encode()),
        # a lone CR ends a line for the csv module: here a ragged row, named on the same line
        # a quoted header over two lines, longer than a slice; the delimiter sniffed past the first slice
        ("quoted header over lines", b'"aaaaaaaaaa\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";c\n1;2\n'),
        ("sniffed past a slice", b"a,b;c\n" + b"1,2\n" * 3 + b"1;2\n" * 200),
        ("lone CR late", ("name;age;zip;town\n" + "\n".join(ROWS[:250]) + "\nx;1;2;a\rb\n").encode()),
        ("quoted CR late", ("name;age;zip;town\n" + "\n".join(ROWS[:250]) + '\nx;1;2;"a\rb"\n').encode()),
    ],
)
def test_a_sliced_read_gives_the_same_table_as_one_piece(tmp_path, monkeypatch, name, data):
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    whole, sliced = _read_both(path, monkeypatch)
    _same(whole, sliced)
    assert path.read_bytes() == data  # the input is never modified
    if name == "lone CR late":
        assert sliced == (253, "row has 1 field but the header has 4 (delimiter ';')")
    if name == "quoted CR late":
        assert sliced.df["town"].iloc[-1] == "a\rb"
    if name == "latin-1 late":
        assert sliced.encoding == "latin-1" and sliced.df["town"].iloc[-1] == "\xe9t\xe9"
    if name == "quoted field over lines":
        assert "multi\nline\nname" in set(sliced.df["name"])
    if name == "byte-order mark":
        assert sliced.encoding == "utf-8-sig" and list(sliced.df.columns)[0] == "name"


def test_a_ragged_row_in_a_late_slice_is_named_by_its_line(tmp_path, monkeypatch):
    path = tmp_path / "ragged.csv"
    path.write_text("name;age;zip;town\n" + "\n".join(ROWS[:270] + ["p;1"] + ROWS[270:]) + "\n", encoding="utf-8")
    for slice_bytes in (1 << 22, 64):
        with monkeypatch.context() as m:
            m.setattr(_common, "SLICE", slice_bytes)
            with pytest.raises(InputError) as err:
                read_table(path)
        assert err.value.line == 272 and "2 fields but the header has 4" in err.value.message


def test_an_empty_or_blank_file_is_refused_when_sliced(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, "SLICE", 8)
    path = tmp_path / "blank.csv"
    path.write_bytes(b"\n" * 100)
    with pytest.raises(InputError, match="the file is empty"):
        read_table(path)


@pytest.mark.parametrize(("ending", "kept"), [("\n", "\n"), ("\n\n\n", "\n"), ("\r\n\r\n", "\r\n"), ("", "")])
def test_the_parser_reads_the_files_own_bytes_and_the_slices_stay_apart(tmp_path, monkeypatch, ending, kept):
    """A UTF-8 file without quotes goes to pandas as the file's own bytes, up to the last line that is not
    blank and its own line break (nothing re-encoded), while the decoded text reaches the field count as
    several slices (never joined into one text); the csv module's slow path is not taken."""
    path = tmp_path / "t.csv"
    body = "name;age;zip;town\n" + "\n".join(ROWS)
    data = (body + ending).encode()
    path.write_bytes(data)
    expected = read_table(path).df
    seen = {}
    fast = _table._parse_fast

    def spy(parts, delimiter, n, where, source):
        seen["slices"], seen["source"] = len(parts), source
        seen["bytes"] = source.read()  # what pandas would read
        return fast(parts, delimiter, n, where, _table._ByteWindow(seen["bytes"], 0, len(seen["bytes"])))

    def precise(*args):
        raise AssertionError("the csv module's slow path was taken")

    monkeypatch.setattr(_table, "_parse_fast", spy)
    monkeypatch.setattr(_table, "_parse_precise", precise)
    monkeypatch.setattr(_common, "SLICE", 64)
    pd.testing.assert_frame_equal(read_table(path).df, expected)
    assert isinstance(seen["source"], _table._ByteWindow) and seen["slices"] > 10
    assert seen["bytes"] == (body + kept).encode()


def test_a_given_encoding_still_names_the_line_of_a_bad_byte(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, "SLICE", 64)
    path = tmp_path / "t.csv"
    path.write_bytes(("name;age;zip;town\n" + "\n".join(ROWS[:100])).encode() + b"\nx;1;2;\xff\n")
    with pytest.raises(InputError) as err:
        read_table(path, encoding="utf-8")
    assert err.value.line == 102 and "0xff" in err.value.message
