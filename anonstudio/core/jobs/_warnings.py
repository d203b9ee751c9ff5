"""Release-risk warnings: what the privacy model does not cover, for the report, the command line and the
workbench alike (one list, computed once per run by :func:`anonstudio.core.jobs.anonymize`)."""

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


#: warn when more than this share of the published records is in a class smaller than k (unique, for a method
#: without k) on its quasi-identifiers together with the columns published unchanged: anyone who knows those values
#: narrows each such record to fewer than k people.
UNIQUE_WARNING_SHARE = 0.01
#: the words for the columns a release publishes as they are, whatever their role is called (no role, or set to
#: insensitive: the same role, the same risk)
UNCHANGED = "columns published unchanged"
#: how a user changes a column's role, in the workbench and in a job file
ROLE_FIX = ("set their role to {role} (the Attributes pane's Role, or the job's [input] lists)")
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


def _class_size_of(algorithm: Any) -> int:
    """The class size the columns published unchanged are judged against: the job's k for a method that promises
    k-anonymity, else 2 (records unique on them)."""
    params = getattr(algorithm, "params", None)
    k = params.get("k") if isinstance(params, dict) and getattr(algorithm, "needs_hierarchies", True) else None
    return int(k) if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 2 else 2


def unchanged_classes(frame: Any, qis: list[str], unchanged: list[str]) -> tuple[np.ndarray, int] | None:
    """``(sizes, records)``: per record judged, the size of its class on a published table's quasi-identifiers
    together with the columns it publishes unchanged, and the records judged. A record whose cells are all ``*`` (a suppressed block smaller
    than k publishes nothing but its count) is left out; a fully suppressed record that publishes its other cells is
    in its class like any other (issue 39: the suppressed block is a class). The sizes count records: the place a
    count of people per class would replace."""
    from anonstudio.core.data import _chunks, coded_cells

    n = len(frame)
    coded = [coded_cells(frame[c], "") for c in qis + unchanged]
    blank = np.ones(n, dtype=bool)
    for cells in coded:
        star = np.flatnonzero(cells.texts == "*")
        blank &= (cells.codes == star[0]) if len(star) else False
    keep = np.flatnonzero(~blank)
    if not len(keep):
        return None
    key = _chunks.row_classes([cells.codes[keep] for cells in coded], len(keep))
    return np.bincount(key)[key], len(keep)


#: the words of the near-match warning on a random-anonymization release (issue 39; :func:`near_match_warning`)
NEAR_MATCH_WORDS = "singled out by a near match"


def near_match_warning(data: Table, output: Table, algorithm: Any, hierarchies: dict[str, Any] | None) -> str | None:
    """The near-match attack on a random-anonymization release (``algorithm.singled_out``; ``ra``, ``ra-enhanced``):
    a warning when more than :data:`UNIQUE_WARNING_SHARE` of the input's records have exactly one published record
    within ``m`` changed quasi-identifiers of their true values and it is theirs (``m``: the quasi-identifiers RA may
    redraw per record). ``None`` for other methods, below the threshold, or when the count is not computed (a
    level the job names without its hierarchy; more groupings than the count takes, said in the report's
    metrics)."""
    measure = getattr(algorithm, "singled_out", None)
    if measure is None or not len(output.df):
        return None
    levels = (getattr(algorithm, "params", None) or {}).get("level") or {}
    if any(a not in (hierarchies or {}) for a in levels):
        return None
    figures = measure(data, output, hierarchies or {})
    if not figures.get("computed") or figures["share"] <= UNIQUE_WARNING_SHARE:
        return None
    m, n, certain = figures["max_changed"], figures["singled_out_correct"], figures.get("sensitive_certain")
    change = "one changed quasi-identifier" if m == 1 else f"{m} changed quasi-identifiers"
    raise_it = ("redraw more per record (ra-enhanced with a higher attributes_per_record)"
                if getattr(algorithm, "name", "") == "ra" else "raise attributes_per_record")
    then = (f"; the sensitive value of {certain} record{'s is' if certain != 1 else ' is'} then certain (every "
            "published record that near carries the same one)" if certain else "")
    return (f"{n} records ({figures['share']:.1%}) are {NEAR_MATCH_WORDS}: exactly one published record lies within "
            f"{change} of their own values, and it is theirs{then} — random anonymization promises no k; "
            f"{raise_it} or use a partitioning method (mondrian, global, kmember, mst)")


def release_warnings(data: Any, output: Any, algorithm: Any = None, *,
                     hierarchies: dict[str, Any] | None = None) -> list[str]:
    """Risks the privacy model does not cover, for the report, the CLI and the workbench (issue 11 #14, #16):
    columns published unchanged that look like identifiers, and records in classes smaller than the job's k
    (unique, for a method without k) on the quasi-identifiers together with the columns published unchanged
    (:func:`unchanged_classes`; issue 39 item 8), said in the words of ``algorithm``'s model (issue 30: never
    k-anonymity to a method that does not promise it; anatomy, which publishes the quasi-identifiers as they are,
    is told which columns stand beside them unprotected); and what of the input was not read (a Parquet file's
    stored index); for random anonymization, records singled out by a near match (:func:`near_match_warning`,
    ``hierarchies``: those of the job, for the levels it publishes at)."""
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
    from anonstudio.core.data import _chunks

    unchanged = [c for c in frame.columns if data.role(c).value == "insensitive" and c in data.df.columns]
    for c in unchanged:
        if n > 1:
            codes, uniques = _chunks.factorize(data.df[c])
            if len(uniques) + bool((codes < 0).any()) == n:  # distinct values, a missing cell counting as one
                warnings.append(f"column '{c}' is published unchanged and holds a different value in every record: "
                                f"it looks like an identifier — {ROLE_FIX.format(role='identifying')} to drop it")
    qis = [q for q in data.quasi_identifiers if q in frame.columns]
    clause = _unroled_clause(algorithm)
    shown = f"{', '.join(unchanged[:6])}{' …' if len(unchanged) > 6 else ''}"
    if clause is None and unchanged:
        sensitive = ", ".join(f"'{s}'" for s in data.sensitive) or "the sensitive column"
        warnings.append(
            f"the columns published unchanged ({shown}) stand beside the quasi-identifiers as they are: anatomy "
            f"protects only the link to {sensitive}; {ROLE_FIX.format(role='identifying')} to leave a column out, "
            "or sensitive, if it must not be linked to a person")
    elif qis and unchanged and n:
        k = _class_size_of(algorithm)
        judged = unchanged_classes(frame, qis, unchanged)
        if judged is not None:
            sizes, records = judged  # per record, the size of its class
            below = int((sizes < k).sum())
            unique = int((sizes == 1).sum())
            if records and below / records > UNIQUE_WARNING_SHARE:
                where = (f"in classes of fewer than k = {k} records" if k > 2 else "unique")
                warnings.append(
                    f"{below} records ({below / records:.1%}) are {where} on the quasi-identifiers together with the "
                    f"{UNCHANGED} ({shown}): the smallest such class holds {int(sizes.min())} record"
                    f"{'s' if int(sizes.min()) != 1 else ''}, {unique} record{'s are' if unique != 1 else ' is'} "
                    f"unique; {clause}; if others may know those columns, "
                    f"{ROLE_FIX.format(role='quasi-identifying')} to generalize them (or identifying to drop them)")
    near = near_match_warning(data, output, algorithm, hierarchies)
    if near is not None:
        warnings.append(near)
    from anonstudio.core.privacy._people import person_warnings

    warnings += person_warnings(data)  # several records per person and no person column named (issue 39 item 2)
    return warnings

