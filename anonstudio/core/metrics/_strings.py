"""Utility and privacy measures for strings and pseudo-strings (Aggarwal & Yu, DMKD 2008, §5).

- :func:`composition`, :func:`compositional_difference` — symbol histograms and CD (Eq. 5);
- :func:`needleman_wunsch`, :func:`group_distance`, :func:`distance_order_preserved` — Needleman–Wunsch
  distances, ``Gdist`` (Eq. 6) and the fraction of preserved inter-group distance orderings;
- :func:`knn_accuracy`, :func:`knn_original_vs_pseudo` — k-nearest-neighbour classification (§5.1);
- :func:`exact_copies`, :func:`longest_shared_substring`, :func:`fragment_leak` — privacy diagnostics.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonstudio.core.data import SequenceSet
from anonstudio.core.errors import InputError, ParameterError
from anonstudio.core.progress import ProgressCallback, report

_BLOSUM62_ALPHABET = "ARNDCQEGHILKMFPSTWYVBZX*"
_BLOSUM62_ROWS = (
    "4 -1 -2 -2 0 -1 -1 0 -2 -1 -1 -1 -1 -2 -1 1 0 -3 -2 0 -2 -1 0 -4",
    "-1 5 0 -2 -3 1 0 -2 0 -3 -2 2 -1 -3 -2 -1 -1 -3 -2 -3 -1 0 -1 -4",
    "-2 0 6 1 -3 0 0 0 1 -3 -3 0 -2 -3 -2 1 0 -4 -2 -3 3 0 -1 -4",
    "-2 -2 1 6 -3 0 2 -1 -1 -3 -4 -1 -3 -3 -1 0 -1 -4 -3 -3 4 1 -1 -4",
    "0 -3 -3 -3 9 -3 -4 -3 -3 -1 -1 -3 -1 -2 -3 -1 -1 -2 -2 -1 -3 -3 -2 -4",
    "-1 1 0 0 -3 5 2 -2 0 -3 -2 1 0 -3 -1 0 -1 -2 -1 -2 0 3 -1 -4",
    "-1 0 0 2 -4 2 5 -2 0 -3 -3 1 -2 -3 -1 0 -1 -3 -2 -2 1 4 -1 -4",
    "0 -2 0 -1 -3 -2 -2 6 -2 -4 -4 -2 -3 -3 -2 0 -2 -2 -3 -3 -1 -2 -1 -4",
    "-2 0 1 -1 -3 0 0 -2 8 -3 -3 -1 -2 -1 -2 -1 -2 -2 2 -3 0 0 -1 -4",
    "-1 -3 -3 -3 -1 -3 -3 -4 -3 4 2 -3 1 0 -3 -2 -1 -3 -1 3 -3 -3 -1 -4",
    "-1 -2 -3 -4 -1 -2 -3 -4 -3 2 4 -2 2 0 -3 -2 -1 -2 -1 1 -4 -3 -1 -4",
    "-1 2 0 -1 -3 1 1 -2 -1 -3 -2 5 -1 -3 -1 0 -1 -3 -2 -2 0 1 -1 -4",
    "-1 -1 -2 -3 -1 0 -2 -3 -2 1 2 -1 5 0 -2 -1 -1 -1 -1 1 -3 -1 -1 -4",
    "-2 -3 -3 -3 -2 -3 -3 -3 -1 0 0 -3 0 6 -4 -2 -2 1 3 -1 -3 -3 -1 -4",
    "-1 -2 -2 -1 -3 -1 -1 -2 -2 -3 -3 -1 -2 -4 7 -1 -1 -4 -3 -2 -2 -1 -2 -4",
    "1 -1 1 0 -1 0 0 0 -1 -2 -2 0 -1 -2 -1 4 1 -3 -2 -2 0 0 0 -4",
    "0 -1 0 -1 -1 -1 -1 -2 -2 -1 -1 -1 -1 -2 -1 1 5 -2 -2 0 -1 -1 0 -4",
    "-3 -3 -4 -4 -2 -2 -3 -2 -2 -3 -2 -3 -1 1 -4 -3 -2 11 2 -3 -4 -3 -2 -4",
    "-2 -2 -2 -3 -2 -1 -2 -3 2 -1 -1 -2 -1 3 -3 -2 -2 2 7 -1 -3 -2 -1 -4",
    "0 -3 -3 -3 -1 -2 -2 -3 -3 3 1 -2 1 -1 -2 -2 0 -3 -1 4 -3 -2 -1 -4",
    "-2 -1 3 4 -3 0 1 -1 0 -3 -4 0 -3 -3 -2 0 -1 -4 -3 -3 4 1 -1 -4",
    "-1 0 0 1 -3 3 4 -2 0 -3 -3 1 -1 -3 -1 0 -1 -3 -2 -2 1 4 -1 -4",
    "0 -1 -1 -1 -2 -1 -1 -1 -1 -1 -1 -1 -1 -1 -2 0 0 -2 -1 -1 -1 -1 -1 -4",
    "-4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 1",
)
#: BLAST's default affine gap penalties with BLOSUM62 (open 11, extend 1): a gap of ``g`` residues costs
#: ``11 + g`` (BLAST's convention; Biopython's PairwiseAligner with open_gap_score=-12, extend_gap_score=-1)
BLOSUM62_GAPS = (11.0, 1.0)


def _align():
    from anonstudio.core.kernels import _alignment

    return _alignment


def _check_alphabets(a: SequenceSet, b: SequenceSet) -> None:
    if tuple(a.alphabet.symbols) != tuple(b.alphabet.symbols):
        raise InputError(
            f"alphabet mismatch: {a.alphabet.name} ({len(a.alphabet)} symbols) vs {b.alphabet.name} "
            f"({len(b.alphabet)} symbols); compare strings over the same alphabet",
            file=getattr(b, "source", None) or getattr(a, "source", None),
        )


def blosum62(alphabet) -> np.ndarray:
    """BLOSUM62 indexed by the codes of ``alphabet`` (symbols it lacks, e.g. U and O, score as X)."""
    rows = np.array([[int(x) for x in r.split()] for r in _BLOSUM62_ROWS], dtype=np.float64)
    idx = {s: i for i, s in enumerate(_BLOSUM62_ALPHABET)}
    sym = [idx.get(s.upper(), idx["X"]) if len(s) == 1 else idx["X"] for s in alphabet.symbols]
    return rows[np.ix_(sym, sym)].copy()


# ---------------------------------------------------------------------------------------------------------
# composition
def composition(data: SequenceSet) -> np.ndarray:
    """Fraction of each alphabet symbol over all strings (the histograms of Figs. 4–7)."""
    counts = np.bincount(data.codes.astype(np.int64), minlength=len(data.alphabet)).astype(np.float64)
    total = counts.sum()
    return counts / total if total else counts


def compositional_difference(f: np.ndarray, f_prime: np.ndarray) -> float:
    """CD (Eq. 5): ``Σ_i |f_i − f'_i|`` over the alphabet (0 = identical histograms).

    Computed exactly as Eq. 5 is written; its range is [0, 2] (2 for disjoint alphabets), although the paper's
    prose calls it a fraction between 0 and 1 — halve it for the total-variation reading."""
    f = np.asarray(f, dtype=np.float64)
    f_prime = np.asarray(f_prime, dtype=np.float64)
    if f.shape != f_prime.shape:
        raise InputError(f"alphabet mismatch: histograms of {f.shape[0]} and {f_prime.shape[0]} symbols")
    return float(np.abs(f - f_prime).sum())


# ---------------------------------------------------------------------------------------------------------
# Needleman–Wunsch distances and the ordering of Eq. 6
def _scoring(alphabet, scoring: str):
    if scoring == "unit":
        return True, np.zeros((1, 1)), 0.0, 0.0
    if scoring == "blosum62":
        return False, blosum62(alphabet), BLOSUM62_GAPS[0], BLOSUM62_GAPS[1]
    raise ParameterError(f"scoring must be 'unit' or 'blosum62', got {scoring!r}", column="scoring")


def needleman_wunsch(a: np.ndarray, b: np.ndarray, *, scoring: str = "unit", alphabet=None) -> float:
    """Needleman–Wunsch distance between two code arrays: unit costs, or BLOSUM62 with affine gaps (open 11,
    extend 1; a gap of g residues costs 11 + g) turned into a distance ``(S(a,a) + S(b,b)) / 2 − S(a,b)`` (``alphabet`` needed)."""
    A = _align()
    if scoring == "unit":
        return float(A.nw_unit_distance(np.asarray(a), np.asarray(b)))
    _, matrix, go, ge = _scoring(alphabet, scoring)
    a, b = np.asarray(a), np.asarray(b)
    s_ab = A.nw_affine_score(a, b, matrix, go, ge)
    return float(0.5 * (matrix[a, a].sum() + matrix[b, b].sum()) - s_ab)


def distance_block(A_set: SequenceSet, idx_a, B_set: SequenceSet, idx_b, *, scoring: str = "unit") -> np.ndarray:
    """Needleman–Wunsch distances between strings ``idx_a`` of one set and ``idx_b`` of another."""
    _check_alphabets(A_set, B_set)
    A = _align()
    unit, matrix, go, ge = _scoring(A_set.alphabet, scoring)
    idx_a = np.asarray(idx_a, np.int64)
    idx_b = np.asarray(idx_b, np.int64)
    if unit:
        self_a = self_b = np.zeros(1)
    else:
        self_a = A.self_scores(A_set.codes, A_set.offsets, matrix)
        self_b = A.self_scores(B_set.codes, B_set.offsets, matrix)
    return A.block_distances(A_set.codes, A_set.offsets, idx_a, B_set.codes, B_set.offsets, idx_b, matrix, go, ge,
                             self_a, self_b, unit)


def group_distance(data: SequenceSet, group_a, group_b, *, scoring: str = "unit") -> float:
    """``Gdist(G_1, G_2) = Σ_{S_i ∈ G_1, S_j ∈ G_2} NW(S_i, S_j)`` (Eq. 6); groups are index arrays."""
    return float(distance_block(data, group_a, data, group_b, scoring=scoring).sum())


def distance_order_preserved(
    original: SequenceSet,
    original_groups: np.ndarray,
    pseudo: SequenceSet,
    pseudo_groups: np.ndarray,
    *,
    pairs: int = 20,
    strings_per_group: int | None = None,
    scoring: str = "unit",
    seed: int = 0,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Fraction of preserved inter-group distance orderings (§5, Eq. 6).

    ``m = pairs`` distinct pairs of groups are sampled; for each, ``v = Gdist(G_1, G_2)`` on the original strings
    and ``v' = Gdist(G'_1, G'_2)`` on the pseudo-strings. Of the ``m (m−1) / 2`` pairs of pairs, the fraction
    whose relative order is the same for ``v`` and ``v'`` (ties count as preserved only when tied in both).
    ``strings_per_group`` samples that many strings of each group (the mean over the sampled pairs, scaled to
    the full ``|G_1| |G_2|`` pairs, estimates ``Gdist``); ``None`` uses every string as the paper does.
    """
    _check_alphabets(original, pseudo)
    original_groups = np.asarray(original_groups)
    pseudo_groups = np.asarray(pseudo_groups)
    ids = np.intersect1d(np.unique(original_groups[original_groups >= 0]), np.unique(pseudo_groups))
    rng = np.random.default_rng(seed)
    g = len(ids)
    all_pairs = g * (g - 1) // 2
    if all_pairs < 2:
        return {"preserved": float("nan"), "group_pairs": 0, "original": [], "pseudo": []}
    m = min(pairs, all_pairs)
    chosen: set[tuple[int, int]] = set()
    if m == all_pairs:
        chosen = {(i, j) for i in range(g) for j in range(i + 1, g)}
    else:
        while len(chosen) < m:
            i, j = rng.choice(g, 2, replace=False)
            chosen.add((min(i, j), max(i, j)))
    members_o = {gid: np.flatnonzero(original_groups == gid) for gid in ids}
    members_p = {gid: np.flatnonzero(pseudo_groups == gid) for gid in ids}

    def sample(idx: np.ndarray) -> np.ndarray:
        if strings_per_group is None or len(idx) <= strings_per_group:
            return idx
        return np.sort(rng.choice(idx, strings_per_group, replace=False))

    v, v_prime = [], []
    for step, (i, j) in enumerate(sorted(chosen)):
        ga, gb = ids[i], ids[j]
        for data, members, out in ((original, members_o, v), (pseudo, members_p, v_prime)):
            a, b = members[ga], members[gb]
            sa, sb = sample(a), sample(b)
            block = distance_block(data, sa, data, sb, scoring=scoring)
            out.append(float(block.mean()) * len(a) * len(b))
        report(progress, (step + 1) / m, "distance ordering")
    v = np.asarray(v)
    v_prime = np.asarray(v_prime)
    iu = np.triu_indices(len(v), 1)
    s1 = np.sign(v[iu[0]] - v[iu[1]])
    s2 = np.sign(v_prime[iu[0]] - v_prime[iu[1]])
    return {"preserved": float(np.mean(s1 == s2)), "group_pairs": int(len(v)), "original": v.tolist(),
            "pseudo": v_prime.tolist()}


# ---------------------------------------------------------------------------------------------------------
# k-nearest-neighbour classification (§5.1)
def _distance_matrix(test: SequenceSet, train: SequenceSet, distance: str, progress) -> np.ndarray:
    if distance == "composition":
        def hist(s: SequenceSet) -> np.ndarray:
            h = np.zeros((len(s), len(s.alphabet)))
            rows = np.repeat(np.arange(len(s)), s.lengths)
            np.add.at(h, (rows, s.codes.astype(np.int64)), 1.0)
            return h / np.maximum(s.lengths, 1)[:, None]

        a, b = hist(test), hist(train)
        out = np.empty((len(test), len(train)))
        for r in range(len(test)):  # row by row: test x train x alphabet at once can take gigabytes
            out[r] = np.abs(b - a[r]).sum(axis=1)
        return out
    if distance not in ("nw", "blosum62"):
        raise ParameterError(f"distance must be nw, blosum62 or composition, got {distance!r}", column="distance")
    scoring = "unit" if distance == "nw" else "blosum62"
    out = np.empty((len(test), len(train)))
    budget = CELLS_PER_CALL if scoring == "unit" else CELLS_PER_CALL // 16  # affine scoring: ~16x slower a cell
    total = max(float(test.lengths.sum()) * float(train.lengths.sum()), 1.0)
    done = 0.0
    for rows, cols in work_blocks(test.lengths, train.lengths, budget):
        out[np.ix_(rows, cols)] = distance_block(test, rows, train, cols, scoring=scoring)
        done += float(test.lengths[rows].sum()) * float(train.lengths[cols].sum())
        report(progress, done / total, "k-NN distances")  # between blocks: Cancel and stop signals act here
    return out


#: alignment cells (length x length) one kernel call of the k-NN distances may take: about 0.1 s of the
#: bit-parallel kernel, so a Cancel or a stop signal waits no longer than that (issue 29: one call of 100 test
#: strings against 18,000 took minutes, and SIGTERM 50 s to act)
CELLS_PER_CALL = 400_000_000


def work_blocks(len_a: np.ndarray, len_b: np.ndarray, budget: int):
    """``(rows, cols)`` index blocks covering ``len(len_a) x len(len_b)``, each of at most ``budget`` cells
    (``sum(len_a[rows]) * sum(len_b[cols])``; a single pair may exceed it)."""
    len_a = np.asarray(len_a, dtype=np.float64)
    len_b = np.asarray(len_b, dtype=np.float64)
    total_b = float(len_b.sum())
    ends_b = np.cumsum(len_b)
    i, n_a, n_b = 0, len(len_a), len(len_b)
    while i < n_a:
        j, width = i + 1, len_a[i]
        while j < n_a and (width + len_a[j]) * total_b <= budget:
            width += len_a[j]
            j += 1
        rows = np.arange(i, j)
        start = 0
        while start < n_b:
            # as many columns as fit the budget beside these rows (at least one)
            limit = (ends_b[start - 1] if start else 0.0) + budget / max(width, 1.0)
            stop = max(start + 1, int(np.searchsorted(ends_b, limit, side="right")))
            yield rows, np.arange(start, min(stop, n_b))
            start = stop
        i = j


def knn_accuracy(train: SequenceSet, train_labels, test: SequenceSet, test_labels, *, n_neighbors: int = 5,
                 distance: str = "nw", progress: ProgressCallback | None = None) -> float:
    """Accuracy of a k-nearest-neighbour classifier trained on ``train`` and tested on ``test`` (majority vote of
    the ``n_neighbors`` nearest by ``distance``: ``nw`` unit-cost Needleman–Wunsch, ``blosum62`` or
    ``composition``; vote ties go to the class of the nearest neighbour among the tied)."""
    _check_alphabets(train, test)
    train_labels = np.asarray(train_labels)
    test_labels = np.asarray(test_labels)
    if len(train) == 0 or len(test) == 0:
        raise ParameterError("k-NN needs a non-empty training and test set")
    d = _distance_matrix(test, train, distance, progress)
    kk = min(n_neighbors, len(train))
    nearest = np.argsort(d, axis=1, kind="stable")[:, :kk]
    correct = 0
    for r in range(len(test)):
        labs = train_labels[nearest[r]]
        values, counts = np.unique(labs, return_counts=True)
        top = values[counts == counts.max()]
        pred = next(lab for lab in labs if lab in top)
        correct += pred == test_labels[r]
    return correct / len(test)


def _subset(data: SequenceSet, idx: np.ndarray) -> SequenceSet:
    idx = np.asarray(idx, np.int64)
    lengths = data.lengths[idx]
    offsets = np.zeros(len(idx) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = np.concatenate([data.codes_of(i) for i in idx]) if len(idx) else data.codes[:0]
    labels = [data.labels[i] for i in idx] if data.labels is not None else None
    return SequenceSet([data.ids[i] for i in idx], [data.headers[i] for i in idx], codes, offsets, data.alphabet,
                       labels, data.source)


# ---------------------------------------------------------------------------------------------------------
# privacy diagnostics
def _binned_profiles(data: SequenceSet, bins: int) -> np.ndarray:
    """Per string, its symbol counts in each of ``bins`` stretches of equal relative length (``float[n, bins, A]``):
    position ``p`` of a string of length ``L`` falls in stretch ``⌊p · bins / L⌋``, so strings of any length compare."""
    n, a = len(data), len(data.alphabet)
    out = np.zeros((n, bins, a), dtype=np.float64)
    lengths = data.lengths
    if not len(data.codes):
        return out
    owner = np.repeat(np.arange(n), lengths)
    position = np.arange(len(data.codes)) - np.repeat(data.offsets[:-1], lengths)
    stretch = (position * bins) // np.repeat(np.maximum(lengths, 1), lengths)
    np.add.at(out, (owner, stretch, data.codes.astype(np.int64)), 1.0)
    return out


def own_group_found(original: SequenceSet, input_groups: np.ndarray, pseudo: SequenceSet,
                    pseudo_groups: np.ndarray, *, bins: int = 128) -> dict[str, Any]:
    """The share of inputs whose own group an attacker holding the input finds among the published groups (issue 39
    item 10: a limit of condensation, measured by this project; not a measure of the paper).

    Condensation (Aggarwal & Yu 2008) publishes each group's pseudo-strings tagged with the group, drawn from the
    symbol statistics of its k inputs by position. The attacker holds one input ``x`` and scores every group by
    the log-likelihood of ``x``'s symbols under the group's positional profile — the pseudo-strings' symbol
    frequencies in ``bins`` stretches of equal relative length (add-one smoothing) — plus how far ``x``'s length
    is from the group's (in log length, the groups are formed by length); the best-scoring group is the guess. It
    hides which of a group's k inputs a pseudo-string came from; it does not hide which group an input is in.

    Returns ``{"inputs", "found", "share", "bins"}`` over the inputs that have a group (``input_groups >= 0``)."""
    _check_alphabets(original, pseudo)
    input_groups = np.asarray(input_groups, dtype=np.int64)
    pseudo_groups = np.asarray(pseudo_groups, dtype=np.int64)
    judged = np.flatnonzero(input_groups >= 0)
    if not len(judged) or not len(pseudo):
        return {"inputs": int(len(judged)), "found": 0, "share": 0.0, "bins": bins}
    groups, dense = np.unique(pseudo_groups, return_inverse=True)
    a = len(original.alphabet)
    profile = np.zeros((len(groups), bins, a), dtype=np.float64)
    np.add.at(profile, dense, _binned_profiles(pseudo, bins))
    profile += 1.0
    log_p = np.log(profile / profile.sum(axis=2, keepdims=True)).reshape(len(groups), bins * a)
    log_length = np.log(np.maximum(pseudo.lengths, 1).astype(np.float64))
    group_length = np.bincount(dense, weights=log_length) / np.bincount(dense)
    found = 0
    for start in range(0, len(judged), 256):  # a block of inputs at a time: memory bounded whatever the count
        rows = judged[start:start + 256]
        sub = SequenceSet([original.ids[i] for i in rows], [original.headers[i] for i in rows],
                          np.concatenate([original.codes_of(int(i)) for i in rows]),
                          np.concatenate([[0], np.cumsum(original.lengths[rows])]).astype(np.int64),
                          original.alphabet)
        x = _binned_profiles(sub, bins).reshape(len(rows), bins * a)
        length = np.log(np.maximum(sub.lengths, 1).astype(np.float64))
        score = x @ log_p.T - np.abs(length[:, None] - group_length[None, :]) * sub.lengths[:, None]
        guess = groups[np.argmax(score, axis=1)]
        found += int((guess == input_groups[rows]).sum())
    return {"inputs": int(len(judged)), "found": found, "share": found / len(judged), "bins": bins}


def exact_copies(original: SequenceSet, pseudo: SequenceSet) -> int:
    """Number of pseudo-strings identical to some input string (must be 0)."""
    _check_alphabets(original, pseudo)
    seen = {original.codes_of(i).astype(np.int64).tobytes() for i in range(len(original))}
    return int(sum(pseudo.codes_of(i).astype(np.int64).tobytes() in seen for i in range(len(pseudo))))


def longest_shared_substring(original: SequenceSet, *queries: SequenceSet, cap: int | None = None):
    """For each string of each query set: the length of the longest substring it shares with any string of
    ``original``. Returns one array per query set (a single array when one set is given).

    The length grows one symbol at a time; at each length only the original positions whose shorter prefix
    occurred in a query still matching are kept (64-bit rolling hashes in open-addressing tables), so the work
    shrinks quickly after the first few lengths."""
    for q in queries:
        _check_alphabets(original, q)
    A = _align()
    h_orig = A.prefix_hashes(original.codes)
    starts = np.arange(len(original.codes), dtype=np.int64)
    ends_all = np.repeat(original.offsets[1:], original.lengths).astype(np.int64)
    results = []
    for q in queries:
        res = np.zeros(len(q), np.int64)
        h_q = A.prefix_hashes(q.codes)
        active = np.arange(len(q), dtype=np.int64)
        cand, cand_end = starts, ends_all
        limit = int(q.lengths.max()) if len(q) else 0
        if cap is not None:
            limit = min(limit, cap)
        lam = 1
        while len(active) and lam <= limit:
            hit, cand, cand_end = A.shared_kgram_step(h_orig, cand, cand_end, h_q, q.offsets, active, lam)
            active = active[hit]
            res[active] = lam
            lam += 1
        results.append(res)
    return results[0] if len(results) == 1 else results


def fragment_leak(original: SequenceSet, pseudo: SequenceSet, *, seed: int = 0) -> dict[str, float]:
    """The "fragment" diagnostic: longest substring each pseudo-string shares with an input, next to the same
    figure for strings of the same lengths drawn symbol by symbol from the inputs' overall composition (what
    shared fragments chance alone produces)."""
    _check_alphabets(original, pseudo)
    rng = np.random.default_rng(seed)
    f = composition(original)
    codes = rng.choice(len(f), size=int(pseudo.offsets[-1]), p=f).astype(original.codes.dtype)
    baseline = SequenceSet(list(pseudo.ids), list(pseudo.ids), codes, pseudo.offsets.copy(), original.alphabet)
    # the inputs' one suffix-automaton index, shared with the verifier's fragment rule (built once a run)
    from anonstudio.core.privacy import FragmentIndex

    index = FragmentIndex.of(original)
    own, base = index.longest_shared(pseudo), index.longest_shared(baseline)
    return {
        "pseudo_mean": round(float(own.mean()), 3) if len(own) else 0.0,
        "pseudo_max": int(own.max()) if len(own) else 0,
        "random_mean": round(float(base.mean()), 3) if len(base) else 0.0,
        "random_max": int(base.max()) if len(base) else 0,
    }
