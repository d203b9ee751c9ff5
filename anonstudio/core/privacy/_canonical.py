"""A release is the canonical form of what was verified, or it is refused (issue 28).

:func:`verify_release` is what ``anonstudio verify`` runs on the files of a release and what ``run`` (and the
workbench's export) runs on the staged files just before they are published — one checker for both. It

1. parses every file of the release as the kind the input is (a table, an event log, FASTA; Anatomy's QIT and
   its sensitive table);
2. re-serializes the parsed content with the project's one writer (:mod:`anonstudio.core.io._canonical`) and
   the job's settings (the input's delimiter and encoding, the output's format) and requires the file's bytes
   to equal it, naming the first byte that differs: quoting, line endings, encoding, byte-order mark, trailing
   bytes, column order, number spellings, Parquet schema and metadata can then carry nothing;
3. checks the tokens the canonical form leaves free against a whitelist — the structural ones here (Anatomy's
   group ids 1..G in order of first appearance and its sensitive table derived from them, event numbers 1..m,
   sequences in the input's order, FASTA headers exactly ``pseudo_<n> segment=<s> group=<g>`` with n = 1..N
   and groups numbered in order, sequence letters from the inputs' own ASCII alphabet, the symbols they hold), the cell-level ones in
   each model's verifier (a quasi-identifier cell is its original value, a hierarchy label above it or ``*``;
   every other cell as spelled in the input);
4. lets the privacy model judge the parsed content (:func:`~anonstudio.core.privacy.verify_output`).

Anything else fails. A covert channel then has nowhere to live but in the choice among whitelisted tokens,
which the privacy model bounds.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import EventLog, SequenceSet, Table
from anonstudio.core.errors import AnonStudioError, ReadFailure
from anonstudio.core.io import _canonical as canon
from anonstudio.core.io._canonical import GROUP_COLUMN, canonical_groups, sensitive_table
from anonstudio.core.io import read_output_like
from anonstudio.core.io._common import read_bytes
from anonstudio.core.io.formats import table_format
from anonstudio.core.privacy._verification import Problems, Verification


#: The only header a pseudo-string may carry.
PSEUDO_HEADER = re.compile(r"pseudo_(\d+) segment=(\d+) group=(\d+)")


def _kind(spec: dict[str, Any]) -> str:
    return str(spec.get("model"))


def canonical_table_frame(table: Table, expected_columns: list[str] | None = None) -> pd.DataFrame:
    """The frame a table release is written from: every column as parsed, missing cells as spelled, in
    ``expected_columns``' order when the release holds exactly those columns."""
    frame = replace(table, roles={}, types=dict(table.types)).publish_frame()
    if expected_columns is not None and sorted(map(str, frame.columns)) == sorted(map(str, expected_columns)) \
            and frame.columns.is_unique:
        frame = frame[list(expected_columns)]
    return frame


def _parquet_difference(actual: bytes, expected: bytes) -> str | None:
    """What sets a Parquet file apart from the canonical one, in words (its metadata, schema, layout)."""
    import io

    import pyarrow.parquet as pq

    try:
        got, want = pq.ParquetFile(io.BytesIO(actual)), pq.ParquetFile(io.BytesIO(expected))
    except Exception:  # noqa: BLE001 — not Parquet at all: the byte offset says enough
        return None
    meta = got.metadata.metadata or {}
    if meta:
        keys = ", ".join(k.decode("utf-8", "replace") for k in list(meta)[:6])
        return f"it carries key-value metadata ({keys}) that the canonical form does not have"
    if got.schema_arrow != want.schema_arrow:
        return f"its schema ({got.schema_arrow.to_string(show_schema_metadata=False)[:120]!r}) is not string columns"
    if got.metadata.num_row_groups != want.metadata.num_row_groups:
        return f"it has {got.metadata.num_row_groups} row groups where the canonical form has one"
    if got.metadata.created_by != want.metadata.created_by:
        return (f"it was written by {got.metadata.created_by!r}, the canonical form by {want.metadata.created_by!r} "
                "(verify with the version that wrote it)")
    return "its encoding, compression, statistics or page layout differ"


def _compare(problems: Problems, actual: bytes, expected: bytes, shown: str) -> bool:
    found = canon.first_difference(actual, expected)
    if found is None:
        return True
    if actual[:4] == b"PAR1" and expected[:4] == b"PAR1":
        why = _parquet_difference(actual, expected) or "its bytes differ"
        problems.add(f"{shown} is not in the canonical form anonstudio writes: {why} (first difference at byte "
                     f"{found[0]}); a Parquet release is string columns written by anonstudio with no metadata of "
                     "its own, so nothing can hide in it", kind="not canonical", file=shown)
        return False
    pos, line, column, got, want = found
    problems.add(
        f"{shown} line {line}, byte {column} (offset {pos}) is not in the canonical form anonstudio writes: "
        f"the file has '{got}' where the canonical form has '{want}' — quoting, spacing, number spellings, line "
        "endings, encoding, column order and trailing bytes have one form, so nothing can hide in them",
        kind="not canonical", file=shown, line=line, column=column)
    return False


def _bytes_of(problems: Problems, path: Path, shown: str) -> bytes | None:
    try:
        return read_bytes(path, max_line=1 << 62)
    except ReadFailure:
        raise  # the device failed (an I/O error): no verdict on the file, an error of its own (exit 2)
    except AnonStudioError as exc:
        problems.add(f"{shown} cannot be read: {exc.message}", kind="unreadable", file=shown)
        return None


def _encode(problems: Problems, frame: pd.DataFrame, layout: dict[str, Any], shown: str) -> bytes | None:
    try:
        return table_format(layout["path"]).table_bytes(frame, delimiter=layout["delimiter"],
                                                        encoding=layout["encoding"])
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        problems.add(f"{shown} holds {bad!r}, which the input's encoding ({layout['encoding']}) cannot write: the "
                     "canonical form is written in the input's encoding", kind="not canonical", file=shown)
        return None


def _table_layout(original: Table | EventLog, path: Path) -> dict[str, Any]:
    return {"delimiter": original.delimiter or ",", "encoding": original.encoding or "utf-8", "path": path}


def _published_columns(original: Table, spec: dict[str, Any]) -> list[str]:
    """The columns a release of ``original`` holds, in the input's order."""
    qis = set(spec.get("quasi_identifiers") or original.quasi_identifiers)
    dropped = {c for c in original.df.columns if original.role(c).value == "identifying" and c not in qis}
    if _kind(spec) == "anatomy":
        sens = spec.get("sensitive") or (original.sensitive[0] if original.sensitive else None)
        dropped.add(sens)
        return [c for c in original.df.columns if c not in dropped] + [spec.get("group_column", GROUP_COLUMN)]
    return [c for c in original.df.columns if c not in dropped]


def _check_table(problems: Problems, original: Table, output: Table, data: bytes, path: Path, shown: str,
                 spec: dict[str, Any]) -> Table:
    """Canonical bytes of a table release (and for Anatomy, the QIT's group ids); returns the release as the
    verifier judges it (Anatomy: group ids as written, so a non-canonical id stays visible to it)."""
    columns = _published_columns(original, spec)
    frame = canonical_table_frame(output, columns)
    if list(map(str, output.df.columns)) != list(map(str, columns)):
        shown_cols = ", ".join(map(str, output.df.columns[:12])) + (" …" if output.df.shape[1] > 12 else "")
        problems.add(f"{shown} has the columns ({shown_cols}); a release of this input has exactly "
                     f"({', '.join(map(str, columns[:12]))}{' …' if len(columns) > 12 else ''}), in that order",
                     kind="not canonical", file=shown)
    group = spec.get("group_column", GROUP_COLUMN)
    if _kind(spec) == "anatomy" and group in frame.columns and frame.columns.is_unique:
        written = output.text_column(group)
        frame = frame.assign(**{group: canonical_groups(written).astype(str)})
    expected = _encode(problems, frame, _table_layout(original, path), shown)
    if expected is not None:
        _compare(problems, data, expected, shown)
    return output


def _check_sensitive_table(problems: Problems, original: Table, qit: Table, path: Path | None, shown: str,
                           spec: dict[str, Any], shuffle_seed: int | None = None) -> None:
    """Anatomy's ST is determined by the QIT's groups and the input: its bytes must be exactly that table's.
    ``qit`` is the QIT as written; with ``shuffle_seed`` its rows are put back in the input's order to pair them
    with the input's sensitive values, the group ids kept as the written (shuffled) rows number them."""
    if path is None or not path.exists():
        problems.add(f"the sensitive table {shown} is missing: Anatomy publishes it beside the QIT",
                     kind="missing file", file=shown)
        return
    data = _bytes_of(problems, path, shown)
    group = spec.get("group_column", GROUP_COLUMN)
    sens = spec.get("sensitive") or (original.sensitive[0] if original.sensitive else None)
    if data is None or sens is None or group not in qit.df.columns or len(qit.df) != len(original.df) \
            or not qit.df.columns.is_unique:
        return  # the QIT's own problems say why; nothing canonical can be derived
    ids = canonical_groups(qit.text_column(group))
    if shuffle_seed is not None:
        order = canon.permutation(len(ids), shuffle_seed)  # written row i is input row order[i]
        in_input_order = np.empty_like(ids)
        in_input_order[order] = ids
        ids = in_input_order
    st = sensitive_table(ids, pd.Series(original.text_column(sens), dtype=object), sens)
    layout = _table_layout(original, path)
    expected = _encode(problems, st, layout, shown)
    if expected is not None:
        _compare(problems, data, expected, shown)


def _check_events(problems: Problems, original: EventLog, output: EventLog, data: bytes, path: Path, shown: str,
                  shuffle_seed: int | None) -> None:
    """Canonical bytes of an event-log release: the input's columns in its order (identifying ones dropped),
    each sequence's events together and numbered 1..m down its rows, sequence ids renumbered 1..n in the order
    the sequences are published, missing cells empty. (Issue 39 item 7: ids published as they were left gaps where
    CBMSA removed sequences — 17 of the 19 removed carried the highly-sensitive value. Which input sequence each
    published one is, and that they are published in the input's order, or the order ``shuffle_seed`` draws, is
    found by :func:`release_of_sequences`.)"""
    frame = output.df
    columns = [c for c in original.df.columns]
    if sorted(map(str, frame.columns)) == sorted(map(str, columns)) and frame.columns.is_unique:
        frame = frame[columns]
    sid, order_col = original.sequence_id, original.event_order
    if sid not in frame.columns or not frame.columns.is_unique:
        return
    ids = frame[sid].astype(str).to_numpy(dtype=object)
    codes, published = pd.factorize(pd.Series(ids, dtype=object))
    rows = np.lexsort((np.arange(len(frame)), codes))  # each sequence's rows together, in order of first appearance
    frame = frame.iloc[rows].reset_index(drop=True)
    seq = codes[rows]
    frame = frame.assign(**{sid: (seq + 1).astype(str)})
    if order_col in frame.columns:
        starts = np.r_[0, np.flatnonzero(np.diff(seq)) + 1] if len(seq) else np.zeros(0, dtype=np.int64)
        number = np.arange(len(seq)) - np.repeat(starts, np.diff(np.r_[starts, len(seq)]))
        frame = frame.assign(**{order_col: (number + 1).astype(str)})
    expected = _encode(problems, frame, _table_layout(original, path), shown)
    if expected is not None:
        _compare(problems, data, expected, shown)


def release_of_sequences(original: EventLog, output: EventLog, hierarchies: dict | None,
                         shuffle_seed: int | None = None, problems: Problems | None = None,
                         shown: str = "the release") -> EventLog:
    """``output`` (an event-log release whose sequence ids are 1..n as published) with each sequence's id replaced
    by the id of the input sequence it is the release of: published sequences taken in the input's order (undoing
    the order ``shuffle_seed`` drew) are matched, greedily and in order, to the earliest input sequence after the
    previous match whose events they are, in order, generalizations of (:func:`~anonstudio.core.privacy._events.
    release_matches`); if any order-preserving matching exists this finds one. A sequence that matches none keeps
    a name no input has (the model check then refuses it) and, with ``problems``, is reported."""
    from anonstudio.core.privacy._events import release_matches

    sid = original.sequence_id
    if sid not in output.df.columns or not output.df.columns.is_unique:
        return output
    written = output.df[sid].astype(str).to_numpy(dtype=object)
    codes, published = pd.factorize(pd.Series(written, dtype=object))
    in_order = np.arange(len(published))
    if shuffle_seed is not None:
        in_order = np.argsort(canon.permutation(len(published), shuffle_seed), kind="stable")
    matches = release_matches(original, output.df, codes, in_order, hierarchies or {})
    names = np.empty(len(published), dtype=object)
    how = "the order drawn for this release (its key's)" if shuffle_seed is not None else "the input's order"
    for s in range(len(published)):
        if matches[s] is None:
            names[s] = f"(published sequence {published[s]}: the release of no input sequence in {how})"
            if problems is not None:
                problems.add(f"{shown}: sequence '{published[s]}' is, in {how}, the release of no input sequence: "
                             f"sequences are published in {how}, so their order carries nothing, and each is "
                             "the release of one input sequence", kind="not canonical", file=shown)
        else:
            names[s] = matches[s]
    return replace(output, df=output.df.assign(**{sid: names[codes]}))


def _one_length(problems: Problems, output: SequenceSet, groups: np.ndarray, segments: np.ndarray,
                length_mode: str | None, shown: str) -> None:
    """Pseudo-strings are generated at one length per group (``length = "group"``, the default), per segment
    (``"segment"``) or for the whole release (``"database"``): a string of another length than its unit's is
    a length the method did not draw, free to carry a bit."""
    unit = {"group": groups, "segment": segments, "database": np.zeros(len(groups), dtype=np.int64)}.get(
        length_mode or "group", groups)
    lengths = np.diff(output.offsets)
    frame = pd.DataFrame({"u": unit, "n": lengths})
    spread = frame.groupby("u", sort=False)["n"].nunique()
    bad = spread[spread > 1]
    if len(bad):
        first = int(np.flatnonzero(unit == bad.index[0])[0])
        problems.add(f"{shown}: the pseudo-strings of one {length_mode or 'group'} (the one record {first + 1} is in) "
                     f"have {int(bad.iloc[0])} different lengths: the method draws every string of a "
                     f"{length_mode or 'group'} at one length", kind="length", record=first + 1)


def _check_fasta(problems: Problems, original: SequenceSet, output: SequenceSet, data: bytes, shown: str,
                 length_mode: str | None = None) -> None:
    """Canonical bytes of a pseudo-string release: headers exactly ``pseudo_<n> segment=<s> group=<g>`` with
    n = 1..N in order, a group's strings together, groups and segments numbered 0, 1, … in order of first
    appearance, one segment per group, one length per group (or segment, or release: ``length_mode``); letters
    only from the inputs' own ASCII alphabet — the symbols the inputs hold (condensation draws every symbol
    from its group's strings: a ``U`` or ``X`` no input holds, though the alphabet names it, is a marker the
    method did not produce); 60 letters a line."""
    held = np.unique(original.codes) if len(original.codes) else np.zeros(0, dtype=np.int64)
    allowed = {original.alphabet.symbols[int(c)] for c in held if original.alphabet.symbols[int(c)].isascii()}
    used = np.unique(output.codes) if len(output.codes) else np.zeros(0, dtype=np.int64)
    foreign = [output.alphabet.symbols[int(c)] for c in used if output.alphabet.symbols[int(c)] not in allowed]
    if foreign:
        first = min(int(np.flatnonzero(np.isin(output.codes, [output.alphabet.symbols.index(f)
                                                              for f in foreign]))[0]), len(output.codes) - 1)
        rec = int(np.searchsorted(output.offsets, first, side="right")) - 1
        shown_letters = ", ".join(repr(f) + ("" if f.isascii() else f" (U+{ord(f[0]):04X})") for f in foreign[:6])
        problems.add(f"{shown}, record {output.ids[rec]}: letters {shown_letters} are not in the inputs' alphabet "
                     f"({''.join(sorted(allowed))}): a pseudo-string is drawn from the inputs' own symbols, so any "
                     "other letter (a look-alike, a marker) is information the method did not produce",
                     kind="foreign letter", record=output.ids[rec])
    heads = []
    group_of: list[int] = []
    segment_of: list[int] = []
    for i, header in enumerate(output.headers):
        m = PSEUDO_HEADER.fullmatch(header)
        if m is None:
            problems.add(f"{shown}, record {i + 1}: header {header[:60]!r} is not exactly 'pseudo_<n> segment=<s> "
                         "group=<g>': a pseudo-string's header holds nothing else", kind="header", record=i + 1)
            heads.append(f"pseudo_{i + 1}")
            continue
        group_of.append(int(m.group(3)))
        segment_of.append(int(m.group(2)))
        heads.append(header)
    if len(group_of) == len(output.headers) and group_of:
        codes, uniques = pd.factorize(np.asarray(group_of, dtype=np.int64))  # groups 0, 1, … in order
        seg_codes = pd.factorize(np.asarray(segment_of, dtype=np.int64))[0]  # segments 0, 1, … in order
        together = np.all(np.diff(codes) >= 0) if len(codes) > 1 else True
        one_segment = len(pd.DataFrame({"g": codes, "s": seg_codes}).drop_duplicates()) == len(uniques)
        if not together:
            problems.add(f"{shown}: the strings of a group are not published together (record "
                         f"{int(np.flatnonzero(np.diff(codes) < 0)[0]) + 2})", kind="header")
        if not one_segment:
            problems.add(f"{shown}: a group's strings name different segments", kind="header")
        _one_length(problems, output, codes, seg_codes, length_mode, shown)
        heads = [f"pseudo_{i + 1} segment={seg_codes[i]} group={codes[i]}" for i in range(len(codes))]
    tokenized = not output.alphabet.single_letter
    seqs: list = [output.symbols_of(i) for i in range(len(output))] if tokenized else output.strings()
    expected = canon.fasta_bytes(heads, seqs, tokenized=tokenized)
    _compare(problems, data, expected, shown)


def _read(problems: Problems, original: Any, path: Path, shown: str, missing: list[str] | None) -> Any:
    try:
        return read_output_like(original, path, missing=missing)
    except ReadFailure:
        raise  # the device failed (an I/O error): no verdict on the file, an error of its own (exit 2)
    except AnonStudioError as exc:
        problems.add(f"{shown} cannot be read as a release of this input: {exc.message}"
                     + (f" (line {exc.line})" if exc.line else ""), kind="unreadable", file=shown)
        return None


def verify_release(spec: dict[str, Any], original: Any, output_path: str | Path, hierarchies: dict | None = None, *,
                   side_paths: dict[str, Path] | None = None, missing: list[str] | None = None,
                   shuffle_seed: int | None = None, names: dict[Path, str] | None = None,
                   executor=None) -> Verification:
    """Verify the files of a release byte for byte: canonical form, whitelisted tokens, the privacy model.

    ``spec`` is the method's declared privacy model (as :func:`verify_output` takes it) with the job's roles;
    ``side_paths``: the side outputs' files (Anatomy: ``{"sensitive": path}``); ``missing``: the job's missing
    tokens; ``shuffle_seed``: the seed a shuffled release's row (sequence) order was drawn with; ``names``:
    how to call each file in messages (the run gate checks staged files under their final names).
    """
    from anonstudio.core.privacy import SIDE_OUTPUTS, combine, guessable_seed, verify_output

    output_path = Path(output_path)
    names = names or {}
    shown = names.get(output_path, output_path.name)
    problems = Problems()
    data = _bytes_of(problems, output_path, shown)
    output = _read(problems, original, output_path, shown, missing) if data is not None else None
    sides: dict[str, Any] = {}
    if output is not None:
        if isinstance(original, Table) and isinstance(output, Table):
            _check_table(problems, original, output, data, output_path, shown, spec)
            written = output
            if shuffle_seed is not None and len(output.df) == len(original.df):
                output = unshuffled_table(output, shuffle_seed)
            for name in SIDE_OUTPUTS.get(_kind(spec), ()):
                side = (side_paths or {}).get(name)
                side_shown = names.get(side, side.name) if side is not None else f"the {name} table"
                _check_sensitive_table(problems, original, written, side, side_shown, spec,
                                       shuffle_seed if output is not written else None)
                if side is not None and side.exists():
                    parsed = _read(problems, original, side, side_shown, missing)
                    if parsed is not None:
                        sides[name] = parsed.df
        elif isinstance(original, EventLog):
            _check_events(problems, original, output, data, output_path, shown, shuffle_seed)
            output = release_of_sequences(original, output, hierarchies, shuffle_seed, problems, shown)
        elif isinstance(original, SequenceSet):
            _check_fasta(problems, original, output, data, shown, spec.get("length"))
    canonical = Verification(not problems, "canonical form",
                             {"canonical_form": not problems, "violations": problems.count,
                              "first_violations": problems.records}, problems.sentences)
    if output is None:
        return Verification(False, _kind(spec), canonical.details, canonical.problems)
    model = verify_output(spec, original, output, hierarchies, executor=executor, side_outputs=sides)
    parts = [canonical, model]
    if _kind(spec) in ("random-anonymization", "safepub"):  # draws keyed by the seed: a guessable one undoes them
        parts.insert(1, guessable_seed(spec.get("seed"), model.model))
    verdict = combine(parts, model.model)  # the file's form first: it is what was tampered with
    verdict.details["canonical_form"] = canonical.passed
    return verdict


def unshuffled_table(table: Table, seed: int) -> Table:
    """``table`` (a release whose rows were published in the order ``seed`` draws) in its input's row order."""
    order = canon.permutation(len(table.df), seed)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return replace(table, df=table.df.iloc[inverse].reset_index(drop=True), types=dict(table.types),
                   missing_text={c: pd.Series(t.to_numpy(), index=order[np.asarray(t.index, dtype=np.int64)])
                                 for c, t in table.missing_text.items()})
