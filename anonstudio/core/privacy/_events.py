"""Independent check of (k,c)-privacy for multidimensional event sequences (Sehatkar & Matwin, 004)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, read_alike
from anonstudio.core.errors import ParameterError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.models import ClassStats, KCPrivacy
from anonstudio.core.privacy._tables import SUPPRESSED, _check_int, marker_problem
from anonstudio.core.privacy._verification import (NA_TOKEN, Problems, Verification, as_coded, as_text, frame_of,
                                                   repeated_columns, show)


def _name(log: EventLog) -> str:
    return f" {Path(str(log.source)).name}" if getattr(log, "source", None) else ""


def verify_kc_privacy(
    original: EventLog,
    output: pd.DataFrame | EventLog,
    hierarchies: dict[str, Hierarchy],
    k: int,
    c: float,
    highly_sensitive: Iterable[str],
) -> Verification:
    """Check (k,c)-privacy of a published event log from scratch (004, Definition 1).

    A dataset satisfies (k,c)-privacy if (i) every sequence is indistinguishable from at least ``k-1`` others
    with respect to any combination of quasi-identifier values — here: sequences with identical *QI
    sequences* (the ordered list of their events' published QI tuples) form a group, and every group holds
    at least ``k`` sequences; and (ii) the probability of inferring a highly-sensitive value in a group is at
    most ``c`` — checked as CBMSA's HighSensList does (004 §3): the share of a group's sequences having at
    least one event with a value in ``highly_sensitive`` is at most ``c`` (a value that reads alike counts:
    ``' HIV'`` and ``'hiv'`` are HIV, :func:`~anonstudio.core.data.read_alike`).

    Faithfulness to the input is checked too: every published sequence exists in the input, and its events
    map, in order, to *distinct* original events of that sequence (a subsequence: suppressed events are
    absent), each published QI cell being the original value or one of its ancestors (``*`` allowed), and
    every other column equal. The event-order column, where published, must number each sequence's events
    1..m down its rows: original numbers (or dates) show where events were suppressed, which singles a
    sequence out of its group though its QI sequence is shared. The greedy earliest match decides this exactly: if any order-preserving
    matching exists, matching each published event to the earliest compatible original event after the
    previous match finds one. Removed sequences and suppressed events are counted, not faulted.
    """
    k = _check_int("k", k, 2)
    if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) or not 0 < c <= 1:
        raise ParameterError(f"'c' must be a number in (0, 1], got {c!r}", column="c")
    omega = {read_alike(str(v)) for v in (highly_sensitive or [])}  # ' HIV' and 'hiv' are HIV too
    pub = frame_of(output, "an event log")
    sid = original.sequence_id
    qis = list(original.quasi_identifiers)
    sens = original.sensitive
    src = original.df
    event_order = original.event_order
    others = [col for col in src.columns if col not in qis and col not in (sid, event_order)]
    problems = Problems()
    details: dict[str, Any] = {
        "k": k,
        "c": float(c),
        "highly_sensitive": sorted(omega),
        "quasi_identifiers": qis,
        "input_sequences": len(original),
        "input_events": original.n_events,
    }
    if omega and not sens:
        # run refuses such a job; counted here, no record would hold a highly sensitive value and every c passed
        problems.add(f"highly sensitive values are named ({', '.join(repr(str(v)) for v in list(highly_sensitive)[:5])}) but the "
                     f"event log{_name(original)} has no sensitive column to find them in: the c test cannot be made",
                     kind="no sensitive column")
    for col in [sid, *qis, *others]:
        if col not in pub.columns:
            problems.add(f"column '{col}' is missing from the output", column=col, kind="missing column")
    for col in pub.columns:
        if col not in src.columns:
            problems.add(f"the output has a column '{col}' the input does not have", column=col, kind="extra column")
    if repeated_columns(problems, pub) or sid not in pub.columns or any(q not in pub.columns for q in qis):
        details.update(violations=problems.count, first_violations=problems.records)
        return Verification(False, "(k,c)-privacy", details, problems.sentences)
    others = [col for col in others if col in pub.columns]

    ids, order, offsets = original.sequence_index()
    where = {s: i for i, s in enumerate(ids)}
    o_qi = np.column_stack([as_text(src[q])[order] for q in qis]) if qis else np.empty((len(order), 0), object)
    o_ot = np.column_stack([as_text(src[x])[order] for x in others]) if others else np.empty((len(order), 0), object)

    p_sid = as_text(pub[sid])
    codes, uniq = pd.factorize(p_sid)
    p_order = np.argsort(codes, kind="stable")
    p_off = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=len(uniq)))))
    p_qi = np.column_stack([as_text(pub[q]) for q in qis]) if qis else np.empty((len(pub), 0), object)
    p_ot = np.column_stack([as_text(pub[x]) for x in others]) if others else np.empty((len(pub), 0), object)
    p_sens = as_coded(pub[sens]).read_alike(keep=NA_TOKEN).array() if sens and sens in pub.columns else None
    p_number = (pd.to_numeric(pub[event_order], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
                if event_order in pub.columns else None)

    for q in qis:  # '*' must mean a suppressed cell, never also a group of the hierarchy
        ambiguous = marker_problem(hierarchies.get(q), q)
        if ambiguous:
            problems.add(ambiguous, column=q, kind="ambiguous suppression marker")
    cache: dict[tuple[int, str, str], bool] = {}
    roots = [{SUPPRESSED} | ({hierarchies[q].root_label} if q in hierarchies else set()) for q in qis]

    def qi_ok(j: int, o: str, p: str) -> bool:
        key = (j, o, p)
        hit = cache.get(key)
        if hit is None:
            h = hierarchies.get(qis[j])
            if p in roots[j]:
                hit = True
            elif o == NA_TOKEN or p == NA_TOKEN or h is None or o not in h.leaf_index:
                hit = o == p
            else:
                hit = h.is_generalization(o, p)
            cache[key] = hit
        return hit

    groups: dict[tuple, list[int]] = {}
    high: list[bool] = []
    seq_names: list[str] = []
    kept_events = 0
    suppressed_events = 0
    unmatched = 0
    for s in range(len(uniq)):
        name = str(uniq[s])
        rows = p_order[p_off[s] : p_off[s + 1]]
        kept_events += len(rows)
        if name not in where:
            problems.add(f"sequence '{name}' is not in the input", record=name, kind="unknown sequence")
            unmatched += 1
            continue
        if p_number is not None and not np.array_equal(p_number[rows], np.arange(1, len(rows) + 1)):
            shown = ", ".join(show(v) for v in as_text(pub[event_order].iloc[rows[:6]]))
            problems.add(f"sequence '{name}': its published event order ({shown}{' …' if len(rows) > 6 else ''}) is "
                         f"not 1..{len(rows)} down its rows: original positions show which events were suppressed "
                         "and single the sequence out of its group; number the published events 1..m",
                         record=name, column=event_order, kind="event order published")
        i_seq = where[name]
        o_lo, o_hi = int(offsets[i_seq]), int(offsets[i_seq + 1])
        pos = o_lo
        ok_seq = True
        for t, r in enumerate(rows):
            found = -1
            while pos < o_hi:
                cand = pos
                pos += 1
                if (o_ot[cand] == p_ot[r]).all() and all(qi_ok(j, o_qi[cand, j], p_qi[r, j]) for j in range(len(qis))):
                    found = cand
                    break
            if found < 0:
                ok_seq = False
                cells = ", ".join(f"{q}={show(p_qi[r, j])}" for j, q in enumerate(qis))
                problems.add(
                    f"sequence '{name}', published event {t + 1} (output row {int(r) + 1}: {cells}) is not a "
                    f"generalization of any remaining original event of that sequence, in order",
                    record=name,
                    row=int(r) + 1,
                    kind="event not a generalization",
                )
                break
        if not ok_seq:
            unmatched += 1
        suppressed_events += max(0, (o_hi - o_lo) - len(rows))
        key = tuple(tuple(p_qi[r]) for r in rows)
        groups.setdefault(key, []).append(len(seq_names))
        seq_names.append(name)
        high.append(bool(p_sens is not None and any(p_sens[r] in omega for r in rows)))

    high_arr = np.asarray(high, dtype=bool)
    keys = list(groups)
    members_of = [groups[key] for key in keys]
    stats = ClassStats(np.array([len(m) for m in members_of], dtype=np.int64),
                       high=np.array([int(high_arr[m].sum()) for m in members_of], dtype=np.int64))
    model = KCPrivacy(k=k, c=float(c))  # the model judges every group
    small, confident = model.too_small(stats), model.too_confident(stats)
    for g in model.failing(stats).tolist():
        members, size = members_of[g], int(stats.sizes[g])
        names = ", ".join(f"'{seq_names[m]}'" for m in members[:5]) + (" …" if size > 5 else "")
        first = f"sequence '{seq_names[members[0]]}'"
        if small[g]:
            problems.add(f"{first}: its group of identical QI sequences ({len(keys[g])} events) has {size} "
                         f"sequence(s) ({names}), fewer than k = {k}",
                         record=seq_names[members[0]], kind="group smaller than k", size=size)
        if confident[g]:
            problems.add(f"{first}: in its group of {size} sequences ({names}), {int(stats.high[g])} hold a "
                         f"highly-sensitive value — share {model.score(stats)[g]:.3f} > c = {c}",
                         record=seq_names[members[0]], kind="confidence above c", share=float(model.score(stats)[g]))
    smallest = int(stats.sizes.min()) if stats.n else 0
    worst_share = float(model.score(stats).max()) if stats.n else 0.0
    small_groups, conf_groups = int(small.sum()), int(confident.sum())
    removed = len(ids) - sum(1 for nm in seq_names if nm in where)
    details.update(
        sequences=len(seq_names),
        events=int(kept_events),
        groups=len(groups),
        smallest_group=smallest or 0,
        highest_confidence=round(worst_share, 6),
        removed_sequences=int(removed),
        suppressed_events=int(suppressed_events),
        unmatched_sequences=int(unmatched),
        groups_below_k=small_groups,
        groups_above_c=conf_groups,
        suppressed=int(removed),
        violations=problems.count,
        first_violations=problems.records,
    )
    return Verification(not problems, "(k,c)-privacy", details, problems.sentences)


def release_matches(original: EventLog, pub: pd.DataFrame, codes: np.ndarray, in_order: np.ndarray,
                    hierarchies: dict[str, Hierarchy]) -> list[str | None]:
    """Per published sequence (``codes``: each row's sequence, 0..n-1) the id of the input sequence it is the
    release of, or ``None``: the published sequences are taken in ``in_order`` (the input's order of the kept
    sequences) and each matched to the earliest input sequence after the previous match whose events it holds,
    in order, as generalizations (the test :func:`verify_kc_privacy` makes: each published event a distinct
    original event of the sequence, QI cells the value or one of its ancestors, every other column equal).
    Greedy earliest matching finds an order-preserving matching whenever one exists; a sequence that matches
    none leaves the next one to start where it started. Issue 39 item 7: published ids are 1..n, so which input
    sequence a published one is must be found from what it holds, not from its id."""
    sid, event_order = original.sequence_id, original.event_order
    qis = [q for q in original.quasi_identifiers if q in pub.columns]
    src = original.df
    others = [c for c in src.columns if c not in qis and c not in (sid, event_order) and c in pub.columns]
    ids, order, offsets = original.sequence_index()
    o_qi = np.column_stack([as_text(src[q])[order] for q in qis]) if qis else np.empty((len(order), 0), object)
    o_ot = np.column_stack([as_text(src[x])[order] for x in others]) if others else np.empty((len(order), 0), object)
    p_qi = np.column_stack([as_text(pub[q]) for q in qis]) if qis else np.empty((len(pub), 0), object)
    p_ot = np.column_stack([as_text(pub[x]) for x in others]) if others else np.empty((len(pub), 0), object)
    n_pub = int(codes.max()) + 1 if len(codes) else 0
    p_order = np.argsort(codes, kind="stable")
    p_off = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n_pub)))) if n_pub else np.zeros(1, np.int64)
    roots = [{SUPPRESSED} | ({hierarchies[q].root_label} if q in hierarchies else set()) for q in qis]
    cache: dict[tuple[int, str, str], bool] = {}

    def qi_ok(j: int, o: str, p: str) -> bool:
        key = (j, o, p)
        hit = cache.get(key)
        if hit is None:
            h = hierarchies.get(qis[j])
            if p in roots[j]:
                hit = True
            elif o == NA_TOKEN or p == NA_TOKEN or h is None or o not in h.leaf_index:
                hit = o == p
            else:
                hit = h.is_generalization(o, p)
            cache[key] = hit
        return hit

    def holds(rows: np.ndarray, i_seq: int) -> bool:
        pos, o_hi = int(offsets[i_seq]), int(offsets[i_seq + 1])
        if o_hi - pos < len(rows):
            return False
        for r in rows:
            while pos < o_hi:
                cand = pos
                pos += 1
                if (o_ot[cand] == p_ot[r]).all() and all(qi_ok(j, o_qi[cand, j], p_qi[r, j]) for j in range(len(qis))):
                    break
            else:
                return False
        return True

    found: list[str | None] = [None] * n_pub
    start = 0
    for s in in_order.tolist():
        rows = p_order[p_off[s]: p_off[s + 1]]
        for i in range(start, len(ids)):
            if holds(rows, i):
                found[s] = str(ids[i])
                start = i + 1
                break
    return found
