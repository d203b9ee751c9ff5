"""Never write over what a run reads: targets compared with sources as resolved real paths.

Paths are compared after :func:`os.path.realpath` (symlinks followed, ``..`` taken where the file system
takes it), so ``/data/sub/../table.csv``, a symlink to the input and the input itself are one file. A
target equal to any file the run reads (the input files, hierarchy files, the job or project file), or two
targets equal to each other (output and report), is refused before anything is written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from anonstudio.core.errors import JobError, OutputError


def real_path(path: str | Path) -> Path:
    """``path`` absolute, with symlinks and ``..`` resolved as the operating system would."""
    return Path(os.path.realpath(os.fspath(path)))


def refuse_overwrites(
    targets: Mapping[str, str | Path | None],
    reads: Mapping[str, str | Path | None],
    *,
    file: str | Path | None = None,
) -> None:
    """Raise :class:`JobError` if a target is a file that is read, or two targets are one file.

    ``targets`` and ``reads`` map a label the user knows (``output.path``, ``input.path``,
    ``hierarchies.age``, ``the job file``) to a path; ``None`` entries are ignored."""
    read_real: dict[Path, str] = {}
    for label, path in reads.items():
        if path is not None:
            read_real.setdefault(real_path(path), label)
    seen: dict[Path, str] = {}
    for label, path in targets.items():
        if path is None:
            continue
        real = real_path(path)
        if real in read_real:
            raise JobError(
                f"{label} ({Path(path).name}) is the same file as {read_real[real]}: inputs are never overwritten",
                file=file,
                key=label,
            )
        if real in seen:
            raise JobError(f"{label} and {seen[real]} are the same file ({Path(path).name}): they must differ",
                           file=file, key=label)
        seen[real] = label


def input_path(text: str, base: Path, key: str, file: str | Path | None = None) -> Path:
    """A path a job names for reading (``input.path``, a hierarchy file): an absolute one as written, a relative one
    taken against ``base`` with symlinks and ``..`` resolved. A NUL character, an over-long name and a loop of
    symlinks are :class:`JobError` naming ``key`` (a loop in an absolute path is the reader's error naming the file)."""
    from anonstudio.core.limits import path_problem

    problem = path_problem(text)
    if problem is not None:
        raise JobError(f"{key} {problem}", file=file, key=key)
    if Path(text).is_absolute():
        return Path(text)
    p = base / text
    try:
        return p.resolve()
    except (RuntimeError, OSError) as exc:  # Python < 3.13 raises RuntimeError for a loop of symlinks
        reason = "a loop of symbolic links" if "loop" in str(exc).lower() or getattr(exc, "errno", None) == 40 \
            else (getattr(exc, "strerror", None) or str(exc))
        raise JobError(f"{key} ({Path(text).name}) cannot be resolved: {reason}", file=file, key=key) from None


def check_target(path: str | Path, label: str, *, file: str | Path | None = None) -> None:
    """An output target must be a new file or an existing regular file (replaced whole). A symlink at the
    target is replaced by the new file, never written through. A folder, a device, a pipe or a socket at
    the target is refused (on 05ef630 an atomic rename replaced ``/dev/full``)."""
    p = Path(path)
    if os.path.islink(p):
        return
    try:
        info = p.stat()
    except FileNotFoundError:
        parent = p.parent
        if parent.exists() and not parent.is_dir():
            raise OutputError(f"{label}: '{parent.name}' is a file, not a folder", file=file, key=label) from None
        return
    except OSError as exc:
        raise OutputError(f"{label} cannot be checked: {exc.strerror or exc}", file=file, key=label) from None
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"{label} ({p.name}) is a folder: give a file name", file=file, key=label)
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(f"{label} ({p}) exists and is not a regular file (a device, pipe or socket): it is never "
                          "replaced", file=file, key=label)
