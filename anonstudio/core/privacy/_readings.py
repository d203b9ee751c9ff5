"""How a reader may read a published string back into an input: forwards, reversed, and for DNA also complemented
and reverse-complemented. The verifier checks every reading (:mod:`anonstudio.core.privacy._strings`) and
condensation repairs every reading before it publishes (the method never publishes what its verifier refuses)."""

from __future__ import annotations

import numpy as np

#: Watson–Crick pairs: a DNA alphabet of exactly these letters is read complemented too
_PAIRS = {"A": "T", "T": "A", "C": "G", "G": "C"}


def reads_as_dna(codes: np.ndarray, symbols: tuple[str, ...]) -> bool:
    """Whether strings of ``codes`` over ``symbols`` are DNA to a reader: every symbol they hold is A, C, G or T,
    and the alphabet has all four (whatever it is called: a DNA file read with the default protein alphabet is
    still DNA)."""
    if not set(_PAIRS) <= set(symbols) or not len(codes):
        return False
    held = np.flatnonzero(np.bincount(np.asarray(codes, np.int64), minlength=len(symbols)))
    return all(symbols[c] in _PAIRS for c in held.tolist())


def backward_readings(codes: np.ndarray, offsets: np.ndarray, symbols: tuple[str, ...],
                      dna: bool | None = None) -> list[tuple[str, np.ndarray]]:
    """``(how, codes)`` for each way but forwards of reading the strings ``codes[offsets[i]:offsets[i + 1]]``
    over ``symbols``: ``"reversed"``; for DNA (``dna``; default: an alphabet of exactly A, C, G, T) also
    ``"reverse-complemented"`` (a strand read the other way) and ``"complemented"`` (the other strand, not
    reversed). Each reading keeps every string where it is and as long as it is."""
    n = len(codes)
    if not n:
        return []
    offsets = np.asarray(offsets, np.int64)
    starts, ends = offsets[:-1], offsets[1:]
    owner = np.repeat(np.arange(len(starts)), np.diff(offsets))
    flipped = codes[(starts + ends - 1)[owner] - np.arange(n)]
    views = [("reversed", flipped)]
    if dna is None:
        dna = set(symbols) == set(_PAIRS)
    if dna:
        where = {sym: i for i, sym in enumerate(symbols)}
        complement = np.array([where.get(_PAIRS.get(sym, sym), i) for i, sym in enumerate(symbols)], dtype=codes.dtype)
        views.append(("reverse-complemented", complement[flipped]))
        views.append(("complemented", complement[codes]))
    return views


def reads_reversed(how: str) -> bool:
    """Whether reading ``how`` runs a string from its end (position ``p`` of it is ``len − 1 − p`` published)."""
    return how.startswith("revers")
