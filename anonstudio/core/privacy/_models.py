"""Privacy models as classes: each declares its parameters once and judges equivalence classes (or groups).

A model holds its validated parameters and answers two questions:

- ``failing(stats)``: which classes break it, from per-class statistics a verifier computed independently of
  any method (:class:`ClassStats`: sizes, and per class the counts of each sensitive value and of highly
  sensitive records); ``measure(stats, i)`` words why class ``i`` fails.
- ``partition_limits()``: what every part of a partitioning method must keep (``min_size``, ``min_distinct``,
  ``min_entropy``, ``max_share``); Mondrian's split test asks the models the job names for these instead of
  hard-coding k and l (:func:`partition_limits`).

The verifiers in ``_tables`` / ``_events`` compose the models a job names (:func:`table_models`) and turn the
failing classes into their messages. A new model (t-closeness, recursive (c,l)-diversity) is one subclass and
one entry of :data:`MODELS`.

References: k-anonymity (Sweeney 2002); distinct and entropy l-diversity (Machanavajjhala et al., TKDD 2007,
Defs. 3.3 and 4.1); (k,c)-privacy (Sehatkar & Matwin, paper 004, Def. 3).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from anonstudio.core.limits import MAX_FRAGMENT
from anonstudio.core.params import Param, ParamSet


@dataclass
class ClassStats:
    """Per-class statistics of a release: ``sizes[i]`` records in class ``i``; ``value_class``/``value_count``
    one entry per (class, present sensitive value) pair; ``high[i]`` records holding a highly sensitive value."""

    sizes: np.ndarray
    value_class: np.ndarray | None = None
    value_count: np.ndarray | None = None
    high: np.ndarray | None = None
    #: per published string (its own class): the longest substring of at least ``max_fragment`` symbols held
    #: by 1..k-1 inputs (0: none), and by how many inputs
    fragment: np.ndarray | None = None
    holders: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.sizes)

    def distinct(self) -> np.ndarray:
        """Distinct present sensitive values per class."""
        return np.bincount(self.value_class, minlength=self.n).astype(float)

    def entropy(self) -> np.ndarray:
        """Entropy ``-Σ p log p`` of each class's present sensitive values (0 for a class with none)."""
        totals = np.bincount(self.value_class, weights=self.value_count, minlength=self.n)
        p = self.value_count / totals[self.value_class]
        return np.bincount(self.value_class, weights=-p * np.log(p), minlength=self.n)

    def top_count(self) -> np.ndarray:
        """Records holding each class's most frequent sensitive value (0 for a class with none)."""
        top = np.zeros(self.n)
        np.maximum.at(top, self.value_class, self.value_count)
        return top


class PrivacyModel(ABC):
    """Base: ``name``, declared ``parameters``; subclasses implement :meth:`score`, :meth:`failing`,
    :meth:`measure` and :meth:`partition_limits`."""

    name: ClassVar[str] = ""
    parameters: ClassVar[ParamSet] = ParamSet(())

    def __init__(self, **params: Any) -> None:
        self.params = self.parameters.validate(params)

    @abstractmethod
    def score(self, stats: ClassStats) -> np.ndarray:
        """The model's measure of every class (size, distinct values, entropy …)."""

    @abstractmethod
    def failing(self, stats: ClassStats) -> np.ndarray:
        """Indices of the classes that break the model."""

    @abstractmethod
    def measure(self, stats: ClassStats, i: int, of: str = "") -> str:
        """Why class ``i`` fails, in words (``of``: the sensitive column measured, e.g. ``"'disease'"``)."""

    def partition_limits(self) -> dict[str, float]:
        """What every part of a partitioning method must keep."""
        return {}


class KAnonymity(PrivacyModel):
    name = "k-anonymity"
    parameters = ParamSet((Param("k", "int", 2, "every class holds at least k records", low=1),))

    def score(self, stats):
        return stats.sizes.astype(float)

    def failing(self, stats):
        return np.flatnonzero(stats.sizes < self.params["k"])

    def measure(self, stats, i, of=""):
        return f"{int(stats.sizes[i])} record(s), fewer than k = {self.params['k']}"

    def partition_limits(self):
        return {"min_size": self.params["k"]}


class DistinctLDiversity(PrivacyModel):
    name = "distinct l-diversity"
    parameters = ParamSet((Param("l", "float", 2.0, "every class holds at least l distinct sensitive values",
                                 low=1),))

    def score(self, stats):
        return stats.distinct()

    def failing(self, stats):
        l = self.params["l"]
        return np.flatnonzero(self.score(stats) < l) if l > 1 else np.zeros(0, dtype=np.int64)

    def measure(self, stats, i, of=""):
        return f"{int(self.score(stats)[i])} distinct value(s)" + (f" of {of}" if of else "")

    def partition_limits(self):
        return {"min_distinct": int(np.ceil(self.params["l"] - 1e-12))}


class EntropyLDiversity(PrivacyModel):
    name = "entropy l-diversity"
    parameters = ParamSet((Param("l", "float", 2.0, "the entropy of every class's sensitive values is at least "
                                 "log l", low=1),))

    def score(self, stats):
        return stats.entropy()

    def failing(self, stats):
        l = self.params["l"]
        return np.flatnonzero(self.score(stats) < np.log(l) - 1e-9) if l > 1 else np.zeros(0, dtype=np.int64)

    def measure(self, stats, i, of=""):
        l = self.params["l"]
        return f"entropy {self.score(stats)[i]:.3f}" + (f" of {of}" if of else "") + f" < log({l:g}) = {np.log(l):.3f}"

    def partition_limits(self):
        return {"min_entropy": float(np.log(self.params["l"]))}


class FrequencyLDiversity(PrivacyModel):
    """Anatomy's l-diversity (Xiao & Tao, VLDB 2006, Def. 2 / paper 001 §2): no sensitive value accounts for
    more than a share 1/l of a group, so a reader links a record to its value with probability at most 1/l."""

    name = "frequency l-diversity"
    parameters = ParamSet((Param("l", "int", 2, "no sensitive value makes up more than 1/l of a group", low=2),))

    def score(self, stats):
        return stats.top_count() / np.maximum(stats.sizes, 1)

    def failing(self, stats):
        return np.flatnonzero(stats.top_count() * self.params["l"] > stats.sizes)

    def measure(self, stats, i, of=""):
        return (f"one sensitive value{f' of {of}' if of else ''} {int(stats.top_count()[i])} times, more than "
                f"1/{self.params['l']} of the group")

    def partition_limits(self):
        return {"min_size": self.params["l"], "max_top_share": 1.0 / self.params["l"]}


class CondensedGroups(KAnonymity):
    """Condensation's group rule (000 §2, "k-indistinguishability"): every condensed group — the pseudo-strings
    generated from one group's statistics — comes from at least k input strings."""

    name = "condensed groups"
    parameters = ParamSet((Param("k", "int", 2, "every condensed group holds at least k strings", low=1),))

    def measure(self, stats, i, of=""):
        return f"{int(stats.sizes[i])} pseudo-string(s), fewer than k = {self.params['k']}"


class FragmentRule(PrivacyModel):
    """The fragment rule for pseudo-strings (our k-anonymous reading of "no identifying fragment copied", see
    :func:`~anonstudio.core.privacy.verify_pseudo_strings`): no published string contains a substring of
    ``max_fragment`` or more symbols held by at least one but fewer than ``k`` input strings. Each published
    string is its own class; :attr:`ClassStats.fragment` is its longest such substring."""

    name = "fragment rule"
    parameters = ParamSet((
        Param("k", "int", 2, "a fragment must be held by at least k input strings", low=1),
        Param("max_fragment", "int", 20, "length, in symbols, from which a shared fragment counts", low=1,
              high=MAX_FRAGMENT),
    ))

    def score(self, stats):
        return stats.fragment.astype(float)

    def failing(self, stats):
        return np.flatnonzero(stats.fragment > 0)

    def measure(self, stats, i, of=""):
        return (f"a fragment of {int(stats.fragment[i])} symbols that occurs in only {int(stats.holders[i])} input "
                f"string(s), fewer than k = {self.params['k']} (max_fragment = {self.params['max_fragment']})")


class KCPrivacy(PrivacyModel):
    """(k,c)-privacy (004 Def. 3): every group of identical QI sequences has at least k sequences, and at most a
    share c of them hold a highly sensitive value."""

    name = "(k,c)-privacy"
    parameters = ParamSet((
        Param("k", "int", 2, "every group holds at least k sequences", low=1),
        Param("c", "float", 0.7, "at most this share of a group holds a highly sensitive value", low=0, high=1,
              low_open=True),
    ))

    def score(self, stats):
        return stats.high / np.maximum(stats.sizes, 1)

    def too_small(self, stats) -> np.ndarray:
        return stats.sizes < self.params["k"]

    def too_confident(self, stats) -> np.ndarray:
        return self.score(stats) > self.params["c"] + 1e-12

    def failing(self, stats):
        return np.flatnonzero(self.too_small(stats) | self.too_confident(stats))

    def measure(self, stats, i, of=""):
        if stats.sizes[i] < self.params["k"]:
            return f"{int(stats.sizes[i])} sequence(s), fewer than k = {self.params['k']}"
        return f"share {self.score(stats)[i]:.3f} > c = {self.params['c']}"

    def partition_limits(self):
        return {"min_size": self.params["k"], "max_share": self.params["c"]}


#: every model by name (a job's ``l_kind`` picks between the l-diversity ones)
MODELS: dict[str, type[PrivacyModel]] = {m.name: m for m in (KAnonymity, DistinctLDiversity, EntropyLDiversity,
                                                             FrequencyLDiversity, KCPrivacy, CondensedGroups,
                                                             FragmentRule)}


def table_models(k: int | None = None, l: float | None = None, l_kind: str = "entropy") -> list[PrivacyModel]:
    """The models a table job names: k-anonymity with ``k``, and ``l_kind`` l-diversity when ``l`` is set."""
    models: list[PrivacyModel] = []
    if k is not None:
        models.append(KAnonymity(k=k))
    if l is not None:
        models.append(MODELS[f"{l_kind} l-diversity"](l=l))
    return models


def partition_limits(models: list[PrivacyModel]) -> dict[str, float]:
    """What every part must keep under all ``models`` at once (the strictest of each limit)."""
    out: dict[str, float] = {}
    for model in models:
        for key, value in model.partition_limits().items():
            strict = min if key.startswith("max_") else max
            out[key] = strict(out[key], value) if key in out else value
    return out
