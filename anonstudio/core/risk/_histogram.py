"""The class-size histogram every risk figure is computed from (:class:`Histogram`), and an estimate of the
population uniques (:class:`Estimate`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Histogram:
    """Class-size histogram: ``counts[i]`` classes of ``sizes[i]`` records, sizes ascending and distinct."""

    sizes: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, class_sizes) -> Histogram:
        """From the size of every class (any order; sizes ≤ 0 are ignored)."""
        s = np.asarray(class_sizes, dtype=np.int64)
        sizes, counts = np.unique(s[s > 0], return_counts=True)
        return cls(sizes.astype(np.int64), counts.astype(np.int64))

    @property
    def records(self) -> int:
        return int((self.sizes * self.counts).sum())

    @property
    def classes(self) -> int:
        return int(self.counts.sum())

    def of_size(self, size: int) -> int:
        """Number of classes of this size."""
        hit = self.counts[self.sizes == size]
        return int(hit[0]) if len(hit) else 0


@dataclass(frozen=True)
class Estimate:
    """An estimated number of population uniques; ``available`` False when the estimator has no solution."""

    uniques: float
    available: bool
    note: str = ""
    parameters: dict = field(default_factory=dict)
    model: str = ""

    def as_dict(self, population: int) -> dict:
        out = {"share": self.uniques / population if population else 0.0, "uniques": self.uniques,
               "available": self.available, "note": self.note, "parameters": dict(self.parameters)}
        if self.model:
            out["model"] = self.model
        return out


def _none(note: str) -> Estimate:
    return Estimate(0.0, False, note)


def _no_uniques() -> Estimate:
    return Estimate(0.0, True, "no sample uniques: no population uniques are estimated")
