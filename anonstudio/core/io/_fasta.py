"""FASTA: multi-line records read into a :class:`SequenceSet`, and written 60 letters a line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from anonstudio.core.data import Alphabet, SequenceSet
from anonstudio.core.errors import InputError
from anonstudio.core.io._atomic import atomic_write
from anonstudio.core.io._canonical import FASTA_WIDTH, fasta_bytes
from anonstudio.core.io._common import MAX_FASTA_LINE_BYTES, decode, read_bytes



def nested_repeat(pattern: str) -> bool:
    """Whether ``pattern`` repeats a part that itself repeats (``(a+)+``, ``(a*b?)*``, ``(x{2,})+``): Python's
    backtracking matcher can take time exponential in the text's length on such a pattern (``(a+)+b`` against a
    long run of ``a``). Possessive and atomic parts (``(a++)+``, ``(?>a+)+``) do not backtrack and are allowed."""
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as parser  # type: ignore[import-not-found]

    repeats = (c.MAX_REPEAT, c.MIN_REPEAT)

    def walk(items, inside: bool) -> bool:
        for op, av in items:
            if op in repeats:
                low, high, sub = av
                if high > 1 and (inside or walk(sub, True)):
                    return True
                if high <= 1 and walk(sub, inside):
                    return True
            elif op == c.SUBPATTERN:
                if walk(av[-1], inside):
                    return True
            elif op == c.BRANCH:
                if any(walk(branch, inside) for branch in av[1]):
                    return True
            elif op in (c.ASSERT, c.ASSERT_NOT):
                if walk(av[1], inside):
                    return True
        return False

    try:
        return walk(parser.parse(pattern), False)
    except Exception:  # not a pattern this parser reads: re.compile says what is wrong with it
        return False


def label_pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` may not be a ``label_pattern`` beyond not compiling (see :func:`nested_repeat`), or None."""
    if nested_repeat(pattern):
        return (f"label_pattern {pattern!r} repeats a part that itself repeats (as in (a+)+): matching it can take "
                "time exponential in a header's length; write the label's part without the nested repeat "
                "(e.g. a+ for (a+)+)")
    return None


def _compile_label_pattern(label_pattern: str | re.Pattern | None, path: Path) -> re.Pattern | None:
    if label_pattern is None:
        return None
    try:
        pattern = re.compile(label_pattern) if isinstance(label_pattern, str) else label_pattern
    except re.error as exc:
        raise InputError(f"label_pattern {label_pattern!r} is not a valid regular expression: {exc}", file=path) from None
    problem = label_pattern_problem(pattern.pattern) if isinstance(pattern.pattern, str) else None
    if problem:
        raise InputError(problem, file=path)
    if pattern.groups != 1:
        raise InputError(
            f"label_pattern {pattern.pattern!r} must have exactly one group (…) around the label, "
            f"it has {pattern.groups}",
            file=path,
        )
    return pattern


def _clean(parts: list[str]) -> str:
    return "".join("".join(parts).split()).upper()  # str.split() drops every kind of whitespace


def _ascii_lut(symbols: Sequence[str]) -> np.ndarray | None:
    """byte → code (-1 for bytes not in the alphabet), or ``None`` if a symbol is not one ASCII letter."""
    if not all(len(s) == 1 and s.isascii() for s in symbols):
        return None
    lut = np.full(256, -1, dtype=np.int32)
    for code, s in enumerate(symbols):
        lut[ord(s)] = code
    return lut


def read_fasta(
    path: str | Path,
    *,
    alphabet: str | Alphabet = "protein-25",
    label_pattern: str | re.Pattern | None = None,
) -> SequenceSet:
    """Read a FASTA file into a :class:`SequenceSet`.

    A record is a ``>`` header line followed by any number of sequence lines. The record id is the first
    word of the header (``sp|P09032|EI2BG_YEAST`` for UniProt, the whole header for a bare id); the header
    is kept whole in ``headers``. Sequence letters are folded to upper case, whitespace inside sequence
    lines is ignored and one trailing ``*`` (stop) is dropped.

    Parameters
    ----------
    alphabet:
        A named alphabet (``protein-25`` default, ``protein-20``, ``dna``, ``dna-n``), an
        :class:`Alphabet`, or ``"as-found"`` to keep whatever letters appear.
    label_pattern:
        Regular expression with one group, searched in each header; the group is the record's label
        (e.g. ``OS=([A-Za-z]+)``).

    Raises
    ------
    InputError
        No records; a sequence line before any header; a header without an id; a record without a
        sequence; a duplicate id; a letter outside the alphabet (record id, 1-based position and line);
        a header the label pattern does not match — each naming the file, record and line.
    """
    path = Path(path)
    pattern = _compile_label_pattern(label_pattern, path)
    alpha: Alphabet | None
    if isinstance(alphabet, Alphabet):
        alpha = alphabet
    elif alphabet == "as-found":
        alpha = None
    else:
        try:
            alpha = Alphabet.named(alphabet)
        except InputError as exc:
            raise InputError(exc.message, file=path) from None
    text, _ = decode(read_bytes(path, max_line=MAX_FASTA_LINE_BYTES), path)
    lines = text.split("\n")

    ids: list[str] = []
    headers: list[str] = []
    header_line: list[int] = []  # 1-based line of each header
    seqs: list[str] = []
    first_line: dict[str, int] = {}
    current: list[str] | None = None

    def finish() -> None:
        seq = _clean(current or [])
        if seq.endswith("*"):
            seq = seq[:-1]
        if seq == "":
            raise InputError(
                "record has no sequence (an empty record)", file=path, line=header_line[-1], record=ids[-1]
            )
        seqs.append(seq)

    for lineno, line in enumerate(lines, start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if line.startswith(">"):
            if current is not None:
                finish()
            header = line[1:].strip()
            if header == "":
                raise InputError("header line has no identifier after '>'", file=path, line=lineno)
            rid = header.split()[0]
            if rid in first_line:
                raise InputError(
                    f"duplicate id '{rid}' (first on line {first_line[rid]})", file=path, line=lineno, record=rid
                )
            first_line[rid] = lineno
            ids.append(rid)
            headers.append(header)
            header_line.append(lineno)
            current = []
        elif line.strip() == "":
            continue
        elif current is None:
            raise InputError("sequence line before any '>' header line", file=path, line=lineno)
        else:
            current.append(line)
    if current is not None:
        finish()
    if not ids:
        raise InputError("no FASTA records: no line starts with '>'", file=path, line=1)

    labels: list[str] | None = None
    if pattern is not None:
        labels = []
        for rid, header, lineno in zip(ids, headers, header_line):
            m = pattern.search(header)
            if m is None or m.group(1) is None:
                raise InputError(
                    f"header does not match label_pattern {pattern.pattern!r}", file=path, line=lineno, record=rid
                )
            labels.append(m.group(1))

    lengths = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    joined = "".join(seqs)
    if alpha is None:
        alpha = Alphabet("as-found", tuple(sorted(set(joined))))
    lut = _ascii_lut(alpha.symbols)
    if lut is None and not alpha.single_letter:
        raise InputError(f"alphabet {alpha.name} has multi-letter symbols, which FASTA cannot hold", file=path)
    bad = -1
    if lut is not None and joined.isascii():
        mapped = lut[np.frombuffer(joined.encode("ascii"), dtype=np.uint8)]
        wrong = np.flatnonzero(mapped < 0)
        if wrong.size:
            bad = int(wrong[0])
        codes = mapped.astype(alpha.code_dtype)
    else:
        index = alpha.index()
        for i, c in enumerate(joined):
            if c not in index:
                bad = i
                break
        codes = np.fromiter((index.get(c, 0) for c in joined), dtype=alpha.code_dtype, count=len(joined))
    if bad >= 0:
        rec = int(np.searchsorted(offsets, bad, side="right")) - 1
        pos = bad - int(offsets[rec]) + 1
        raise InputError(
            f"letter {joined[bad]!r} at position {pos} is not in alphabet {alpha.name} "
            f"({''.join(alpha.symbols)}); use alphabet \"as-found\" to keep it",
            file=path,
            line=_line_of_position(lines, header_line[rec], pos),
            record=ids[rec],
        )
    out = SequenceSet(ids, headers, codes, offsets, alpha, labels, path)
    out.extra["header_lines"] = header_line
    return out


def _line_of_position(lines: list[str], header_lineno: int, pos: int) -> int:
    """1-based line holding residue ``pos`` (1-based) of the record whose header is on ``header_lineno``."""
    seen = 0
    for lineno in range(header_lineno + 1, len(lines) + 1):
        n = len("".join(lines[lineno - 1].split()))
        if seen + n >= pos:
            return lineno
        seen += n
    return header_lineno


def _sequence_strings(seqs: SequenceSet) -> list[str]:
    """All sequences as text, vectorized for single ASCII letters."""
    symbols = seqs.alphabet.symbols
    if seqs.alphabet.single_letter and all(s.isascii() for s in symbols) and len(symbols):
        lut = np.frombuffer("".join(symbols).encode("ascii"), dtype=np.uint8)
        text = lut[np.asarray(seqs.codes, dtype=np.int64)].tobytes().decode("ascii")
        off = seqs.offsets
        return [text[off[i] : off[i + 1]] for i in range(len(seqs))]
    return seqs.strings()


def write_fasta(
    headers: Sequence[str] | SequenceSet,
    sequences: Sequence[str] | str | Path | None = None,
    path: str | Path | None = None,
    width: int = FASTA_WIDTH,
) -> Path:
    """Write FASTA atomically: ``>header`` then the sequence wrapped at ``width`` letters a line, LF endings.

    Call as ``write_fasta(headers, sequences, path)`` or ``write_fasta(sequence_set, path)``. Item
    sequences (multi-letter symbols) are written as space-separated tokens, ``width`` tokens a line.
    Returns the path.
    """
    if isinstance(headers, SequenceSet):
        seqset = headers
        if path is None:
            path, sequences = sequences, None
        if sequences is not None:
            raise TypeError("write_fasta(sequence_set, path): give no separate sequences")
        heads = list(seqset.headers)
        tokenized = not seqset.alphabet.single_letter
        seqs: list = [seqset.symbols_of(i) for i in range(len(seqset))] if tokenized else _sequence_strings(seqset)
    else:
        heads = list(headers)
        seqs = list(sequences) if sequences is not None else []
        tokenized = False
    if path is None:
        raise TypeError("write_fasta needs a path")
    path = Path(path)
    data = fasta_bytes(heads, seqs, tokenized=tokenized, width=width)
    with atomic_write(path, "wb") as fh:
        fh.write(data)
    return path
