"""Issue 28 item 3: near-copies of one input. The fragment rule only caught exact runs, so an input with a residue
changed every 19 positions (every shared run 18 long), a copy with a few residues inserted or deleted, or a DNA
input complemented but not reversed passed `anonstudio verify`. The near-copy rule: no window of
``near_copy_length`` symbols of a pseudo-string, read any way, lies within ⌊(1 − near_copy_identity)·length⌋ edits
of a stretch of 1..k-1 inputs."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.data import SequenceSet
from anonstudio.core.generate import protein_like
from anonstudio.core.privacy import NearCopyIndex, verify_output, verify_pseudo_strings
from anonstudio.core.privacy._near_copies import allowed_edits, shortest_shared_run


# -- the search is exact ------------------------------------------------------------------------------------------
def _distance(window: str, text: str) -> int:
    """Smallest edit distance between ``window`` and any stretch of ``text`` (plain dynamic programme)."""
    prev = [0] * (len(text) + 1)
    for i in range(1, len(window) + 1):
        cur = [i] + [0] * len(text)
        for j in range(1, len(text) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (window[i - 1] != text[j - 1]))
        prev = cur
    return min(prev)


def _brute(inputs: list[str], query: str, length: int, edits: int) -> list[int]:
    """Per window of ``query``: how many inputs hold it within ``edits`` edits."""
    return [sum(_distance(query[x:x + length], s) <= edits for s in inputs) for x in range(len(query) - length + 1)]


def _mutated(rng: random.Random, s: str, changes: int, letters: str) -> str:
    out = list(s)
    for _ in range(changes):
        at = rng.randrange(len(out))
        op = rng.randrange(3)
        if op == 0:
            out[at] = rng.choice(letters)
        elif op == 1:
            out.insert(at, rng.choice(letters))
        elif len(out) > 1:
            del out[at]
    return "".join(out)


@st.composite
def _cases(draw):
    letters = draw(st.sampled_from(["ACGT", "ACDEFGHIKLMNPQRSTVWY"]))
    rng = random.Random(draw(st.integers(0, 10**6)))
    length = draw(st.integers(8, 24))
    edits = draw(st.integers(0, length // 4))
    base = "".join(rng.choice(letters) for _ in range(draw(st.integers(length, 60))))
    inputs = [_mutated(rng, base, draw(st.integers(0, 6)), letters) if draw(st.booleans())
              else "".join(rng.choice(letters) for _ in range(draw(st.integers(1, 60))))
              for _ in range(draw(st.integers(1, 6)))]
    queries = [_mutated(rng, base, draw(st.integers(0, 6)), letters) for _ in range(draw(st.integers(1, 3)))]
    return letters, inputs, queries, length, edits, draw(st.integers(1, 5))


@settings(max_examples=120, deadline=None)
@given(_cases())
def test_the_scan_finds_every_window_a_plain_dynamic_programme_finds(case):
    letters, inputs, queries, length, edits, k = case
    identity = 1 - (edits + 0.5) / length  # ⌊(1 − identity)·length⌋ = edits
    assert allowed_edits(length, identity) == edits
    original = SequenceSet.from_strings(inputs, alphabet="as-found" if letters == "ACGT" else "protein-25")
    index = NearCopyIndex.of(original, length, identity)
    codes = np.concatenate([[original.alphabet.index().get(c, -1) for c in q] for q in queries]).astype(np.int64)
    offsets = np.cumsum([0] + [len(q) for q in queries])
    scan = index.scan(codes, offsets, length, identity, k)
    exact = index.scan(codes, offsets, length, identity, k, exact=True)
    for i, query in enumerate(queries):
        held = _brute(list(dict.fromkeys(inputs)), query, length, edits)  # identical inputs count once
        failing = [x for x, h in enumerate(held) if 1 <= h < k]
        assert scan["windows"][i] == len(failing)
        assert (scan["first"][i], scan["last"][i]) == ((failing[0], failing[-1]) if failing else (-1, -1))
        x = int(scan["window"][i])
        assert (x in failing) if failing else x == -1
        if failing:
            assert scan["holders"][i] == held[x]
            nearest = int(scan["input"][i])
            window = query[x:x + length]
            assert _distance(window, inputs[nearest]) <= scan["edits"][i] <= edits  # an upper bound
            y = int(exact["window"][i])
            assert y in failing and exact["edits"][i] == _distance(query[y:y + length], inputs[exact["input"][i]])
            assert exact["edits"][i] <= scan["edits"][i]


@settings(max_examples=120, deadline=None)
@given(_cases(), st.data())
def test_every_tile_plan_the_bound_allows_finds_the_same_windows(case, data):
    """The seeds' bound (h whole tiles of q symbols every stride shared exactly) holds for any q and stride: the
    kernel run with a plan drawn at random finds what the plain dynamic programme finds."""
    from anonstudio.core.kernels import _nearcopy as K
    from anonstudio.core.kernels._substring import window_directory

    letters, inputs, queries, length, edits, k = case
    ranks = {c: i for i, c in enumerate(letters)}
    text = np.array([ranks[c] for s in inputs for c in s], np.int32)
    starts = np.cumsum([0] + [len(s) for s in inputs]).astype(np.int64)
    bits, pos_bits, q_max = K.key_layout(len(letters), len(text))
    plans = [(q, stride, K.tiles_held(length, edits, q, stride)) for q in range(1, min(q_max, length) + 1)
             for stride in range(1, q + 1)]
    q, stride, h = data.draw(st.sampled_from([p for p in plans if p[2] >= 1]))
    keys = np.sort(K.gram_keys(text, starts[:-1], starts[1:], q, bits, pos_bits))
    dir_bits = min(K.DIRECTORY_BITS, q * bits)
    directory = window_directory(keys, q * bits + pos_bits - dir_bits, 1 << dir_bits)
    doc_of = np.repeat(np.arange(len(inputs), dtype=np.int32), [len(s) for s in inputs])
    query = np.array([ranks[c] for s in queries for c in s], np.int32)
    offsets = np.cumsum([0] + [len(s) for s in queries]).astype(np.int64)
    out = K.near_copies(keys, directory, q * bits + pos_bits - dir_bits, pos_bits, doc_of, text, starts[:-1],
                        starts[1:], query, offsets, len(letters), bits, q, stride, min(h, K.RING + 1), length, edits,
                        k, False, 3)
    for i, s in enumerate(queries):
        held = _brute(inputs, s, length, edits)
        failing = [x for x, c in enumerate(held) if 1 <= c < k]
        assert out[i, 4] == len(failing) and out[i, 13] == (failing[0] if failing else -1)


def test_a_string_sharing_no_long_run_holds_no_near_copy():
    """The bound that lets the verifier skip strings: 60 symbols within 6 edits keep a run of 8 unbroken."""
    assert shortest_shared_run(60, 0.9) == 8
    assert shortest_shared_run(60, 0.95) == 15  # 3 edits: 57 symbols in at most 4 runs


# -- crafted near-copies are refused, naming the difference ---------------------------------------------------------
_IDS, _SEQS = protein_like(8, seed=28, mean_length=260, min_length=200, max_length=320)


def _shuffled(s: str, seed: int) -> str:
    residues = list(s)
    random.Random(seed).shuffle(residues)
    return "".join(residues)


def _every(s: str, step: int) -> str:
    """``s`` with the residue at every ``step``-th position changed (A↔G otherwise): every shared run is
    ``step - 1`` long."""
    out = list(s)
    for i in range(step - 1, len(out), step):
        out[i] = "G" if out[i] != "G" else "A"
    return "".join(out)


def _release(strings: list[str], alphabet: str = "protein-25") -> SequenceSet:
    out = SequenceSet.from_strings(strings, ids=[f"pseudo_{i + 1}" for i in range(len(strings))], alphabet=alphabet)
    out.headers = [f"pseudo_{i + 1} segment=0 group=0" for i in range(len(strings))]
    return out


def _verify(strings: list[str], inputs=None, k: int = 2, alphabet: str = "protein-25", ids=None):
    inputs = inputs if inputs is not None else _SEQS
    original = SequenceSet.from_strings(inputs, ids=ids or _IDS[:len(inputs)], alphabet=alphabet)
    return verify_pseudo_strings(original, _release(strings, alphabet), k=k, max_fragment=20,
                                 near_copy_identity=0.9, near_copy_length=60)


def _fillers(n: int) -> list[str]:
    return [_shuffled(_SEQS[i + 1], i) for i in range(n)]


def test_a_copy_with_a_substitution_every_19_residues_is_refused():
    verdict = _verify([_every(_SEQS[0], 19), *_fillers(3)])
    assert verdict.details["longest_shared_max"] < 20  # what the fragment rule missed
    assert not verdict.passed
    assert verdict.details["near_copy_strings"] == 1 and verdict.details["rare_fragment_strings"] == 0
    message = next(p for p in verdict.problems if "near-copy" in p)
    assert message.startswith(f"pseudo-string 1 ('pseudo_1') is a near-copy of input record '{_IDS[0]}': "
                              "its symbols 1-60 are within 3 edits")
    assert "identity 0.95 over 60 symbols" in message and "held by only 1 input string(s)" in message


def test_a_copy_with_insertions_and_deletions_is_refused():
    s = _SEQS[0]
    copy = s[:30] + "W" + s[30:70] + s[72:110] + "HH" + s[110:150] + s[151:]  # 3 inserted, 3 deleted
    verdict = _verify([_every(copy, 19), *_fillers(3)])
    assert any("('pseudo_1') is a near-copy of input record" in p for p in verdict.problems), verdict.problems


def test_a_near_copy_read_backwards_is_refused():
    verdict = _verify([_every(_SEQS[2], 19)[::-1], *_fillers(3)])
    message = next(p for p in verdict.problems if "near-copy" in p)
    assert message.startswith(f"pseudo-string 1 ('pseudo_1') read reversed is a near-copy of input record '{_IDS[2]}'")
    length = len(_SEQS[2])
    assert f"its symbols {length - 59}-{length} are within" in message  # positions of the published string


def test_a_window_of_60_residues_inside_a_pseudo_string_is_refused():
    host = _shuffled(_SEQS[5], 3)
    window = _every(_SEQS[4][100:160], 19)
    verdict = _verify([host[:120] + window + host[120:], *_fillers(3)])
    message = next(p for p in verdict.problems if "near-copy" in p)
    assert f"is a near-copy of input record '{_IDS[4]}': its symbols 121-180 are within 3 edits" in message
    assert "identity 0.95 over 60 symbols" in message  # the nearest of the windows held (116-175 is within 6)


@pytest.mark.parametrize("alphabet", ["dna", "protein-25"])
@pytest.mark.parametrize("how", ["complemented", "reverse-complemented"])
def test_a_dna_input_complemented_is_refused(how, alphabet):
    """Also when the job reads the DNA with the default protein alphabet: what the inputs hold decides."""
    rng = random.Random(7)
    inputs = ["".join(rng.choice("ACGT") for _ in range(150)) for _ in range(4)]
    complement = str.maketrans("ACGT", "TGCA")
    near = _every(inputs[1], 19).translate(complement)
    near = near[::-1] if how == "reverse-complemented" else near
    fillers = [_shuffled(s, 9) for s in inputs[2:]]
    verdict = _verify([near, *fillers], inputs=inputs, alphabet=alphabet, ids=["chr1", "chr2", "chr3", "chr4"])
    assert any(p.startswith(f"pseudo-string 1 ('pseudo_1') read {how} is a near-copy of input record 'chr2'")
               for p in verdict.problems), verdict.problems
    exact = _verify([inputs[1].translate(complement), *fillers], inputs=inputs, alphabet=alphabet,
                    ids=["chr1", "chr2", "chr3", "chr4"])
    assert any("read complemented is an exact copy of input record 'chr2'" in p for p in exact.problems)


@pytest.mark.parametrize("alphabet", ["dna-n", "protein-25"])
@pytest.mark.parametrize("how", ["complemented", "reverse-complemented"])
def test_dna_with_iupac_codes_is_read_complemented_too(how, alphabet):
    """Issue 39 item 6: one N (or any IUPAC ambiguity code) made the inputs "not DNA", so complemented copies of
    every input passed. IUPAC codes complement as NC-IUB 1985 pairs them (R<->Y, K<->M, B<->V, D<->H; S, W, N
    themselves)."""
    rng = random.Random(11)
    inputs = ["".join(rng.choice("ACGT") for _ in range(150)) for _ in range(4)]
    inputs[0] = inputs[0][:40] + "N" + inputs[0][41:]
    if alphabet == "protein-25":  # codes the protein alphabet also names: R, K, M, B, V, D, H, S, W, Y
        inputs[1] = inputs[1][:20] + "RKBDSWYMVH" + inputs[1][30:]
    complement = str.maketrans("ACGTRYKMBVDHSWN", "TGCAYRMKVBHDSWN")
    copy = inputs[1].translate(complement)
    copy = copy[::-1] if how == "reverse-complemented" else copy
    fillers = [_shuffled(s, 9) for s in inputs[2:]]
    ids = ["chr1", "chr2", "chr3", "chr4"]
    verdict = _verify([copy, *fillers], inputs=inputs, alphabet=alphabet, ids=ids)
    assert any(p.startswith(f"pseudo-string 1 ('pseudo_1') read {how} is an exact copy of input record 'chr2'")
               for p in verdict.problems), verdict.problems


def test_iupac_complement_table_pairs_each_code_with_its_partner():
    from anonstudio.core.privacy._readings import IUPAC_COMPLEMENT, backward_readings, reads_as_dna

    symbols = tuple("ACGTRYKMBVDHSWN-")
    codes = np.arange(len(symbols), dtype=np.uint8)
    readings = dict(backward_readings(codes, np.array([0, len(codes)]), symbols))
    assert "".join(symbols[c] for c in readings["complemented"]) == "TGCAYRMKVBHDSWN-"
    assert all(IUPAC_COMPLEMENT[IUPAC_COMPLEMENT[s]] == s for s in IUPAC_COMPLEMENT)  # an involution
    protein = tuple("ACDEFGHIKLMNPQRSTVWY")
    assert reads_as_dna(np.array([0, 1, 5, 16, 11], dtype=np.uint8), protein)  # A C G T N: DNA, alphabet aside
    assert not reads_as_dna(np.array([0, 1, 5, 16, 3], dtype=np.uint8), protein)  # an E: a protein


def test_a_stretch_held_by_k_inputs_names_none_of_them():
    """The rule is k-anonymous like the fragment rule: a window near a stretch that k inputs share passes."""
    domain = _SEQS[7][:80]
    inputs = [domain + s[80:] for s in _SEQS[:6]]
    near = _every(domain, 19)  # (a tail after it would make windows hanging past the domain held by fewer)
    assert _verify([near, *_fillers(5)], inputs=inputs, k=6).passed
    seven = _verify([near, *_fillers(6)], inputs=inputs, k=7)
    assert any("held by only 6 input string(s)" in p and "fewer than k = 7" in p for p in seven.problems)


def test_below_the_identity_or_the_length_nothing_is_refused():
    """What the rule does not see (docs/guide.md): a copy with one residue in 8 changed (≤ 88 % identity), and a
    near-copy shorter than near_copy_length."""
    assert _verify([_every(_SEQS[0], 8), *_fillers(3)]).passed
    assert _verify([_every(_SEQS[0][:59], 19), *_fillers(3)]).passed


def test_the_job_spec_carries_the_rule_to_the_verifier():
    original = SequenceSet.from_strings(_SEQS, ids=_IDS, alphabet="protein-25")
    release = _release([_every(_SEQS[0], 19), *_fillers(3)])
    spec = {"model": "pseudo-strings", "k": 2, "max_fragment": 20}
    assert verify_output(spec, original, release).passed  # the fragment rule alone misses it
    verdict = verify_output({**spec, "near_copy_identity": 0.9, "near_copy_length": 60}, original, release)
    assert not verdict.passed and verdict.details["near_copy_length"] == 60
