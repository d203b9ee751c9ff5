"""The verdict of an independent verifier, and small helpers the verifiers share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import CodedCells, coded_cells, text_cells
from anonstudio.core.io import to_jsonable

#: How many problem sentences and violation records a verdict keeps in all, and per kind of violation
#: (so that one kind cannot hide the others); counts are always complete.
MAX_LISTED = 20
MAX_PER_KIND = 5

#: Token marking a missing cell when cells are compared as text.
NA_TOKEN = "\x00NA"


@dataclass
class Verification:
    """What an independent verifier found.

    Attributes
    ----------
    passed:
        True only if every check held.
    model:
        The privacy model checked, e.g. ``"k-anonymity"``, ``"(k,c)-privacy"``, ``"pseudo-strings"``.
    details:
        JSON-able figures: parameters, record and class counts, smallest class, suppressed records,
        violation counts and the first violations.
    problems:
        Human sentences, the first few violations (each naming the row / record / sequence).
    """

    passed: bool
    model: str
    details: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: model, parameters, verdict, key figures or the first problem."""
        params = ", ".join(
            f"{key}={self.details[key]}" for key in ("k", "l", "c") if self.details.get(key) is not None
        )
        head = f"{self.model}" + (f" ({params})" if params else "")
        if self.passed:
            figures = []
            for key, text in (
                ("records", "records"),
                ("sequences", "sequences"),
                ("strings", "strings"),
                ("classes", "classes"),
                ("groups", "groups"),
                ("smallest_class", "smallest class"),
                ("smallest_group", "smallest group"),
                ("suppressed", "suppressed"),
                ("longest_shared_max", "longest shared substring"),
            ):
                if self.details.get(key) is not None:
                    figures.append(f"{text} {self.details[key]}")
            return f"{head}: passed" + (" — " + ", ".join(figures) if figures else "")
        n = self.details.get("violations", len(self.problems))
        first = self.problems[0] if self.problems else "no details"
        return f"{head}: FAILED ({n} violation(s)) — {first}"

    def as_dict(self) -> dict[str, Any]:
        """``{"passed", "model", "details", "problems"}``, JSON-able."""
        return {
            "passed": bool(self.passed),
            "model": self.model,
            "details": to_jsonable(self.details),
            "problems": list(self.problems),
        }


class Problems:
    """Collects violations: counts all, keeps the first :data:`MAX_PER_KIND` sentences and records of each
    kind, at most :data:`MAX_LISTED` in all."""

    def __init__(self) -> None:
        self.sentences: list[str] = []
        self.records: list[dict[str, Any]] = []
        self.count = 0
        self._per_kind: dict[str, int] = {}

    def add(self, sentence: str, **record: Any) -> None:
        self.count += 1
        kind = str(record.get("kind", ""))
        seen = self._per_kind.get(kind, 0)
        if len(self.sentences) < MAX_LISTED and seen < MAX_PER_KIND:
            self._per_kind[kind] = seen + 1
            self.sentences.append(sentence)
            self.records.append(to_jsonable(record))

    def __bool__(self) -> bool:
        return self.count > 0


def frame_of(output: Any, what: str = "a table or event log") -> pd.DataFrame:
    """The cells of an output: a DataFrame as it is, a Table's or EventLog's ``df``."""
    if isinstance(output, pd.DataFrame):
        return output
    if hasattr(output, "df"):
        return output.df
    raise TypeError(f"cannot verify a {type(output).__name__} as {what}")


def repeated_columns(problems: Problems, frame: pd.DataFrame, what: str = "the output") -> bool:
    """Add a problem per column name that ``frame`` holds more than once; True if any. A second column of one
    name is published too (and may hold the unprotected values), yet ``frame[name]`` gives both as one frame:
    no check can be made column by column, so the verdict fails before any is tried."""
    counts = pd.Index(frame.columns).value_counts(sort=False)
    twice = [c for c, n in counts.items() if n > 1]
    for c in twice:
        problems.add(f"column '{c}' appears {int(counts[c])} times in {what}: a column name must be unique",
                     column=c, kind="column twice")
    return bool(twice)


def known_columns(frame: pd.DataFrame, columns, role: str) -> None:
    """Refuse a column the verdict depends on (a quasi-identifier, the sensitive column) that the input does
    not have: skipped, it would be checked nowhere and the verdict would pass over its published values."""
    from anonstudio.core.errors import ParameterError

    for c in columns:
        if c not in frame.columns:
            shown = ", ".join(map(str, frame.columns[:12])) + (" …" if len(frame.columns) > 12 else "")
            raise ParameterError(f"{role} '{c}' is not a column of the input (columns: {shown})", column=str(c))


def as_text(series: pd.Series) -> np.ndarray:
    """A column as an object array of strings, missing cells as :data:`NA_TOKEN`."""
    return text_cells(series, NA_TOKEN)


def as_coded(series: pd.Series) -> CodedCells:
    """:func:`as_text` as codes and distinct texts (``as_coded(s).array()`` equals ``as_text(s)``): what the
    table verifiers compare and group, so 10 million rows never become 10 million Python strings."""
    return coded_cells(series, NA_TOKEN)


def show(value: Any) -> str:
    """A cell for a message: ``'x'`` or ``(missing)``."""
    if value == NA_TOKEN or value is None or value is pd.NA:
        return "(missing)"
    if isinstance(value, str) and value.startswith(NA_TOKEN):  # a missing cell as the file spells it
        return f"(missing, written {show(value[len(NA_TOKEN):])})"
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(value))
    return f"'{text}'" if len(text) <= 60 else f"'{text[:60]}…' ({len(text):,} characters)"
