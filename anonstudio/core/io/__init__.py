"""Readers and writers. Every error is an AnonStudioError naming the file and line/record."""

from anonstudio.core.io._atomic import atomic_write

__all__ = ["atomic_write"]
