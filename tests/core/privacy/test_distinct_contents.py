"""Issue 28, last false pass of the pseudo-string rules: the fragment and near-copy rules counted input *records*
holding a fragment, so ten copies of one protein in a second input file counted as ten people and a near-copy of
it passed at k = 10. Both rules now count distinct contents: a set with a repeated sequence is judged exactly as
the set without the copy, and every message still names a real input record (the first holding the content)."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core.data import SequenceSet
from anonstudio.core.privacy import FragmentIndex, NearCopyIndex, verify_pseudo_strings

LETTERS = "ACDEFGHIKLMNPQRSTVWY"


def _protein(rng: random.Random, n: int) -> str:
    return "M" + "".join(rng.choice(LETTERS) for _ in range(n - 1))


def _every_19(s: str) -> str:
    """``s`` with a residue changed every 19 positions: no run of 20 shared, 95 % identical over 60."""
    out = list(s)
    for i in range(18, len(out), 19):
        out[i] = "G" if out[i] != "G" else "A"
    return "".join(out)


def test_distinct_names_each_content_by_its_first_record():
    data = SequenceSet.from_strings(["MKV", "MAA", "MKV", "MKV", "MCC"], ids=list("abcde"), alphabet="protein-20")
    contents, first, content_of = data.distinct()
    assert contents.ids == ["a", "b", "e"] and contents.strings() == ["MKV", "MAA", "MCC"]
    assert first.tolist() == [0, 1, 4] and content_of.tolist() == [0, 1, 0, 0, 2]
    unique = SequenceSet.from_strings(["MKV", "MAA"], alphabet="protein-20")
    assert unique.distinct()[0] is unique  # nothing repeats: the set itself


def test_copies_of_a_target_do_not_make_its_near_copy_common():
    """The hunt's attack, small: a target and k - 1 copies of it (another file's records) are k records but one
    content, so a near-copy of the target fails; k distinct relatives of it would not."""
    rng = random.Random(28)
    target = _protein(rng, 90)
    others = [_protein(rng, 90) for _ in range(5)]
    out = SequenceSet.from_strings([_every_19(target)] + [_protein(rng, 90) for _ in range(4)],
                                   ids=[f"pseudo_{i + 1}" for i in range(5)], alphabet="protein-20")
    out.extra["groups"] = np.zeros(5, np.int64)
    rules = {"k": 5, "max_fragment": 20, "near_copy_identity": 0.9, "near_copy_length": 60}
    copies = SequenceSet.from_strings([target, *others, *[target] * 4],
                                      ids=["P1", *[f"P{i + 2}" for i in range(5)], *[f"ref{i}" for i in range(4)]],
                                      alphabet="protein-20")
    v = verify_pseudo_strings(copies, out, **rules)
    assert not v.passed
    assert any("near-copy of input record 'P1'" in p and "held by only 1 input string(s)" in p for p in v.problems)
    # five distinct relatives of the target (one residue apart each) do make it common at k = 5
    relatives = [target] + [target[:10 * i] + ("W" if target[10 * i] != "W" else "Y") + target[10 * i + 1:]
                            for i in range(1, 5)]
    family = SequenceSet.from_strings(relatives + others, alphabet="protein-20")
    assert verify_pseudo_strings(family, out, **rules).passed


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 4), repeats=st.lists(st.integers(1, 4), min_size=1, max_size=4))
def test_a_repeated_sequence_is_judged_as_the_set_without_its_copies(seed, k, repeats):
    """Both indexes and the verifier give the same answer for a set and for that set with some sequences repeated
    (copies appended after their originals, under other ids): longest rare fragment, its holders, the near-copy
    window, its holders and the record it names, and every problem message."""
    rng = random.Random(seed)
    base = [_protein(rng, rng.randint(70, 110)) for _ in range(6)]
    base.append(base[0][:40] + _protein(rng, 50))  # shares a run of 40 with base[0]: held by two contents
    ids = [f"P{i + 1}" for i in range(len(base))]
    repeated = list(base)
    copy_ids = list(ids)
    for n, times in enumerate(repeats):
        which = rng.randrange(len(base))
        repeated += [base[which]] * times
        copy_ids += [f"copy{n}_{t}" for t in range(times)]
    queries = [_every_19(base[0]), base[0][5:45] + _protein(rng, 40), _every_19(base[3])[::-1],
               base[6][:30] + _protein(rng, 60), _protein(rng, 80)]
    out = SequenceSet.from_strings(queries, ids=[f"pseudo_{i + 1}" for i in range(len(queries))],
                                   alphabet="protein-20")
    out.extra["groups"] = np.zeros(len(queries), np.int64)
    plain = SequenceSet.from_strings(base, ids=ids, alphabet="protein-20")
    doubled = SequenceSet.from_strings(repeated, ids=copy_ids, alphabet="protein-20")

    fragments = [FragmentIndex.of(s).rare_fragments(out, 20, k) for s in (plain, doubled)]
    for name in ("longest", "inputs", "first_end", "positions", "shared"):
        assert fragments[0][name].tolist() == fragments[1][name].tolist(), name
    codes, offsets = out.codes.astype(np.int64), out.offsets.astype(np.int64)
    scans = [NearCopyIndex.of(s, 60, 0.9).scan(codes, offsets, 60, 0.9, k, exact=True) for s in (plain, doubled)]
    for name in ("window", "holders", "edits", "windows", "nearest_edits", "nearest_window", "first", "last"):
        assert scans[0][name].tolist() == scans[1][name].tolist(), name
    for name in ("input", "nearest_input"):  # the same record named (copies come after their originals)
        assert [plain.ids[d] if d >= 0 else None for d in scans[0][name].tolist()] == \
               [doubled.ids[d] if d >= 0 else None for d in scans[1][name].tolist()], name
    rules = {"k": k, "max_fragment": 20, "near_copy_identity": 0.9, "near_copy_length": 60}
    verdicts = [verify_pseudo_strings(s, out, **rules) for s in (plain, doubled)]
    assert verdicts[0].passed == verdicts[1].passed
    assert verdicts[0].problems == verdicts[1].problems
    assert not verdicts[0].passed  # the near-copy of P1 fails whatever k: one content holds it
