"""Re-deriving a release: ``verify`` runs the job's method again and requires the files on disk to be, byte for
byte, what it publishes for this job.

The canonical form and the whitelist (:mod:`anonstudio.core.privacy._canonical`) leave choices a forger can fill:
which records form a class, which label among a value's ancestors, which events a sequence keeps, which values
RA draws, which strings condensation draws, the order of rows within what the model allows. A hunt after issue
28 hid people's ages, salaries, occupations, lengths of stay and whole protein inputs in those choices, and
``verify`` passed them (``tests/bad_inputs/verify-hunt-*``). Every method is deterministic for its job — its
parameters and its seed or release key — so the release a job allows is exactly one: the method's own output,
written by the one writer and (with ``output.shuffle_rows``) shuffled in the order the release key draws. Comparing
with it leaves a forger no choice at all. The privacy model is still judged by the independent verifier: a method's bug cannot vouch for
itself, and re-derivation cannot vouch for a method's bug.

A release cannot be re-derived when its draws' secret is not here: since issue 39 the draws whose secrecy a
guarantee needs (RA's, SafePub's, Anatomy's, a shuffle's) come from the user's release key
(:mod:`anonstudio.core.keys`), so ``verify`` re-derives only where that key is; elsewhere it says so and checks the
model only, or refuses (the CLI's choice, see ``anonstudio verify``). A job written before keys, with its seeds in
it, is re-derived from those seeds (and fails for writing them).
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


def written_seeds(job: Any) -> list[str]:
    """The job keys that write a seed of draws whose secrecy the guarantee needs (a job made before release keys):
    ``algorithm.seed`` of a method with ``secret_draws``, ``output.shuffle_seed``."""
    out = []
    if job.algorithm_class().secret_draws and job.params.get("seed") is not None:
        out.append("algorithm.seed")
    if job.shuffle_rows and job.shuffle_seed is not None:
        out.append("output.shuffle_seed")
    return out


def needs_key(job: Any) -> bool:
    """Whether re-deriving the job's release needs the release key (draws of a ``secret_draws`` method, a
    shuffle), its seeds not being written in the job."""
    cls = job.algorithm_class()
    from anonstudio.core.secret_draws import draws_from_key

    return (draws_from_key(cls, job.params) and job.params.get("seed") is None) or \
        (job.shuffle_rows and job.shuffle_seed is None)


def unkept_seed(job: Any, key: Any = None) -> str | None:
    """Why the job's release cannot be re-derived here (its draws' key is not on this machine, or a draw whose
    seed nothing keeps), or ``None``."""
    cls = job.algorithm_class()
    if needs_key(job) and key is None:
        return ("its draws come from a release key that is not on this machine (give output.key_file, or "
                "$ANONSTUDIO_KEY_FILE, of the key the report's fingerprint names)")
    if "seed" in cls.parameters.names() and job.params.get("seed") is None and not cls.secret_draws \
            and next(p for p in cls.parameters if p.name == "seed").default is None:
        return (f"'{job.algorithm}' drew its seed from the operating system and the job does not keep it "
                "(algorithm.seed)")
    return None


def shuffle_seed_for(job: Any, algorithm: Any, data: Any, hierarchies: dict, key: Any) -> int | None:
    """The seed of the job's row order: the one it writes (a job made before keys), else the release key's for
    this input and these settings (what :func:`anonstudio.core.publication.write_outputs` drew); ``None`` when the
    rows are not shuffled or the key is not here."""
    from anonstudio.core.secret_draws import report_parameters
    from anonstudio.core.release_log import shuffle_seed_of

    if not job.shuffle_rows:
        return None
    if job.shuffle_seed is not None:
        return int(job.shuffle_seed)
    if key is None:
        return None
    parameters = dict(report_parameters(job.algorithm, algorithm, job.params), **algorithm.pipeline)
    return shuffle_seed_of(key, job.algorithm, parameters, data, hierarchies)


def rederive(job: Any, data: Any, hierarchies: dict, key: Any = None) -> Rederived:
    """Run the job's method on ``data`` again (in memory, on this machine, whatever engine the job names: the
    engines publish the same bytes), its draws from the release ``key`` as ``run`` made them, and serialize its
    release as ``run`` writes it."""
    from anonstudio.core import io
    from anonstudio.core.data import EventLog
    from anonstudio.core.publication import renumbered_sequences, shuffled_release, side_output_path
    from anonstudio.core.release_log import method_seed

    reason = unkept_seed(job, key)
    if reason is not None:
        return Rederived(reason=reason)
    algorithm = job.make_algorithm()  # its pipeline keys (global's max_suppression) as jobs.run gives them
    from anonstudio.core.secret_draws import draws_from_key

    if draws_from_key(type(algorithm), job.params) and job.params.get("seed") is None:
        algorithm.use_key(method_seed(key, algorithm.name, data))
    try:
        result = algorithm.run(data, hierarchies)
    except AnonStudioError as exc:  # the method refuses this job (the model verdict above says why, too)
        return Rederived(reason=f"the job's method refuses it ({exc.message})")
    output, side_outputs = result.output, dict(result.side_outputs)
    seed = shuffle_seed_for(job, algorithm, data, hierarchies, key)
    if seed is not None:
        output, side_outputs = shuffled_release(output, side_outputs, seed)
    if isinstance(output, EventLog):  # ids 1..n as published
        output = renumbered_sequences(output)
    files = {job.output_path: io.output_bytes(output, job.output_path)}
    for suffix, frame in side_outputs.items():
        side = side_output_path(job.output_path, suffix)
        files[side] = io.output_bytes(frame, side, like=result.output)
    return Rederived(files=files)
