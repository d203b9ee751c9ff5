"""What a job may write of a method's draws, and what a report says of its parameters (issue 39 item 1): a seed
whose secrecy a guarantee needs is never written in a job. Below the jobs package so that publication and
re-derivation read it without an import cycle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anonstudio.core import algorithms
from anonstudio.core.algorithms import Algorithm
from anonstudio.core.errors import AnonStudioError, JobError


def refuse_written_secrets(name: str, params: dict[str, Any], shuffle_seed: int | None = None, *,
                           file: Path | str | None = None) -> None:
    """A seed written in a job is no secret: whoever reads the job (or the package that shipped it) replays the
    draws — RA's redraws put 2,000 of 2,000 records back, SafePub's sampling gave every sampled row's input position
    away, a shuffle's order is undone. For a method with ``secret_draws`` (RA, RA-enhanced, SafePub, Anatomy) and
    for ``output.shuffle_seed`` such a seed is refused (exit 2): the draws come from the release key
    (:mod:`anonstudio.core.keys`). Methods whose seed only makes a run reproducible (k-member, condensation,
    CBMSA's baseline) keep it."""
    try:
        cls = algorithms.get(name)
    except AnonStudioError:
        cls = None
    if cls is not None and cls.secret_draws and params.get("seed") is not None:
        raise JobError(f"'{name}' draws from the release key, never from a seed written in the job: anyone who reads "
                       "the job replays the draws and undoes the release; remove algorithm.seed",
                       file=file, key="algorithm.seed")
    if shuffle_seed is not None:
        raise JobError("a row order drawn from a seed written in the job is undone by anyone who reads the job: remove "
                       "output.shuffle_seed (the order is drawn from the release key)", file=file,
                       key="output.shuffle_seed")



def draws_from_key(cls: Any, params: dict[str, Any]) -> bool:
    """Whether a run of method class ``cls`` with ``params`` draws from the release key: always for
    ``secret_draws`` (RA, SafePub, Anatomy), and for ``keyed_draws`` (condensation) when no seed is written."""
    return bool(cls.secret_draws or (getattr(cls, "keyed_draws", False) and params.get("seed") is None))


#: how the warning about a written seed of a ``keyed_draws`` method begins (a release risk: NOT safe to publish)
WRITTEN_SEED = "the job writes the seed of the method's draws"


def written_seed_warning(name: str, params: dict[str, Any]) -> list[str]:
    """A ``keyed_draws`` method run with a seed the job writes: whoever reads the job replays the draws —
    condensation's uniforms give each published symbol's place in its group's distribution (so the group's
    statistics, not only samples of them) and which symbols the fragment and near-copy rules redrew, there where a
    first draw copied a run of fewer than k inputs."""
    try:
        cls = algorithms.get(name)
    except AnonStudioError:
        return []
    if getattr(cls, "keyed_draws", False) and params.get("seed") is not None:
        return [f"{WRITTEN_SEED} (algorithm.seed = {params['seed']}): anyone who reads the job replays them — "
                f"'{name}' draws from your release key when the job writes no seed; remove algorithm.seed"]
    return []


def report_parameters(name: str, algorithm: Algorithm, params: dict[str, Any]) -> dict[str, Any]:
    """The report's ``parameters``: the method's name, its validated parameters (and a deterministic method's
    seed as given), then the pipeline keys it declares (``max_suppression``)."""
    out = {"name": name, **algorithm.params}
    if draws_from_key(type(algorithm), params):  # drawn from the release key: the seed's default played no part
        out.pop("seed", None)
    if "seed" in params and "seed" not in out and not algorithm.secret_draws:
        out["seed"] = params["seed"]
    return out
