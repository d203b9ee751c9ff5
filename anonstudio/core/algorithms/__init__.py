"""The anonymization methods, one module each, found by name through this registry.

The GUI, the CLI and job files list methods from :func:`available`; nothing else keeps a list. A method joins by
one :func:`register` call — a line below for the methods this version ships, or in the module that defines a
method of one's own::

    from anonstudio.core import algorithms
    algorithms.register(MyMethod)                             # a class: registered under MyMethod.name
    algorithms.register("mypackage.methods:MyMethod", name="mine")   # "module:Class", imported when first used

A class must subclass :class:`Algorithm`; :func:`unregister` and the :func:`registered` context manager (tests)
undo a registration.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module

from anonstudio.core.algorithms._base import Algorithm, Result
from anonstudio.core.errors import NotAvailableError, ParameterError

#: name → the class, or "module:Class" imported on first use (the shipped methods: ``anonstudio methods`` and
#: ``--help`` import none of them)
_REGISTRY: dict[str, str | type[Algorithm]] = {}

#: every method name the contract knows; those not in the registry answer "not available yet".
CONTRACT_NAMES = (
    "condensation", "ra", "ra-enhanced", "mst", "mondrian", "kmember", "local", "global", "safepub", "anatomy",
    "cbmsa", "cbmsa-baseline",
)


def register(method: str | type[Algorithm], *, name: str | None = None, replace: bool = False) -> str:
    """Register a method: an :class:`Algorithm` subclass, or ``"module:Class"`` imported when first used
    (``name`` is then required). Returns the name. A name already registered is refused unless ``replace``."""
    if isinstance(method, str):
        if ":" not in method or not name:
            raise ValueError("register('module:Class', name=...) names the class and the method")
    elif not (isinstance(method, type) and issubclass(method, Algorithm)):
        raise TypeError(f"a method is an Algorithm subclass, got {method!r}")
    else:
        if name and name != method.name:
            raise ValueError(f"{method.__name__} is named '{method.name}', not '{name}'")
        name = method.name
        if not name:
            raise ValueError(f"{method.__name__} declares no name")
    assert name is not None
    if name in _REGISTRY and not replace and _REGISTRY[name] is not method:
        raise ValueError(f"a method named '{name}' is already registered (pass replace=True to replace it)")
    _REGISTRY[name] = method
    return name


def unregister(name: str) -> str | type[Algorithm] | None:
    """Remove the method registered as ``name`` (a contract name then answers "not available yet"); returns
    what was registered, or ``None``."""
    return _REGISTRY.pop(name, None)


@contextmanager
def registered(method: str | type[Algorithm] | None, *, name: str | None = None) -> Iterator[str | None]:
    """Within the block, ``method`` is registered (``None``: the method ``name`` is not); afterwards the
    registry is as it was. For tests and previews."""
    key = name or (method.name if isinstance(method, type) else None)
    if key is None:
        raise ValueError("registered() needs a name")
    saved = dict(_REGISTRY)  # entries and their order (a kind's main method first: the workbench lists it first)
    if method is None:
        _REGISTRY.pop(key, None)
    else:
        register(method, name=key, replace=True)
    try:
        yield key
    finally:
        _REGISTRY.clear()
        _REGISTRY.update(saved)


def names() -> list[str]:
    """The registered method names, in registration order (the shipped methods first)."""
    return list(_REGISTRY)


def available(data_kind: str | None = None) -> list[type[Algorithm]]:
    """The algorithm classes this version provides, optionally only those for one data kind, in registration
    order (a kind's main method first, a method before its baseline)."""
    classes = [get(name) for name in _REGISTRY]
    return [c for c in classes if data_kind is None or c.data_kind == data_kind]


def get(name: str) -> type[Algorithm]:
    """The class registered under ``name``; unknown or not-yet-built names raise clear errors."""
    if name in _REGISTRY:
        entry = _REGISTRY[name]
        if isinstance(entry, str):
            module, cls = entry.split(":")
            found: type[Algorithm] = getattr(import_module(module), cls)
            return found
        return entry
    if name in CONTRACT_NAMES:
        raise NotAvailableError(f"method '{name}' is not available yet in this version", key="algorithm.name")
    known = ", ".join(sorted(set(_REGISTRY) | set(CONTRACT_NAMES)))
    raise ParameterError(f"unknown method '{name}' (known: {known})", key="algorithm.name")


register("anonstudio.core.algorithms.condensation:Condensation", name="condensation")
register("anonstudio.core.algorithms.mst_recoding:MSTRecoding", name="mst")
register("anonstudio.core.algorithms.mondrian:Mondrian", name="mondrian")
register("anonstudio.core.algorithms.kmember:KMember", name="kmember")
register("anonstudio.core.algorithms.local_recoding:LocalRecoding", name="local")
register("anonstudio.core.algorithms.global_recoding:GlobalRecoding", name="global")
register("anonstudio.core.algorithms.safepub:SafePub", name="safepub")
register("anonstudio.core.algorithms.ra:RandomAnonymization", name="ra")
register("anonstudio.core.algorithms.ra:EnhancedRandomAnonymization", name="ra-enhanced")
register("anonstudio.core.algorithms.anatomy:Anatomy", name="anatomy")
register("anonstudio.core.algorithms.cbmsa:CBMSA", name="cbmsa")
register("anonstudio.core.algorithms.cbmsa:CBMSABaseline", name="cbmsa-baseline")

__all__ = ["Algorithm", "CONTRACT_NAMES", "Result", "available", "get", "names", "register", "registered",
           "unregister"]
