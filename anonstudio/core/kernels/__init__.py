"""numba kernels: numpy arrays in, numpy arrays out; no Python objects, no I/O, no callbacks.

Every kernel is compiled with ``cache=True, nogil=True``; callers run them in chunks and report progress
between chunks. Modules here are imported lazily by the algorithms that need them.

Where compiled kernels are cached: importing this package (which every kernel module does first) points
numba's cache at the user's cache folder, never beside the installed package (which may be read-only):
``$ANONSTUDIO_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/anonstudio`` (``~/.cache/anonstudio``) on Linux,
``~/Library/Caches/anonstudio`` on macOS, ``%LOCALAPPDATA%\\anonstudio\\Cache`` on Windows; the kernels go to
its ``numba`` subfolder. A ``NUMBA_CACHE_DIR`` the user set is kept. If no such folder can be written, the
kernels are cached in a temporary folder for this process only (compiled again by the next process) and
:data:`CACHE_WARNING` says so; :func:`cache_dir` returns the folder in use.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

#: Set when the kernels could not be cached persistently (the reason, for the CLI and the GUI to show).
CACHE_WARNING: str | None = None


def user_cache_root() -> Path:
    """The per-user cache folder of anonstudio for this platform (not created here)."""
    explicit = os.environ.get("ANONSTUDIO_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / "anonstudio" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "anonstudio"
    base = os.environ.get("XDG_CACHE_HOME") or ""
    return (Path(base) if os.path.isabs(base) else home / ".cache") / "anonstudio"


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError:
        return False
    return True


def _choose_cache_dir() -> str:
    global CACHE_WARNING
    preset = os.environ.get("NUMBA_CACHE_DIR")
    if preset:
        return preset
    try:
        wanted = user_cache_root() / "numba"
    except RuntimeError:  # no home folder to expand
        wanted = None
    if wanted is not None and _writable(wanted):
        return str(wanted)
    fallback = tempfile.mkdtemp(prefix="anonstudio-numba-")
    atexit.register(shutil.rmtree, fallback, True)
    CACHE_WARNING = (
        f"cannot write the kernel cache folder {wanted}; compiled kernels are kept for this run only "
        "(set ANONSTUDIO_CACHE_DIR to a writable folder to keep them)"
    )
    warnings.warn(CACHE_WARNING, RuntimeWarning, stacklevel=2)
    return fallback


def _configure() -> str:
    chosen = _choose_cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = chosen
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None:  # numba was imported before us: its config read the environment already
        numba_config.CACHE_DIR = chosen
    return chosen


_CACHE_DIR = _configure()


def cache_dir() -> str:
    """The folder numba caches anonstudio's compiled kernels in."""
    return _CACHE_DIR
