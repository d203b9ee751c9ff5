"""The release log: what anonstudio published from which input, so a second release of the same data with
other settings is warned about (issue 11 #16, issue 28 item 7).

Two releases of one input can be lined up and intersected (rows by position, or records by their untouched
columns): a record in a class of k under one hierarchy and in a class of k under another may be alone in the
intersection. The log keeps, per input, a digest of its *parsed content* (row order, quoting, line endings
and trailing blank lines do not make a new input) and, per release, a digest of the settings that shape the
release: the method, its parameters, the quasi-identifiers, the sensitive columns and every hierarchy's
content. It is the user's own file — where the job says (``output.release_log``), else
``$XDG_DATA_HOME/anonstudio/releases.json`` —, holds no data, and is written only after a release has been
published.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, SequenceSet, Table
from anonstudio.core.errors import AnonStudioError

#: releases kept per input
KEEP = 50
#: how the warning about an earlier release of the same input begins
EARLIER = "this input was published before with other settings"


def release_log_path() -> Path:
    """Where anonstudio remembers what it exported from which input (``$XDG_DATA_HOME/anonstudio``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "anonstudio" / "releases.json"


def content_digest(data: Any) -> str | None:
    """SHA-256 of an input's parsed content, independent of row (record) order and of how the file spells its
    layout: the rows of a table or event log as text (missing cells as one token), the sequences of a FASTA
    set (headers left out: a renamed record is the same person's data)."""
    h = hashlib.sha256()
    if isinstance(data, (Table, EventLog)):
        frame = data.df
        h.update(json.dumps([str(c) for c in frame.columns]).encode())
        text = frame.astype("string").fillna("\x00NA")
        rows = pd.util.hash_pandas_object(text, index=False).to_numpy(dtype=np.uint64)
        h.update(np.sort(rows).tobytes())
        return h.hexdigest()
    if isinstance(data, SequenceSet):
        for s in sorted(data.strings()):
            h.update(s.encode("utf-8", "surrogatepass") + b"\n")
        return h.hexdigest()
    return None


def settings_digest(report: dict[str, Any], data: Any, hierarchies: dict[str, Any]) -> str:
    """A digest of what shapes a release: method, parameters, roles and every hierarchy's content."""
    from anonstudio.core.io import to_jsonable

    params = dict(report.get("parameters") or {})  # the seed too: another draw can be intersected as well
    hier = {str(a): [list(r) for r in getattr(h, "rows", [])] for a, h in sorted(hierarchies.items())}
    settings = {"algorithm": report.get("algorithm"), "parameters": to_jsonable(params),
                "quasi_identifiers": list(getattr(data, "quasi_identifiers", []) or []),
                "sensitive": list(_sensitive(data)), "hierarchies": hier}
    return hashlib.sha256(json.dumps(settings, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _sensitive(data: Any) -> list[str]:
    value = getattr(data, "sensitive", None)
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _read_log(path: Path | None = None, problems: list[str] | None = None) -> dict[str, Any]:
    """The log (``{}`` if there is none or it cannot be read). A damaged log (not JSON, not an object) is kept
    aside as ``<name>.damaged-<time>`` (a new one is started) and ``problems`` gets a sentence saying so: it was
    silently reset, and the releases it recorded forgotten (issue 44 item 10)."""
    path = release_log_path() if path is None else Path(path)
    try:
        log = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except OSError:
        return {}
    except ValueError as exc:
        why = f"not JSON: {exc}" if not isinstance(exc, UnicodeDecodeError) else "not UTF-8 text"
        log = None
    else:
        why = "not a JSON object"
    if isinstance(log, dict):
        return log
    import time

    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
    try:
        os.replace(path, aside)
        kept = f"kept aside as {aside}"
    except OSError as exc:
        kept = f"left in place (it cannot be moved aside: {exc.strerror or exc})"
    if problems is not None:
        problems.append(f"the release log {path} is damaged ({why}); it is {kept} and a new log is started: releases "
                        "recorded in it are not checked against this one")
    return {}


def earlier_releases(data: Any, report: dict[str, Any], hierarchies: dict[str, Any], output_path: Path,
                     log_path: Path | None = None) -> list[str]:
    """Warnings about earlier releases of this input with other settings (none if it was never published, or
    only with these settings), from the log at ``log_path`` (default :func:`release_log_path`)."""
    digest = content_digest(data)
    if digest is None:
        return []
    settings = settings_digest(report, data, hierarchies)
    problems: list[str] = []
    log = _read_log(log_path, problems)
    earlier = [e for e in log.get(digest, []) if isinstance(e, dict) and e.get("settings") != settings]
    if not earlier:
        return problems
    last = earlier[-1]
    return problems + [f"{EARLIER} ({last.get('summary', '?')} → "
            f"{Path(str(last.get('output', '?'))).name}): two releases of one input can be lined up and intersected, "
            "leaving some people in classes smaller than k; publish one of them only"]


def record_release(data: Any, report: dict[str, Any], hierarchies: dict[str, Any], output_path: Path,
                   log_path: Path | None = None) -> None:
    """Add a published release to the log at ``log_path`` (default :func:`release_log_path`; called after the
    publication committed). A log that cannot be written is skipped: it is a help, not a condition of
    publishing."""
    from anonstudio.core.io import to_jsonable, write_json

    digest = content_digest(data)
    if digest is None:
        return
    log = _read_log(log_path)
    entry = {"settings": settings_digest(report, data, hierarchies), "output": str(output_path),
             # quoted in a later release's warnings, so never the seed (a key of the draws, kept in the job only)
             "summary": f"{report.get('algorithm')} "
                        f"{to_jsonable({k: v for k, v in (report.get('parameters') or {}).items() if k != 'seed'})}"}
    entries = [e for e in log.get(digest, []) if isinstance(e, dict) and e.get("output") != str(output_path)]
    log[digest] = (entries + [entry])[-KEEP:]
    try:
        write_json(log, release_log_path() if log_path is None else Path(log_path))
    except AnonStudioError:
        pass
