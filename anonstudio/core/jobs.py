"""Jobs: the TOML description of one anonymization run (see ``cli-contract.md``), and running it.

The same pipeline serves the CLI (``anonstudio run``), the GUI (which holds data and hierarchies in
memory and calls :func:`run`) and scripts::

    job = load_job("adult-mst.toml", overrides=["algorithm.k=10"])
    outcome = run_job(job)            # read → anonymize → verify → evaluate → write (atomically)
    outcome.report["verification"]["passed"]

Nothing is written unless the independent verifier passes (:class:`PrivacyError`, exit 1, otherwise).
"""

from __future__ import annotations

import os
import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio import __version__
from anonstudio.core import algorithms, io, limits
from anonstudio.core.algorithms import Algorithm, Result
from anonstudio.core.data import AttrType, EventLog, SequenceSet, Table, kind_of
from anonstudio.core.errors import AnonStudioError, JobError, NotAvailableError, PrivacyError
from anonstudio.core.execution import Execution
from anonstudio.core.io import FORMATS, format_of, to_jsonable
from anonstudio.core.params import DEFAULT_MAX_SUPPRESSION, PIPELINE_PARAMETERS, SEED
from anonstudio.core.progress import ProgressCallback, phase, report, subrange
from anonstudio.core.publication import (ORDER_WARNING, SEQUENCE_ORDER_WARNING, shuffled, side_output_path,
                                         unshuffled, write_outputs)
from anonstudio.core.release_log import release_log_path

__all__ = [
    "InputSpec", "Job", "Outcome", "ORDER_WARNING", "SEQUENCE_ORDER_WARNING", "declared_model", "load_data",
    "load_hierarchies", "load_job", "parse_job", "release_log_path", "run", "run_job", "save_job", "shuffled",
    "side_output_path", "unshuffled", "verify_job", "write_outputs",
]


_INPUT_KEYS = {
    "path", "format", "quasi_identifiers", "sensitive", "identifying", "sequence_id", "event_order",
    "label_pattern", "delimiter", "encoding", "missing", "alphabet", "labels",
}
_OUTPUT_KEYS = {"path", "report", "shuffle_rows", "shuffle_seed"}
_SECTIONS = {"input", "hierarchies", "algorithm", "output", "execution"}


def pipeline_parameters(data_kind: str):
    """Parameters the pipeline takes for every method of a kind (job key ``algorithm.<name>``), for forms."""
    from anonstudio.core.params import ParamSet

    return PIPELINE_PARAMETERS.get(data_kind, ParamSet(()))


@dataclass
class InputSpec:
    """The ``[input]`` section, paths resolved against the job file's folder."""

    path: Path
    format: str
    #: FASTA only: more files, each one class (``labels`` gives the class of ``[path, *more_paths]``)
    more_paths: list[Path] = field(default_factory=list)
    labels: list[str] | None = None
    quasi_identifiers: list[str] = field(default_factory=list)
    sensitive: list[str] = field(default_factory=list)
    identifying: list[str] = field(default_factory=list)
    sequence_id: str | None = None
    event_order: str | None = None
    label_pattern: str | None = None
    delimiter: str | None = None
    encoding: str | None = None
    missing: list[str] | None = None
    alphabet: str | None = None


@dataclass
class Job:
    """A parsed and validated job."""

    input: InputSpec
    hierarchies: dict[str, Any]
    algorithm: str
    params: dict[str, Any]
    output_path: Path
    report_path: Path | None
    file: Path | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    #: the validated ``[execution]`` section (local unless the job says otherwise)
    execution: Execution = field(default_factory=Execution)
    #: share of records that may be published fully suppressed (tables)
    max_suppression: float = DEFAULT_MAX_SUPPRESSION
    #: publish table rows in a random order (after verification); the seed, if given, stays in the job
    shuffle_rows: bool = False
    shuffle_seed: int | None = None

    def reads(self) -> dict[str, Path]:
        """Every file this job reads, by the key that names it (outputs may be none of these)."""
        paths = [self.input.path, *self.input.more_paths]
        out: dict[str, Path] = {}
        for i, p in enumerate(paths):
            out["input.path" if len(paths) == 1 else f"input.path[{i + 1}]"] = p
        for attr, spec in self.hierarchies.items():
            if isinstance(spec, Path):
                out[f"hierarchies.{attr}"] = spec
        if self.file is not None:
            out["the job file"] = Path(self.file)
        return out

    def make_algorithm(self) -> Algorithm:
        try:
            cls = algorithms.get(self.algorithm)
            params = dict(self.params)
            if "seed" in params and "seed" not in cls.parameters.names():
                # every method takes a seed (the contract's examples set one for any method); a
                # deterministic method records that it had no effect instead of refusing the job
                SEED.validate(params.pop("seed"))
            return cls(**params)
        except AnonStudioError as exc:
            if exc.file is None:
                exc.file = str(self.file) if self.file else None
            if exc.key and "." not in exc.key:
                exc.key = f"algorithm.{exc.key}"
            raise

    def notes(self) -> list[str]:
        """Sentences for the report about how the job was read."""
        cls = algorithms.get(self.algorithm)
        if "seed" in self.params and "seed" not in cls.parameters.names():
            return [f"seed = {self.params['seed']} has no effect: '{self.algorithm}' is deterministic (it draws no "
                    "random numbers)"]
        return []


@dataclass
class Outcome:
    """A finished, verified run: the result, the verifier's verdict and the report (contract keys)."""

    result: Result
    verification: Any
    report: dict[str, Any]
    data: Any
    hierarchies: dict
    #: the privacy model the output was verified against (the method's, with the job's roles): the
    #: publication gate re-checks the written files against it
    model: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------------------
# parsing
def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(raw: dict, assignment: str, *, file: Path | None = None) -> None:
    """Apply ``--set section.key=value`` to a raw job dict (value parsed as TOML, else a string)."""
    if "=" not in assignment:
        raise JobError(f"--set needs KEY=VALUE, got {short_repr(assignment)}", file=file)
    key, value = assignment.split("=", 1)
    limits.check_nesting(value, file=file, error=JobError, what=f"--set {key.strip()}", key=key.strip())
    parts = key.strip().split(".")
    if len(parts) < 2 or parts[0] not in _SECTIONS:
        raise JobError(f"--set key '{key}' must be section.key with section one of {', '.join(sorted(_SECTIONS))}", file=file)
    node = raw
    for p in parts[:-1]:
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            raise JobError(f"--set key '{key}': '{p}' is not a table", file=file)
    node[parts[-1]] = _parse_value(value.strip())


def read_text_file(path: Path, error: type[AnonStudioError], what: str) -> str:
    """A job or project file as UTF-8 text: a regular file, lines of bounded length, one clear error."""
    from anonstudio.core.io._common import read_bytes

    try:
        raw = read_bytes(path, error)
    except AnonStudioError as exc:
        if exc.message == "file not found":
            exc.message = f"{what} not found"
        raise
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise error(f"{what} is not UTF-8 text (byte 0x{raw[exc.start]:02x})", file=path, line=line) from None


def load_job(path: str | Path, overrides: list[str] | None = None) -> Job:
    """Read and validate a job file; ``overrides`` are ``section.key=value`` strings."""
    path = Path(path)
    text = read_text_file(path, JobError, "job file")
    limits.check_nesting(text, file=path, error=JobError, what="the job file")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+)", str(exc))
        line = int(found.group(1)) if found else None
        msg = str(exc).split(" (at line")[0]
        raise JobError(f"not valid TOML: {msg}", file=path, line=line) from None
    for o in overrides or []:
        apply_override(raw, o, file=path)
    return parse_job(raw, base=path.parent, file=path)


def parse_job(raw: dict, *, base: Path, file: Path | None = None) -> Job:
    """Validate a job dict (as read from TOML); relative paths are taken against ``base``."""

    def err(msg: str, key: str | None = None) -> JobError:
        return JobError(msg, file=file, key=key)

    for section in raw:
        if section not in _SECTIONS:
            raise err(f"unknown section [{section}] (known: {', '.join(sorted(_SECTIONS))})", section)
    for section in ("input", "algorithm", "output"):
        if section not in raw or not isinstance(raw[section], dict):
            raise err(f"missing section [{section}]", section)
    inp = raw["input"]
    for key in inp:
        if key not in _INPUT_KEYS:
            raise err(f"unknown key 'input.{key}' (known: {', '.join(sorted(_INPUT_KEYS))})", f"input.{key}")
    paths = inp.get("path")
    paths = [paths] if isinstance(paths, str) else paths
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        raise err("input.path is required: the data file (or, for FASTA, a list of files), relative to the job file", "input.path")
    resolved_paths = [io.input_path(p, base, "input.path", file) for p in paths]
    in_path = resolved_paths[0]
    fmt = inp.get("format")
    if fmt is None:
        fmt = format_of(in_path)
        if fmt is None:
            raise err(f"cannot tell the format of '{in_path.name}' from its extension: set input.format", "input.format")
    if fmt not in FORMATS:
        raise err(f"input.format must be one of {', '.join(FORMATS)}, got '{fmt}'", "input.format")

    def str_list(key: str) -> list[str]:
        v = inp.get(key, [])
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise err(f"input.{key} must be a list of column names", f"input.{key}")
        return v

    def text(key: str) -> str | None:
        v = inp.get(key)
        if v is None:
            return None
        if not isinstance(v, str) or not v:
            raise err(f"input.{key} must be a non-empty text value, got {short_repr(v)}", f"input.{key}")
        return v

    delimiter, encoding, pattern = text("delimiter"), text("encoding"), text("label_pattern")
    if delimiter is not None:
        from anonstudio.core.io._common import normalize_delimiter

        normalize_delimiter(delimiter, file, JobError)
    if encoding is not None and limits.text_encoding_problem(encoding):
        raise err(f"input.encoding: {limits.text_encoding_problem(encoding)}", "input.encoding")
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise err(f"input.label_pattern is not a valid regular expression: {exc}", "input.label_pattern") from None
    spec = InputSpec(
        path=in_path,
        format=fmt,
        quasi_identifiers=str_list("quasi_identifiers"),
        sensitive=str_list("sensitive"),
        identifying=str_list("identifying"),
        sequence_id=text("sequence_id"),
        event_order=text("event_order"),
        label_pattern=pattern,
        delimiter=delimiter,
        encoding=encoding,
        missing=str_list("missing") if "missing" in inp else None,
        alphabet=text("alphabet"),
    )
    _check_one_role_per_column(spec, err)
    spec.more_paths = resolved_paths[1:]
    if "labels" in inp:
        spec.labels = str_list("labels")
        if len(spec.labels) != len(resolved_paths):
            raise err(f"input.labels has {len(spec.labels)} labels for {len(resolved_paths)} files", "input.labels")
    if spec.more_paths and fmt != "fasta":
        raise err("several input files are only for FASTA (one class per file)", "input.path")
    if fmt == "events" and (not spec.sequence_id or not spec.event_order):
        raise err("events input needs input.sequence_id and input.event_order", "input.sequence_id")
    if fmt == "table" and not spec.quasi_identifiers and raw["algorithm"].get("name") not in (None, "condensation"):
        raise err("input.quasi_identifiers is required for tables", "input.quasi_identifiers")

    hierarchies = raw.get("hierarchies", {})
    if not isinstance(hierarchies, dict):
        raise err("[hierarchies] must be a table of attribute = path or builder", "hierarchies")
    resolved: dict[str, Any] = {}
    for attr, value in hierarchies.items():
        if isinstance(value, str):
            resolved[attr] = io.input_path(value, base, f"hierarchies.{attr}", file)
        elif isinstance(value, dict):
            resolved[attr] = dict(value)
        else:
            raise err(f"hierarchy of '{attr}' must be a file path or a builder table", f"hierarchies.{attr}")

    alg = dict(raw["algorithm"])
    name = alg.pop("name", None)
    max_suppression = alg.pop("max_suppression", DEFAULT_MAX_SUPPRESSION)
    if isinstance(max_suppression, bool) or not isinstance(max_suppression, (int, float)) or not (
        0 <= max_suppression <= 1
    ):
        raise err(f"algorithm.max_suppression must be a share from 0 to 1, got {short_repr(max_suppression)}",
                  "algorithm.max_suppression")
    if not isinstance(name, str):
        raise err("algorithm.name is required", "algorithm.name")
    out = raw["output"]
    for key in out:
        if key not in _OUTPUT_KEYS:
            raise err(f"unknown key 'output.{key}' (known: {', '.join(sorted(_OUTPUT_KEYS))})", f"output.{key}")
    shuffle = out.get("shuffle_rows", False)
    if not isinstance(shuffle, bool):
        raise err(f"output.shuffle_rows must be true or false, got {short_repr(shuffle)}", "output.shuffle_rows")
    shuffle_seed = out.get("shuffle_seed")
    if shuffle_seed is not None and (isinstance(shuffle_seed, bool) or not isinstance(shuffle_seed, int)
                                     or not 0 <= shuffle_seed < 2**63):
        raise err(f"output.shuffle_seed must be a whole number from 0 to 2^63 - 1, got {short_repr(shuffle_seed)}",
                  "output.shuffle_seed")
    if shuffle and fmt == "fasta":
        raise err("output.shuffle_rows is for tables and event logs (pseudo-strings carry no input order)",
                  "output.shuffle_rows")
    for key in ("path", "report"):
        if key in out:
            check_target_text(out[key], f"output.{key}", err)
    if "path" not in out:
        raise err("output.path is required", "output.path")
    # Targets are kept as written (made absolute, not resolved): a symlink at the target is replaced by the
    # new file, never written through; the overwrite check below compares resolved real paths.
    out_path = _target(out["path"], base)
    rep = out.get("report")
    rep_path = None if rep is None else _target(rep, base)
    execution = Execution.from_dict(raw.get("execution"), file=str(file) if file else None)
    job = Job(spec, resolved, name, alg, out_path, rep_path, file=file, raw=raw, execution=execution,
              max_suppression=float(max_suppression), shuffle_rows=shuffle, shuffle_seed=shuffle_seed)
    io.refuse_overwrites({"output.path": out_path, "output.report": rep_path}, job.reads(), file=file)
    for key, target in (("output.path", out_path), ("output.report", rep_path)):
        if target is not None:
            io.check_target(target, key, file=file)
    job.make_algorithm()  # validates method name and parameters now, before any data is read
    return job


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, control characters escaped (for one-line messages)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_target_text(value: Any, key: str, err) -> None:
    """An output path as written in the job: non-empty text, no NUL, not absurdly long."""
    if not isinstance(value, str) or not value.strip():
        raise err(f"{key} must be a file name (text), got {short_repr(value)}", key)
    if "\x00" in value:
        raise err(f"{key} contains a NUL character", key)
    if len(value.encode()) > 4096 or any(len(part.encode()) > 255 for part in Path(value).parts):
        raise err(f"{key} is too long for a file name ({len(value)} characters)", key)
    if value.endswith(("/", os.sep)):
        raise err(f"{key} names a folder ({short_repr(value)}): give a file name", key)


def _target(text: str, base: Path) -> Path:
    p = Path(text)
    return p if p.is_absolute() else Path(os.path.abspath(base)) / p


_ROLE_KEYS = (
    ("quasi_identifiers", "a quasi-identifier"),
    ("sensitive", "sensitive"),
    ("identifying", "identifying"),
    ("sequence_id", "the sequence id"),
    ("event_order", "the event order"),
)


def _check_one_role_per_column(spec: InputSpec, err) -> None:
    """A column holds one role (``cli-contract.md``). A column named in two roles would take the last one
    and could be published unprotected (a QI also listed as sensitive was published exactly), so it is
    an error naming the column and both keys; a name listed twice under one key is refused as well."""
    seen: dict[str, str] = {}
    for key, role in _ROLE_KEYS:
        value = getattr(spec, key)
        names = [value] if isinstance(value, str) else list(value or [])
        for name in names:
            if name in seen:
                first_key, first_role = seen[name].split("|")
                if first_key == key:
                    raise err(f"column '{name}' is listed twice in input.{key}", f"input.{key}")
                raise err(
                    f"column '{name}' is named in two roles, {first_role} (input.{first_key}) and {role} "
                    f"(input.{key}): a column holds one role",
                    f"input.{key}",
                )
            seen[name] = f"{key}|{role}"


# ---------------------------------------------------------------------------------------------------------
# running
def load_data(spec: InputSpec) -> Table | EventLog | SequenceSet:
    """Read the job's input with its roles set."""
    if spec.format == "table":
        table = io.read_table(spec.path, delimiter=spec.delimiter, encoding=spec.encoding, missing=spec.missing)
        return table.with_roles(spec.quasi_identifiers, spec.sensitive, spec.identifying)
    if spec.format == "events":
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


def hierarchy_attributes(data: Any) -> list[str]:
    """The attributes that need a hierarchy: the quasi-identifiers of a table or an event log."""
    if isinstance(data, (Table, EventLog)):
        return list(data.quasi_identifiers)
    return []


def load_hierarchies(specs: dict[str, Any], data: Any, *, source: Path | None = None,
                     required: bool = True) -> tuple[dict, list[str]]:
    """Build every quasi-identifier's hierarchy from a file or a builder spec, check it covers the data,
    and give numeric attributes without one a default interval hierarchy. Returns ``(hierarchies, notes)``."""
    from anonstudio.core import hierarchy as hmod

    needed = hierarchy_attributes(data)
    frame = data.df if isinstance(data, (Table, EventLog)) else None
    out: dict = {}
    notes: list[str] = []
    for attr in specs:
        if frame is not None and attr not in frame.columns:
            raise JobError(f"hierarchy given for '{attr}', which is not a column of the input", key=f"hierarchies.{attr}")
    for attr in needed:
        if not required and attr not in specs:
            continue  # the method publishes this column's values as they are: no hierarchy needed
        values = frame[attr].dropna().astype(str).unique().tolist()
        spec = specs.get(attr)
        if isinstance(spec, Path):
            h = io.read_hierarchy(spec, attribute=attr)
        elif isinstance(spec, dict):
            h = hmod.build_hierarchy(attr, spec, values, source=source)
        else:
            numeric = isinstance(data, Table) and data.types.get(attr) is AttrType.NUMERIC
            if not numeric and isinstance(data, EventLog):
                numeric = bool(pd.to_numeric(frame[attr].dropna(), errors="coerce").notna().all())
            if not numeric:
                raise JobError(
                    f"quasi-identifier '{attr}' of {Path(str(getattr(data, 'source', None) or 'the data')).name} is "
                    "categorical and has no hierarchy: add one under [hierarchies]",
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
    return out, notes


def run(
    data: Any,
    hierarchies: dict,
    algorithm: Algorithm,
    progress: ProgressCallback | None = None,
    *,
    notes: list[str] | None = None,
    parameters: dict | None = None,
    declared: InputSpec | None = None,
    max_suppression: float | None = None,
    executor=None,
) -> Outcome:
    """Anonymize in memory, verify independently and evaluate; raises :class:`PrivacyError` if the
    verifier refuses. Nothing is written here (see :func:`write_outputs`).

    ``executor`` (:class:`~anonstudio.core.execution.DaskExecutor`, from ``Execution.session()``): the method
    splits its work into tasks on it (methods whose ``engines`` name "dask"; the output is the local one) and
    the verifier counts classes on it; the verifier's checks and verdict are the same code as without it.

    ``declared`` is the job's ``[input]``: the verifier then checks the roles the job asked for, not the
    ones the data container ended up with. ``max_suppression``: the share of records that may be
    published fully suppressed (``None``: :data:`DEFAULT_MAX_SUPPRESSION`)."""
    from anonstudio.core import privacy

    if algorithm.data_kind != kind_of(data):
        raise JobError(f"method '{algorithm.name}' works on {algorithm.data_kind} data, the input is {kind_of(data)}",
                       file=getattr(data, "source", None), key="algorithm.name")
    if max_suppression is None:
        max_suppression = getattr(algorithm, "pipeline", {}).get("max_suppression", DEFAULT_MAX_SUPPRESSION)
    if isinstance(data, Table) and isinstance(getattr(algorithm, "pipeline", None), dict):
        # the suppression budget the verifier allows is the one the method may spend (global recoding does)
        algorithm.pipeline["max_suppression"] = max_suppression
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
    details = verification.details
    if "classes" in details and "smallest_class" in details:
        # a table whose classes the verifier counted from the output (records with identical published
        # quasi-identifiers; the suppressed ones apart): the classes a reader sees, not the method's partitions,
        # which may publish the same values
        counted = {"count": int(details["classes"]), "min_size": int(details["smallest_class"]),
                   "max_size": int(details.get("largest_class", details["smallest_class"])),
                   "unit": "classes"}
    else:
        counted = {"count": int(len(sizes)), "min_size": int(sizes.min()) if len(sizes) else 0,
                   "max_size": int(sizes.max()) if len(sizes) else 0, "unit": "groups"}
    rep = {
        "anonstudio_version": __version__,
        "algorithm": algorithm.name,
        "parameters": dict(parameters if parameters is not None else algorithm.params,
                           **({"max_suppression": max_suppression} if isinstance(data, Table) else {})),
        "input": {"path": str(getattr(data, "source", "") or ""), "records": _records(data)},
        "output": {"path": None, "records": _records(result.output)},
        # one number, one meaning: records published fully suppressed (tables: counted by the verifier
        # from the output, as metrics.suppressed is) or removed (strings, events)
        "suppressed": int(verification.details.get("suppressed", result.suppressed))
        if isinstance(data, Table) else int(result.suppressed),
        # tables: the published equivalence classes (unit "classes"); other outputs: the method's groups
        "groups": counted,
        "runtime_s": round(runtime, 4),
        # which engine ran the method and the verifier's counts: "local", or "dask (2 workers at tcp://…)"
        "execution": executor.describe() if executor is not None else "local",
        "verification": verification.as_dict(),
        "metrics": to_jsonable(metrics),
        "notes": list(notes or []) + list(result.notes),
        "warnings": release_warnings(data, result.output) + list(result.warnings),
    }
    if isinstance(data, Table):  # issue 32: re-identification risk before / after and the attacks' figures
        from anonstudio.core.metrics import release_risk

        with phase(progress, 1.0, "measuring the re-identification risk"):  # cancellable between its chunks
            rep["risk"] = to_jsonable(release_risk(data, result.output, side_outputs=result.side_outputs))
    report(progress, 1.0, "done")
    return Outcome(result, verification, rep, data, hierarchies, model=model)


#: warn when more than this share of the published records is unique on its quasi-identifiers together with
#: the columns published as they are: each such record is one person to anyone who knows those values.
UNIQUE_WARNING_SHARE = 0.01
#: event logs publish their sequence ids as they are (the file contract): (k,c)-privacy does not cover them
IDS_WARNING = ("sequence ids (column '{column}') are published as they are: if they are record numbers or anyone "
               "may know them, replace them with pseudonyms before the release — (k,c)-privacy does not cover them")


def hierarchy_warnings(specs: dict[str, Any], data: Any, hierarchies: dict) -> list[str]:
    """Hierarchies given for columns that are not quasi-identifiers (ignored), and interval labels that do
    not contain their value (file, line, value, label)."""
    warnings = []
    needed = set(hierarchy_attributes(data))
    for attr in specs:
        if attr not in needed:
            warnings.append(f"a hierarchy is given for '{attr}', which is not a quasi-identifier: it is not used "
                            "(make the column quasi-identifying or remove the hierarchy)")
    for attr, h in hierarchies.items():
        bad = h.interval_mismatches()
        if bad:
            where = f"{h.source.name}:" if h.source is not None else "line "
            shown = "; ".join(f"{where}{line}: {value} is under '{label}'" for line, value, label in bad[:3])
            warnings.append(f"hierarchy of '{attr}': {len(bad)}{'+' if len(bad) >= 20 else ''} value(s) sit under an "
                            f"interval that does not contain them ({shown}): the output would publish wrong ranges")
    return warnings


def release_warnings(data: Any, output: Any) -> list[str]:
    """Risks the privacy model does not cover, for the report, the CLI and the workbench (issue 11 #14, #16):
    columns published as they are that look like identifiers, and records unique on the quasi-identifiers
    together with the columns that have no role; and what of the input was not read (a Parquet file's
    stored index)."""
    from anonstudio.core.data import EventLog

    if isinstance(data, EventLog):  # the order warning is removed at publication when sequences are shuffled
        return [IDS_WARNING.format(column=data.sequence_id), SEQUENCE_ORDER_WARNING]
    if not isinstance(data, Table) or not isinstance(output, Table):
        return []
    warnings: list[str] = [ORDER_WARNING]  # removed at publication when the rows are shuffled
    left_out = io.parquet_index_left_out(data)
    if left_out:
        warnings.append(
            f"the Parquet file {data.source.name} also stores {', '.join(repr(c) for c in left_out)} as its "
            "index (pandas writes a frame's index that way): it was not read, so it is neither given a role nor "
            "published; to anonymize it as a column, save the frame with reset_index() first")
    frame = output.df
    n = len(frame)
    # column by column, in slices of rows (core.data._chunks): on the workbench's worker thread no pandas call
    # holds the interpreter lock long enough to freeze the window
    from anonstudio.core.data import _chunks, coded_cells

    unroled = [c for c in frame.columns if data.role(c).value == "insensitive" and c in data.df.columns]
    for c in unroled:
        if n > 1:
            codes, uniques = _chunks.factorize(data.df[c])
            if len(uniques) + bool((codes < 0).any()) == n:  # distinct values, a missing cell counting as one
                warnings.append(f"column '{c}' has no role and a different value in every record: it looks like "
                                "an identifier and is published as it is (mark it identifying to drop it)")
    qis = [q for q in data.quasi_identifiers if q in frame.columns]
    if qis and unroled and n:
        # equal codes are equal text (missing = empty): integers to group, not n Python strings per column
        key = _chunks.row_classes([coded_cells(frame[c], "").codes for c in qis + unroled], n)
        unique = int((np.bincount(key) == 1).sum())
        if unique / n > UNIQUE_WARNING_SHARE:
            warnings.append(
                f"{unique} records ({unique / n:.1%}) are unique on the quasi-identifiers together with the columns "
                f"published as they are ({', '.join(unroled[:6])}{' …' if len(unroled) > 6 else ''}): k-anonymity "
                "covers only the quasi-identifiers; give those columns a role (quasi-identifying, sensitive, "
                "identifying) if others may know them")
    return warnings


def run_job(job: Job, progress: ProgressCallback | None = None) -> Outcome:
    """Read, anonymize, verify, evaluate and write one job, on the engine its ``[execution]`` names."""
    check_engine(job)
    report(progress, 0.0, f"reading {job.input.path.name}")
    data = load_data(job.input)
    hierarchies, notes = load_hierarchies(job.hierarchies, data, source=job.file,
                                          required=algorithms.get(job.algorithm).needs_hierarchies)
    algorithm = job.make_algorithm()
    params = {"name": job.algorithm, **algorithm.params}
    if "seed" in job.params and "seed" not in params:
        params["seed"] = job.params["seed"]
    notes = job.notes() + notes
    distributed = job.execution.engine != "local"
    if distributed:
        report(progress, 0.04, "connecting to the Dask scheduler" if job.execution.scheduler
               else f"starting a Dask LocalCluster of {job.execution.workers} workers")
    with job.execution.session() as executor:
        try:
            outcome = run(data, hierarchies, algorithm, subrange(progress, 0.05, 0.95), notes=notes,
                          parameters=params, declared=job.input, max_suppression=job.max_suppression,
                          executor=executor if distributed else None)
        except AnonStudioError as exc:
            if exc.file is None and (exc.key or "").startswith("algorithm."):
                exc.file = str(job.file)  # a parameter the data contradicts: name the job file it came from
            raise
    outcome.report["input"]["path"] = str(job.input.path)
    outcome.report["warnings"] = hierarchy_warnings(job.hierarchies, data, hierarchies) + outcome.report["warnings"]
    write_outputs(outcome, job.output_path, job.report_path, reads=job.reads(), shuffle_rows=job.shuffle_rows,
                  shuffle_seed=job.shuffle_seed)
    report(progress, 1.0, f"wrote {job.output_path.name}")
    return outcome


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


def verify_job(job: Job):
    """Re-check an existing release against the job's input, hierarchies and privacy model: its files must be
    byte for byte the canonical form of what is checked (:func:`anonstudio.core.privacy.verify_release`, the
    same check ``run`` makes on the files it publishes)."""
    from anonstudio.core import privacy

    # a publication interrupted there (kill -9 during its swap) is rolled forward or back first
    recovered = io.recover(job.output_path, job.report_path)
    data = load_data(job.input)
    hierarchies, _ = load_hierarchies(job.hierarchies, data, source=job.file,
                                      required=algorithms.get(job.algorithm).needs_hierarchies)
    if not job.output_path.exists():
        raise JobError("output file does not exist: run the job first", file=job.output_path)
    if job.shuffle_rows and job.shuffle_seed is None:
        raise JobError("the output's rows were shuffled with a random order that was not kept: give "
                       "output.shuffle_seed (kept in the job file only) to publish verifiable shuffled releases",
                       file=job.file, key="output.shuffle_seed")
    model = declared_model(job.make_algorithm(), data, job.input, job.max_suppression)
    sides = {name: side_output_path(job.output_path, name) for name in privacy.SIDE_OUTPUTS.get(model.get("model"), ())}
    verification = privacy.verify_release(model, data, job.output_path, hierarchies, side_paths=sides,
                                          missing=job.input.missing,
                                          shuffle_seed=job.shuffle_seed if job.shuffle_rows else None)
    if recovered:
        verification.details["recovered"] = recovered
    return verification


def declared_model(algorithm: Algorithm, data: Any, declared: InputSpec | None,
                   max_suppression: float | None = None) -> dict[str, Any]:
    """The privacy model to verify: the method's, with the quasi-identifiers and sensitive columns the
    job declares (for tables), so a role lost on the way cannot shrink what is checked."""
    model = dict(algorithm.privacy_model())
    if isinstance(data, Table) and model.get("model") == "k-anonymity":
        model["max_suppression"] = DEFAULT_MAX_SUPPRESSION if max_suppression is None else max_suppression
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


# ---------------------------------------------------------------------------------------------------------
# writing (the GUI's "Save job…"): a raw job dict → TOML text that :func:`load_job` reads back
def job_to_toml(raw: dict[str, Any]) -> str:
    """TOML text of a job dict, sections in the order of ``cli-contract.md`` (``input``, ``hierarchies``,
    ``algorithm``, ``output``), written by ``tomli_w`` (the writer that matches the standard ``tomllib``)."""
    import tomli_w

    order = [s for s in ("input", "hierarchies", "algorithm", "output") if s in raw]
    order += [s for s in raw if s not in order]
    for section in order:
        if not isinstance(raw[section], dict):
            raise JobError(f"job section '{section}' must be a table", key=section)
    try:
        return tomli_w.dumps({s: to_jsonable(raw[s]) for s in order})
    except TypeError as exc:
        raise JobError(f"cannot write the job: {exc}") from None


def save_job(raw: dict[str, Any], path: str | Path) -> Path:
    """Validate ``raw`` (as :func:`parse_job` would read it beside ``path``) and write it atomically."""
    path = Path(path)
    text = job_to_toml(raw)
    parse_job(tomllib.loads(text), base=path.parent, file=path)
    with io.atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path
