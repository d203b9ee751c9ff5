"""Where the kernel modules get numba's ``njit`` and ``prange``: importing numba through here puts in force
what the process asked of numba before its first kernel (:func:`anonstudio.core.kernels.lean_cache_loads`)."""

from numba import njit, prange

from anonstudio.core.kernels import _install_lean_loads

_install_lean_loads()

__all__ = ["njit", "prange"]
