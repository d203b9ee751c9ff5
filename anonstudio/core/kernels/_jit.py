"""Where the kernel modules get numba's ``njit`` and ``prange``: importing numba through here puts in force
what the process asked of numba before its first kernel (:func:`anonstudio.core.kernels.lean_cache_loads`), and
keeps the kernel cache in anonstudio's own folder (:func:`anonstudio.core.kernels.disk_cache`). On a numba the
cache locator was not tested on, kernels are compiled without a disk cache (``cache=False``): numba's own locators
would fall back to the installed package's ``__pycache__``."""

from numba import njit as _numba_njit
from numba import prange

from anonstudio.core.kernels import _install_lean_loads, disk_cache

_install_lean_loads()
_DISK = disk_cache()


def njit(*args, **kwargs):
    """numba's ``njit``, with ``cache=`` honoured only when anonstudio's cache locator is in force."""
    if not _DISK:
        kwargs["cache"] = False
    return _numba_njit(*args, **kwargs)


__all__ = ["njit", "prange"]
