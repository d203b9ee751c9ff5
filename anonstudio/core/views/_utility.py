"""The utility view, Qt-free: per attribute, the distribution of its values before and after anonymization, and
the generalization levels a table release chose (the Summary's first line).

ARX's utility view shows, per attribute, the frequencies of the input's values beside those of the output's
(Prasser & Kohlmayer, ARX, Medical Data Privacy Handbook 2015, §5): here a bar per value before and a bar per
published label after (a generalized cell counts under its label, a suppressed one under ``*``); a numeric column
of many values is drawn as a histogram before, and after as well while its published cells stay numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: the most bars of one side: the rarest values beyond them are pooled in one bar
MAX_BARS = 30
#: a numeric column with more distinct values than this is drawn as a histogram
HISTOGRAM_ABOVE = 20
#: the label of missing cells
MISSING = "(missing)"


@dataclass
class Bars:
    """One side's bars: ``labels`` (one per bar), ``counts`` (records), and for a histogram the bins' ``edges``
    (``len(counts) + 1`` numbers; ``None``: one bar per label)."""

    labels: list[str]
    counts: np.ndarray
    edges: np.ndarray | None = None


@dataclass
class Distribution:
    """An attribute's ``before`` and ``after`` bars and a ``note`` (what was pooled, how the sides differ)."""

    attribute: str
    before: Bars
    after: Bars
    note: str


def utility_attributes(outcome: Any) -> list[str]:
    """The attributes whose distributions can be compared: the release's columns that the input holds too, its
    quasi-identifiers first (``[]``: not a table release)."""
    from anonstudio.core.views._classes import data_kind, frame_of

    data, output = getattr(outcome, "data", None), getattr(getattr(outcome, "result", None), "output", None)
    if data_kind(data) != "table" or data_kind(output) != "table":
        return []
    before, after = frame_of(data), frame_of(output)
    if before is None or after is None:
        return []
    shared = [c for c in after.columns if c in before.columns and c != "group"]
    qis = [c for c in getattr(data, "quasi_identifiers", []) if c in shared]
    return qis + [c for c in shared if c not in qis]


def _numbers(cells: pd.Series) -> np.ndarray | None:
    """The cells as floats when every present one is a number (else ``None``)."""
    present = cells.dropna().astype(str)
    values = pd.to_numeric(present, errors="coerce")
    return None if values.isna().any() or not len(values) else values.to_numpy(dtype=float)


def _counted(cells: pd.Series, order: dict[str, int] | None) -> Bars:
    """One bar per value (missing as :data:`MISSING`), in hierarchy order when ``order`` is given (else by count),
    ``*`` last; beyond :data:`MAX_BARS` the rarest pooled."""
    counts = cells.astype("string").fillna(MISSING).value_counts(sort=True)
    labels = [str(v) for v in counts.index]
    values = counts.to_numpy(dtype=np.int64)
    if len(labels) > MAX_BARS:
        keep = MAX_BARS - 1
        pooled = int(values[keep:].sum())
        labels = labels[:keep] + [f"({len(values) - keep} others)"]
        values = np.concatenate([values[:keep], [pooled]])
    if order is not None:
        rank = [(order.get(label, len(order)), label in ("*", MISSING) or label.endswith(" others)"), i)
                for i, label in enumerate(labels)]
        at = sorted(range(len(labels)), key=lambda i: (rank[i][1], rank[i][0], rank[i][2]))
        labels, values = [labels[i] for i in at], values[at]
    return Bars(labels, values)


def _label_order(hierarchy: Any) -> dict[str, int] | None:
    """Each label of ``hierarchy`` ranked by its first leaf's row (an interval tree's bands in their order)."""
    if hierarchy is None:
        return None
    order: dict[str, int] = {}
    for i, row in enumerate(hierarchy.rows):
        for label in row:
            order.setdefault(str(label), i)
    return order


def _nice_edges(numbers: np.ndarray, bins: int = 20) -> np.ndarray:
    """Bin edges of a width 1, 2 or 5 × 10ⁿ giving about ``bins`` bins (labels a reader reads: 20–25, not 19.43)."""
    lo, hi = float(numbers.min()), float(numbers.max())
    raw = max((hi - lo) / bins, 1e-12)
    power = 10.0 ** np.floor(np.log10(raw))
    width = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = np.floor(lo / width) * width
    count = max(int(np.floor((hi - start) / width)) + 1, 1)
    return start + width * np.arange(count + 1)


def distribution(outcome: Any, attribute: str) -> Distribution:
    """``attribute``'s distribution before (the input) and after (the release), see the module; computed once per
    outcome and attribute (``prepare_views`` computes the first attribute's on the worker thread)."""
    from anonstudio.core.views._cache import cached_view

    return cached_view(f"distribution:{attribute}", (outcome,), lambda: _distribution(outcome, attribute))


def _distribution(outcome: Any, attribute: str) -> Distribution:
    from anonstudio.core.views._classes import frame_of

    before_cells = frame_of(outcome.data)[attribute]
    after_cells = frame_of(outcome.result.output)[attribute]
    hierarchy = (getattr(outcome, "hierarchies", None) or {}).get(attribute)
    order = _label_order(hierarchy)
    numbers = _numbers(before_cells)
    if numbers is not None and len(np.unique(numbers)) > HISTOGRAM_ABOVE:
        edges = _nice_edges(numbers)
        counts, _ = np.histogram(numbers, bins=edges)
        labels = [f"{lo:g}–{hi:g}" for lo, hi in zip(edges[:-1], edges[1:])]
        before = Bars(labels, counts.astype(np.int64), edges)
        published = _numbers(after_cells)
        if published is not None:
            after_counts, _ = np.histogram(published, bins=edges)
            after = Bars(labels, after_counts.astype(np.int64), edges)
            note = "histograms over the same bins"
        else:
            after = _counted(after_cells, order)
            note = "a histogram of the input's values; after, the records per published label"
    else:
        before, after = _counted(before_cells, order), _counted(after_cells, order)
        note = "records per value before, per published label after"
    if order is not None and after.edges is None:
        note += " (in the order of the hierarchy's rows)"
    return Distribution(attribute, before, after, note)


# -- the levels a release chose (the Summary's first line) ---------------------------------------------------
def _label_levels(hierarchy: Any) -> dict[str, int]:
    """Each label of ``hierarchy`` with the lowest level it stands at."""
    levels: dict[str, int] = {}
    for label, level in zip(hierarchy.node_labels, hierarchy.node_level_list):
        levels[label] = min(level, levels.get(label, level))
    return levels


def generalization_levels(outcome: Any) -> str:
    """The hierarchy levels a table release chose, in one line (:func:`_levels_line`), computed once per outcome
    (:func:`~._cache.prepare_views` computes it on the worker thread)."""
    from anonstudio.core.views._cache import cached_view

    return cached_view("generalization_levels", (outcome,), lambda: _levels_line(outcome))


def _levels_line(outcome: Any) -> str:
    """The hierarchy levels a table release chose, in one line: a full-domain release (``global``, ``safepub``:
    the report's ``metrics.transformation``) ``"age: level 2 of 4 · sex: level 0 of 1 …"``; a local one (Mondrian,
    local recoding, MST, k-member) ``"mixed levels — age: mean level 1.4 (levels 0–3) of 4 · …"``, the mean over the records not
    suppressed; ``""`` for any other release."""
    from anonstudio.core import algorithms
    from anonstudio.core.algorithms._tabular import GeneralizingMethod
    from anonstudio.core.errors import AnonStudioError
    from anonstudio.core.views._classes import frame_of

    report = getattr(outcome, "report", None) or {}
    hierarchies = getattr(outcome, "hierarchies", None) or {}
    fixed = (report.get("metrics") or {}).get("transformation")
    if isinstance(fixed, dict) and fixed:
        return " · ".join(f"{a}: level {int(v)} of {hierarchies[a].height}" if a in hierarchies else
                          f"{a}: level {int(v)}" for a, v in fixed.items())
    try:
        cls = algorithms.get(str(report.get("algorithm", "")))
    except AnonStudioError:
        return ""
    if not issubclass(cls, GeneralizingMethod):
        return ""
    output = frame_of(getattr(outcome.result, "output", None))
    qis = [q for q in getattr(outcome.data, "quasi_identifiers", []) if q in hierarchies and output is not None
           and q in output.columns]
    if not qis:
        return ""
    suppressed = np.ones(len(output), dtype=bool)
    for q in qis:
        suppressed &= (output[q].astype("string") == "*").fillna(False).to_numpy(dtype=bool)
    parts = []
    for q in qis:
        h = hierarchies[q]
        counts = output[q][~suppressed].astype("string").fillna("*").value_counts()
        levels = _label_levels(h)
        lv = np.array([levels.get(str(label), h.height) for label in counts.index], dtype=float)
        n = counts.to_numpy(dtype=float)
        if not n.sum():
            parts.append(f"{q}: all suppressed")
            continue
        mean = float((lv * n).sum() / n.sum())
        lo, hi = int(lv.min()), int(lv.max())
        parts.append(f"{q}: mean level {mean:.1f} (levels {lo}–{hi}) of {h.height}" if lo != hi else
                     f"{q}: level {lo} of {h.height}")
    return "mixed levels — " + " · ".join(parts)
