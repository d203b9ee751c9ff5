"""Issue 39: ``verify --model-only`` passed every protein Caesar-shifted over the 20 amino acids and DNA rotated
A→C→G→T (no run of 20 symbols shared with an input). The previous-occurrence codes of a renamed copy are the
input's, so the pseudo-strings verifier names it without the release key."""

from __future__ import annotations

import numpy as np

from anonstudio.core.data import SequenceSet
from anonstudio.core.privacy._strings import verify_pseudo_strings
from anonstudio.core.privacy._substitutions import previous_occurrence_codes

PROTEIN = "ACDEFGHIKLMNPQRSTVWY"


def _inputs(n: int, length: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list(PROTEIN), length)) for _ in range(n)]


def _tagged(strings: list[str], k: int) -> SequenceSet:
    ids = [f"pseudo_{i + 1}" for i in range(len(strings))]
    return SequenceSet.from_strings(strings, ids=ids, headers=[f"{i} segment=0 group={n // k}" for n, i in enumerate(ids)])


def test_the_codes_do_not_see_a_renaming():
    text = "MKVLAAGIVALLLAAGCSSA"
    shifted = text.translate(str.maketrans(PROTEIN, PROTEIN[7:] + PROTEIN[:7]))
    a, b = (np.frombuffer(s.encode(), dtype=np.uint8) for s in (text, shifted))
    offsets = np.array([0, len(text)])
    assert (previous_occurrence_codes(a, offsets) == previous_occurrence_codes(b, offsets)).all()
    assert shifted != text


def test_a_shifted_copy_is_refused_and_fresh_strings_are_not():
    inputs = _inputs(20, 120, 1)
    original = SequenceSet.from_strings(inputs)
    shift = str.maketrans(PROTEIN, PROTEIN[7:] + PROTEIN[:7])
    fresh = _inputs(10, 120, 2)
    crafted = fresh[:9] + ["MKV" + inputs[3].translate(shift)]
    verdict = verify_pseudo_strings(original, _tagged(crafted, 5), k=5, max_fragment=20)
    assert any("is an input with its symbols renamed" in p for p in verdict.problems), verdict.problems
    assert verdict.details["renamed_copies"] == 1
    clean = verify_pseudo_strings(original, _tagged(fresh, 5), k=5, max_fragment=20)
    assert clean.details["renamed_copies"] == 0


def test_a_repeat_is_no_copy():
    """A pseudo-string of a dipeptide repeat matches any renamed repeat: windows of few symbols are not judged."""
    inputs = _inputs(9, 120, 3) + ["QA" * 60]
    verdict = verify_pseudo_strings(SequenceSet.from_strings(inputs), _tagged(["CP" * 60] * 5, 5), k=5,
                                    max_fragment=20)
    assert verdict.details["renamed_copies"] == 0
