"""Atomic output, and the journaled publication of a release (issue 29).

**One file** (:func:`atomic_write`): written completely under a staging name beside the target, flushed to
disk, then renamed over the target — a reader sees the old file or the whole new one.

**A release** — an output, its side tables (Anatomy's sensitive table) and its report — is published by
:class:`Publication`, modelled on a database's commit with a rollback journal (SQLite's ``-journal`` file,
https://www.sqlite.org/atomiccommit.html):

1. *Lock*: the run takes an exclusive lock (``flock``) on every folder it publishes in; a second run to the
   same folder waits for it (:data:`LOCK_WAIT_SECONDS` at most, then it is refused with a message). Holding
   the lock, it first recovers what an earlier run left there (steps 5 and 6).
2. *Stage*: every file of the release is written completely under a staging name (:data:`STAGING_PREFIX`,
   the writer's pid, a random token, the target's name — so its extension is kept) and flushed to disk.
3. *Journal*: each existing target gets a backup (a hard link, else a copy) under a staging name; then a
   journal (:data:`JOURNAL_PREFIX` …``.json``, written whole and renamed into place) names, for every target,
   its staged file, its backup and the identity (device, inode, size, time) of the new file.
4. *Swap*: the old report is removed first (its backup keeps it), the staged files are renamed over their
   targets, the report last — so a report beside an output always belongs to it. A stop signal (Ctrl-C,
   SIGTERM, SIGHUP, SIGQUIT) arriving now is held until the swap is done, and then the swap is undone: a
   cancelled run publishes nothing. Any failure (a full disk, an immutable file, an I/O error) rolls the swap
   back at once. Then the backups are removed, and the journal last.
5. *Recovery*: a journal found later belongs to a run that died during the swap (kill -9, power loss). If every
   target holds its new file the swap had finished: it is rolled forward (backups and journal removed);
   otherwise it is rolled back — each target whose new file is in place (or that is missing) gets its backup
   again, the report last. The next publication to the folder, ``anonstudio verify`` and the workbench's open do
   this (:func:`recover`).
6. *Stale staging files* of earlier runs (any age, any name with :data:`STAGING_PREFIX`) are removed by the
   next run holding the folder's lock: every writer holds that lock (shared, for single files) while its
   staging files exist, so none of them belongs to a live run. Without the lock (a file system without
   ``flock``) only files whose pid is no longer running are removed.

A folder whose files cannot be removed or renamed (append-only, immutable) is refused before anything is
written there (:mod:`._folder_flags`): each run would otherwise leave a staging file behind.

Write errors a user can cause (a read-only folder, a full disk, a name too long) become one
:class:`~anonstudio.core.errors.OutputError` naming the file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from anonstudio.core.errors import AnonStudioError, OutputError
from anonstudio.core.io._folder_flags import refuse_undeletable
from anonstudio.core.progress import raise_deferred_stop, stop_pending, stops_deferred

try:
    import fcntl
except ImportError:  # Windows: no flock; staging files are then judged by their pid only
    fcntl = None  # type: ignore[assignment]

#: every staging file (a file being written, a staged release file, a backup) starts with this
STAGING_PREFIX = ".anonstudio.part."
#: a publication's journal: ``.anonstudio.journal.<pid>.<token>.json`` in the output's folder
JOURNAL_PREFIX = ".anonstudio.journal."
#: how long a run waits for another run publishing in the same folder before it is refused
LOCK_WAIT_SECONDS = 120.0
#: hidden ``.<name>.<random>.part`` files of earlier versions (no pid in their names) older than this are left
#: over by a crash and removed
STALE_LEGACY_SECONDS = 600
_NAME_MAX = 255
_LEGACY = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.part(\..*)?$")

#: folders (real paths) this process publishes in now, holding their exclusive lock
_PUBLISHING: dict[str, int] = {}
#: staging files this process uses now, as absolute paths (never removed as stale by its own clean-ups)
_ACTIVE: set[str] = set()
#: journals of this process's publications in progress (never recovered by this process)
_OWN_JOURNALS: set[str] = set()
_GUARD = threading.Lock()
#: what a publication completes after its swap, by kind (:func:`after_swap`): the journal carries the step, so a
#: run stopped between the swap and that step has it completed by the recovery that rolls the swap forward
_AFTER_SWAP: dict[str, Any] = {}


def after_swap(kind: str, complete: Any) -> None:
    """Register ``complete(payload: dict) -> None``, the step a publication's journal may carry (``Publication.commit(
    after={"kind": kind, ...})``) and that runs after the swap, before the journal is removed — in the publishing
    run, or in the recovery that rolls an interrupted swap forward. It must be idempotent and must refuse a payload
    it did not write (a journal is a file anyone who delivers a folder can write)."""
    _AFTER_SWAP[kind] = complete


def _complete_after(after: Any) -> None:
    """Run the journaled after-swap step (a help, never a condition of the release: its failure is left out)."""
    if not isinstance(after, dict):
        return
    complete = _AFTER_SWAP.get(str(after.get("kind")))
    if complete is not None:
        with contextlib.suppress(Exception):
            complete(after)


def _output_error(exc: OSError, path: Path) -> OutputError:
    reason = exc.strerror or str(exc)
    return OutputError(f"cannot write: {reason}", file=path)


# ---------------------------------------------------------------------------------------------------------
# names
def staging_name(name: str, tag: str = "", *, pid: int | None = None) -> str:
    """``.anonstudio.part.<pid>.<token>.<tag><name>``, the name shortened before its extension if the whole would
    be longer than a file name may be (the extension kept: writers choose the format by it). The token is 8 random
    hex digits and 8 of a checksum over the pid, them and the rest of the name (:func:`made_here`): a file that
    merely starts with the prefix — a user's input, a file someone named so — is never taken for staging."""
    pid = os.getpid() if pid is None else int(pid)
    random_part = secrets.token_hex(4)
    head = f"{STAGING_PREFIX}{pid}.{random_part}{'0' * 8}."
    room = _NAME_MAX - len((head + tag).encode())
    if len(name.encode()) > room:
        suffix = Path(name).suffix if len(Path(name).suffix.encode()) <= 16 else ""
        stem = name[: len(name) - len(suffix)]
        while stem and len((stem + "~" + suffix).encode()) > room:
            stem = stem[:-1]
        name = stem + "~" + suffix
    rest = tag + name
    return f"{STAGING_PREFIX}{pid}.{random_part}{_check(pid, random_part, rest)}.{rest}"


def _check(pid: int, random_part: str, rest: str) -> str:
    import hashlib

    text = f"{pid}.{random_part}.{rest}".encode("utf-8", "surrogateescape")
    return hashlib.blake2b(text, digest_size=4, person=b"anonstudio-part").hexdigest()


_STAGING = re.compile(r"^" + re.escape(STAGING_PREFIX) + r"([0-9]{1,10})\.([0-9a-f]{8})([0-9a-f]{8})\.(.+)$", re.S)


def made_here(name: str) -> bool:
    """Whether ``name`` is a staging file name anonstudio made (:func:`staging_name`: its token's checksum holds),
    not just one that starts with :data:`STAGING_PREFIX` (issue 44 item 10: an input named so was removed as
    stale staging). Only such files are ever removed as stale."""
    m = _STAGING.match(name)
    return bool(m) and _check(int(m.group(1)), m.group(2), m.group(4)) == m.group(3)


def _pid_of(name: str) -> int | None:
    for prefix in (STAGING_PREFIX, JOURNAL_PREFIX):
        if name.startswith(prefix):
            head = name[len(prefix):].split(".", 1)[0]
            return int(head) if head.isdigit() else None
    return None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # another user's process (or no way to tell): assume it lives
    return True


def _ident(st: os.stat_result) -> list[int]:
    """What tells a file apart from any other: device, inode, size, modification time (ns)."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def _ident_of(path: str | Path) -> list[int] | None:
    try:
        return _ident(os.lstat(path))
    except FileNotFoundError:
        return None


# ---------------------------------------------------------------------------------------------------------
# locks
def _lock_folder(folder: Path, *, exclusive: bool, wait: float) -> int | None:
    """Open ``folder`` and ``flock`` it (exclusive or shared), waiting at most ``wait`` seconds; the open file
    descriptor holds the lock (closing it releases it). ``None`` where folders cannot be locked (no ``flock``,
    a file system without locks, a folder that cannot be opened)."""
    if fcntl is None:
        return None
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    deadline = time.monotonic() + wait
    delay = 0.005
    try:
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise OutputError(
                        f"another anonstudio process is publishing in this folder (waited {wait:g} s): try again when "
                        "it has finished", file=folder) from None
                time.sleep(delay)
                delay = min(0.1, delay * 2)
            except OSError:  # ENOLCK, EOPNOTSUPP, EBADF: a file system without locks
                os.close(fd)
                return None
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise


def _unlock(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


@contextlib.contextmanager
def _shared_lock(folder: Path) -> Iterator[None]:
    """A single file's writer holds its folder's lock shared (unless this process publishes there now)."""
    with _GUARD:
        publishing = os.path.realpath(folder) in _PUBLISHING
    fd = None if publishing else _lock_folder(folder, exclusive=False, wait=LOCK_WAIT_SECONDS)
    try:
        yield
    finally:
        _unlock(fd)


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------------------
# stale staging files
def remove_stale_parts(folder: str | Path, *, every: bool = False, protect: Iterable[str | Path] = ()) -> int:
    """Remove staging files of earlier runs from ``folder``; returns how many.

    ``every`` (the caller holds the folder's exclusive lock): every staging file no journal names and this
    process does not use — no other live run can own one. Otherwise only those whose pid is not running.
    Hidden ``.<name>.<random>.part`` files of earlier versions go when older than
    :data:`STALE_LEGACY_SECONDS`. Never a file of ``protect`` (what the job reads), nor one whose name merely
    starts with the prefix (:func:`made_here`)."""
    folder = Path(folder)
    kept_paths = {os.path.realpath(p) for p in protect if p is not None}
    removed = 0
    try:
        names = [e.name for e in os.scandir(folder)]
    except OSError:
        return 0
    kept = _journal_references(folder, names) if every else set()
    now = time.time()
    for name in names:
        path = folder / name
        if name.startswith(STAGING_PREFIX):
            if not made_here(name):
                continue
            with _GUARD:
                mine = os.path.abspath(path) in _ACTIVE
            if mine or name in kept:
                continue
            pid = _pid_of(name)
            if not every and (pid is None or _alive(pid)):
                continue
        elif _LEGACY.match(name) and not name.startswith(JOURNAL_PREFIX):
            with contextlib.suppress(OSError):
                if now - os.lstat(path).st_mtime <= STALE_LEGACY_SECONDS:
                    continue
            if not os.path.lexists(path):
                continue
        else:
            continue
        if os.path.realpath(path) in kept_paths:
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed += 1
    return removed


def _journal_references(folder: Path, names: Iterable[str]) -> set[str]:
    """Names of the staging files the journals left in ``folder`` refer to (kept for their recovery)."""
    kept: set[str] = set()
    for name in names:
        if name.startswith(JOURNAL_PREFIX) and name.endswith(".json"):
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                for entry in _read_journal(folder / name)["entries"]:
                    kept.update(Path(entry[k]).name for k in ("staged", "backup") if entry.get(k))
    return kept


# ---------------------------------------------------------------------------------------------------------
# one file
@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = "") -> Iterator[IO]:
    """Open a staging file in ``path``'s folder; on success flush it to disk and rename it to ``path``, on any
    exception (including :class:`~anonstudio.core.progress.Cancelled`, KeyboardInterrupt and SIGTERM) delete it.

    The target is never half-written: readers see the old file or the whole new one. The folder's lock is held
    shared meanwhile, and staging files of dead writers found there are removed."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _output_error(exc, path) from None
    except ValueError:  # a NUL character in the name
        raise OutputError("cannot write: the file name contains a NUL character", file=path) from None
    refuse_undeletable(path.parent)  # an append-only folder would keep every staging file: refused, nothing written
    with _shared_lock(path.parent):
        remove_stale_parts(path.parent)
        tmp = path.parent / staging_name(path.name)
        try:
            # created with the permissions any new file gets (0666 less the umask)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as exc:
            raise _output_error(exc, path) from None
        with _GUARD:
            _ACTIVE.add(os.path.abspath(tmp))
        try:
            fh = os.fdopen(fd, mode) if "b" in mode else os.fdopen(fd, mode, encoding=encoding, newline=newline)
            with fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if isinstance(exc, OSError) and not isinstance(exc, AnonStudioError):
                raise _output_error(exc, path) from None
            raise
        finally:
            with _GUARD:
                _ACTIVE.discard(os.path.abspath(tmp))


# ---------------------------------------------------------------------------------------------------------
# the journal
def _read_journal(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict) or data.get("format") != "anonstudio-journal" or not isinstance(
            data.get("entries"), list):
        raise ValueError("not an anonstudio journal")
    return data


def _write_journal(folder: Path, entries: list[dict[str, Any]], after: dict[str, Any] | None = None) -> Path:
    """The journal, written whole under a staging name, flushed and renamed into place."""
    journal = folder / f"{JOURNAL_PREFIX}{os.getpid()}.{secrets.token_hex(4)}.json"
    with _GUARD:
        _OWN_JOURNALS.add(os.path.abspath(journal))
    text = json.dumps({"format": "anonstudio-journal", "version": 1, "pid": os.getpid(), "entries": entries,
                       **({"after": after} if after is not None else {})},
                      indent=1)
    tmp = folder / staging_name(journal.name)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, journal)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        with _GUARD:
            _OWN_JOURNALS.discard(os.path.abspath(journal))
        raise
    _fsync_folder(folder)
    return journal


def _folders(entries: list[dict[str, Any]]) -> list[Path]:
    return sorted({Path(e["target"]).parent for e in entries})


def _roll_back(entries: list[dict[str, Any]]) -> None:
    """Put every target of ``entries`` back as it was before the swap, the report (last entry) last.

    A target holding its new file, or missing, gets its backup again (or is removed if it did not exist);
    a target holding anything else (the old file, or a later run's) is left as it is. Staged files and
    backups are removed. Raises the first :class:`OSError` met (the journal then stays for the next run)."""
    for e in entries:
        target = Path(e["target"])
        now = _ident_of(target)
        if now is None or now == e["new"]:
            if e.get("backup") and os.path.lexists(e["backup"]):
                os.replace(e["backup"], target)
            elif now is not None:
                os.unlink(target)  # there was no file here before this release
        for key in ("backup", "staged"):
            if e.get(key) and os.path.lexists(e[key]):
                os.unlink(e[key])  # a backup still here is a second name of the old file, which is in place
    for folder in _folders(entries):
        _fsync_folder(folder)


def _finish(entries: list[dict[str, Any]], journal: Path) -> None:
    """After a complete swap: remove the backups, then the journal (last)."""
    for e in entries:
        if e.get("backup"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(e["backup"])
    for folder in _folders(entries):
        _fsync_folder(folder)
    os.unlink(journal)
    _fsync_folder(journal.parent)


def _checked_entries(journal: Path, entries: Any, protect: Iterable[str | Path] = ()) -> list[dict[str, Any]]:
    """The journal's entries if each names only what a publication of this folder writes: a target in the
    journal's own folder (absolute path, not hidden, none of the files the caller reads, ``protect``), and staged
    and backup files there with the staging prefix. A journal is a file anyone who delivers a folder can write;
    recovery renames and deletes what it names, so anything else is refused and nothing is touched."""
    folder = os.path.realpath(journal.parent)
    kept = {os.path.realpath(p) for p in protect if p is not None}
    if not isinstance(entries, list) or not entries:
        raise ValueError("it lists no files")
    for e in entries:
        if not isinstance(e, dict) or not isinstance(e.get("target"), str) or not isinstance(e.get("staged"), str) \
                or not (e.get("backup") is None or isinstance(e.get("backup"), str)):
            raise ValueError("an entry is not a target with its staged and backup files")
        for key in ("target", "staged", "backup"):
            value = e.get(key)
            if value is None:
                continue
            if "\0" in value or not os.path.isabs(value) or \
                    os.path.realpath(os.path.dirname(os.path.normpath(value))) != folder:
                raise ValueError(f"its {key} {value!r} is not a file of this folder")
            name = os.path.basename(value)
            if key == "target" and (name.startswith(".") or os.path.realpath(value) in kept):
                raise ValueError(f"its target {name!r} is not a file a publication here writes")
            if key != "target" and not made_here(name):
                raise ValueError(f"its {key} {name!r} is not a staging file")
    return entries


def _recover_journal(journal: Path, protect: Iterable[str | Path] = ()) -> str:
    """Roll the publication ``journal`` describes forward (its swap had finished) or back; returns a sentence.
    A journal naming anything a publication of its folder does not write (:func:`_checked_entries`) is refused:
    nothing is renamed or deleted."""
    try:
        data = _read_journal(journal)
        entries = _checked_entries(journal, data["entries"], protect)
        names = ", ".join(Path(e["target"]).name for e in entries)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OutputError(f"the publication journal {journal.name} cannot be used ({exc}): nothing was renamed or "
                          "deleted; the files it names may be a mix of two releases, or someone else wrote it — "
                          "check the folder, then delete the journal", file=journal) from None
    try:
        if all(_ident_of(e["target"]) == e["new"] for e in entries):
            _complete_after(data.get("after"))  # e.g. the release log's entry, which the stopped run had not written
            _finish(entries, journal)
            return (f"an interrupted publication was rolled forward from its journal: its new release ({names}) was "
                    "complete")
        _roll_back(entries)
        os.unlink(journal)
        _fsync_folder(journal.parent)
    except OSError as exc:
        raise OutputError(f"an interrupted publication ({names}) could not be rolled back from its journal "
                          f"{journal.name}: {exc.strerror or exc}; run again with write access to the folder",
                          file=Path(exc.filename) if exc.filename else journal) from None
    return f"an interrupted publication was rolled back from its journal: {names} are the previous release again"


def _recover_folder(folder: Path, protect: Iterable[str | Path] = ()) -> list[str]:
    """With ``folder``'s exclusive lock held: recover its journals (never touching ``protect``, the files the
    caller reads), then remove stale staging files."""
    try:
        journals = sorted(e.name for e in os.scandir(folder)
                          if e.name.startswith(JOURNAL_PREFIX) and e.name.endswith(".json"))
    except OSError:
        return []
    done = []
    for name in journals:
        with _GUARD:
            mine = os.path.abspath(folder / name) in _OWN_JOURNALS
        if not mine:  # (a publication of this very process, on another thread, is not ours to touch)
            done.append(_recover_journal(folder / name, protect))
    remove_stale_parts(folder, every=True, protect=protect)
    return done


def recover(*paths: str | Path | None, wait: float = LOCK_WAIT_SECONDS, protect: Iterable[str | Path] = ()) -> list[str]:
    """Recover the folders of ``paths`` (outputs, reports, files opened in the workbench): roll every interrupted
    publication there forward or back from its journal and remove stale staging files, holding each folder's
    lock. Returns a sentence per publication recovered. Folders that do not exist are skipped. A journal that
    names ``protect`` (what the caller reads: a job's inputs) or anything outside its folder is refused."""
    folders = [Path(p).parent for p in paths if p is not None]
    with Publication(*[f / "x" for f in folders if f.is_dir()], wait=wait, create=False, protect=protect) as pub:
        return list(pub.recovered)


# ---------------------------------------------------------------------------------------------------------
# a release
class Publication:
    """The files of one release, published together (see the module's docstring).

    ``with Publication(output, side, report) as pub:`` locks the targets' folders (a target first named by
    :meth:`stage` locks its folder then) and recovers what earlier runs left there (:attr:`recovered` says
    what); :meth:`stage` gives each target a staging path to write completely (a real path whose name ends
    with the target's extension); :meth:`commit` publishes them all, ``last`` (the report) last. Leaving the
    ``with`` block without committing removes everything staged and publishes nothing.
    """

    def __init__(self, *targets: str | Path | None, wait: float = LOCK_WAIT_SECONDS, create: bool = True,
                 protect: Iterable[str | Path] = ()) -> None:
        self._declared = [Path(t) for t in targets if t is not None]
        self._protect = [p for p in protect if p is not None]  # files the caller reads: never a recovery's target
        self._staged: list[tuple[Path, Path]] = []
        self._locks: dict[str, int | None] = {}
        self._wait = wait
        self._create = create
        #: a sentence per interrupted publication of an earlier run that was rolled back or forward
        self.recovered: list[str] = []

    # -- locking
    def _lock(self, folders: Iterable[Path]) -> None:
        for folder in sorted({Path(os.path.abspath(f)) for f in folders}, key=os.path.realpath):
            key = os.path.realpath(folder)
            if key in self._locks:
                continue
            if self._create:
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise _output_error(exc, folder) from None
                except ValueError:
                    raise OutputError("cannot write: the folder name contains a NUL character", file=folder) from None
                refuse_undeletable(folder)  # staging files there could not be removed: refused before any is made
            fd = _lock_folder(folder, exclusive=True, wait=self._wait)
            self._locks[key] = fd
            with _GUARD:
                _PUBLISHING[key] = _PUBLISHING.get(key, 0) + 1
            self.recovered += _recover_folder(folder, self._protect)

    def _release(self) -> None:
        for key, fd in self._locks.items():
            with _GUARD:
                left = _PUBLISHING.get(key, 1) - 1
                if left > 0:
                    _PUBLISHING[key] = left
                else:
                    _PUBLISHING.pop(key, None)
            _unlock(fd)
        self._locks = {}

    # -- staging
    def stage(self, target: str | Path) -> Path:
        """The path to write ``target``'s new content to (complete, before :meth:`commit`)."""
        target = Path(target)
        self._lock([target.parent])
        staged = target.parent / staging_name(target.name)
        with _GUARD:
            _ACTIVE.add(os.path.abspath(staged))
        self._staged.append((staged, target))
        return staged

    def target_of(self, path: str | Path | None) -> Path | None:
        """The target a staging path (or a file written on the way to it) stands for (for messages)."""
        if path is None:
            return None
        name = Path(path).name
        for staged, target in self._staged:
            head = staged.name[: staged.name.index(".", len(STAGING_PREFIX)) + 18]  # prefix, pid, token
            if name == staged.name or head in name or os.path.abspath(path) == os.path.abspath(target):
                return target
        return None

    # -- publishing
    def commit(self, last: str | Path | None = None, *, after: dict[str, Any] | None = None) -> list[Path]:
        """Publish every staged file; ``last`` (the report) is removed first and renamed last. Returns the
        targets. ``after`` (``{"kind": …, …}``, a kind registered with :func:`after_swap`): a step the journal carries
        and that runs once the swap is complete, before the journal goes — so recovery completes it too. On a failure nothing changes (the swap is rolled back) and :class:`OutputError` names the file;
        a stop signal during the swap rolls it back and is then raised."""
        if not self._staged:
            return []
        last = Path(last) if last is not None else None
        order = ([s for s in self._staged if last is None or s[1] != last]
                 + [s for s in self._staged if last is not None and s[1] == last])
        entries = self._prepare(order)
        journal: Path | None = None
        with stops_deferred():
            try:
                journal = _write_journal(order[0][1].parent, entries, after)
                if last is not None and os.path.lexists(last):
                    os.unlink(last)  # a report is never beside an output it does not describe
                for e in entries:
                    os.replace(e["staged"], e["target"])
                for folder in _folders(entries):
                    _fsync_folder(folder)
            except BaseException as exc:
                self._undo(entries, journal, exc)
                raise
            if stop_pending():  # a stop signal arrived during the swap: the run is cancelled, its release too
                self._undo(entries, journal, None)
                raise_deferred_stop()
            _complete_after(after)  # journaled: a stop before the journal is removed leaves it to the recovery
            with contextlib.suppress(OSError):  # published; what is left over goes with the next run
                _finish(entries, journal)
        self._forget(entries)
        self._staged = []
        with _GUARD:
            _OWN_JOURNALS.discard(os.path.abspath(journal))
        raise_deferred_stop()  # a stop that came after the swap: the new release stands, the run stops here
        return [target for _, target in order]

    def _prepare(self, order: list[tuple[Path, Path]]) -> list[dict[str, Any]]:
        """Each staged file flushed to disk, each existing target backed up; the journal's entries."""
        entries: list[dict[str, Any]] = []
        try:
            for staged, target in order:
                _fsync_file(staged)
                entry = {"target": os.path.abspath(target), "staged": os.path.abspath(staged),
                         "new": _ident(os.lstat(staged)), "backup": None}
                entries.append(entry)
                if os.path.lexists(target):
                    backup = target.parent / staging_name(target.name, "old.")
                    with _GUARD:
                        _ACTIVE.add(os.path.abspath(backup))
                    entry["backup"] = os.path.abspath(backup)
                    _back_up(target, backup)
            for folder in _folders(entries):
                _fsync_folder(folder)
        except BaseException as exc:
            for e in entries:
                if e["backup"]:
                    with contextlib.suppress(OSError):
                        os.unlink(e["backup"])
            self._forget(entries)
            if isinstance(exc, OSError):
                raise _output_error(exc, self.target_of(exc.filename) or order[0][1]) from None
            raise
        return entries

    def _undo(self, entries: list[dict[str, Any]], journal: Path | None, exc: BaseException | None) -> None:
        """Roll the swap back in this process; a failure there leaves the journal to the next run."""
        try:
            _roll_back(entries)
            if journal is not None:
                os.unlink(journal)
                _fsync_folder(journal.parent)
        except OSError as undo:
            raise OutputError(
                f"cannot write: {getattr(exc, 'strerror', None) or exc or 'stopped'}; rolling back failed too "
                f"({undo.strerror or undo}): the next run in this folder, `anonstudio verify` or opening a file there "
                "restores the previous release from the journal", file=entries[0]["target"]) from None
        finally:
            self._forget(entries)
            if journal is not None:
                with _GUARD:
                    _OWN_JOURNALS.discard(os.path.abspath(journal))
        if isinstance(exc, OSError) and not isinstance(exc, AnonStudioError):
            target = self.target_of(exc.filename) or Path(entries[0]["target"])
            raise _output_error(exc, target) from None

    def _forget(self, entries: list[dict[str, Any]]) -> None:
        with _GUARD:
            for e in entries:
                for key in ("staged", "backup"):
                    if e.get(key):
                        _ACTIVE.discard(e[key])
            for staged, _ in self._staged:
                _ACTIVE.discard(os.path.abspath(staged))

    def __enter__(self) -> Publication:
        try:
            self._lock(t.parent for t in self._declared)
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if isinstance(exc, OutputError) and exc.file is not None:
                target = self.target_of(exc.file)
                if target is not None:
                    exc.file = str(target)  # name the file the user asked for, not our staging file
            for staged, _ in self._staged:
                with contextlib.suppress(OSError):
                    os.unlink(staged)
            self._forget([])
            self._staged = []
        finally:
            self._release()


def _back_up(target: Path, backup: Path) -> None:
    """A second name for the old file (a hard link: no copy, the target stays in place), else a copy (file
    systems without hard links; an immutable file, which cannot be linked)."""
    try:
        os.link(target, backup, follow_symlinks=False)
    except OSError:
        shutil.copy2(target, backup, follow_symlinks=False)
