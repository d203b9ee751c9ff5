"""The models every method's own guarantee is made of: k-anonymity, the three l-diversities, (k,c)-privacy and the
pseudo-string rules; :func:`table_models` and :func:`partition_limits` compose them for a run.

References: k-anonymity (Sweeney 2002); distinct and entropy l-diversity (Machanavajjhala et al., TKDD 2007,
Defs. 3.3 and 4.1); frequency l-diversity (Xiao & Tao, VLDB 2006, Def. 2); (k,c)-privacy (Sehatkar & Matwin,
paper 004, Def. 3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonstudio.core.limits import MAX_FRAGMENT
from anonstudio.core.models._base import (
    FRAGMENTS,
    HIGHLY_SENSITIVE,
    MODELS,
    NEAR_COPIES,
    SENSITIVE,
    SIZES,
    PrivacyModel,
    register,
)
from anonstudio.core.params import Param, ParamSet

if TYPE_CHECKING:
    import numpy as np
else:  # numpy loads when a model first judges a class, not when the models are declared (issue 17)
    from anonstudio.core.models._lazy import numpy as np


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


register(KAnonymity)


class DistinctLDiversity(PrivacyModel):
    name = "distinct l-diversity"
    #: the ``l_kind`` a job names it by (:func:`l_diversity`)
    l_kind = "distinct"
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


register(DistinctLDiversity)


class EntropyLDiversity(PrivacyModel):
    name = "entropy l-diversity"
    l_kind = "entropy"
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


register(EntropyLDiversity)


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


register(FrequencyLDiversity)


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


register(KCPrivacy)


class CondensedGroups(KAnonymity):
    """Condensation's group rule (000 §2, "k-indistinguishability"): every condensed group — the pseudo-strings
    generated from one group's statistics — comes from at least k input strings."""

    name = "condensed groups"
    parameters = ParamSet((Param("k", "int", 2, "every condensed group holds at least k strings", low=1),))

    def measure(self, stats, i, of=""):
        return f"{int(stats.sizes[i])} pseudo-string(s), fewer than k = {self.params['k']}"


register(CondensedGroups)


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


register(FragmentRule)


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


register(NearCopyRule)


def l_diversity(l_kind: str) -> type[PrivacyModel]:
    """The registered l-diversity model a job's ``l_kind`` names (the model declaring that ``l_kind``)."""
    for model in MODELS.values():
        if getattr(model, "l_kind", None) == l_kind:
            return model
    raise KeyError(f"{l_kind} l-diversity")


def table_models(k: int | None = None, l: float | None = None, l_kind: str = "entropy") -> list[PrivacyModel]:
    """The models a table job names: k-anonymity with ``k``, and ``l_kind`` l-diversity when ``l`` is set."""
    models: list[PrivacyModel] = []
    if k is not None:
        models.append(KAnonymity(k=k))
    if l is not None:
        models.append(l_diversity(l_kind)(l=l))
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
