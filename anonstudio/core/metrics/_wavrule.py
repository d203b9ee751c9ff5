"""WavRule: a rule-based string classifier over a Haar wavelet representation (Aggarwal, "On effective
classification of strings with wavelets", ACM KDD 2002), the second classifier of paper 000 §5.1
(Figs. 12–13, Table 2).

The published description (KDD 2002 §2–§4): each string is turned into the wavelet decomposition of its
symbol indicator series, which records *which symbols occur where* at several resolutions; rules relate the
presence of such multi-resolution patterns to the class label with a minimum support and confidence; a test
string is classified by the rules it matches. The paper gives no code and leaves several choices open. **Our
interpretation**, stated here and in docs/measured.md (The papers' experiments):

- **Representation.** For string ``x`` of length ``n`` and resolution level ``j = 0 … levels-1`` the string is cut
  into ``2**j`` dyadic segments (positions ``p`` with ``p·2**j // n = s``). The Haar *approximation* coefficient of
  symbol ``a`` in segment ``s`` is ``a``'s share of the segment; we keep the binary item "``a`` occurs in segment
  ``s`` of level ``j``" (coefficient > 0). The Haar *detail* coefficient of a segment is the difference of its two
  halves' shares; we keep its sign as the item "``a`` leans to the left / right half of segment ``s``" (non-zero
  details only). Level 0 is the string's composition; deeper levels say where in the string a symbol sits.
- **Rules.** Antecedents are one item, or two items that are both frequent in the class (the ``pair_pool`` most
  frequent items of each class); a rule ``X ⇒ c`` is kept when its support in class ``c`` (the share of the
  class's training strings containing ``X``) is at least ``min_support`` and its confidence
  ``P(c | X)`` at least ``min_confidence``. A pair rule is kept only when it is more confident than both its
  items alone (otherwise it adds nothing).
- **Classification.** The *best matching rule* decides: among the rules whose antecedent the test string
  contains, the one of highest confidence (ties: higher support, then the rule found first); a string that
  matches no rule gets the training set's majority class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from anonstudio.core.data import SequenceSet
from anonstudio.core.errors import ParameterError


def _check(levels: int, min_support: float, min_confidence: float) -> None:
    if not 1 <= int(levels) <= 8:
        raise ParameterError(f"WavRule levels must be 1 to 8, got {levels}", column="levels")
    if not 0 < min_support <= 1:
        raise ParameterError(f"WavRule min_support must be in (0, 1], got {min_support}", column="min_support")
    if not 0 < min_confidence <= 1:
        raise ParameterError(f"WavRule min_confidence must be in (0, 1], got {min_confidence}", column="min_confidence")


def wavelet_items(data: SequenceSet, levels: int = 3) -> sparse.csr_matrix:
    """The binary multi-resolution items of every string (rows) as a sparse 0/1 matrix.

    Columns: for each level ``j`` the ``2**j · σ`` presence items (segment, symbol), then for each level
    ``j < levels-1`` the ``2 · 2**j · σ`` detail-sign items (segment, symbol, left/right)."""
    sigma = max(1, len(data.alphabet))
    lengths = np.asarray(data.lengths, np.int64)
    n_strings = len(lengths)
    row = np.repeat(np.arange(n_strings, dtype=np.int64), lengths)
    pos = np.arange(len(data.codes), dtype=np.int64) - np.repeat(np.asarray(data.offsets[:-1], np.int64), lengths)
    sym = np.asarray(data.codes, np.int64)
    n_of = np.repeat(np.maximum(lengths, 1), lengths)
    rows, cols = [], []
    base = 0
    seg_of = {}
    for j in range(levels):
        seg = (pos << j) // n_of
        seg_of[j] = seg
        rows.append(row)
        cols.append(base + seg * sigma + sym)
        base += (1 << j) * sigma
    for j in range(levels - 1):
        # share of the symbol in each child (left 2s, right 2s+1) of segment s at level j
        child = seg_of[j + 1]
        child_len = _segment_lengths(lengths, j + 1)  # (n_strings, 2**(j+1))
        frame = pd.DataFrame({"r": row, "c": child, "a": sym})
        counts = frame.groupby(["r", "c", "a"], sort=False).size().reset_index(name="n")
        counts["share"] = counts["n"].to_numpy() / np.maximum(child_len[counts["r"].to_numpy(), counts["c"].to_numpy()], 1)
        counts["parent"] = counts["c"] // 2
        counts["signed"] = np.where(counts["c"] % 2 == 0, counts["share"], -counts["share"])
        detail = counts.groupby(["r", "parent", "a"], sort=False)["signed"].sum().reset_index()
        detail = detail[detail["signed"].abs() > 1e-12]
        rows.append(detail["r"].to_numpy(np.int64))
        cols.append(base + (detail["parent"].to_numpy(np.int64) * sigma + detail["a"].to_numpy(np.int64)) * 2
                    + (detail["signed"].to_numpy() < 0))
        base += 2 * (1 << j) * sigma
    r, c = np.concatenate(rows), np.concatenate(cols)
    m = sparse.csr_matrix((np.ones(len(r), np.int8), (r, c)), shape=(n_strings, base))
    m.data[:] = 1  # duplicates summed: back to presence
    return m


def _segment_lengths(lengths: np.ndarray, j: int) -> np.ndarray:
    """Positions in each dyadic segment of level ``j`` of every string: ``(n_strings, 2**j)``."""
    s = np.arange((1 << j) + 1, dtype=np.int64)
    # segment s holds the positions p with p·2**j // n = s, i.e. p in [ceil(s·n / 2**j), ceil((s+1)·n / 2**j))
    bounds = -((-np.outer(lengths, s)) >> j)
    return np.diff(bounds, axis=1)


@dataclass
class Rule:
    items: tuple[int, ...]
    label: object
    support: float
    confidence: float


class WavRule:
    """Train with :meth:`fit`, classify with :meth:`predict` (see the module docstring for the method)."""

    def __init__(self, *, levels: int = 3, min_support: float = 0.02, min_confidence: float = 0.6,
                 pair_pool: int = 200) -> None:
        _check(levels, min_support, min_confidence)
        self.levels, self.min_support, self.min_confidence, self.pair_pool = int(levels), min_support, min_confidence, pair_pool
        self.rules: list[Rule] = []
        self.default = None

    def fit(self, data: SequenceSet, labels) -> WavRule:
        labels = np.asarray(labels)
        if len(labels) != len(data) or len(data) == 0:
            raise ParameterError("WavRule needs one class label per training string")
        x = wavelet_items(data, self.levels).tocsc().astype(np.int32)
        classes, counts = np.unique(labels, return_counts=True)
        self.default = classes[int(np.argmax(counts))]
        total = np.asarray(x.sum(axis=0)).ravel()
        rules: list[Rule] = []
        for cls, n_c in zip(classes, counts):
            xc = x[labels == cls]
            in_class = np.asarray(xc.sum(axis=0)).ravel()
            support = in_class / n_c
            with np.errstate(invalid="ignore", divide="ignore"):
                confidence = np.where(total > 0, in_class / np.maximum(total, 1), 0.0)
            single = np.flatnonzero((support >= self.min_support) & (confidence >= self.min_confidence))
            rules += [Rule((int(i),), cls, float(support[i]), float(confidence[i])) for i in single]
            pool = np.flatnonzero(support >= self.min_support)
            pool = pool[np.argsort(-support[pool], kind="stable")[: self.pair_pool]]
            if len(pool) > 1:
                both_c = (xc[:, pool].T @ xc[:, pool]).toarray()
                both = (x[:, pool].T @ x[:, pool]).toarray()
                a, b = np.triu_indices(len(pool), 1)
                sup = both_c[a, b] / n_c
                with np.errstate(invalid="ignore", divide="ignore"):
                    conf = np.where(both[a, b] > 0, both_c[a, b] / np.maximum(both[a, b], 1), 0.0)
                better = conf > np.maximum(confidence[pool[a]], confidence[pool[b]])
                keep = np.flatnonzero((sup >= self.min_support) & (conf >= self.min_confidence) & better)
                rules += [Rule((int(pool[a[t]]), int(pool[b[t]])), cls, float(sup[t]), float(conf[t])) for t in keep]
        rules.sort(key=lambda r: (-r.confidence, -r.support))
        self.rules = rules
        self.symbols = tuple(data.alphabet.symbols)
        return self

    def predict(self, data: SequenceSet) -> np.ndarray:
        """The class of every string: that of the best rule it matches (the majority class if none)."""
        if tuple(data.alphabet.symbols) != self.symbols:
            raise ParameterError("WavRule: the strings to classify use another alphabet than the training strings "
                                 f"({len(data.alphabet)} vs {len(self.symbols)} symbols)", file=data.source)
        x = wavelet_items(data, self.levels).tocsr()
        n, none = x.shape[0], len(self.rules)
        best = np.full(n, none, dtype=np.int64)  # rank of the best rule each string matches (none: no rule)
        singles = [(r.items[0], rank) for rank, r in enumerate(self.rules) if len(r.items) == 1]
        if singles:
            item_rank = np.full(x.shape[1], none, dtype=np.int64)
            items, ranks = np.array(singles, dtype=np.int64).T
            np.minimum.at(item_rank, items, ranks)
            vals = item_rank[x.indices]
            filled = np.flatnonzero(np.diff(x.indptr) > 0)
            if len(vals):
                best[filled] = np.minimum.reduceat(vals, x.indptr[filled])
        pairs = [(r.items[0], r.items[1], rank) for rank, r in enumerate(self.rules) if len(r.items) == 2]
        if pairs:
            a, b, ranks = np.array(pairs, dtype=np.int64).T
            used = np.unique(np.concatenate([a, b]))
            ia, ib = np.searchsorted(used, a), np.searchsorted(used, b)
            dense = x[:, used].toarray().astype(bool)
            step = max(1, 20_000_000 // max(len(pairs), 1))
            for lo in range(0, n, step):
                part = dense[lo : lo + step]
                hits = part[:, ia] & part[:, ib]
                best[lo : lo + step] = np.minimum(best[lo : lo + step], np.where(hits, ranks, none).min(axis=1))
        labels = np.array([r.label for r in self.rules] + [self.default], dtype=object)
        return labels[best]


def wavrule_accuracy(train: SequenceSet, train_labels, test: SequenceSet, test_labels, *, levels: int = 3,
                     min_support: float = 0.02, min_confidence: float = 0.6) -> float:
    """Accuracy on ``test`` of :class:`WavRule` trained on ``train``."""
    model = WavRule(levels=levels, min_support=min_support, min_confidence=min_confidence).fit(train, train_labels)
    predicted = model.predict(test)
    return float(np.mean(predicted == np.asarray(test_labels, dtype=object)))
