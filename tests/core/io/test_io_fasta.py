"""FASTA: records, ids, letter folding, bad input named by file, record and line; writing 60 a line."""

from __future__ import annotations

import os

import numpy as np
import pytest

from anonstudio.core.data import SequenceSet
from anonstudio.core.errors import InputError
from anonstudio.core.io import read_fasta, write_fasta

UNIPROT = (
    ">sp|P09032|EI2BG_YEAST Translation initiation factor OS=Saccharomyces cerevisiae OX=559292\n"
    "MSIQAFVFCG\n"
    "KGSNLA\n"
    ">sp|P12345|ABC_YEAST Other protein OS=Saccharomyces cerevisiae\n"
    "MKV\n"
)


def put(tmp_path, text: str, name: str = "p.fasta"):
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


def test_multiline_uniprot_records(tmp_path):
    s = read_fasta(put(tmp_path, UNIPROT))
    assert s.ids == ["sp|P09032|EI2BG_YEAST", "sp|P12345|ABC_YEAST"]
    assert s.headers[0].startswith("sp|P09032|EI2BG_YEAST Translation") and not s.headers[0].startswith(">")
    assert s.strings() == ["MSIQAFVFCGKGSNLA", "MKV"]
    assert s.lengths.tolist() == [16, 3]
    assert s.alphabet.name == "protein-25" and s.source == tmp_path / "p.fasta"


def test_bare_ids_lower_case_trailing_star_whitespace_and_crlf(tmp_path):
    text = ">10090.ENSMUSP01\r\nmk v\tl*\r\n\r\n>seq2\r\nAcDx\r\nu*\r\n"
    s = read_fasta(put(tmp_path, text))
    assert s.ids == ["10090.ENSMUSP01", "seq2"]
    assert s.strings() == ["MKVL", "ACDXU"]


def test_only_one_trailing_star_is_dropped(tmp_path):
    path = put(tmp_path, ">a\nMK**\n")
    with pytest.raises(InputError, match=r"letter '\*' at position 3") as exc:
        read_fasta(path)
    assert f"{path}:2" in str(exc.value) and "record a" in str(exc.value)


def test_letter_outside_alphabet_names_record_position_and_line(tmp_path):
    path = put(tmp_path, ">first\nMKV\n>second desc\nACDEFGHIKL\nMNJPQ\n")
    with pytest.raises(InputError) as exc:
        read_fasta(path)
    msg = str(exc.value)
    assert "letter 'J' at position 13" in msg and "protein-25" in msg
    assert f"{path}:5" in msg and "record second" in msg
    assert exc.value.record == "second" and exc.value.line == 5


def test_dna_alphabet_rejects_protein_letters(tmp_path):
    path = put(tmp_path, ">x\nACGTN\n")
    with pytest.raises(InputError, match="'N' at position 5 is not in alphabet dna"):
        read_fasta(path, alphabet="dna")
    assert read_fasta(path, alphabet="dna-n").strings() == ["ACGTN"]


def test_as_found_keeps_any_letters(tmp_path):
    s = read_fasta(put(tmp_path, ">x\nMKJ\n>y\nB1-\n"), alphabet="as-found")
    assert s.strings() == ["MKJ", "B1-"]
    assert set(s.alphabet.symbols) == set("MKJB1-")


def test_empty_record_names_record_and_line(tmp_path):
    path = put(tmp_path, ">a\nMK\n>empty one\n\n>c\nMV\n")
    with pytest.raises(InputError, match="no sequence") as exc:
        read_fasta(path)
    assert f"{path}:3" in str(exc.value) and "record empty" in str(exc.value)
    path = put(tmp_path, ">a\nMK\n>last\n", "q.fasta")
    with pytest.raises(InputError, match="no sequence") as exc:
        read_fasta(path)
    assert f"{path}:3" in str(exc.value) and "record last" in str(exc.value)


@pytest.mark.parametrize(("text", "message", "line"), [
    (">a\n*\n", "no sequence", 1),  # a record of only the stop symbol is empty
    ("\nMKV\n>a\nMK\n", "before any '>' header", 2),
    (">a\nMK\n>  \nMV\n", "no identifier", 3),
])
def test_malformed_fasta_names_file_line_and_problem(tmp_path, text, message, line):
    path = put(tmp_path, text)
    with pytest.raises(InputError, match=message) as exc:
        read_fasta(path)
    assert f"{path}:{line}" in str(exc.value)


def test_duplicate_ids(tmp_path):
    path = put(tmp_path, ">a x\nMK\n>b\nMV\n>a y\nMW\n")
    with pytest.raises(InputError, match="duplicate id 'a' \\(first on line 1\\)") as exc:
        read_fasta(path)
    assert f"{path}:5" in str(exc.value) and "record a" in str(exc.value)


def test_no_records(tmp_path):
    path = put(tmp_path, "")
    with pytest.raises(InputError, match="no FASTA records") as exc:
        read_fasta(path)
    assert str(path) in str(exc.value)


def test_label_pattern(tmp_path):
    path = put(tmp_path, UNIPROT)
    s = read_fasta(path, label_pattern=r"OS=(\w+)")
    assert s.labels == ["Saccharomyces", "Saccharomyces"]
    s = read_fasta(path, label_pattern=r"\|(\w+)_")
    assert s.labels == ["EI2BG", "ABC"]


def test_label_pattern_without_match_names_the_record(tmp_path):
    path = put(tmp_path, UNIPROT)
    with pytest.raises(InputError, match="does not match label_pattern") as exc:
        read_fasta(path, label_pattern=r"OX=(\d+)")
    assert f"{path}:4" in str(exc.value) and "record sp|P12345|ABC_YEAST" in str(exc.value)


@pytest.mark.parametrize("pattern", [r"OS=\w+", r"(O)(S)", r"OS=(\w+"])
def test_label_pattern_must_be_a_regex_with_one_group(tmp_path, pattern):
    path = put(tmp_path, UNIPROT)
    with pytest.raises(InputError, match="label_pattern") as exc:
        read_fasta(path, label_pattern=pattern)
    assert str(path) in str(exc.value)


def test_unknown_alphabet_names_the_file(tmp_path):
    path = put(tmp_path, UNIPROT)
    with pytest.raises(InputError, match="unknown alphabet 'klingon'") as exc:
        read_fasta(path, alphabet="klingon")
    assert str(path) in str(exc.value)


def test_reading_never_modifies_the_input(tmp_path):
    path = put(tmp_path, UNIPROT)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    read_fasta(path)
    assert path.read_text() == UNIPROT and path.stat().st_mtime == 1_000_000_000


def test_write_fasta_wraps_at_60_and_round_trips(tmp_path):
    seq = "ACDEFGHIKLMNPQRSTVWY" * 7  # 140 letters
    out = write_fasta(["pseudo_1 segment=0 group=3", ">pseudo_2"], [seq, "MK"], tmp_path / "o.fasta")
    lines = out.read_text().split("\n")
    assert lines[0] == ">pseudo_1 segment=0 group=3"
    assert [len(x) for x in lines[1:4]] == [60, 60, 20]
    assert lines[4] == ">pseudo_2" and lines[5] == "MK" and lines[6] == ""
    back = read_fasta(out)
    assert back.strings() == [seq, "MK"] and back.ids == ["pseudo_1", "pseudo_2"]


def test_write_fasta_accepts_a_sequence_set_and_width(tmp_path):
    s = SequenceSet.from_strings(["MKVLA", "WY"], ids=["a", "b"], headers=["a first", "b"], alphabet="protein-20")
    out = write_fasta(s, tmp_path / "o.fa", width=2)
    assert out.read_text() == ">a first\nMK\nVL\nA\n>b\nWY\n"
    back = read_fasta(out, alphabet="protein-20")
    assert np.array_equal(back.codes, s.codes) and np.array_equal(back.offsets, s.offsets)


def test_write_fasta_is_atomic(tmp_path):
    target = tmp_path / "o.fasta"
    target.write_text(">old\nMK\n")
    with pytest.raises(ValueError, match="line break"):
        write_fasta(["good", "bad\nheader"], ["MK", "MV"], target)
    assert target.read_text() == ">old\nMK\n"
    assert [p.name for p in tmp_path.iterdir()] == ["o.fasta"]
