"""Protein-like strings: a first-order Markov chain over the 20 amino acids with Swiss-Prot-like lengths.

The transition matrix is the amino-acid bigram frequency of the 6,049 reviewed Swiss-Prot yeast proteins
(``anonstudio/resources/demo/derive_tables.py``), so the strings have the composition and the order-2 statistics
(adjacent pairs) of real proteins — the statistics the condensation method of Aggarwal & Yu (000, §3)
keeps per group. Every string starts with methionine, as nearly all of the source proteins do. Lengths are
log-normal with the yeast proteins' log-scale spread, truncated to ``[min_length, max_length]``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from anonstudio.core.errors import ParameterError
from anonstudio.core.generate import _tables as T
from anonstudio.core.generate._common import make_rng

#: The 20 standard amino acids in the order of the tables (``protein-20``).
AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
#: Residues counted as hydrophobic by ``hydrophobic_bias``.
HYDROPHOBIC = "AVILMFWC"

_BLOCK = 256  # sequences simulated together


@lru_cache(maxsize=8)
def transition_matrix(hydrophobic_bias: float = 0.0) -> np.ndarray:
    """``float64[20, 20]`` row-stochastic matrix P[a, b] = P(next = b | current = a).

    ``hydrophobic_bias`` multiplies every transition into a hydrophobic residue by ``exp(bias)`` before
    normalizing (0: the yeast chain; > 0: a more membrane-like composition).
    """
    counts = np.asarray(T.AA_BIGRAMS, dtype=np.float64) + 1.0
    if hydrophobic_bias:
        mask = np.array([a in HYDROPHOBIC for a in AMINO_ACIDS])
        counts[:, mask] *= np.exp(hydrophobic_bias)
    return counts / counts.sum(axis=1, keepdims=True)


def stationary_composition(hydrophobic_bias: float = 0.0) -> dict[str, float]:
    """The chain's long-run residue frequencies (the composition of long generated strings)."""
    p = transition_matrix(hydrophobic_bias)
    w, v = np.linalg.eig(p.T)
    pi = np.real(v[:, np.argmin(np.abs(w - 1.0))])
    pi = pi / pi.sum()
    return dict(zip(AMINO_ACIDS, pi.tolist()))


def protein_lengths(
    n: int, rng: np.random.Generator, *, mean_length: float = 450.0, min_length: int = 30,
    max_length: int = 5000, sigma: float | None = None,
) -> np.ndarray:
    """``n`` log-normal lengths with mean ≈ ``mean_length`` (before truncation), within the bounds.

    ``sigma`` is the log-scale standard deviation (default: the yeast proteins', ≈ 0.79). Values outside
    ``[min_length, max_length]`` are redrawn.
    """
    sigma = float(T.YEAST_LOG_LENGTH_SD if sigma is None else sigma)
    mu = np.log(mean_length) - sigma**2 / 2
    out = np.round(rng.lognormal(mu, sigma, n)).astype(np.int64)
    bad = (out < min_length) | (out > max_length)
    for _ in range(1000):
        if not bad.any():
            break
        out[bad] = np.round(rng.lognormal(mu, sigma, int(bad.sum()))).astype(np.int64)
        bad = (out < min_length) | (out > max_length)
    return np.clip(out, min_length, max_length)


def protein_like(
    n: int,
    seed: int | np.random.Generator = 0,
    *,
    mean_length: float = 450.0,
    min_length: int = 30,
    max_length: int = 5000,
    hydrophobic_bias: float = 0.0,
    id_prefix: str = "synp",
) -> tuple[list[str], list[str]]:
    """``n`` protein-like strings.

    Parameters
    ----------
    n:
        Number of strings (≥ 1).
    seed:
        Seed of the numpy generator; the same seed gives the same strings.
    mean_length, min_length, max_length:
        Log-normal length distribution (Swiss-Prot-like: mean ≈ 450, shortest ≈ 30, capped at 5000).
    hydrophobic_bias:
        Tilts the chain towards hydrophobic residues (see :func:`transition_matrix`); use two values to
        make two classes that a composition- or alignment-based classifier can tell apart.
    id_prefix:
        Identifiers are ``<prefix><n>`` numbered from 1 with zero padding.

    Returns
    -------
    (ids, sequences)
        Lists of ``n`` identifiers and ``n`` strings over ``ACDEFGHIKLMNPQRSTVWY``.
    """
    n = int(n)
    if n < 1:
        raise ParameterError(f"the number of sequences must be at least 1, got {n}", column="count")
    if not 1 <= min_length <= max_length:
        raise ParameterError(
            f"lengths need 1 ≤ min_length ≤ max_length, got {min_length} and {max_length}", column="min_length"
        )
    if not min_length <= mean_length <= max_length:
        raise ParameterError(
            f"mean_length must lie between {min_length} and {max_length}, got {mean_length:g}", column="mean_length"
        )
    rng = make_rng(seed)
    lengths = protein_lengths(n, rng, mean_length=mean_length, min_length=min_length, max_length=max_length)
    cdf = np.cumsum(transition_matrix(float(hydrophobic_bias)), axis=1)
    cdf[:, -1] = 1.0
    letters = np.frombuffer(AMINO_ACIDS.encode("ascii"), dtype=np.uint8)
    start = AMINO_ACIDS.index("M")
    sequences: list[str] = [""] * n
    by_length = np.argsort(lengths, kind="stable")  # blocks of similar lengths waste few steps
    for first in range(0, n, _BLOCK):
        members = by_length[first : first + _BLOCK]
        block = lengths[members]
        width = int(block.max())
        u = rng.random((len(block), width))
        codes = np.empty((len(block), width), dtype=np.int64)
        codes[:, 0] = start
        for t in range(1, width):
            codes[:, t] = (u[:, t, None] >= cdf[codes[:, t - 1]]).sum(axis=1)
        np.clip(codes, 0, 19, out=codes)
        chars = letters[codes]
        for i, m in enumerate(members):
            sequences[m] = chars[i, : block[i]].tobytes().decode("ascii")
    pad = max(5, len(str(n)))
    ids = [f"{id_prefix}{i + 1:0{pad}d}" for i in range(n)]
    return ids, sequences
