"""Synthetic data generators (tables, HHP-like events, Quest-like item sequences, proteins).

Pure functions (seeded numpy generators; the same seed always gives the same data):

- :func:`adult_like_table` + :func:`adult_hierarchies` — Adult-like census tables (001, 002);
- :func:`protein_like` — protein-like strings from a first-order Markov chain (000);
- :func:`hhp_events` + :func:`event_hierarchies` — HHP-like visit sequences (004 §4);
- :func:`quest_sequences` — IBM-Quest-style item sequences T·I·D (000 §5.1–5.2);
- :func:`labelled_proteins`, :func:`labelled_quest` — several classes interleaved, for classification.

:data:`GENERATORS` maps the ``anonstudio generate KIND`` names to :class:`~anonstudio.core.params.Command`;
each command writes its file(s) and returns the paths written:

- ``table``: ``;``-separated CSV (ARX's ``adult.csv`` layout) and, with ``with_hierarchies``, one ARX
  hierarchy per column beside it as ``<stem>_hierarchy_<column>.csv``;
- ``proteins``: FASTA, 60 letters a line; with ``classes`` > 1 headers end in ``class=A``, ``class=B`` …;
- ``events``: comma-separated event CSV (``PID,VID,<QIs>,Disease``) and its QI hierarchies beside it;
- ``quest``: with ``items`` ≤ 25, FASTA whose letters are the items (``protein-25`` letters, readable with
  that alphabet), headers ``q<n>`` (+ ``class=…``); with more items, a text file with one sequence per
  line as space-separated item names ``i1 … iN``, preceded by ``<class>`` and a tab when ``classes`` > 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from anonstudio.core.generate._events import (
    DISEASES,
    EVENT_QIS,
    HIGHLY_SENSITIVE,
    ZIP_CODES,
    event_hierarchies,
    event_hierarchy_rows,
    hhp_events,
)
from anonstudio.core.generate._proteins import (
    AMINO_ACIDS,
    human_like,
    protein_lengths,
    protein_like,
    stationary_composition,
    transition_matrix,
)
from anonstudio.core.generate._quest import LETTERS, QUEST_PATTERNS, item_names, quest_sequences
from anonstudio.core.generate._table import (
    ADULT_COLUMNS,
    adult_hierarchies,
    adult_hierarchy_rows,
    adult_like_table,
    visits_table,
)
from anonstudio.core.io import atomic_write, write_events, write_fasta, write_hierarchy, write_table
from anonstudio.core.params import Command, Param, ParamSet

#: Class labels used by the multi-class generators.
CLASS_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: ``hydrophobic_bias`` step between successive protein classes.
CLASS_BIAS_STEP = 0.5


def _interleave(parts: list[list]) -> list:
    """``[[a1, a2], [b1, b2]] → [a1, b1, a2, b2]``."""
    return [x for group in zip(*parts) for x in group]


def labelled_proteins(
    n_per_class: int, seed: int = 0, *, classes: int = 2, mean_length: float = 450.0, min_length: int = 30,
    max_length: int = 5000, low_complexity: float = 0.0, repeats: float = 0.0,
) -> tuple[list[str], list[str], list[str]]:
    """Protein-like strings of ``classes`` classes, interleaved (A, B, A, B, …).

    Class ``j`` is :func:`protein_like` with ``hydrophobic_bias = 0.5·j`` and seed ``(seed, j)``, so the
    classes differ in composition the way soluble and membrane-rich protein sets do. Returns
    ``(ids, sequences, labels)``; ids are ``synp<n>`` numbered in output order.
    """
    seq_parts, lab_parts = [], []
    for j in range(classes):
        _, seqs = protein_like(
            n_per_class, np.random.default_rng([int(seed), j]), mean_length=mean_length, min_length=min_length,
            max_length=max_length, hydrophobic_bias=CLASS_BIAS_STEP * j, low_complexity=low_complexity,
            repeats=repeats,
        )
        seq_parts.append(seqs)
        lab_parts.append([CLASS_LABELS[j]] * n_per_class)
    sequences = _interleave(seq_parts)
    labels = _interleave(lab_parts)
    pad = max(5, len(str(len(sequences))))
    ids = [f"synp{i + 1:0{pad}d}" for i in range(len(sequences))]
    return ids, sequences, labels


def labelled_quest(
    D: int, T: float = 20.0, I: float = 4.0, n_items: int = 20, seed: int = 0, *, classes: int = 2,
    n_patterns: int = QUEST_PATTERNS,
) -> tuple[list[list[str]], list[str]]:
    """``classes`` Quest instances of ``D`` sequences each, interleaved: 000 §5.1's classification data
    (two instances with different seeds; the instance is the class). Class ``j`` uses seed ``(seed, j)``.
    Returns ``(sequences, labels)``."""
    parts = [quest_sequences(D, T, I, n_items, np.random.default_rng([int(seed), j]), n_patterns=n_patterns)
             for j in range(classes)]
    labels = [[CLASS_LABELS[j]] * D for j in range(classes)]
    return _interleave(parts), _interleave(labels)


def hierarchy_path(out: Path, column: str) -> Path:
    """``<folder>/<stem>_hierarchy_<column>.csv`` beside ``out``."""
    return out.with_name(f"{out.stem}_hierarchy_{column}.csv")


# -- commands ------------------------------------------------------------------------------------------------
def _gen_table(out: Path, *, rows: int, seed: int, with_hierarchies: bool) -> list[Path]:
    out = Path(out)
    df = adult_like_table(rows, seed)
    paths = [write_table(df, out, delimiter=";")]
    if with_hierarchies:
        for col, h in adult_hierarchies().items():
            paths.append(write_hierarchy(h, hierarchy_path(out, col)))
    return paths


def _gen_proteins(out: Path, *, count: int, seed: int, mean_length: float, classes: int, low_complexity: float = 0.0,
                  repeats: float = 0.0) -> list[Path]:
    out = Path(out)
    if classes == 1:
        ids, seqs = protein_like(count, seed, mean_length=mean_length, low_complexity=low_complexity, repeats=repeats)
        headers = ids
    else:
        per_class = -(-count // classes)
        ids, seqs, labels = labelled_proteins(per_class, seed, classes=classes, mean_length=mean_length,
                                              low_complexity=low_complexity, repeats=repeats)
        headers = [f"{i} class={lab}" for i, lab in zip(ids, labels)]
    return [write_fasta(headers, seqs, out)]


def _gen_events(out: Path, *, sequences: int, mean_events: float, qis: int, seed: int,
                with_hierarchies: bool) -> list[Path]:
    out = Path(out)
    df = hhp_events(sequences, mean_events, qis, seed)
    paths = [write_events(df, out, delimiter=",")]
    if with_hierarchies:
        for col, h in event_hierarchies(EVENT_QIS[:qis]).items():
            paths.append(write_hierarchy(h, hierarchy_path(out, col)))
    return paths


def _gen_quest(out: Path, *, D: int, T: float, I: float, items: int, patterns: int, seed: int,
               classes: int) -> list[Path]:
    out = Path(out)
    if classes == 1:
        seqs, labels = quest_sequences(D, T, I, items, seed, n_patterns=patterns), None
    else:
        seqs, labels = labelled_quest(D, T, I, items, seed, classes=classes, n_patterns=patterns)
    if items <= len(LETTERS):
        headers = [f"q{i + 1}" + (f" class={labels[i]}" if labels else "") for i in range(len(seqs))]
        return [write_fasta(headers, ["".join(s) for s in seqs], out)]
    with atomic_write(out, "w", encoding="utf-8", newline="") as fh:
        for i, s in enumerate(seqs):
            fh.write((f"{labels[i]}\t" if labels else "") + " ".join(s) + "\n")
    return [out]


_SEED = Param("seed", "int", 1, help="seed of the random generator (same seed → same data)", low=0)

GENERATORS: dict[str, Command] = {
    "table": Command(
        "table",
        "Adult-like census table (columns and joint structure of UCI Adult; 001, 002), ';'-separated",
        ParamSet((
            Param("rows", "int", 1000, help="number of rows", low=1),
            _SEED,
            Param("with_hierarchies", "bool", True,
                  help="also write an ARX hierarchy per column as <stem>_hierarchy_<column>.csv"),
        )),
        _gen_table,
    ),
    "proteins": Command(
        "proteins",
        "protein-like strings (first-order Markov chain of Swiss-Prot yeast proteins; 000), FASTA",
        ParamSet((
            Param("count", "int", 100, help="number of sequences (split evenly over the classes, rounded up)", low=1),
            _SEED,
            Param("mean_length", "float", 450.0, help="mean length (log-normal, 30–5000)", low=30, high=5000),
            Param("classes", "int", 1, help="number of classes (header 'class=A', 'class=B', …)", low=1, high=26),
            Param("low_complexity", "float", 0.0, help="share of the strings given a homopolymer run of 12–60 "
                  "residues (poly-Q most often)", low=0.0, high=1.0),
            Param("repeats", "float", 0.0, help="share of the strings given a tandem repeat of a 20–120-residue "
                  "stretch, 2–6 copies with 5 % substitutions", low=0.0, high=1.0),
        )),
        _gen_proteins,
    ),
    "events": Command(
        "events",
        "HHP-like visit sequences: PID, VID, AdmYr, ZIP, DSFC, LOS, Disease (004 §4), CSV",
        ParamSet((
            Param("sequences", "int", 1000, help="number of sequences (patients)", low=1),
            Param("mean_events", "float", 5.0, help="average number of events per sequence (004: 3, 5, 10)", low=1),
            Param("qis", "int", 4, help="number of quasi-identifiers: first of AdmYr, ZIP, DSFC, LOS (004: 2–4)",
                  low=1, high=4),
            _SEED,
            Param("with_hierarchies", "bool", True,
                  help="also write an ARX hierarchy per QI as <stem>_hierarchy_<column>.csv"),
        )),
        _gen_events,
    ),
    "quest": Command(
        "quest",
        "IBM-Quest-style item sequences T.I.D (000 §5.1–5.2): FASTA when items ≤ 25, else one line each",
        ParamSet((
            Param("D", "int", 1000, help="number of sequences (per class)", low=1),
            Param("T", "float", 20.0, help="average sequence length", low=1),
            Param("I", "float", 4.0, help="average pattern length", low=1),
            Param("items", "int", 20, help="number of distinct items", low=2),
            Param("patterns", "int", QUEST_PATTERNS, help="size of the pattern pool (Quest's default: 2,000)", low=1),
            _SEED,
            Param("classes", "int", 1, help="instances with different seeds, one class each (000 §5.1: 2)",
                  low=1, high=26),
        )),
        _gen_quest,
    ),
}

__all__ = [
    "ADULT_COLUMNS",
    "AMINO_ACIDS",
    "CLASS_LABELS",
    "DISEASES",
    "EVENT_QIS",
    "GENERATORS",
    "HIGHLY_SENSITIVE",
    "ZIP_CODES",
    "adult_hierarchies",
    "adult_hierarchy_rows",
    "adult_like_table",
    "visits_table",
    "event_hierarchies",
    "event_hierarchy_rows",
    "hhp_events",
    "hierarchy_path",
    "human_like",
    "item_names",
    "labelled_proteins",
    "labelled_quest",
    "QUEST_PATTERNS",
    "protein_lengths",
    "protein_like",
    "quest_sequences",
    "stationary_composition",
    "transition_matrix",
]
