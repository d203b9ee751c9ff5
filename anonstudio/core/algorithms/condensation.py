"""Condensation-based anonymization of strings: groups of at least k strings are replaced by pseudo-strings
generated from the group's statistics.

Reference: C. C. Aggarwal and P. S. Yu, "A framework for condensation-based anonymization of string data",
Data Mining and Knowledge Discovery 16 (2008) 251–275 (extended version of "On anonymization of string data",
SDM 2007). Section, figure and equation numbers below are the DMKD paper's.

The pipeline, one function per step:

- :func:`homogenize_length` — Fig. 1 (greedy) or the dynamic programme §4.5 suggests (``"optimal"``);
- :func:`convert_length` — ConvertLength, §3 / Fig. 2 (sparse templates);
- :func:`create_groups` — CreateGroups, §4 / Fig. 3, distance of Eq. 3, §4.2 re-assignment test;
- :func:`group_statistics` — ``Fs`` (Eq. 2), ``Sc`` (Eq. 1) and ``O_s`` (Eq. 4), sparse;
- :func:`generation_templates` — the length pseudo-strings are generated at (group, segment or whole input);
- :func:`generate_group` — generation, §4.3 (order 2) and §4.6 (order s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anonstudio.core.algorithms._base import Algorithm, Result
from anonstudio.core.errors import ParameterError, PrivacyError
from anonstudio.core.limits import MAX_FRAGMENT
from anonstudio.core.params import Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report, subrange

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import SequenceSet

_CHUNK_GROUPS = 16
_BLOCK = 32  # centroids whose distances are computed together (0: one at a time)
_MAX_PASSES = 25
_MAX_REDRAWS = 200
_INDEX_MIN_SYMBOLS = 64
#: a near-copy's window is redrawn until it is this many edits beyond the rule's (a window left just outside
#: the rule would keep the verifier aligning it against every input of its family)
_NEAR_MARGIN = 2


def _chunk(n_rem: int) -> int:
    """Groups per kernel call on the inverted-index path: a group's distances cost about the templates still
    unassigned, so fewer groups a call while many are (progress and Cancel between calls; the groups do not
    depend on it)."""
    return max(2, min(_CHUNK_GROUPS, _CHUNK_GROUPS * 16384 // max(n_rem, 1)))


def _kernels():
    from anonstudio.core.kernels import _condensation

    return _condensation


# ---------------------------------------------------------------------------------------------------------
# HomogenizeLength
@dataclass
class Segmentation:
    """Segments of strings of similar length.

    Attributes
    ----------
    segment:
        ``int64`` per string: its segment, -1 when suppressed.
    count:
        Number of segments.
    suppressed:
        Strings in no segment.
    ranges:
        ``(min length, max length)`` per segment.
    """

    segment: np.ndarray
    count: int
    suppressed: int
    ranges: list[tuple[int, int]]


def homogenize_length(lengths: np.ndarray, k: int, epsilon: float, method: str = "greedy") -> Segmentation:
    """Segment strings by length into ranges ``[l, (1+ε) l]`` holding at least ``k`` strings each.

    ``method="greedy"`` is HomogenizeLength (Fig. 1): from the smallest length ``L_min``, the strings in
    ``[L_min, (1+ε) L_min]`` form a segment if there are at least ``k`` of them, otherwise the smallest string
    is suppressed. ``method="optimal"`` is the dynamic programme of §4.5: contiguous ranges of the sorted lengths
    with the same ε and k constraints that suppress as few strings as possible. Empty strings are always
    suppressed.
    """
    import numpy as np

    K = _kernels()
    lengths = np.asarray(lengths, dtype=np.int64)
    seg = np.full(len(lengths), -1, np.int64)
    valid = np.flatnonzero(lengths > 0)
    order = valid[np.argsort(lengths[valid], kind="stable")]
    sorted_lengths = lengths[order].astype(np.float64)
    if len(order):
        fn = K.homogenize_optimal if method == "optimal" else K.homogenize_greedy
        seg_sorted, count = fn(sorted_lengths, int(k), float(epsilon))
        seg[order] = seg_sorted
    else:
        count = 0
    ranges = []
    for s in range(int(count)):
        ls = lengths[seg == s]
        ranges.append((int(ls.min()), int(ls.max())))
    return Segmentation(seg, int(count), int((seg < 0).sum()), ranges)


# ---------------------------------------------------------------------------------------------------------
# ConvertLength
@dataclass
class Templates:
    """Extended template strings of one segment, stored sparsely (§3).

    ``symbols[t, i, w]`` is a symbol code (-1 = empty slot) and ``values[t, i, w]`` its normalised frequency
    ``f_{i,symbol}(T_t)``; each position holds at most ``width = ⌈max L_j / L⌉ + 1 ≤ ⌈1+ε⌉ + 1`` symbols, so memory
    does not depend on the alphabet size. ``strings`` are the indices of the input strings, ``length`` is ``L``.
    """

    symbols: np.ndarray
    values: np.ndarray
    strings: np.ndarray
    length: int

    def __len__(self) -> int:
        return len(self.strings)

    def dense(self, t: int, n_symbols: int) -> np.ndarray:
        """Template ``t`` as an ``L x n_symbols`` frequency matrix (for inspection and tests)."""
        import numpy as np

        out = np.zeros((self.length, n_symbols))
        for i in range(self.length):
            for c, v in zip(self.symbols[t, i], self.values[t, i]):
                if c >= 0:
                    out[i, c] += v
        return out


def position_frequencies(codes: np.ndarray, p: float, q: float) -> dict[int, float]:
    """Normalised symbol frequencies of the real interval ``[p, q]`` of a string (§3, Fig. 2): string position
    ``m`` (1-based) covers ``[m-1, m]`` and counts with the length of its overlap with ``[p, q]``. With
    ``p = 1.3, q = 5.4`` over ``?DDRED?`` this is D 2.1/4.1, R 1/4.1, E 1/4.1."""
    import numpy as np

    codes = np.asarray(codes)
    width = int(np.ceil(q - p)) + 2
    sym = np.empty(width, np.int32)
    val = np.empty(width, np.float64)
    n = _kernels().span_frequencies(codes, float(p), float(q), sym, val)
    return {int(sym[i]): float(val[i]) for i in range(n)}


def template_length(lengths: np.ndarray) -> int:
    """``L = ⌈Σ L_j / N⌉`` (§3)."""
    import numpy as np

    return int(math.ceil(float(np.sum(lengths)) / len(lengths) - 1e-12))


def convert_length(data: SequenceSet, strings: np.ndarray, length: int | None = None) -> Templates:
    """ConvertLength(S_j, L) for the given strings (§3, Fig. 2).

    Position ``i`` (1-based) of template ``T_j`` covers ``[(i-1) L_j / L, i L_j / L]`` of ``S_j``; string position
    ``m`` covers ``[m-1, m]`` and contributes the length of its overlap (fractions at both ends); the frequencies
    are normalised per position to sum to one.
    """
    import numpy as np

    strings = np.asarray(strings, dtype=np.int64)
    lengths = data.lengths[strings]
    L = template_length(lengths) if length is None else int(length)
    width = int(np.max(np.ceil(lengths / L - 1e-12))) + 1
    sym, val = _kernels().build_templates(data.codes, data.offsets, strings, L, width)
    return Templates(sym, val, strings, L)


# ---------------------------------------------------------------------------------------------------------
# CreateGroups
@dataclass
class Grouping:
    """Groups of one segment: ``labels`` per template (0..count-1), the objective (mean Eq. 3 distance of the
    templates to their group centroid) after each pass, and what the §4.2 re-assignment test did."""

    labels: np.ndarray
    count: int
    objective: list[float]
    moved: int
    dissolved: int
    reassignment_kept: bool


def _objective(K, tpl: Templates, labels: np.ndarray, count: int, dense: np.ndarray) -> float:
    import numpy as np

    ptr, mem = K.group_members(labels, count)
    return float(np.mean(K.own_distances(tpl.symbols, tpl.values, ptr, mem, dense)))


def _assign_leftovers(K, tpl: Templates, labels, count, remaining, n_rem, dense) -> None:
    if n_rem == 0:
        return
    left = remaining[:n_rem].copy()
    ptr, mem = K.group_members(labels, count)
    best_g, _ = K.nearest_centroids(tpl.symbols, tpl.values, ptr, mem, left, dense)
    labels[left] = best_g


def create_groups(
    tpl: Templates,
    k: int,
    n_symbols: int,
    rng: np.random.Generator,
    progress: ProgressCallback | None = None,
    *,
    reassignment: bool = True,
) -> Grouping:
    """CreateGroups (§4, Fig. 3) on one segment's templates.

    1. First pass: templates in random order; each unassigned one seeds a group with its ``k-1`` nearest
       unassigned templates (Eq. 3). Fewer than ``k`` left over: each joins the nearest centroid.
    2. Later passes: the previous groups' centroids, in random order, each take the ``k`` nearest unassigned
       templates; leftovers again join the nearest new centroid. Passes repeat until the objective (mean
       distance of templates to their centroids) improves by less than 1 %; the last grouping is kept.
    3. §4.2 re-assignment test on the last grouping (:func:`anonstudio.core.kernels._condensation.reassign`): a
       group is dissolved into the nearest other groups when that lowers its templates' distances; templates of
       groups larger than ``k`` move to nearer groups. Kept only if the objective, recomputed, is lower.

    Every group has at least ``k`` templates. With small alphabets the Eq. 3 distances to ``_BLOCK`` centroids
    are computed together on both cores (:func:`~anonstudio.core.kernels._condensation.block_distances`), each
    summed as one centroid at a time sums it, so the groups are the same; large alphabets go through an inverted
    index of (position, symbol) cells.
    """
    import numpy as np

    K = _kernels()
    n = len(tpl)
    if n < k:
        raise ParameterError(f"a segment has {n} strings, fewer than k = {k}")
    sym, val = tpl.symbols, tpl.values
    dense = np.zeros((tpl.length, n_symbols))
    expected = n // k
    # large alphabets (item sequences): distances through an inverted index of (position, symbol) cells,
    # rebuilt on the unassigned templates whenever they have halved
    use_index = n_symbols > _INDEX_MIN_SYMBOLS
    keys = np.empty(min(n * sym.shape[2], n_symbols) * tpl.length if use_index else 1, np.int64)
    sim = np.zeros(n if use_index else 1)
    no_index = (False, np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64), keys, sim)
    indexed = [0]

    def index_of(subset: np.ndarray) -> tuple:
        if not use_index:
            return no_index
        indexed[0] = len(subset)
        return (True, *K.build_index(sym, val, n_symbols, subset), keys, sim)

    # small alphabets (proteins, DNA): distances to _BLOCK centroids at once, on both cores (the same groups as
    # one centroid at a time: block_distances sums each distance as template_distance does)
    blocked = not use_index and _BLOCK > 0
    if blocked:
        cents = np.zeros((tpl.length, n_symbols, _BLOCK))
        block = np.empty((n, _BLOCK))
        row_of = np.empty(n, np.int64)

    def refresh(ix: tuple, remaining: np.ndarray, n_rem: int) -> tuple:
        if use_index and n_rem < indexed[0] // 2:
            return index_of(remaining[:n_rem])
        return ix

    def first_pass() -> tuple[np.ndarray, int]:
        labels = np.full(n, -1, np.int64)
        remaining = np.arange(n, dtype=np.int64)
        assigned = np.zeros(n, np.bool_)
        order = rng.permutation(n).astype(np.int64)
        pos, n_rem, g = 0, n, 0
        ix = index_of(remaining)
        while n_rem >= k:
            if not blocked:
                ix = refresh(ix, remaining, n_rem)
                pos, n_rem, g = K.seed_pass_chunk(sym, val, k, order, pos, remaining, n_rem, assigned, labels, g,
                                                  _chunk(n_rem), dense, *ix)
            else:
                pos, n_rem, g = K.seed_pass_block(sym, val, k, order, pos, remaining, n_rem, assigned, labels, g,
                                                  _BLOCK, cents, block, row_of)
            report(sub_pass, g / max(expected, 1), f"grouping: pass 1, {g} groups")
        _assign_leftovers(K, tpl, labels, g, remaining, n_rem, dense)
        return labels, g

    def centroid_pass(labels: np.ndarray, count: int, p: int) -> tuple[np.ndarray, int]:
        prev_ptr, prev_mem = K.group_members(labels, count)
        seed_order = rng.permutation(count).astype(np.int64)
        new = np.full(n, -1, np.int64)
        remaining = np.arange(n, dtype=np.int64)
        assigned = np.zeros(n, np.bool_)
        pos, n_rem, g = 0, n, 0
        ix = index_of(remaining)
        while pos < count and n_rem >= k:
            if not blocked:
                ix = refresh(ix, remaining, n_rem)
                pos, n_rem, g = K.centroid_pass_chunk(sym, val, k, prev_ptr, prev_mem, seed_order, pos, remaining,
                                                      n_rem, assigned, new, g, _chunk(n_rem), dense, *ix)
            else:
                pos, n_rem, g = K.centroid_pass_block(sym, val, k, prev_ptr, prev_mem, seed_order, pos, remaining,
                                                      n_rem, assigned, new, g, _BLOCK, cents, block, row_of)
            report(sub_pass, g / max(count, 1), f"grouping: pass {p}, {g} groups")
        _assign_leftovers(K, tpl, new, g, remaining, n_rem, dense)
        return new, g

    sub_pass = subrange(progress, 0.0, 0.3)
    labels, count = first_pass()
    objective = [_objective(K, tpl, labels, count, dense)]
    for p in range(2, _MAX_PASSES + 1):
        sub_pass = subrange(progress, min(0.3 + 0.1 * (p - 2), 0.75), min(0.3 + 0.1 * (p - 1), 0.8))
        labels, count = centroid_pass(labels, count, p)
        objective.append(_objective(K, tpl, labels, count, dense))
        prev, cur = objective[-2], objective[-1]
        if prev <= 0 or (prev - cur) / prev < 0.01:
            break

    moved = dissolved = 0
    kept = False
    if reassignment and count > 1:
        sub = subrange(progress, 0.8, 1.0)
        ptr, mem = K.group_members(labels, count)
        own_d = K.own_distances(sym, val, ptr, mem, dense)
        best_g = np.full(n, -1, np.int64)
        best_d = np.full(n, np.inf)
        ix = index_of(np.arange(n, dtype=np.int64))
        step = _BLOCK if blocked else _CHUNK_GROUPS
        for g0 in range(0, count, step):
            if not blocked:
                K.best_other_centroids(sym, val, labels, ptr, mem, g0, min(count, g0 + step), best_g, best_d, dense,
                                       *ix)
            else:
                K.best_other_block(sym, val, labels, ptr, mem, g0, min(count, g0 + step), best_g, best_d, cents,
                                   block)
            report(sub, g0 / count, "grouping: re-assignment test")
        trial = labels.copy()
        moved, dissolved = K.reassign(trial, count, k, rng.permutation(count).astype(np.int64), own_d, best_g,
                                      best_d)
        if moved:
            trial, trial_count = K.relabel(trial)
            obj = _objective(K, tpl, trial, trial_count, dense)
            if obj < objective[-1] and np.bincount(trial).min() >= k:
                labels, count, kept = trial, int(trial_count), True
                objective.append(obj)
        if not kept:
            moved = dissolved = 0
    report(progress, 1.0, "grouping done")
    return Grouping(labels, int(count), objective, int(moved), int(dissolved), kept)


# ---------------------------------------------------------------------------------------------------------
# statistics and generation
def group_statistics(tpl: Templates, members: np.ndarray, order: int, position: int) -> tuple[np.ndarray, np.ndarray]:
    """Sparse order-``order`` statistics of a group at 0-based start ``position``: the non-zero
    ``O_s(q_1..q_s, r, G) = Σ_j f_{r q_1}(T_j) ··· f_{(r+s-1) q_s}(T_j)`` (Eq. 4; ``s = 1``: ``Fs`` of Eq. 2,
    ``s = 2``: ``Sc`` of Eq. 1). Returns ``(symbols[n, s], values[n])``."""
    import numpy as np

    if not 0 <= position <= tpl.length - order:
        raise ValueError(f"position {position} out of range for order {order} and length {tpl.length}")
    width = tpl.symbols.shape[2]
    max_out = len(members) * width**order
    return _kernels().order_statistics(tpl.symbols, tpl.values, np.asarray(members, np.int64), order, position,
                                       max_out)


LENGTH_MODES = ("group", "segment", "database")


def generation_templates(data: SequenceSet, tpl: Templates, members: np.ndarray, mode: str,
                         database_length: int) -> tuple[Templates, np.ndarray]:
    """The templates a group's pseudo-strings are generated from, and the group's rows in them.

    ``mode="segment"``: the segment's templates of length ``L`` as they are (§4.3). ``"group"``: the group's
    strings converted again (ConvertLength, §3) to ``⌈mean length⌉`` of the group. ``"database"``: converted to
    ``database_length``, the mean length of the whole input (the generated length of §5, Figs. 4–7).
    """
    import numpy as np

    if mode == "segment":
        return tpl, members
    strings = tpl.strings[members]
    length = template_length(data.lengths[strings]) if mode == "group" else int(database_length)
    if length == tpl.length:
        return tpl, members
    return convert_length(data, strings, length), np.arange(len(members), dtype=np.int64)


def generate_group(tpl: Templates, members: np.ndarray, order: int, n_symbols: int, count: int,
                   rng: np.random.Generator, dtype="int32") -> np.ndarray:
    """``count`` pseudo-strings of length ``L`` from the group's statistics (§4.3; order ``s`` as in §4.6)."""
    import numpy as np

    out = np.zeros((count, tpl.length), np.int32)
    uniforms = rng.random((count, tpl.length))
    members = np.asarray(members, np.int64)
    if order == 2:  # the same draws from statistics tabulated once per position
        _kernels().generate_group_order2(tpl.symbols, tpl.values, members, uniforms, int(n_symbols), out)
    else:
        _kernels().generate_group(tpl.symbols, tpl.values, members, int(order), uniforms, int(n_symbols), out)
    return out.astype(dtype)


def _draw_group(tpl: Templates, members: np.ndarray, order: int, n_symbols: int, rng: np.random.Generator,
                dtype, originals: set, count: int | None = None) -> tuple[list[np.ndarray], int] | None:
    """``count`` (default: one per member) pseudo-strings of the group, each drawn again while it equals an
    input string; ``None`` when a string keeps reproducing an input (the group's statistics leave no other
    choice)."""
    rows = list(generate_group(tpl, members, order, n_symbols, len(members) if count is None else int(count), rng,
                               dtype))
    redraws = 0
    for r in range(len(rows)):
        tries = 0
        while rows[r].tobytes() in originals:
            tries += 1
            if tries > _MAX_REDRAWS:
                return None
            redraws += 1
            rows[r] = generate_group(tpl, members, order, n_symbols, 1, rng, dtype)[0]
    return rows, redraws


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


# ---------------------------------------------------------------------------------------------------------
class Condensation(Algorithm):
    """Condensation of strings into pseudo-strings (Aggarwal & Yu, DMKD 2008).

    Strings are segmented by length (Fig. 1, or the optimal DP of §4.5), converted to probabilistic templates of
    the segment's mean length (§3, Fig. 2), grouped into groups of at least ``k`` templates with the distance of
    Eq. 3 (§4, Fig. 3, §4.2), summarised by first- and higher-order statistics (Eqs. 1, 2, 4) and replaced by
    ``n(G)`` pseudo-strings per group (§4.3, §4.6), all of one length (``length``, below). No pseudo-string
    equals an input string: a generated string that does is drawn again.

    Output headers are ``pseudo_<n> segment=<s> group=<g>``; ``output.extra["groups"]`` holds the group of each
    pseudo-string and ``Result.groups`` the group of each input string (-1: suppressed by HomogenizeLength, or
    in a group whose every draw reproduces an input).

    Identical input strings count once (issue 28), as in the verifier's fragment and near-copy rules: lengths
    are segmented, groups formed and statistics taken over the distinct strings, so every group holds at least
    ``k`` distinct strings, and a group publishes one pseudo-string per record it holds (copies included).

    Parameters
    ----------
    k : int
        Anonymity level: every group holds at least ``k`` strings and yields ``n(G)`` pseudo-strings.
    epsilon : float
        Length similarity of Definition 2.1: a segment's lengths lie within ``[l, (1+ε) l]``.
    order : int
        Order ``s`` of the statistics used for generation (2: Eqs. 1–2, §4.3; ``s > 2``: Eq. 4, §4.6).
    seed : int
        Seed of every random choice (seeds of the first pass, pass order, generation).
    segmentation : {"greedy", "optimal"}
        HomogenizeLength of Fig. 1, or the dynamic programme §4.5 suggests (fewest suppressed strings).
    length : {"group", "segment", "database"}
        Length of the generated pseudo-strings (see :func:`generation_templates`). ``"segment"`` is §4.3 as
        printed (every pseudo-string of a segment has the segment's template length ``L``); ``"database"`` is the
        setting of §5's Figs. 4–7 (the mean length of the whole input); ``"group"`` (the default) applies §3's
        ``L = ⌈Σ L_j / N⌉`` to the group's own strings. Groups are formed on the segment's templates in every
        mode; only the statistics used for generation are taken from the group re-templated at that length.
        Why ``"group"`` is the default: with ``"segment"`` all groups of a segment get the same length while
        Needleman–Wunsch distances are dominated by lengths, so the inter-group distance ordering of Eq. 6 is a
        coin toss between group pairs of the same two segments (yeast 1,000, k = 20, seeds 1–5: 0.84–0.91
        preserved with ``"segment"``, 0.95–0.995 with ``"group"``; ``tests/core/experiments/test_condensation_yeast.py``).
        A group's mean length is an aggregate of at least ``k`` strings, like the rest of its statistics, and
        all its pseudo-strings share it, so the pseudo-strings of a group stay indistinguishable.

    References
    ----------
    C. C. Aggarwal, P. S. Yu. A framework for condensation-based anonymization of string data. Data Mining and
    Knowledge Discovery 16(3):251–275, 2008 (extended version of "On anonymization of string data", SDM 2007).
    """

    name = "condensation"
    keyed_draws = True
    result_view = "Composition"
    title = "Condensation (pseudo-strings)"
    data_kind = "fasta"
    reference = ("C. C. Aggarwal, P. S. Yu. A framework for condensation-based anonymization of string data. "
                 "Data Mining and Knowledge Discovery 16:251-275, 2008")
    description = ("groups similar strings (proteins, DNA, item sequences) in groups of at least k and publishes "
                   "pseudo-strings drawn from each group's statistics instead of the originals")
    output_kind = "fasta"
    privacy_models = ("pseudo-strings: groups of at least k", "no input published exactly (forwards or backwards)",
                      "fragment rule (max_fragment)", "near-copy rule (near_copy_identity, near_copy_length)")
    reported_metrics = ("CD", "distance_order_preserved", "knn_accuracy", "longest_shared_substring")
    titles = {"epsilon": "ε — length tolerance", "order": "Order of the statistics", "segmentation": "Length segmentation",
              "length": "Pseudo-string length", "max_fragment": "Longest fragment shared with few inputs",
              "near_copy_identity": "Near-copy identity (share)", "near_copy_length": "Near-copy window (symbols)"}
    parameters = ParamSet((
        Param("k", "int", 20, "anonymity level: every group holds at least k distinct strings (§2, §4; identical "
              "strings count once)", low=2),
        Param("epsilon", "float", 1.5, "length similarity: a segment's lengths lie in [l, (1+ε) l] (Def. 2.1)",
              low=0.0, low_open=True),
        Param("order", "int", 2, "order of the statistics used to generate pseudo-strings (§4.3: 2, §4.6: s)",
              low=2, high=8),
        Param("seed", "int", 1, "random seed: the same seed gives the same pseudo-strings", low=0),
        Param("segmentation", "choice", "greedy",
              "length segmentation: greedy (Fig. 1) or optimal (dynamic programming, §4.5)",
              choices=("greedy", "optimal")),
        Param("length", "choice", "group",
              "length of the pseudo-strings: the mean length of their group (default), of their segment (§4.3 "
              "as printed) or of the whole input (§5, Figs. 4–7)",
              choices=LENGTH_MODES),
        # the verifier's DEFAULT_MAX_FRAGMENT (privacy/_strings.py), written out so that declaring the method
        # imports no verifier (`anonstudio methods` stays light, issue 17); a test keeps the two equal
        Param("max_fragment", "int", 20,
              "longest run of symbols a pseudo-string may share with fewer than k inputs, minus one: no "
              "substring of this many symbols held by 1..k-1 inputs is published (symbols)", low=2,
              high=MAX_FRAGMENT),
        # the verifier's DEFAULT_NEAR_COPY_IDENTITY / _LENGTH (privacy/_near_copies.py), written out likewise
        Param("near_copy_identity", "float", 0.9,
              "identity from which a window of near_copy_length symbols counts as a near-copy: no window within "
              "⌊(1 − identity)·length⌋ edits (substituted, inserted or deleted symbols) of a stretch held by 1..k-1 "
              "inputs is published, read forwards or backwards (share of symbols; below 0.9 the check slows)",
              low=0.8, high=1.0),
        Param("near_copy_length", "int", 60,
              "length of the windows the near-copy rule compares with the inputs (symbols; shorter pseudo-strings "
              "have none; at most 64: a window is aligned as one 64-bit word)", low=30, high=64),
    ))

    def privacy_model(self) -> dict[str, Any]:
        return {"model": "pseudo-strings", "k": self.params["k"], "max_fragment": self.params["max_fragment"],
                "near_copy_identity": self.params["near_copy_identity"],
                "near_copy_length": self.params["near_copy_length"], "length": self.params["length"]}

    def run(self, data: SequenceSet, hierarchies: dict | None = None, progress: ProgressCallback | None = None) -> Result:
        import numpy as np

        from anonstudio.core.data import SequenceSet

        k, eps, order = self.params["k"], self.params["epsilon"], self.params["order"]
        src = getattr(data, "source", None)
        n = len(data)
        if n == 0:
            raise ParameterError("the input holds no strings", file=src)
        if k > n:
            raise ParameterError(f"k = {k} is larger than the number of strings ({n})", file=src, key="algorithm.k")
        # Groups are formed over the distinct contents (identical strings count once, as in the verifier's
        # fragment and near-copy rules: issue 28) and each content's statistics weigh once; a group publishes
        # one pseudo-string per record it holds. Without this, ten copies of one protein form a group of
        # their own whose pseudo-strings, each far enough from it, vote it back position by position.
        contents, _, content_of = data.distinct()
        copies = np.bincount(content_of, minlength=len(contents))
        if k > len(contents):
            raise PrivacyError(
                f"the input holds {len(contents)} distinct strings ({n} records; identical strings count once), "
                f"fewer than k = {k}: no group of k distinct strings can form (lower k)", file=src)
        # the release key's seed when the job wrote none (keyed_draws), else the seed given (experiments)
        rng = np.random.default_rng(self.keyed_seed if self.keyed_seed is not None else self.params["seed"])
        n_symbols = len(data.alphabet)
        lengths = contents.lengths
        length_mode = self.params["length"]
        report(progress, 0.0, "segmenting by length")
        segs = {m: homogenize_length(lengths, k, eps, m) for m in ("greedy", "optimal")}
        seg = segs[self.params["segmentation"]]
        if seg.count == 0:
            raise PrivacyError(
                f"no length range [l, (1+ε)·l] with ε = {eps:g} holds k = {k} distinct strings: every string would "
                "be suppressed (raise epsilon or lower k)", file=src)
        report(progress, 0.01, "noting the input strings")
        originals = {data.codes_of(i).tobytes() for i in range(n)}
        if self.params["max_fragment"]:
            # the inputs' fragment index (shared with the verifier and the metric) builds on the other core while
            # the groups form, ready when the rare fragments are broken (started after the segmentation's kernels
            # have loaded: numba loads one cached kernel at a time)
            from anonstudio.core.privacy import FragmentIndex

            FragmentIndex.of(data, prefetch=True)
        database_length = template_length(lengths[seg.segment >= 0])
        groups = np.full(len(contents), -1, np.int64)  # per distinct content
        out_codes: list[np.ndarray] = []
        out_groups: list[int] = []
        out_segments: list[int] = []
        seg_info: list[dict] = []
        redraws = 0
        uncondensable = uncondensable_strings = 0
        next_group = 0
        total_len = max(int(lengths[seg.segment >= 0].sum()), 1)
        done_len = 0
        for s in range(seg.count):
            strings = np.flatnonzero(seg.segment == s)
            seg_len = int(lengths[strings].sum())
            sub = subrange(progress, 0.02 + 0.95 * done_len / total_len, 0.02 + 0.95 * (done_len + seg_len) / total_len)
            done_len += seg_len
            report(sub, 0.0, f"segment {s + 1}/{seg.count}: templates")
            tpl = convert_length(contents, strings)
            grouping = create_groups(tpl, k, n_symbols, rng, subrange(sub, 0.05, 0.9))
            report(sub, 0.9, f"segment {s + 1}/{seg.count}: generating pseudo-strings")
            ptr, mem = _kernels().group_members(grouping.labels, grouping.count)
            kept_groups = 0
            generated_lengths = []
            for g in range(grouping.count):
                if g and g % 256 == 0:
                    report(sub, 0.9 + 0.1 * g / grouping.count,
                           f"segment {s + 1}/{seg.count}: generating pseudo-strings, group {g}/{grouping.count}")
                members = mem[ptr[g] : ptr[g + 1]]
                gen_tpl, gen_rows = generation_templates(contents, tpl, members, length_mode, database_length)
                records = int(copies[strings[members]].sum())  # one pseudo-string per record, copies included
                rows = _draw_group(gen_tpl, gen_rows, order, n_symbols, rng, data.codes.dtype, originals, records)
                if rows is None:
                    # every draw reproduces an input (short strings over few symbols): the group cannot be condensed
                    groups[strings[members]] = -1
                    uncondensable += 1
                    uncondensable_strings += records
                    continue
                redraws += rows[1]
                generated_lengths.append(gen_tpl.length)
                gid = next_group + kept_groups
                groups[strings[members]] = gid
                for row in rows[0]:
                    out_codes.append(row)
                    out_groups.append(gid)
                    out_segments.append(s)
                kept_groups += 1
            seg_info.append({
                "segment": s, "strings": int(copies[strings].sum()), "distinct_strings": int(len(strings)),
                "min_length": seg.ranges[s][0],
                "max_length": seg.ranges[s][1], "template_length": tpl.length, "groups": kept_groups,
                "generated_lengths": ([min(generated_lengths), max(generated_lengths)] if generated_lengths
                                      else []),
                "passes": len(grouping.objective) - (1 if grouping.reassignment_kept else 0),
                "objective": [round(v, 6) for v in grouping.objective],
                "reassigned_strings": grouping.moved, "dissolved_groups": grouping.dissolved,
            })
            next_group += kept_groups
        m = len(out_codes)
        if m == 0:
            raise PrivacyError("no group could be condensed: every pseudo-string drawn equals an input string",
                               file=src)
        report(progress, 0.95, "removing rare fragments and near-copies")
        # the group of each record (copies share their content's); compositions count each content once
        record_groups = groups[content_of]
        first_copy = np.zeros(n, bool)
        first_copy[np.unique(content_of, return_index=True)[1]] = True
        fix = enforce_content_rules(data, out_codes, out_groups, np.where(first_copy, record_groups, -1), k,
                                    self.params["max_fragment"],
                                    self.params["near_copy_identity"], self.params["near_copy_length"], rng,
                                    originals, progress=subrange(progress, 0.95, 0.995))
        suppressed_by_segmentation = int(copies[seg.segment < 0].sum())
        suppressed = suppressed_by_segmentation + uncondensable_strings
        ids = [f"pseudo_{i + 1}" for i in range(m)]
        # segments numbered 0, 1, … in order among those published (a segment whose groups were all suppressed
        # leaves no gap): the header's numbers are fixed by the grouping, the only form the verifier accepts
        dense = {s: i for i, s in enumerate(dict.fromkeys(out_segments))}
        headers = [f"pseudo_{i + 1} segment={dense[out_segments[i]]} group={out_groups[i]}" for i in range(m)]
        offsets = np.zeros(m + 1, np.int64)
        np.cumsum([len(c) for c in out_codes], out=offsets[1:])
        codes = np.concatenate(out_codes).astype(data.codes.dtype) if m else np.zeros(0, data.codes.dtype)
        output = SequenceSet(ids, headers, codes, offsets, data.alphabet)
        output.extra["groups"] = np.asarray(out_groups, np.int64)
        output.extra["segments"] = np.asarray(out_segments, np.int64)
        report(progress, 1.0, "condensation done")
        notes = []
        if seg.suppressed:
            notes.append(f"{suppressed_by_segmentation} strings fit no length segment of ≥ {k} distinct strings within "
                         "(1+ε) and were "
                         f"suppressed ({self.params['segmentation']} segmentation)")
        if fix["fragment_strings"]:
            notes.append(f"{fix['fragment_strings']} pseudo-strings were drawn with a fragment of ≥ "
                         f"{self.params['max_fragment']} symbols found in fewer than {k} inputs (read forwards or "
                         f"backwards); {fix['fragment_symbols']} symbols were redrawn from their group's composition "
                         "to break them")
        if fix["near_copy_strings"]:
            notes.append(f"{fix['near_copy_strings']} pseudo-strings were drawn with a window of "
                         f"{self.params['near_copy_length']} symbols at identity ≥ {self.params['near_copy_identity']:g} "
                         f"to a stretch of fewer than {k} inputs; {fix['near_copy_symbols']} symbols were redrawn "
                         "from their group's composition to break them")
        if uncondensable:
            notes.append(f"{uncondensable} groups ({uncondensable_strings} strings) were suppressed: every "
                         "pseudo-string they could generate equals an input string")
        return Result(
            output=output,
            groups=record_groups,
            suppressed=suppressed,
            metrics={
                "segments": seg.count,
                "suppressed_by_segmentation": {name: int(copies[sg.segment < 0].sum()) for name, sg in segs.items()},
                "redrawn_pseudo_strings": redraws,
                "uncondensable_groups": uncondensable,
                "uncondensable_strings": uncondensable_strings,
                "max_fragment": self.params["max_fragment"],
                "rare_fragment_strings_drawn": fix["fragment_strings"],
                "rare_fragment_symbols_redrawn": fix["fragment_symbols"],
                "near_copy_identity": self.params["near_copy_identity"],
                "near_copy_length": self.params["near_copy_length"],
                "near_copy_strings_drawn": fix["near_copy_strings"],
                "near_copy_symbols_redrawn": fix["near_copy_symbols"],
            },
            details={"segments": seg_info, "segment_of_input": seg.segment[content_of]},
            notes=notes,
        )

    def evaluate(self, data: SequenceSet, result: Result, hierarchies: dict | None = None,
                 progress: ProgressCallback | None = None) -> dict:
        """Composition difference CD (Eq. 5), inter-group distance ordering (Eq. 6 over all strings of ``m = 20``
        sampled group pairs, unit-cost Needleman–Wunsch, named in ``distance_order_scoring``), group sizes,
        exact copies and the longest substring shared with an input (against strings drawn from the overall
        composition); with class labels (``label_pattern`` or one file per class) also the k-NN accuracy of §5.1,
        trained on originals and on per-class pseudo-strings, tested on the same held-out 10 % of the originals."""
        import numpy as np

        from anonstudio.core import metrics

        out = result.output
        seed = self.params["seed"]
        report(progress, 0.0, "composition")
        cd = metrics.compositional_difference(metrics.composition(data), metrics.composition(out))
        report(progress, 0.1, "distance ordering")
        ordering = metrics.distance_order_preserved(
            data, result.groups, out, out.extra["groups"], pairs=20, strings_per_group=None, seed=seed)
        report(progress, 0.6, "fragments")
        sizes = np.bincount(result.groups[result.groups >= 0])
        frag = metrics.fragment_leak(data, out, seed=seed)
        report(progress, 0.65, "the attacker who holds an input")
        own = metrics.own_group_found(data, result.groups, out, out.extra["groups"])
        if own["inputs"]:
            result.notes.append(
                f"a limit of condensation: an attacker who holds an input finds its own group among the published "
                f"ones for {own['found']:,} of {own['inputs']:,} inputs ({own['share']:.1%}), by comparing the input "
                "with each group's pseudo-strings position by position — the groups hide which of their k inputs a "
                "pseudo-string came from, not which group an input is in: treat a group's statistics as "
                "disclosed about each of its members")
        extra = {}
        labels = data.labels
        if labels is not None and len(set(labels)) >= 2:
            counts = np.unique(np.asarray(labels), return_counts=True)[1]
            if counts.min() >= 2 * self.params["k"]:
                report(progress, 0.7, "k-NN classification")
                max_test, max_train = knn_sample_sizes(data)
                knn = knn_original_vs_pseudo(
                    data, labels, k=self.params["k"], epsilon=self.params["epsilon"], order=self.params["order"],
                    seed=seed, length=self.params["length"], segmentation=self.params["segmentation"],
                    test_size=0.1, max_test=max_test, max_train=max_train, progress=subrange(progress, 0.7, 1.0))
                extra["knn_accuracy_original"] = round(knn["accuracy_original"], 4)
                extra["knn_accuracy_pseudo"] = round(knn["accuracy_pseudo"], 4)
                if knn["sampled"]:
                    extra["knn_sample"] = {"test": knn["test"], "train": knn["train"]}
                    result.notes.append(
                        f"k-NN accuracy measured on a sample ({knn['test']} test strings, {knn['train']} training "
                        f"strings of each kind): the whole set would take {knn['full_cells'] / KNN_CELL_BUDGET:.0f}x "
                        "the alignment work this report allows")
        report(progress, 1.0, "metrics done")
        return {
            **extra,
            "CD": round(cd, 6),
            "distance_order_preserved": round(ordering["preserved"], 6),
            "distance_order_pairs": ordering["group_pairs"],
            "distance_order_scoring": "unit-cost Needleman-Wunsch",
            "group_size": {"min": int(sizes.min()), "max": int(sizes.max()), "mean": round(float(sizes.mean()), 3)},
            "exact_copies": metrics.exact_copies(data, out),
            "own_group_found": own,
            "longest_shared_substring": frag,
        }


# ---------------------------------------------------------------------------------------------------------
# the §5.1 utility experiment: it produces pseudo-strings, so it lives with the method, not in metrics

#: alignment cells (length x length) each k-NN classifier of a run's report may cost (about 3 s of the
#: bit-parallel kernel): larger inputs are measured on a sample (issue 29: 20,000 proteins sat 14 minutes in
#: this phase). The experiments (``condensation-knn``) measure the whole split.
KNN_CELL_BUDGET = 10_000_000_000
#: test strings a run's report measures k-NN accuracy on, at most
KNN_MAX_TEST = 100


def knn_sample_sizes(data: SequenceSet) -> tuple[int, int]:
    """``(max_test, max_train)`` for the k-NN figures of a run's report: at most :data:`KNN_MAX_TEST` test
    strings, and as many training strings as keep one classifier within :data:`KNN_CELL_BUDGET` cells."""
    mean = float(data.lengths.mean()) if len(data) else 1.0
    test = min(KNN_MAX_TEST, max(1, round(0.1 * len(data))))
    return test, max(1, int(KNN_CELL_BUDGET / (test * mean * mean)))


def knn_original_vs_pseudo(
    data: SequenceSet,
    labels=None,
    *,
    k: int = 20,
    epsilon: float = 1.5,
    order: int = 2,
    seed: int = 1,
    length: str = "group",
    segmentation: str = "greedy",
    test_size: int | float = 0.1,
    max_test: int | None = None,
    max_train: int | None = None,
    n_neighbors: int = 5,
    distance: str = "nw",
    classifier: str = "knn",
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """§5.1: hold out a test set of original strings; train the classifier once on the remaining originals
    and once on pseudo-strings condensed separately per class (each pseudo-string labelled with the class of
    the strings it came from); report both accuracies on the same test set, and a control: the accuracy when
    trained on the originals with each string's items shuffled (composition kept, order lost). ``k``, ``epsilon``, ``order``,
    ``seed``, ``length`` and ``segmentation`` are the condensation's parameters; ``classifier`` is ``"knn"``
    (``n_neighbors``, ``distance``; Figs. 10–11) or ``"wavrule"`` (Aggarwal 2002, Figs. 12–13,
    :mod:`anonstudio.core.metrics._wavrule`). ``max_test`` / ``max_train`` (``None``: all) measure on a random
    sample of the split: the training sample is drawn class by class, in proportion, and keeps at least 2k
    strings of each class (condensation needs k per group)."""
    import numpy as np

    from anonstudio.core.data import SequenceSet
    from anonstudio.core.metrics._strings import _subset, knn_accuracy
    from anonstudio.core.metrics._wavrule import wavrule_accuracy

    if classifier not in ("knn", "wavrule"):
        raise ParameterError(f"classifier must be 'knn' or 'wavrule', got {classifier!r}", column="classifier")

    def accuracy(train, train_labels, test, test_labels, progress):
        if classifier == "wavrule":
            return wavrule_accuracy(train, train_labels, test, test_labels)
        return knn_accuracy(train, train_labels, test, test_labels, n_neighbors=n_neighbors, distance=distance,
                            progress=progress)

    labels = np.asarray(labels if labels is not None else data.labels)
    if labels is None or labels.shape == () or len(labels) != len(data):
        raise ParameterError("k-NN classification needs one class label per string (label_pattern or one file per "
                             "class)", file=data.source)
    rng = np.random.default_rng(seed)
    n = len(data)
    n_test = int(round(test_size * n)) if isinstance(test_size, float) else int(test_size)
    if not 0 < n_test < n:
        raise ParameterError(f"test_size gives {n_test} test strings of {n}", column="test_size")
    perm = rng.permutation(n)
    test_idx, train_idx = np.sort(perm[:n_test]), np.sort(perm[n_test:])
    full_cells = float(data.lengths[test_idx].sum()) * float(data.lengths[train_idx].sum())
    sampled = False
    if max_test is not None and len(test_idx) > max_test:
        test_idx, sampled = np.sort(rng.choice(test_idx, max_test, replace=False)), True
    if max_train is not None and len(train_idx) > max_train:
        keep = []
        for cls in np.unique(labels[train_idx]):
            members = train_idx[labels[train_idx] == cls]
            share = max(min(len(members), 2 * k), round(max_train * len(members) / len(train_idx)))
            keep.append(rng.choice(members, min(share, len(members)), replace=False))
        train_idx, sampled = np.sort(np.concatenate(keep)), True
    test = _subset(data, test_idx)
    train = _subset(data, train_idx)
    acc_orig = accuracy(train, labels[train_idx], test, labels[test_idx], subrange(progress, 0.0, 0.3))
    # control: the originals with the items of each string shuffled — composition kept, order lost — to show how
    # much of the originals' accuracy comes from the order of items (which condensation's statistics do not keep)
    shuffled_codes = train.codes.copy()
    for i in range(len(train)):
        lo, hi = int(train.offsets[i]), int(train.offsets[i + 1])
        shuffled_codes[lo:hi] = rng.permutation(shuffled_codes[lo:hi])
    shuffled = SequenceSet(train.ids, train.headers, shuffled_codes, train.offsets, train.alphabet)
    acc_shuffled = accuracy(shuffled, labels[train_idx], test, labels[test_idx], subrange(progress, 0.3, 0.4))
    pseudo_parts, pseudo_labels = [], []
    suppressed = 0
    classes = np.unique(labels[train_idx])
    for ci, cls in enumerate(classes):
        idx = train_idx[labels[train_idx] == cls]
        part = _subset(data, idx)
        res = Condensation(k=k, epsilon=epsilon, order=order, seed=seed + ci, length=length,
                           segmentation=segmentation).run(
            part, {}, subrange(progress, 0.4 + 0.3 * ci / len(classes), 0.4 + 0.3 * (ci + 1) / len(classes)))
        pseudo_parts.append(res.output)
        pseudo_labels += [cls] * len(res.output)
        suppressed += res.suppressed
    codes = np.concatenate([p.codes for p in pseudo_parts])
    lengths = np.concatenate([p.lengths for p in pseudo_parts])
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids = [f"pseudo_{i + 1}" for i in range(len(lengths))]
    pseudo = SequenceSet(ids, list(ids), codes, offsets, data.alphabet)
    acc_pseudo = accuracy(pseudo, np.asarray(pseudo_labels), test, labels[test_idx], subrange(progress, 0.7, 1.0))
    return {"accuracy_original": float(acc_orig), "accuracy_pseudo": float(acc_pseudo),
            "accuracy_original_shuffled": float(acc_shuffled), "test": int(len(test_idx)),
            "train": int(len(train_idx)), "pseudo_train": int(len(pseudo)), "suppressed": int(suppressed),
            "sampled": sampled, "full_cells": full_cells}
