"""Errors the engine raises for things a user can fix.

Every error a user can cause is an :class:`AnonStudioError` carrying where it happened (file, line or
record, column) and one human sentence. The CLI prints ``str(error)`` as its one line on stderr and maps
the class to the exit code of the contract (``exit_code``); the GUI shows the same text in a dialog.
"""

from __future__ import annotations

from pathlib import Path


class AnonStudioError(Exception):
    """Base of every user-facing error.

    Parameters
    ----------
    message:
        One sentence saying what is wrong, in the user's terms.
    file:
        The file involved, if any.
    line:
        1-based line number in ``file``.
    record:
        A record identifier (FASTA id, sequence id, row number) where lines do not fit.
    column:
        Column or attribute name (of the data).
    key:
        Job-file key (``algorithm.k``, ``input.quasi_identifiers``) or parameter name.
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        record: str | int | None = None,
        column: str | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.record = record
        self.column = column
        self.key = key

    def location(self, *, column: bool = True, key: bool = True) -> str:
        """``file:line`` / ``file, record R`` / ``column 'c'`` — whatever is known, joined (``column`` and
        ``key`` False: without those parts, for callers that word them themselves)."""
        parts: list[str] = []
        if self.file is not None:
            parts.append(self.file + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.record is not None:
            parts.append(f"record {self.record}")
        if column and self.column is not None:
            parts.append(f"column '{self.column}'")
        if key and self.key is not None:
            parts.append(f"key '{self.key}'")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        return f"{where}: {self.message}" if where else self.message


class InputError(AnonStudioError):
    """A data file (table, FASTA, events) cannot be read as asked."""


class HierarchyError(AnonStudioError):
    """A generalization hierarchy is malformed or does not cover the data."""


class JobError(AnonStudioError):
    """A job file is malformed: unknown key, wrong type, missing path."""


class ParameterError(AnonStudioError):
    """An algorithm parameter is out of range or inconsistent with the data (e.g. k > n)."""


class OutputError(AnonStudioError):
    """An output cannot be written where asked: a folder, a device, a read-only place, a full disk."""


class NotAvailableError(AnonStudioError):
    """A method or experiment named in the contract that this version does not provide yet."""


class PrivacyError(AnonStudioError):
    """The privacy model could not be met, or an output failed independent verification (exit 1)."""

    exit_code = 1
