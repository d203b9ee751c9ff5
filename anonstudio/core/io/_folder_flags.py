"""Whether a folder lets anonstudio remove the files it creates there (issue 44 item 10).

A publication writes every file under a staging name and then renames or removes it. In a folder whose
entries cannot be removed or renamed — an *append-only* folder (``chattr +a`` on Linux, ``chflags uappnd`` /
``sappnd`` on macOS and the BSDs) — each run would leave a new staging file behind and publish nothing. Such a
folder is refused before anything is written there, by reading the folder's inode flags: no probe file is
created (a probe could not be removed either).
"""

from __future__ import annotations

import contextlib
import os
import stat
import struct
import sys
from pathlib import Path

from anonstudio.core.errors import OutputError

#: ``FS_IOC_GETFLAGS`` (``_IOR('f', 1, long)``) and the flags of ``linux/fs.h`` read through it
_FS_IOC_GETFLAGS = 0x80086601 if struct.calcsize("l") == 8 else 0x80046601
_FS_APPEND_FL = 0x00000020
_FS_IMMUTABLE_FL = 0x00000010


def _linux_flags(folder: Path) -> int | None:
    import fcntl

    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        buf = bytearray(8)
        with contextlib.suppress(OSError):  # a file system without inode flags (tmpfs before 6.0, NFS, FUSE …)
            fcntl.ioctl(fd, _FS_IOC_GETFLAGS, buf)
            return int(struct.unpack_from("i", buf)[0])
        return None
    finally:
        os.close(fd)


def undeletable_reason(folder: str | Path) -> str | None:
    """Why files created in ``folder`` could not be removed or renamed ("append-only", "immutable"), or ``None``
    (also when the system cannot tell)."""
    folder = Path(folder)
    flags = getattr(_stat_or_none(folder), "st_flags", None)
    if flags is not None:  # macOS, the BSDs
        if flags & (getattr(stat, "UF_IMMUTABLE", 0) | getattr(stat, "SF_IMMUTABLE", 0)):
            return "immutable"
        if flags & (getattr(stat, "UF_APPEND", 0) | getattr(stat, "SF_APPEND", 0)):
            return "append-only"
        return None
    if sys.platform.startswith("linux"):
        bits = _linux_flags(folder)
        if bits is None:
            return None
        if bits & _FS_IMMUTABLE_FL:
            return "immutable"
        if bits & _FS_APPEND_FL:
            return "append-only"
    return None


def _stat_or_none(folder: Path) -> os.stat_result | None:
    try:
        return os.stat(folder)
    except OSError:
        return None


def refuse_undeletable(folder: str | Path) -> None:
    """Raise :class:`OutputError` naming ``folder`` when it is append-only or immutable: a publication there could
    neither replace its files nor remove its staging files."""
    reason = undeletable_reason(folder)
    if reason is not None:
        raise OutputError(
            f"cannot write: the folder is {reason} (files in it can be created but not renamed or removed), so an "
            "output cannot be published there without leaving staging files behind; choose another folder or lift "
            "the attribute (chattr -a / chflags nouappnd)", file=folder)
