"""The near-copy rule for pseudo-strings: no window of a published string lies within a few edits of a stretch of
fewer than k inputs.

The fragment rule (``max_fragment``) finds exact runs; a copy of an input with a residue changed every 19
positions, or with a few residues inserted or deleted, shares no run of 20 with it and passed. This rule looks
at identity instead: a *window* is ``near_copy_length`` = L consecutive symbols of a pseudo-string; an input
*holds* it when some stretch of that input is within ``e = ⌊(1 − near_copy_identity)·L⌋`` edits of it
(substitutions, insertions and deletions, unit cost: identity ``1 − edits/L``). A window held by at least one
but fewer than ``k`` inputs narrows a reader down to fewer than k records, as a rare fragment does; one held by
``k`` or more names none of them. Inputs are counted as distinct contents: identical records (natural duplicates,
or an attacker's copies of a target in a second input file) hold a window once. Pseudo-strings shorter than L have no window. The search is exact (seeds
that no window within ``e`` edits can miss, then Myers' bit-vector alignment of each window the seeds point at:
:mod:`anonstudio.core.kernels._nearcopy`); pseudo-strings are also read reversed (DNA: complemented and
reverse-complemented too) by the verifier.

Why these defaults (measured, docs/guide.md "Protein / DNA / item sequences", ``tests/benchmarks/bench_near_copies.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anonstudio.core.data import SequenceSet
from anonstudio.core.privacy._readings import reads_reversed

#: Default window (``near_copy_length``) and identity (``near_copy_identity``) of the near-copy rule; the
#: condensation method declares the same values (a test keeps them equal).
DEFAULT_NEAR_COPY_LENGTH = 60
DEFAULT_NEAR_COPY_IDENTITY = 0.9
#: the longest window one machine word holds (Myers' algorithm aligns a window as one 64-bit word)
MAX_NEAR_COPY_LENGTH = 64

#: query strings are dealt to this many chunks (string i to chunk i % CHUNKS) that the cores share
CHUNKS = 64

#: the indexes of the inputs alive, by ``(id of the input, gram length)``, at most :data:`INDEXES_KEPT` (see
#: :func:`anonstudio.core.privacy._fragments.remember`: an index holds no reference to its input)
_INDEXES: dict[tuple[int, int], tuple[Any, NearCopyIndex]] = {}
INDEXES_KEPT = 2


def allowed_edits(length: int, identity: float) -> int:
    """``e = ⌊(1 − identity)·length⌋``: the most edits a window of ``length`` symbols may be from an input stretch
    and still count as a near-copy at ``identity``."""
    return int(math.floor((1.0 - float(identity)) * int(length) + 1e-9))


class NearCopyIndex:
    """The inputs' grams of ``q`` symbols, sorted with their places, for the near-copy search; built from the
    inputs only, once per input set and gram length (cached while the input object lives), shared by the
    method and the verifier. Built over the inputs' distinct contents: a window near ten copies of one sequence
    is near one input (holders count contents, not records); a scan names each content by its first record."""

    def __init__(self, original: SequenceSet, q: int) -> None:
        from anonstudio.core.kernels._nearcopy import DIRECTORY_BITS, gram_keys, key_layout
        from anonstudio.core.kernels._substring import window_directory

        #: what :meth:`plan` reads of the inputs (the index holds no reference to them: it lives in a cache keyed
        #: by them, which a reference back would keep alive for the life of the process)
        self._plan_of = _plan_inputs(original)
        # the inputs' distinct contents (identical sequences count once: issue 28), each named by its first record
        contents, self.record_of, _ = original.distinct()
        codes = contents.codes.astype(np.int64)
        held = np.flatnonzero(np.bincount(codes, minlength=len(original.alphabet))) if len(codes) else np.zeros(0, int)
        #: rank of each alphabet code among the symbols the inputs hold; -1: no input holds it
        self.rank = np.full(len(original.alphabet), -1, np.int32)
        self.rank[held] = np.arange(len(held), dtype=np.int32)
        self.n = max(len(held), 1)
        self.text = self.rank[codes] if len(codes) else np.zeros(0, np.int32)
        self.starts = contents.offsets[:-1].astype(np.int64)
        self.ends = contents.offsets[1:].astype(np.int64)
        self.doc_of = np.repeat(np.arange(len(contents), dtype=np.int32), np.diff(contents.offsets))
        self.bits, self.pos_bits, q_max = key_layout(self.n, len(self.text))
        self.q = min(int(q), q_max)
        self.keys = gram_keys(self.text, self.starts, self.ends, self.q, self.bits, self.pos_bits)
        self.keys.sort()
        key_bits = self.q * self.bits + self.pos_bits
        dir_bits = min(DIRECTORY_BITS, self.q * self.bits)
        self.dir_shift = key_bits - dir_bits
        self.directory = window_directory(self.keys, self.dir_shift, 1 << dir_bits)
        self._memo: dict[tuple, np.ndarray] = {}
        self._memo_bytes = 0

    @staticmethod
    def plan(original: SequenceSet, length: int, identity: float) -> tuple[int, int, int]:
        """``(q, stride, h)``: the tiles windows of ``length`` at ``identity`` are sought by over ``original``
        (:func:`~anonstudio.core.kernels._nearcopy.seed_plan`: 6-grams end to end for proteins, 8-grams every 2
        for DNA, where 6-grams have too many places)."""
        return _seed_plan(_plan_inputs(original), length, identity)

    @classmethod
    def of(cls, original: SequenceSet, length: int, identity: float) -> NearCopyIndex:
        """The index for windows of ``length`` at ``identity`` (its gram length follows from both)."""
        from anonstudio.core.privacy._fragments import remember

        q = cls.plan(original, length, identity)[0]
        key = (id(original), q)
        hit = _INDEXES.get(key)
        if hit is not None and hit[0]() is original:
            _INDEXES[key] = _INDEXES.pop(key)  # most recently used last
            return hit[1]
        index = cls(original, q)
        remember(_INDEXES, key, original, index, INDEXES_KEPT)
        return index

    #: bytes of query content whose scans are kept (a scan is a function of the inputs and the content alone:
    #: the verifier looks up what the method scanned)
    MEMO_BYTES = 64 << 20

    def scan(self, codes: np.ndarray, offsets: np.ndarray, length: int, identity: float, k: int,
             exact: bool = False) -> dict[str, np.ndarray]:
        """Near-copies in the strings ``codes[offsets[i]:offsets[i + 1]]`` (codes of the inputs' alphabet; ``-1``
        for a symbol no input holds). Per string: ``window`` (the start of the window held by 1..k-1 inputs that
        is nearest to one of them, -1: none), ``holders`` (how many hold it), ``input`` (the nearest of them),
        ``edits`` (an upper bound of its distance), ``first`` and ``last`` (the first and last windows held by
        1..k-1 inputs), ``windows`` (how many windows are held by 1..k-1
        inputs), and over all windows held by any input the smallest distance found (``nearest_edits``;
        ``length + 1``: none within the rule's edits) with its input (``nearest_input``) and window
        (``nearest_window``); ``hits``, ``aligned``, ``marked``, ``reused``: the work done (``reused``: alignments found made)."""
        length, k = int(length), int(k)
        edits = allowed_edits(length, identity)
        codes = np.asarray(codes, np.int64)
        offsets = np.asarray(offsets, np.int64)
        rule = (length, edits, k)
        nq = len(offsets) - 1
        rows = np.empty((nq, 14), np.int64)
        packed = codes.astype(np.int16 if len(self.rank) < 32767 else np.int32)  # the memo's keys
        contents = [packed[offsets[i]:offsets[i + 1]].tobytes() for i in range(nq)]
        todo = []
        for i, content in enumerate(contents):
            kept = self._memo.get((rule, content))
            if kept is None:
                todo.append(i)
            else:
                rows[i] = kept
        if todo:
            scanned = self._scan(*self._subset(codes, offsets, todo), length, identity, k, False)
            rows[np.asarray(todo, np.int64)] = scanned
            size = sum(len(contents[i]) for i in todo)
            if self._memo_bytes + size > self.MEMO_BYTES:
                self._memo.clear()
                self._memo_bytes = 0
            if size <= self.MEMO_BYTES:
                for i, row in zip(todo, scanned):
                    self._memo[(rule, contents[i])] = row
                self._memo_bytes += size
        failing = np.flatnonzero(rows[:, 0] >= 0).tolist()
        if exact and failing:  # the failing strings again, each window measured against its input in full
            rows[np.asarray(failing, np.int64)] = self._scan(*self._subset(codes, offsets, failing), length, identity,
                                                             k, True)
        names = ("window", "holders", "input", "edits", "windows", "nearest_edits", "nearest_input", "nearest_window",
                 "hits", "aligned", "marked", "reused", "last", "first")
        found = {name: rows[:, c] for c, name in enumerate(names)}
        for name in ("input", "nearest_input"):  # contents -> the input record each first appears as
            doc = found[name]
            found[name] = np.where(doc >= 0, self.record_of[np.clip(doc, 0, max(len(self.record_of) - 1, 0))], doc)
        return found

    @staticmethod
    def _subset(codes: np.ndarray, offsets: np.ndarray, which: list[int]) -> tuple[np.ndarray, np.ndarray]:
        which_a = np.asarray(which, np.int64)
        sub_offsets = np.zeros(len(which_a) + 1, np.int64)
        np.cumsum(offsets[which_a + 1] - offsets[which_a], out=sub_offsets[1:])
        sub_codes = np.concatenate([codes[offsets[i]:offsets[i + 1]] for i in which]) if which else codes[:0]
        return sub_codes, sub_offsets

    def _scan(self, codes: np.ndarray, offsets: np.ndarray, length: int, identity: float, k: int,
              exact: bool) -> np.ndarray:
        from anonstudio.core.kernels._nearcopy import RING, near_copies

        edits = allowed_edits(length, identity)
        q, stride, h = _seed_plan(self._plan_of, length, identity)
        if q != self.q:
            raise ValueError(f"this index holds {self.q}-grams; windows of {length} at {identity} need {q}-grams")
        ranks = np.where(codes >= 0, self.rank[np.clip(codes, 0, len(self.rank) - 1)], -1).astype(np.int32)
        return near_copies(self.keys, self.directory, self.dir_shift, self.pos_bits, self.doc_of, self.text,
                           self.starts, self.ends, ranks, offsets, self.n, self.bits, self.q, stride, min(h, RING + 1),
                           length, edits, k, bool(exact), CHUNKS)


def _plan_inputs(original: SequenceSet) -> tuple[int, float, int]:
    """``(symbols held, chance two symbols match, input symbols)``: what the seed plan reads of the inputs."""
    counts = np.bincount(original.codes.astype(np.int64)) if len(original.codes) else np.ones(1)
    return int(np.count_nonzero(counts)), float(((counts / max(counts.sum(), 1)) ** 2).sum()), len(original.codes)


def _seed_plan(inputs: tuple[int, float, int], length: int, identity: float) -> tuple[int, int, int]:
    from anonstudio.core.kernels._nearcopy import key_layout, seed_plan

    held, match, n_codes = inputs
    q_max = key_layout(held, n_codes)[2]
    return seed_plan(int(length), allowed_edits(length, identity), q_max, n_codes, match)


def shortest_shared_run(length: int, identity: float) -> int:
    """The longest run of symbols a window of ``length`` within the rule's edits is sure to share exactly with
    the input stretch it is near: its ``e`` edits leave ``length - e`` symbols in at most ``e + 1`` unbroken
    runs, one of them at least ``⌈(length − e)/(e + 1)⌉`` long. A string sharing no run that long with any
    input holds no near-copy (the fragment index knows each string's longest shared run)."""
    edits = allowed_edits(length, identity)
    return max(1, -(-(int(length) - edits) // (edits + 1)))


def near_copies(original: SequenceSet, views: list[tuple[str, np.ndarray, np.ndarray, np.ndarray | None]], k: int,
                identity: float, length: int, nearest: bool = True) -> list[dict[str, Any]]:
    """The near-copy rule over several readings of the same published strings.

    ``views``: ``(how, codes, offsets, shared)`` — the strings as read one way (``how``: ``""`` forwards,
    ``" read reversed"`` …; codes of the inputs' alphabet, -1 for a symbol no input holds, the same number of
    strings in each view and each string's length unchanged) and, optionally, each string's longest run
    shared with any input (strings sharing less than :func:`shortest_shared_run` are not scanned). Returns,
    per string that fails (its first failing reading), ``string``, ``how``, ``start`` and ``end`` (1-based, in
    the published string) of the window held by 1..k-1 inputs nearest to one of them (the first of equals),
    ``input`` (that input), ``edits`` (the window's distance to it: with ``nearest`` exact, else an upper
    bound, and the window chosen by the bounds), ``holders``, ``windows`` (windows held by 1..k-1 inputs in that reading)
    and ``span`` (0-based, end excluded: the published symbols those windows cover)."""
    if not len(original) or not views:
        return []
    lengths = np.diff(views[0][2])
    if not np.any(lengths >= int(length)):
        return []  # no window at all: no index needed
    index = NearCopyIndex.of(original, length, identity)
    floor = shortest_shared_run(length, identity)
    found: dict[int, dict[str, Any]] = {}
    for how, codes, offsets, shared in views:
        todo = lengths >= int(length)
        if shared is not None:
            todo &= np.asarray(shared) >= floor
        todo[list(found)] = False
        which = np.flatnonzero(todo)
        if not len(which):
            continue
        sub_offsets = np.zeros(len(which) + 1, np.int64)
        np.cumsum(lengths[which], out=sub_offsets[1:])
        sub_codes = np.concatenate([codes[offsets[j]:offsets[j + 1]] for j in which.tolist()])
        scan = index.scan(sub_codes, sub_offsets, length, identity, k, exact=nearest)
        for r in np.flatnonzero(scan["window"] >= 0).tolist():
            j = int(which[r])
            doc = int(scan["input"][r])
            first, last = int(scan["first"][r]), int(scan["last"][r])
            x, edits = int(scan["window"][r]), int(scan["edits"][r])
            if reads_reversed(how.replace(" read ", "")):  # positions in the published string
                start = int(lengths[j]) - x - int(length) + 1
                span = (int(lengths[j]) - last - int(length), int(lengths[j]) - first)
            else:
                start = x + 1
                span = (first, last + int(length))
            found[j] = {"string": j, "how": how, "start": start, "end": start + int(length) - 1, "input": doc,
                        "edits": edits, "holders": int(scan["holders"][r]), "windows": int(scan["windows"][r]),
                        "span": span}
    return [found[j] for j in sorted(found)]
