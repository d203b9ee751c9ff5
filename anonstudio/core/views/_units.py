"""Counts named by their unit (issue 30 item 6): a report's records, suppressions and groups in the words of the
data they count — records of a table, sequences and events of an event log, strings of a FASTA file; the groups a
method formed by the method's own word (clusters, partitions; none for random anonymization), and the published
classes beside them only with the reason both exist. One Qt-free source for the Summary card, the run pane's line
and ``anonstudio run``'s first line."""

from __future__ import annotations

from typing import Any

#: per data kind: (what a record is, what ``report["suppressed"]`` counts, what that count means)
_KINDS = {
    "table": ("record", "record", "records published with every quasi-identifier '*' (fully suppressed)"),
    "events": ("sequence", "event", "events not published: left out of their sequences to make them alike, or in a "
                                    "removed sequence"),
    "fasta": ("string", "string", "strings that fit no group of k and were left out (suppressed)"),
}

#: why a table release may have fewer classes than groups (shown only when both are shown)
CLASSES_REASON = ("a reader sees classes, not {groups}: {groups} that were generalized to the same values form "
                  "one class (the verifier checks classes)")


def plural(n: int, word: str) -> str:
    """``"1 group"``, ``"2 groups"``, ``"3 classes"`` — ``n`` with thousands separators."""
    if n == 1:
        return f"1 {word}"
    return f"{n:,} {word + 'es' if word.endswith(('s', 'x', 'ch', 'sh')) else word + 's'}"


def _method(report: dict) -> Any:
    from anonstudio.core import algorithms
    from anonstudio.core.errors import AnonStudioError

    try:
        return algorithms.get(str(report.get("algorithm", "")))
    except AnonStudioError:
        return None


def units(report: dict) -> tuple[str, str, str | None]:
    """``(record unit, suppressed unit, group unit)`` of a report: ``("sequence", "event", "cluster")`` for
    CBMSA; the group unit is ``None`` for a method that forms no groups."""
    cls = _method(report)
    kind = cls.data_kind if cls is not None else "table"
    record, suppressed, _ = _KINDS.get(kind, _KINDS["table"])
    return record, suppressed, (cls.group_unit if cls is not None else "group")


def count_rows(report: dict) -> list[tuple[str, str, str]]:
    """The report's counts as ``(label, value, one line saying what it counts)``, each named by its unit."""
    cls = _method(report)
    kind = cls.data_kind if cls is not None else "table"
    record, sup_unit, sup_meaning = _KINDS.get(kind, _KINDS["table"])
    group = cls.group_unit if cls is not None else "group"
    metrics = report.get("metrics", {}) or {}
    n_in = int((report.get("input", {}) or {}).get("records", 0) or 0)
    n_out = int((report.get("output", {}) or {}).get("records", 0) or 0)
    out_word = "pseudo-string" if kind == "fasta" else record
    rows = [(f"{record}s in", f"{n_in:,}", f"{record}s read from the input"),
            (f"{out_word}s out", f"{n_out:,}", f"{out_word}s in the published output")]
    rows.append((f"{sup_unit}s suppressed", f"{int(report.get('suppressed', 0) or 0):,}", sup_meaning))
    if kind == "events" and isinstance(metrics.get("removed_sequences"), int):
        rows.append(("sequences removed", f"{metrics['removed_sequences']:,}",
                     "whole sequences left out: the last cluster could not satisfy (k,c)"))
    groups = report.get("groups", {}) or {}
    count = int(groups.get("count", 0) or 0)
    if group is not None and count:
        rows.append((f"{group}s" if group != "class" else "classes",
                     f"{plural(count, group)} of {_sizes(groups)} {record}s",
                     f"the {group_plural(group)} the method formed, and their sizes"))
        classes = metrics.get("classes")
        if kind == "table" and group != "class" and isinstance(classes, int) and classes != count:
            rows.append(("classes", f"{classes:,}", CLASSES_REASON.format(groups=group_plural(group))))
    return rows


def _sizes(groups: dict) -> str:
    low, high = int(groups.get("min_size", 0) or 0), int(groups.get("max_size", 0) or 0)
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def group_plural(word: str) -> str:
    return plural(2, word).split(" ", 1)[1]


def counts_line(report: dict) -> str:
    """One line of counts for the run pane and ``anonstudio run``: ``"mst: 2,000 records in, 2,000 out, 0
    suppressed, 114 clusters (sizes 5–83)"``; CBMSA counts sequences and suppressed events apart."""
    cls = _method(report)
    record, sup_unit, group = units(report)
    kind = cls.data_kind if cls is not None else "table"
    n_in = int((report.get("input", {}) or {}).get("records", 0) or 0)
    n_out = int((report.get("output", {}) or {}).get("records", 0) or 0)
    bits = [f"{plural(n_in, record)} in", f"{n_out:,} out",
            f"{plural(int(report.get('suppressed', 0) or 0), sup_unit)} suppressed"]
    removed = (report.get("metrics", {}) or {}).get("removed_sequences")
    if kind == "events" and isinstance(removed, int):
        bits.append(f"{plural(removed, 'sequence')} removed")
    groups = report.get("groups", {}) or {}
    if group is not None and groups.get("count"):
        bits.append(f"{plural(int(groups['count']), group)} (sizes {groups.get('min_size')}–{groups.get('max_size')})")
    return f"{report.get('algorithm')}: " + ", ".join(bits)
