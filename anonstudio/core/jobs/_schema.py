"""The job file (``cli-contract.md``): its sections and keys, parsed and validated into a :class:`Job`, and written
back as TOML (the workbench's Save job…).

Parsing reads nothing but the job file: paths are resolved against its folder and checked (outputs never one of
the files read), the method and its parameters validated by the method's own declarations. What a job *does* is
:mod:`._pipeline`'s.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anonstudio.core.secret_draws import refuse_written_secrets as refuse_written_secrets  # re-exported
from anonstudio.core.secret_draws import report_parameters as report_parameters  # re-exported
from anonstudio.core import algorithms, io, limits
from anonstudio.core.algorithms import Algorithm
from anonstudio.core.errors import AnonStudioError, JobError
from anonstudio.core.execution import Execution
from anonstudio.core.io import FORMATS, format_of, to_jsonable
from anonstudio.core.params import SEED
from anonstudio.core.publication_rules import SHUFFLE_REQUIRED

_INPUT_KEYS = {
    "path", "format", "quasi_identifiers", "sensitive", "identifying", "sequence_id", "event_order",
    "label_pattern", "delimiter", "encoding", "missing", "alphabet", "labels", "person",
}
_OUTPUT_KEYS = {"path", "report", "shuffle_rows", "shuffle_seed", "release_log", "key_file", "key_fingerprint"}
_SECTIONS = {"input", "hierarchies", "algorithm", "output", "execution"}


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
    #: tables: the identifying column naming the person each record is of (several records per person):
    #: every privacy model then counts distinct people per class
    person: str | None = None


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
    #: publish table rows in a random order (after verification); the seed, if given, stays in the job
    shuffle_rows: bool = False
    shuffle_seed: int | None = None
    #: where the release log is kept (``output.release_log``; ``None``: the user's data folder)
    release_log: Path | None = None
    #: the release key's file (``output.key_file``; ``None``: the user's default key, made on first use) and the
    #: fingerprint of the key the job was written for (``output.key_fingerprint``; another key is refused)
    key_file: Path | None = None
    key_fingerprint: str | None = None

    def refuse_written_secrets(self) -> None:
        """Refuse (exit 2) a seed this job writes for draws whose secrecy the guarantee needs: run and publish
        draw them from the release key (:func:`refuse_written_secrets`)."""
        refuse_written_secrets(self.algorithm, self.params, self.shuffle_seed, file=self.file)

    @property
    def max_suppression(self) -> float | None:
        """The share of records the method may publish fully suppressed (its pipeline key ``max_suppression``,
        the method's own default when the job does not set it); ``None`` for a method that suppresses nothing."""
        value = self.make_algorithm().pipeline.get("max_suppression")
        return None if value is None else float(value)

    def reads(self) -> dict[str, Path]:
        """Every file this job reads, by the key that names it (outputs may be none of these)."""
        paths = [self.input.path, *self.input.more_paths]
        out: dict[str, Path] = {}
        for i, p in enumerate(paths):
            out["input.path" if len(paths) == 1 else f"input.path[{i + 1}]"] = p
        for attr, spec in self.hierarchies.items():
            if isinstance(spec, Path):
                out[f"hierarchies.{attr}"] = spec
        models = self.params.get("models")
        for name, params in (models.items() if isinstance(models, dict) else ()):
            if isinstance(params, dict) and isinstance(params.get("population"), str):
                out[f"algorithm.models.{name}.population"] = Path(params["population"])
        if self.key_file is not None:
            out["output.key_file"] = Path(self.key_file)
        if self.file is not None:
            out["the job file"] = Path(self.file)
        return out

    def algorithm_class(self) -> type[Algorithm]:
        """The class of the job's method."""
        return algorithms.get(self.algorithm)

    def make_algorithm(self) -> Algorithm:
        """The job's method with its parameters (validated by the method's declarations)."""
        return make_algorithm(self.algorithm, self.params, file=self.file)

    def notes(self) -> list[str]:
        """Sentences for the report about how the job was read."""
        return seed_notes(self.algorithm, self.params)


def make_algorithm(name: str, params: dict[str, Any], *, file: Path | str | None = None) -> Algorithm:
    """The method registered as ``name`` with ``params`` (its own and the pipeline keys it declares); an error
    names ``file`` and the key ``algorithm.<name>``. Every method takes a seed (the contract's examples set one
    for any method): a deterministic method checks it and records that it had no effect (:func:`seed_notes`)."""
    try:
        cls = algorithms.get(name)
        params = dict(params)
        if "seed" in params and "seed" not in cls.parameters.names():
            SEED.validate(params.pop("seed"))
        return cls(**params)
    except AnonStudioError as exc:
        if exc.file is None:
            exc.file = str(file) if file else None
        if exc.key and "." not in exc.key:
            exc.key = f"algorithm.{exc.key}"
        raise


def seed_notes(name: str, params: dict[str, Any]) -> list[str]:
    """The report's note when a deterministic method was given a seed."""
    cls = algorithms.get(name)
    if "seed" in params and "seed" not in cls.parameters.names():
        return [f"seed = {params['seed']} has no effect: '{name}' is deterministic (it draws no random numbers)"]
    return []


# ---------------------------------------------------------------------------------------------------------
# parsing
def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except ValueError:  # not TOML (TOMLDecodeError), or a number longer than Python reads: the text as given
        return text


def apply_override(raw: dict[str, Any], assignment: str, *, file: Path | None = None) -> None:
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
    except ValueError as exc:  # a number longer than Python reads (sys.get_int_max_str_digits)
        limits.raise_for_long_number(text, exc, file=path, error=JobError, what="the job file")
        raise
    for o in overrides or []:
        apply_override(raw, o, file=path)
    return parse_job(raw, base=path.parent, file=path)


def parse_job(raw: dict[str, Any], *, base: Path, file: Path | None = None) -> Job:
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
        from anonstudio.core.io._fasta import label_pattern_problem

        problem = label_pattern_problem(pattern)
        if problem:
            raise err(f"input.{problem}", "input.label_pattern")
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
        person=text("person"),
    )
    _check_one_role_per_column(spec, err)
    if spec.person is not None:
        if fmt != "table":
            raise err(f"input.person is for tables (several records of one person), not {fmt} input: "
                      + ("each sequence is one person already" if fmt == "events" else
                         "a pseudo-string stands for no record"), "input.person")
        if spec.person in spec.quasi_identifiers or spec.person in spec.sensitive:
            raise err(f"input.person names '{spec.person}', which is also a quasi-identifier or sensitive: the "
                      "person column is identifying (never published)", "input.person")
        if spec.person not in spec.identifying:
            spec.identifying = [*spec.identifying, spec.person]  # the person's id is never published
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
    models = alg.get("models")
    if isinstance(models, dict):  # a privacy model's population table is a file, relative to the job file
        alg["models"] = {m: ({**ps, "population": str(io.input_path(ps["population"], base,
                                                                      f"algorithm.models.{m}.population", file))}
                             if isinstance(ps, dict) and isinstance(ps.get("population"), str) else ps)
                         for m, ps in models.items()}
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
    if not shuffle and name in algorithms.names() and algorithms.get(name).random_row_order:
        raise err(SHUFFLE_REQUIRED.format(method=name), "output.shuffle_rows")
    for key in ("path", "report", "release_log"):
        if key in out:
            check_target_text(out[key], f"output.{key}", err)
    if "path" not in out:
        raise err("output.path is required", "output.path")
    # Targets are kept as written (made absolute, not resolved): a symlink at the target is replaced by the
    # new file, never written through; the overwrite check below compares resolved real paths.
    out_path = _target(out["path"], base)
    rep = out.get("report")
    rep_path = None if rep is None else _target(rep, base)
    log = out.get("release_log")
    log_path = None if log is None else _target(log, base)
    key_text = out.get("key_file")
    if key_text is not None:
        check_target_text(key_text, "output.key_file", err)
    key_path = None if key_text is None else io.input_path(str(Path(key_text).expanduser()), base,
                                                            "output.key_file", file)
    fingerprint = out.get("key_fingerprint")
    if fingerprint is not None and (not isinstance(fingerprint, str)
                                    or not re.fullmatch(r"[0-9a-f]{16}", fingerprint)):
        raise err(f"output.key_fingerprint must be a key's fingerprint (16 hex digits, as 'anonstudio key' shows), "
                  f"got {short_repr(fingerprint)}", "output.key_fingerprint")
    execution = Execution.from_dict(raw.get("execution"), file=str(file) if file else None)
    job = Job(spec, resolved, name, alg, out_path, rep_path, file=file, raw=raw, execution=execution,
              shuffle_rows=shuffle, shuffle_seed=shuffle_seed, release_log=log_path, key_file=key_path,
              key_fingerprint=fingerprint)
    io.refuse_overwrites({"output.path": out_path, "output.report": rep_path, "output.release_log": log_path},
                         job.reads(), file=file)
    for key, target in (("output.path", out_path), ("output.report", rep_path), ("output.release_log", log_path)):
        if target is not None:
            io.check_target(target, key, file=file)
    algorithm = job.make_algorithm()  # validates method name and parameters now, before any data is read
    if spec.person is not None and not algorithm.counts_people:
        raise err(people_refusal(algorithm), "input.person")
    return job


def people_refusal(algorithm: Algorithm) -> str:
    """Why ``algorithm`` refuses a person column (one line)."""
    return (f"method '{algorithm.name}' cannot count people (input.person): {algorithm.people_refusal} — "
            "use mondrian, global, local, kmember or mst, whose classes hold k distinct people")


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, control characters escaped (for one-line messages)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_target_text(value: Any, key: str, err: Callable[..., AnonStudioError]) -> None:
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


def _check_one_role_per_column(spec: InputSpec, err: Callable[..., AnonStudioError]) -> None:
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
# writing (the GUI's "Save job…"): a raw job dict → TOML text that :func:`load_job` reads back
def job_to_toml(raw: dict[str, Any]) -> str:
    """TOML text of a job dict, sections in the order of ``cli-contract.md`` (``input``, ``hierarchies``,
    ``algorithm``, ``output``), written by ``tomli_w`` (the writer that matches the standard ``tomllib``)."""
    import tomli_w

    order: list[str] = [s for s in ("input", "hierarchies", "algorithm", "output") if s in raw]
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
