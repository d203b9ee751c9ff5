"""Strings as a result view shows them: each pseudo-string's group, symbol compositions and their difference CD,
the longest fragment each pseudo-string shares with an input, and the report's fragment figures."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonstudio.core.data import SequenceSet
from anonstudio.core.views._cache import cached_view
from anonstudio.core.views._report import flatten_dict, format_value

_GROUP_RE = re.compile(r"(?:^|\s)group=(-?\d+)")


def fragment_lengths(outcome: Any) -> np.ndarray:
    """Per pseudo-string, the longest run of symbols it shares with any input (from the inputs' one
    fragment index, already built by the run's verification)."""
    from anonstudio.core.privacy import FragmentIndex

    data, output = outcome.data, outcome.result.output
    return cached_view("fragment_lengths", (data, output), lambda: FragmentIndex.of(data).longest_shared(output))



def pseudo_groups(output: SequenceSet, details: dict | None = None) -> np.ndarray:
    """The group of every pseudo-string: ``details["pseudo_groups"]`` or ``output.extra["groups"]`` when the
    method gave them, else the ``group=<g>`` field of each FASTA header (``-1`` when neither says)."""
    details = details or {}
    given = details.get("pseudo_groups")
    if given is None:
        given = (getattr(output, "extra", None) or {}).get("groups")
    if given is not None and len(given) == len(output):
        return np.asarray(given, dtype=np.int64)
    out = np.full(len(output), -1, dtype=np.int64)
    for i, header in enumerate(output.headers):
        m = _GROUP_RE.search(header)
        if m:
            out[i] = int(m.group(1))
    return out


def symbol_counts(seqs: SequenceSet, indices: np.ndarray | None = None) -> dict[str, int]:
    """How often each symbol of the alphabet occurs in the chosen strings (all when ``indices`` is None)."""
    if indices is None:
        codes = seqs.codes
    else:
        parts = [seqs.codes_of(int(i)) for i in indices]
        codes = np.concatenate(parts) if parts else np.zeros(0, dtype=seqs.codes.dtype)
    counts = np.bincount(codes.astype(np.int64), minlength=len(seqs.alphabet))
    return {s: int(counts[i]) for i, s in enumerate(seqs.alphabet.symbols)}


@dataclass
class Composition:
    """Fractional symbol frequencies of the original strings ``f`` and the pseudo-strings ``f_pseudo``
    over ``symbols``, and their compositional difference ``cd``."""

    symbols: list[str]
    f: np.ndarray
    f_pseudo: np.ndarray
    n_original: int
    n_pseudo: int

    @property
    def cd(self) -> float:
        """Aggarwal & Yu (2008), Sect. 4: CD(f, f') = Σ_i |f_i − f'_i| over the alphabet."""
        return float(np.abs(self.f - self.f_pseudo).sum())


def composition(
    original: SequenceSet,
    pseudo: SequenceSet,
    original_idx: np.ndarray | None = None,
    pseudo_idx: np.ndarray | None = None,
) -> Composition:
    """Compare the symbol composition of (some of) the original strings with (some of) the pseudo-strings.
    Symbols are matched by name, in the original alphabet's order, then any the pseudo-strings add."""
    a = symbol_counts(original, original_idx)
    b = symbol_counts(pseudo, pseudo_idx)
    symbols = list(a) + [s for s in b if s not in a]
    ca = np.array([a.get(s, 0) for s in symbols], dtype=float)
    cb = np.array([b.get(s, 0) for s in symbols], dtype=float)
    fa = ca / ca.sum() if ca.sum() else ca
    fb = cb / cb.sum() if cb.sum() else cb
    n_a = len(original) if original_idx is None else len(original_idx)
    n_b = len(pseudo) if pseudo_idx is None else len(pseudo_idx)
    return Composition(symbols, fa, fb, n_a, n_b)



#: report metric names (substrings, lower case) that describe leaks of original string fragments
LEAK_WORDS = ("leak", "fragment", "copied", "copies", "longest_shared", "shared_substring", "common_substring",
              "longest_match", "shared_kmer", "near_copy", "own_group")

#: what the condensation report's fragment figures mean
LEAK_MEANINGS = {
    "exact_copies": "pseudo-strings equal to an input (must be 0)",
    "longest_shared_substring.pseudo_mean": "longest fragment shared with an input, mean",
    "longest_shared_substring.pseudo_max": "longest fragment shared with an input, max",
    "longest_shared_substring.random_mean": "same for random strings (chance level), mean",
    "longest_shared_substring.random_max": "same for random strings (chance level), max",
    # an attacker who holds an input (issue 39: a limit of condensation)
    "own_group_found.share": "share of inputs whose own group an attacker holding the input finds",
    "own_group_found.found": "inputs whose own group that attacker finds",
    "own_group_found.inputs": "inputs measured",
    "own_group_found.bins": "stretches each string's positions are compared in",
    # the pseudo-string verifier's own figures
    "verification.exact_copies": "verifier: pseudo-strings equal to an input",
    "verification.longest_shared_max": "verifier: longest fragment shared with an input, max",
    "verification.longest_shared_mean": "verifier: longest fragment shared with an input, mean",
    "verification.longest_shared_median": "verifier: longest fragment shared with an input, median",
    "verification.longest_shared_record": "verifier: the pseudo-string with the longest fragment",
    "near_copy_strings_drawn": "pseudo-strings drawn with a near-copy of fewer than k inputs (repaired)",
    "near_copy_symbols_redrawn": "symbols redrawn to repair them",
    "verification.near_copy_strings": "verifier: pseudo-strings with a near-copy of fewer than k inputs (must be 0)",
}


def leak_metrics(report: dict) -> list[tuple[str, str, str]]:
    """The report's fragment-leak figures for strings, as ``(name, value, meaning)`` rows."""
    rows: list[tuple[str, str, str]] = []
    for key, value in flatten_dict(report.get("metrics", {})):
        if any(w in key.lower() for w in LEAK_WORDS):
            rows.append((key, format_value(value), LEAK_MEANINGS.get(key, "")))
    for key, value in flatten_dict(report.get("verification", {}).get("details", {}) or {}):
        if any(w in key.lower() for w in LEAK_WORDS):
            name = f"verification.{key}"
            rows.append((name, format_value(value), LEAK_MEANINGS.get(name, "")))
    return rows

