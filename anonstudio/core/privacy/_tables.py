"""Independent checks of anonymized tables: k-anonymity and l-diversity (anatomy: ``_anatomy``).

They look only at the original table, the published frame and the hierarchies — never at an algorithm's
groups or counters — and are vectorized (a 30,000-row table verifies in a fraction of a second): cells
are compared per distinct ``(original, published)`` pair, classes are found with one ``groupby``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import CodedCells, Role, Table
from anonstudio.core.errors import ParameterError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.privacy._counts import class_sizes, pair_counts
from anonstudio.core.progress import checkpoint
from anonstudio.core.models import ClassStats, KAnonymity, l_diversity
from anonstudio.core.privacy._verification import (NA_TOKEN, Problems, Verification, as_coded, as_text, frame_of,
                                                   known_columns, repeated_columns, show)

#: A quasi-identifier cell holding this (or its hierarchy's root label) is suppressed.
SUPPRESSED = "*"


def _row_ref(table: Table | None, i: int) -> str:
    """``row 5 (adult.csv:6)``: 1-based data row, with the source line when known."""
    ref = f"row {i + 1}"
    if table is not None and table.source is not None:
        ref += f" ({Path(table.source).name}:{table.line_of(i)})"
    return ref


def _class_ids(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Equivalence-class id per row: rows with identical (text) values in ``columns``."""
    return _class_ids_of([as_coded(frame[c]) for c in columns], len(frame))


def _class_ids_of(columns: list[CodedCells], n: int) -> np.ndarray:
    """:func:`_class_ids` of columns already coded: ids in order of first appearance."""
    key = np.zeros(n, dtype=np.int64)
    for col in columns:  # mixed-radix key of the columns' codes, re-factorized so it never overflows
        key = pd.factorize(key * max(len(col.texts), 1) + col.codes)[0].astype(np.int64)
        checkpoint()
    return key


def suppressed_rows(frame: pd.DataFrame, quasi_identifiers: Sequence[str], hierarchies: dict[str, Hierarchy]) -> np.ndarray:
    """Rows whose every quasi-identifier cell is ``*`` or its hierarchy's root label (fully suppressed)."""
    qis = [q for q in quasi_identifiers if q in frame.columns]
    out = np.ones(len(frame), dtype=bool) if qis else np.zeros(len(frame), dtype=bool)
    for q in qis:
        roots = [SUPPRESSED] + ([hierarchies[q].root_label] if q in hierarchies else [])
        out &= as_coded(frame[q]).isin(roots)
        checkpoint()
    return out


def marker_problem(h: Hierarchy | None, column: str) -> str | None:
    """Why ``'*'`` cannot mark a suppressed cell of ``column``: its hierarchy labels a value or a group ``'*'``
    under a root of another label, so a published ``'*'`` would read as that group (``56043;*;Any``: zip 56043)
    while the verifier exempted it from the k test as suppressed. ``None`` if the marker is unambiguous (a root
    labelled ``'*'`` may share its label with a fully masked value: ``'*'`` then means any value)."""
    if h is None or h.root_label == SUPPRESSED:
        return None
    row = next((i for i, r in enumerate(h.rows) if SUPPRESSED in r[:-1]), None)
    if row is None:
        return None
    where = f"{h.source.name}:{h.lines[row]}" if h.source is not None else f"line {h.lines[row]}"
    return (f"the hierarchy of '{column}' labels a value or group '{SUPPRESSED}' ({where}: "
            f"{';'.join(h.rows[row])}) under its root '{h.root_label}': '{SUPPRESSED}' marks a suppressed cell, so a "
            f"published '{SUPPRESSED}' would be exempt from the k test yet read as that group — relabel it")


def suppressed_block(suppressed: np.ndarray, published: list[CodedCells], k: int, *,
                     publishes_more: bool = True, people: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(blank, sizes)``: the fully suppressed records that must publish every other cell ``*`` too, and per
    record the size of its block (0 for a record not suppressed).

    The records exempt from the class-size test are a class of their own to an attacker: whoever is missing from
    the published classes is one of them (issue 39). Grouped by their published quasi-identifier cells
    (``published``: the columns as coded, ``*`` and a hierarchy's root label told apart as a reader tells them), a
    block of fewer than ``k`` records publishes nothing but its count — its other cells (the sensitive column and
    every column published unchanged) are ``*`` — and a block of at least ``k`` publishes them as they are (the
    job's other models judge it as one class). ``publishes_more``: whether the release has columns besides the
    quasi-identifiers (without any, nothing is blanked). The count per block is of records, or of distinct people
    when ``people`` (each record's person code, a person column named: issue 39 item 2) is given — one person's
    three suppressed visits are one person to find among the missing, not three."""
    n = len(suppressed)
    sizes = np.zeros(n, dtype=np.int64)
    rows = np.flatnonzero(suppressed)
    if not len(rows):
        return np.zeros(n, dtype=bool), sizes
    ids = _class_ids_of([cells.take(rows) for cells in published], len(rows))
    if people is None:
        sizes[rows] = np.bincount(ids)[ids]
    else:
        from anonstudio.core.privacy._people import distinct_people

        sizes[rows] = distinct_people(ids, np.asarray(people)[rows])[ids]
    blank = np.zeros(n, dtype=bool)
    if publishes_more:
        blank[rows] = sizes[rows] < k
    return blank, sizes


def blanked_block(original: Table, output: Table | pd.DataFrame, quasi_identifiers: Sequence[str],
                  hierarchies: dict[str, Hierarchy], k: int, people: np.ndarray | None = None) -> np.ndarray:
    """The rows of ``output`` (a release of ``original``) in a suppressed block smaller than ``k``
    (:func:`suppressed_block`): their other cells are ``*``, so a model judging sensitive values exempts them
    (the k-anonymity part refuses the release if they publish anything)."""
    pub = frame_of(output, "a table")
    qis = [q for q in quasi_identifiers if q in pub.columns]
    if not pub.columns.is_unique or not qis:
        return np.zeros(len(pub), dtype=bool)
    identifying = {c for c in original.df.columns if original.role(c) is Role.IDENTIFYING}
    others = [c for c in pub.columns if c not in qis and c not in identifying]
    suppressed = suppressed_rows(pub, qis, hierarchies)
    return suppressed_block(suppressed, [as_written(output, q, as_coded(pub[q])) for q in qis], k,
                            publishes_more=bool(others), people=people)[0]


def as_written(output: Table | pd.DataFrame, column: str, cells: CodedCells) -> CodedCells:
    """``cells`` (a published column as compared) with each missing cell that the file spells with a token
    (``?``, ``NA``: :meth:`Table.publish_frame` writes it back so) told apart by that token: equal missing
    cells spelled differently are different values to a reader of the file, so they are different classes."""
    tokens = output.missing_text.get(column) if isinstance(output, Table) else None
    na = np.flatnonzero(cells.texts == NA_TOKEN)
    if tokens is None or not len(tokens) or not len(na):
        return cells
    rows = output.df.index.get_indexer(tokens.index)
    keep = rows >= 0
    rows, spelled = rows[keep], tokens.to_numpy(dtype=object)[keep]
    hit = cells.codes[rows] == na[0]
    rows, spelled = rows[hit], spelled[hit]
    if not len(rows):
        return cells
    codes, uniques = pd.factorize(np.asarray([str(t) for t in spelled], dtype=object))
    out = cells.codes.copy()
    out[rows] = len(cells.texts) + codes
    texts = np.concatenate([cells.texts, np.array([f"{NA_TOKEN}{u}" for u in uniques], dtype=object)])
    return CodedCells(out, texts)


def _cell_problems(problems: Problems, table: Table, column: str, bad: np.ndarray, o: np.ndarray, p: np.ndarray,
                   kind: str, says) -> None:
    """List the first ten bad cells of ``column`` (``says(i)`` words cell ``i`` after its reference) and count
    the rest."""
    for i in bad[:10].tolist():
        problems.add(f"{_row_ref(table, i)}, column '{column}'{says(i)}", row=i + 1, column=column, kind=kind,
                     original=o[i], published=p[i])
    problems.count += max(0, len(bad) - 10)


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ParameterError(f"'{name}' must be a whole number ≥ {low}, got {value!r}", column=name)
    return int(value)


def _cell_validity(orig: CodedCells, pub: CodedCells, h: Hierarchy | None) -> tuple[np.ndarray, np.ndarray]:
    """Per row: is the published cell the original value or one of its ancestors? and is it suppressed?"""
    roots = {SUPPRESSED} | ({h.root_label} if h is not None else set())
    o_codes, o_uniques = orig.codes, orig.texts
    p_codes, p_uniques = pub.codes, pub.texts
    codes, pairs = pd.factorize(o_codes.astype(np.int64) * max(len(p_uniques), 1) + p_codes)  # one code per pair
    ok = np.empty(len(pairs), dtype=bool)
    for u, pair in enumerate(pairs.tolist()):
        o, p = o_uniques[pair // max(len(p_uniques), 1)], p_uniques[pair % max(len(p_uniques), 1)]
        if p in roots:
            ok[u] = True
        elif p == NA_TOKEN or o == NA_TOKEN:
            ok[u] = p == o
        elif h is None or o not in h.leaf_index:
            ok[u] = p == o
        else:
            ok[u] = h.is_generalization(o, p)
    return ok[codes], pub.isin(roots)


def _missing_spelled_apart(problems: Problems, original: Table, output: Table | pd.DataFrame, column: str,
                           rows: np.ndarray) -> None:
    """A quasi-identifier cell published missing is the original missing cell, spelled as the input spells it:
    ``?`` for ``NA`` (or an empty cell) would be a token the method did not write — a bit per record."""
    at = np.flatnonzero(rows)
    if not len(at) or not isinstance(output, Table):
        return
    o, p = spelled_text(original, column)[at], spelled_text(output, column)[at]
    bad = np.flatnonzero(o != p)
    _cell_problems(problems, original, column, at[bad], spelled_text(original, column), spelled_text(output, column),
                   "missing cell respelled",
                   lambda i: " is missing in both files but spelled apart: the output writes "
                             f"{show(spelled_text(output, column)[i])}, the input {show(spelled_text(original, column)[i])}")


def spelled_text(obj: Table | pd.DataFrame, column: str) -> np.ndarray:
    """A column's cells as written in its file (missing cells in their own spelling, empty if none)."""
    if isinstance(obj, Table):
        return obj.text_column(column)
    return obj[column].astype("string").fillna("").to_numpy(dtype=object)


def verify_k_anonymity(
    original: Table,
    output: pd.DataFrame | Table,
    hierarchies: dict[str, Hierarchy],
    k: int,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    max_suppression: float | None = None,
    executor=None,
    person: str | None = None,
) -> Verification:
    """Check from scratch that a published table is a k-anonymous generalization of ``original``.

    ``person`` (the input's person column, :mod:`._people`): every class must hold records of at least ``k``
    distinct people (their ids read from ``original``, row for row; the column is identifying, never published).

    ``max_suppression`` (a share of the records, ARX's suppression limit): more fully suppressed records
    than that fail the check — they are exempt from the class-size test, so the exemption has a bound.
    ``executor`` (the Dask engine): the class sizes are counted by its tasks (:mod:`._counts`); every check
    and the judgement stay here, so the verdict and details are the ones computed without it.

    k-anonymity (Samarati & Sweeney; 002 Definitions 2–3): every equivalence class — the records with
    identical quasi-identifier tuples — holds at least ``k`` records. Checked, in order:

    1. the output has the input's row count, no identifying column, every other column, nothing extra;
    2. every quasi-identifier cell is the original value or one of its ancestors in the attribute's
       hierarchy (without a hierarchy: the original value), or ``*`` / the root label (suppressed);
    3. records with every quasi-identifier suppressed are counted and exempt; the other records' classes
       have at least ``k`` members;
    4. non-quasi-identifier columns are unchanged, cell by cell — except in a *suppressed block* smaller than
       ``k`` (the fully suppressed records with the same published quasi-identifier cells,
       :func:`suppressed_block`), whose every other cell must be ``*``: whoever is missing from the published
       classes is one of those records, so a block of fewer than k publishes nothing but its count (issue 39).

    Returns a :class:`Verification` whose problems name the row (and source line) of each violation.
    """
    k = _check_int("k", k, 1)
    pub = frame_of(output, "a table")
    qis = list(quasi_identifiers) if quasi_identifiers is not None else list(original.quasi_identifiers)
    src = original.df
    known_columns(src, qis, "quasi-identifier")
    n = len(src)
    problems = Problems()
    details: dict[str, Any] = {"k": k, "quasi_identifiers": qis, "records": n}
    if not qis:
        problems.add("no quasi-identifier is given: k-anonymity over no column holds for any output, so it checks "
                     "nothing", kind="no quasi-identifier")
    if repeated_columns(problems, pub) or len(pub) != n or not qis:
        if len(pub) != n:
            problems.add(f"the output has {len(pub)} rows, the input {n}: rows were added or dropped")
        details.update(violations=problems.count, first_violations=problems.records)
        return Verification(False, "k-anonymity", details, problems.sentences)

    identifying = [c for c in src.columns if original.role(c) is Role.IDENTIFYING and c not in qis]
    expected = [c for c in src.columns if c not in identifying]
    for c in identifying:
        if c in pub.columns:
            problems.add(f"identifying column '{c}' is still in the output", column=c, kind="identifying column")
    missing = [c for c in expected if c not in pub.columns]
    for c in missing:
        problems.add(f"column '{c}' is missing from the output", column=c, kind="missing column")
    for c in pub.columns:
        if c not in src.columns:
            problems.add(f"the output has a column '{c}' the input does not have", column=c, kind="extra column")

    qi_present = [q for q in qis if q in pub.columns and q in src.columns]
    invalid_cells = 0
    pub_text: dict[str, CodedCells] = {}
    suppressed_all = np.ones(n, dtype=bool) if qi_present else np.zeros(n, dtype=bool)
    for q in qi_present:
        ambiguous = marker_problem(hierarchies.get(q), q)
        if ambiguous:
            problems.add(ambiguous, column=q, kind="ambiguous suppression marker")
        o = as_coded(src[q])
        p = pub_text[q] = as_coded(pub[q])
        ok, sup = _cell_validity(o, p, hierarchies.get(q))
        suppressed_all &= sup
        bad = np.flatnonzero(~ok)
        invalid_cells += len(bad)
        what = "one of its generalizations" if hierarchies.get(q) is not None else "suppressed ('*'); there is no hierarchy"
        _cell_problems(problems, original, q, bad, o, p, "not a generalization",
                       lambda i: f": {show(p[i])} is neither the original value {show(o[i])} nor {what}")
        _missing_spelled_apart(problems, original, output, q, ok & p.isin([NA_TOKEN]))
        pub_text[q] = as_written(output, q, p)  # classes as the file reads: '?' and 'NA' are not one value

    kept = np.flatnonzero(~suppressed_all)
    people = None
    if person is not None:
        from anonstudio.core.privacy._people import distinct_people, person_codes

        if person not in src.columns:
            raise ParameterError(f"the person column '{person}' is not a column of the input", column=person)
        people = person_codes(original, kept)
        executor = None  # distinct people are counted here
        if person in pub.columns and person not in identifying:
            problems.add(f"the person column '{person}' is in the output: a person's id is never published",
                         column=person, kind="identifying column")
    if executor is None or not len(kept):
        classes = _class_ids_of([pub_text[q].take(kept) for q in qi_present], len(kept))
        sizes = np.bincount(classes) if len(kept) else np.zeros(0, dtype=np.int64)
    else:  # the same sizes in the same order, counted by the executor's tasks (``_counts``)
        sizes, _ = class_sizes(executor, [pub_text[q].take(kept) for q in qi_present])
    records = sizes
    if people is not None:
        sizes = distinct_people(classes, people, len(records))
    small = KAnonymity(k=k).failing(ClassStats(sizes))
    small_records = int(records[small].sum()) if len(small) else 0
    if len(small):
        if executor is not None:  # the rows of the small classes, to name them
            classes = _class_ids_of([pub_text[q].take(kept) for q in qi_present], len(kept))
        order = np.argsort(classes, kind="stable")
        starts = np.concatenate(([0], np.cumsum(records)))
        for cls in small[:10]:
            members = kept[order[starts[cls] : starts[cls + 1]]]
            first = int(members[0])
            values = ", ".join(f"{q}={show(pub_text[q][first])}" for q in qi_present)
            rows = ", ".join(str(int(m) + 1) for m in members[:5]) + (" …" if len(members) > 5 else "")
            held = (f"record(s) of {int(sizes[cls])} person(s) ('{person}')" if people is not None else "record(s)")
            count = f"{int(records[cls])} {held}" if people is not None else f"{int(sizes[cls])} {held}"
            problems.add(
                f"{_row_ref(original, first)}: its equivalence class ({values}) has {count} "
                f"(rows {rows}), fewer than k = {k}" + (" people" if people is not None else ""),
                row=first + 1,
                kind="class smaller than k",
                size=int(sizes[cls]),
                rows=[int(m) + 1 for m in members[:10]],
            )
        problems.count += max(0, len(small) - 10)

    others = [c for c in expected if c not in qis and c in pub.columns]
    blank, block_sizes = suppressed_block(suppressed_all, [pub_text[q] for q in qi_present], k,
                                          publishes_more=bool(others),
                                          people=person_codes(original) if person is not None else None)
    n_suppressed = int(suppressed_all.sum())
    if max_suppression is not None and n and n_suppressed / n > max_suppression + 1e-12:
        problems.add(
            f"{n_suppressed} records ({n_suppressed / n:.1%}) are fully suppressed, more than max_suppression = "
            f"{max_suppression:.1%} of the records allows (suppressed records are exempt from the k test)",
            kind="too many suppressed",
        )
    changed_cells = 0
    leaked: dict[int, list[str]] = {}  # row of a small suppressed block -> its columns published as they are
    for c in others:
        # as spelled in the files: a missing cell written '?' and one left empty are different cells
        o = spelled_text(original, c)
        p = spelled_text(output, c)
        # the one published form of the cell: the original, or '*' in a suppressed block smaller than k
        bad = np.flatnonzero(np.where(blank, p != SUPPRESSED, o != p))
        unblanked = bad[blank[bad]]
        for i in unblanked.tolist():
            leaked.setdefault(int(i), []).append(c)
        bad = bad[~blank[bad]]
        changed_cells += len(bad)
        _cell_problems(problems, original, c, bad, o, p, "changed cell",
                       lambda i: f" (not a quasi-identifier) was changed from {show(o[i])} to {show(p[i])}")
    if leaked:
        block_rows = np.flatnonzero(blank)
        for i, columns in list(leaked.items())[:10]:
            size = int(block_sizes[i])
            problems.add(
                f"{_row_ref(original, i)} is fully suppressed, in a block of {size} fully suppressed record(s) "
                f"with the same published quasi-identifiers, fewer than k = {k}, yet publishes "
                f"{', '.join(repr(c) for c in columns[:4])}{' …' if len(columns) > 4 else ''} as it is: whoever is "
                f"missing from the published classes is one of these records, so their other cells must be "
                f"published '{SUPPRESSED}' too (the suppressed block is a class: at least k records, or nothing "
                "but its count published)",
                row=i + 1, kind="suppressed block smaller than k", size=size, columns=columns,
                rows=[int(r) + 1 for r in block_rows[:10]])
        problems.count += max(0, len(leaked) - 10)

    if person is not None:
        details.update(person=person, counted="people")
    details.update(
        classes=int(len(sizes)),
        smallest_class=int(sizes.min()) if len(sizes) else 0,
        largest_class=int(sizes.max()) if len(sizes) else 0,
        suppressed=int(suppressed_all.sum()),
        # fully suppressed records whose other cells are published '*' too (their block is smaller than k)
        suppressed_blanked=int(blank.sum()),
        max_suppression=max_suppression,
        classes_below_k=int(len(small)),
        records_in_small_classes=small_records,
        invalid_cells=int(invalid_cells),
        changed_cells=int(changed_cells),
        violations=problems.count,
        first_violations=problems.records,
    )
    return Verification(not problems, "k-anonymity", details, problems.sentences)


def verify_l_diversity(
    output: pd.DataFrame | Table,
    quasi_identifiers: Sequence[str],
    sensitive: str | Sequence[str],
    l: int | float,
    kind: str = "distinct",
    *,
    suppressed: np.ndarray | None = None,
    executor=None,
    people: np.ndarray | None = None,
) -> Verification:
    """Check l-diversity of every equivalence class of a published table (Machanavajjhala et al. 2007).

    ``people`` (each published row's person code, from the input's person column, :mod:`._people`): a class's
    values are counted over people — per value, the distinct people holding it in the class.

    ``executor`` (the Dask engine): the class sizes and (class, value) counts are counted by its tasks
    (:mod:`._counts`), in the order computed here without it; the model judges them here.

    ``kind="distinct"``: each class holds at least ``l`` distinct sensitive values. ``kind="entropy"``: the
    entropy ``-Σ p·log p`` of each class's sensitive values is at least ``log l``. Each sensitive column is
    checked on its own. Every record is judged, fully suppressed ones too (all ``*``: one class, whose
    sensitive values are published like any other's); only records flagged in ``suppressed`` are exempt.

    **Values are told apart as a reader tells them** (:func:`~anonstudio.core.data.read_alike`): ``'HIV'``,
    ``' HIV'``, ``'HIV\u200b'`` and ``'hiv'`` are one value, so spellings cannot make a class look diverse.

    **Missing sensitive values** (one rule for every kind, and the one Mondrian's split test uses): a
    missing cell (or one holding only blanks) is not a value. A class is measured on its present values only, so a class whose values
    are all missing has no distinct value and entropy 0: it fails every ``l > 1`` and, like every class,
    passes ``l = 1`` (which asks nothing).
    """
    if kind not in ("distinct", "entropy"):
        raise ParameterError(f"l-diversity kind must be 'distinct' or 'entropy', got '{kind}'", column="l_kind")
    if isinstance(l, bool) or not isinstance(l, (int, float, np.integer, np.floating)) or l < 1:
        raise ParameterError(f"'l' must be a number ≥ 1, got {l!r}", column="l")
    model = l_diversity(kind)(l=l)  # the model the job names judges every class
    pub = frame_of(output, "a table")
    qis = list(quasi_identifiers)
    sens = [sensitive] if isinstance(sensitive, str) else list(sensitive)
    problems = Problems()
    details: dict[str, Any] = {"l": l, "l_kind": kind, "sensitive": sens, "quasi_identifiers": qis}
    if not sens:
        problems.add("no sensitive attribute is given, so l-diversity cannot hold")
    repeated_columns(problems, pub)
    for c in [*qis, *sens]:
        if c not in pub.columns:
            problems.add(f"column '{c}' is missing from the output", column=c, kind="missing column")
    if problems:
        details.update(violations=problems.count, first_violations=problems.records)
        return Verification(False, "l-diversity", details, problems.sentences)
    n = len(pub)
    if suppressed is None:  # a block of suppressed records all 'HIV' would disclose it: they are judged too
        suppressed = np.zeros(n, dtype=bool)
    kept = np.flatnonzero(~np.asarray(suppressed, dtype=bool))
    if people is not None:
        executor = None  # distinct people are counted here
        details.update(counted="people")
    if executor is None or not len(kept):
        classes = _class_ids(pub.iloc[kept], qis)
        n_classes = int(classes.max()) + 1 if len(classes) else 0
    else:  # the same statistics in the same order, counted by the executor's tasks (``_counts``)
        qi_text = [as_coded(pub[q].iloc[kept]) for q in qis]
        class_counts, class_tuples = class_sizes(executor, qi_text)
        n_classes = len(class_counts)
        classes = None
    worst = np.inf
    for s in sens:
        # values that read alike ('HIV', ' HIV', 'hiv') are one value; a blank is no value, like a missing cell
        vals = as_coded(pub[s].iloc[kept]).read_alike(keep=NA_TOKEN)
        present = ~vals.isin([NA_TOKEN, ""])
        if classes is None:
            value_class, value_count = pair_counts(executor, class_tuples, qi_text, vals.codes, present)
            stats = ClassStats(class_counts, value_class, value_count.astype(float))
        elif people is not None:
            from anonstudio.core.privacy._people import distinct_people, people_per_value

            who = np.asarray(people, dtype=np.int64)[kept]
            v_class, _, v_people = people_per_value(classes, who, vals.codes, present)
            stats = ClassStats(distinct_people(classes, who, n_classes), v_class, v_people.astype(float))
        else:
            pairs = pd.DataFrame({"c": classes[present], "v": vals.codes[present]})
            counts = pairs.groupby(["c", "v"], sort=False).size()
            sizes = np.bincount(classes, minlength=n_classes)
            stats = ClassStats(sizes, counts.index.get_level_values(0).to_numpy(), counts.to_numpy(dtype=float))
        sizes = np.bincount(classes, minlength=n_classes) if people is not None else stats.sizes
        score, failing = model.score(stats), model.failing(stats)
        if len(score):
            worst = min(worst, float(score.min()))
        if len(failing) and classes is None:  # the rows of the failing classes, to name them
            classes = _class_ids(pub.iloc[kept], qis)
        order = np.argsort(classes, kind="stable") if len(failing) else None
        starts = np.concatenate(([0], np.cumsum(sizes)))
        for c_id in failing[:10]:
            first = int(kept[order[starts[c_id]]])
            values = ", ".join(f"{q}={show(as_text(pub[q].iloc[[first]])[0])}" for q in qis)
            measure = model.measure(stats, int(c_id), of=f"'{s}'")
            problems.add(
                f"row {first + 1}: its equivalence class ({values}, {int(sizes[c_id])} records) has {measure}, "
                f"needs {kind} {l}-diversity",
                row=first + 1,
                kind="class not l-diverse",
                column=s,
                score=float(score[c_id]),
            )
        problems.count += max(0, len(failing) - 10)
    details.update(
        classes=n_classes,
        lowest_diversity=None if worst == np.inf else round(worst, 6),
        violations=problems.count,
        first_violations=problems.records,
    )
    return Verification(not problems, "l-diversity", details, problems.sentences)

