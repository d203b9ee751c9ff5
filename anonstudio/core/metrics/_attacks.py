"""The attacks on a release as measures: what an attacker computes from the published table (issue 32 item 4).

- **Homogeneity attack** (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam, "l-Diversity: privacy beyond
  k-anonymity", ICDE 2006 and TKDD 1(1), 2007): a class whose records all hold one sensitive value discloses it to anyone who can place a
  person in the class. ``homogeneous_classes`` = share of classes with one sensitive value,
  ``homogeneous_records`` = share of records in them (the attacker is certain, and right).
- **Inference by the class majority** (the attacker without background knowledge of Machanavajjhala et al.; the
  skewness attack of Li, Li & Venkatasubramanian, "t-Closeness: privacy beyond k-anonymity and l-diversity",
  ICDE 2007): the attacker guesses for every
  person the most frequent sensitive value of the person's class. ``inference_rate`` = share of records whose own
  value is that value = ``Σ_classes max_v count(class, v) / n`` (ties: any choice scores the same); against
  ``base_rate`` = the share of the most frequent value overall — the guess of an attacker who ignores the release.
- **Uniques beyond the quasi-identifiers** (the linkage of Sweeney, "k-anonymity: a model for protecting privacy",
  IJUFKS 10(5), 2002, with every published column an attacker may know): ``unique_with_unroled`` = share of the
  records whose combination of quasi-identifiers *and* columns published without a role is unique.

Sensitive values are told apart as a reader tells them (:func:`anonstudio.core.data.value_codes`: ``'HIV'`` and
``' hiv'`` are one value); a missing sensitive cell is a value of its own (the attacker sees it as one).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def inference(class_ids: np.ndarray, values: np.ndarray, weights: np.ndarray | None = None) -> dict:
    """Homogeneity and class-majority inference over records with ``class_ids >= 0`` (suppressed records,
    ``-1``, are left out) and their sensitive value codes ``values`` (any integers; equal code = equal value).
    ``weights``: records per (class id, value) row, for a table of counts (Anatomy's ST) instead of records.
    Every share is 0 when no record is left."""
    ids = np.asarray(class_ids, dtype=np.int64)
    vals = np.asarray(values, dtype=np.int64)
    w = np.ones(len(ids), dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
    keep = ids >= 0
    ids, vals, w = ids[keep], vals[keep], w[keep]
    n = int(w.sum())
    if n == 0:
        return {"records": 0, "classes": 0, "homogeneous_classes": 0.0, "homogeneous_records": 0.0,
                "inference_rate": 0.0, "base_rate": 0.0}
    cls = pd.factorize(ids)[0].astype(np.int64)
    val = pd.factorize(vals)[0].astype(np.int64)
    width = int(val.max()) + 1
    pair_of, pair = pd.factorize(cls * width + val)  # hashing, not sorting: one pass over the records
    pair_count = np.bincount(pair_of, weights=w).astype(np.int64)
    pair_class = np.asarray(pair, dtype=np.int64) // width
    n_classes = int(cls.max()) + 1
    class_size = np.bincount(pair_class, weights=pair_count, minlength=n_classes)
    distinct = np.bincount(pair_class, minlength=n_classes)
    majority = np.zeros(n_classes)
    np.maximum.at(majority, pair_class, pair_count)
    overall = np.bincount(val, weights=w)
    homogeneous = distinct == 1
    return {
        "records": n,
        "classes": n_classes,
        "homogeneous_classes": float(homogeneous.mean()),
        "homogeneous_records": float(class_size[homogeneous].sum() / n),
        "inference_rate": float(majority.sum() / n),
        "base_rate": float(overall.max() / n),
    }


def unique_share(key: np.ndarray) -> float:
    """Share of records whose key (an integer per record, equal key = equal combination) no other record has."""
    k = np.asarray(key)
    if len(k) == 0:
        return 0.0
    counts = np.bincount(pd.factorize(k)[0])
    return float((counts == 1).sum() / len(k))
