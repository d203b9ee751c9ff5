"""The content rules condensation enforces on its pseudo-strings before it publishes them, by redrawing symbols
from the group's composition: no fragment shared with fewer than k inputs (:func:`break_rare_fragments`), no
near-copy of an input's stretch (:func:`break_near_copies`), both together and no exact copy
(:func:`enforce_content_rules`). The verifier (:mod:`anonstudio.core.privacy`) checks the same rules on the
published file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anonstudio.core.errors import PrivacyError
from anonstudio.core.progress import ProgressCallback, report, subrange

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import SequenceSet

#: a near-copy's window is redrawn until it is this many edits beyond the rule's (a window left just outside
#: the rule would keep the verifier aligning it against every input of its family)
_NEAR_MARGIN = 2


def _group_compositions(data: SequenceSet, input_groups: np.ndarray):
    """``composition_of(g)``: ``(counts, held)`` — the symbol counts of group ``g``'s input strings (kept once
    computed) and which symbols any input holds (a redraw never picks a symbol the verifier would delete)."""
    import numpy as np

    n_symbols = len(data.alphabet)
    held = np.bincount(data.codes.astype(np.int64), minlength=n_symbols)[:n_symbols] > 0
    compositions: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def composition_of(g: int) -> tuple[np.ndarray, np.ndarray]:
        if g not in compositions:
            members = np.flatnonzero(input_groups == g)
            counts = np.zeros(n_symbols, np.float64)
            for i in members:
                counts += np.bincount(data.codes_of(int(i)).astype(np.int64), minlength=n_symbols)[:n_symbols]
            compositions[g] = (counts, held)
        return compositions[g]

    return composition_of


def _redraw(row: np.ndarray, pos: int, composition: tuple[np.ndarray, np.ndarray], rng: np.random.Generator) -> None:
    """Symbol ``pos`` of ``row`` drawn again from ``composition`` (a group's symbol counts), never the current
    one; from the symbols any input holds when the group holds no other."""
    counts, held = composition
    w = counts.copy()
    w[int(row[pos])] = 0.0
    if w.sum() <= 0:
        w = held.astype(float)
        w[int(row[pos])] = 0.0
        if w.sum() <= 0:
            return  # the inputs hold one symbol only: nothing else to draw
    row[pos] = rng.choice(len(w), p=w / w.sum())


def _packed(rows: list[np.ndarray], which) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``which`` one after another (int32) and their offsets."""
    import numpy as np

    sub = [rows[i] for i in which]
    offsets = np.zeros(len(sub) + 1, np.int64)
    np.cumsum([len(r) for r in sub], out=offsets[1:])
    codes = np.concatenate(sub).astype(np.int32) if len(sub) else np.zeros(0, np.int32)
    return codes, offsets


def break_rare_fragments(data: SequenceSet, rows: list[np.ndarray], row_groups: list[int], input_groups: np.ndarray,
                         k: int, max_fragment: int, rng: np.random.Generator, max_tries: int = 64,
                         progress: ProgressCallback | None = None, pending: np.ndarray | None = None) -> dict[str, Any]:
    """Enforce the fragment rule on generated pseudo-strings, in place (issue 11: order-s statistics can
    reproduce long runs of one input, e.g. transposon families in yeast), in every reading the verifier checks:
    forwards, reversed, and for DNA complemented and reverse-complemented (issue 28: a poly-Q run held by few
    inputs read backwards was published).

    A pseudo-string whose substring of ``max_fragment`` or more symbols occurs in 1..k-1 inputs, in some
    reading, has the symbol where that run first reaches the limit redrawn from its group's composition (any
    symbol but the current one), and is scanned again from the start; matches ending before the changed
    symbol are unchanged, so the first leak moves on until none is left. The string keeps its length and its
    group; only the symbols that close a rare run change. The choice is local on purpose: merging or
    suppressing the group would lose k or more strings for one run of symbols. The scan uses the inputs'
    shared :class:`~anonstudio.core.privacy.FragmentIndex`. Returns how many strings and symbols changed (and
    which strings, ``changed``); a string that cannot be repaired in ``max_tries`` draws at one position raises
    :class:`PrivacyError`. ``progress`` hears of every scan, and every 0.1 s while the index builds its
    automaton. ``pending``: the strings to look at (default: all).
    """
    import numpy as np

    from anonstudio.core.privacy import FragmentIndex
    from anonstudio.core.privacy._readings import backward_readings, reads_as_dna, reads_reversed

    index = FragmentIndex.of(data)
    composition_of = _group_compositions(data, input_groups)
    symbols = data.alphabet.symbols
    dna = reads_as_dna(data.codes, symbols)
    changed_symbols = 0
    pending = np.arange(len(rows)) if pending is None else np.asarray(pending, np.int64)
    tries: dict[tuple[int, int], int] = {}
    touched: set[int] = set()
    scans = 0
    while len(pending):
        scans += 1
        fraction = 1.0 - 1.0 / (scans + 1)  # strings left to repair after each scan shrink fast
        message = f"removing rare fragments: scan {scans}, {len(pending)} strings"
        report(progress, fraction, message)
        codes, offsets = _packed(rows, pending)
        tick = None if progress is None else (lambda f=fraction, m=message: report(progress, f, m))
        leaks: dict[int, int] = {}  # pending slot -> published position to redraw
        for how, view in [("forwards", codes)] + backward_readings(codes, offsets, symbols, dna):
            scan = index.rare_fragments_of(view, offsets, max_fragment, k, tick=tick)
            for j in np.flatnonzero(scan["first_end"] >= 0).tolist():
                if j not in leaks:
                    pos = int(scan["first_end"][j])
                    leaks[j] = int(offsets[j + 1] - offsets[j]) - 1 - pos if reads_reversed(how) else pos
        for j, pos in sorted(leaks.items()):
            i = int(pending[j])
            tries[(i, pos)] = tries.get((i, pos), 0) + 1
            if tries[(i, pos)] > max_tries:
                raise PrivacyError(
                    f"pseudo-string {i + 1} keeps reproducing a fragment of {max_fragment} symbols held by fewer than "
                    f"{k} inputs (its group's composition leaves no other symbol): raise max_fragment or k")
            _redraw(rows[i], pos, composition_of(row_groups[i]), rng)
            changed_symbols += 1
            touched.add(i)
        pending = pending[np.asarray(sorted(leaks), np.int64)] if leaks else pending[:0]
    return {"strings": len(touched), "symbols": changed_symbols, "changed": touched}


def break_near_copies(data: SequenceSet, rows: list[np.ndarray], row_groups: list[int], input_groups: np.ndarray,
                      k: int, identity: float, length: int, rng: np.random.Generator, max_rounds: int = 64,
                      progress: ProgressCallback | None = None, pending: np.ndarray | None = None) -> dict[str, Any]:
    """Enforce the near-copy rule on generated pseudo-strings, in place (issue 28): no window of ``length``
    symbols, in any reading the verifier checks, may lie within ``e = ⌊(1 − identity)·length⌋`` edits of a
    stretch of 1..k-1 inputs (:func:`anonstudio.core.privacy.near_copies`). Order-2 statistics of a group
    holding a few near-identical inputs (yeast's Ty transposons) draw near-copies of that family; the fragment
    rule's single redraws then leave a copy with a residue changed every 20 positions.

    A string with such windows has symbols redrawn from its group's composition (never the current symbol)
    across the stretch those windows cover, evenly spaced at a random offset, as many per window as lift the
    nearest input's distance to ``e + 1 +`` :data:`_NEAR_MARGIN` (a little beyond the rule), and is scanned
    again; the string keeps its length and group. Returns how many strings and symbols changed (and which,
    ``changed``); a string still near-copying after ``max_rounds`` rounds raises :class:`PrivacyError`."""
    import numpy as np

    from anonstudio.core.privacy import FragmentIndex, near_copies
    from anonstudio.core.privacy._near_copies import allowed_edits
    from anonstudio.core.privacy._readings import backward_readings, reads_as_dna

    fragments = FragmentIndex.of(data)
    composition_of = _group_compositions(data, input_groups)
    edits = allowed_edits(length, identity)
    dna = reads_as_dna(data.codes, data.alphabet.symbols)
    pending = np.arange(len(rows)) if pending is None else np.asarray(pending, np.int64)
    pending = pending[[len(rows[i]) >= length for i in pending.tolist()]] if len(pending) else pending
    touched: set[int] = set()
    changed_symbols = 0
    rounds = 0
    while len(pending):
        rounds += 1
        if rounds > max_rounds:
            raise PrivacyError(
                f"pseudo-string {int(pending[0]) + 1} stays a near-copy of fewer than {k} inputs after {max_rounds} "
                "rounds of redrawing (its group's composition keeps rebuilding it): raise k or near_copy_identity")
        report(progress, 1.0 - 1.0 / (rounds + 1), f"removing near-copies: scan {rounds}, {len(pending)} strings")
        codes, offsets = _packed(rows, pending)
        readings = [("", codes)] + [(f" read {how}", view) for how, view in
                                    backward_readings(codes, offsets, data.alphabet.symbols, dna)]
        # strings sharing too short a run with every input are spared (the fragment index keeps these scans)
        views = [(how, view, offsets, fragments.rare_fragments_of(view, offsets, None, 0)["shared"])
                 for how, view in readings]
        found = near_copies(data, views, k, identity, length, nearest=False)
        for hit in found:
            i = int(pending[hit["string"]])
            lo, hi = hit["span"]
            need = max(1, edits + 1 + _NEAR_MARGIN - hit["edits"])
            step = max(1, length // (need + 1))
            weights = composition_of(row_groups[i])
            for pos in range(lo + int(rng.integers(step)), hi, step):
                _redraw(rows[i], pos, weights, rng)
                changed_symbols += 1
            touched.add(i)
        pending = pending[np.asarray([hit["string"] for hit in found], np.int64)] if found else pending[:0]
    return {"strings": len(touched), "symbols": changed_symbols, "changed": touched}


def enforce_content_rules(data: SequenceSet, rows: list[np.ndarray], row_groups: list[int],
                          input_groups: np.ndarray, k: int, max_fragment: int, identity: float, length: int,
                          rng: np.random.Generator, originals: set, max_rounds: int = 16,
                          progress: ProgressCallback | None = None) -> dict[str, int]:
    """Make the generated pseudo-strings satisfy every content rule the verifier applies, in place: no exact
    copy of an input (read forwards, or backwards when at least ``max_fragment`` long), the fragment rule
    (:func:`break_rare_fragments`) and the near-copy rule (:func:`break_near_copies`), each in every reading.
    A repair for one rule may (rarely) break another, so the strings a round changed are checked against all
    of them again until a round changes nothing (at most ``max_rounds``, else :class:`PrivacyError`)."""
    import numpy as np

    from anonstudio.core.privacy._readings import backward_readings, reads_as_dna

    composition_of = _group_compositions(data, input_groups)
    dna = reads_as_dna(data.codes, data.alphabet.symbols)
    totals = {"fragment_strings": set(), "fragment_symbols": 0, "near_copy_strings": set(), "near_copy_symbols": 0,
              "copy_symbols": 0}
    pending = np.arange(len(rows))
    for r in range(max_rounds):
        sub = subrange(progress, r / max_rounds, (r + 1) / max_rounds)
        changed: set[int] = set()
        frag = break_rare_fragments(data, rows, row_groups, input_groups, k, max_fragment, rng,
                                    progress=subrange(sub, 0.0, 0.5), pending=pending)
        totals["fragment_strings"] |= frag["changed"]
        totals["fragment_symbols"] += frag["symbols"]
        changed |= frag["changed"]
        near = break_near_copies(data, rows, row_groups, input_groups, k, identity, length, rng,
                                 progress=subrange(sub, 0.5, 0.95), pending=pending)
        totals["near_copy_strings"] |= near["changed"]
        totals["near_copy_symbols"] += near["symbols"]
        changed |= near["changed"]
        # an exact copy, read any way the verifier reads (backwards only from max_fragment symbols on)
        codes, offsets = _packed(rows, pending)
        readings = [("forwards", codes)] + backward_readings(codes, offsets, data.alphabet.symbols, dna)
        for j, i in enumerate(pending.tolist()):
            lo, hi = int(offsets[j]), int(offsets[j + 1])
            for n_read, (_, view) in enumerate(readings):
                if (n_read == 0 or hi - lo >= max_fragment) and \
                        view[lo:hi].astype(data.codes.dtype).tobytes() in originals:
                    _redraw(rows[i], int(rng.integers(hi - lo)), composition_of(row_groups[i]), rng)
                    totals["copy_symbols"] += 1
                    changed.add(i)
                    break
        if not changed:
            break
        pending = np.asarray(sorted(changed), np.int64)
    else:
        raise PrivacyError(f"{len(pending)} pseudo-strings keep breaking one content rule while another is repaired "
                           f"({max_rounds} rounds): raise k, max_fragment or near_copy_identity")
    return {"fragment_strings": len(totals["fragment_strings"]), "fragment_symbols": totals["fragment_symbols"],
            "near_copy_strings": len(totals["near_copy_strings"]), "near_copy_symbols": totals["near_copy_symbols"],
            "copy_symbols": totals["copy_symbols"]}
