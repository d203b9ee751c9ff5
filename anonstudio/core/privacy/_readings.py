"""How a reader may read a published string back into an input: forwards, reversed, and for DNA also complemented
and reverse-complemented. The verifier checks every reading (:mod:`anonstudio.core.privacy._strings`) and
condensation repairs every reading before it publishes (the method never publishes what its verifier refuses)."""

from __future__ import annotations

import numpy as np

#: Watson–Crick pairs
_PAIRS = {"A": "T", "T": "A", "C": "G", "G": "C"}
#: The complement of every IUPAC nucleotide code (NC-IUB, "Nomenclature for incompletely specified bases in
#: nucleic acid sequences", Eur. J. Biochem. 150:1–5, 1985, Table 3): an ambiguity code stands for a set of bases
#: and its complement for the set of their partners — R (A/G) ↔ Y (C/T), K (G/T) ↔ M (A/C), B (not A) ↔ V (not T),
#: D (not C) ↔ H (not G); S (C/G), W (A/T) and N (any) are their own complements, and so is a gap (``-``, ``.``).
#: Issue 39 item 6: DNA with one ``N`` was read as not DNA at all, so complemented copies of every input passed.
IUPAC_COMPLEMENT = {**_PAIRS, "R": "Y", "Y": "R", "K": "M", "M": "K", "B": "V", "V": "B", "D": "H", "H": "D",
                    "S": "S", "W": "W", "N": "N", "-": "-", ".": "."}


def _is_nucleotide_alphabet(symbols: tuple[str, ...] | set[str]) -> bool:
    """An alphabet with A, C, G and T whose every symbol is an IUPAC nucleotide code or a gap."""
    return set(_PAIRS) <= set(symbols) <= set(IUPAC_COMPLEMENT)


def reads_as_dna(codes: np.ndarray, symbols: tuple[str, ...]) -> bool:
    """Whether strings of ``codes`` over ``symbols`` are DNA to a reader: the alphabet has A, C, G and T and every
    symbol the strings hold is an IUPAC nucleotide code (A, C, G, T, R, Y, K, M, B, V, D, H, S, W, N) or a gap
    (``-``, ``.``), whatever the alphabet is called (a DNA file read with the default protein alphabet is still
    DNA; one ``N`` or ``R`` does not make it something else)."""
    if not set(_PAIRS) <= set(symbols) or not len(codes):
        return False
    held = np.flatnonzero(np.bincount(np.asarray(codes, np.int64), minlength=len(symbols)))
    return all(symbols[c] in IUPAC_COMPLEMENT for c in held.tolist())


def backward_readings(codes: np.ndarray, offsets: np.ndarray, symbols: tuple[str, ...],
                      dna: bool | None = None) -> list[tuple[str, np.ndarray]]:
    """``(how, codes)`` for each way but forwards of reading the strings ``codes[offsets[i]:offsets[i + 1]]``
    over ``symbols``: ``"reversed"``; for DNA (``dna``; default: an alphabet of A, C, G, T and other IUPAC codes
    only) also ``"reverse-complemented"`` (a strand read the other way) and ``"complemented"`` (the other strand,
    not reversed), every IUPAC code complemented (:data:`IUPAC_COMPLEMENT`; a code whose partner the alphabet
    lacks stays itself). Each reading keeps every string where it is and as long as it is."""
    n = len(codes)
    if not n:
        return []
    offsets = np.asarray(offsets, np.int64)
    starts, ends = offsets[:-1], offsets[1:]
    owner = np.repeat(np.arange(len(starts)), np.diff(offsets))
    flipped = codes[(starts + ends - 1)[owner] - np.arange(n)]
    views = [("reversed", flipped)]
    if dna is None:
        dna = _is_nucleotide_alphabet(symbols)
    if dna:
        where = {sym: i for i, sym in enumerate(symbols)}  # FASTA letters are read in upper case
        complement = np.array([where.get(IUPAC_COMPLEMENT.get(sym, sym), i) for i, sym in enumerate(symbols)],
                              dtype=codes.dtype)
        views.append(("reverse-complemented", complement[flipped]))
        views.append(("complemented", complement[codes]))
    return views


def reads_reversed(how: str) -> bool:
    """Whether reading ``how`` runs a string from its end (position ``p`` of it is ``len − 1 − p`` published)."""
    return how.startswith("revers")
