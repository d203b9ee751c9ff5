"""Privacy models as classes: each declares its parameters once and judges equivalence classes (or groups).

A model holds its validated parameters and answers two questions:

- ``failing(stats)``: which classes break it, from per-class statistics a verifier computed independently of
  any method (:class:`ClassStats`: sizes, and per class the counts of each sensitive value and of highly
  sensitive records); ``measure(stats, i)`` words why class ``i`` fails.
- ``partition_limits()``: what every part of a partitioning method must keep (``min_size``, ``min_distinct``,
  ``min_entropy``, ``max_share``); Mondrian's split test asks the models the job names for these instead of
  hard-coding k and l (:func:`partition_limits`).

A model declares what it needs to know of each class (:attr:`PrivacyModel.needs`, as ARX's criteria declare their
requirements): its size (:data:`SIZES`), the counts of each sensitive value in it (:data:`SENSITIVE`, the
distribution), how many of its records hold a highly sensitive value (:data:`HIGHLY_SENSITIVE`), the longest
fragment a published string shares with few inputs (:data:`FRAGMENTS`) or how many records of a population table
it covers (:data:`POPULATION`). The verifiers compute those statistics from the release alone.

The verifiers in ``_tables`` / ``_events`` / ``_strings`` compose the models a method names (:func:`table_models`)
and turn the failing classes into their messages; any other registered model a spec lists under ``"models"`` is
judged over the published table's classes by :func:`anonstudio.core.privacy._judge.verify_class_model`, from the
statistics it declares. So a new model (t-closeness, recursive (c,l)-diversity, δ-presence) is one subclass and
one :func:`register` call.

References: k-anonymity (Sweeney 2002); distinct and entropy l-diversity (Machanavajjhala et al., TKDD 2007,
Defs. 3.3 and 4.1); (k,c)-privacy (Sehatkar & Matwin, paper 004, Def. 3).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from anonstudio.core.limits import MAX_FRAGMENT
from anonstudio.core.params import Param, ParamSet


#: what a model may need to know of each class (ARX: ``PrivacyCriterion.getRequirements``)
SIZES = "sizes"
SENSITIVE = "sensitive"
HIGHLY_SENSITIVE = "highly_sensitive"
FRAGMENTS = "fragments"
POPULATION = "population"
NEAR_COPIES = "near_copies"  # computed by the pseudo-string verifier (each published string its own class)
REQUIREMENTS = (SIZES, SENSITIVE, HIGHLY_SENSITIVE, FRAGMENTS, POPULATION, NEAR_COPIES)


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
    #: per class, the records of the population table it covers (their quasi-identifiers generalize to the class's)
    population: np.ndarray | None = None
    #: per published string (its own class): the first window of ``near_copy_length`` symbols that 1..k-1
    #: inputs hold within the near-copy rule's edits (-1: none), and how many inputs hold it
    near_window: np.ndarray | None = None
    near_holders: np.ndarray | None = None
    #: with ``value_class``: each pair's sensitive value (a code into ``value_texts``); the table's records of each
    #: value (the overall distribution a class is compared with); the values' texts as published; the sensitive
    #: column's hierarchy, if the job gives one (t-closeness's hierarchical distance)
    value_code: np.ndarray | None = None
    value_total: np.ndarray | None = None
    value_texts: tuple[str, ...] = ()
    value_hierarchy: Any = None
    #: the records of the table the classes come from, fully suppressed ones included (``None``: the classes' sum);
    #: k-map's estimators size the sample by it
    records: int | None = None
    #: what a model computed of these statistics once (its measure of every class), kept for its messages
    memo: dict = field(default_factory=dict)

    def remember(self, key: Any, compute) -> Any:
        """``compute()``, computed once per ``key`` for these statistics."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

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
    """Base: ``name``, declared ``parameters`` and ``needs``; subclasses implement :meth:`score`, :meth:`failing`,
    :meth:`measure` and, for partitioning methods, :meth:`partition_limits`."""

    name: ClassVar[str] = ""
    #: how the workbench and the messages call it ("" = the name)
    title: ClassVar[str] = ""
    #: the paper it comes from, shown beside its parameters
    reference: ClassVar[str] = ""
    #: whether a class's verdict depends on the whole table (average risk, uniques' share), not on the class alone
    global_verdict: ClassVar[bool] = False
    parameters: ClassVar[ParamSet] = ParamSet(())
    #: the statistics of each class this model judges (a subset of :data:`REQUIREMENTS`)
    needs: ClassVar[frozenset[str]] = frozenset({SIZES})

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

    def check_parameters(self, *, key: str = "") -> None:
        """Refuse parameters that agree with their declarations but not with each other (``key``: where the job
        names them)."""

    @classmethod
    def label(cls) -> str:
        return cls.title or cls.name


class KAnonymity(PrivacyModel):
    name = "k-anonymity"
    needs = frozenset({SIZES})
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
    needs = frozenset({SIZES, SENSITIVE})
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
    needs = frozenset({SIZES, SENSITIVE})
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
    needs = frozenset({SIZES, SENSITIVE})
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
    ``max_fragment`` or more symbols held by at least one but fewer than ``k`` distinct input strings (identical
    inputs count once). Each published string is its own class; :attr:`ClassStats.fragment` is its longest such
    substring."""

    name = "fragment rule"
    needs = frozenset({FRAGMENTS})
    parameters = ParamSet((
        Param("k", "int", 2, "a fragment must be held by at least k distinct input strings", low=1),
        Param("max_fragment", "int", 20, "length, in symbols, from which a shared fragment counts", low=1,
              high=MAX_FRAGMENT),
    ))

    def score(self, stats):
        return stats.fragment.astype(float)

    def failing(self, stats):
        return np.flatnonzero(stats.fragment > 0)

    def measure(self, stats, i, of=""):
        return (f"a fragment of {int(stats.fragment[i])} symbols that occurs in only {int(stats.holders[i])} input "
                f"string(s), fewer than k = {self.params['k']} (max_fragment = {self.params['max_fragment']}; identical "
                "input strings count once)")


class NearCopyRule(PrivacyModel):
    """The near-copy rule for pseudo-strings (:mod:`anonstudio.core.privacy._near_copies`): no window of
    ``near_copy_length`` symbols of a published string (read forwards or backwards) lies within
    ``⌊(1 − near_copy_identity)·near_copy_length⌋`` edits of a stretch of at least one but fewer than ``k``
    distinct input strings (identical inputs count once). Each published string is its own class; :attr:`ClassStats.near_window` is its first such
    window."""

    name = "near-copy rule"
    needs = frozenset({NEAR_COPIES})
    parameters = ParamSet((
        Param("k", "int", 2, "a window must be held by at least k distinct input strings", low=1),
        Param("near_copy_identity", "float", 0.9, "identity from which a window is a near-copy of an input",
              low=0.5, high=1.0),
        Param("near_copy_length", "int", 60, "length, in symbols, of the windows compared", low=1, high=64),
    ))

    def score(self, stats):
        return (stats.near_window >= 0).astype(float)

    def failing(self, stats):
        return np.flatnonzero(stats.near_window >= 0)

    def measure(self, stats, i, of=""):
        return (f"a window of {self.params['near_copy_length']} symbols held by only {int(stats.near_holders[i])} "
                f"input string(s) at identity ≥ {self.params['near_copy_identity']:g}, fewer than "
                f"k = {self.params['k']} (identical input strings count once)")


class KCPrivacy(PrivacyModel):
    """(k,c)-privacy (004 Def. 3): every group of identical QI sequences has at least k sequences, and at most a
    share c of them hold a highly sensitive value."""

    name = "(k,c)-privacy"
    needs = frozenset({SIZES, HIGHLY_SENSITIVE})
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


#: every model by name (a job's ``l_kind`` picks between the l-diversity ones); :func:`register` adds to it
MODELS: dict[str, type[PrivacyModel]] = {}


def register(model: type[PrivacyModel], *, replace: bool = False) -> str:
    """Register a privacy model class under its ``name``: a spec may then name it (``"models": [{"name": …,
    **parameters}]``, judged over the published classes) and :data:`MODELS` lists it. A name already registered is
    refused unless ``replace``; a model needing statistics nobody computes is refused."""
    if not (isinstance(model, type) and issubclass(model, PrivacyModel)) or not model.name:
        raise TypeError(f"a privacy model is a named PrivacyModel subclass, got {model!r}")
    unknown = set(model.needs) - set(REQUIREMENTS)
    if unknown:
        raise ValueError(f"privacy model '{model.name}' needs {sorted(unknown)}: the verifiers compute only "
                         f"{', '.join(REQUIREMENTS)}")
    if model.name in MODELS and MODELS[model.name] is not model and not replace:
        raise ValueError(f"a privacy model named '{model.name}' is already registered (pass replace=True)")
    MODELS[model.name] = model
    return model.name


def unregister(name: str) -> type[PrivacyModel] | None:
    """Remove the model registered as ``name``; returns it, or ``None``."""
    return MODELS.pop(name, None)


@contextmanager
def registered(model: type[PrivacyModel]) -> Iterator[str]:
    """Within the block, ``model`` is registered; afterwards the registry is as it was (tests)."""
    before = MODELS.get(model.name)
    register(model, replace=True)
    try:
        yield model.name
    finally:
        if before is None:
            MODELS.pop(model.name, None)
        else:
            MODELS[model.name] = before


for _model in (KAnonymity, DistinctLDiversity, EntropyLDiversity, FrequencyLDiversity, KCPrivacy, CondensedGroups,
               FragmentRule, NearCopyRule):
    register(_model)


def table_models(k: int | None = None, l: float | None = None, l_kind: str = "entropy") -> list[PrivacyModel]:
    """The models a table job names: k-anonymity with ``k``, and ``l_kind`` l-diversity when ``l`` is set."""
    models: list[PrivacyModel] = []
    if k is not None:
        models.append(KAnonymity(k=k))
    if l is not None:
        models.append(MODELS[f"{l_kind} l-diversity"](l=l))
    return models


def partition_limits(models: list[PrivacyModel], records: int | None = None) -> dict[str, float]:
    """What every part must keep under all ``models`` at once (the strictest of each limit). ``records``: the
    table's records, for a model whose least class size follows from them (``least_class_size``: k-map with an
    estimator)."""
    out: dict[str, float] = {}
    for model in models:
        limits = dict(model.partition_limits())
        least = getattr(model, "least_class_size", None)
        if least is not None and records is not None and least(records):
            limits["min_size"] = max(limits.get("min_size", 0), least(records))
        for key, value in limits.items():
            strict = min if key.startswith("max_") else max
            out[key] = strict(out[key], value) if key in out else value
    return out
