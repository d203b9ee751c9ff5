"""Bounds on everything a user can type (issue 29): a number, a nesting, a count that would make a run take
unbounded memory or time is refused up front, with exit 2 and one line naming the file and key. Each bound is
stated, with its number, in docs/guarantees.md ("Errors and guarantees"); ``tests/bad_inputs/cases.csv`` holds a case
beyond each.

Standard library only: job and project files are checked before anything heavy is imported.
"""

from __future__ import annotations

import re
from pathlib import Path

from anonstudio.core.errors import AnonStudioError

#: tables and lists inside each other in a job file (TOML, ``--set`` values included) or a project file (JSON);
#: a real job nests 4 deep (``[hierarchies]`` → builder → ``groups`` → a level's table)
MAX_NESTING = 32
#: columns of an input table or event log (each column costs every step a pass: 5,000 columns took minutes)
MAX_COLUMNS = 1_000
#: levels of a hierarchy a builder makes (interval widths, masked levels, grouping levels): 20,000 interval
#: widths asked for 52 GiB
MAX_HIERARCHY_LEVELS = 100
#: reruns of RA that measure its empirical bias (``bias_runs``); each is a whole run of the method
MAX_BIAS_RUNS = 1_000
#: any whole number a parameter takes, seeds included: the kernels compute in 64-bit integers
MAX_INT = 2**63 - 1
#: a whole number written as a decimal (``1e3``) is taken only up to this: beyond it a float is not exact
MAX_EXACT_INT_AS_FLOAT = 2**53
#: condensation's ``max_fragment`` (symbols); longer than any string means "no fragment rule"
MAX_FRAGMENT = 1_000_000
#: the smallest seed a secret draw may use (RA's redraws, a shuffle's row order): below it the seed is found by
#: trying every value (a typed 4242 in seconds; a seed of 1 put every record of an RA release back)
MIN_SECRET_SEED = 2**48

_TOML_TOKENS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}\n]')
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}\n]')


def nesting_too_deep(text: str, *, json: bool = False, limit: int = MAX_NESTING) -> int | None:
    """The 1-based line where ``text`` (TOML, or JSON with ``json``) nests lists and tables more than ``limit``
    deep, or ``None``. Brackets inside strings and comments do not count. Parsers recurse once per level, so
    a file nested 500 deep would exhaust Python's stack (exit 3 before): it is measured before parsing."""
    depth = 0
    line = 1
    for match in (_JSON_TOKENS if json else _TOML_TOKENS).finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token in "[{":
            depth += 1
            if depth > limit:
                return line
        elif token in "]}":
            depth = max(0, depth - 1)
        else:
            line += token.count("\n")
    return None


def check_nesting(text: str, *, file: str | Path | None, error: type[AnonStudioError], what: str,
                  json: bool = False, key: str | None = None) -> None:
    """Raise ``error`` naming the line when ``text`` nests deeper than :data:`MAX_NESTING`."""
    line = nesting_too_deep(text, json=json)
    if line is not None:
        raise error(f"{what} nests lists and tables more than {MAX_NESTING} deep: anonstudio reads at most "
                    f"{MAX_NESTING} levels", file=file, line=line if key is None else None, key=key)


def text_encoding_problem(encoding: str) -> str | None:
    """Why ``encoding`` cannot name a text file's character encoding (unknown; a codec that transforms bytes or
    text, such as ``rot13``, ``base64``, ``zip``), or ``None``."""
    import codecs

    try:
        info = codecs.lookup(encoding)
    except (LookupError, TypeError, ValueError):
        return f"unknown encoding {encoding!r}"
    if not getattr(info, "_is_text_encoding", True):
        return (f"{encoding!r} is not a character encoding (it transforms bytes or text, as base64, zip or rot13 "
                "do): give the file's encoding, e.g. utf-8 or latin-1")
    return None


def path_problem(text: str) -> str | None:
    """Why ``text`` cannot be a file path (a NUL character, more than 4,096 bytes, a name over 255), or ``None``."""
    if "\x00" in text:
        return "contains a NUL character"
    if len(text.encode("utf-8", "surrogateescape")) > 4096 or any(
            len(part.encode("utf-8", "surrogateescape")) > 255 for part in Path(text).parts):
        return f"is too long for a file name ({len(text)} characters)"
    return None


def raise_for_long_number(text: str, exc: ValueError, *, file: str | Path | None, error: type[AnonStudioError],
                          what: str) -> None:
    """Raise ``error`` naming the line and key of a number too long for Python to read (over
    ``sys.get_int_max_str_digits()`` digits, 4,300 by default: a job or project file's 5,000-digit integer was a raw
    ``ValueError`` naming neither file nor key, issue 44 item 10) if ``exc`` is that; else return."""
    import sys

    if "integer string conversion" not in str(exc):
        return
    limit = sys.get_int_max_str_digits() or 4300
    found = re.search(r"[0-9_]{%d,}" % (limit + 1), text)
    if found is None:
        raise error(f"{what} holds a number of more than {limit:,} digits, which cannot be read", file=file) from None
    before = text[: found.start()]
    line = before.count("\n") + 1
    keys = re.findall(r"""["']?([A-Za-z0-9_.-]+)["']?\s*[:=]""", before.rsplit("\n", 1)[-1])
    digits = sum(c.isdigit() for c in found.group())
    raise error(f"a number of {digits:,} digits: at most {limit:,} can be read", file=file, line=line,
                key=keys[-1] if keys else None) from None
