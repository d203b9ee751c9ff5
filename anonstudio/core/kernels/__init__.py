"""numba kernels: numpy arrays in, numpy arrays out; no Python objects, no I/O, no callbacks.

Every kernel is compiled with ``cache=True, nogil=True``; callers run them in chunks and report progress
between chunks. Modules here are imported lazily by the algorithms that need them, and take ``njit``/``prange``
from :mod:`._jit`.

**Nothing here changes numba or OpenMP for the host process.** Importing anonstudio (in a notebook, a script)
sets no environment variable and no numba setting: the compiled kernels go to anonstudio's cache folder
(:func:`cache_folder`: ``$NUMBA_CACHE_DIR``, else the user's cache folder, else a temporary folder with one
warning — never beside the installed package, which may be read-only) through a cache locator numba asks first
and that answers for anonstudio's kernel files only (:func:`_install_cache_locator`); every other function numba
caches goes where numba would put it. The command line and the workbench, processes of their own, call
:func:`application_process` (idle OpenMP threads sleep) and the command line :func:`lean_cache_loads`.

**numba's internals are patched only on the versions the patches were tested on** (:data:`TESTED_NUMBA`, the
range ``pyproject.toml`` pins). On any other version each patch falls back to numba's own path: the cache locator
is not installed and kernels are compiled for the process without a disk cache (one warning), lean loading is
left to numba's own loading, the parallel runtime is left to numba to start (``tests/test_numba_patches.py``).
Setting ``$ANONSTUDIO_NUMBA_UNPATCHED`` takes those paths on any version: how a newer numba is tried before the
pin moves (``scripts/numba-newest`` runs the ``numba_unpatched`` tests with it in a venv of their own).
"""

import os as _os
import sys as _sys

#: numba versions the patches of its internals were tested on: from the first to before the second
TESTED_NUMBA = ((0, 68), (0, 69))
#: set (to anything but ``0``) to leave numba's internals unpatched whatever its version
UNPATCHED_ENV = "ANONSTUDIO_NUMBA_UNPATCHED"


def numba_tested(version: str | None = None) -> bool:
    """Whether numba ``version`` (default: the one installed) is one the patches here were tested on."""
    if version is None:
        import numba

        version = numba.__version__
    try:
        parts = tuple(int(p) for p in version.split(".")[:2])
    except ValueError:
        return False
    return TESTED_NUMBA[0] <= parts < TESTED_NUMBA[1]


def patches_on() -> bool:
    """Whether numba's internals are patched here: a tested numba (:func:`numba_tested`), unless
    ``$ANONSTUDIO_NUMBA_UNPATCHED`` says to leave them alone."""
    return _os.environ.get(UNPATCHED_ENV, "0") in ("", "0") and numba_tested()


def application_process() -> None:
    """For a process anonstudio starts itself (the command line, the workbench), before numba loads: numba's
    OpenMP pool lets idle threads sleep unless the user says otherwise. Left to spin (GNU OpenMP's default), they
    keep a core busy between two parallel loops: on the two cores shared with other work that made a condensation
    run 1.5x slower (issue 17). A notebook importing anonstudio keeps its own setting."""
    _os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if _address_space_limited():
        # OpenBLAS (numpy's BLAS) reserves a buffer per thread when numpy loads; under ``ulimit -v`` one of them
        # failed and OpenBLAS ended the process (exit 1, "OpenBLAS error: Memory allocation still failed …", issue
        # 44 item 10). anonstudio's work is not BLAS-bound: one thread, unless the user says otherwise.
        for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            _os.environ.setdefault(name, "1")


def _address_space_limited() -> bool:
    """Whether this process runs under an address-space limit (``ulimit -v``, ``RLIMIT_AS``)."""
    try:
        import resource
    except ImportError:  # Windows
        return False
    try:
        return resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY
    except (OSError, ValueError):
        return False


def parallel_runtime() -> None:
    """Start numba's parallel runtime (its thread pool) now, before the calling module's kernels are loaded.

    Called by each kernel module whose kernels hold parallel loops, or call kernels that do. numba starts
    the runtime itself when it compiles a parallel kernel or loads one from its cache — but not for a kernel
    that merely *calls* one and was compiled in a process that had loaded that callee from the cache (numba
    0.68 loses the callee's start-up hook when it reads a cached kernel). Such a caller, loaded first in a
    new process, jumps into a runtime that was never started: a segmentation fault (seen in CI:
    ``seed_pass_block`` calling the parallel ``block_distances``). A numba outside :data:`TESTED_NUMBA` starts its
    runtime its own way (this reaches into a private function)."""
    if not patches_on():
        return
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
    as it does for every compilation (``CompilerBase.__init__``); a numba outside :data:`TESTED_NUMBA`, or whose
    cache class lacks the methods relied on here, is left to its own way."""
    _LEAN["requested"] = True
    if "numba" in _sys.modules:
        _install_lean_loads()


def ready_compiler() -> None:
    """numba's one-time set-up before it loads a cached kernel (``BaseContext.refresh``), taken under numba's
    compiler lock — the lock numba's own callers hold (``Dispatcher.compile``, which loads from the cache).

    ``refresh`` takes each registry's new entries from a generator shared by every thread
    (``numba.core.utils.stream_list`` through ``BaseRegistryLoader.new_registrations``): two threads refreshing at
    once make the second one's ``next()`` raise ``ValueError: generator already executing``. The workbench's
    start-up preload refreshed on its own thread without the lock while a first run's worker loaded its kernels
    — the condensation run that failed that way once under load (issue 30 item 2)."""
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import cpu_target

    with global_compiler_lock:
        cpu_target.target_context.refresh()


def _install_lean_loads() -> None:
    if not _LEAN["requested"] or _LEAN["installed"] or not patches_on():
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


_CACHE: dict = {"installed": False, "warned": False, "fallback": None, "folder": None, "disk": None}


def _warn_cache(notice: str) -> None:
    """The kernel cache's one warning per process (:class:`anonstudio.KernelCacheWarning`)."""
    if _CACHE["warned"]:
        return
    _CACHE["warned"] = True
    import warnings

    import anonstudio

    warnings.warn(notice, anonstudio.KernelCacheWarning, stacklevel=3)


def cache_folder() -> str:
    """Where anonstudio's kernels are cached in this process (:func:`anonstudio.numba_cache_dir`, decided once:
    ``$NUMBA_CACHE_DIR``, the user's cache folder, or a temporary folder when neither can be written)."""
    if _CACHE["folder"] is None:
        import anonstudio

        _CACHE["folder"] = anonstudio.numba_cache_dir()
    return _CACHE["folder"]


def disk_cache() -> bool:
    """Whether kernels are cached on disk in this process: anonstudio's cache locator is in numba's chain (the
    installed numba is one the locator was tested on). Otherwise :mod:`._jit` compiles them with ``cache=False``,
    so that numba never falls back to the package's own ``__pycache__``."""
    if _CACHE["disk"] is None:
        _CACHE["disk"] = _install_cache_locator()
    return bool(_CACHE["disk"])


def _ours(py_file: str) -> bool:
    """Whether ``py_file`` is one of anonstudio's kernel modules."""
    here = _os.path.dirname(_os.path.realpath(__file__))
    return _os.path.dirname(_os.path.realpath(py_file)) == here


def _install_cache_locator() -> bool:
    """Put anonstudio's cache locator first in numba's chain of locators (numba asks each in turn, per function
    file, until one answers): it answers for anonstudio's kernel files only, with :func:`cache_folder` — or, if that
    folder breaks later, a temporary folder of this process (one warning) — and never lets numba reach its
    fallback of the package's own ``__pycache__`` (issue 29: 13 ``.nbi`` files there). Any other function's file
    gets numba's own locators, unchanged. Returns False (nothing installed) on a numba outside
    :data:`TESTED_NUMBA` or without the classes relied on."""
    if _CACHE["installed"]:
        return True
    import anonstudio

    try:
        import numba
        from numba.core import caching
    except ImportError:
        return False
    impl = getattr(caching, "CacheImpl", None)
    base = getattr(caching, "UserProvidedCacheLocator", None)
    chain = getattr(impl, "_locator_classes", None)
    if not patches_on() or base is None or not isinstance(chain, list):
        why = (f"${UNPATCHED_ENV} is set" if numba_tested() and base is not None and isinstance(chain, list) else
               f"numba {numba.__version__} is not a version anonstudio's kernel cache was tested on "
               f"({'.'.join(map(str, TESTED_NUMBA[0]))} to before {'.'.join(map(str, TESTED_NUMBA[1]))})")
        _warn_cache(f"{why}: kernels are compiled for this process only (not cached)")
        return False
    cache_folder()
    if anonstudio.kernel_cache_notice:
        _warn_cache(anonstudio.kernel_cache_notice)

    class AnonstudioCacheLocator(base):  # type: ignore[misc, valid-type]
        """anonstudio's kernels in :func:`cache_folder`, else a temporary folder of this process; the subfolder
        is named by the kernel file's content, not its path (:func:`cache_subpath`), and seeded from the
        package's shipped cache (:func:`seed_from_shipped`)."""

        def __init__(self, py_func, py_file, folder=None):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = _os.path.join(folder or cache_folder(), self.get_suitable_cache_subpath(py_file))

        @classmethod
        def get_suitable_cache_subpath(cls, py_file):
            return cache_subpath(py_file)

        def ensure_cache_path(self):
            super().ensure_cache_path()
            seed_from_shipped(self._cache_path)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _ours(py_file) or not _os.path.exists(py_file):
                return None  # not anonstudio's: numba's own locators decide
            for folder in (cache_folder(), None):
                if folder is None:
                    folder = _fallback_folder()
                    _warn_cache(f"cannot write the kernel cache in {cache_folder()!r}: kernels are compiled into "
                                f"{folder} for this run only (set NUMBA_CACHE_DIR to a writable folder to keep them)")
                self = cls(py_func, py_file, folder)
                try:
                    self.ensure_cache_path()
                    return self
                except OSError:
                    continue
            raise RuntimeError(f"no folder can hold anonstudio's kernel cache (tried {cache_folder()!r} and "
                               f"{_fallback_folder()!r})")

    chain.insert(0, AnonstudioCacheLocator)
    _CACHE["installed"] = True
    return True


def _fallback_folder() -> str:
    if _CACHE["fallback"] is None:
        import atexit
        import shutil
        import tempfile

        _CACHE["fallback"] = tempfile.mkdtemp(prefix="anonstudio-numba-")
        atexit.register(shutil.rmtree, _CACHE["fallback"], ignore_errors=True)
    return _CACHE["fallback"]


def cache_subpath(py_file: str) -> str:
    """The cache subfolder of kernel file ``py_file``: ``kernels_`` and a digest of the file's bytes.

    numba names the subfolder by a digest of the source file's *folder path*, so a cache built in one place
    (the build machine's checkout) is never found by an install in another; the entries themselves are already
    keyed by the file's content (numba 0.68's source stamp is its SHA-256) and the machine (the CPU name and
    features numba compiled for). Named by content, a cache built at packaging time is found by every install of
    the same kernel sources, and two versions sharing one user cache folder keep separate subfolders."""
    st = _os.stat(py_file)
    return "kernels_" + _content_digest(_os.path.realpath(py_file), st.st_mtime_ns, st.st_size)


_DIGESTS: dict = {}


def _content_digest(path: str, mtime_ns: int, size: int) -> str:
    key = (path, mtime_ns, size)
    if key not in _DIGESTS:
        import hashlib

        with open(path, "rb") as f:
            _DIGESTS[key] = hashlib.sha1(f.read()).hexdigest()[:20]
    return _DIGESTS[key]


def shipped_cache_folder() -> str:
    """The kernel cache built at packaging time (``packaging/build-kernel-cache``) and shipped in the wheel and the
    bundle: ``anonstudio/resources/kernel_cache``; absent in a checkout until that script runs."""
    return _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))),
                         "resources", "kernel_cache")


_SEEDED: set = set()


def seed_from_shipped(cache_path: str) -> None:
    """Copy the shipped cache's files for one kernel file's subfolder into ``cache_path`` (the user's cache), once
    per process and only the files the user's cache lacks; each file is written under a temporary name and renamed,
    so a concurrent process never reads half a file. numba then loads those kernels instead of compiling them when
    they were built for this machine's kind of CPU (its index is keyed by CPU name and features); for any other CPU
    it compiles as before and adds its own entries to the index."""
    if cache_path in _SEEDED:
        return
    _SEEDED.add(cache_path)
    source = _os.path.join(shipped_cache_folder(), _os.path.basename(cache_path))
    if not _os.path.isdir(source) or _os.path.realpath(source) == _os.path.realpath(cache_path):
        return
    import shutil

    for name in sorted(_os.listdir(source)):
        target = _os.path.join(cache_path, name)
        if _os.path.exists(target) or not name.endswith((".nbi", ".nbc")):
            continue
        part = f"{target}.{_os.getpid()}.part"
        try:
            shutil.copyfile(_os.path.join(source, name), part)
            _os.replace(part, target)
        except OSError:  # a read-only or full cache folder: numba compiles as it would have
            try:
                _os.unlink(part)
            except OSError:
                pass
