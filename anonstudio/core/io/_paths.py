"""Never write over what a run reads: targets compared with sources as resolved real paths.

Paths are compared after :func:`os.path.realpath` (symlinks followed, ``..`` taken where the file system
takes it), so ``/data/sub/../table.csv``, a symlink to the input and the input itself are one file. A
target equal to any file the run reads (the input files, hierarchy files, the job or project file), or two
targets equal to each other (output and report), is refused before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from anonstudio.core.errors import JobError


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
                column=label,
            )
        if real in seen:
            raise JobError(f"{label} and {seen[real]} are the same file ({Path(path).name}): they must differ",
                           file=file, column=label)
        seen[real] = label
