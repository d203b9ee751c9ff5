"""The anonymization methods, one module each, found by name through this registry.

The GUI, the CLI and job files list methods from :func:`available`; nothing else keeps a list.
"""

from __future__ import annotations

from importlib import import_module

from anonstudio.core.algorithms._base import Algorithm, Result
from anonstudio.core.errors import NotAvailableError, ParameterError

#: name → "module:Class" of every method this version provides (imported lazily).
_REGISTRY: dict[str, str] = {
    "condensation": "anonstudio.core.algorithms.condensation:Condensation",
    "mst": "anonstudio.core.algorithms.mst_recoding:MSTRecoding",
    "mondrian": "anonstudio.core.algorithms.mondrian:Mondrian",
    "kmember": "anonstudio.core.algorithms.kmember:KMember",
    "local": "anonstudio.core.algorithms.local_recoding:LocalRecoding",
    "global": "anonstudio.core.algorithms.global_recoding:GlobalRecoding",
    "ra": "anonstudio.core.algorithms.ra:RandomAnonymization",
    "ra-enhanced": "anonstudio.core.algorithms.ra:EnhancedRandomAnonymization",
    "anatomy": "anonstudio.core.algorithms.anatomy:Anatomy",
    "cbmsa": "anonstudio.core.algorithms.cbmsa:CBMSA",
    "cbmsa-baseline": "anonstudio.core.algorithms.cbmsa:CBMSABaseline",
}

_ORDER = tuple(_REGISTRY)

#: every method name the contract knows; those not in the registry answer "not available yet".
CONTRACT_NAMES = (
    "condensation", "ra", "ra-enhanced", "mst", "mondrian", "kmember", "local", "global", "anatomy", "cbmsa",
    "cbmsa-baseline",
)


def available(data_kind: str | None = None) -> list[type[Algorithm]]:
    """The algorithm classes this version provides, optionally only those for one data kind."""
    # the registry's declared order (a kind's main method first, a method before its baseline), then any
    # name registered later (tests), so re-registering a name never reorders the lists
    order = [n for n in _ORDER if n in _REGISTRY] + [n for n in _REGISTRY if n not in _ORDER]
    classes = [get(name) for name in order]
    return [c for c in classes if data_kind is None or c.data_kind == data_kind]


def get(name: str) -> type[Algorithm]:
    """The class registered under ``name``; unknown or not-yet-built names raise clear errors."""
    if name in _REGISTRY:
        module, cls = _REGISTRY[name].split(":")
        return getattr(import_module(module), cls)
    if name in CONTRACT_NAMES:
        raise NotAvailableError(f"method '{name}' is not available yet in this version", key="algorithm.name")
    known = ", ".join(sorted(set(_REGISTRY) | set(CONTRACT_NAMES)))
    raise ParameterError(f"unknown method '{name}' (known: {known})", key="algorithm.name")


__all__ = ["Algorithm", "CONTRACT_NAMES", "Result", "available", "get"]
