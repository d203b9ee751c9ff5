"""Hierarchy builders: make a :class:`Hierarchy` from a rule instead of a file.

Four rules, each also reachable from a job file through :func:`build_hierarchy`:

==============  ===========================================  ==========================================
rule            job file                                     example path leaf → root
==============  ===========================================  ==========================================
intervals       ``{intervals = [5, 10, 20], start = 0}``     ``37 → 35-39 → 30-39 → 20-39 → *``
masking         ``{mask = "*"}`` (optional ``levels = 3``)   ``535280 → 53528* → 5352** → … → *``
grouping        ``{groups = [{...}, {...}]}``                ``Flu → respiratory → infectious → *``
dates           ``{date = ["month", "year"]}``               ``2020-03-17 → 2020-03 → 2020 → *``
==============  ===========================================  ==========================================

Every builder returns a validated tree (no node with two parents, one root), so the result can be
written as an ARX file and read back unchanged. User mistakes raise :class:`HierarchyError` naming the
attribute (and the job file when ``source`` is given) and the offending value or key.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.errors import HierarchyError
from anonstudio.core.limits import MAX_HIERARCHY_LEVELS
from anonstudio.core.hierarchy._tree import Hierarchy

__all__ = ["DATE_PARTS", "build_hierarchy", "dates", "default_numeric_hierarchy", "grouping", "intervals", "masking", "nice_widths"]

ROOT = "*"
DATE_PARTS = ("month", "quarter", "year", "5 years", "decade")


def _unique(values: Iterable[Any]) -> list[str]:
    """Distinct non-missing values as stripped strings, in first-seen order."""
    seen: dict[str, None] = {}
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
            continue
        s = str(v).strip()
        if s:
            seen.setdefault(s, None)
    return list(seen)


def _err(message: str, attribute: str, source: str | Path | None) -> HierarchyError:
    return HierarchyError(message, file=source, column=attribute)


def _check_levels(count: int, what: str, attribute: str, source: str | Path | None) -> None:
    """A built hierarchy has at most :data:`~anonstudio.core.limits.MAX_HIERARCHY_LEVELS` levels (20,000 interval
    widths asked for 52 GiB)."""
    if count > MAX_HIERARCHY_LEVELS:
        raise _err(f"{count:,} {what}: a hierarchy has at most {MAX_HIERARCHY_LEVELS} levels", attribute, source)


# ---------------------------------------------------------------------------------------------------------
# intervals
def _parse_numbers(attribute: str, values: list[str], source) -> list[Fraction]:
    out: list[Fraction] = []
    for v in values:
        try:
            f = float(v)
        except ValueError:
            raise _err(f"'{v}' is not a number, so '{attribute}' cannot get an interval hierarchy", attribute, source) from None
        if not math.isfinite(f):
            raise _err(f"'{v}' is not a finite number, so '{attribute}' cannot get an interval hierarchy", attribute, source)
        out.append(Fraction(v.strip()) if _plain_decimal(v) else Fraction(f))
    return out


def _plain_decimal(text: str) -> bool:
    try:
        Fraction(text.strip())
        return True
    except (ValueError, ZeroDivisionError):
        return False


def _fmt(x: Fraction) -> str:
    """A number as short text: ``20``, ``2.5``, ``0.125``, ``-5``."""
    if x.denominator == 1:
        return str(x.numerator)
    return np.format_float_positional(float(x), trim="-", precision=12)


def intervals(
    attribute: str,
    values: Iterable[Any],
    widths: Sequence[float],
    start: float | None = None,
    root: str = ROOT,
    *,
    source: str | Path | None = None,
) -> Hierarchy:
    """Numeric bands of growing width, then the root.

    Parameters
    ----------
    attribute:
        The column the hierarchy generalizes.
    values:
        The data values (strings or numbers); each becomes a leaf as written.
    widths:
        Band width per level, finest first (e.g. ``[5, 10, 20]``). Each width must be a whole multiple of
        the previous one, so that every band lies inside exactly one band of the next level.
    start:
        A band boundary: bands are ``[start + i·w, start + (i+1)·w)``. Default: the minimum rounded down
        to a multiple of the *largest* width, so that bands of every level start at "round" numbers
        (``35-39``, ``30-39``, ``20-39``, as ARX's age hierarchy).
    root:
        Label of the root.
    source:
        File to name in error messages (e.g. the job file).

    Returns
    -------
    Hierarchy
        Rows ``[value, band(w1), band(w2), ..., root]``. Integer data gets inclusive labels ``lo-hi``
        (``20-24`` for width 5; ``[-10, -6]`` when bands reach below zero); other data half-open labels
        ``[lo, hi)``.

    Raises
    ------
    HierarchyError
        A non-numeric value (named), no widths, a width ≤ 0, or a width that is not a multiple of the
        previous one.
    """
    leaves = _unique(values)
    if not leaves:
        raise _err(f"no values to build an interval hierarchy for '{attribute}'", attribute, source)
    if not widths:
        raise _err("the interval hierarchy needs at least one width", attribute, source)
    _check_levels(len(widths), "interval widths", attribute, source)
    nums = _parse_numbers(attribute, leaves, source)
    ws: list[Fraction] = []
    for w in widths:
        try:
            fw = Fraction(str(w)) if not isinstance(w, Fraction) else w
        except (ValueError, ZeroDivisionError):
            raise _err(f"interval width '{w}' is not a number", attribute, source) from None
        if fw <= 0:
            raise _err(f"interval width {w} must be greater than 0", attribute, source)
        ws.append(fw)
    for prev, w in zip(ws, ws[1:]):
        if (w / prev).denominator != 1:
            raise _err(
                f"interval width {_fmt(w)} is not a multiple of the previous width {_fmt(prev)}: "
                "bands would not nest (use e.g. 5, 10, 20)",
                attribute,
                source,
            )
    if start is None:
        s0 = math.floor(min(nums) / ws[-1]) * ws[-1]
    else:
        try:
            s0 = Fraction(str(start))
        except (ValueError, ZeroDivisionError):
            raise _err(f"interval start '{start}' is not a number", attribute, source) from None
        below = [v for v, n in zip(leaves, nums) if n < s0]
        if below:
            raise _err(f"value '{below[0]}' lies below the interval start {start}", attribute, source)
    integer = (
        all(n.denominator == 1 for n in nums) and all(w.denominator == 1 for w in ws) and s0.denominator == 1
    )

    negative = s0 < 0

    def label(lo: Fraction, w: Fraction) -> str:
        if integer and not negative:
            return f"{_fmt(lo)}-{_fmt(lo + w - 1)}"
        if integer:  # "-10--6" would be unreadable
            return f"[{_fmt(lo)}, {_fmt(lo + w - 1)}]"
        return f"[{_fmt(lo)}, {_fmt(lo + w)})"

    rows: list[list[str]] = []
    for leaf, n in zip(leaves, nums):
        row = [leaf]
        for w in ws:
            lo = s0 + math.floor((n - s0) / w) * w
            row.append(label(lo, w))
        row.append(root)
        rows.append(row)
    return Hierarchy(attribute, rows, source=source)


def nice_widths(values: Iterable[Any], *, bands: int = 20, max_levels: int = 12) -> list[float | int]:
    """Widths for :func:`default_numeric_hierarchy`: the smallest width of the form 1·10ⁿ or 5·10ⁿ giving
    at most about ``bands`` bands over the data range (at least 1 for whole numbers), then doubling until
    one band (aligned to a multiple of its width) covers every value: e.g. 5/10/20/40/80/160 for ages
    17–90, 50/100/200/… for incomes in the thousands."""
    nums = [float(v) for v in values]
    lo, hi = min(nums), max(nums)
    integer = all(float(v).is_integer() for v in nums)
    span = hi - lo
    target = span / bands if span > 0 else 1.0
    exp = math.floor(math.log10(target)) if target > 0 else 0
    w = None
    for e in (exp - 1, exp, exp + 1):
        for m in (1, 5):
            cand = Fraction(m) * (Fraction(10) ** e)
            if cand >= Fraction(target).limit_denominator(10**9) and w is None:
                w = cand
    if w is None:
        w = Fraction(10) ** (exp + 1)
    if integer and w < 1:
        w = Fraction(1)
    out = [w]
    flo, fhi = Fraction(lo).limit_denominator(10**12), Fraction(hi).limit_denominator(10**12)
    while len(out) < max_levels:
        top = out[-1]
        base = math.floor(flo / top) * top
        if base + top > fhi:
            break
        out.append(top * 2)
    return [int(x) if x.denominator == 1 else float(x) for x in out]


def default_numeric_hierarchy(
    attribute: str, values: Iterable[Any], *, source: str | Path | None = None
) -> tuple[Hierarchy, str]:
    """An interval hierarchy for a numeric attribute that has none, and a sentence for the report.

    The widths follow :func:`nice_widths` (e.g. ``5/10/20/40/80`` for ages 17–90): fine enough to keep
    detail, doubling so that bands nest, and stopping when one band covers the whole range.
    """
    leaves = _unique(values)
    if not leaves:
        raise _err(f"no values to build a default hierarchy for '{attribute}'", attribute, source)
    _parse_numbers(attribute, leaves, source)
    numbers = [float(v) for v in leaves]
    lo, hi = min(numbers), max(numbers)
    if max(abs(lo), abs(hi)) > 1e15:
        # beyond this, interval bounds lose whole units in floating point and band widths overflow
        raise _err(f"values of '{attribute}' reach {hi if abs(hi) >= abs(lo) else lo:g}: too large for default interval "
                   "bands (beyond ±10^15); give '{attribute}' a hierarchy under [hierarchies]".replace("{attribute}", attribute),
                   attribute, source)
    widths = nice_widths(leaves)
    h = intervals(attribute, leaves, widths, source=source)
    note = (
        f"'{attribute}' had no hierarchy: a default interval hierarchy with band widths "
        f"{'/'.join(str(w) for w in widths)} (then '*') was used."
    )
    return h, note


# ---------------------------------------------------------------------------------------------------------
# masking
def masking(
    attribute: str,
    values: Iterable[Any],
    char: str = "*",
    levels: int | None = None,
    *,
    root: str = ROOT,
    source: str | Path | None = None,
) -> Hierarchy:
    """Mask one more character from the right per level: ``535280 → 53528* → 5352** → … → *``.

    Level ``j`` masks the ``j`` rightmost characters of every value, **within the value's own length**: a
    value shorter than ``j`` is fully masked (``12 → 1* → ** → ** → *``), so all values of one level are
    equally coarse and a label never has two parents (the label of level ``j+1`` is a function of the label
    of level ``j``). There are ``levels`` masked levels (default: the longest value's length minus one, the
    last level that still shows a character of the longest values), then the root.

    Raises
    ------
    HierarchyError
        No values, an empty mask character, or ``levels`` < 1.
    """
    leaves = _unique(values)
    if not leaves:
        raise _err(f"no values to build a masking hierarchy for '{attribute}'", attribute, source)
    if not isinstance(char, str) or len(char) != 1:
        raise _err(f"the mask character must be one character, got {char!r}", attribute, source)
    longest = max(len(v) for v in leaves)
    if levels is None:
        levels = max(longest - 1, 1)
    if not isinstance(levels, int) or isinstance(levels, bool) or levels < 1:
        raise _err(f"masking levels must be a whole number ≥ 1, got {levels!r}", attribute, source)
    _check_levels(levels, "masked levels" + (f" (values of up to {longest} characters)" if longest > levels else ""),
                  attribute, source)
    rows = []
    for v in leaves:
        row = [v]
        for j in range(1, levels + 1):
            m = min(j, len(v))
            row.append(v[: len(v) - m] + char * m)
        row.append(root)
        rows.append(row)
    return Hierarchy(attribute, rows, source=source)


# ---------------------------------------------------------------------------------------------------------
# grouping
def grouping(
    attribute: str,
    levels: Sequence[dict[str, Sequence[Any]]],
    values: Iterable[Any] | None = None,
    *,
    root: str = ROOT,
    source: str | Path | None = None,
) -> Hierarchy:
    """Named groups per level: level 1 groups data values, level 2 groups level-1 group names, …, then root.

    Parameters
    ----------
    levels:
        ``[{"young": ["17", "18"], "old": [...]}, {"all-ages": ["young", "old"]}]``.
    values:
        The data values; when given, each must be in a level-1 group (otherwise: error naming it).

    Raises
    ------
    HierarchyError
        A member listed in two groups of one level, a name of the level below missing from a level, or a
        data value in no group — each naming the value and the level.
    """
    if not levels:
        raise _err("the grouping hierarchy needs at least one level of groups", attribute, source)
    _check_levels(len(levels), "grouping levels", attribute, source)
    parent_maps: list[dict[str, str]] = []
    below: list[str] | None = None
    for depth, level in enumerate(levels, start=1):
        if not isinstance(level, dict) or not level:
            raise _err(f"grouping level {depth} must be a non-empty table of group = [members]", attribute, source)
        pmap: dict[str, str] = {}
        for group, members in level.items():
            group = str(group).strip()
            if not group:
                raise _err(f"grouping level {depth} has a group with an empty name", attribute, source)
            if isinstance(members, (str, int, float)):
                members = [members]
            for m in members:
                ms = str(m).strip()
                if ms in pmap and pmap[ms] != group:
                    raise _err(
                        f"'{ms}' is in two groups of level {depth}: '{pmap[ms]}' and '{group}'", attribute, source
                    )
                pmap[ms] = group
        if below is not None:
            missing = [b for b in below if b not in pmap]
            if missing:
                raise _err(f"group '{missing[0]}' of level {depth - 1} is in no group of level {depth}", attribute, source)
            extra = [m for m in pmap if m not in set(below)]
            if extra:
                raise _err(
                    f"'{extra[0]}' in level {depth} is not a group name of level {depth - 1}", attribute, source
                )
        parent_maps.append(pmap)
        below = list(dict.fromkeys(pmap.values()))
    leaves = list(parent_maps[0])
    if values is not None:
        data = _unique(values)
        missing = [v for v in data if v not in parent_maps[0]]
        if missing:
            raise _err(f"value '{missing[0]}' is in no group of level 1", attribute, source)
    rows = []
    for leaf in leaves:
        row = [leaf]
        cur = leaf
        for pmap in parent_maps:
            cur = pmap[cur]
            row.append(cur)
        row.append(root)
        rows.append(row)
    return Hierarchy(attribute, rows, source=source)


# ---------------------------------------------------------------------------------------------------------
# dates
def dates(
    attribute: str,
    values: Iterable[Any],
    parts: Sequence[str] = ("month", "year"),
    *,
    root: str = ROOT,
    source: str | Path | None = None,
) -> Hierarchy:
    """Calendar generalization: ``2020-03-17 → 2020-03 → 2020 → *``.

    ``parts`` are coarser-going steps from ``month`` (``2020-03``), ``quarter`` (``2020-Q1``), ``year``
    (``2020``), ``5 years`` (``2020-2024``, bands aligned to multiples of 5 so they nest in decades), ``decade``
    (``2020s``). Values are parsed as ISO dates (``YYYY-MM-DD``, optionally with a
    time); an unparseable value is an error naming it.
    """
    leaves = _unique(values)
    if not leaves:
        raise _err(f"no values to build a date hierarchy for '{attribute}'", attribute, source)
    parts = [str(p) for p in parts]
    if not parts:
        raise _err("the date hierarchy needs at least one part (month, quarter, year, decade)", attribute, source)
    order = {p: i for i, p in enumerate(DATE_PARTS)}
    for p in parts:
        if p not in order:
            raise _err(f"unknown date part '{p}' (known: {', '.join(DATE_PARTS)})", attribute, source)
    for a, b in zip(parts, parts[1:]):
        if order[b] <= order[a]:
            raise _err(f"date parts must get coarser: '{b}' after '{a}'", attribute, source)
    parsed = pd.to_datetime(pd.Series(leaves), errors="coerce", format="ISO8601")
    bad = parsed.isna().to_numpy()
    if bad.any():
        raise _err(f"'{leaves[int(np.flatnonzero(bad)[0])]}' is not a date (YYYY-MM-DD)", attribute, source)
    rows = []
    for leaf, ts in zip(leaves, parsed):
        row = [leaf]
        for p in parts:
            if p == "month":
                row.append(f"{ts.year:04d}-{ts.month:02d}")
            elif p == "quarter":
                row.append(f"{ts.year:04d}-Q{(ts.month - 1) // 3 + 1}")
            elif p == "year":
                row.append(f"{ts.year:04d}")
            elif p == "5 years":
                row.append(f"{ts.year // 5 * 5:04d}-{ts.year // 5 * 5 + 4:04d}")
            else:
                row.append(f"{ts.year // 10 * 10:04d}s")
        row.append(root)
        rows.append(row)
    return Hierarchy(attribute, rows, source=source)


# ---------------------------------------------------------------------------------------------------------
# job-file specs
_SPEC_KEYS = {
    "mask": {"mask", "levels"},
    "intervals": {"intervals", "start"},
    "groups": {"groups"},
    "date": {"date"},
}
_ALL_KEYS = sorted(set().union(*_SPEC_KEYS.values()))


def build_hierarchy(
    attribute: str, spec: dict[str, Any], values: Iterable[Any], *, source: str | Path | None = None
) -> Hierarchy:
    """Build the hierarchy a job file describes for ``attribute``.

    Specs (one kind per attribute): ``{mask = "*"}`` (optional ``levels``), ``{intervals = [5, 10, 20]}``
    (optional ``start``), ``{groups = [{...level 1...}, {...level 2...}]}``, ``{date = ["month", "year"]}``.
    Unknown keys, a missing kind or two kinds at once raise :class:`HierarchyError` naming the key.
    """
    if not isinstance(spec, dict):
        raise _err(f"the hierarchy of '{attribute}' must be a builder table, got {spec!r}", attribute, source)
    for key in spec:
        if key not in _ALL_KEYS:
            raise _err(
                f"unknown hierarchy builder key '{key}' for '{attribute}' (known: {', '.join(_ALL_KEYS)})",
                attribute,
                source,
            )
    kinds = [k for k in _SPEC_KEYS if k in spec]
    if len(kinds) != 1:
        what = "no builder" if not kinds else "two builders (" + ", ".join(kinds) + ")"
        raise _err(
            f"the hierarchy of '{attribute}' names {what}: give exactly one of mask, intervals, groups, date",
            attribute,
            source,
        )
    kind = kinds[0]
    for key in spec:
        if key not in _SPEC_KEYS[kind]:
            raise _err(f"key '{key}' does not belong to a '{kind}' hierarchy of '{attribute}'", attribute, source)
    values = list(values)
    if kind == "mask":
        char = spec["mask"]
        if char is True:
            char = "*"
        if not isinstance(char, str):
            raise _err(f"'mask' of '{attribute}' must be the masking character (a string) or true, got {char!r}",
                       attribute, source)
        return masking(attribute, values, char=char, levels=spec.get("levels"), source=source)
    if kind == "intervals":
        widths = spec["intervals"]
        if isinstance(widths, (int, float)) and not isinstance(widths, bool):
            widths = [widths]
        if not isinstance(widths, list) or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in widths):
            raise _err(f"'intervals' of '{attribute}' must be a list of numbers, got {widths!r}", attribute, source)
        return intervals(attribute, values, widths, start=spec.get("start"), source=source)
    if kind == "groups":
        levels = spec["groups"]
        if isinstance(levels, dict):
            levels = [levels]
        if not isinstance(levels, list):
            raise _err(f"'groups' of '{attribute}' must be a list of tables, one per level", attribute, source)
        return grouping(attribute, levels, values, source=source)
    parts = spec["date"]
    if isinstance(parts, str):
        parts = [parts]
    if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
        raise _err(f"'date' of '{attribute}' must be a list of date parts ({', '.join(DATE_PARTS)}), got {parts!r}",
                   attribute, source)
    return dates(attribute, values, parts, source=source)
