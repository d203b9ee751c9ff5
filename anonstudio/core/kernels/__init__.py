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
