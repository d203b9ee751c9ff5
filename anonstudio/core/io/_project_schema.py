"""Project files (the workbench's ``.anonstudio.json``) checked against their schema before anything is built
from them (issue 29): a malformed file is one :class:`ProjectError` naming the file and the key
(``data.roles.age``, ``history[2].report.verification``), never a raw Python error in a dialog or inside a pane.

The schema follows what ``write_project`` writes::

    {"format": "anonstudio-project", "version": 1,
     "data": null | {"path", "kind", "read_options", "roles", "types"},
     "hierarchies": {attribute: {"rows": [[leaf, …, root], …], "source": path | builder | null}},
     "method": {"name": text | null, "params": {…}},
     "release": {"shuffle_rows", "shuffle_seed", "release_log", "output", "report", "key_file", "key_fingerprint"},
     "last_report": null | report, "history": [{"number", "time", "method", "parameters", "report"}, …]}

A report holds the contract's keys (``cli-contract.md``) with their types; keys the schema does not name are
allowed (later versions add some). Nesting is bounded (:data:`~anonstudio.core.limits.MAX_NESTING`) before the
JSON parser runs. Qt-free; the workbench's project module reads through :func:`load_project_json`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from anonstudio.core.errors import InputError
from anonstudio.core.limits import MAX_NESTING, check_nesting, path_problem

FORMAT = "anonstudio-project"
VERSION = 1


class ProjectError(InputError):
    """A project file that cannot be read: names the file and the key (or, for JSON syntax, the line)."""


#: a check: ``(value, key) -> None``, raising :class:`_Invalid` with what was expected
Check = Callable[[Any, str], None]


class _Invalid(Exception):
    def __init__(self, key: str, expected: str, value: Any) -> None:
        super().__init__(key)
        self.key, self.expected, self.value = key, expected, value


def _short(value: Any) -> str:
    kind = {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(type(value))
    if kind is None:
        kind = "a number"
    text = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, (dict, list)) else ""
    if len(text) > 40:
        text = text[:39] + "…"
    return f"{kind} {text}".strip()


def _child(key: str, name: str | int) -> str:
    return f"{key}[{name}]" if isinstance(name, int) else (f"{key}.{name}" if key else str(name))


# -- building blocks
def text(*, choices: tuple[str, ...] = (), path: bool = False, nonempty: bool = False) -> Check:
    def check(value: Any, key: str) -> None:
        if not isinstance(value, str):
            raise _Invalid(key, "text" if not choices else "one of " + ", ".join(choices), value)
        if choices and value not in choices:
            raise _Invalid(key, "one of " + ", ".join(choices), value)
        if (nonempty or path) and not value.strip():
            raise _Invalid(key, "a non-empty text", value)
        if path and path_problem(value):
            raise _Invalid(key, f"a file path (this one {path_problem(value)})", value)
    return check


def whole(*, low: int | None = None, high: int | None = None) -> Check:
    def check(value: Any, key: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low) or (
                high is not None and value > high):
            bounds = f" from {low} to {high}" if low is not None and high is not None else (
                f" ≥ {low}" if low is not None else "")
            raise _Invalid(key, f"a whole number{bounds}", value)
    return check


def number(value: Any, key: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise _Invalid(key, "a finite number", value)


def boolean(value: Any, key: str) -> None:
    if not isinstance(value, bool):
        raise _Invalid(key, "true or false", value)


def anything(value: Any, key: str) -> None:
    """Any JSON value (its depth is bounded before parsing); numbers must be finite (NaN in a report would
    propagate into the panes' arithmetic)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise _Invalid(key, "a finite number", value)
    if isinstance(value, dict):
        for name, v in value.items():
            anything(v, _child(key, name))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            anything(v, _child(key, i))


def optional(inner: Check) -> Check:
    def check(value: Any, key: str) -> None:
        if value is not None:
            inner(value, key)
    return check


def listof(item: Check, *, nonempty: bool = False) -> Check:
    def check(value: Any, key: str) -> None:
        if not isinstance(value, list) or (nonempty and not value):
            raise _Invalid(key, "a non-empty list" if nonempty else "a list", value)
        for i, v in enumerate(value):
            item(v, _child(key, i))
    return check


def mapping(item: Check) -> Check:
    """An object with any keys, each value checked by ``item``."""
    def check(value: Any, key: str) -> None:
        if not isinstance(value, dict):
            raise _Invalid(key, "an object", value)
        for name, v in value.items():
            item(v, _child(key, name))
    return check


def obj(fields: dict[str, Check], *, required: tuple[str, ...] = (), extra: Check | None = anything) -> Check:
    """An object whose named keys are checked by ``fields`` (``required`` ones must be present); other keys are
    checked by ``extra`` (``None``: not allowed)."""
    def check(value: Any, key: str) -> None:
        if not isinstance(value, dict):
            raise _Invalid(key, "an object", value)
        for name in required:
            if name not in value:
                raise _Invalid(_child(key, name), "present", None)
        for name, v in value.items():
            inner = fields.get(name, extra)
            if inner is None:
                raise _Invalid(_child(key, name), "absent (not a key of this object: "
                               + ", ".join(fields) + ")", v)
            inner(v, _child(key, name))
    return check


def one_of(*checks: Check, expected: str) -> Check:
    def check(value: Any, key: str) -> None:
        for inner in checks:
            try:
                inner(value, key)
                return
            except _Invalid:
                continue
        raise _Invalid(key, expected, value)
    return check


# -- the schema
_ROLES = ("identifying", "quasi-identifying", "sensitive", "insensitive")
_TYPES = ("categorical", "ordinal", "numeric")
_NAMES = listof(text())

_SIDE = obj({"path": optional(text()), "records": optional(whole(low=0))})
REPORT = obj({
    "anonstudio_version": text(),
    "algorithm": optional(text()),
    "parameters": optional(mapping(anything)),
    "input": _SIDE,
    "output": _SIDE,
    "suppressed": optional(whole(low=0)),
    "groups": obj({"count": whole(low=0), "min_size": whole(low=0), "max_size": whole(low=0)}),
    "runtime_s": number,
    "execution": text(),
    "verification": obj({"passed": boolean, "model": text(), "details": mapping(anything),
                         "problems": listof(anything)}),
    "metrics": mapping(anything),
    "notes": listof(anything),
    "warnings": listof(anything),
})

PROJECT = obj({
    "format": text(choices=(FORMAT,)),
    "version": whole(low=0),  # a newer version than this anonstudio reads is refused by the caller
    "data": optional(obj({
        "path": text(path=True),
        "kind": text(choices=("table", "events", "fasta")),
        "read_options": optional(obj({
            "delimiter": optional(text(nonempty=True)), "encoding": optional(text(nonempty=True)),
            "missing": optional(_NAMES), "sequence_id": optional(text()), "event_order": optional(text()),
            "quasi_identifiers": optional(_NAMES), "sensitive": optional(text()), "identifying": optional(_NAMES),
            "alphabet": optional(text()), "label_pattern": optional(text()),
        })),
        "roles": optional(mapping(text(choices=_ROLES))),
        "types": optional(mapping(text(choices=_TYPES))),
        "person": optional(text(nonempty=True)),
    }, required=("path", "kind"))),
    "hierarchies": optional(mapping(obj({
        "rows": listof(listof(text(), nonempty=True), nonempty=True),
        "source": optional(one_of(text(path=True), mapping(anything), expected="a file path or a builder object")),
    }))),
    "method": optional(obj({"name": optional(text(nonempty=True)), "params": optional(mapping(anything))})),
    "release": optional(obj({
        "shuffle_rows": boolean, "shuffle_seed": optional(whole(low=0, high=2**63 - 1)),
        "release_log": optional(text(path=True)), "output": optional(text(path=True)),
        "report": optional(text(path=True)), "key_file": optional(text(path=True)),
        "key_fingerprint": optional(text()),
    }, extra=None)),
    "last_report": optional(REPORT),
    "history": optional(listof(obj({
        "number": whole(low=0),
        "time": optional(text()),
        "method": optional(text()),
        "parameters": optional(mapping(anything)),
        "report": REPORT,
    }, required=("number", "report")))),
}, required=("format",))


def validate_project(raw: Any, file: str | Path | None = None) -> dict[str, Any]:
    """``raw`` (parsed JSON) if it is a project file of a version this anonstudio reads, else
    :class:`ProjectError` naming ``file`` and the first key that is wrong."""
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ProjectError(f"not an anonstudio project (no \"format\": \"{FORMAT}\")", file=file, line=1)
    try:
        PROJECT(raw, "")
    except _Invalid as bad:
        got = "" if bad.value is None and bad.expected == "present" else f", got {_short(bad.value)}"
        what = "is missing" if bad.expected == "present" else f"must be {bad.expected}{got}"
        raise ProjectError(f"'{bad.key}' {what}", file=file, key=bad.key) from None
    version = raw.get("version", 0)
    if version > VERSION:
        raise ProjectError(f"project version {version} is newer than this anonstudio reads ({VERSION})", file=file,
                           key="version")
    return raw


def load_project_json(path: str | Path) -> dict[str, Any]:
    """Read, parse and validate a project file (:func:`validate_project`): UTF-8 text, nesting bounded before
    parsing, JSON syntax errors named by line."""
    from anonstudio.core.io._common import read_bytes

    path = Path(path)
    try:
        raw_bytes = read_bytes(path, ProjectError)
    except ProjectError as exc:
        if exc.message == "file not found":
            exc.message = "project file not found"
        raise
    try:
        text_ = raw_bytes.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw_bytes.count(b"\n", 0, exc.start) + 1
        raise ProjectError(f"project file is not UTF-8 text (byte 0x{raw_bytes[exc.start]:02x})", file=path,
                           line=line) from None
    check_nesting(text_, file=path, error=ProjectError, what="the project file", json=True)
    try:
        raw = json.loads(text_)
    except json.JSONDecodeError as exc:
        raise ProjectError(f"not valid JSON: {exc.msg} (column {exc.colno})", file=path, line=exc.lineno) from None
    except RecursionError:  # (nesting is bounded above; kept as a last guard)
        raise ProjectError(f"nests more than {MAX_NESTING} levels deep", file=path) from None
    except ValueError as exc:  # a number longer than Python reads (sys.get_int_max_str_digits)
        from anonstudio.core.limits import raise_for_long_number

        raise_for_long_number(text_, exc, file=path, error=ProjectError, what="the project file")
        raise
    return validate_project(raw, path)
