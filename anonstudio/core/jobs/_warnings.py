"""Release-risk warnings: what the privacy model does not cover, for the report, the command line and the
workbench alike (one list, computed once per run by :func:`anonstudio.core.jobs.run`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from anonstudio.core import io
from anonstudio.core.data import EventLog, Table
from anonstudio.core.publication import ORDER_WARNING, SEQUENCE_ORDER_WARNING


def hierarchy_attributes(data: Any) -> list[str]:
    """The attributes that need a hierarchy: the quasi-identifiers of a table or an event log."""
    if isinstance(data, (Table, EventLog)):
        return list(data.quasi_identifiers)
    return []


#: warn when more than this share of the published records is unique on its quasi-identifiers together with
#: the columns published as they are: each such record is one person to anyone who knows those values.
UNIQUE_WARNING_SHARE = 0.01
#: event logs published their sequence ids as they were until issue 39 item 7; a release now numbers them 1..n
#: in its own order (``publication.renumbered_sequences``), so this warning is no longer given (kept: a public name)
IDS_WARNING = ("sequence ids (column '{column}') are published as they are: if they are record numbers or anyone "
               "may know them, replace them with pseudonyms before the release — (k,c)-privacy does not cover them")


def hierarchies_used(algorithm: Any) -> set[str] | None:
    """The attributes whose hierarchy ``algorithm`` (a method instance or class) uses: ``None`` for every
    quasi-identifier's (the generalizing methods); for methods that publish values as they are (random
    anonymization, anatomy) only those it publishes at a hierarchy level (``level = {age = 1}``)."""
    if algorithm is None or getattr(algorithm, "needs_hierarchies", True):
        return None
    params = getattr(algorithm, "params", None)
    levels = params.get("level") if isinstance(params, dict) else None
    return {str(a) for a in (levels or {})}


def hierarchy_warnings(specs: dict[str, Any], data: Any, hierarchies: dict[str, Any], *,
                       used: set[str] | None = None) -> list[str]:
    """Hierarchies given for columns that are not quasi-identifiers (ignored), and interval labels that do
    not contain their value (file, line, value, label). ``used`` (:func:`hierarchies_used`): the attributes whose
    hierarchy the method uses; a method that uses none (random anonymization, anatomy) gets no warning about a
    hierarchy it ignores."""
    warnings = []
    needed = set(hierarchy_attributes(data))
    if used is not None:
        specs = {a: s for a, s in specs.items() if a in used}
        hierarchies = {a: h for a, h in hierarchies.items() if a in used}
    for attr in specs:
        if attr not in needed and attr in hierarchies:  # a sensitive column's: t-closeness may measure along it
            continue
        if attr not in needed:
            warnings.append(f"a hierarchy is given for '{attr}', which is not a quasi-identifier: it is not used "
                            "(make the column quasi-identifying or remove the hierarchy)")
    for attr, h in hierarchies.items():
        bad = h.interval_mismatches()
        if bad:
            where = f"{h.source.name}:" if h.source is not None else "line "
            shown = "; ".join(f"{where}{line}: {value} is under '{label}'" for line, value, label in bad[:3])
            warnings.append(f"hierarchy of '{attr}': {len(bad)}{'+' if len(bad) >= 20 else ''} value(s) sit under an "
                            f"interval that does not contain them ({shown}): the output would publish wrong ranges")
    return warnings


def _unroled_clause(algorithm: Any) -> str | None:
    """What the method's model leaves open about the columns published without a role, in its own words: the
    generalizing methods' k-anonymity, random anonymization's redraws; ``None`` for anatomy, which publishes the
    quasi-identifiers as they are by design (records unique on them are no breach of its model)."""
    if algorithm is None or getattr(algorithm, "needs_hierarchies", True):
        return "k-anonymity covers only the quasi-identifiers"
    if getattr(algorithm, "group_unit", "group") is None:
        return "random anonymization redraws only quasi-identifier values, so these columns are published exactly"
    return None


def release_warnings(data: Any, output: Any, algorithm: Any = None) -> list[str]:
    """Risks the privacy model does not cover, for the report, the CLI and the workbench (issue 11 #14, #16):
    columns published as they are that look like identifiers, and records unique on the quasi-identifiers
    together with the columns that have no role, said in the words of ``algorithm``'s model (issue 30: never
    k-anonymity to a method that does not promise it; anatomy, which publishes the quasi-identifiers as they are,
    is told which columns stand beside them unprotected); and what of the input was not read (a Parquet file's
    stored index)."""
    if isinstance(data, EventLog):  # the order warning is removed at publication when sequences are shuffled
        return [SEQUENCE_ORDER_WARNING]
    if not isinstance(data, Table) or not isinstance(output, Table):
        return []
    warnings: list[str] = [ORDER_WARNING]  # removed at publication when the rows are shuffled
    left_out = io.parquet_index_left_out(data)
    if left_out:
        warnings.append(
            f"the Parquet file {getattr(data.source, 'name', 'read')} also stores {', '.join(repr(c) for c in left_out)} as its "
            "index (pandas writes a frame's index that way): it was not read, so it is neither given a role nor "
            "published; to anonymize it as a column, save the frame with reset_index() first")
    frame = output.df
    n = len(frame)
    # column by column, in slices of rows (core.data._chunks): on the workbench's worker thread no pandas call
    # holds the interpreter lock long enough to freeze the window
    from anonstudio.core.data import _chunks, coded_cells

    unroled = [c for c in frame.columns if data.role(c).value == "insensitive" and c in data.df.columns]
    for c in unroled:
        if n > 1:
            codes, uniques = _chunks.factorize(data.df[c])
            if len(uniques) + bool((codes < 0).any()) == n:  # distinct values, a missing cell counting as one
                warnings.append(f"column '{c}' has no role and a different value in every record: it looks like "
                                "an identifier and is published as it is (mark it identifying to drop it)")
    qis = [q for q in data.quasi_identifiers if q in frame.columns]
    clause = _unroled_clause(algorithm)
    if clause is None and unroled:
        sensitive = ", ".join(f"'{s}'" for s in data.sensitive) or "the sensitive column"
        warnings.append(
            f"the columns published without a role ({', '.join(unroled[:6])}{' …' if len(unroled) > 6 else ''}) "
            f"stand beside the quasi-identifiers as they are: anatomy protects only the link to {sensitive}; mark a "
            "column identifying to leave it out, or sensitive, if it must not be linked to a person")
    elif qis and unroled and n:
        # equal codes are equal text (missing = empty): integers to group, not n Python strings per column
        key = _chunks.row_classes([coded_cells(frame[c], "").codes for c in qis + unroled], n)
        unique = int((np.bincount(key) == 1).sum())
        if unique / n > UNIQUE_WARNING_SHARE:
            warnings.append(
                f"{unique} records ({unique / n:.1%}) are unique on the quasi-identifiers together with the columns "
                f"published as they are ({', '.join(unroled[:6])}{' …' if len(unroled) > 6 else ''}): {clause}; "
                "give those columns a role (quasi-identifying, sensitive, identifying) if others may know them")
    return warnings

