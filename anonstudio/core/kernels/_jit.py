"""Where the kernel modules get numba's ``njit`` and ``prange``: importing numba through here puts in force
what the process asked of numba before its first kernel (:func:`anonstudio.core.kernels.lean_cache_loads`), and
keeps the kernel cache out of the installed package (:func:`anonstudio.core.kernels._install_cache_locators`)."""

from numba import njit, prange

from anonstudio.core.kernels import _install_cache_locators, _install_lean_loads

_install_lean_loads()
_install_cache_locators()

__all__ = ["njit", "prange"]
