"""A privacy model is one class: what it applies to, what it needs of each class, how every method keeps it.

A model holds its validated parameters and answers, from per-class statistics a verifier computed independently of
any method (:class:`ClassStats`):

- ``failing(stats)``: which classes break it — the *class predicate* global recoding's lattice search judges a
  transformation's classes by, the clustering methods' repair merges by
  (:mod:`anonstudio.core.algorithms._model_repair`) and the verifier judges a release by
  (:func:`anonstudio.core.privacy._judge.verify_class_model`); ``measure(stats, i)`` words why class ``i`` fails.
- the *split rule* Mondrian keeps it by: ``partition_limits()`` (what every part must keep: ``min_size``,
  ``min_distinct``, ``min_entropy``, ``max_share``, :func:`~anonstudio.core.models.partition_limits`), or
  ``kernel_rule()`` (a test on a part's sensitive distribution the split kernel makes,
  :mod:`anonstudio.core.kernels._distribution`); a model whose classes cannot be judged part by part
  (:meth:`PrivacyModel.split_rule` ``"merge"``: it counts a population table) is kept by merging the failing
  parts afterwards.

A model declares what it needs to know of each class (:attr:`PrivacyModel.needs`, as ARX's criteria declare their
requirements): its size (:data:`SIZES`), the counts of each sensitive value in it (:data:`SENSITIVE`, the
distribution), how many of its records hold a highly sensitive value (:data:`HIGHLY_SENSITIVE`), the longest
fragment a published string shares with few inputs (:data:`FRAGMENTS`) or how many records of a population table
it covers (:data:`POPULATION`). The verifiers compute those statistics from the release alone.

It declares which methods enforce it when a job names it under ``models`` (:attr:`PrivacyModel.enforced_by`: the
ways of :data:`ENFORCEMENTS`); the methods' lists of models (:func:`enforced_by`), their parameter's choices and
their descriptions (:func:`models_sentence`) are read from this registry, so a new model is one subclass and one
:func:`register` line (``docs/incoming/h44models.md`` shows one, ``tests/core/privacy/test_adding_a_model.py``
runs it through every partitioning method and ``verify``).

This package imports no numpy when it is declared (``_lazy``): the methods list their models in ``anonstudio
methods``, which loads no numpy (issue 17).

References: ARX's privacy criteria and their requirements (Prasser & Kohlmayer, "Putting statistical disclosure
control into practice: the ARX data anonymization tool", 2015, §3).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, overload

from anonstudio.core.params import ParamSet

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Array = NDArray[Any]
else:  # numpy loads when a model first judges a class, not when the models are declared (issue 17)
    from anonstudio.core.models._lazy import numpy as np


#: what a model may need to know of each class (ARX: ``PrivacyCriterion.getRequirements``)
SIZES = "sizes"
SENSITIVE = "sensitive"
HIGHLY_SENSITIVE = "highly_sensitive"
FRAGMENTS = "fragments"
POPULATION = "population"
NEAR_COPIES = "near_copies"  # computed by the pseudo-string verifier (each published string its own class)
REQUIREMENTS = (SIZES, SENSITIVE, HIGHLY_SENSITIVE, FRAGMENTS, POPULATION, NEAR_COPIES)

#: the ways a partitioning method keeps a model named under ``models``: Mondrian's split test (``split``), global
#: recoding's lattice predicate (``lattice``: the records of a failing class suppressed), the clustering methods'
#: merging of failing classes (``repair``: k-member, MST, local recoding)
SPLIT = "split"
LATTICE = "lattice"
REPAIR = "repair"
ENFORCEMENTS = (SPLIT, LATTICE, REPAIR)
#: the data a model judges the classes of (a method's ``data_kind``)
DATA_KINDS = ("table", "events", "fasta")


@dataclass
class ClassStats:
    """Per-class statistics of a release: ``sizes[i]`` records in class ``i``; ``value_class``/``value_count``
    one entry per (class, present sensitive value) pair; ``high[i]`` records holding a highly sensitive value."""

    sizes: Array
    value_class: Array | None = None
    value_count: Array | None = None
    high: Array | None = None
    #: per published string (its own class): the longest substring of at least ``max_fragment`` symbols held
    #: by 1..k-1 inputs (0: none), and by how many inputs
    fragment: Array | None = None
    holders: Array | None = None
    #: per class, the records of the population table it covers (their quasi-identifiers generalize to the class's)
    population: Array | None = None
    #: per published string (its own class): the first window of ``near_copy_length`` symbols that 1..k-1
    #: inputs hold within the near-copy rule's edits (-1: none), and how many inputs hold it
    near_window: Array | None = None
    near_holders: Array | None = None
    #: with ``value_class``: each pair's sensitive value (a code into ``value_texts``); the table's records of each
    #: value (the overall distribution a class is compared with); the values' texts as published; the sensitive
    #: column's hierarchy, if the job gives one (t-closeness's hierarchical distance)
    value_code: Array | None = None
    value_total: Array | None = None
    value_texts: tuple[str, ...] = ()
    value_hierarchy: Any = None
    #: the records of the table the classes come from, fully suppressed ones included (``None``: the classes' sum);
    #: k-map's estimators size the sample by it
    records: int | None = None
    #: what a model computed of these statistics once (its measure of every class), kept for its messages
    memo: dict[Any, Any] = field(default_factory=dict)

    def remember(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, computed once per ``key`` for these statistics."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    @property
    def n(self) -> int:
        return len(self.sizes)

    def _pairs(self) -> tuple[Array, Array]:
        if self.value_class is None or self.value_count is None:
            raise ValueError("these class statistics hold no sensitive values (the model needs SENSITIVE)")
        return self.value_class, self.value_count

    def distinct(self) -> Array:
        """Distinct present sensitive values per class."""
        value_class, _ = self._pairs()
        return np.bincount(value_class, minlength=self.n).astype(float)

    def entropy(self) -> Array:
        """Entropy ``-Σ p log p`` of each class's present sensitive values (0 for a class with none)."""
        value_class, value_count = self._pairs()
        totals = np.bincount(value_class, weights=value_count, minlength=self.n)
        p = value_count / totals[value_class]
        return np.bincount(value_class, weights=-p * np.log(p), minlength=self.n)

    def top_count(self) -> Array:
        """Records holding each class's most frequent sensitive value (0 for a class with none)."""
        value_class, value_count = self._pairs()
        top = np.zeros(self.n)
        np.maximum.at(top, value_class, value_count)
        return top


class PrivacyModel(ABC):
    """Base: ``name``, declared ``parameters``, ``needs``, ``applies_to`` and ``enforced_by``; subclasses implement
    :meth:`score`, :meth:`failing` (the class predicate), :meth:`measure` and, to be kept by Mondrian's split test,
    :meth:`partition_limits` or :meth:`kernel_rule`."""

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
    #: the data whose classes it judges (of :data:`DATA_KINDS`)
    applies_to: ClassVar[frozenset[str]] = frozenset({"table"})
    #: the ways the partitioning methods keep it when a job names it under ``models`` (of :data:`ENFORCEMENTS`;
    #: empty: it is part of a method's own guarantee, not named under ``models``)
    enforced_by: ClassVar[frozenset[str]] = frozenset()
    #: how the methods' descriptions name it ("" = :meth:`label`)
    phrase: ClassVar[str] = ""

    def __init__(self, **params: Any) -> None:
        self.params = self.parameters.validate(params)

    @abstractmethod
    def score(self, stats: ClassStats) -> Array:
        """The model's measure of every class (size, distinct values, entropy …)."""

    @abstractmethod
    def failing(self, stats: ClassStats) -> Array:
        """Indices of the classes that break the model."""

    @abstractmethod
    def measure(self, stats: ClassStats, i: int, of: str = "") -> str:
        """Why class ``i`` fails, in words (``of``: the sensitive column measured, e.g. ``"'disease'"``)."""

    def partition_limits(self) -> dict[str, float]:
        """What every part of a partitioning method must keep."""
        return {}

    def kernel_rule(self, texts: tuple[str, ...], hierarchy: Any = None,
                    column: str = "") -> tuple[int, tuple[float, float], Array | None] | None:
        """Mondrian's test of a part's sensitive distribution: ``(kind, (p0, p1), ancestors or None)`` for
        :func:`anonstudio.core.kernels._distribution.rules_hold` (``texts``: the sensitive values, codes 0..m-1), or
        ``None`` when the split test keeps the model by :meth:`partition_limits` alone."""
        return None

    @classmethod
    def has_kernel_rule(cls) -> bool:
        """Whether Mondrian's split kernel tests this model on each part's distribution (:meth:`kernel_rule`)."""
        return cls.kernel_rule is not PrivacyModel.kernel_rule

    def split_rule(self) -> str:
        """How Mondrian keeps this model: ``"test"`` (its split test: :meth:`partition_limits`, :meth:`kernel_rule`)
        or ``"merge"`` (the parts failing it merged afterwards: a class's population count depends on its cells,
        which the split test does not hold)."""
        return "merge" if POPULATION in self.needs else "test"

    def check_parameters(self, *, key: str = "") -> None:
        """Refuse parameters that agree with their declarations but not with each other (``key``: where the job
        names them)."""

    @classmethod
    def label(cls) -> str:
        return cls.title or cls.name


#: every model by name (a job's ``l_kind`` picks between the l-diversity ones); :func:`register` adds to it
MODELS: dict[str, type[PrivacyModel]] = {}


def register(model: type[PrivacyModel], *, replace: bool = False) -> str:
    """Register a privacy model class under its ``name``: a spec may then name it (``"models": [{"name": …,
    **parameters}]``, judged over the published classes), :data:`MODELS` lists it and every method whose way of
    enforcing it declares (:attr:`PrivacyModel.enforced_by`) takes it under ``models``. A name already registered is
    refused unless ``replace``; a model needing statistics nobody computes, or enforced in a way no method has, is
    refused."""
    if not (isinstance(model, type) and issubclass(model, PrivacyModel)) or not model.name:
        raise TypeError(f"a privacy model is a named PrivacyModel subclass, got {model!r}")
    unknown = set(model.needs) - set(REQUIREMENTS)
    if unknown:
        raise ValueError(f"privacy model '{model.name}' needs {sorted(unknown)}: the verifiers compute only "
                         f"{', '.join(REQUIREMENTS)}")
    ways = set(model.enforced_by) - set(ENFORCEMENTS)
    if ways:
        raise ValueError(f"privacy model '{model.name}' is enforced by {sorted(ways)}: the methods enforce by "
                         f"{', '.join(ENFORCEMENTS)}")
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


def enforced_by(way: str, kind: str = "table") -> tuple[str, ...]:
    """The registered models a method enforcing by ``way`` (of :data:`ENFORCEMENTS`) takes under ``models`` for data
    of ``kind``, in the order they were registered."""
    return tuple(name for name, cls in MODELS.items() if way in cls.enforced_by and kind in cls.applies_to)


def models_sentence(way: str, kind: str = "table") -> str:
    """How a method's description names the models it takes under ``models`` (from the registry)."""
    models = [MODELS[name] for name in enforced_by(way, kind)]
    named = ", ".join(m.phrase or m.label() for m in models) or "none"
    counting = ", ".join(m.label() for m in models if POPULATION in m.needs)
    how = {SPLIT: "kept by the split test" + (f"; those counting a population table ({counting}) by merging failing "
                                              "parts" if counting else ""),
           LATTICE: "the records of a failing class suppressed within the budget",
           REPAIR: "kept by merging failing classes"}[way]
    return f"the models named under models ({named}), {how}"


class _Live(Sequence[str]):
    """A sequence of names read again from the registry whenever asked (a model registered later is in it);
    a subclass says which names (:meth:`_items`)."""

    @abstractmethod
    def _items(self) -> tuple[str, ...]: ...

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._items()[index]

    def __len__(self) -> int:
        return len(self._items())

    def __contains__(self, item: object) -> bool:
        return item in self._items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (tuple, list, _Live)) and tuple(other) == self._items()

    def __hash__(self) -> int:
        return hash((type(self), *vars(self).values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._items())})"


class Enforced(_Live):
    """The names :func:`enforced_by` gives: a method's ``enforced_models`` and its ``models`` parameter's choices."""

    def __init__(self, way: str, kind: str = "table") -> None:
        if way not in ENFORCEMENTS:
            raise ValueError(f"the methods enforce by {', '.join(ENFORCEMENTS)}, not {way!r}")
        self.way, self.kind = way, kind

    def _items(self) -> tuple[str, ...]:
        return enforced_by(self.way, self.kind)


class Description(_Live):
    """A method's ``privacy_models``: its own guarantee's lines, then :func:`models_sentence`."""

    def __init__(self, own: tuple[str, ...], way: str, kind: str = "table") -> None:
        self.own, self.way, self.kind = tuple(own), way, kind

    def _items(self) -> tuple[str, ...]:
        return (*self.own, models_sentence(self.way, self.kind))
