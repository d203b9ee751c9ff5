"""The §5.1 utility experiment of condensation (Aggarwal & Yu, DMKD 2008): k-NN (Figs. 10–11) or WavRule
(Figs. 12–13) accuracy when trained on the originals and on pseudo-strings. It produces pseudo-strings, so it
lives with the method, not in metrics; the method's report (``Condensation.evaluate``) runs it, so it sits below
:mod:`anonstudio.core.experiments` (whose ``condensation-knn`` measures the whole split).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anonstudio.core.errors import ParameterError
from anonstudio.core.progress import ProgressCallback, subrange

if TYPE_CHECKING:
    from anonstudio.core.data import SequenceSet

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

    from anonstudio.core.algorithms.condensation import Condensation  # it imports this module
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
