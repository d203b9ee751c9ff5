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
from anonstudio.core import io
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
#: the share for inputs one column apart: records less a column repeat by chance far more often than whole ones
#: (two unrelated Adult-like tables of 2,000 and 3,000 rows share 16 % of their whole records and 40 % less
#: ``age``), and a genuine republication one column apart shares about 100 %
APART_SHARE = 0.8
#: the format of the entries this version writes: 1 (no ``format`` key) kept the sorted-cell sketch only; 2 adds the
#: summed-cell sketches, whole and with each column left out (:func:`column_sketches`)
FORMAT = 2


def release_log_path() -> Path:
    """Where anonstudio remembers what it exported from which input (its data folder,
    :func:`anonstudio._folders.data_dir`: ``$XDG_DATA_HOME/anonstudio`` on Linux)."""
    return data_dir() / "releases.json"


def record_hashes(data: Any, key: Any) -> np.ndarray | None:
    """:func:`_record_hashes`, remembered for the last few inputs (a publication needs them for the draws' seeds,
    the shuffle and the log)."""
    hashes: np.ndarray | None = _remembered("records", data, key, _record_hashes)
    return hashes


def column_sketches(data: Any, key: Any) -> dict[str, Any] | None:
    """:func:`_column_sketches`, remembered for the last few inputs (the log's warning and its entry need them)."""
    sketches: dict[str, Any] | None = _remembered("columns", data, key, _column_sketches)
    return sketches


def _remembered(kind: str, data: Any, key: Any, compute: Any) -> Any:
    frame = getattr(data, "df", None)
    if frame is None:
        return compute(data, key)
    for ref, fingerprint, what, known in list(_HASHES):
        if ref() is frame and fingerprint == key.fingerprint and what == kind:
            return known
    value = compute(data, key)
    if value is not None:
        _HASHES.append((weakref.ref(frame), key.fingerprint, kind, value))
        del _HASHES[:-8]
    return value


_HASHES: list[tuple[Any, str, str, Any]] = []


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
        cells = _cell_hashes(data, key)
        cells.sort(axis=1)
        rows = pd.DataFrame(cells)
        hashed = pd.util.hash_pandas_object(rows, index=False, hash_key=key.hash_key("release-log records"))
        out: np.ndarray = hashed.to_numpy(dtype=np.uint64)
        return out
    if isinstance(data, SequenceSet):
        return np.array([int.from_bytes(key.mac("release-log sequence", s)[:8], "big") for s in data.strings()],
                        dtype=np.uint64)
    return None


def _cell_hashes(data: Table | EventLog, key: Any) -> np.ndarray:
    """The keyed SipHash-2-4 of every published cell of ``data`` as text (rows × columns, identifying columns left
    out; missing cells as one token)."""
    frame = data.df
    dropped = set(getattr(data, "identifying", None) or []) if isinstance(data, Table) else set()
    columns = [c for c in frame.columns if c not in dropped] or list(frame.columns)
    cell_key = key.hash_key("release-log cells")
    cells = np.empty((len(frame), len(columns)), dtype=np.uint64)
    for j, c in enumerate(columns):
        text = frame[c].astype("string").fillna("\x00NA")
        cells[:, j] = pd.util.hash_pandas_object(text, index=False, hash_key=cell_key).to_numpy(dtype=np.uint64)
    return cells


def _mixed(sums: np.ndarray, salt: int) -> np.ndarray:
    """A keyed bijection of 64-bit values (``salt`` xor-ed in, then SplitMix64's finalizer, Steele et al. 2014):
    the sketches keep no sum of cell hashes, so no two stored values differ by one cell's hash."""
    with np.errstate(over="ignore"):
        z = sums ^ np.uint64(salt)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _column_sketches(data: Any, key: Any) -> dict[str, Any] | None:
    """The format-2 part of a release's log entry (issue 39, the leave-one-column-out hunt): a table's records
    hashed as the *sum* modulo 2^64 of their keyed cell hashes (an order-independent combination, as sorting was,
    but one a column can be taken out of by a subtraction) and mixed under the key, as a bottom-:data:`SKETCH`
    sketch with its number of distinct records (``sketch``, ``records``), and the same for the records with each
    column left out (``without_one``: one per column, kept while at least two columns remain and leaving a column
    out keeps at least half the distinct records — a column whose removal merges most records says too little to
    compare). Two releases one column apart (dropped, added or changed) then share the one's whole records with the
    other's records without a column, or both without a column. ``None`` for FASTA sets (no columns)."""
    if not isinstance(data, (Table, EventLog)) or not len(data.df):
        return None
    cells = _cell_hashes(data, key)
    salt = int.from_bytes(key.mac("release-log column sums")[:8], "big")
    with np.errstate(over="ignore"):
        sums = cells.sum(axis=1, dtype=np.uint64)
    sketch, n = sketch_of(_mixed(sums, salt))
    without: list[dict[str, Any]] = []
    if cells.shape[1] >= 3:
        for j in range(cells.shape[1]):
            with np.errstate(over="ignore"):
                part, n_part = sketch_of(_mixed(sums - cells[:, j], salt))
            if 2 * n_part >= n:
                without.append({"records": n_part, "sketch": part})
    return {"records": n, "sketch": sketch, "without_one": without}


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
    ordered = np.sort(hashes)  # sorted and compared with the next (np.unique was 100× slower on 10^6 uint64)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    distinct = ordered[first]
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
        found = _overlapping(log, digest, hashes, each.fingerprint, column_sketches(data, each))
        if found is not None and (overlap is None or found[0] > overlap[0]):
            overlap = found
    if earlier:
        last = earlier[-1]
        out.append(f"{EARLIER} ({last.get('summary', '?')} → "
                   f"{Path(str(last.get('output', '?'))).name}): two releases of one input can be lined up and "
                   "intersected, leaving some people in classes smaller than k; publish one of them only")
    if overlap is not None:
        share_here, share_there, entry, apart = overlap
        records = "records, one column apart (dropped, added or changed)," if apart else "records"
        out.append(f"{OVERLAP} {entry.get('published', '?')} to {Path(str(entry.get('output', '?'))).name} "
                   f"({entry.get('summary', '?')}): they share about {_percent(share_here)} % of this input's {records} "
                   f"({_percent(share_there)} % of that release's); two releases of overlapping inputs can be joined "
                   "on the shared records, leaving some people in classes smaller than k (or their values certain); "
                   "publish one of them only")
    return out


def _percent(share: float) -> str:
    value = 100.0 * min(1.0, max(0.0, share))
    return f"{value:.0f}" if value >= 1 else f"{value:.1f}"


def _overlapping(log: dict[str, Any], digest: str, hashes: np.ndarray, fingerprint: str,
                 columns: dict[str, Any] | None = None) -> tuple[float, float, dict[str, Any], bool] | None:
    """The logged release (of another input, under the same key) sharing the largest share of records with this
    input, if that share (of the smaller of the two) reaches :data:`OVERLAP_SHARE`: (share of this input's records,
    share of that input's, its entry, whether the two are one column apart). ``columns``: this input's
    :func:`column_sketches`, compared with entries of format 2 — this input's whole records with theirs less a
    column (a column dropped), this input's less a column with their whole ones (a column added), and both less a
    column (a column changed or replaced)."""
    sketch, n = sketch_of(hashes)
    found: list[tuple[bool, float, tuple[float, float, dict[str, Any], bool]]] = []
    mine = _sketches(columns)
    for other, entries in log.items():
        if other == digest or not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, dict) or entry.get("key") != fingerprint:
                continue
            pairs = []
            theirs, n_theirs = entry.get("sketch"), entry.get("records")
            if isinstance(theirs, list) and isinstance(n_theirs, int) and n_theirs > 0 and n > 0:
                pairs.append(((sketch, n), ([str(v) for v in theirs], n_theirs), False))
            if mine is not None and isinstance(entry.get("format"), int) and entry["format"] >= 2:
                logged = _sketches(entry.get("columns"))
                if logged is not None:
                    pairs += [(mine[0], w, True) for w in logged[1]] + [(w, logged[0], True) for w in mine[1]]
                    pairs += [(w, v, True) for w in mine[1] for v in logged[1]]
            for (a, n_a), (b, n_b), apart in pairs:
                shared = shared_records(a, n_a, b, n_b)
                share = shared / min(n_a, n_b)
                if share >= (APART_SHARE if apart else OVERLAP_SHARE):
                    found.append((not apart, share, (shared / n_a, shared / n_b, entry, apart)))
    # whole records shared are said as such, whatever the estimates one column apart; then the largest share
    return max(found, key=lambda f: (f[0], f[1]))[2] if found else None


Sketch = tuple[list[str], int]


def _sketches(columns: Any) -> tuple[Sketch, list[Sketch]] | None:
    """A format-2 ``columns`` part read defensively (a hand-edited log holds anything): the whole records' sketch
    and the sketches without one column; ``None`` if it is not one."""
    def one(part: Any) -> Sketch | None:
        if not isinstance(part, dict):
            return None
        values, n = part.get("sketch"), part.get("records")
        if not isinstance(values, list) or not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            return None
        return [str(v) for v in values], n

    if not isinstance(columns, dict):
        return None
    whole = one(columns)
    if whole is None:
        return None
    parts = columns.get("without_one")
    without = [s for s in (one(p) for p in (parts if isinstance(parts, list) else [])) if s is not None]
    return whole, without


def record_release(data: Any, report: dict[str, Any], hierarchies: dict[str, Any], output_path: Path,
                   log_path: Path | None = None, *, key: Any = None) -> None:
    """Add a published release to the log at ``log_path`` (default :func:`release_log_path`): :func:`log_entry`, then
    :func:`append_entry`. A publication does not call this: it hands :func:`log_entry` to its journal
    (``Publication.commit(after=…)``), so a run stopped between the swap and the log has its entry written by the
    recovery that completes its publication."""
    record = log_entry(data, report, hierarchies, output_path, log_path, key=key)
    if record is not None:
        append_entry(record)


def log_entry(data: Any, report: dict[str, Any], hierarchies: dict[str, Any], output_path: Path,
              log_path: Path | None = None, *, key: Any = None) -> dict[str, Any] | None:
    """A published release's log entry, as the journal carries it (``{"kind": "release-log", "log", "digest",
    "entry"}``; ``None`` for data that has no record hashes): filed under the input's keyed digest, with the key's
    fingerprint, the date, the settings' digest and the sketch of the input's keyed record hashes."""
    from datetime import date

    from anonstudio.core.io import to_jsonable

    key = _key(key)
    hashes = record_hashes(data, key)
    if hashes is None:
        return None
    sketch, n = sketch_of(hashes)
    entry = {"settings": settings_digest(report, data, hierarchies), "output": str(output_path),
             "published": date.today().isoformat(), "key": key.fingerprint, "records": n, "sketch": sketch,
             # format 2 (issue 39): the summed-cell sketches, whole and with each column left out; a format-1 entry
             # (without them) is still read and compared on its whole records
             "format": FORMAT, "columns": column_sketches(data, key),
             # quoted in a later release's warnings, so never the seed (a key of the draws, kept in the job only)
             "summary": f"{report.get('algorithm')} "
                        f"{to_jsonable({k: v for k, v in (report.get('parameters') or {}).items() if k != 'seed'})}"}
    path = release_log_path() if log_path is None else Path(log_path)
    return {"kind": JOURNAL_KIND, "log": str(path), "digest": str(keyed_digest(data, key, hashes)), "entry": entry}


#: the journal's name for the release log's step (:func:`anonstudio.core.io.after_swap`)
JOURNAL_KIND = "release-log"
#: how long a run waits for another run holding the log's lock before it skips the log (it is a help)
LOG_LOCK_WAIT_SECONDS = 30.0


def append_entry(record: dict[str, Any]) -> None:
    """Append :func:`log_entry`'s entry to its log: read, add (an earlier entry for the same output replaced, so doing
    it twice — the run, then a recovery — adds it once), keep the last :data:`KEEP`, write atomically — all under an
    exclusive lock on ``<log>.lock`` beside it, so two runs sharing one log never lose an entry. A record this module
    did not write (a journal is a file anyone can write) is refused: its log must be a ``.json`` file that is absent
    or already a release log. A log that cannot be locked or written is skipped: it is a help, not a condition of
    publishing."""
    from anonstudio.core.io import write_json

    path, digest, entry = Path(str(record.get("log"))), record.get("digest"), record.get("entry")
    if record.get("kind") != JOURNAL_KIND or path.suffix != ".json" or not isinstance(digest, str) \
            or not isinstance(entry, dict) or not isinstance(entry.get("output"), str):
        return
    with _log_lock(path) as locked:
        if not locked:
            return
        if path.is_file() and not _is_log(path):
            return  # not a release log (a journal naming another file): never overwritten
        log = _read_log(path)
        entries = [e for e in log.get(digest, []) if isinstance(e, dict) and e.get("output") != entry["output"]]
        log[digest] = (entries + [entry])[-KEEP:]
        try:
            write_json(log, path)
        except AnonStudioError:
            pass


def _is_log(path: Path) -> bool:
    """Whether ``path`` holds a release log (a JSON object of lists) — or something damaged, which
    :func:`_read_log` keeps aside."""
    try:
        log = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True  # unreadable or damaged: _read_log sets it aside and says so
    return not isinstance(log, dict) or all(isinstance(v, list) for v in log.values())


class _log_lock:
    """An exclusive ``flock`` on ``<log>.lock`` (made beside the log), waited for at most
    :data:`LOG_LOCK_WAIT_SECONDS`; yields whether the log may be written (``True`` where files cannot be locked:
    no ``fcntl``, a file system without locks)."""

    def __init__(self, path: Path) -> None:
        self.lock = path.with_name(path.name + ".lock")
        self.fd: int | None = None

    def __enter__(self) -> bool:
        import time

        try:
            import fcntl
        except ImportError:  # Windows: no flock
            return True
        try:
            self.lock.parent.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return True
        deadline = time.monotonic() + LOG_LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.05)
            except OSError:  # a file system without locks
                return True

    def __exit__(self, *exc: Any) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


io.after_swap(JOURNAL_KIND, append_entry)  # a publication's journal carries the log's entry (log_entry)
