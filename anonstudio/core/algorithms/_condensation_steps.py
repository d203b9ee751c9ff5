"""The steps of condensation (Aggarwal & Yu, DMKD 2008), one function per step, as
:class:`~anonstudio.core.algorithms.condensation.Condensation` runs them:

- :func:`homogenize_length` — Fig. 1 (greedy) or the dynamic programme §4.5 suggests (``"optimal"``);
- :func:`convert_length` — ConvertLength, §3 / Fig. 2 (sparse templates);
- :func:`create_groups` — CreateGroups, §4 / Fig. 3, distance of Eq. 3, §4.2 re-assignment test;
- :func:`group_statistics` — ``Fs`` (Eq. 2), ``Sc`` (Eq. 1) and ``O_s`` (Eq. 4), sparse;
- :func:`generation_templates` — the length pseudo-strings are generated at (group, segment or whole input);
- :func:`generate_group` — generation, §4.3 (order 2) and §4.6 (order s).

Section, figure and equation numbers are the DMKD paper's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonstudio.core.errors import ParameterError
from anonstudio.core.progress import ProgressCallback, report, subrange

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import SequenceSet

_CHUNK_GROUPS = 16
_BLOCK = 32  # centroids whose distances are computed together (0: one at a time)
_MAX_PASSES = 25
_MAX_REDRAWS = 200
_INDEX_MIN_SYMBOLS = 64


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
