"""Re-deriving a release: ``verify`` runs the job's method again and requires the files on disk to be, byte for
byte, what it publishes for this job.

The canonical form and the whitelist (:mod:`anonstudio.core.privacy._canonical`) leave choices a forger can fill:
which records form a class, which label among a value's ancestors, which events a sequence keeps, which values
RA draws, which strings condensation draws, the order of rows within what the model allows. A hunt after issue
28 hid people's ages, salaries, occupations, lengths of stay and whole protein inputs in those choices, and
``verify`` passed them (``tests/bad_inputs/verify-hunt-*``). Every method is deterministic for its job — its
parameters and its seed — so the release a job allows is exactly one: the method's own output, written by the
one writer and (with ``output.shuffle_rows``) shuffled by the job's seed. Comparing with it leaves a forger no
choice at all. The privacy model is still judged by the independent verifier: a method's bug cannot vouch for
itself, and re-derivation cannot vouch for a method's bug.

A release cannot be re-derived when the job does not keep every draw's seed (RA's, or a shuffle's, drawn from
the operating system and kept nowhere): ``verify`` says so and checks the model only, or refuses (the CLI's
choice, see ``anonstudio verify``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anonstudio.core.errors import AnonStudioError


@dataclass
class Rederived:
    """The bytes the job's method publishes (``files``: path → bytes), or why they cannot be known."""

    files: dict[Path, bytes] = field(default_factory=dict)
    reason: str | None = None


def unkept_seed(job: Any) -> str | None:
    """Why the job's release cannot be re-derived (a draw whose seed the job does not keep), or ``None``."""
    cls = job.algorithm_class()
    if "seed" in cls.parameters.names() and job.params.get("seed") is None \
            and next(p for p in cls.parameters if p.name == "seed").default is None:
        return (f"'{job.algorithm}' drew its seed from the operating system and the job does not keep it "
                "(algorithm.seed)")
    if job.shuffle_rows and job.shuffle_seed is None:
        return "the rows were shuffled with a seed the job does not keep (output.shuffle_seed)"
    return None


def rederive(job: Any, data: Any, hierarchies: dict) -> Rederived:
    """Run the job's method on ``data`` again (in memory, on this machine, whatever engine the job names: the
    engines publish the same bytes) and serialize its release as ``run`` writes it."""
    from anonstudio.core import io
    from anonstudio.core.data import EventLog
    from anonstudio.core.publication import renumbered_sequences, shuffled_release, side_output_path

    reason = unkept_seed(job)
    if reason is not None:
        return Rederived(reason=reason)
    algorithm = job.make_algorithm()  # its pipeline keys (global's max_suppression) as jobs.run gives them
    try:
        result = algorithm.run(data, hierarchies)
    except AnonStudioError as exc:  # the method refuses this job (the model verdict above says why, too)
        return Rederived(reason=f"the job's method refuses it ({exc.message})")
    output, side_outputs = result.output, dict(result.side_outputs)
    if job.shuffle_rows:
        output, side_outputs = shuffled_release(output, side_outputs, job.shuffle_seed)
    if isinstance(output, EventLog):  # ids 1..n as published
        output = renumbered_sequences(output)
    files = {job.output_path: io.output_bytes(output, job.output_path)}
    for suffix, frame in side_outputs.items():
        side = side_output_path(job.output_path, suffix)
        files[side] = io.output_bytes(frame, side, like=result.output)
    return Rederived(files=files)
