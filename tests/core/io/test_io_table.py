"""Delimited tables: sniffing, encodings, missing tokens, bad input named by file and line, writing."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from anonstudio.core.data import Role, Table
from anonstudio.core.errors import InputError
from anonstudio.core.io import read_table, write_table


def put(tmp_path, name: str, data: bytes | str, encoding: str = "utf-8"):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode(encoding))
    return path


@pytest.mark.parametrize("delim", [";", ",", "\t"])
def test_sniffs_each_delimiter_and_keeps_exact_strings(tmp_path, delim):
    text = delim.join(["id", "age", "score"]) + "\n" + delim.join(["007", "39", "1.50"]) + "\n"
    text += delim.join(["8", " 40", "2e3"]) + "\n"
    t = read_table(put(tmp_path, "t.csv", text))
    assert t.delimiter == delim
    assert list(t.df.columns) == ["id", "age", "score"]
    assert t.df.shape == (2, 3)
    assert t.df["id"].tolist() == ["007", "8"]  # never parsed as numbers
    assert t.df["age"].tolist() == ["39", " 40"]
    assert t.df["score"].tolist() == ["1.50", "2e3"]
    assert t.encoding == "utf-8" and t.header_lines == 1 and t.source == tmp_path / "t.csv"


def test_sniff_prefers_the_delimiter_consistent_with_the_rows(tmp_path):
    # commas inside values of a ';' file must not fool the sniffer
    t = read_table(put(tmp_path, "t.csv", "name;note\nx;a,b\ny;c,d,e\n"))
    assert t.delimiter == ";"
    assert t.df["note"].tolist() == ["a,b", "c,d,e"]


def test_given_delimiter_tab_alias(tmp_path):
    t = read_table(put(tmp_path, "t.txt", "a\tb\n1\t2\n"), delimiter="tab")
    assert t.delimiter == "\t" and t.df.iloc[0].tolist() == ["1", "2"]


def test_utf8_bom_is_removed_and_reported(tmp_path):
    t = read_table(put(tmp_path, "t.csv", b"\xef\xbb\xbfname;city\nA;K\xc3\xb6ln\n"))
    assert list(t.df.columns) == ["name", "city"]
    assert t.df["city"].iloc[0] == "Köln"
    assert t.encoding == "utf-8-sig"


def test_latin1_fallback_is_reported(tmp_path):
    t = read_table(put(tmp_path, "t.csv", "name;city\nA;Montréal\n", encoding="latin-1"))
    assert t.encoding == "latin-1"
    assert t.df["city"].iloc[0] == "Montréal"


def test_explicit_encoding_that_fails_names_the_line(tmp_path):
    path = put(tmp_path, "t.csv", "name;city\nA;B\nC;Montréal\n", encoding="latin-1")
    with pytest.raises(InputError, match="cannot be decoded as utf-8") as exc:
        read_table(path, encoding="utf-8")
    assert f"{path}:3" in str(exc.value)


def test_missing_tokens_default_and_configurable(tmp_path):
    path = put(tmp_path, "t.csv", "a;b;c;d\n;NA;?;-\nx;na;??;y\n")
    t = read_table(path)
    row0 = t.df.iloc[0]
    assert row0["a"] is pd.NA and row0["b"] is pd.NA and row0["c"] is pd.NA and row0["d"] == "-"
    assert t.df.iloc[1].tolist() == ["x", "na", "??", "y"]  # only exact tokens are missing
    t2 = read_table(path, missing=["-"])
    assert t2.df.iloc[0]["d"] is pd.NA
    assert t2.df.iloc[0]["c"] == "?" and t2.df.iloc[0]["b"] == "NA" and t2.df.iloc[0]["a"] == ""
    t3 = read_table(path, missing=[])
    assert not t3.df.isna().any().any()


@pytest.mark.parametrize(
    "text, line, got",
    [
        ("a;b;c\n1;2;3\n4;5;6;7\n8;9;10\n", 3, 4),  # too many
        ("a;b;c\n1;2;3\n4;5;6\n8;9\n", 4, 2),  # too few (pandas would pad it silently)
        ('a;b;c\n"1";2;3\n4;"5;x"\n', 3, 2),  # quoted file: the precise pass
    ],
)
def test_ragged_row_names_line_and_counts(tmp_path, text, line, got):
    path = put(tmp_path, "t.csv", text)
    with pytest.raises(InputError) as exc:
        read_table(path)
    msg = str(exc.value)
    assert f"{path}:{line}" in msg
    assert f"row has {got} fields but the header has 3" in msg
    assert exc.value.line == line


def test_ragged_row_line_counts_multiline_quoted_fields(tmp_path):
    path = put(tmp_path, "t.csv", 'a,b\n"x\ny",2\n3\n')
    with pytest.raises(InputError) as exc:
        read_table(path)
    assert f"{path}:4" in str(exc.value) and "1 field but the header has 2" in str(exc.value)


def test_blank_line_in_the_middle_is_an_error_but_trailing_blank_lines_are_not(tmp_path):
    path = put(tmp_path, "t.csv", "a;b\n1;2\n\n3;4\n")
    with pytest.raises(InputError, match="blank") as exc:
        read_table(path)
    assert f"{path}:3" in str(exc.value)
    t = read_table(put(tmp_path, "u.csv", "a;b\r\n1;2\r\n3;4\r\n\r\n\r\n"))
    assert t.df.shape == (2, 2) and t.df.iloc[1].tolist() == ["3", "4"]  # CRLF: no '\r' left in cells


def test_wrong_delimiter_given(tmp_path):
    path = put(tmp_path, "t.csv", "sex;age;race\nMale;39;White\n")
    with pytest.raises(InputError, match=r"wrong delimiter\?.*';'") as exc:
        read_table(path, delimiter=",")
    assert f"{path}:1" in str(exc.value)


def test_wrong_delimiter_sniffed_to_one_column(tmp_path):
    path = put(tmp_path, "t.csv", "sex|age|race\nMale|39|White\n")
    with pytest.raises(InputError, match=r"wrong delimiter\?.*'\|'") as exc:
        read_table(path)
    assert f"{path}:1" in str(exc.value)
    assert read_table(path, delimiter="|").df.shape == (1, 3)


def test_one_column_file_is_fine_and_blank_lines_are_missing(tmp_path):
    t = read_table(put(tmp_path, "t.csv", "patient name\nAda Lovelace\n\nAlan\n"))
    assert t.df.shape == (3, 1)
    assert t.df.iloc[1, 0] is pd.NA


@pytest.mark.parametrize("data", [b"", b"\n\n", b"\xef\xbb\xbf", b"  \n"])
def test_empty_file(tmp_path, data):
    path = put(tmp_path, "t.csv", data)
    with pytest.raises(InputError, match="empty") as exc:
        read_table(path)
    assert f"{path}:1" in str(exc.value)


def test_duplicate_column_names(tmp_path):
    path = put(tmp_path, "t.csv", "a;b;a\n1;2;3\n")
    with pytest.raises(InputError, match="'a' appears twice.*columns 1 and 3") as exc:
        read_table(path)
    assert f"{path}:1" in str(exc.value) and exc.value.column == "a"


@pytest.mark.parametrize(("text", "message", "line"), [
    ("a;;c\n1;2;3\n", "column 2 of the header has no name", 1),
    ('a;b\n1;2\n3;"4\n5;6\n', "never closed", 3),  # an unclosed quote: the line it opens on
])
def test_malformed_text_names_file_line_and_problem(tmp_path, text, message, line):
    path = put(tmp_path, "t.csv", text)
    with pytest.raises(InputError, match=message) as exc:
        read_table(path)
    assert f"{path}:{line}" in str(exc.value)


def test_quoted_fields_follow_csv_semantics(tmp_path):
    text = 'name,note,n\n"Smith, J.","said ""hi""",1\n"multi\nline",x,2\n'
    t = read_table(put(tmp_path, "t.csv", text))
    assert t.df["name"].tolist() == ["Smith, J.", "multi\nline"]
    assert t.df["note"].tolist() == ['said "hi"', "x"]


def test_header_only_gives_an_empty_table(tmp_path):
    t = read_table(put(tmp_path, "t.csv", "a;b;c\n"))
    assert t.df.shape == (0, 3) and list(t.df.columns) == ["a", "b", "c"]


def test_missing_file_is_named(tmp_path):
    path = tmp_path / "nope.csv"
    with pytest.raises(InputError, match="file not found") as exc:
        read_table(path)
    assert str(path) in str(exc.value)


def test_reading_never_modifies_the_input(tmp_path):
    path = put(tmp_path, "t.csv", "a;b\n1;?\n")
    os.utime(path, (1_000_000_000, 1_000_000_000))
    before = path.read_bytes()
    read_table(path)
    assert path.read_bytes() == before and path.stat().st_mtime == 1_000_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_write_round_trips_formatting_with_lf_and_missing_cells_as_spelled(tmp_path):
    """Missing cells keep their spelling ('?' stays '?', empty stays empty: issue 11 item 11)."""
    src = put(tmp_path, "in.csv", "id;x;y\r\n007;1.50;?\r\n8;;2e3\r\n9;NA;\r\n")
    t = read_table(src)
    assert t.df["y"].isna().tolist() == [True, False, True]
    out = write_table(t, tmp_path / "out.csv", delimiter=";")
    assert out.read_bytes() == b"id;x;y\n007;1.50;?\n8;;2e3\n9;NA;\n"
    back = read_table(out)
    assert back.df["id"].tolist() == ["007", "8", "9"] and back.df["x"].iloc[0] == "1.50"


def test_write_quotes_only_where_needed_and_keeps_column_order(tmp_path):
    df = pd.DataFrame({"z": ["a,b", 'q"r', "plain"], "a": ["1", pd.NA, "3"]})
    out = write_table(df, tmp_path / "o.csv")
    assert out.read_text() == 'z,a\n"a,b",1\n"q""r",\nplain,3\n'
    assert read_table(out).df["z"].tolist() == ["a,b", 'q"r', "plain"]


def test_write_table_drops_identifying_columns(tmp_path):
    t = Table(pd.DataFrame({"name": ["Ann"], "age": ["30"]}), roles={"name": Role.IDENTIFYING})
    out = write_table(t, tmp_path / "o.csv")
    assert out.read_text() == "age\n30\n"


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "o.csv"
    target.write_text("old\n")
    df = pd.DataFrame({"city": ["Łódź"]})
    with pytest.raises(InputError, match="cannot be written in encoding latin-1") as exc:
        write_table(df, target, encoding="latin-1")
    assert str(target) in str(exc.value)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["o.csv"]


def test_latin1_and_bom_tables_are_written_back_in_their_encoding(tmp_path):
    src = put(tmp_path, "in.csv", "name;city\nA;Montréal\n", encoding="latin-1")
    t = read_table(src)
    out = write_table(t, tmp_path / "o.csv", delimiter=t.delimiter, encoding=t.encoding)
    assert out.read_bytes() == src.read_bytes()
    bom = put(tmp_path, "bom.csv", b"\xef\xbb\xbfa;b\n1;2\n")
    t = read_table(bom)
    out = write_table(t, tmp_path / "o2.csv", delimiter=t.delimiter, encoding=t.encoding)
    assert out.read_bytes() == bom.read_bytes()


def test_parquet_cells_become_strings(tmp_path):
    df = pd.DataFrame(
        {"age": pd.array([39, None, 50], dtype="Int64"), "sex": ["Male", "Female", None], "w": [1.5, 2.0, 0.25]}
    )
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    t = read_table(path)
    assert t.df.shape == (3, 3)
    assert t.df["age"].iloc[0] == "39" and t.df["age"].iloc[1] is pd.NA
    assert t.df["sex"].iloc[2] is pd.NA and t.df["w"].tolist() == ["1.5", "2.0", "0.25"]
    assert all(isinstance(v, str) for v in t.df["sex"].dropna())


def test_parquet_write_and_read_back(tmp_path):
    t = read_table(put(tmp_path, "in.csv", "a;b\n007;?\n2;x\n"))
    out = write_table(t, tmp_path / "o.pq")
    back = read_table(out)
    assert back.df["a"].tolist() == ["007", "2"] and back.df["b"].iloc[0] is pd.NA


def test_not_a_parquet_file(tmp_path):
    path = put(tmp_path, "t.parquet", "a;b\n1;2\n")
    with pytest.raises(InputError, match="not a readable Parquet file") as exc:
        read_table(path)
    assert str(path) in str(exc.value)
