"""The engine's warnings in the workbench's words (issue 40 item 2): a warning names its fix as a job key for
the command line and the report ("set output.shuffle_rows = true"); on screen it names the control that applies it
("tick “Publish rows in a random order” under Release in the Method pane") — and the export dialog offers a button
that applies it. The engine's texts are not changed: only how the workbench presents them (Qt-free, so here
beside the other result views the workbench reads). Also the count words the workbench's own messages use ("1 value is", "2 values are")."""

from __future__ import annotations

import re

#: where the workbench's row-order option is, as its controls read
SHUFFLE_CONTROL = "tick “Publish rows in a random order” under Release in the Method pane"

#: (the engine's words naming a fix as a job key or a role, the workbench's words for it), in order; a warning
#: whose fix is not listed keeps its words
_FIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    # rows or sequences in the input's order; a method that needs a random order (SafePub)
    (re.compile(r"set output\.shuffle_rows\s*=\s*true"), SHUFFLE_CONTROL),
    # the columns published as they are make records unique: give them a role
    (re.compile(r"give those columns a role \(quasi-identifying, sensitive, identifying\)"),
     "give those columns a role in the Attributes pane (select their rows, choose quasi-identifying, sensitive "
     "or identifying)"),
    # a column without a role that looks like an identifier
    (re.compile(r"\(mark it identifying to drop it\)"), "(set its role to identifying in the Attributes pane to "
                                                         "drop it)"),
    # anatomy's columns beside the quasi-identifiers
    (re.compile(r"; mark a column identifying to leave it out"), "; in the Attributes pane, mark a column identifying "
                                                                 "to leave it out"),
)


def in_workbench_words(warning: str) -> str:
    """``warning`` with its fix named as the workbench's controls apply it (the rest of its words unchanged, so
    the engine's risk kinds still recognise it)."""
    text = str(warning)
    for pattern, words in _FIXES:
        text = pattern.sub(words, text)
    return text


def all_in_workbench_words(warnings: list[str] | tuple[str, ...]) -> list[str]:
    return [in_workbench_words(w) for w in warnings]


def shuffling_fixes(warning: str) -> bool:
    """Whether ticking the row-order option removes ``warning`` (rows or sequences in the input's order)."""
    from anonstudio.core.release_verdict import risk_kind

    return risk_kind(str(warning)) in ("rows keep the input's order", "sequences keep the input's order")


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``"1 value"``, ``"12 values"`` (thousands separated)."""
    return f"{n:,} {singular if n == 1 else (plural or singular + 's')}"


def is_are(n: int) -> str:
    """The verb that agrees with ``n``: ``"is"`` for one, ``"are"`` otherwise."""
    return "is" if n == 1 else "are"
