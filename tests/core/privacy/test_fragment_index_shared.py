"""Issue 17 item 5: the inputs' fragment index is built once a run and shared by the condensation run, the
verifier and the fragment metric. Sharing it (and the scans it keeps per query content) must not change a
verdict: the shared index answers exactly as one built afresh, and a pseudo-string that copies a rare fragment
is refused either way."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from anonstudio.core.algorithms import get
from anonstudio.core.data import SequenceSet
from anonstudio.core.metrics import fragment_leak
from anonstudio.core.privacy import FragmentIndex, verify_pseudo_strings

AA = "ACDEFGHIKLMNPQRSTVWY"


def _random_strings(rng, n, lo, hi, letters=AA):
    return ["".join(rng.choice(list(letters), int(m))) for m in rng.integers(lo, hi, n)]


def _tagged(strings, groups):
    out = SequenceSet.from_strings(strings, ids=[f"pseudo_{i + 1}" for i in range(len(strings))], alphabet="protein-20")
    out.headers = [f"pseudo_{i + 1} segment=0 group={g}" for i, g in enumerate(groups)]
    return out


def _fresh(original: SequenceSet) -> SequenceSet:
    """The same strings in a new object: :meth:`FragmentIndex.of` builds a new index for it."""
    return copy.deepcopy(original)


def _same_scan(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(7)
    strings = _random_strings(rng, 60, 40, 200)
    common = "WWHHCCMMWWHHCCMMWWHHCCMMWW"  # 26 residues held by 6 inputs
    strings = [s + common if i % 10 == 0 else s for i, s in enumerate(strings)]
    return SequenceSet.from_strings(strings, alphabet="protein-20")


def test_shared_index_gives_the_fresh_verdict_and_refuses_a_copied_rare_fragment(inputs):
    rng = np.random.default_rng(3)
    clean = _random_strings(rng, 12, 40, 200)
    rare = inputs.sequence(5)[10:40]  # 30 residues of one input: a rare fragment for k = 4, L = 20
    leaking = list(clean)
    leaking[7] = leaking[7][:15] + rare + leaking[7][15:]
    groups = [i // 4 for i in range(12)]
    shared = FragmentIndex.of(inputs)
    # the run scans first (as condensation does), then the verifier and the metric use the same index
    shared.rare_fragments(_tagged(clean, groups), 20, 4)
    for strings, passes in ((clean, True), (leaking, False)):
        out = _tagged(strings, groups)
        v_shared = verify_pseudo_strings(inputs, out, k=4, max_fragment=20)
        v_fresh = verify_pseudo_strings(_fresh(inputs), _tagged(strings, groups), k=4, max_fragment=20)
        assert v_shared.passed is v_fresh.passed is passes
        assert v_shared.problems == v_fresh.problems
        assert v_shared.details == v_fresh.details
        _same_scan(shared.rare_fragments(out, 20, 4), FragmentIndex(inputs).rare_fragments(out, 20, 4))
    v = verify_pseudo_strings(inputs, _tagged(leaking, groups), k=4, max_fragment=20)
    assert v.details["rare_fragment_strings"] == 1
    assert v.details["longest_shared_max"] >= 30
    assert any("pseudo_8" in p and "fewer than k = 4" in p for p in v.problems)
    # a fragment held by 6 inputs is allowed at k = 4, refused at k = 7, shared index or not
    common = _tagged(["WWHHCCMMWWHHCCMMWWHHCCMMWW" + clean[0][:10]] + clean[1:], groups)  # inputs end with it
    assert verify_pseudo_strings(inputs, common, k=4, max_fragment=20).passed
    assert not verify_pseudo_strings(inputs, common, k=7, max_fragment=20).passed
    assert not verify_pseudo_strings(_fresh(inputs), common, k=7, max_fragment=20).passed


def test_kept_scans_follow_the_content_not_the_object(inputs):
    """The index keeps scans under a digest of the query's content: changing one residue in place of an
    already scanned output must be seen."""
    rng = np.random.default_rng(11)
    strings = _random_strings(rng, 8, 50, 120)
    out = _tagged(strings, [0] * 4 + [1] * 4)
    assert verify_pseudo_strings(inputs, out, k=4, max_fragment=20).passed
    rare = SequenceSet.from_strings([inputs.sequence(9)[:25]], alphabet="protein-20").codes
    out.codes[out.offsets[2]:out.offsets[2] + 25] = rare  # same object, same lengths, new content
    v = verify_pseudo_strings(inputs, out, k=4, max_fragment=20)
    assert not v.passed and v.details["rare_fragment_strings"] == 1
    assert v.details == verify_pseudo_strings(_fresh(inputs), out, k=4, max_fragment=20).details


@pytest.mark.parametrize("n_letters", [4, 20, 300])
def test_every_path_of_the_index_matches_a_fresh_automaton_scan(n_letters):
    """Small alphabets (long k-mer windows), proteins and item alphabets (windows of a few symbols, so most
    strings go to the automaton): the k-mer side plus the automaton give what the automaton alone gives."""
    from anonstudio.core.kernels import _substring as S

    rng = np.random.default_rng(n_letters)
    letters = [f"i{j}" for j in range(n_letters)] if n_letters > 26 else list(AA[:n_letters])
    inputs = [list(rng.choice(letters, int(m))) for m in rng.integers(5, 80, 40)]
    queries = [list(rng.choice(letters, int(m))) for m in rng.integers(1, 60, 30)]
    queries += [inputs[3][2:30], inputs[5] + inputs[6][:4], inputs[7][::-1]]
    original = SequenceSet.from_strings(inputs)
    query = SequenceSet.from_strings(queries)  # its own alphabet, mapped into the inputs' one
    index = FragmentIndex(original)
    text = index._text
    auto = S.build_suffix_automaton(text, index.sigma, 3, 1000)
    counts = S.document_counts(*auto, text, index._starts, index._ends)
    codes = index._codes(query)
    for L, k in ((1, 2), (3, 2), (5, 3), (20, 2)):
        want = S.rare_fragments(*auto, counts, codes, query.offsets.astype(np.int64), L, k)
        got = index.rare_fragments(query, L, k)
        for key, w in zip(("longest", "inputs", "first_end", "positions", "shared"), want):
            assert np.array_equal(got[key], w), (L, k, key)
    assert np.array_equal(index.longest_shared(query), want[4])


def test_condensation_run_verifier_and_metric_share_one_index(monkeypatch):
    import sys

    P = sys.modules["anonstudio.core.privacy._fragments"]

    rng = np.random.default_rng(5)
    data = SequenceSet.from_strings(_random_strings(rng, 80, 30, 60), alphabet="protein-20")
    builds = []
    real = P.FragmentIndex.__init__

    def counting(self, original):
        builds.append(id(original))
        real(self, original)

    monkeypatch.setattr(P.FragmentIndex, "__init__", counting)
    alg = get("condensation")(k=5, seed=1)
    res = alg.run(data, {})
    assert verify_pseudo_strings(data, res.output, k=5, max_fragment=20).passed
    fragment_leak(data, res.output)
    # one index of the data (a prefetch may also build one of a few symbols, once per process, to load the
    # background build's kernels on the calling thread)
    assert [b for b in builds if b == id(data)] == [id(data)]


def test_the_automaton_of_the_inputs_holding_the_windows_answers_as_the_automaton_of_all():
    """Yeast-like case: a few inputs share long runs with the queries, most share nothing. The automaton is
    then built over those few inputs only; its lengths and input counts on matches of the window length or
    more are those of all inputs, so every answer is the full automaton's."""
    from anonstudio.core.kernels import _substring as S

    rng = np.random.default_rng(21)
    inputs = _random_strings(rng, 200, 60, 150)
    family = "".join(rng.choice(list(AA), 40))
    for i in (3, 50, 51, 52, 120):  # a family of 5 inputs holds a 40-residue run (rare at k = 6, not at k = 5)
        inputs[i] = inputs[i][:20] + family + inputs[i][20:]
    queries = _random_strings(rng, 30, 40, 120)
    queries[4] = queries[4][:10] + family[:25] + queries[4][10:]
    queries[9] = queries[9][:5] + inputs[77][10:45]  # a run of one input
    queries[11] = inputs[8][:13] + "W" + inputs[9][30:50]  # just the window length, then another input
    original = SequenceSet.from_strings(inputs, alphabet="protein-20")
    query = SequenceSet.from_strings(queries, alphabet="protein-20")
    index = FragmentIndex(original)
    auto = S.build_suffix_automaton(index._text, index.sigma, 3, 1000)
    counts = S.document_counts(*auto, index._text, index._starts, index._ends)
    codes = index._codes(query)
    for L, k in ((20, 6), (20, 5), (12, 2), (25, 20), (13, 3)):
        want = S.rare_fragments(*auto, counts, codes, query.offsets.astype(np.int64), L, k)
        got = index.rare_fragments(query, L, k)
        for key, w in zip(("longest", "inputs", "first_end", "positions", "shared"), want):
            assert np.array_equal(got[key], w), (L, k, key)
    held = index._subset[0]
    assert 0 < held.sum() < len(inputs) // 4  # the few inputs holding the queries' windows
    assert index._automaton is None  # the automaton of all inputs was never needed
    assert index.rare_fragments(query, 20, 6)["longest"][4] == 25  # held by 5 inputs: rare at k = 6
    assert index.rare_fragments(query, 20, 5)["longest"][4] == 0


def test_progress_goes_on_while_the_automaton_builds_and_cancel_stops_the_wait(inputs, monkeypatch):
    import sys

    from anonstudio.core.progress import Cancelled

    P = sys.modules["anonstudio.core.privacy._fragments"]
    real = P._automaton_of

    def slow(*args):
        import time

        time.sleep(0.45)
        return real(*args)

    monkeypatch.setattr(P, "_automaton_of", slow)
    query = _tagged([inputs.sequence(5)[10:40], inputs.sequence(7)[:30]], [0, 0])
    ticks = []
    codes = FragmentIndex(inputs)._codes(query)
    got = FragmentIndex(inputs).rare_fragments_of(codes, query.offsets.astype(np.int64), 20, 4,
                                                  tick=lambda: ticks.append(1))
    assert len(ticks) >= 2 and got["longest"].tolist() == [30, 30]

    def cancel():
        raise Cancelled()

    with pytest.raises(Cancelled):
        FragmentIndex(inputs).rare_fragments_of(codes, query.offsets.astype(np.int64), 20, 4, tick=cancel)


def test_strings_taken_a_chunk_at_a_time_give_the_same_answers_and_progress_between(inputs, monkeypatch):
    rng = np.random.default_rng(13)
    strings = _random_strings(rng, 10, 30, 90)
    strings[6] = strings[6][:5] + inputs.sequence(5)[10:40]  # a rare fragment in the third chunk
    out = _tagged(strings, [0] * 5 + [1] * 5)
    whole = FragmentIndex(inputs).rare_fragments(out, 20, 4)
    monkeypatch.setattr(FragmentIndex, "CHUNK", 3)
    index = FragmentIndex(inputs)
    ticks = []
    chunked = index.rare_fragments_of(index._codes(out), out.offsets.astype(np.int64), 20, 4,
                                      tick=lambda: ticks.append(1))
    _same_scan(whole, chunked)
    assert chunked["longest"][6] == 30 and len(ticks) >= 3  # between the 4 chunks


def test_a_background_build_runs_only_kernels_this_thread_loaded_first(monkeypatch):
    """numba adding code to its JIT on one thread while another runs a kernel can crash the process (numba
    issues 10563, 10614, open; a precaution). So before a prefetch starts its
    thread, the calling thread builds both sides for a few symbols — loading, or compiling, every kernel the
    background build will call — and the background thread comes second."""
    import sys
    import threading

    P = sys.modules["anonstudio.core.privacy._fragments"]
    monkeypatch.setattr(P, "_KERNELS_LOADED", False)
    calls = []
    kmer, built = P.FragmentIndex._kmer_side, P.FragmentIndex._built

    def spy(real, side):
        def wrapped(self):
            calls.append((threading.current_thread().name, side, len(self._codes32)))  # the distinct inputs
            return real(self)
        return wrapped

    monkeypatch.setattr(P.FragmentIndex, "_kmer_side", spy(kmer, "k-mer"))
    monkeypatch.setattr(P.FragmentIndex, "_built", spy(built, "automaton"))
    rng = np.random.default_rng(9)
    data = SequenceSet.from_strings(_random_strings(rng, 40, 30, 60), alphabet="protein-20")
    index = P.FragmentIndex(data).prefetch(automaton=True)
    index._thread.join()
    here = threading.current_thread().name
    assert calls[:2] == [(here, "k-mer", 16), (here, "automaton", 16)]
    assert calls[2:] == [("fragment-index", "k-mer", len(data.codes)), ("fragment-index", "automaton", len(data.codes))]
    # once per process: the next prefetch starts its thread at once
    calls.clear()
    P.FragmentIndex(data).prefetch(automaton=True)._thread.join()
    assert [c[0] for c in calls] == ["fragment-index", "fragment-index"]


def test_the_index_caches_release_their_inputs_and_keep_a_bounded_number():
    """Issue 44 item 1: the fragment and near-copy indexes are cached per input object, and the cache let go of
    neither (the index held its input, the cache held the index: 5 of 5 inputs alive after ``del``, ~29 MB per
    300-protein index). Now an input freed by its last owner takes its indexes with it, and however many input
    sets come and go, the caches keep at most a few."""
    import gc
    import sys
    import weakref

    from anonstudio.core.privacy._near_copies import NearCopyIndex

    # the package defines functions named like these submodules: the modules themselves
    _fragments = sys.modules["anonstudio.core.privacy._fragments"]
    _near_copies = sys.modules["anonstudio.core.privacy._near_copies"]

    rng = np.random.default_rng(11)
    refs, alive = [], []
    for i in range(5):
        inputs = SequenceSet.from_strings(_random_strings(rng, 30, 80, 160), alphabet="protein-20")
        FragmentIndex.of(inputs).longest_shared(_tagged(_random_strings(rng, 3, 40, 60), [0, 0, 0]))
        NearCopyIndex.of(inputs, 60, 0.9)
        refs.append(weakref.ref(inputs))
        alive.append(inputs)  # all five alive at once: the caches still keep only the latest few
        assert len(_fragments._INDEXES) <= _fragments.INDEXES_KEPT and len(_near_copies._INDEXES) <= _near_copies.INDEXES_KEPT
    assert FragmentIndex.of(alive[-1]) is _fragments._INDEXES[id(alive[-1])][1]  # the latest is kept
    del inputs, alive
    gc.collect()
    assert [r() for r in refs] == [None] * 5
    for cache in (_fragments._INDEXES, _near_copies._INDEXES):  # each freed input's entries went with it
        assert all(ref() is not None for ref, _ in cache.values())


def test_a_freed_input_whose_id_is_reused_never_gets_its_predecessors_index():
    """The caches are keyed by ``id``; a new object at a freed one's address builds its own index."""
    rng = np.random.default_rng(5)
    first = SequenceSet.from_strings(_random_strings(rng, 10, 60, 80), alphabet="protein-20")
    index = FragmentIndex.of(first)
    key = id(first)
    del first
    for _ in range(50):
        other = SequenceSet.from_strings(_random_strings(rng, 10, 60, 80), alphabet="protein-20")
        if id(other) == key:
            assert FragmentIndex.of(other) is not index
            break
        del other
