"""anonstudio: a workbench for anonymizing tables, event sequences and biological strings."""

import os as _os

__version__ = "0.2.0"


class KernelCacheWarning(RuntimeWarning):
    """The kernel cache folder cannot be written: kernels are compiled into a temporary folder for this run."""


#: why the kernels are not cached where they would be (one sentence), or ``None``; warned once, when the
#: first kernel module loads (:mod:`anonstudio.core.kernels`), not at import: commands that run no kernel
#: (``--help``, ``methods``) say nothing about it
kernel_cache_notice: "str | None" = None


def _writable(folder: str) -> "str | None":
    """``None`` if numba can keep its cache in ``folder`` (created if missing; a file written and removed, as
    numba itself tries), else the reason."""
    import tempfile

    try:
        _os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except (OSError, ValueError) as exc:  # ValueError: a NUL character in the path
        return getattr(exc, "strerror", None) or str(exc)
    return None


def numba_cache_dir() -> str:
    """Where numba caches anonstudio's compiled kernels: ``$NUMBA_CACHE_DIR`` if the user set it, else
    ``anonstudio/numba`` in the user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``; on macOS
    ``~/Library/Caches``, on Windows ``%LOCALAPPDATA%``) — never beside the installed package, which may be
    read-only. If that folder cannot be written (a read-only or missing home, a ``NUMBA_CACHE_DIR`` that is a
    file or lies on a read-only disk), a fresh temporary folder is used, removed at exit, and
    :data:`kernel_cache_notice` says that kernels will be compiled again next time."""
    import sys
    import tempfile

    global kernel_cache_notice
    chosen = _os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        target = chosen
    else:
        if sys.platform == "win32":
            base = _os.environ.get("LOCALAPPDATA") or _os.path.join(_os.path.expanduser("~"), "AppData", "Local")
        elif sys.platform == "darwin":
            base = _os.path.join(_os.path.expanduser("~"), "Library", "Caches")
        else:
            base = _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_os.path.expanduser("~"), ".cache")
        target = _os.path.join(base, "anonstudio", "numba")
    problem = _writable(target)
    if problem is None:
        return target
    import atexit
    import shutil

    fallback = tempfile.mkdtemp(prefix="anonstudio-numba-")
    atexit.register(shutil.rmtree, fallback, ignore_errors=True)
    kernel_cache_notice = (
        f"cannot write the kernel cache in {target!r} ({problem}): kernels are compiled into {fallback} for this "
        "run only (set NUMBA_CACHE_DIR to a writable folder to keep them)")
    return fallback


# numba reads this when it is first imported (lazily, by the kernels): set it before that happens.
_os.environ["NUMBA_CACHE_DIR"] = numba_cache_dir()
