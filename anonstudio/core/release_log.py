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

Since issue 39 (item 9) the log holds nothing a reader without the user's release key (:mod:`anonstudio.core.keys`)
can test a guess against: an input is filed under a keyed digest of its content (HMAC-SHA256 under the key), and
each release keeps a **sketch** of its input's records — the :data:`SKETCH` smallest keyed 64-bit record hashes
(SipHash-2-4 keyed from the release key; a bottom-k / KMV sketch, Broder 1997, Bar-Yossef et al. 2002) and the
number of distinct records. No plaintext, no unkeyed hash: a record cannot be looked up in it. A new input whose
sketch shares most records with a logged one (:data:`OVERLAP_SHARE`, estimated from the two sketches) is warned about
naming the overlap: adding one row to a table made a new digest and hid the "published before" warning, and joining
the two releases re-identified 44 people. Entries made with another key cannot be compared (their hashes differ)
and are skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio._folders import data_dir
from anonstudio.core.data import EventLog, SequenceSet, Table
from anonstudio.core.errors import AnonStudioError

#: releases kept per input
KEEP = 50
#: how the warning about an earlier release of the same input begins
EARLIER = "this input was published before with other settings"
#: how the warning about a release of an overlapping input begins
OVERLAP = "this input overlaps a release published"
#: keyed record hashes kept per release (the bottom-k sketch): 256 estimate a share of 0.99 within about ±0.01
SKETCH = 256
#: the share of records (of the smaller input) two inputs must share for the overlap warning
OVERLAP_SHARE = 0.5


def release_log_path() -> Path:
    """Where anonstudio remembers what it exported from which input (its data folder,
    :func:`anonstudio._folders.data_dir`: ``$XDG_DATA_HOME/anonstudio`` on Linux)."""
    return data_dir() / "releases.json"


def record_hashes(data: Any, key: Any) -> np.ndarray | None:
    """:func:`_record_hashes`, remembered for the last few inputs (a publication needs them for the draws' seeds,
    the shuffle and the log)."""
    frame = getattr(data, "df", None)
    if frame is None:
        return _record_hashes(data, key)
    for ref, fingerprint, known in list(_HASHES):
        if ref() is frame and fingerprint == key.fingerprint:
            return known
    hashes = _record_hashes(data, key)
    if hashes is not None:
        _HASHES.append((weakref.ref(frame), key.fingerprint, hashes))
        del _HASHES[:-4]
    return hashes


_HASHES: list[tuple[Any, str, np.ndarray]] = []


def method_seed(key: Any, method: str, data: Any) -> int:
    """The seed of a method's draws (RA's redraws, SafePub's sampling, Anatomy's picks) for ``data``: from the
    release key, the method's name and the input's keyed digest — another input draws an independent stream."""
    return int(key.seed("method draws", method, keyed_digest(data, key) or ""))


def shuffle_seed_of(key: Any, method: str, parameters: dict[str, Any], data: Any, hierarchies: dict[str, Any]) -> int:
    """The seed of a release's row (sequence) order: from the release key, the input's keyed digest and the
    release's settings — two releases of one input with other settings get unrelated orders (their rows do not
    line up by position)."""
    params = {k: v for k, v in (parameters or {}).items() if k != "seed"}
    settings = settings_digest({"algorithm": method, "parameters": params}, data, hierarchies)
    return int(key.seed("output order", keyed_digest(data, key) or "", settings))


def _record_hashes(data: Any, key: Any) -> np.ndarray | None:
    """One keyed 64-bit hash per record of ``data`` (``key``: a :class:`~anonstudio.core.keys.ReleaseKey`): each
    cell of a table's or event log's row as text (missing cells as one token) hashed by SipHash-2-4 under a key
    derived from the release key, then the row's cell hashes *sorted* and hashed together — so the columns' order
    and names do not make other records (an attacker hunt published one table twice, its columns reordered, and no
    overlap was seen); identifying columns (the person column among them) are left out, as no release publishes
    them (an extra export-id column made the same records look new). A FASTA set's strings are hashed by
    HMAC-SHA256. Without the key no hash can be computed, so none can be matched against a guessed record."""
    if isinstance(data, (Table, EventLog)):
        frame = data.df
        dropped = set(getattr(data, "identifying", None) or []) if isinstance(data, Table) else set()
        columns = [c for c in frame.columns if c not in dropped] or list(frame.columns)
        cell_key = key.hash_key("release-log cells")
        cells = np.empty((len(frame), len(columns)), dtype=np.uint64)
        for j, c in enumerate(columns):
            text = frame[c].astype("string").fillna("\x00NA")
            cells[:, j] = pd.util.hash_pandas_object(text, index=False, hash_key=cell_key).to_numpy(dtype=np.uint64)
        cells.sort(axis=1)
        rows = pd.DataFrame(cells)
        hashed = pd.util.hash_pandas_object(rows, index=False, hash_key=key.hash_key("release-log records"))
        out: np.ndarray = hashed.to_numpy(dtype=np.uint64)
        return out
    if isinstance(data, SequenceSet):
        return np.array([int.from_bytes(key.mac("release-log sequence", s)[:8], "big") for s in data.strings()],
                        dtype=np.uint64)
    return None


def keyed_digest(data: Any, key: Any, hashes: np.ndarray | None = None) -> str | None:
    """The release log's name for an input: HMAC-SHA256 under the release key of its sorted record hashes (row
    order and file layout do not make a new input; nobody without the key can test a guessed table against it)."""
    hashes = record_hashes(data, key) if hashes is None else hashes
    if hashes is None:
        return None
    return str(key.mac("release-log input", np.sort(hashes).tobytes()).hex())


def sketch_of(hashes: np.ndarray) -> tuple[list[str], int]:
    """The bottom-:data:`SKETCH` sketch of a set of record hashes (its smallest distinct values, as hex) and the
    number of distinct records."""
    distinct = np.unique(hashes)
    return [f"{int(v):016x}" for v in distinct[:SKETCH]], int(len(distinct))


def shared_records(a: list[str], n_a: int, b: list[str], n_b: int) -> float:
    """The estimated number of records two inputs share, from their bottom-k sketches (Broder's resemblance on the
    k smallest hashes of the union, Beyer et al. 2007 §4): exact when both inputs fit in their sketches."""
    set_a, set_b = set(a), set(b)
    if n_a <= len(set_a) and n_b <= len(set_b):
        return float(len(set_a & set_b))
    k = min(len(set_a), len(set_b))
    if k == 0:
        return 0.0
    union = sorted(set_a | set_b)[:k]
    both = sum(1 for v in union if v in set_a and v in set_b)
    resemblance = both / k
    return resemblance * (n_a + n_b) / (1.0 + resemblance)


def settings_digest(report: dict[str, Any], data: Any, hierarchies: dict[str, Any]) -> str:
    """A digest of what shapes a release: method, parameters, roles and every hierarchy's content."""
    from anonstudio.core.io import to_jsonable

    params = dict(report.get("parameters") or {})  # the seed too: another draw can be intersected as well
    hier = {str(a): [list(r) for r in getattr(h, "rows", [])] for a, h in sorted(hierarchies.items())}
    settings = {"algorithm": report.get("algorithm"), "parameters": to_jsonable(params),
                # the key of a method's draws: another key draws another release of the same input
                "key": (report.get("key") or {}).get("fingerprint") if isinstance(report.get("key"), dict) else None,
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


def _key(key: Any) -> Any:
    if key is not None:
        return key
    from anonstudio.core.keys import load_key

    return load_key(create=True)


def earlier_releases(data: Any, report: dict[str, Any], hierarchies: dict[str, Any], output_path: Path,
                     log_path: Path | None = None, *, key: Any = None) -> list[str]:
    """Warnings about earlier releases of this input with other settings, and about releases of an input that
    shares most of its records with this one (none if neither was published), from the log at ``log_path``
    (default :func:`release_log_path`). ``key``: the release key (default: the user's, made on first use)."""
    from anonstudio.core.keys import kept_keys

    key = _key(key)
    problems: list[str] = []
    log = _read_log(log_path, problems)  # a damaged log is said, never silently reset
    settings = settings_digest(report, data, hierarchies)
    out: list[str] = problems
    earlier: list[dict[str, Any]] = []
    overlap = None
    for each in [key, *kept_keys(key)]:  # a rotated key's releases are found under the key kept beside it
        hashes = record_hashes(data, each)
        if hashes is None:
            return out
        digest = str(keyed_digest(data, each, hashes))
        earlier += [e for e in log.get(digest, []) if isinstance(e, dict) and e.get("settings") != settings]
        found = _overlapping(log, digest, hashes, each.fingerprint)
        if found is not None and (overlap is None or found[0] > overlap[0]):
            overlap = found
    if earlier:
        last = earlier[-1]
        out.append(f"{EARLIER} ({last.get('summary', '?')} → "
                   f"{Path(str(last.get('output', '?'))).name}): two releases of one input can be lined up and "
                   "intersected, leaving some people in classes smaller than k; publish one of them only")
    if overlap is not None:
        share_here, share_there, entry = overlap
        out.append(f"{OVERLAP} {entry.get('published', '?')} to {Path(str(entry.get('output', '?'))).name} "
                   f"({entry.get('summary', '?')}): they share about {_percent(share_here)} % of this input's records "
                   f"({_percent(share_there)} % of that release's); two releases of overlapping inputs can be joined "
                   "on the shared records, leaving some people in classes smaller than k (or their values certain); "
                   "publish one of them only")
    return out


def _percent(share: float) -> str:
    value = 100.0 * min(1.0, max(0.0, share))
    return f"{value:.0f}" if value >= 1 else f"{value:.1f}"


def _overlapping(log: dict[str, Any], digest: str, hashes: np.ndarray,
                 fingerprint: str) -> tuple[float, float, dict[str, Any]] | None:
    """The logged release (of another input, under the same key) sharing the largest share of records with this
    input, if that share (of the smaller of the two) reaches :data:`OVERLAP_SHARE`: (share of this input's records,
    share of that input's, its entry)."""
    sketch, n = sketch_of(hashes)
    best: tuple[float, float, dict[str, Any]] | None = None
    best_share = OVERLAP_SHARE
    for other, entries in log.items():
        if other == digest or not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, dict) or entry.get("key") != fingerprint:
                continue
            theirs, n_theirs = entry.get("sketch"), entry.get("records")
            if not isinstance(theirs, list) or not isinstance(n_theirs, int) or n_theirs <= 0 or n <= 0:
                continue
            shared = shared_records(sketch, n, [str(v) for v in theirs], n_theirs)
            share = shared / min(n, n_theirs)
            if share >= best_share:
                best_share = share
                best = (shared / n, shared / n_theirs, entry)
    return best


def record_release(data: Any, report: dict[str, Any], hierarchies: dict[str, Any], output_path: Path,
                   log_path: Path | None = None, *, key: Any = None) -> None:
    """Add a published release to the log at ``log_path`` (default :func:`release_log_path`; called after the
    publication committed): filed under the input's keyed digest, with the key's fingerprint, the date, the
    settings' digest and the sketch of the input's keyed record hashes. A log that cannot be written is skipped: it
    is a help, not a condition of publishing."""
    from datetime import date

    from anonstudio.core.io import to_jsonable, write_json

    key = _key(key)
    hashes = record_hashes(data, key)
    if hashes is None:
        return
    digest = str(keyed_digest(data, key, hashes))
    sketch, n = sketch_of(hashes)
    log = _read_log(log_path)
    entry = {"settings": settings_digest(report, data, hierarchies), "output": str(output_path),
             "published": date.today().isoformat(), "key": key.fingerprint, "records": n, "sketch": sketch,
             # quoted in a later release's warnings, so never the seed (a key of the draws, kept in the job only)
             "summary": f"{report.get('algorithm')} "
                        f"{to_jsonable({k: v for k, v in (report.get('parameters') or {}).items() if k != 'seed'})}"}
    entries = [e for e in log.get(digest, []) if isinstance(e, dict) and e.get("output") != str(output_path)]
    log[digest] = (entries + [entry])[-KEEP:]
    try:
        write_json(log, release_log_path() if log_path is None else Path(log_path))
    except AnonStudioError:
        pass
