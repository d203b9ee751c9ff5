"""Readers and writers. Every error is an AnonStudioError naming the file and line/record."""

from anonstudio.core.io._atomic import atomic_write
from anonstudio.core.io._table import DEFAULT_MISSING, read_table, sniff_delimiter, write_table

__all__ = ["DEFAULT_MISSING", "atomic_write", "read_table", "sniff_delimiter", "write_table"]
