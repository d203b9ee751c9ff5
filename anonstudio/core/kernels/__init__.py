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
