"""anonstudio: a workbench for anonymizing tables, event sequences and biological strings."""

import os as _os

__version__ = "0.2.0"


def numba_cache_dir() -> str:
    """Where numba caches anonstudio's compiled kernels: ``$NUMBA_CACHE_DIR`` if the user set it, else
    ``anonstudio/numba`` in the user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``; on macOS
    ``~/Library/Caches``, on Windows ``%LOCALAPPDATA%``) — never beside the installed package, which may be
    read-only. If that folder cannot be written (a read-only or missing home), a fresh temporary folder
    is used and a warning says that kernels will be compiled again next time."""
    import sys
    import tempfile

    chosen = _os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return chosen
    if sys.platform == "win32":
        base = _os.environ.get("LOCALAPPDATA") or _os.path.join(_os.path.expanduser("~"), "AppData", "Local")
    elif sys.platform == "darwin":
        base = _os.path.join(_os.path.expanduser("~"), "Library", "Caches")
    else:
        base = _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_os.path.expanduser("~"), ".cache")
    target = _os.path.join(base, "anonstudio", "numba")
    try:
        _os.makedirs(target, exist_ok=True)
        if not _os.access(target, _os.W_OK | _os.X_OK):
            raise PermissionError(target)
    except OSError:
        import atexit
        import shutil
        import warnings

        target = tempfile.mkdtemp(prefix="anonstudio-numba-")
        atexit.register(shutil.rmtree, target, ignore_errors=True)
        warnings.warn(
            f"cannot write the kernel cache in {_os.path.join(base, 'anonstudio')}: kernels are compiled into "
            f"{target} for this run only (set NUMBA_CACHE_DIR to a writable folder to keep them)",
            RuntimeWarning,
            stacklevel=2,
        )
    return target


# numba reads this when it is first imported (lazily, by the kernels): set it before that happens.
_os.environ["NUMBA_CACHE_DIR"] = numba_cache_dir()
