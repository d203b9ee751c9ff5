"""The string container: protein, DNA or item sequences encoded once for the kernels."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from anonstudio.core.errors import InputError

#: Named alphabets. ``protein-25`` adds the ambiguity/rare codes B, Z, X, U (selenocysteine), O (pyrrolysine).
NAMED_ALPHABETS: dict[str, str] = {
    "protein-20": "ACDEFGHIKLMNPQRSTVWY",
    "protein-25": "ACDEFGHIKLMNPQRSTVWYBZXUO",
    "dna": "ACGT",
    "dna-n": "ACGTN",
}


@dataclass(frozen=True)
class Alphabet:
    """An ordered tuple of symbols; code ``i`` stands for ``symbols[i]``.

    Symbols are usually single letters (proteins, DNA); item sequences (Quest) may use longer tokens.
    """

    name: str
    symbols: tuple[str, ...]

    @classmethod
    def named(cls, name: str) -> Alphabet:
        if name not in NAMED_ALPHABETS:
            raise InputError(f"unknown alphabet '{name}' (known: {', '.join(NAMED_ALPHABETS)}, as-found)")
        return cls(name, tuple(NAMED_ALPHABETS[name]))

    def __len__(self) -> int:
        return len(self.symbols)

    @property
    def single_letter(self) -> bool:
        return all(len(s) == 1 for s in self.symbols)

    @property
    def code_dtype(self) -> np.dtype:
        return np.dtype(np.uint8) if len(self.symbols) <= 255 else np.dtype(np.uint16)

    def index(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.symbols)}


@dataclass
class SequenceSet:
    """A set of strings over one alphabet.

    Attributes
    ----------
    ids, headers:
        Per record: identifier (first word of the FASTA header) and the whole header line without ``>``.
    codes, offsets:
        All sequences concatenated as symbol codes; sequence ``i`` is ``codes[offsets[i]:offsets[i+1]]``.
    alphabet:
        The :class:`Alphabet` the codes index.
    labels:
        Optional class label per record (from a header pattern or per input file).
    source:
        The file read, if any.
    """

    ids: list[str]
    headers: list[str]
    codes: np.ndarray
    offsets: np.ndarray
    alphabet: Alphabet
    labels: list[str] | None = None
    source: Path | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_strings(
        cls,
        sequences: list[str] | list[list[str]],
        *,
        ids: list[str] | None = None,
        headers: list[str] | None = None,
        alphabet: Alphabet | str = "as-found",
        labels: list[str] | None = None,
        source: Path | None = None,
    ) -> SequenceSet:
        """Encode strings (or lists of item tokens). ``alphabet="as-found"`` collects the symbols seen."""
        ids = list(ids) if ids is not None else [f"seq{i + 1}" for i in range(len(sequences))]
        headers = list(headers) if headers is not None else list(ids)
        if isinstance(alphabet, str):
            if alphabet == "as-found":
                seen = sorted({s for seq in sequences for s in seq})
                alphabet = Alphabet("as-found", tuple(seen))
            else:
                alphabet = Alphabet.named(alphabet)
        index = alphabet.index()
        lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
        offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        codes = np.empty(int(offsets[-1]), dtype=alphabet.code_dtype)
        for i, seq in enumerate(sequences):
            try:
                codes[offsets[i] : offsets[i + 1]] = [index[s] for s in seq]
            except KeyError as exc:
                pos = next(j for j, s in enumerate(seq) if s not in index)
                raise InputError(
                    f"symbol {exc.args[0]!r} at position {pos + 1} is not in alphabet {alphabet.name}",
                    file=source,
                    record=ids[i],
                ) from None
        return cls(ids, headers, codes, offsets, alphabet, labels, source)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def codes_of(self, i: int) -> np.ndarray:
        return self.codes[self.offsets[i] : self.offsets[i + 1]]

    def symbols_of(self, i: int) -> list[str]:
        return [self.alphabet.symbols[c] for c in self.codes_of(i)]

    def sequence(self, i: int) -> str:
        """Sequence ``i`` as text: letters joined, or item tokens separated by spaces."""
        sep = "" if self.alphabet.single_letter else " "
        return sep.join(self.symbols_of(i))

    def distinct(self) -> tuple[SequenceSet, np.ndarray, np.ndarray]:
        """``(contents, first, content_of)``: each distinct sequence once, in order of first appearance, with the
        id, header and label of its first record (``self`` itself when no sequence repeats); ``first[d]``, the
        record content ``d`` first appears as; ``content_of[i]``, the content of record ``i``. Identical
        sequences are one person's content however many records repeat it (issue 28: the fragment and near-copy
        rules and condensation's groups count contents, not records)."""
        n = len(self)
        seen: dict[bytes, int] = {}
        content_of = np.empty(n, np.int64)
        offsets = self.offsets.tolist()
        for i in range(n):
            content_of[i] = seen.setdefault(self.codes[offsets[i]:offsets[i + 1]].tobytes(), len(seen))
        first = np.unique(content_of, return_index=True)[1].astype(np.int64)  # content d is numbered d
        if len(first) == n:
            return self, np.arange(n, dtype=np.int64), content_of
        lengths = np.diff(self.offsets)[first]
        sub_offsets = np.zeros(len(first) + 1, np.int64)
        np.cumsum(lengths, out=sub_offsets[1:])
        keep = np.zeros(n, bool)
        keep[first] = True
        codes = self.codes[np.repeat(keep, np.diff(self.offsets))]
        labels = None if self.labels is None else [self.labels[i] for i in first.tolist()]
        return (SequenceSet([self.ids[i] for i in first.tolist()], [self.headers[i] for i in first.tolist()], codes,
                            sub_offsets, self.alphabet, labels, self.source), first.astype(np.int64), content_of)

    def strings(self) -> list[str]:
        """Every sequence as text (:meth:`sequence`); single-letter alphabets are decoded in one step."""
        symbols = self.alphabet.symbols
        if self.alphabet.single_letter and all(ord(c) < 128 for c in symbols):
            table = np.frombuffer("".join(symbols).encode("ascii"), dtype=np.uint8)
            text = table[self.codes.astype(np.int64)].tobytes().decode("ascii") if len(self.codes) else ""
            offsets = self.offsets.tolist()
            return [text[a:b] for a, b in zip(offsets, offsets[1:])]
        return [self.sequence(i) for i in range(len(self))]

    @classmethod
    def concat(cls, sets: list[SequenceSet], labels: list[str] | None = None) -> SequenceSet:
        """Join sets over the same alphabet; ``labels`` gives every record of ``sets[i]`` the label
        ``labels[i]`` (one class per input file). Ids must stay unique across the sets."""
        if not sets:
            raise InputError("no sequence sets to join")
        alphabet = sets[0].alphabet
        seen: dict[str, Path | None] = {}
        for s in sets:
            if s.alphabet != alphabet:
                raise InputError(f"alphabet {s.alphabet.name} differs from {alphabet.name}", file=s.source)
            for rid in s.ids:
                if rid in seen:
                    raise InputError(f"id '{rid}' appears in two files (also in {seen[rid]})", file=s.source, record=rid)
                seen[rid] = s.source
        if labels is not None:
            if len(labels) != len(sets):
                raise InputError(f"{len(labels)} labels for {len(sets)} files")
            all_labels = [lab for s, lab in zip(sets, labels) for _ in range(len(s))]
        elif all(s.labels is not None for s in sets):
            all_labels = [lab for s in sets for lab in s.labels]
        else:
            all_labels = None
        offsets = [np.zeros(1, dtype=np.int64)]
        base = 0
        for s in sets:
            offsets.append(s.offsets[1:] + base)
            base += int(s.offsets[-1])
        return cls(
            ids=[i for s in sets for i in s.ids],
            headers=[h for s in sets for h in s.headers],
            codes=np.concatenate([s.codes for s in sets]).astype(alphabet.code_dtype, copy=False),
            offsets=np.concatenate(offsets),
            alphabet=alphabet,
            labels=all_labels,
            source=sets[0].source,
        )
