"""Small helpers shared by the generators: seeded generators and vectorized conditional sampling."""

from __future__ import annotations

import numpy as np

from anonstudio.core.errors import ParameterError

#: Rows sampled per block by :func:`draw_conditional` (bounds memory at ``block × categories`` floats).
_BLOCK = 65_536


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A numpy :class:`~numpy.random.Generator` from a seed (an existing generator is used as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        raise ParameterError("a seed is required: every generator is reproducible from its seed", column="seed")
    return np.random.default_rng(int(seed))


def conditional_cdf(counts, *, alpha: float = 1.0) -> np.ndarray:
    """Cumulative conditional distributions from a count array ``[..., n_values]``.

    Each conditioning cell is smoothed towards the overall distribution of the last axis with ``alpha``
    pseudo-counts, so that a combination never seen in the source data still has a distribution; a value
    never seen at all keeps probability 0. Returns ``float64[n_cells, n_values]``, last column exactly 1.
    """
    c = np.asarray(counts, dtype=np.float64)
    c = c.reshape(-1, c.shape[-1])
    marginal = c.sum(axis=0)
    marginal = marginal / marginal.sum()
    p = c + alpha * marginal
    p /= p.sum(axis=1, keepdims=True)
    cdf = np.cumsum(p, axis=1)
    cdf[:, -1] = 1.0
    return cdf


def draw_conditional(rng: np.random.Generator, cdf: np.ndarray, cell: np.ndarray | None, n: int) -> np.ndarray:
    """Draw ``n`` category codes, row ``i`` from distribution ``cdf[cell[i]]`` (``cell=None``: row 0)."""
    u = rng.random(n)
    out = np.empty(n, dtype=np.int64)
    if cell is None:
        return np.searchsorted(cdf[0], u, side="right").clip(max=cdf.shape[1] - 1)
    for start in range(0, n, _BLOCK):
        stop = min(n, start + _BLOCK)
        rows = cdf[cell[start:stop]]
        out[start:stop] = (u[start:stop, None] >= rows).sum(axis=1)
    return out.clip(max=cdf.shape[1] - 1)


def int_strings(values: np.ndarray) -> np.ndarray:
    """Non-negative integers as decimal strings (object array), through a lookup table: much faster than
    ``astype(str)`` when the values repeat."""
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        return np.empty(0, dtype=object)
    table = np.array([str(i) for i in range(int(values.max()) + 1)], dtype=object)
    return table[values]


def band_label(lo: int, width: int, style: str = "arx") -> str:
    """Label of the band ``[lo, lo + width - 1]``: ``"lo-hi"`` (ARX style, as the interval builder writes)
    or ``"[lo:hi]"`` (the notation of 004's Table 2)."""
    hi = lo + width - 1
    return f"{lo}-{hi}" if style == "arx" else f"[{lo}:{hi}]"


def interval_rows(values, widths, *, start: int = 0, style: str = "arx", root: str = "*") -> list[list[str]]:
    """ARX-style hierarchy rows for integer ``values``: one nested band per width, then the root.

    Each width must be a multiple of the previous one so that the bands nest.
    """
    for a, b in zip(widths, widths[1:]):
        if b % a:
            raise ValueError(f"band widths must nest: {b} is not a multiple of {a}")
    rows = []
    for v in values:
        row = [str(v)]
        for w in widths:
            lo = start + ((int(v) - start) // w) * w
            row.append(band_label(lo, w, style))
        row.append(root)
        rows.append(row)
    return rows


def hierarchies_of(rows: dict, columns, default_columns, what: str) -> dict:
    """:class:`~anonstudio.core.hierarchy.Hierarchy` objects of ``columns`` (``None``: ``default_columns``) from
    a generator's hierarchy rows; an unknown column is a :class:`ParameterError` naming it (``what``: the kind)."""
    from anonstudio.core.hierarchy import Hierarchy

    columns = list(default_columns) if columns is None else list(columns)
    unknown = [c for c in columns if c not in rows]
    if unknown:
        raise ParameterError(f"no {what} named '{unknown[0]}'", column=unknown[0])
    return {c: Hierarchy(c, rows[c]) for c in columns}
