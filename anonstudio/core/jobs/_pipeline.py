"""The pipeline below the one run entry (:func:`anonstudio.core.jobs.run`): load a job's data and hierarchies (one
reader, one completer), build and run the method, verify its output independently, evaluate it and build the report
(:func:`execute`, :func:`anonymize`); :func:`run_job` and ``anonstudio verify``'s :func:`verify_job`.

The workspace (:mod:`anonstudio.core.workspace`) holds what a run reads between runs — the workbench's screen — and
runs through the same entry; nothing here keeps state.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonstudio import __version__
from anonstudio.core import algorithms, io
from anonstudio.core.algorithms import Algorithm, Result
from anonstudio.core.data import AttrType, EventLog, Role, SequenceSet, Table, kind_of
from anonstudio.core.errors import AnonStudioError, InputError, JobError, NotAvailableError, ParameterError, PrivacyError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.io import to_jsonable
from anonstudio.core.jobs._schema import InputSpec, Job
from anonstudio.core.jobs._warnings import (
    hierarchies_used,
    hierarchy_attributes,
    hierarchy_warnings,
    release_warnings,
)
from anonstudio.core.progress import ProgressCallback, phase, report, subrange
from anonstudio.core.publication import side_output_path, write_outputs
from anonstudio.core.publication_rules import loosened_parameters, refused_parameter

if TYPE_CHECKING:
    from anonstudio.core.privacy import Verification


@dataclass
class Outcome:
    """A finished, verified run: the result, the verifier's verdict and the report (contract keys)."""

    result: Result
    verification: Any
    report: dict[str, Any]
    data: Any
    hierarchies: dict[str, Any]
    #: the privacy model the output was verified against (the method's, with the job's roles): the
    #: publication gate re-checks the written files against it
    model: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------------------
# running
def load_data(spec: InputSpec) -> Table | EventLog | SequenceSet:
    """Read the job's input with its roles set."""
    if spec.format == "table":
        table = io.read_table(spec.path, delimiter=spec.delimiter, encoding=spec.encoding, missing=spec.missing)
        if spec.person is not None and spec.person not in table.df.columns:
            raise InputError(f"input.person names '{spec.person}', which is not a column of the file (columns: "
                             f"{', '.join(map(str, table.df.columns))})", file=table.source, column=spec.person)
        table = table.with_roles(spec.quasi_identifiers, spec.sensitive, spec.identifying)
        if spec.person is not None:
            from dataclasses import replace

            from anonstudio.core.privacy._people import check_person_column

            table = replace(table, person=spec.person)
            check_person_column(table)
        return table
    if spec.format == "events":
        if not spec.sequence_id or not spec.event_order:
            raise JobError("events input needs input.sequence_id and input.event_order", key="input.sequence_id")
        log = io.read_events(
            spec.path,
            sequence_id=spec.sequence_id,
            event_order=spec.event_order,
            quasi_identifiers=spec.quasi_identifiers,
            sensitive=(spec.sensitive[0] if spec.sensitive else None),
            delimiter=spec.delimiter,
            encoding=spec.encoding,
        )
        return without_identifying(log, spec.identifying)
    alphabet = spec.alphabet or "protein-25"
    sets = [io.read_fasta(p, alphabet=alphabet, label_pattern=spec.label_pattern) for p in [spec.path, *spec.more_paths]]
    if len(sets) == 1 and spec.labels is None:
        return sets[0]
    return SequenceSet.concat(sets, spec.labels)


def without_identifying(log: EventLog, identifying: list[str]) -> EventLog:
    """An event log without its identifying columns: they take no part in the anonymization and are never
    published, so they are dropped as the log is read (the verifier then refuses an output that has them:
    it has a column the input does not have)."""
    from dataclasses import replace

    from anonstudio.core.errors import InputError

    for name in identifying:
        if name not in log.df.columns:
            raise InputError(f"input.identifying names '{name}', which is not a column of the file (columns: "
                             f"{', '.join(map(str, log.df.columns))})", file=log.source, column=name)
    return replace(log, df=log.df.drop(columns=list(identifying))) if identifying else log


def gets_default_bands(data: Any, attribute: str) -> bool:
    """Whether a quasi-identifier without a hierarchy gets the engine's default interval bands (else a run
    refuses it): a table column whose type is numeric (as read, or as the user set it), an event-log column
    whose every present cell is a number. One rule for the command line and the workbench."""
    if isinstance(data, Table):
        return data.types.get(attribute) is AttrType.NUMERIC
    if isinstance(data, EventLog) and attribute in data.df.columns:
        return bool(pd.to_numeric(data.df[attribute].dropna(), errors="coerce").notna().all())
    return False


def column_values(data: Any, attribute: str) -> list[str]:
    """The distinct present values of a column as text, first seen first (in slices of rows)."""
    from anonstudio.core.data._chunks import distinct

    return [str(v) for v in distinct(data.df[attribute])]


def build_hierarchy_spec(attribute: str, spec: Any, data: Any, *, source: Path | None = None) -> Hierarchy:
    """One hierarchy from what a job or the workbench gives: a :class:`Hierarchy` as it is, an ARX file
    (``Path``), or a builder spec (``dict``, built over the column's values)."""
    from anonstudio.core import hierarchy as hmod

    if isinstance(spec, Hierarchy):
        return spec
    if isinstance(spec, Path):
        return io.read_hierarchy(spec, attribute=attribute)
    if isinstance(spec, dict):
        return hmod.build_hierarchy(attribute, spec, column_values(data, attribute), source=source)
    raise JobError(f"hierarchy of '{attribute}' must be a file path or a builder table", file=source,
                   key=f"hierarchies.{attribute}")


def load_hierarchies(specs: dict[str, Any], data: Any, *, source: Path | None = None,
                     required: bool = True) -> tuple[dict[str, Any], list[str]]:
    """The hierarchies a run uses — the one completer of both faces: every quasi-identifier's hierarchy from
    ``specs`` (a :class:`Hierarchy`, an ARX file or a builder spec), checked to cover the data; a quasi-identifier
    without one gets the default interval hierarchy when :func:`gets_default_bands` says so and is refused
    otherwise (``required=False``: methods that publish values as they are need only those given). Returns
    ``(hierarchies, notes)``."""
    from anonstudio.core import hierarchy as hmod

    needed = hierarchy_attributes(data)
    frame = data.df if isinstance(data, (Table, EventLog)) else None
    out: dict[str, Any] = {}
    notes: list[str] = []
    for attr in specs:
        if frame is not None and attr not in frame.columns:
            raise JobError(f"hierarchy given for '{attr}', which is not a column of the input", file=source,
                           key=f"hierarchies.{attr}")
    for attr in needed:
        if not required and attr not in specs:
            continue  # the method publishes this column's values as they are: no hierarchy needed
        values = column_values(data, attr)
        spec = specs.get(attr)
        if spec is not None:
            h = build_hierarchy_spec(attr, spec, data, source=source)
        else:
            if not gets_default_bands(data, attr):
                raise JobError(
                    f"quasi-identifier '{attr}' of {Path(str(getattr(data, 'source', None) or 'the data')).name} is "
                    "categorical and has no hierarchy: add one under [hierarchies] (in the workbench: Import… or "
                    "Build… in the Hierarchies pane)",
                    file=source,
                    key=f"hierarchies.{attr}",
                )
            try:
                h, note = hmod.default_numeric_hierarchy(attr, values)
            except AnonStudioError as exc:
                if exc.file is None:
                    exc.file = str(getattr(data, "source", None) or source or "") or None
                raise
            notes.append(note)
        h.check_covers(values, data_file=getattr(data, "source", None))
        out[attr] = h
    # a sensitive column's hierarchy is kept too: t-closeness's hierarchical distance measures along it
    for attr in getattr(data, "sensitive", ()) if isinstance(data, Table) else ():
        if attr in specs and attr not in out:
            h = build_hierarchy_spec(attr, specs[attr], data, source=source)
            h.check_covers(column_values(data, attr), data_file=getattr(data, "source", None))
            out[attr] = h
    return out, notes


def anonymize(
    data: Any,
    hierarchies: dict[str, Any],
    algorithm: Algorithm,
    progress: ProgressCallback | None = None,
    *,
    notes: list[str] | None = None,
    parameters: dict[str, Any] | None = None,
    declared: InputSpec | None = None,
    max_suppression: float | None = None,
    executor: Any = None,
) -> Outcome:
    """Anonymize in memory, verify independently and evaluate; raises :class:`PrivacyError` if the
    verifier refuses. Nothing is written here (see :func:`write_outputs`).

    ``executor`` (:class:`~anonstudio.core.execution.DaskExecutor`, from ``Execution.session()``): the method
    splits its work into tasks on it (methods whose ``engines`` name "dask"; the output is the local one) and
    the verifier counts classes on it; the verifier's checks and verdict are the same code as without it.

    ``declared`` is the job's ``[input]``: the verifier then checks the roles the job asked for, not the
    ones the data container ended up with. ``max_suppression``: the share of records that may be
    published fully suppressed (``None``: the method's own ``max_suppression``, which it declares among its
    ``pipeline_parameters``; a k-anonymity method that declares none may suppress nothing)."""
    from anonstudio.core import privacy

    if algorithm.data_kind != kind_of(data):
        raise JobError(f"method '{algorithm.name}' works on {algorithm.data_kind} data, the input is {kind_of(data)}",
                       file=getattr(data, "source", None), key="algorithm.name")
    if isinstance(data, Table) and data.person is not None and not algorithm.counts_people:
        from anonstudio.core.jobs._schema import people_refusal

        raise ParameterError(people_refusal(algorithm), file=getattr(data, "source", None), key="input.person")
    if isinstance(data, Table) and data.person is not None and data.role(data.person) is not Role.IDENTIFYING:
        raise ParameterError(f"the person column '{data.person}' must be identifying (it is never published), not "
                             f"{data.role(data.person).value}", file=getattr(data, "source", None), key="input.person")
    pipeline = algorithm.pipeline
    if max_suppression is None:
        max_suppression = pipeline.get("max_suppression")
    elif "max_suppression" in pipeline:
        # the suppression budget the verifier allows is the one the method may spend (global recoding does)
        pipeline["max_suppression"] = float(max_suppression)
    start = time.perf_counter()
    report(progress, 0.0, f"running {algorithm.name}")
    # the method's own work (and RA's reruns in evaluate) on the executor when it can run there
    on = {"executor": executor} if executor is not None and "dask" in algorithm.engines else {}
    result = algorithm.run(data, hierarchies, subrange(progress, 0.0, 0.8), **on)
    runtime = time.perf_counter() - start
    model = declared_model(algorithm, data, declared, max_suppression)
    with phase(progress, 0.8, "verifying"):  # the verifiers' chunked loops may be cancelled (checkpoint)
        verification = privacy.verify_output(model, data, result.output, hierarchies, executor=executor,
                                             side_outputs=result.side_outputs)
    if not verification.passed:
        raise PrivacyError(f"the output failed independent verification ({verification.model}): {verification.summary()}")
    metrics = dict(result.metrics)
    with phase(progress, 0.85, "evaluating") as evaluating:
        metrics.update(algorithm.evaluate(data, result, hierarchies, subrange(evaluating, 0.85, 1.0), **on))
    groups = result.groups[result.groups >= 0]
    sizes = np.bincount(np.unique(groups, return_inverse=True)[1]) if len(groups) else np.zeros(0, dtype=int)
    rep = {
        "anonstudio_version": __version__,
        "algorithm": algorithm.name,
        # with the seed: a published report leaves it out (publication.write_outputs), kept in the job only
        "parameters": dict(parameters if parameters is not None else algorithm.params, **pipeline),
        "input": {"path": str(getattr(data, "source", "") or ""), "records": _records(data)},
        "output": {"path": None, "records": _records(result.output)},
        # one number, one meaning: records published fully suppressed (tables: counted by the verifier
        # from the output, as metrics.suppressed is) or removed (strings, events)
        "suppressed": int(verification.details.get("suppressed", result.suppressed))
        if isinstance(data, Table) else int(result.suppressed),
        "groups": {
            "count": int(len(sizes)),
            "min_size": int(sizes.min()) if len(sizes) else 0,
            "max_size": int(sizes.max()) if len(sizes) else 0,
        },
        "runtime_s": round(runtime, 4),
        # which engine ran the method and the verifier's counts: "local", or "dask (2 workers at tcp://…)"
        "execution": executor.describe() if executor is not None else "local",
        "verification": verification.as_dict(),
        "metrics": to_jsonable(metrics),
        "notes": list(notes or []) + list(result.notes),
        "warnings": release_warnings(data, result.output, algorithm, hierarchies=hierarchies) + list(result.warnings),
    }
    if isinstance(data, Table):  # issue 32: re-identification risk before / after and the attacks' figures
        from anonstudio.core.metrics import release_risk

        with phase(progress, 1.0, "measuring the re-identification risk"):  # cancellable between its chunks
            rep["risk"] = to_jsonable(release_risk(data, result.output, side_outputs=result.side_outputs))
    if algorithm.keyed_seed is not None:
        rep["notes"].append("the method's draws come from the release key (its fingerprint is in this report; the key "
                            "itself never is): 'anonstudio verify' re-derives this release where the key is")
    elif "seed" in algorithm.parameters.names():
        seed = algorithm.params.get("seed")
        rep["notes"].append("the seed is not published in this report" if seed is not None else
                            "the seed was drawn from the operating system and kept nowhere: 'anonstudio verify' can "
                            "check the model but cannot re-derive this release; set algorithm.seed (random, at least "
                            "2^48, the job kept private) to make releases re-derivable")
    report(progress, 1.0, "done")
    return Outcome(result, verification, rep, data, hierarchies, model=model)


def execute(data: Any, specs: dict[str, Any], method: str, params: dict[str, Any], *,
            declared: InputSpec | None = None, source: Path | None = None, execution: Any = None,
            progress: ProgressCallback | None = None, key_file: Path | None = None,
            key_fingerprint: str | None = None) -> Outcome:
    """One run as both faces make it: the hierarchies completed (:func:`load_hierarchies`, from ``specs``:
    a :class:`Hierarchy`, an ARX file or a builder spec per attribute), the method built from its name and
    parameters (a deterministic method's seed noted), then :func:`anonymize`; the report gets every warning the command
    line prints (hierarchies given for no quasi-identifier, interval labels that do not hold their values, the
    release's risks, the method's own). ``source``: the job file that errors name; ``execution``: the job's
    ``[execution]`` (local when ``None``). A method whose draws must stay secret (``secret_draws``: RA, SafePub,
    Anatomy) takes no seed from ``params`` (refused, exit 2) but one derived from the release key
    (``key_file``, default the user's, made on first use; ``key_fingerprint``: the key the job names) and the input;
    the report names the key's fingerprint. Nothing is written: :func:`anonstudio.core.publication.write_outputs`
    publishes the outcome."""
    from anonstudio.core.jobs._schema import make_algorithm, refuse_written_secrets, report_parameters, seed_notes
    from anonstudio.core.secret_draws import draws_from_key, written_seed_warning

    refuse_written_secrets(method, params, file=source)
    algorithm = make_algorithm(method, params, file=source)
    check_rule_parameters(algorithm, source)
    key = None
    if draws_from_key(type(algorithm), params):
        from anonstudio.core.keys import load_key
        from anonstudio.core.release_log import method_seed

        key = load_key(key_file, create=True, fingerprint=key_fingerprint, context=source)
        assert key is not None
        algorithm.use_key(method_seed(key, algorithm.name, data))
    try:
        with phase(progress, 0.0, "checking the hierarchies") as running:
            hierarchies, notes = load_hierarchies(specs, data, source=source,
                                                  required=algorithm.needs_hierarchies)
            distributed = execution is not None and execution.engine != "local"
            if distributed:
                report(running, 0.04, "connecting to the Dask scheduler" if execution.scheduler
                       else f"starting a Dask LocalCluster of {execution.workers} workers")
            session = execution.session() if execution is not None else _local()
            with session as executor:
                outcome = anonymize(data, hierarchies, algorithm, subrange(running, 0.05, 1.0),
                              notes=seed_notes(method, params) + notes,
                              parameters=report_parameters(method, algorithm, params), declared=declared,
                              executor=executor if distributed else None)
    except AnonStudioError as exc:
        if exc.file is None and source is not None and (exc.key or "").startswith(("algorithm.", "hierarchies.")):
            exc.file = str(source)  # a parameter the data contradicts: name the job file it came from
        raise
    if key is not None:
        outcome.report["key"] = {"fingerprint": key.fingerprint}
    given = {attr: spec for attr, spec in specs.items()}
    outcome.report["warnings"] = (hierarchy_warnings(given, data, hierarchies, used=hierarchies_used(algorithm))
                                  + loosened_parameters(algorithm.name, algorithm.params)
                                  + written_seed_warning(method, params)
                                  + outcome.report["warnings"])
    return outcome


def check_rule_parameters(algorithm: Algorithm, source: Path | None) -> None:
    """Refuse (exit 2) a method whose parameters switch a release rule off (issue 39 item 5:
    :data:`anonstudio.core.publication_rules.SAFE_RANGES`): ``run`` and ``verify`` alike, so a release cannot be
    checked against a rule its job turned off."""
    from anonstudio.core.errors import ParameterError

    refused = refused_parameter(algorithm.name, algorithm.params)
    if refused is not None:
        raise ParameterError(refused[1], file=source, key=f"algorithm.{refused[0]}")


class _local:
    """The local engine's session: no executor."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def run_job(job: Job, progress: ProgressCallback | None = None) -> Outcome:
    """Run one job (:func:`anonstudio.core.jobs.run`: read, anonymize, verify, evaluate, on the engine its
    ``[execution]`` names) and publish it where it says (:func:`publish_job`) — what ``anonstudio run`` does."""
    from anonstudio.core.jobs._entry import run

    outcome = run(job, subrange(progress, 0.0, 0.95))
    publish_job(outcome, job)
    report(progress, 1.0, f"wrote {job.output_path.name}")
    return outcome


def publish_job(outcome: Outcome, job: Job) -> list[Path]:
    """Publish ``outcome`` where ``job`` says, with its release options (:func:`write_outputs`)."""
    outcome.report["input"]["path"] = str(job.input.path)
    return write_outputs(outcome, job.output_path, job.report_path, reads=job.reads(), shuffle_rows=job.shuffle_rows,
                         shuffle_seed=job.shuffle_seed, release_log=job.release_log, key_file=job.key_file,
                         key_fingerprint=job.key_fingerprint)


def check_engine(job: Job) -> None:
    """Refuse a job whose method does not run on the engine it names (the method declares its ``engines``):
    saying so beats running it locally behind the user's back."""
    engine = job.execution.engine
    if engine in algorithms.get(job.algorithm).engines:
        return
    on_it = [cls.name for cls in algorithms.available() if engine in cls.engines]
    raise NotAvailableError(
        f"method '{job.algorithm}' does not run on the Dask engine: set execution.engine = \"local\" (single jobs "
        f"run on Dask for {', '.join(on_it)}; experiment sweeps run on Dask with --engine dask)",
        file=job.file, key="execution.engine")


def verify_job(job: Job, *, rederive: bool = True) -> Verification:
    """Re-check an existing release against the job's input, hierarchies and privacy model: its files must be
    byte for byte the canonical form of what is checked (:func:`anonstudio.core.privacy.verify_release`, the
    same check ``run`` makes on the files it publishes) and — with ``rederive`` — byte for byte what the job's
    method publishes for this job (:mod:`anonstudio.core.rederive`). Draws whose secrecy the guarantee needs come
    from the release key (``output.key_file``, else the user's default key): without it here the release cannot be
    re-derived, which is an error unless ``rederive`` is False (the model alone is then checked, and the verdict
    says so); a shuffled release cannot even be lined up with its input without it. A job that writes such a seed
    (made before keys) is re-derived from it and fails: whoever reads the job undoes the release."""
    from anonstudio.core import privacy
    from anonstudio.core.io._canonical import first_difference
    from anonstudio.core.keys import default_key_path, load_key
    from anonstudio.core.rederive import needs_key, shuffle_seed_for, unkept_seed, written_seeds
    from anonstudio.core.rederive import rederive as rederive_release

    method = job.make_algorithm()
    check_rule_parameters(method, job.file)  # a rule the job switched off checks nothing: no verdict from it
    # a publication interrupted there (kill -9 during its swap) is rolled forward or back first
    recovered = io.recover(job.output_path, job.report_path, protect=job.reads().values())
    data = load_data(job.input)
    hierarchies, _ = load_hierarchies(job.hierarchies, data, source=job.file,
                                      required=algorithms.get(job.algorithm).needs_hierarchies)
    if not job.output_path.exists():
        raise JobError("output file does not exist: run the job first", file=job.output_path)
    key = load_key(job.key_file, context=job.file) if needs_key(job) else None
    where = job.key_file or default_key_path()
    if key is not None and job.key_fingerprint is not None and key.fingerprint != job.key_fingerprint:
        key = None  # another key than the release's: as good as none
    if job.shuffle_rows and job.shuffle_seed is None and key is None:
        raise JobError(f"the output's rows were shuffled in an order drawn from the release key"
                       f"{' ' + job.key_fingerprint if job.key_fingerprint else ''}, which is not at {where}: verify "
                       "needs that key to line the release up with its input (give output.key_file)",
                       file=job.file, key="output.key_file")
    unkept = unkept_seed(job, key) if rederive else None
    if unkept is not None:
        raise JobError(f"this release cannot be re-derived: {unkept}. Check the model alone with 'anonstudio verify "
                       "--model-only' (choices a forger made in the draws then go unseen)", file=job.file,
                       key="output.key_file" if needs_key(job) else "algorithm.seed")
    model = declared_model(method, data, job.input, job.max_suppression)
    sides = {name: side_output_path(job.output_path, name) for name in privacy.SIDE_OUTPUTS.get(str(model.get("model")), ())}
    verification = privacy.verify_release(model, data, job.output_path, hierarchies, side_paths=sides,
                                          missing=job.input.missing,
                                          shuffle_seed=shuffle_seed_for(job, job.make_algorithm(), data, hierarchies,
                                                                        key))
    verification.details["rederived"] = False
    if key is not None:
        verification.details["key"] = key.fingerprint
    for written in written_seeds(job):
        verification.passed = False
        verification.details["violations"] = verification.details.get("violations", 0) + 1
        verification.problems.append(f"the job writes the seed of the release's draws ({written}): anyone who reads "
                                     "the job replays them and undoes the release; publish again without it (the "
                                     "draws then come from your release key)")
    if rederive:
        derived = rederive_release(job, data, hierarchies, key)
        if derived.reason is not None:
            verification.passed = False
            verification.problems.insert(0, f"the release cannot be re-derived: {derived.reason}")
        for path, expected in derived.files.items():
            actual = path.read_bytes() if path.is_file() else b""
            found = first_difference(actual, expected)
            if found is None:
                continue
            pos, line, column, got, want = found
            verification.passed = False
            verification.details["violations"] = verification.details.get("violations", 0) + 1
            verification.problems.insert(0, (
                f"{path.name} is not what '{job.algorithm}' publishes for this job: line {line}, byte {column} has "
                f"'{got}' where the method writes '{want}' — a release verify accepts is the method's own output "
                "for its job, so no choice the method did not make can carry information"))
        verification.details["rederived"] = derived.reason is None
    if recovered:
        verification.details["recovered"] = recovered
    return verification


def declared_model(algorithm: Algorithm, data: Any, declared: InputSpec | None,
                   max_suppression: float | None = None) -> dict[str, Any]:
    """The privacy model to verify: the method's, with the quasi-identifiers and sensitive columns the
    job declares (for tables), so a role lost on the way cannot shrink what is checked."""
    model = dict(algorithm.privacy_model())
    if isinstance(data, Table) and data.person is not None:
        model["person"] = data.person  # every model counts distinct people per class (the verifier reads the ids)
    if isinstance(data, Table) and model.get("model") == "k-anonymity":
        model["max_suppression"] = 0.0 if max_suppression is None else float(max_suppression)
    if declared is not None and isinstance(data, Table):
        if declared.quasi_identifiers and model.get("quasi_identifiers") is None:
            # in the table's column order, as a workbench-built run lists them (one verdict, whichever face ran it)
            order = {c: i for i, c in enumerate(data.df.columns)}
            model["quasi_identifiers"] = sorted(declared.quasi_identifiers, key=lambda c: order.get(c, len(order)))
        uses_sensitive = model.get("model") == "anatomy" or model.get("l") is not None
        if declared.sensitive and uses_sensitive and model.get("sensitive") is None:
            # anatomy publishes one sensitive column; l-diversity checks each of a list
            model["sensitive"] = declared.sensitive[0] if model.get("model") == "anatomy" else list(declared.sensitive)
    return model


def _records(data: Any) -> int:
    if isinstance(data, (SequenceSet, EventLog)):
        return len(data)
    if hasattr(data, "df"):
        return len(data.df)
    return len(data)
