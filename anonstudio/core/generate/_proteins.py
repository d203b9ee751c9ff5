"""Protein-like strings: a first-order Markov chain over the 20 amino acids with Swiss-Prot-like lengths.

The transition matrix is the amino-acid bigram frequency of the 6,049 reviewed Swiss-Prot yeast proteins
(``anonstudio/resources/demo/derive_tables.py``), so the strings have the composition and the order-2 statistics
(adjacent pairs) of real proteins — the statistics the condensation method of Aggarwal & Yu (000, §3)
keeps per group. Every string starts with methionine, as nearly all of the source proteins do. Lengths are
log-normal with the yeast proteins' log-scale spread, truncated to ``[min_length, max_length]``.

Real proteins also hold what a Markov chain never draws: low-complexity regions (homopolymer runs such as the
poly-glutamine tracts of huntingtin and the ataxins, poly-asparagine in yeast prions, poly-alanine, poly-proline,
acidic stretches) and long internal tandem repeats (zinc fingers, ankyrin or WD40 units, 20–120 residues
repeated with a few substitutions each). ``low_complexity`` and ``repeats`` put them into a share of the
strings, so that a human Swiss-Prot-like set (:func:`human_like`) can be made without the human data.
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
#: residues of the homopolymer runs ``low_complexity`` writes, with their weights (poly-Q and poly-A, poly-E,
#: poly-P, poly-S, poly-G and poly-N are the commonest homopolymers of human proteins)
RUN_RESIDUES = "QAEPSGN"
_RUN_WEIGHTS = (0.3, 0.2, 0.15, 0.12, 0.1, 0.08, 0.05)


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
    low_complexity: float = 0.0,
    repeats: float = 0.0,
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
    low_complexity:
        Share of the strings (0–1) given one homopolymer run (:data:`RUN_RESIDUES`: poly-Q most often) of
        12–60 residues, one residue in ten another of the run residues (``QQQQPQQQ``), written over the chain's
        residues at a random place.
    repeats:
        Share of the strings (0–1) given one long internal tandem repeat: a stretch of 20–120 of its own residues
        repeated 2–6 times in a row, each copy with 5 % of its residues substituted, inserted at a random place
        (the string grows by the copies).

    Returns
    -------
    (ids, sequences)
        Lists of ``n`` identifiers and ``n`` strings over ``ACDEFGHIKLMNPQRSTVWY``.
    """
    n = int(n)
    if n < 1:
        raise ParameterError(f"the number of sequences must be at least 1, got {n}", column="count")
    for name, share in (("low_complexity", low_complexity), ("repeats", repeats)):
        if not 0.0 <= float(share) <= 1.0:
            raise ParameterError(f"{name} is a share of the strings, between 0 and 1, got {share:g}", column=name)
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
    if low_complexity or repeats:  # drawn after the chain, so the same seed gives the same chain residues
        sequences = _with_regions(sequences, rng, float(low_complexity), float(repeats))
    pad = max(5, len(str(n)))
    ids = [f"{id_prefix}{i + 1:0{pad}d}" for i in range(n)]
    return ids, sequences


def _with_regions(sequences: list[str], rng: np.random.Generator, low_complexity: float,
                  repeats: float) -> list[str]:
    """``sequences`` with homopolymer runs and tandem repeats put into the given shares of them."""
    n = len(sequences)
    out = list(sequences)
    runs = np.flatnonzero(rng.random(n) < low_complexity)
    tandem = np.flatnonzero(rng.random(n) < repeats)
    weights = np.asarray(_RUN_WEIGHTS) / sum(_RUN_WEIGHTS)
    letters = np.frombuffer(AMINO_ACIDS.encode("ascii"), dtype=np.uint8)
    for i in runs.tolist():
        s = out[i]
        length = int(min(60, 12 + rng.geometric(1 / 12)))
        main = RUN_RESIDUES[int(rng.choice(len(RUN_RESIDUES), p=weights))]
        run = [main if rng.random() >= 0.1 else RUN_RESIDUES[int(rng.choice(len(RUN_RESIDUES), p=weights))]
               for _ in range(length)]
        at = int(rng.integers(1, max(2, len(s) - length)))  # never the first residue (the methionine)
        out[i] = s[:at] + "".join(run) + s[at + length:] if at + length <= len(s) else s[:at] + "".join(run)
    for i in tandem.tolist():
        s = out[i]
        unit = int(rng.integers(20, 121))
        if len(s) <= unit + 1:
            continue
        start = int(rng.integers(1, len(s) - unit))
        copies = []
        for _ in range(int(rng.integers(2, 7)) - 1):
            copy = np.frombuffer(s[start:start + unit].encode("ascii"), dtype=np.uint8).copy()
            changed = rng.random(unit) < 0.05
            copy[changed] = letters[rng.integers(0, len(letters), int(changed.sum()))]
            copies.append(copy.tobytes().decode("ascii"))
        out[i] = s[:start + unit] + "".join(copies) + s[start + unit:]
    return out


def human_like(n: int = 1000, seed: int | np.random.Generator = 0, *, mean_length: float = 619.0,
               low_complexity: float = 0.25, repeats: float = 0.15, id_prefix: str = "synh") -> tuple[list[str], list[str]]:
    """A human Swiss-Prot-like set (issue 28): :func:`protein_like` at the reviewed human proteins' mean length
    (619), a quarter of the strings with a homopolymer run (poly-Q most often), 15 % with a long tandem repeat."""
    return protein_like(n, seed, mean_length=mean_length, max_length=35000, low_complexity=low_complexity,
                        repeats=repeats, id_prefix=id_prefix)
