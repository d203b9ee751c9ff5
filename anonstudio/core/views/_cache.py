"""Views computed once per outcome: :func:`cached_view` keeps what :func:`prepare_views` computed on the worker thread
that ran the outcome, for as long as the outcome lives, so showing it costs the GUI thread only drawing."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

# ---------------------------------------------------------------------------------------------------------
# views computed once per object (see prepare_views)
_VIEWS: dict[tuple, tuple[tuple[weakref.ref, ...], Any]] = {}
_PREPARING = threading.local()


def cached_view(name: str, objects: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, or the value :func:`prepare_views` stored for these ``objects`` (keyed by identity,
    kept for as long as every one of them lives).

    Result panes call the view functions below on the GUI thread; :func:`prepare_views` calls them on the
    worker thread right after a run and keeps what they return, so that showing a large result costs the
    GUI thread only the Qt work. Only views of a finished run's outcome (never modified afterwards) are
    kept; any other call computes afresh. What it returns is shared: callers must not modify it.
    """
    key = (name, *(id(o) for o in objects))
    hit = _VIEWS.get(key)
    if hit is not None and all(ref() is o for ref, o in zip(hit[0], objects)):
        return hit[1]
    value = compute()
    if getattr(_PREPARING, "active", False):
        try:
            refs = tuple(weakref.ref(o, lambda _ref, key=key: _VIEWS.pop(key, None)) for o in objects)
        except TypeError:  # an object without weak references: not kept
            return value
        _VIEWS[key] = (refs, value)
    return value


def prepare_views(outcome: Any) -> Any:
    """Compute the costly views of ``outcome`` now (on the worker thread that ran it); returns it.

    What the result panes later ask for — equivalence classes, changed cells, the frames as text, the MST
    layout — then comes from :func:`cached_view`, so the GUI thread never converts whole frames.
    """
    _PREPARING.active = True
    try:
        _prepare(outcome)
    finally:
        _PREPARING.active = False
    return outcome


def _prepare(outcome: Any) -> None:
    from anonstudio.core.views._classes import changed_mask, class_sizes, data_kind, equivalence_classes, frame_of
    from anonstudio.core.views._mst import mst_view
    from anonstudio.core.views._strings import fragment_lengths

    class_sizes(equivalence_classes(outcome))
    if getattr(outcome.result, "groups", None) is not None:
        class_sizes(outcome.result.groups)
    data, output = getattr(outcome, "data", None), getattr(outcome.result, "output", None)
    if data_kind(data) == "table" and data_kind(output) == "table":
        from anonstudio.core.views._utility import distribution, generalization_levels, utility_attributes

        generalization_levels(outcome)  # the Summary's first line
        shown = utility_attributes(outcome)
        if shown:
            distribution(outcome, shown[0])  # the Utility view's first attribute
        original, published = frame_of(data), frame_of(output)
        if original is not None and published is not None:
            changed_mask(original, published)  # the tables format their visible rows only (FrameModel)
    if (getattr(outcome.result, "details", None) or {}).get("mst_edges") is not None:
        mst_view(outcome)
    if (getattr(outcome.result, "details", None) or {}).get("lattice_nodes") is not None:
        from anonstudio.core.views._lattice import lattice_view

        lattice_view(outcome)
    if data_kind(data) == "fasta" and data_kind(output) == "fasta":
        fragment_lengths(outcome)


