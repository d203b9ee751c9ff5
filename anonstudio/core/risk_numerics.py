"""Numerics for the population-uniqueness estimators (:mod:`anonstudio.core.risk`) without scipy, whose import costs the
command 0.5-1 s: the digamma and trigamma functions and a bracketed root finder.

- :func:`digamma`, :func:`trigamma` (x > 0, scalars or arrays): the recurrences ``ψ(x) = ψ(x+1) - 1/x`` and
  ``ψ'(x) = ψ'(x+1) + 1/x²`` up to ``x ≥ 20``, then the asymptotic series (Abramowitz & Stegun §6.3, §6.4)
  ``ψ(x) ~ ln x - 1/(2x) - Σ B_2k / (2k x^2k)`` and ``ψ'(x) ~ 1/x + 1/(2x²) + Σ B_2k / x^(2k+1)`` to the
  Bernoulli number B_12: the next terms are below 10^-17 of the value at x = 20.
- :func:`bracketed_root`: a sign change of a continuous function, narrowed by the Illinois variant of regula falsi
  (Dowell & Jarratt, BIT 11:168-174, 1971) with a bisection whenever two steps gain less than half the bracket.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

#: B_2k / (2k) for k = 1..6 (digamma) and B_2k for k = 1..6 (trigamma)
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760)
_TRIGAMMA_SERIES = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730)
_LARGE = 20.0


def _digamma_scalar(x: float) -> float:
    shift = 0.0
    while x < _LARGE:
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = 0.0
    for c in reversed(_DIGAMMA_SERIES):
        series = (series + c) * inv2
    return math.log(x) - 0.5 / x - series + shift


def _trigamma_scalar(x: float) -> float:
    shift = 0.0
    while x < _LARGE:
        shift += 1.0 / (x * x)
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = 0.0
    for c in reversed(_TRIGAMMA_SERIES):
        series = (series + c) * inv2
    return 1.0 / x + 0.5 * inv2 + series / x + shift


def digamma(x):
    """ψ(x) for x > 0 (scalar or array)."""
    if isinstance(x, (float, int)) or np.ndim(x) == 0:
        x = float(x)
        return _digamma_scalar(x) if x > 0.0 else (math.nan if x != 0.0 else -math.inf)
    x = np.asarray(x, dtype=np.float64)
    shift = np.zeros_like(x)
    y = x.copy()
    while True:
        small = y < _LARGE
        if not small.any():
            break
        shift -= np.where(small, 1.0 / np.where(small, y, 1.0), 0.0)
        y = np.where(small, y + 1.0, y)
    inv2 = 1.0 / (y * y)
    series = 0.0
    for c in reversed(_DIGAMMA_SERIES):
        series = (series + c) * inv2
    out = np.log(y) - 0.5 / y - series + shift
    return float(out) if out.ndim == 0 else out


def trigamma(x):
    """ψ'(x) for x > 0 (scalar or array)."""
    if isinstance(x, (float, int)) or np.ndim(x) == 0:
        x = float(x)
        return _trigamma_scalar(x) if x > 0.0 else (math.nan if x != 0.0 else math.inf)
    x = np.asarray(x, dtype=np.float64)
    shift = np.zeros_like(x)
    y = x.copy()
    while True:
        small = y < _LARGE
        if not small.any():
            break
        shift += np.where(small, 1.0 / np.where(small, y * y, 1.0), 0.0)
        y = np.where(small, y + 1.0, y)
    inv2 = 1.0 / (y * y)
    series = 0.0
    for c in reversed(_TRIGAMMA_SERIES):
        series = (series + c) * inv2
    out = 1.0 / y + 0.5 * inv2 + series / y + shift
    return float(out) if out.ndim == 0 else out


def bracketed_root(f: Callable[[float], float], a: float, b: float, *, fa: float | None = None,
                   fb: float | None = None, rtol: float = 1e-15, max_steps: int = 400) -> float:
    """A root of ``f`` between ``a`` and ``b``, where ``f`` changes sign (raises ``ValueError`` otherwise), to a
    relative width ``rtol`` of the bracket, an exact zero, or neighbouring floating-point numbers. ``b`` is always
    the latest point and ``[a, b]`` (either order) the bracket: a regula-falsi step from the two ends, the end
    kept a second time weighted by half (Illinois), a bisection when two steps did not halve the bracket."""
    fa = f(a) if fa is None else fa
    fb = f(b) if fb is None else fb
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    if not (np.isfinite(fa) and np.isfinite(fb)) or np.sign(fa) == np.sign(fb):
        raise ValueError("no sign change in the bracket")
    widths = [abs(b - a)] * 2
    for _ in range(max_steps):
        width = abs(b - a)
        if width <= rtol * max(abs(a), abs(b)):
            break
        if width > 0.5 * widths[-2]:
            c = 0.5 * (a + b)
        else:
            c = (a * fb - b * fa) / (fb - fa)
            if not (min(a, b) < c < max(a, b)):
                c = 0.5 * (a + b)
        if c == a or c == b:
            break
        widths.append(width)
        fc = f(c)
        if fc == 0.0:
            return c
        if np.sign(fc) != np.sign(fb):
            a, fa = b, fb
        else:
            fa *= 0.5
        b, fb = c, fc
    return b if abs(fb) <= abs(fa) else a
