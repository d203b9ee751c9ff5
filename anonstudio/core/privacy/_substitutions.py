"""Copies in another alphabet: a pseudo-string that is an input with every symbol renamed (issue 39).

A second hunt passed ``verify --model-only`` with every protein of the input Caesar-shifted over the 20 amino acids
(``A`` written ``K``, ``C`` written ``L`` …) and DNA rotated A→C→G→T: no run of 20 symbols is shared with an
input, so the fragment and near-copy rules see nothing, yet whoever knows the shift reads every input back. Full
verification refuses them by re-deriving the release; this check needs no key.

A renaming (an injective map of symbols) keeps *where each symbol last occurred*: the **previous-occurrence code**
of a string, ``e[i] = i − j`` for the last ``j < i`` with the same symbol when ``i − j ≤`` :data:`REACH`, else 0,
is the same for a string and any renaming of it (the "parameterized strings" of Baker 1993, whose prev-encoding
this is, capped so that a window's codes do not depend on where the window starts). A window of :data:`WINDOW`
codes that a pseudo-string shares with at least one but fewer than ``k`` distinct inputs — the fragment rule's
count, read on codes — names those inputs as a copy would, whatever the symbols are called. Windows of few distinct
symbols, or whose codes are nearly periodic (a repeat such as ``CPCPCP`` or a coiled coil's heptads, which any
renaming of any repeat of that period matches), are not judged.
"""

from __future__ import annotations

import numpy as np

#: how far back a symbol's previous occurrence is looked for (codes 0..REACH)
REACH = 15
#: the window of previous-occurrence codes compared (about 3 bits each for proteins and DNA: far beyond chance)
WINDOW = 64


def previous_occurrence_codes(codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``e`` of every string of a concatenation (``codes[offsets[i]:offsets[i + 1]]``), as uint8."""
    n = len(codes)
    out = np.zeros(n, dtype=np.uint8)
    if n == 0:
        return out
    string = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    for d in range(REACH, 0, -1):  # the nearest occurrence wins: written last
        same = np.zeros(n, dtype=bool)
        same[d:] = (codes[d:] == codes[:-d]) & (string[d:] == string[:-d])
        out[same] = d
    return out


def _window_hashes(e: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(hash, start)`` of every window of :data:`WINDOW` codes inside one string (a polynomial hash mod 2^64)."""
    n = len(e) - WINDOW + 1
    if n <= 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    h = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for t in range(WINDOW):
            h = h * np.uint64(1_000_003) + e[t : t + n].astype(np.uint64) + np.uint64(1)
    starts = np.arange(n)
    string_end = offsets[np.searchsorted(offsets, starts, side="right")]
    inside = starts + WINDOW <= string_end
    return h[inside], starts[inside]


def _distinct_in_windows(codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The number of distinct symbols in each window starting at ``starts``."""
    if not len(starts):
        return np.zeros(0, np.int64)
    windows = np.sort(codes[starts[:, None] + np.arange(WINDOW)[None, :]], axis=1)
    return 1 + (np.diff(windows, axis=1) != 0).sum(axis=1)


def _nearly_periodic(e: np.ndarray) -> bool:
    """Whether a window's codes repeat with a period of at most :data:`REACH` at 90 % of its positions: a tandem
    repeat (a coiled coil's heptads, a collagen-like run), which any renamed repeat of that period matches — the
    yeast proteome's genuine release at k = 20 had 19 such windows, each shared with 6–16 inputs."""
    return any(np.mean(e[p:] == e[:-p]) >= 0.9 for p in range(1, REACH + 1))


def renamed_copies(original_codes: np.ndarray, original_offsets: np.ndarray, output_codes: np.ndarray,
                   output_offsets: np.ndarray, k: int,
                   output_as_input: np.ndarray | None = None) -> list[tuple[int, int, int]]:
    """``(pseudo-string, its first symbol of the window, held by inputs)`` for each pseudo-string with a window of
    :data:`WINDOW` previous-occurrence codes held by at least one but fewer than ``k`` distinct inputs, and at least
    ``min(8, half the inputs' symbols)`` distinct symbols in it (the first such window each)."""
    contents: dict[bytes, int] = {}
    for i in range(len(original_offsets) - 1):  # distinct inputs count once (copies of one protein are one input)
        contents.setdefault(original_codes[original_offsets[i] : original_offsets[i + 1]].tobytes(), i)
    keep = np.array(sorted(contents.values()), dtype=np.int64)
    lengths = np.diff(original_offsets)[keep]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    codes = np.concatenate([original_codes[original_offsets[i] : original_offsets[i + 1]] for i in keep]) \
        if len(keep) else original_codes[:0]
    in_hashes, in_starts = _window_hashes(previous_occurrence_codes(codes, offsets), offsets)
    if not len(in_hashes):
        return []
    owner = np.searchsorted(offsets, in_starts, side="right") - 1
    order = np.lexsort((owner, in_hashes))  # (hash, input) pairs sorted, each counted once
    by_hash, by_owner, by_start = in_hashes[order], owner[order], in_starts[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (by_hash[1:] != by_hash[:-1]) | (by_owner[1:] != by_owner[:-1])
    by_hash = by_hash[first]
    new_hash = np.ones(len(by_hash), dtype=bool)
    new_hash[1:] = by_hash[1:] != by_hash[:-1]
    hashes = by_hash[new_hash]
    example = by_start[first][new_hash]  # where one input holding the window has it
    holders = np.diff(np.append(np.flatnonzero(new_hash), len(by_hash)))
    out_e = previous_occurrence_codes(output_codes, output_offsets)
    out_hashes, out_starts = _window_hashes(out_e, output_offsets)
    at = np.searchsorted(hashes, out_hashes)
    at[at >= len(hashes)] = 0
    found = (len(hashes) > 0) & (hashes[at] == out_hashes) & (holders[at] < k)
    if not found.any():
        return []
    need = min(10, max(2, len(np.unique(codes)) // 2))
    rich = _distinct_in_windows(output_codes, out_starts[found]) >= need
    hits = [h for h in np.flatnonzero(found)[rich].tolist() if not _nearly_periodic(out_e[out_starts[h]:
                                                                                           out_starts[h] + WINDOW])]
    result: dict[int, tuple[int, int, int]] = {}
    for h in hits:
        if output_as_input is not None:  # the same symbols mostly: a near-copy of a family, not a renaming
            mine = output_as_input[out_starts[h] : out_starts[h] + WINDOW]
            theirs = codes[example[at[h]] : example[at[h]] + WINDOW]
            if np.mean(mine == theirs) >= 0.5:
                continue
        j = int(np.searchsorted(output_offsets, out_starts[h], side="right") - 1)
        if j not in result:
            result[j] = (j, int(out_starts[h] - output_offsets[j]), int(holders[at[h]]))
    return sorted(result.values())
