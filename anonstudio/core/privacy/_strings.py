"""Independent check of condensed pseudo-strings (Aggarwal & Yu, 000/003): no original is published. The index of
what the inputs contain, which the fragment rule reads, is :mod:`._fragments`."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np

from anonstudio.core.data import SequenceSet
from anonstudio.core.models import ClassStats, CondensedGroups, FragmentRule, NearCopyRule
from anonstudio.core.privacy._fragments import (
    DEFAULT_MAX_FRAGMENT,
    FragmentIndex,
    _output_codes,
    longest_shared_substrings,
)
from anonstudio.core.privacy._near_copies import near_copies
from anonstudio.core.privacy._readings import backward_readings, reads_as_dna
from anonstudio.core.privacy._substitutions import WINDOW, renamed_copies
from anonstudio.core.privacy._tables import _check_int
from anonstudio.core.privacy._verification import Problems, Verification
from anonstudio.core.progress import checkpoint

#: the fragment index and its rule are in :mod:`._fragments`; the names the package exports are importable here
__all__ = ["DEFAULT_MAX_FRAGMENT", "FragmentIndex", "longest_shared_substrings", "verify_pseudo_strings"]

_GROUP = re.compile(r"(?:^|\s)group=(\S+)")
#: the output's own header fields (``segment=<s> group=<g>``), whose numbers are not input identifiers
_OWN_FIELD = re.compile(r"(?:segment|group)=\d+")
#: what may separate an identifier from the text around it inside a header token (``from=P12345``,
#: ``(P12345)``, ``P12345|pseudo_1``); identifiers with ``|`` inside (``sp|P12345|X``) are tried whole too
_AROUND = (re.compile(r"[^\w.|-]+"), re.compile(r"[^\w.-]+"))


def _without_foreign(original: SequenceSet, output: SequenceSet) -> SequenceSet:
    """``output`` in the inputs' alphabet with every symbol the inputs never hold deleted (alignment gaps,
    ``X``, stops): sprinkled into a copy they would break every match while a reader just deletes them.
    The output itself when it holds none (the usual case: nothing is copied)."""
    _, codes = _translate(original, output)
    if not len(codes) or codes.min() >= 0:
        return output if output.alphabet == original.alphabet else SequenceSet(
            output.ids, output.headers, codes.astype(original.alphabet.code_dtype), output.offsets,
            original.alphabet, output.labels, output.source, output.extra)
    keep = codes >= 0
    offsets = np.concatenate(([0], np.cumsum(keep)))[output.offsets]
    return SequenceSet(output.ids, output.headers, codes[keep].astype(original.alphabet.code_dtype), offsets,
                       original.alphabet, output.labels, output.source, output.extra)


def _read_backwards(output: SequenceSet, dna: bool | None = None) -> list[tuple[str, SequenceSet]]:
    """``output`` as a reader could turn it back into an input: each string reversed, and for DNA (``dna``:
    the inputs hold only A, C, G, T, whatever the alphabet is called) also reverse-complemented (a strand read
    the other way) and complemented (the other strand, not reversed):
    :func:`~anonstudio.core.privacy._readings.backward_readings`."""
    return [(how, SequenceSet(output.ids, output.headers, codes, output.offsets, output.alphabet))
            for how, codes in backward_readings(output.codes, output.offsets, output.alphabet.symbols, dna)]


def _named_input(header: str, ids: set[str]) -> str | None:
    """The first input identifier ``header`` names: a whitespace-separated token, or a part of one between
    punctuation; the output's own ``segment=``/``group=`` fields are skipped."""
    for token in header.split():
        if token in ids:
            return token
        if not _AROUND[1].search(token) or _OWN_FIELD.fullmatch(token):
            continue  # nothing to split it at ('pseudo_12'), or the output's own field
        for piece in (*_AROUND[0].split(token), *_AROUND[1].split(token)):
            if piece in ids:
                return piece
    return None


#: a run of letters and digits: the pieces identifiers are made of (``sp|P12345|GENE_HUMAN``, ``synp00291.1``)
_PIECE = re.compile(r"[0-9A-Za-z]+")
_OWN_ID = re.compile(r"pseudo_\d+")


def _identifying_pieces(ids: list[str]) -> dict[str, str]:
    """Case-folded pieces of the input identifiers that name one input each: the runs of letters and digits
    (``P12345``, ``GENE0``, ``synp00291``) and the ``|``-separated parts (``GENE0_HUMAN``) of 4 or more
    characters held by that input only (``sp`` or ``HUMAN`` name nobody)."""
    holders: dict[str, set[str]] = {}
    for name in ids:
        parts = {p.casefold() for p in (*_PIECE.findall(name), *name.split("|")) if len(p) >= 4}
        for part in parts:
            holders.setdefault(part, set()).add(name)
    return {part: next(iter(who)) for part, who in holders.items() if len(who) == 1}


def _names_a_piece(header: str, pieces: dict[str, str]) -> str | None:
    """The input whose identifier piece ``header`` holds, in any case and however it is wrapped
    (``src_synp00291``, ``SYNP00291``, ``acc=P12345.2``, ``GENE0_HUMAN``), outside the output's own
    ``pseudo_<n>``, ``segment=`` and ``group=``."""
    tokens = header.split()
    for n, token in enumerate(tokens):
        if _OWN_FIELD.fullmatch(token) or (n == 0 and _OWN_ID.fullmatch(token)):
            continue
        for part in (*_PIECE.findall(token), *re.split(r"[^\w|.-]+", token), *token.split("|")):
            hit = pieces.get(part.casefold())
            if hit is not None:
                return hit
    return None


def _header_runs(original: SequenceSet, headers: list[str], length: int) -> tuple[list[int], SequenceSet] | None:
    """Runs of ``length`` or more of the inputs' letters in the headers (a sequence written into a header),
    as a set to scan, with the header each came from; ``None`` for alphabets of longer tokens."""
    if not original.alphabet.single_letter:
        return None
    letters = {s.casefold() for s in original.alphabet.symbols if s.isalpha()}
    if not letters:
        return None
    run = re.compile("[" + re.escape("".join(sorted(letters | {c.upper() for c in letters}))) + "]{%d,}" % length)
    index = original.alphabet.index()
    folded = {s.casefold(): s for s in index}
    owners, runs = [], []
    for j, header in enumerate(headers):
        for found in run.findall(header):
            owners.append(j)
            runs.append("".join(folded[c.casefold()] for c in found))
    if not runs:
        return None
    return owners, SequenceSet.from_strings(runs, alphabet=original.alphabet)


def _renamed_copies(original: SequenceSet, output: SequenceSet, k: int) -> list[tuple[int, int, int]]:
    """:func:`._substitutions.renamed_copies` of the output as written (before symbols the inputs lack are dropped:
    a renaming may use them)."""
    return renamed_copies(original.codes.astype(np.int32), original.offsets.astype(np.int64),
                          output.codes.astype(np.int32), output.offsets.astype(np.int64), k,
                          _output_codes(original.alphabet, output).astype(np.int32))


def _as_set(obj: Any) -> SequenceSet:
    if isinstance(obj, SequenceSet):
        return obj
    if isinstance(obj, (list, tuple)):
        return SequenceSet.from_strings(list(obj))
    raise TypeError(f"cannot verify a {type(obj).__name__} as strings")


def _translate(original: SequenceSet, output: SequenceSet) -> tuple[np.ndarray, np.ndarray]:
    """Original codes as int32, and the output's codes mapped into the original's alphabet (-1: absent). A
    symbol the inputs lack is matched in the other case (``m`` as ``M``): a copy in lower case is a copy."""
    return original.codes.astype(np.int32), _output_codes(original.alphabet, output)


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


def _near_copy_rule(original: SequenceSet, output: SequenceSet, views: list, backwards: list, shared: np.ndarray,
                    shared_backwards: dict[str, np.ndarray], rule: NearCopyRule, problems: Problems,
                    details: dict[str, Any]) -> None:
    """The near-copy rule over every reading of the output (``views``: forwards and each backwards reading's
    codes); the fragment scans' longest shared runs (``shared``, ``shared_backwards``) spare the strings that
    share too short a run with every input to hold a near-copy."""
    k, identity, length = (rule.params[p] for p in ("k", "near_copy_identity", "near_copy_length"))
    offsets = output.offsets.astype(np.int64)
    readings = [("", views[0][1], offsets, shared if len(shared) == len(output) else None)]
    readings += [(f" read {how}", codes, offsets, shared_backwards.get(how))
                 for (how, _), (_, codes) in zip(backwards, views[1:])]
    found = near_copies(original, readings, k, identity, length)
    near_window = np.full(len(output), -1, np.int64)
    near_holders = np.zeros(len(output), np.int64)
    for hit in found:
        near_window[hit["string"]] = hit["start"]
        near_holders[hit["string"]] = hit["holders"]
    stats = ClassStats(np.ones(len(output), np.int64), near_window=near_window, near_holders=near_holders)
    for hit in found:
        j = hit["string"]
        problems.add(
            f"pseudo-string {j + 1} ('{output.ids[j]}'){hit['how']} is a near-copy of input record "
            f"'{original.ids[hit['input']]}': its symbols {hit['start']}-{hit['end']} are within {hit['edits']} "
            f"edits of a stretch of it (identity {1 - hit['edits'] / length:.2f} over {length} symbols); "
            f"{rule.measure(stats, j)} (near_copy_identity = {identity:g}, near_copy_length = {length})",
            record=output.ids[j], kind="near copy", original=original.ids[hit["input"]])
    details.update(near_copy_identity=identity, near_copy_length=length, near_copy_strings=len(rule.failing(stats)),
                   near_copy_windows=sum(hit["windows"] for hit in found))


def verify_pseudo_strings(original: SequenceSet, output: SequenceSet, *, k: int | None = None,
                          max_fragment: int | None = None, near_copy_identity: float | None = None,
                          near_copy_length: int | None = None) -> Verification:
    """Check that condensation published no original string and no identifying fragment of one.

    Fails when

    - an output string equals an input string (symbols the inputs never hold — gaps, ``X`` — deleted first,
      as a reader would), also when read backwards (reversed; DNA also reverse-complemented; strings of
      ``max_fragment`` symbols or more, as shorter ones match backwards by chance), or an output header
      carries an input's identifier — whole, or a piece of it that names that input only, in any case
      (:func:`_names_a_piece`) — or a run of ``max_fragment`` (default 20) letters an input holds;
    - (with ``k``) the output does not say which group each pseudo-string belongs to (``group=<g>`` in the
      headers, or ``output.extra["groups"]``), or a group has fewer than ``k`` pseudo-strings;
    - (with ``k`` and ``max_fragment`` = L) a pseudo-string contains a substring of L or more symbols that
      occurs in at least one but fewer than ``k`` inputs — the fragment rule, the k-anonymous reading of
      "no identifying fragment copied": a fragment held by ≥ k inputs names none of them, one held by
      fewer narrows a reader down to fewer than k records. This also catches near-copies (an input minus
      a residue, or with one added) whose long runs occur in that one input only. Pseudo-strings are
      scanned backwards too;
    - (with ``k``, ``near_copy_identity`` = θ and ``near_copy_length`` = L) a window of L symbols of a
      pseudo-string, read forwards or backwards (DNA: also complemented), lies within ``⌊(1 − θ)·L⌋`` edits
      (substitutions, insertions, deletions) of a stretch of at least one but fewer than ``k`` inputs — the
      near-copy rule (:mod:`anonstudio.core.privacy._near_copies`): an input with a residue changed every 19
      positions shares no run of 20 with its copy but is 95 % identical to it.

    The details give the longest substring any pseudo-string shares with any input (max, mean, median),
    whatever its frequency, and the rare fragments found.
    """
    original = _as_set(original)
    output = _as_set(output)
    if k is not None:
        k = _check_int("k", k, 1)
    if max_fragment is not None:
        max_fragment = _check_int("max_fragment", max_fragment, 1)
    near_rule = None
    if k is not None and near_copy_identity is not None and near_copy_length is not None:
        near_rule = NearCopyRule(k=k, near_copy_identity=near_copy_identity, near_copy_length=near_copy_length)
    problems = Problems()
    renamed = _renamed_copies(original, output, k) if k is not None and max_fragment else []
    output = _without_foreign(original, output)  # a copy with gaps or X sprinkled in is a copy
    orig_codes, out_codes = _translate(original, output)
    inputs: dict[bytes, int] = {}
    for i in range(len(original)):
        if i % 16384 == 16383:
            checkpoint()  # 100,000 item strings take a while: the enclosing phase reports, Cancel may stop
        inputs.setdefault(orig_codes[original.offsets[i] : original.offsets[i + 1]].tobytes(), i)
    copies = 0
    backwards = _read_backwards(output, reads_as_dna(original.codes, original.alphabet.symbols))
    views = [("", out_codes)] + [(f" read {how}", _translate(original, view)[1]) for how, view in backwards]
    for j in range(len(output)):
        if j % 16384 == 16383:
            checkpoint()
        long_enough = output.offsets[j + 1] - output.offsets[j] >= (max_fragment or DEFAULT_MAX_FRAGMENT)
        for how, codes in views[: len(views) if long_enough else 1]:  # a short one matches backwards by chance
            hit = inputs.get(codes[output.offsets[j] : output.offsets[j + 1]].tobytes())
            if hit is not None:
                copies += 1
                problems.add(
                    f"pseudo-string {j + 1} ('{output.ids[j]}'){how} is an exact copy of input record "
                    f"'{original.ids[hit]}'",
                    record=output.ids[j],
                    kind="exact copy",
                    original=original.ids[hit],
                )
                break
    ids = set(original.ids)
    pieces = _identifying_pieces(original.ids)
    for j, header in enumerate(output.headers):
        if j % 16384 == 16383:
            checkpoint()
        leaked = _named_input(header, ids) or _names_a_piece(header, pieces)
        if leaked is not None:
            problems.add(
                f"pseudo-string {j + 1} ('{output.ids[j]}'): its header names input record '{leaked}'",
                record=output.ids[j],
                kind="identifier in header",
            )
    details: dict[str, Any] = {"k": k, "max_fragment": max_fragment, "strings": len(output),
                               "input_strings": len(original), "exact_copies": copies}
    if len(output) and len(original):
        index = FragmentIndex.of(original)
        scan = index.rare_fragments(output, max_fragment or 1, k if (k is not None and max_fragment) else 0)
        shared = scan["shared"]
        in_headers = _header_runs(original, output.headers, max_fragment or DEFAULT_MAX_FRAGMENT)
        if in_headers is not None:
            owners, runs = in_headers
            longest = index.longest_shared(runs)
            for j in sorted({owners[r] for r in np.flatnonzero(longest >= (max_fragment or DEFAULT_MAX_FRAGMENT))}):
                problems.add(f"pseudo-string {j + 1} ('{output.ids[j]}'): its header carries a run of "
                             f"{int(max(longest[r] for r in range(len(owners)) if owners[r] == j))} symbols that "
                             "an input string holds (a sequence written into the header)",
                             record=output.ids[j], kind="sequence in header")
    else:
        scan, shared = None, np.zeros(0, np.int64)
    details.update(
        longest_shared_max=int(shared.max()) if len(shared) else 0,
        longest_shared_mean=round(float(shared.mean()), 3) if len(shared) else 0.0,
        longest_shared_median=float(np.median(shared)) if len(shared) else 0.0,
    )
    if len(shared):
        details["longest_shared_record"] = output.ids[int(shared.argmax())]
    shared_backwards: dict[str, np.ndarray] = {}
    if k is not None and max_fragment and scan is not None:
        rule = FragmentRule(k=k, max_fragment=max_fragment)  # each published string is judged by the rule
        stats = ClassStats(np.ones(len(output), np.int64), fragment=scan["longest"], holders=scan["inputs"])
        leaking = rule.failing(stats)
        details["rare_fragment_strings"] = int(len(leaking))
        details["longest_rare_fragment"] = int(scan["longest"].max()) if len(scan["longest"]) else 0
        for j in leaking.tolist():
            problems.add(f"pseudo-string {j + 1} ('{output.ids[j]}') contains {rule.measure(stats, j)}",
                         record=output.ids[j], kind="rare fragment")
        flagged = set(leaking.tolist())
        for how, view in backwards:  # a fragment read the other way names its inputs as well
            back = index.rare_fragments(view, max_fragment, k)
            shared_backwards[how] = back["shared"]
            stats = ClassStats(np.ones(len(view), np.int64), fragment=back["longest"], holders=back["inputs"])
            for j in rule.failing(stats).tolist():
                if j not in flagged:
                    flagged.add(j)
                    problems.add(f"pseudo-string {j + 1} ('{output.ids[j]}') read {how} contains "
                                 f"{rule.measure(stats, j)}", record=output.ids[j], kind="rare fragment")
        details["rare_fragment_strings"] = len(flagged)
    for j, start, holders in renamed:
        problems.add(f"pseudo-string {j + 1} ('{output.ids[j]}') is an input with its symbols renamed: from symbol "
                     f"{start + 1} on, {WINDOW} symbols repeat where they last occurred exactly as {holders} input "
                     f"string(s) do, fewer than k = {k} (a renamed copy, such as a letter shift, is read back by "
                     "whoever knows the renaming)", record=output.ids[j], kind="renamed copy")
    details["renamed_copies"] = len(renamed)
    if near_rule is not None:
        _near_copy_rule(original, output, views, backwards, shared, shared_backwards, near_rule, problems, details)
    sizes = _group_sizes(output)
    if sizes is not None:
        details["groups"] = len(sizes)
        details["smallest_group"] = min(sizes.values()) if sizes else 0
        if k is not None:
            names = list(sizes)
            stats = ClassStats(np.array([sizes[g] for g in names], dtype=np.int64))
            rule = CondensedGroups(k=k)
            for g in rule.failing(stats).tolist():
                problems.add(f"group {names[g]} has {rule.measure(stats, g)}", record=str(names[g]),
                             kind="group smaller than k")
    elif k is not None:
        details["groups"] = None
        problems.add(
            f"the output does not say which group each pseudo-string belongs to (no 'group=<g>' in its headers): "
            f"the group sizes (k = {k}) cannot be checked",
            kind="group tags missing",
        )
    details.update(violations=problems.count, first_violations=problems.records)
    return Verification(not problems, "pseudo-strings", details, problems.sentences)
