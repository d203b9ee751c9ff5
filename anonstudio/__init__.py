"""anonstudio: a workbench for anonymizing tables, event sequences and biological strings.

Importing anonstudio changes nothing in the host process (a notebook, a script): no environment variable, no
numba or OpenMP setting. Its kernels are cached in the user's cache folder by a cache locator that numba asks for
anonstudio's kernel files only (:mod:`anonstudio.core.kernels`); the command line and the workbench, processes of
their own, also let numba's idle OpenMP threads sleep (:func:`anonstudio.core.kernels.application_process`).
"""

import os as _os

__version__ = "0.2.0"


class KernelCacheWarning(RuntimeWarning):
    """The kernel cache folder cannot be written: kernels are compiled into a temporary folder for this run."""


#: why the kernels are not cached where they would be (one sentence), or ``None``; warned once, when the
#: first kernel is compiled or loaded (:mod:`anonstudio.core.kernels`), not at import: commands that run no kernel
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
    """Where anonstudio's compiled kernels are cached: ``$NUMBA_CACHE_DIR`` if the user set it, else
    ``numba`` in anonstudio's cache folder (:mod:`anonstudio._folders`: ``$XDG_CACHE_HOME/anonstudio`` or
    ``~/.cache/anonstudio``; on macOS ``~/Library/Caches/anonstudio``, on Windows
    ``%LOCALAPPDATA%\\anonstudio\\Cache``) — never beside the installed package, which may be
    read-only. If that folder cannot be written (a read-only or missing home, a ``NUMBA_CACHE_DIR`` that is a
    file or lies on a read-only disk), a fresh temporary folder is used, removed at exit, and
    :data:`kernel_cache_notice` says that kernels will be compiled again next time."""
    import tempfile

    from anonstudio._folders import cache_dir

    global kernel_cache_notice
    target = _os.environ.get("NUMBA_CACHE_DIR") or str(cache_dir() / "numba")
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
