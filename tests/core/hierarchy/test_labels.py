"""Labels from a safe alphabet (issue 39 item 4): what a hierarchy label may hold, and labels of one level that
look alike."""

from __future__ import annotations

import re

import pytest

from anonstudio.core.errors import HierarchyError
from anonstudio.core.hierarchy import Hierarchy, grouping, intervals, masking
from anonstudio.core.hierarchy._labels import MAX_LABEL_LENGTH, skeleton, unsafe_character


@pytest.mark.parametrize("odd, named", [
    ("\ufe00", "U+FE00 VARIATION SELECTOR-1"), ("\U000e0100", "U+E0100 VARIATION SELECTOR-17"),
    ("\u180b", "U+180B MONGOLIAN FREE VARIATION SELECTOR ONE"), ("\u034f", "U+034F COMBINING GRAPHEME JOINER"),
    ("\u200b", "U+200B ZERO WIDTH SPACE"), ("\u2060", "U+2060 WORD JOINER"), ("\u00ad", "U+00AD SOFT HYPHEN"),
    ("\u3164", "U+3164 HANGUL FILLER"), ("\u115f", "U+115F HANGUL CHOSEONG FILLER"),
    ("\uffa0", "U+FFA0 HALFWIDTH HANGUL FILLER"), ("\u2800", "U+2800 BRAILLE PATTERN BLANK"),
    ("\u00a0", "U+00A0 NO-BREAK SPACE"), ("\u3000", "U+3000 IDEOGRAPHIC SPACE"), ("\u0007", "U+0007 <control>"),
    ("\u17b4", "U+17B4 KHMER VOWEL INHERENT AQ"), ("\U000e0041", "U+E0041 TAG LATIN CAPITAL LETTER A"),
    ("\u0332", "U+0332 COMBINING LOW LINE"), ("\u20dd", "U+20DD COMBINING ENCLOSING CIRCLE"),
])
def test_a_label_with_a_character_a_reader_cannot_see_is_refused(odd, named):
    assert named in (unsafe_character("35" + odd + "-39") or "")  # (a trailing space is stripped as in CSV)
    with pytest.raises(HierarchyError, match=f"h.csv:2, column .age.: label .*{re.escape(named)}"):
        Hierarchy("age", [["35", "35-39", "*"], ["36", "35" + odd + "-39", "*"]], source="h.csv", lines=[1, 2])


def test_labels_in_nfc_with_precomposed_letters_and_other_scripts_pass():
    for label in ("Café", "Ärzte", "Łódź", "Ελλάδα", "Россия", "日本", "서울", "35-39", "[35, 40)", "x" * MAX_LABEL_LENGTH):
        assert unsafe_character(label) is None, label
    assert "normalization form C" in unsafe_character("Cafe\u0301")
    assert "U+212B ANGSTROM SIGN" in unsafe_character("\u212b")  # NFC maps it to U+00C5
    assert f"more than the {MAX_LABEL_LENGTH}" in unsafe_character("x" * (MAX_LABEL_LENGTH + 1))


@pytest.mark.parametrize("a, b", [("35-39", "35\u201339"), ("35-39", "35\u221239"), ("Male", "\u041cale"),
                                  ("Ocean", "\u039fcean"), ("35-39", "\uff13\uff15-\uff13\uff19"), ("10-19", "l0-19"),
                                  ("Private", "Prlvate".replace("l", "\u0456")), ("modern", "rnodern")])
def test_two_labels_of_one_level_that_look_alike_are_refused(a, b):
    assert skeleton(a) == skeleton(b)
    with pytest.raises(HierarchyError, match="of level 1 look alike"):
        Hierarchy("x", [["1", a, "*"], ["2", b, "*"]], source="h.csv", lines=[1, 2])
    # on two levels they are two labels of different coarseness: allowed
    Hierarchy("x", [["1", a, "g", "*"], ["2", "h", b, "*"]])


def test_distinct_labels_and_data_values_padded_up_pass():
    assert skeleton("Male") != skeleton("Female") and skeleton("20-24") != skeleton("25-29")
    # ragged rows pad a leaf up: 'O' and '0' are the data's spelling, not labels someone chose
    Hierarchy("blood", [["O", "*"], ["0", "*"], ["A", "A", "*"]])


def test_every_builder_output_passes_and_a_builder_label_is_checked():
    values = [str(v) for v in range(0, 100)]
    intervals("age", values, [5, 10, 20])
    masking("zip", ["53711", "53712", "10001", "O1234"])
    with pytest.raises(HierarchyError, match=r"label 'adult\\ufe0f' \(hierarchy row 1\).*U\+FE0F VARIATION SELECTOR-16"):
        grouping("age", [{"adult\ufe0f": ["30", "31"]}], source="job.toml")
    with pytest.raises(HierarchyError, match="look alike"):
        grouping("sex", [{"Male": ["M"], "\u041cale": ["m"]}], source="job.toml")


@pytest.mark.parametrize("a, b", [("20-24", "20\u142824"), ("20-24", "20\u4e0024"), ("ADULT", "Adult"),
                                  ("adult", "aDult")])
def test_labels_spelling_the_same_letters_and_digits_or_differing_in_case_are_refused(a, b):
    """A second hunt split one age interval by exact age with U+1428 and U+4E00 in place of the dash (outside the
    confusables subset), and case variants passed as different classes."""
    with pytest.raises(HierarchyError, match="look alike"):
        Hierarchy("age", [["20", a, "*"], ["21", b, "*"]], source="h.csv", lines=[1, 2])


def test_ascii_labels_with_the_same_digits_are_different_labels():
    Hierarchy("age", [["19", "<20", "*"], ["25", ">20", "*"], ["20", "=20", "*"]])


@pytest.mark.parametrize("a, b, named", [
    ("20-29", "\u01bb0-29", "U+01BB LATIN LETTER TWO WITH STROKE"), ("20-29", "2\u0ed0-29", "U+0ED0 LAO DIGIT ZERO"),
    ("20-29", "20-\u01bb9", "U+01BB LATIN LETTER TWO WITH STROKE"),
    ("20-29", "20-2\u0261", "U+0261 LATIN SMALL LETTER SCRIPT G"), ("any", "\u0251ny", "U+0251 LATIN SMALL LETTER ALPHA"),
    ("Zurich", "Z\u00fcrich", "U+00FC LATIN SMALL LETTER U WITH DIAERESIS"),
])
def test_a_label_whose_characters_outside_ascii_can_read_as_another_label_is_refused(a, b, named):
    """Hunt 2 (E_labels, H_group_labels): look-alikes no confusables subset lists split one interval by exact age,
    and published sex under "any"/"ɑny". Each run of characters outside ASCII is read as any text."""
    expected = (rf"h.csv:2, column 'x': labels '{re.escape(a)}' \(line 1\) and .* \(line 2\) of level 1 may look "
                rf"alike: .*{re.escape(named)}")
    with pytest.raises(HierarchyError, match=expected) as caught:
        Hierarchy("x", [["1", a, "*"], ["2", b, "*"]], source="h.csv", lines=[1, 2])
    assert caught.value.exit_code == 2
    with pytest.raises(HierarchyError, match="may look alike"):
        grouping("sex", [{a: ["M"], b: ["F"]}], source="job.toml")


def test_labels_with_wildcards_on_both_sides_that_can_read_alike_are_refused():
    """No plain '20-29' needed: 'ƻ0-29' and '20-ƻ9' both read as '20-29'."""
    with pytest.raises(HierarchyError, match="look alike"):
        Hierarchy("age", [["20", "\u01bb0-29", "*"], ["21", "20-\u01bb9", "*"]])


@pytest.mark.parametrize("labels", [
    ("Zürich", "Zug", "Bern", "Genève", "Neuchâtel", "Graubünden"),
    ("München", "Münster", "Köln", "Düsseldorf", "Lübeck"),
    ("Île-de-France", "Provence-Alpes-Côte d'Azur", "Auvergne-Rhône-Alpes", "Bretagne"),
    ("東京", "大阪", "京都"), ("第1区", "第2区", "第3区"), ("서울", "부산"), ("Ελλάδα", "Россия", "Greece"),
])
def test_legitimate_labels_outside_ascii_pass(labels):
    rows = [[str(i), label, "*"] for i, label in enumerate(labels)]
    assert [h.height for h in [Hierarchy("place", rows)]] == [2]
    grouping("place", [{label: [str(i)] for i, label in enumerate(labels)}])
