"""Atomic output: write to a temporary file beside the target, then rename over it.

Several files that belong together (an output, its side tables and its report) are published as a pair
by :class:`Publication`: each is first written completely under a hidden temporary name, then the old report
is removed and the files are renamed into place, the report last — so a reader never finds a new output
beside an old report, and a failure or a cancel before the renames changes nothing.

Write errors a user can cause (a read-only folder, a full disk, a name too long) become one
:class:`~anonstudio.core.errors.OutputError` naming the file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from anonstudio.core.errors import AnonStudioError, OutputError

#: hidden temporary files of the target older than this are left over by a crash (kill -9) and removed
STALE_PART_SECONDS = 600


def _output_error(exc: OSError, path: Path) -> OutputError:
    reason = exc.strerror or str(exc)
    return OutputError(f"cannot write: {reason}", file=path)


def remove_stale_parts(path: Path) -> int:
    """Remove hidden ``.<name>.*.part`` files of ``path`` left by a killed run (older than
    :data:`STALE_PART_SECONDS`); returns how many."""
    removed = 0
    now = time.time()
    with contextlib.suppress(OSError):
        for part in path.parent.glob(f".{path.name}.*.part*"):
            with contextlib.suppress(OSError):
                if now - part.lstat().st_mtime > STALE_PART_SECONDS:
                    part.unlink()
                    removed += 1
    return removed


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = "") -> Iterator[IO]:
    """Open a temporary file in ``path``'s folder; on success rename it to ``path``, on any exception
    (including :class:`~anonstudio.core.progress.Cancelled`, KeyboardInterrupt and SIGTERM) delete it.

    The target is never half-written: readers see the old file or the whole new one.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_parts(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    except OSError as exc:
        raise _output_error(exc, path) from None
    try:
        # mkstemp makes the file 0600; an output should get the permissions any new file would get.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        if "b" in mode:
            fh = os.fdopen(fd, mode)
        else:
            fh = os.fdopen(fd, mode, encoding=encoding, newline=newline)
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, AnonStudioError):
            raise _output_error(exc, path) from None
        raise


class Publication:
    """Files published together: :meth:`stage` gives each target a hidden temporary path to write
    completely; :meth:`commit` renames them into place (removing the old report first, renaming it
    last); leaving the ``with`` block without committing removes everything staged."""

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path]] = []

    def stage(self, target: str | Path) -> Path:
        target = Path(target)
        # the target's extension kept last: writers choose the format by it (.tsv, .parquet, .fasta)
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.part{target.suffix}")
        self._staged.append((tmp, target))
        return tmp

    def target_of(self, path: str | Path | None) -> Path | None:
        """The target a staged temporary path stands for (for messages)."""
        for tmp, target in self._staged:
            if path is not None and Path(path).name.startswith(f".{tmp.name}") or Path(str(path)) == tmp:
                return target
        return None

    def commit(self, last: Path | None = None) -> list[Path]:
        """Rename every staged file into place; ``last`` (the report) is removed first and renamed last."""
        order = sorted(self._staged, key=lambda item: last is not None and item[1] == Path(last))
        try:
            if last is not None and os.path.lexists(last):
                os.unlink(last)
            for tmp, target in order:
                os.replace(tmp, target)
        except OSError as exc:
            raise _output_error(exc, Path(exc.filename or order[0][1])) from None
        done = [target for _, target in order]
        self._staged = []
        return done

    def __enter__(self) -> Publication:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if isinstance(exc, OutputError) and exc.file is not None:
            target = self.target_of(exc.file)
            if target is not None:
                exc.file = str(target)  # name the file the user asked for, not our temporary one
        for tmp, _ in self._staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self._staged = []
