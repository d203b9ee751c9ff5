"""Readers and writers: delimited tables and Parquet, FASTA, event CSV, ARX hierarchy CSV, JSON reports.

Every file format is one entry of :mod:`anonstudio.core.io.formats` (name, kinds, endings, dialog filter, reader,
writer, canonical bytes).

Inputs are only ever opened for reading; outputs are written to a staging file beside the target and
renamed (:func:`atomic_write`), never half-written; a release (output, side tables, report) is published through
a journal (:class:`Publication`, :func:`recover`). Every error a user can cause is an
:class:`~anonstudio.core.errors.InputError` (or :class:`~anonstudio.core.errors.HierarchyError`) naming the
file and the line or record.
"""

from anonstudio.core.io._atomic import JOURNAL_PREFIX, STAGING_PREFIX, Publication, after_swap, atomic_write, recover
from anonstudio.core.io._dispatch import (
    FORMATS,
    format_of,
    output_bytes,
    read_data,
    read_output_like,
    to_jsonable,
    write_json,
    write_output,
)
from anonstudio.core.io._events import read_events, write_events
from anonstudio.core.io._fasta import read_fasta, write_fasta
from anonstudio.core.io._hierarchy_csv import read_hierarchy, write_hierarchy
from anonstudio.core.io._project_schema import ProjectError, load_project_json, validate_project
from anonstudio.core.io._paths import check_target, input_path, real_path, refuse_overwrites
from anonstudio.core.io import formats
from anonstudio.core.io.formats import Format
from anonstudio.core.io._table import (
    DEFAULT_MISSING,
    SNIFFED_DELIMITERS,
    parquet_index_left_out,
    read_table,
    sniff_delimiter,
    write_table,
)

__all__ = [
    "JOURNAL_PREFIX",
    "Publication",
    "after_swap",
    "STAGING_PREFIX",
    "DEFAULT_MISSING",
    "FORMATS",
    "Format",
    "ProjectError",
    "SNIFFED_DELIMITERS",
    "atomic_write",
    "check_target",
    "format_of",
    "formats",
    "output_bytes",
    "input_path",
    "load_project_json",
    "parquet_index_left_out",
    "read_data",
    "read_events",
    "read_fasta",
    "read_hierarchy",
    "read_output_like",
    "read_table",
    "real_path",
    "recover",
    "refuse_overwrites",
    "sniff_delimiter",
    "to_jsonable",
    "validate_project",
    "write_events",
    "write_fasta",
    "write_hierarchy",
    "write_json",
    "write_output",
    "write_table",
]
