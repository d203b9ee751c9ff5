"""Independent check of condensed pseudo-strings (Aggarwal & Yu, 000/003): no original is published."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np

from anonstudio.core.data import SequenceSet
from anonstudio.core.privacy._tables import _check_int
from anonstudio.core.privacy._verification import Problems, Verification

#: Automaton states with this many transitions get a dense row, from a pool of DENSE_BUDGET cells (32 MB).
DENSE_FROM = 3
DENSE_BUDGET = 8_000_000

_GROUP = re.compile(r"(?:^|\s)group=(\S+)")


def _as_set(obj: Any) -> SequenceSet:
    if isinstance(obj, SequenceSet):
        return obj
    if isinstance(obj, (list, tuple)):
        return SequenceSet.from_strings(list(obj))
    raise TypeError(f"cannot verify a {type(obj).__name__} as strings")


def _translate(original: SequenceSet, output: SequenceSet) -> tuple[np.ndarray, np.ndarray]:
    """Original codes as int32, and the output's codes mapped into the original's alphabet (-1: absent)."""
    index = original.alphabet.index()
    table = np.array([index.get(s, -1) for s in output.alphabet.symbols], dtype=np.int32)
    out_codes = table[output.codes.astype(np.int64)] if len(output.codes) else np.zeros(0, np.int32)
    return original.codes.astype(np.int32), out_codes


def longest_shared_substrings(original: SequenceSet, output: SequenceSet) -> np.ndarray:
    """For each output string, the length of the longest substring it shares with any original string.

    A suffix automaton of all originals (separated by a code outside the alphabet) is built once and each
    output string scanned once: O(total length), see :mod:`anonstudio.core.kernels._substring`.
    """
    from anonstudio.core.kernels._substring import build_suffix_automaton, longest_shared

    orig_codes, out_codes = _translate(original, output)
    sigma = len(original.alphabet) + 1
    sep = sigma - 1
    lengths = np.diff(original.offsets)
    text = np.full(len(orig_codes) + len(lengths), sep, dtype=np.int32)
    dest = np.arange(len(orig_codes)) + np.repeat(np.arange(len(lengths)), lengths)
    text[dest] = orig_codes
    automaton = build_suffix_automaton(text, sigma, DENSE_FROM, max(1, DENSE_BUDGET // sigma))
    return longest_shared(*automaton, out_codes, output.offsets.astype(np.int64))


def _group_sizes(output: SequenceSet) -> Counter | None:
    groups = output.extra.get("groups") if output.extra else None
    if isinstance(groups, dict):
        return Counter({g: (len(v) if hasattr(v, "__len__") else int(v)) for g, v in groups.items()})
    if groups is not None:
        return Counter(str(g) for g in np.asarray(groups).tolist())
    found = [_GROUP.search(h) for h in output.headers]
    if found and all(found):
        return Counter(m.group(1) for m in found)
    return None


def verify_pseudo_strings(original: SequenceSet, output: SequenceSet, *, k: int | None = None) -> Verification:
    """Check that condensation published no original string.

    Fails when an output string equals an input string exactly, or an output header carries an input's
    identifier, or (with ``k``) a condensed group has fewer than ``k`` strings — group ids come from
    ``output.extra["groups"]`` (per-string ids, or id → members/size) or else from ``group=<g>`` in the
    headers. Shared substrings are reported, not faulted: the details give the longest substring any
    pseudo-string shares with any input (max, mean, median) — a measure of how much of an original a
    pseudo-string reproduces.
    """
    original = _as_set(original)
    output = _as_set(output)
    if k is not None:
        k = _check_int("k", k, 1)
    problems = Problems()
    orig_codes, out_codes = _translate(original, output)
    inputs: dict[bytes, int] = {}
    for i in range(len(original)):
        inputs.setdefault(orig_codes[original.offsets[i] : original.offsets[i + 1]].tobytes(), i)
    copies = 0
    for j in range(len(output)):
        hit = inputs.get(out_codes[output.offsets[j] : output.offsets[j + 1]].tobytes())
        if hit is not None:
            copies += 1
            problems.add(
                f"pseudo-string {j + 1} ('{output.ids[j]}') is an exact copy of input record '{original.ids[hit]}'",
                record=output.ids[j],
                kind="exact copy",
                original=original.ids[hit],
            )
    ids = set(original.ids)
    for j, header in enumerate(output.headers):
        leaked = [tok for tok in header.split() if tok in ids]
        if leaked:
            problems.add(
                f"pseudo-string {j + 1} ('{output.ids[j]}'): its header names input record '{leaked[0]}'",
                record=output.ids[j],
                kind="identifier in header",
            )
    shared = longest_shared_substrings(original, output) if len(output) and len(original) else np.zeros(0, np.int64)
    details: dict[str, Any] = {
        "k": k,
        "strings": len(output),
        "input_strings": len(original),
        "exact_copies": copies,
        "longest_shared_max": int(shared.max()) if len(shared) else 0,
        "longest_shared_mean": round(float(shared.mean()), 3) if len(shared) else 0.0,
        "longest_shared_median": float(np.median(shared)) if len(shared) else 0.0,
    }
    if len(shared):
        j = int(shared.argmax())
        details["longest_shared_record"] = output.ids[j]
    sizes = _group_sizes(output)
    if sizes is not None:
        details["groups"] = len(sizes)
        details["smallest_group"] = min(sizes.values()) if sizes else 0
        if k is not None:
            for g, size in sizes.items():
                if size < k:
                    problems.add(f"group {g} has {size} pseudo-string(s), fewer than k = {k}", record=str(g), kind="group smaller than k")
    elif k is not None:
        details["groups"] = None
    details.update(violations=problems.count, first_violations=problems.records)
    return Verification(not problems, "pseudo-strings", details, problems.sentences)
