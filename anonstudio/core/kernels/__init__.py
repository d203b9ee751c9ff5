"""numba kernels: numpy arrays in, numpy arrays out; no Python objects, no I/O, no callbacks.

Every kernel is compiled with ``cache=True, nogil=True``; callers run them in chunks and report progress
between chunks. Modules here are imported lazily by the algorithms that need them.
"""
