"""A generalization hierarchy (taxonomy tree) of one attribute, and its array views for kernels.

The tree is given the way ARX stores it: one row per leaf value, its generalizations to the right getting
coarser, the root (usually ``*``) last, e.g. ``39;35-39;30-39;20-39;*``. Level 0 holds the leaves, level
``height`` the root. A node is identified by ``(level, label)``, so the same label may appear on two
levels (ARX files do this: ``Male;*``... or ``Private;Private;*`` after padding).

Ragged rows (rows shorter than the longest) are **padded by repeating the row's last label before its
root**: ``c;*`` in a hierarchy of height 3 becomes ``c;c;c;*``. This keeps the value as specific as the
file allows and the root last; it is applied consistently everywhere (readers, builders, editor).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
import unicodedata

import numpy as np

from anonstudio.core.errors import HierarchyError
from anonstudio.core.hierarchy._labels import (
    first_difference,
    may_read_alike,
    reading_pattern,
    skeleton,
    unsafe_character,
    wildcard_reading,
)


def _short_value(value: str, limit: int = 40) -> str:
    """A data value for a message: quoted, control characters escaped, long values cut."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(value))
    return f"'{text}'" if len(text) <= limit else f"'{text[:limit]}…' ({len(text):,} characters)"


@dataclass(frozen=True)
class HierarchyArrays:
    """Plain numpy views of a hierarchy for numba kernels.

    Attributes
    ----------
    ancestor:
        ``int32[n_leaves, height + 1]``: node id of each leaf's ancestor at each level (column 0 is the
        leaf's own node, the last column the root).
    node_level:
        ``int16[n_nodes]``: level of each node (0 = leaf).
    node_leaves:
        ``int64[n_nodes]``: number of leaves under each node (1 for a leaf) — the cardinality of NCP (002
        Eq. 6) and of LM (004).
    node_min, node_max:
        ``float64[n_nodes]``: smallest and largest numeric leaf under each node (NaN when leaves are not
        numbers) — the interval of numeric NCP (002 Eq. 5).
    height:
        Number of generalization steps from leaf to root.
    """

    ancestor: np.ndarray
    node_level: np.ndarray
    node_leaves: np.ndarray
    node_min: np.ndarray
    node_max: np.ndarray
    height: int


class Hierarchy:
    """A validated generalization tree.

    Parameters
    ----------
    attribute:
        Name of the attribute (column) it generalizes.
    rows:
        One path per leaf: ``[leaf, level1, ..., root]``.
    source:
        File the rows came from (for messages).
    lines:
        1-based line number of each row in ``source`` (for messages); defaults to ``1..len(rows)``.

    Raises
    ------
    HierarchyError
        Empty hierarchy, empty label, duplicate leaf, a node with two parents, or more than one root —
        naming the file and line.
    """

    def __init__(
        self,
        attribute: str,
        rows: Sequence[Sequence[str]],
        *,
        source: str | Path | None = None,
        lines: Sequence[int] | None = None,
    ) -> None:
        self.attribute = attribute
        self.source = Path(source) if source is not None else None
        if not rows:
            raise HierarchyError("the hierarchy has no rows", file=self.source, column=attribute)
        self._from_file = lines is not None  # built rows (a job's builder) have no line of their own to name
        lines = list(lines) if lines is not None else list(range(1, len(rows) + 1))
        self.lines = lines
        depth = max(len(r) for r in rows)
        padded: list[list[str]] = []
        checked: set[str] = set()  # labels found safe (issue 39 item 4: _labels.py)
        for row, line in zip(rows, lines):
            row = [str(c).strip() for c in row]
            if any(c == "" for c in row):
                raise HierarchyError("empty label in hierarchy row", file=self.source, line=line, column=attribute)
            for label in row[1:]:
                if label in checked:
                    continue
                unsafe = unsafe_character(label)
                if unsafe is not None:
                    raise HierarchyError(
                        f"label {_shown_label(label)}{'' if self._from_file else f' (hierarchy row {line})'} is not "
                        f"in the safe alphabet of labels: {unsafe}; a published label must read as it is written, and "
                        "hold nothing more (issue 39: labels carried records)",
                        file=self.source, line=line if self._from_file else None, column=attribute)
                checked.add(label)
            if len(row) < depth:
                if len(row) == 1:
                    row = row * depth
                else:
                    row = row[:-1] + [row[-2]] * (depth - len(row)) + row[-1:]
            padded.append(row)
        self.rows: list[list[str]] = padded
        self.height = depth - 1

        self.node_labels: list[str] = []
        self.node_level_list: list[int] = []
        self.node_parent: list[int] = []
        self._node_id: dict[tuple[int, str], int] = {}
        ancestor = np.empty((len(padded), depth), dtype=np.int32)
        self.leaf_index: dict[str, int] = {}
        for i, (row, line) in enumerate(zip(padded, lines)):
            if row[0] in self.leaf_index:
                first = lines[self.leaf_index[row[0]]]
                raise HierarchyError(
                    f"value '{row[0]}' is listed twice (first on line {first})",
                    file=self.source,
                    line=line,
                    column=attribute,
                )
            self.leaf_index[row[0]] = i
            prev = -1
            for level in range(depth - 1, -1, -1):
                key = (level, row[level])
                node = self._node_id.get(key)
                if node is None:
                    node = len(self.node_labels)
                    self._node_id[key] = node
                    self.node_labels.append(row[level])
                    self.node_level_list.append(level)
                    self.node_parent.append(prev)
                elif self.node_parent[node] != prev:
                    other = self.node_labels[self.node_parent[node]] if self.node_parent[node] >= 0 else "(root)"
                    mine = self.node_labels[prev] if prev >= 0 else "(root)"
                    if level == depth - 1:
                        raise HierarchyError(
                            f"more than one root: '{row[level]}' and '{self.node_labels[0]}'",
                            file=self.source,
                            line=line,
                            column=attribute,
                        )
                    raise HierarchyError(
                        f"'{row[level]}' (level {level}) has two parents: '{other}' and '{mine}'",
                        file=self.source,
                        line=line,
                        column=attribute,
                    )
                ancestor[i, level] = node
                prev = node
        roots = {r[-1] for r in padded}
        if len(roots) > 1:
            raise HierarchyError(
                f"more than one root: {', '.join(sorted(roots))}", file=self.source, column=attribute
            )
        self._ancestor = ancestor
        self.leaves: list[str] = [r[0] for r in padded]
        self._check_one_meaning_per_label()
        self._check_look_alike_labels()

    def _check_look_alike_labels(self) -> None:
        """Two labels of one level must not look alike: the same confusable skeleton (Unicode TS #39) or the same
        NFKC form (``35-39`` and ``35–39``, ``Ocean`` and ``Оcean`` with a Cyrillic О, ``35-39`` and
        ``３５-３９``). A reader could not tell their classes apart, so a report's "age at level 1" would hide
        that the release splits one interval by a second, unseen attribute (issue 39 item 4). Labels that are
        data values (a leaf padded up a ragged row: the node holds that one leaf only) are the data's own spelling
        and are not compared."""
        row_of = np.zeros(self.n_nodes, dtype=np.int64)
        held = np.zeros(self.n_nodes, dtype=np.int64)
        for level in range(1, self.height + 1):
            np.add.at(held, self._ancestor[:, level], 1)
            row_of[self._ancestor[:, level]] = np.arange(len(self.rows))
        seen: dict[tuple[int, str], int] = {}
        ascii_spelled: dict[tuple[int, str], int] = {}
        wide_spelled: dict[tuple[int, str], int] = {}
        judged: dict[int, list[int]] = {}
        for node, label in enumerate(self.node_labels):
            level = self.node_level_list[node]
            if level == 0 or (held[node] == 1 and self.leaves[int(row_of[node])] == label):
                continue
            judged.setdefault(level, []).append(node)
            # an ASCII label is its own NFKC form, and labels of one level are distinct: only its skeleton can meet;
            # case variants ('ADULT', 'Adult') are two classes a reader takes for one
            keys = [skeleton(label), "fold:" + skeleton(label).casefold()]
            if not label.isascii():
                keys.append("nfkc:" + unicodedata.normalize("NFKC", label))
            # a label with characters outside ASCII must not spell the same ASCII letters and digits as another
            # label of its level: '20ᐨ24' (U+1428) and '20一24' (U+4E00) beside '20-24' split an interval by exact
            # age with characters no confusables subset lists (a second hunt); ASCII labels are not compared with
            # each other this way ('<20' and '>20' are different labels)
            spelled = "".join(ch for ch in unicodedata.normalize("NFKC", label).casefold() if ch.isascii() and ch.isalnum())
            if spelled:
                if label.isascii():
                    ascii_spelled.setdefault((level, spelled), node)
                    other_spelled = wide_spelled.get((level, spelled))
                else:
                    other_spelled = wide_spelled.setdefault((level, spelled), node)
                    if other_spelled == node:
                        other_spelled = ascii_spelled.get((level, spelled))
                if other_spelled is not None and other_spelled != node:
                    keys.append(f"spelled:{spelled}:{other_spelled}")
                    seen[(level, keys[-1])] = other_spelled
            for key in keys:
                other = seen.setdefault((level, key), node)
                if other == node:
                    continue
                first = self.node_labels[other]
                line_of = {n: self.lines[int(np.flatnonzero(self._ancestor[:, level] == n)[0])] for n in (other, node)}
                where = "line" if self._from_file else "hierarchy row"
                raise HierarchyError(
                    f"labels {_shown_label(first)} ({where} {line_of[other]}) and {_shown_label(label)} ({where} "
                    f"{line_of[node]}) of level {level} look alike (they differ at {first_difference(label, first)}; "
                    "Unicode TS #39 confusables, NFKC, case, or the same ASCII letters and digits): a reader could not tell "
                    "their classes apart",
                    file=self.source, line=line_of[node] if self._from_file else None, column=self.attribute)
        for level, nodes in judged.items():
            self._check_wildcard_labels(level, nodes)

    def _check_wildcard_labels(self, level: int, nodes: list[int]) -> None:
        """Among the labels of one level, a label with characters outside ASCII must not read as another: each
        maximal run of them is a wildcard for any ASCII text (:func:`~._labels.wildcard_reading`), and a label whose
        wildcards can stand for another label's ASCII characters is refused (``ƻ0-29``, ``2໐-29``, ``20-2ɡ``
        beside ``20-29``; groups ``ɑny`` beside ``any``: a second hunt split one interval by exact age, and
        published sex under "any", with look-alikes no confusables subset lists). A whitelist: only ASCII is
        trusted to read as itself. ``Zürich`` beside ``Zug`` passes; ``Zürich`` beside ``Zurich`` does not."""
        readings = {node: wildcard_reading(self.node_labels[node]) for node in nodes}
        if not any(r is not None for r in readings.values()):
            return
        plain = [node for node in nodes if readings[node] is None]
        # every label without wildcards at once: one search of their lines per label with wildcards
        lines = "\n".join(self.node_labels[node] for node in plain)
        starts = np.cumsum([0] + [len(self.node_labels[node]) + 1 for node in plain])
        wild = [node for node in nodes if readings[node] is not None]
        for i, node in enumerate(wild):
            reading = readings[node]
            assert reading is not None
            found = reading_pattern(reading).search(lines)
            others = [plain[int(np.searchsorted(starts, found.start(), side="right")) - 1]] if found else []
            others += [o for o in wild[i + 1:] if may_read_alike(reading, readings[o])]  # type: ignore[arg-type]
            if others:
                other = others[0]
                label, first = self.node_labels[other], self.node_labels[node]
                line_of = {n: self.lines[int(np.flatnonzero(self._ancestor[:, level] == n)[0])]
                           for n in (other, node)}
                where = "line" if self._from_file else "hierarchy row"
                raise HierarchyError(
                    f"labels {_shown_label(label)} ({where} {line_of[other]}) and {_shown_label(first)} ({where} "
                    f"{line_of[node]}) of level {level} may look alike: {_shown_label(first)} holds characters "
                    f"outside ASCII ({first_difference(first, label)} first) where {_shown_label(label)} has "
                    "ASCII ones, and any such character may read as an ASCII one, so a reader could not tell "
                    "their classes apart (write the labels of one level in ASCII, or make them differ in their "
                    "ASCII letters and digits)",
                    file=self.source, line=line_of[node] if self._from_file else None, column=self.attribute)

    def _check_one_meaning_per_label(self) -> None:
        """A label names one group of values. The same label may stand on several levels only along one
        chain that keeps the same values (``c;c;*``, as ragged-row padding writes); ``Male;Female;*``
        (a generalization labelled like another value) or ``A;B;*`` with ``B;A;*`` would publish a record
        under a label that means something else, and are refused naming the line and the label. The root's
        label is the exception (see below)."""
        counts = np.zeros(self.n_nodes, dtype=np.int64)
        for level in range(self.height + 1):
            np.add.at(counts, self._ancestor[:, level], 1)
        by_label: dict[str, list[int]] = {}
        for node, label in enumerate(self.node_labels):
            by_label.setdefault(label, []).append(node)
        root = self.rows[0][-1]
        for label, nodes in by_label.items():
            # The root's label claims nothing about a value ("any value"), so a fully masked value may share
            # it (masking '0' gives '*' one level up): publishing it hides more than the node, never less.
            if len(nodes) < 2 or label == root:
                continue
            nodes.sort(key=lambda n: self.node_level_list[n])
            for low, high in zip(nodes, nodes[1:]):
                up = low
                while up >= 0 and self.node_level_list[up] < self.node_level_list[high]:
                    up = self.node_parent[up]
                if up == high and counts[low] == counts[high]:
                    continue
                lo_level, hi_level = self.node_level_list[low], self.node_level_list[high]
                line_lo = self.lines[int(np.flatnonzero(self._ancestor[:, lo_level] == low)[0])]
                line_hi = self.lines[int(np.flatnonzero(self._ancestor[:, hi_level] == high)[0])]
                what_lo = "a value" if lo_level == 0 else f"a group at level {lo_level}"
                raise HierarchyError(
                    f"label '{label}' means two different things: {what_lo} (line {line_lo}) and a group of "
                    f"{counts[high]} value(s) at level {hi_level} (line {line_hi}); generalizing would publish "
                    f"records under a label that is not theirs",
                    file=self.source,
                    line=line_hi,
                    column=self.attribute,
                )

    def interval_mismatches(self, limit: int = 20) -> list[tuple[int, str, str]]:
        """Numeric leaves whose generalization is an interval label (``45-49``, ``[45, 50)``) that does not
        contain them: ``(line, value, label)``. Such a hierarchy publishes a wrong range (a widely used
        Adult age hierarchy puts 50 under ``45-49``); it is reported, not refused."""
        import re

        pattern = re.compile(r"^\s*[\[(]?\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|,|\.\.)\s*(-?\d+(?:\.\d+)?)\s*([\])]?)\s*$")
        found: list[tuple[int, str, str]] = []
        for row, line in zip(self.rows, self.lines):
            try:
                value = float(row[0])
            except ValueError:
                continue
            for label in row[1:-1]:
                m = pattern.match(label)
                if not m:
                    continue
                lo, hi = float(m.group(1)), float(m.group(2))
                upper_open = m.group(3) == ")"
                if lo <= hi and (value < lo or value > hi or (upper_open and value >= hi)):
                    found.append((line, row[0], label))
                    break
            if len(found) >= limit:
                break
        return found

    # -- structure ---------------------------------------------------------------------------------------
    @property
    def root_label(self) -> str:
        return self.rows[0][-1]

    @property
    def n_nodes(self) -> int:
        return len(self.node_labels)

    def node(self, level: int, label: str) -> int:
        return self._node_id[(level, label)]

    def children(self, node: int) -> list[int]:
        return [n for n, p in enumerate(self.node_parent) if p == node]

    def ancestors_of(self, value: str) -> list[str]:
        """Labels from the leaf ``value`` up to the root (inclusive)."""
        return list(self.rows[self.leaf_index[value]])

    def generalize(self, value: str, level: int) -> str:
        return self.rows[self.leaf_index[value]][level]

    def is_generalization(self, value: str, label: str) -> bool:
        """True if ``label`` is ``value`` itself or one of its ancestors."""
        row = self.rows[self.leaf_index[value]] if value in self.leaf_index else None
        return row is not None and label in row

    def lca(self, values: Iterable[str]) -> tuple[int, str]:
        """``(level, label)`` of the lowest common ancestor of leaf values."""
        idx = [self.leaf_index[v] for v in values]
        anc = self._ancestor[idx]
        for level in range(self.height + 1):
            if (anc[:, level] == anc[0, level]).all():
                return level, self.node_labels[anc[0, level]]
        raise AssertionError("a hierarchy has one root")

    def missing(self, values: Iterable[str]) -> list[str]:
        """Values (e.g. of a data column) that are not leaves of this hierarchy, in first-seen order."""
        seen: dict[str, None] = {}
        for v in values:
            if v not in self.leaf_index:
                seen.setdefault(v, None)
        return list(seen)

    def check_covers(self, values: Iterable[str], *, data_file: str | Path | None = None) -> None:
        """Raise :class:`HierarchyError` listing every data value missing from the leaves."""
        missing = self.missing(values)
        if missing:
            shown = ", ".join(_short_value(m) for m in missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
            where = f" (data: {data_file})" if data_file else ""
            raise HierarchyError(
                f"{len(missing)} value(s) of '{self.attribute}' are not in the hierarchy{where}: {shown}",
                file=self.source,
                column=self.attribute,
            )

    def to_rows(self) -> list[list[str]]:
        return [list(r) for r in self.rows]

    # -- arrays for kernels ------------------------------------------------------------------------------
    @cached_property
    def arrays(self) -> HierarchyArrays:
        n_nodes = self.n_nodes
        node_leaves = np.zeros(n_nodes, dtype=np.int64)
        node_min = np.full(n_nodes, np.inf)
        node_max = np.full(n_nodes, -np.inf)
        numeric = True
        values = np.empty(len(self.leaves))
        for i, leaf in enumerate(self.leaves):
            try:
                values[i] = float(leaf)
            except ValueError:
                numeric = False
                break
        for level in range(self.height + 1):
            np.add.at(node_leaves, self._ancestor[:, level], 1)
            if numeric:
                np.minimum.at(node_min, self._ancestor[:, level], values)
                np.maximum.at(node_max, self._ancestor[:, level], values)
        if not numeric:
            node_min[:] = np.nan
            node_max[:] = np.nan
        return HierarchyArrays(
            ancestor=self._ancestor.copy(),
            node_level=np.asarray(self.node_level_list, dtype=np.int16),
            node_leaves=node_leaves,
            node_min=node_min,
            node_max=node_max,
            height=self.height,
        )

    def lca_level_table(self) -> np.ndarray:
        """``int16[n_leaves, n_leaves]``: the level of the lowest common ancestor of two leaves.

        Memory is ``2·n_leaves²`` bytes: meant for hierarchies up to a few thousand leaves; kernels over
        larger ones compare ``arrays.ancestor`` rows directly.
        """
        anc = self._ancestor
        n = len(self.leaves)
        table = np.full((n, n), self.height, dtype=np.int16)
        for level in range(self.height - 1, -1, -1):
            same = anc[:, level][:, None] == anc[:, level][None, :]
            table[same] = level
        return table

    def __repr__(self) -> str:
        return f"Hierarchy({self.attribute!r}, leaves={len(self.leaves)}, height={self.height})"


def _shown_label(label: str) -> str:
    """A label in a message: quoted, every character outside printable ASCII as its escape, cut at 80."""
    shown = label.encode("ascii", "backslashreplace").decode("ascii")
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)
    return "'" + (shown if len(shown) <= 80 else shown[:79] + "…") + "'"
