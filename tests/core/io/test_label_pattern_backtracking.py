"""Issue 44 item 10: ``label_pattern = "(a+)+b"`` on a long header backtracked without end. A pattern that repeats a
part which itself repeats is refused (naming the pattern) by the job's check and by the FASTA reader; ordinary
label patterns, and possessive or atomic repeats (which do not backtrack), are read as before."""

from __future__ import annotations

import time

import pytest

from anonstudio.core.errors import InputError
from anonstudio.core.io import read_fasta
from anonstudio.core.io._fasta import nested_repeat


@pytest.mark.parametrize("pattern", [r"(a+)+b", r"(a*)*", r"(x{2,})+", r"(?:a+|b)+c", r"class=((?:[A-Z]+\d*)+)"])
def test_a_nested_repeat_is_refused_at_once(tmp_path, pattern):
    path = tmp_path / "p.fasta"
    path.write_text(">P1 " + "a" * 5000 + "\nMKTAYIAK\n>P2 b\nMSDNGPQN\n")
    start = time.perf_counter()
    with pytest.raises(InputError, match="repeats a part that itself repeats"):
        read_fasta(path, label_pattern=pattern)
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("pattern", [r"class=([A-Z])", r"group=(\d+)", r"([A-Z]+)", r"(a++)+", r"(?>a+)+(b)?",
                                     r"(\w+)\|(?:ab)*"])
def test_ordinary_patterns_are_not_taken_for_nested_repeats(pattern):
    assert not nested_repeat(pattern)
