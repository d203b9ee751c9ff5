"""IBM-Quest-style item sequences (Agrawal & Srikant 1994), as used by Aggarwal & Yu (000, §5.1–5.2).

000 builds its classification data sets V20.I4.D100K and V20.I6.D100K from two instances of the Quest
market-basket generator (T20.I4.D50K, T20.I6.D50K) with different random seeds; the instance a record
comes from is its class. §5.2 varies the average length ``T`` for scalability. Names follow Quest:
``T`` average sequence length, ``I`` average pattern ("potentially large itemset") length, ``D`` number of
sequences.

The generator follows Agrawal & Srikant's §2.4.3, with sequences in place of baskets (item order kept):

1. A pool of ``n_patterns`` patterns. Sizes are Poisson with mean ``I`` (at least 1). The first pattern's
   items are random; each later pattern takes a fraction of its items from the previous one (the fraction
   exponentially distributed with mean ``correlation``, capped at 1, order kept) and the rest at random,
   inserted at random positions.
2. Each pattern gets a weight (exponential with unit mean, normalized) — its probability of being picked —
   and a corruption level (normal with mean 0.5 and variance 0.1, clipped to [0, 1]).
3. A sequence's target length is Poisson with mean ``T`` (at least 1). Patterns are picked by weight and
   corrupted by dropping a random item while a uniform draw is below its corruption level, then
   appended. A pattern that does not fit is appended anyway in half the cases (ending the sequence);
   otherwise it starts the next sequence.

The average sequence length comes out close to ``T``.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.data import NAMED_ALPHABETS
from anonstudio.core.errors import ParameterError
from anonstudio.core.generate._common import make_rng

#: Item names when there are at most 25 items: the ``protein-25`` letters, so the sequences can be written
#: as FASTA and read back with that alphabet.
LETTERS = NAMED_ALPHABETS["protein-25"]


def item_names(n_items: int) -> list[str]:
    """Names of ``n_items`` items: single letters (``A C D …``) up to 25 items, ``i1 … iN`` beyond."""
    if n_items <= len(LETTERS):
        return list(LETTERS[:n_items])
    return [f"i{j + 1}" for j in range(n_items)]


def _patterns(rng: np.random.Generator, n_patterns: int, I: float, n_items: int, correlation: float) -> list[np.ndarray]:
    pool: list[np.ndarray] = []
    prev = np.empty(0, dtype=np.int64)
    for _ in range(n_patterns):
        size = max(1, int(rng.poisson(I)))
        take = 0
        if len(prev):
            frac = min(1.0, rng.exponential(correlation))
            take = min(size, len(prev), int(round(frac * size)))
        kept = np.sort(rng.choice(len(prev), size=take, replace=False)) if take else np.empty(0, dtype=np.int64)
        pattern = list(prev[kept])
        for item in rng.integers(0, n_items, size - take):
            pattern.insert(int(rng.integers(0, len(pattern) + 1)), int(item))
        prev = np.asarray(pattern, dtype=np.int64)
        pool.append(prev)
    return pool


#: IBM Quest's default number of patterns in the pool (the generator of Agrawal & Srikant 1994/1995)
QUEST_PATTERNS = 2000


def quest_sequences(
    D: int,
    T: float = 20.0,
    I: float = 4.0,
    n_items: int = 20,
    seed: int | np.random.Generator = 0,
    *,
    n_patterns: int = QUEST_PATTERNS,
    correlation: float = 0.5,
) -> list[list[str]]:
    """``D`` Quest-style item sequences.

    Parameters
    ----------
    D:
        Number of sequences.
    T:
        Average sequence length (000 uses 20, and varies it in §5.2).
    I:
        Average pattern length (000 uses 4 and 6).
    n_items:
        Number of distinct items (names from :func:`item_names`).
    seed:
        Seed of the numpy generator. Two seeds give two independent pattern pools: 000 §5.1 uses this to
        make a two-class data set.
    n_patterns, correlation:
        Size of the pattern pool (Quest's default, 2,000; a small pool makes each instance's sequences repeat
        a few patterns, which makes two instances trivially separable) and the mean fraction of items a
        pattern shares with the previous one.

    Returns
    -------
    list[list[str]]
        One list of item names per sequence.
    """
    D, n_items, n_patterns = int(D), int(n_items), int(n_patterns)
    if D < 1:
        raise ParameterError(f"D (the number of sequences) must be at least 1, got {D}", column="D")
    if not T >= 1:
        raise ParameterError(f"T (the average sequence length) must be at least 1, got {T:g}", column="T")
    if not I >= 1:
        raise ParameterError(f"I (the average pattern length) must be at least 1, got {I:g}", column="I")
    if n_items < 2:
        raise ParameterError(f"the number of items must be at least 2, got {n_items}", column="items")
    if n_patterns < 1:
        raise ParameterError(f"the number of patterns must be at least 1, got {n_patterns}", column="patterns")
    rng = make_rng(seed)
    pool = [p.tolist() for p in _patterns(rng, n_patterns, float(I), n_items, float(correlation))]
    weights = rng.exponential(1.0, n_patterns)
    weights /= weights.sum()
    corruption = np.clip(rng.normal(0.5, np.sqrt(0.1), n_patterns), 0.0, 1.0)
    names = np.asarray(item_names(n_items), dtype=object)

    sequences: list[list[str]] = []
    carry: list[int] | None = None
    picks = iter(())
    while len(sequences) < D:
        target = max(1, int(rng.poisson(T)))
        seq: list[int] = []
        while True:
            if carry is not None:
                items, carry = carry, None
            else:
                j = next(picks, None)
                if j is None:
                    picks = iter(rng.choice(n_patterns, size=1024, p=weights).tolist())
                    j = next(picks)
                items = list(pool[j])
                c = corruption[j]
                while items and rng.random() < c:
                    del items[int(rng.integers(0, len(items)))]
                if not items:
                    continue
            if len(seq) + len(items) <= target:
                seq.extend(items)
                if len(seq) == target:
                    break
            elif not seq or rng.random() < 0.5:
                seq.extend(items)
                break
            else:
                carry = items
                break
        sequences.append(names[seq].tolist())
    return sequences
