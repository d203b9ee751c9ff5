"""The privacy-model registry: one class per model (:class:`PrivacyModel`), registered with one line.

Importing this package declares and registers every model (``_basic``: the methods' own guarantees;
``_distribution``: models over a class's sensitive distribution; ``_population``: models over class sizes and a
population) without loading numpy, so the methods' declarations read their lists of models from here
(:func:`enforced_by`, :class:`Enforced`, :class:`Description`). ``anonstudio.core.privacy`` re-exports the
registry for the verifiers' callers.
"""

from __future__ import annotations

from anonstudio.core.models._base import (
    DATA_KINDS,
    ENFORCEMENTS,
    FRAGMENTS,
    HIGHLY_SENSITIVE,
    LATTICE,
    MODELS,
    NEAR_COPIES,
    POPULATION,
    REPAIR,
    REQUIREMENTS,
    SENSITIVE,
    SIZES,
    SPLIT,
    ClassStats,
    Description,
    Enforced,
    PrivacyModel,
    enforced_by,
    models_sentence,
    register,
    registered,
    unregister,
)
from anonstudio.core.models._basic import (
    CondensedGroups,
    DistinctLDiversity,
    EntropyLDiversity,
    FragmentRule,
    FrequencyLDiversity,
    KAnonymity,
    KCPrivacy,
    NearCopyRule,
    l_diversity,
    partition_limits,
    table_models,
)
from anonstudio.core.models import _distribution, _population  # noqa: F401  (they register)

__all__ = [
    "DATA_KINDS",
    "ENFORCEMENTS",
    "FRAGMENTS",
    "HIGHLY_SENSITIVE",
    "LATTICE",
    "MODELS",
    "NEAR_COPIES",
    "POPULATION",
    "REPAIR",
    "REQUIREMENTS",
    "SENSITIVE",
    "SIZES",
    "SPLIT",
    "ClassStats",
    "CondensedGroups",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "FragmentRule",
    "FrequencyLDiversity",
    "KAnonymity",
    "KCPrivacy",
    "NearCopyRule",
    "Description",
    "Enforced",
    "PrivacyModel",
    "enforced_by",
    "l_diversity",
    "models_sentence",
    "partition_limits",
    "register",
    "registered",
    "table_models",
    "unregister",
]
