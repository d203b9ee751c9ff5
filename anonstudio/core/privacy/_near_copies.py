"""The near-copy rule for pseudo-strings: no window of a published string lies within a few edits of a stretch of
fewer than k inputs.

The fragment rule (``max_fragment``) finds exact runs; a copy of an input with a residue changed every 19
positions, or with a few residues inserted or deleted, shares no run of 20 with it and passed. This rule looks
at identity instead: a *window* is ``near_copy_length`` = L consecutive symbols of a pseudo-string; an input
*holds* it when some stretch of that input is within ``e = ⌊(1 − near_copy_identity)·L⌋`` edits of it
(substitutions, insertions and deletions, unit cost: identity ``1 − edits/L``). A window held by at least one
but fewer than ``k`` inputs narrows a reader down to fewer than k records, as a rare fragment does; one held by
``k`` or more names none of them. Pseudo-strings shorter than L have no window. The search is exact (seeds
that no window within ``e`` edits can miss, then Myers' bit-vector alignment of each window the seeds point at:
:mod:`anonstudio.core.kernels._nearcopy`); pseudo-strings are also read reversed (DNA: complemented and
reverse-complemented too) by the verifier.

Why these defaults (measured, README "Protein / DNA / item sequences", ``tests/benchmarks/bench_near_copies.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anonstudio.core.data import SequenceSet

#: Default window (``near_copy_length``) and identity (``near_copy_identity``) of the near-copy rule; the
#: condensation method declares the same values (a test keeps them equal).
DEFAULT_NEAR_COPY_LENGTH = 60
DEFAULT_NEAR_COPY_IDENTITY = 0.85
#: the longest window one machine word holds (Myers' algorithm aligns a window as one 64-bit word)
MAX_NEAR_COPY_LENGTH = 64

#: query strings are dealt to this many chunks (string i to chunk i % CHUNKS) that the cores share
CHUNKS = 64
import os as _os
_NOFILTER = bool(_os.environ.get("NC_NOFILTER"))

_INDEXES: dict[tuple[int, int], tuple[Any, NearCopyIndex]] = {}


def allowed_edits(length: int, identity: float) -> int:
    """``e = ⌊(1 − identity)·length⌋``: the most edits a window of ``length`` symbols may be from an input stretch
    and still count as a near-copy at ``identity``."""
    return int(math.floor((1.0 - float(identity)) * int(length) + 1e-9))


class NearCopyIndex:
    """The inputs' grams of ``q`` symbols, sorted with their places, for the near-copy search; built from the
    inputs only, once per input set and gram length (cached while the input object lives), shared by the
    method and the verifier."""

    def __init__(self, original: SequenceSet, q: int) -> None:
        from anonstudio.core.kernels._nearcopy import DIRECTORY_BITS, gram_keys, key_layout
        from anonstudio.core.kernels._substring import window_directory

        self.original = original
        codes = original.codes.astype(np.int64)
        held = np.flatnonzero(np.bincount(codes, minlength=len(original.alphabet))) if len(codes) else np.zeros(0, int)
        #: rank of each alphabet code among the symbols the inputs hold; -1: no input holds it
        self.rank = np.full(len(original.alphabet), -1, np.int32)
        self.rank[held] = np.arange(len(held), dtype=np.int32)
        self.n = max(len(held), 1)
        self.text = self.rank[codes] if len(codes) else np.zeros(0, np.int32)
        counts = np.bincount(self.text, minlength=self.n).astype(np.float64) if len(self.text) else np.ones(1)
        #: the chance that two symbols drawn from the inputs are equal (Σ p²), for the count filter
        self.match = float(((counts / counts.sum()) ** 2).sum())
        self.starts = original.offsets[:-1].astype(np.int64)
        self.ends = original.offsets[1:].astype(np.int64)
        self.doc_of = np.repeat(np.arange(len(original), dtype=np.int32), np.diff(original.offsets))
        self.bits, self.pos_bits, q_max = key_layout(self.n, len(self.text))
        self.q = min(int(q), q_max)
        self.keys = gram_keys(self.text, self.starts, self.ends, self.q, self.bits, self.pos_bits)
        self.keys.sort()
        key_bits = self.q * self.bits + self.pos_bits
        dir_bits = min(DIRECTORY_BITS, self.q * self.bits)
        self.dir_shift = key_bits - dir_bits
        self.directory = window_directory(self.keys, self.dir_shift, 1 << dir_bits)

    @staticmethod
    def gram_length(original: SequenceSet, length: int, identity: float) -> int:
        """The gram length ``q`` windows of ``length`` at ``identity`` need over ``original``'s symbols."""
        from anonstudio.core.kernels._nearcopy import key_layout, seed_length

        held = int(np.count_nonzero(np.bincount(original.codes))) if len(original.codes) else 1
        return seed_length(int(length), allowed_edits(length, identity), key_layout(held, len(original.codes))[2])[0]

    @classmethod
    def of(cls, original: SequenceSet, length: int, identity: float) -> NearCopyIndex:
        """The index for windows of ``length`` at ``identity`` (its gram length follows from both)."""
        import weakref

        q = cls.gram_length(original, length, identity)
        key = (id(original), q)
        hit = _INDEXES.get(key)
        if hit is not None and hit[0]() is original:
            return hit[1]
        index = cls(original, q)
        for stale in [k for k, (ref, _) in _INDEXES.items() if ref() is None]:
            del _INDEXES[stale]
        try:
            _INDEXES[key] = (weakref.ref(original), index)
        except TypeError:
            pass
        return index

    def scan(self, codes: np.ndarray, offsets: np.ndarray, length: int, identity: float, k: int) -> dict[str, np.ndarray]:
        """Near-copies in the strings ``codes[offsets[i]:offsets[i + 1]]`` (codes of the inputs' alphabet; ``-1``
        for a symbol no input holds). Per string: ``window`` (start of the first window held by 1..k-1
        inputs, -1: none), ``holders`` (how many), ``input`` (the nearest of them), ``edits`` (its distance),
        ``windows`` (how many windows are held by 1..k-1 inputs), and over all windows held by any input the
        smallest distance (``nearest_edits``; ``length + 1``: none within the rule's edits), with its input
        (``nearest_input``) and window (``nearest_window``)."""
        from anonstudio.core.kernels._nearcopy import RING, count_filter, near_copies, seed_length

        length = int(length)
        edits = allowed_edits(length, identity)
        q, h = seed_length(length, edits, self.q)
        if q != self.q:
            raise ValueError(f"this index holds {self.q}-grams; windows of {length} at {identity} need {q}-grams")
        codes = np.asarray(codes, np.int64)
        ranks = np.where(codes >= 0, self.rank[np.clip(codes, 0, len(self.rank) - 1)], -1).astype(np.int32)
        out = near_copies(self.keys, self.directory, self.dir_shift, self.pos_bits, self.doc_of, self.text, self.starts,
                          self.ends, ranks, np.asarray(offsets, np.int64), self.n, self.bits, self.q, min(h, RING + 1), length, edits, int(k),
                          *(count_filter(length, edits, self.q, self.match) if not _NOFILTER else (1, 0)), CHUNKS)
        return {"window": out[:, 0], "holders": out[:, 1], "input": out[:, 2], "edits": out[:, 3],
                "windows": out[:, 4], "nearest_edits": out[:, 5], "nearest_input": out[:, 6],
                "nearest_window": out[:, 7], "hits": out[:, 8], "aligned": out[:, 9], "marked": out[:, 10], "counted": out[:, 11]}
