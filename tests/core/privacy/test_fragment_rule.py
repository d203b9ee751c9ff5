"""Issue 11 items 5 and 6: condensation output is checked for missing group tags, small groups and rare
fragments (the k-anonymous fragment rule), and condensation avoids rare fragments when it generates.

On 05ef630 ``anonstudio verify`` caught exact copies only: an input minus one residue, ``M`` + an input, or
headers without ``group=`` all passed, and yeast 6,049 at k = 20 published fragments of up to 154 residues
found in a single protein."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core import io, jobs
from anonstudio.core.algorithms import get
from anonstudio.core.data import SequenceSet
from anonstudio.core.privacy import FragmentIndex, verify_pseudo_strings


def _brute(inputs: list[str], query: str, L: int, k: int) -> int:
    """Longest substring of ``query`` of length ≥ L held by 1..k-1 distinct inputs (0 if none): identical
    inputs count once (issue 28)."""
    best = 0
    for i in range(len(query)):
        for j in range(i + L, len(query) + 1):
            held = sum(query[i:j] in s for s in set(inputs))
            if 1 <= held < k:
                best = max(best, j - i)
    return best


@given(
    inputs=st.lists(st.text(alphabet="ACGT", min_size=1, max_size=12), min_size=1, max_size=6),
    queries=st.lists(st.text(alphabet="ACGT", min_size=1, max_size=12), min_size=1, max_size=4),
    L=st.integers(1, 5),
    k=st.integers(1, 4),
)
@settings(max_examples=150, deadline=None)
def test_rare_fragments_equal_a_brute_force_count(inputs, queries, L, k):
    original = SequenceSet.from_strings(inputs, alphabet="dna")
    query = SequenceSet.from_strings(queries, alphabet="dna")
    scan = FragmentIndex(original).rare_fragments(query, L, k)
    assert scan["longest"].tolist() == [_brute(inputs, q, L, k) for q in queries]
    shared = [max((j - i for i in range(len(q)) for j in range(i + 1, len(q) + 1) if any(q[i:j] in s for s in inputs)),
                  default=0) for q in queries]
    assert scan["shared"].tolist() == shared


PROTEINS = [
    "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ",
    "MSDNGPQNQRNAPRITFGGPSDSTGSNQNGERSGARSKQRRPQGLPNNTASWFTALTQHGKEDLK",
    "MGSSHHHHHHSSGLVPRGSHMASMTGGQQMGRGSEFELRRQACGRTRAPPPPPLRSGCSSWTPS",
    "MAHHHHHHVDDDDKMLSIQHFRVALIPFFAAFCLPVFAHPETLVKVKDAEDQLGARVGYIELDLN",
]


def _scrambled(s: str) -> str:
    """An innocent pseudo-string from ``s``'s residues: a fixed shuffle (a reversed input would be a copy read
    backwards, which the verifier refuses)."""
    import random

    residues = list(s)
    random.Random(len(s)).shuffle(residues)
    return "".join(residues)


def _pseudo(strings, groups=None) -> SequenceSet:
    out = SequenceSet.from_strings(strings, ids=[f"pseudo_{i + 1}" for i in range(len(strings))], alphabet="protein-25")
    if groups is not None:
        out.headers = [f"pseudo_{i + 1} segment=0 group={g}" for i, g in enumerate(groups)]
    return out


@pytest.mark.parametrize(
    "tamper",
    [lambda s: s[:30] + s[31:], lambda s: "M" + s, lambda s: s[5:]],
    ids=["minus-one-residue", "M-plus-input", "input-minus-its-first-five"],
)
def test_near_copies_of_one_input_fail_the_fragment_rule(tamper):
    original = SequenceSet.from_strings(PROTEINS, alphabet="protein-25")
    output = _pseudo([tamper(PROTEINS[0]), *map(_scrambled, PROTEINS[1:])], [0, 0, 1, 1])
    v = verify_pseudo_strings(original, output, k=2, max_fragment=20)
    assert not v.passed
    assert any("occurs in only 1 input string(s), fewer than k = 2" in p for p in v.problems)
    assert v.details["rare_fragment_strings"] == 1


def test_a_fragment_held_by_k_inputs_is_allowed():
    motif = "WWWWCCCCWWWWCCCCWWWWCCCC"
    original = SequenceSet.from_strings([p + motif for p in PROTEINS], alphabet="protein-25")
    output = _pseudo([motif + "A", motif + "G", _scrambled(PROTEINS[2]), _scrambled(PROTEINS[3])], [0, 0, 0, 0])
    assert verify_pseudo_strings(original, output, k=4, max_fragment=20).passed  # the motif is in all 4 inputs
    five = verify_pseudo_strings(original, output, k=5, max_fragment=20)
    assert any("occurs in only 4 input string(s), fewer than k = 5" in p for p in five.problems)


def test_missing_group_tags_fail_instead_of_skipping_the_k_check():
    original = SequenceSet.from_strings(PROTEINS, alphabet="protein-25")
    output = _pseudo([_scrambled(p) for p in PROTEINS])  # headers without group=
    v = verify_pseudo_strings(original, output, k=2)
    assert not v.passed and any("does not say which group" in p for p in v.problems)
    assert not verify_pseudo_strings(original, _pseudo([_scrambled(p) for p in PROTEINS], [0, 0, 0, 1]), k=2).passed


def test_verify_job_fails_on_tampered_condensation_output(tmp_path, repo_root):
    """The CLI's verify, on a real run's output: tags deleted, or one pseudo-string replaced by an input
    with one residue removed, must both fail (exit 1)."""
    from anonstudio.cli.main import main

    src = repo_root / "anonstudio" / "resources" / "demo" / "proteins.fasta"
    (tmp_path / "in.fasta").write_bytes(src.read_bytes())
    job = tmp_path / "job.toml"
    job.write_text('[input]\npath = "in.fasta"\n[algorithm]\nname = "condensation"\nk = 10\n'
                   '[output]\npath = "out.fasta"\n', encoding="utf-8")
    assert main(["run", str(job), "--quiet"]) == 0
    assert main(["verify", str(job)]) == 0
    out = tmp_path / "out.fasta"
    text = out.read_text()
    out.write_text(text.replace(" group=", " g="))
    assert main(["verify", str(job)]) == 1
    original = io.read_fasta(tmp_path / "in.fasta")
    first = "".join(original.alphabet.symbols[c] for c in original.codes_of(0))
    near = first[:10] + first[11:]
    header, rest = text.split("\n", 1)[0], text.split("\n>", 1)[1]
    out.write_text(f"{header}\n{near}\n>{rest}")
    assert main(["verify", str(job)]) == 1


@pytest.mark.realdata
@pytest.mark.slow
def test_yeast_6049_at_k20_publishes_no_rare_fragment(shared_data):
    data = io.read_fasta(shared_data / "proteins" / "yeast_swissprot_6049.fasta")
    outcome = jobs.anonymize(data, {}, get("condensation")(k=20, seed=1))
    v = outcome.report["verification"]
    assert v["passed"] and v["details"]["max_fragment"] == 20 and v["details"]["rare_fragment_strings"] == 0
    # generation met rare fragments (transposon families) and broke them
    assert outcome.report["metrics"]["rare_fragment_strings_drawn"] > 0
    index = FragmentIndex.of(data)
    scan = index.rare_fragments(outcome.result.output, 20, 20)
    assert int(scan["longest"].max()) == 0
    assert np.all(scan["shared"] >= 0)


@pytest.mark.parametrize("alphabet, inputs, how", [
    ("protein-25", PROTEINS, "reversed"),
    ("dna", ["ACGTTGCAAGGCTTACCGATGCATGCAAGTCCGATTACG", "TTGACCGGTAACGTTAGCCATGGCAATCGGATCCGTAAC"],
     "reverse-complemented"),
])
def test_an_input_read_backwards_is_a_copy(alphabet, inputs, how):
    """An input published reversed (or, for DNA, as its reverse complement) passed: no forward run of 20
    symbols was shared, yet any reader turns it back (third false-pass hunt, 2026-11-26)."""
    flip = {"reversed": lambda s: s[::-1],
            "reverse-complemented": lambda s: s[::-1].translate(str.maketrans("ACGT", "TGCA"))}[how]
    original = SequenceSet.from_strings(inputs, alphabet=alphabet)
    out = SequenceSet.from_strings([flip(inputs[0]), _scrambled(inputs[1])], ids=["pseudo_1", "pseudo_2"],
                                   alphabet=alphabet)
    out.headers = ["pseudo_1 segment=0 group=0", "pseudo_2 segment=0 group=0"]
    verdict = verify_pseudo_strings(original, out, k=2, max_fragment=20)
    assert not verdict.passed
    assert any(f"read {how} is an exact copy" in p for p in verdict.problems)
    assert any(f"read {how} contains a fragment" in p for p in verdict.problems)


_UNIPROT = [f"sp|P12340{i}|GENE{i}_HUMAN" for i in range(4)]


@pytest.mark.parametrize("extra, named", [
    ("P123400", True), ("P123400.2", True), ("acc=P123400", True), ("GENE0_HUMAN", True), ("gene0", True),
    ("src_p123400", True), ("sp|P123400|GENE0_HUMAN", True), ("HUMAN", False), ("sp", False), ("", False),
])
def test_a_header_naming_an_input_by_a_piece_of_its_id_fails(extra, named):
    """Only the whole 'sp|P123400|GENE0_HUMAN' was caught: the accession alone, a version suffix, the entry
    name, any case or an identifier glued to other text passed (third false-pass hunt, 2026-11-26). Pieces
    every input shares ('sp', 'HUMAN') name nobody."""
    original = SequenceSet.from_strings(PROTEINS, ids=_UNIPROT, headers=[f"{i} Protein number {n}" for n, i in
                                                                         enumerate(_UNIPROT)], alphabet="protein-25")
    out = _pseudo([_scrambled(p) for p in PROTEINS], [0, 0, 0, 0])
    out.headers[0] = f"pseudo_1 segment=0 group=0 {extra}".strip()
    verdict = verify_pseudo_strings(original, out, k=2, max_fragment=20)
    assert verdict.passed is not named
    if named:
        assert any("its header names input record 'sp|P123400|GENE0_HUMAN'" in p for p in verdict.problems)


def test_a_sequence_written_into_a_header_fails():
    """'note=<the input's residues>' in a header passed: headers were never scanned for residues."""
    original = SequenceSet.from_strings(PROTEINS, alphabet="protein-25")
    out = _pseudo([_scrambled(p) for p in PROTEINS], [0, 0, 0, 0])
    out.headers[1] += " note=" + PROTEINS[2][10:40].lower()
    verdict = verify_pseudo_strings(original, out, k=2, max_fragment=20)
    assert not verdict.passed
    assert any("'pseudo_2'): its header carries a run of 30 symbols" in p for p in verdict.problems)
    out.headers[1] = "pseudo_2 segment=0 group=0 note=SEQUENCEFROMNOWHEREATALL"  # letters no input holds
    assert verify_pseudo_strings(original, out, k=2, max_fragment=20).passed
