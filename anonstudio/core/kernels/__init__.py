"""numba kernels: numpy arrays in, numpy arrays out; no Python objects, no I/O, no callbacks.

Every kernel is compiled with ``cache=True, nogil=True``; callers run them in chunks and report progress
between chunks. Modules here are imported lazily by the algorithms that need them. The compiled kernels
are cached in the folder ``anonstudio/__init__.py`` puts in ``NUMBA_CACHE_DIR`` (the user's cache folder);
if numba was imported before anonstudio, its configuration is pointed there too.
"""

import os as _os
import sys as _sys

_config = _sys.modules.get("numba.core.config")
if _config is not None and not _config.CACHE_DIR and _os.environ.get("NUMBA_CACHE_DIR"):
    _config.CACHE_DIR = _os.environ["NUMBA_CACHE_DIR"]

# Kernels with ``parallel=True`` run on numba's OpenMP pool. Left to spin (GNU OpenMP's default), its idle
# threads keep a core busy between two parallel loops: on the two cores shared with other work that made a
# condensation run 1.5x slower (issue 17). Idle threads sleep instead unless the user says otherwise; libgomp
# reads this when numba first loads it, which is after this package is imported.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def parallel_runtime() -> None:
    """Start numba's parallel runtime (its thread pool) now, before the calling module's kernels are loaded.

    Called by each kernel module whose kernels hold parallel loops, or call kernels that do. numba starts
    the runtime itself when it compiles a parallel kernel or loads one from its cache — but not for a kernel
    that merely *calls* one and was compiled in a process that had loaded that callee from the cache (numba
    0.68 loses the callee's start-up hook when it reads a cached kernel). Such a caller, loaded first in a
    new process, jumps into a runtime that was never started: a segmentation fault (seen in CI:
    ``seed_pass_block`` calling the parallel ``block_distances``)."""
    try:
        from numba.np.ufunc.parallel import _launch_threads
    except ImportError:  # a numba without it starts its runtime as before
        return
    _launch_threads()


_LEAN = {"requested": False, "installed": False}


def lean_cache_loads() -> None:
    """Load kernels from numba's cache without readying numba's compiler: for a short-lived process (the
    command line) that will most likely only run cached kernels. Takes effect now if numba is imported, else
    when the first kernel module imports it (through :mod:`anonstudio.core.kernels._jit`).

    numba readies its whole compiler before it loads a kernel from the cache: it imports and registers every
    typing and lowering module it has (``BaseContext.refresh``, about 250 modules, scipy.linalg among them for
    its BLAS check), 0.25-0.35 s of a 1 s command, none of which a compiled kernel needs to run. What loading
    does need is numba's runtime (its allocator's symbols, linked into every kernel that makes an array): that
    is started here. If a kernel is missing from the cache, numba compiles it and readies its compiler then,
    as it does for every compilation (``CompilerBase.__init__``); a numba whose cache class lacks the methods
    relied on here is left to its own way."""
    _LEAN["requested"] = True
    if "numba" in _sys.modules:
        _install_lean_loads()


def _install_lean_loads() -> None:
    if not _LEAN["requested"] or _LEAN["installed"]:
        return
    try:
        from numba.core.caching import Cache
        from numba.core.runtime.nrt import rtsys
    except ImportError:
        return
    if not (hasattr(Cache, "_load_overload") and hasattr(Cache, "_guard_against_spurious_io_errors")):
        return

    def load_overload(self, sig, target_context):
        rtsys.initialize(target_context)  # numba's own load calls target_context.refresh(), which does this and more
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    Cache.load_overload = load_overload
    _LEAN["installed"] = True


_CACHE = {"installed": False, "warned": False, "fallback": None}


def _warn_cache(notice: str) -> None:
    """The kernel cache's one warning per process (:class:`anonstudio.KernelCacheWarning`)."""
    if _CACHE["warned"]:
        return
    _CACHE["warned"] = True
    import warnings

    import anonstudio

    warnings.warn(notice, anonstudio.KernelCacheWarning, stacklevel=3)


def _install_cache_locators() -> None:
    """numba keeps compiled kernels in ``NUMBA_CACHE_DIR`` (set by ``anonstudio/__init__.py``, a temporary folder
    if the chosen one cannot be written) — and never beside the installed package (issue 29: 13 ``.nbi`` files in
    ``anonstudio/core/kernels/__pycache__``). numba tries its cache locators in turn and, when the chosen folder
    fails, falls back to the package's own ``__pycache__``; here that locator is dropped and, right after the
    user's folder, a temporary folder for this process takes its place (one warning when it is first used)."""
    if _CACHE["installed"]:
        return
    _CACHE["installed"] = True
    import anonstudio

    if anonstudio.kernel_cache_notice:
        _warn_cache(anonstudio.kernel_cache_notice)
    try:
        from numba.core import caching
    except ImportError:
        return
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)  # (renamed in numba 0.6x)
    classes = list(getattr(impl, "_locator_classes", ()) or ())
    user = next((c for c in classes if "UserProvided" in c.__name__), None)
    if user is None:
        return

    class TemporaryCacheLocator(user):
        """The cache in a temporary folder of this process, when ``NUMBA_CACHE_DIR`` cannot be written."""

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = _os.path.join(_fallback_folder(), self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _os.path.exists(py_file):
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            _warn_cache(f"cannot write the kernel cache in {_os.environ.get('NUMBA_CACHE_DIR')!r}: kernels are "
                        f"compiled into {_fallback_folder()} for this run only (set NUMBA_CACHE_DIR to a writable "
                        "folder to keep them)")
            return self

    impl._locator_classes = [user, TemporaryCacheLocator] + [c for c in classes if c is not user
                                                             and "InTree" not in c.__name__]


def _fallback_folder() -> str:
    if _CACHE["fallback"] is None:
        import atexit
        import shutil
        import tempfile

        _CACHE["fallback"] = tempfile.mkdtemp(prefix="anonstudio-numba-")
        atexit.register(shutil.rmtree, _CACHE["fallback"], ignore_errors=True)
    return _CACHE["fallback"]
