"""The experiments of Aggarwal & Yu, "A framework for condensation-based anonymization of string data" (DMKD
2008, §5), as tidy tables (``*_table`` functions) and as ``anonstudio experiment`` commands writing CSV + PNG.

=========================  ==========================================================  ==========================
command                    what                                                        paper
=========================  ==========================================================  ==========================
condensation-composition   symbol composition, original vs pseudo-strings              Figs. 4–7, Eq. 5
condensation-cd            compositional difference CD vs group size                   Fig. 8
condensation-ordering      inter-group distance ordering preserved vs group size       Fig. 9, Eq. 6
condensation-knn           k-NN or WavRule accuracy, original- vs pseudo-trained, vs k Figs. 10–13
condensation-order         k-NN accuracy and CD for statistics of order 2, 3, 4        Table 2
condensation-scaling       running time vs string length T and vs number of strings D  Figs. 14–15
=========================  ==========================================================  ==========================

The protein experiments read a FASTA file (``--input``, e.g. ``../shared/data/proteins/yeast_swissprot_1000.fasta``);
the classification and scaling ones generate Quest-style item sequences (two generator instances with different
seeds are the two classes, as in §5.1).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from anonstudio.core.algorithms.condensation import LENGTH_MODES, knn_original_vs_pseudo
from anonstudio.core.data import SequenceSet
from anonstudio.core.errors import ParameterError
from anonstudio.core.io.formats import dialog_filter
from anonstudio.core.experiments._plots import save_png, subplots
from anonstudio.core.params import Command, Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report, subrange


def _int_list(text: str | list, name: str) -> list[int]:
    items = text if isinstance(text, list) else [t for t in str(text).replace(";", ",").split(",") if t.strip()]
    try:
        values = [int(str(v).strip()) for v in items]
    except ValueError:
        raise ParameterError(f"parameter '{name}' must be a comma-separated list of whole numbers, got {text!r}",
                             column=name) from None
    if not values:
        raise ParameterError(f"parameter '{name}' is empty", column=name)
    return values


def _condense(data: SequenceSet, k: int, epsilon: float, order: int, seed: int, progress=None, length="group"):
    from anonstudio.core.algorithms.condensation import Condensation

    return Condensation(k=k, epsilon=epsilon, order=order, seed=seed, length=length).run(data, {}, progress)


def _length_list(text: str) -> list[str]:
    modes = [t.strip() for t in str(text).replace(";", ",").split(",") if t.strip()]
    bad = [m for m in modes if m not in LENGTH_MODES]
    if not modes or bad:
        raise ParameterError(f"parameter 'lengths' must list some of {', '.join(LENGTH_MODES)}, got {text!r}",
                             column="lengths")
    return modes


def _read_fasta(path: str) -> SequenceSet:
    from anonstudio.core import io

    if not path:
        raise ParameterError("--input is required: a FASTA file of protein strings", column="input")
    return io.read_fasta(Path(path))


def quest_two_classes(D: int, T: float, I: float, n_items: int, seed: int, patterns: int | None = None) -> SequenceSet:
    """§5.1's classification data: two Quest instances of ``D`` sequences with different seeds
    (:func:`anonstudio.core.generate.labelled_quest`); the instance is the class label (``A`` / ``B``)."""
    from anonstudio.core.generate import QUEST_PATTERNS, labelled_quest

    sequences, labels = labelled_quest(D, T, I, n_items, seed, classes=2, n_patterns=patterns or QUEST_PATTERNS)
    return SequenceSet.from_strings(sequences, ids=[f"q{i + 1}" for i in range(len(sequences))], labels=labels)


# ---------------------------------------------------------------------------------------------------------
# tidy tables
def composition_table(data: SequenceSet, *, k: int = 20, epsilon: float = 1.5, order: int = 2, seed: int = 1,
                      length: str = "group", progress: ProgressCallback | None = None) -> pd.DataFrame:
    """Figs. 4–7: fraction of each symbol in the original and the pseudo data (column ``CD`` repeats Eq. 5)."""
    from anonstudio.core import metrics

    res = _condense(data, k, epsilon, order, seed, progress, length)
    f, f2 = metrics.composition(data), metrics.composition(res.output)
    cd = metrics.compositional_difference(f, f2)
    return pd.DataFrame({"index": np.arange(1, len(f) + 1), "symbol": list(data.alphabet.symbols), "original": f,
                         "pseudo": f2, "CD": cd})


def cd_table(data: SequenceSet, group_sizes: list[int], *, epsilon: float = 1.5, order: int = 2, seed: int = 1,
             length: str = "group", progress: ProgressCallback | None = None) -> pd.DataFrame:
    """Fig. 8: compositional difference CD (Eq. 5) for each group size k."""
    from anonstudio.core import metrics

    rows = []
    f = metrics.composition(data)
    for i, k in enumerate(group_sizes):
        res = _condense(data, k, epsilon, order, seed,
                        subrange(progress, i / len(group_sizes), (i + 1) / len(group_sizes)), length)
        sizes = np.bincount(res.groups[res.groups >= 0])
        rows.append({"group_size": k, "CD": metrics.compositional_difference(f, metrics.composition(res.output)),
                     "groups": len(sizes), "suppressed": res.suppressed})
    return pd.DataFrame(rows)


def ordering_table(data: SequenceSet, group_sizes: list[int], *, epsilon: float = 1.5, order: int = 2, seed: int = 1,
                   pairs: int = 20, strings_per_group: int | None = None, scoring: str = "unit",
                   lengths: list[str] = ("group",), progress: ProgressCallback | None = None) -> pd.DataFrame:
    """Fig. 9: fraction of the ``m (m-1) / 2`` pairs of sampled group pairs whose Gdist order (Eq. 6) is preserved,
    with Needleman–Wunsch under unit costs or BLOSUM62 with affine gaps (``scoring``), for each pseudo-string
    length mode in ``lengths`` (``"segment"`` is §4.3 as printed, ``"group"`` the default)."""
    from anonstudio.core import metrics

    rows = []
    combos = [(mode, k) for mode in lengths for k in group_sizes]
    n = len(combos)
    for i, (mode, k) in enumerate(combos):
        sub = subrange(progress, i / n, (i + 1) / n)
        res = _condense(data, k, epsilon, order, seed, subrange(sub, 0.0, 0.3), mode)
        o = metrics.distance_order_preserved(data, res.groups, res.output, res.output.extra["groups"], pairs=pairs,
                                             strings_per_group=strings_per_group, seed=seed, scoring=scoring,
                                             progress=subrange(sub, 0.3, 1.0))
        rows.append({"group_size": k, "length": mode, "distance_order_preserved": o["preserved"],
                     "group_pairs": o["group_pairs"], "scoring": scoring})
    return pd.DataFrame(rows)


def knn_table(data: SequenceSet, group_sizes: list[int], *, epsilon: float = 1.5, orders: list[int] = (2,),
              seed: int = 1, test_size: int = 200, n_neighbors: int = 5, distance: str = "nw",
              length: str = "group", classifier: str = "knn", progress: ProgressCallback | None = None) -> pd.DataFrame:
    """Figs. 10–13 and Table 2: accuracy of the k-NN (Figs. 10–11) or WavRule (Figs. 12–13) classifier trained on
    the originals and on pseudo-strings condensed per class, on the same held-out originals, for each group size
    and order."""

    rows = []
    combos = [(k, o) for o in orders for k in group_sizes]
    for i, (k, o) in enumerate(combos):
        r = knn_original_vs_pseudo(data, k=k, epsilon=epsilon, order=o, seed=seed, length=length,
                                           test_size=test_size,
                                           n_neighbors=n_neighbors, distance=distance, classifier=classifier,
                                           progress=subrange(progress, i / len(combos), (i + 1) / len(combos)))
        rows.append({"group_size": k, "order": o, "classifier": classifier, "accuracy_original": r["accuracy_original"],
                     "accuracy_pseudo": r["accuracy_pseudo"],
                     "accuracy_original_shuffled": r["accuracy_original_shuffled"], "test": r["test"],
                     "train": r["train"]})
    return pd.DataFrame(rows)


def scaling_table(lengths: list[int], sizes: list[int], *, fixed_length: int = 20, fixed_size: int = 10000,
                  I: float = 4.0, n_items: int = 1000, k: int = 40, epsilon: float = 1.5, seed: int = 1,
                  progress: ProgressCallback | None = None) -> pd.DataFrame:
    """Figs. 14–15: seconds to condense Quest data T(x).I.D(fixed) and T(fixed).I.D(x) with anonymity level k
    (data generation not timed): wall time ``seconds`` and the process's CPU time ``cpu_seconds`` (steadier on a
    shared machine)."""
    from anonstudio.core.generate import quest_sequences

    runs = [("length", T, fixed_size) for T in lengths] + [("size", fixed_length, D) for D in sizes]
    # one untimed run first: loading the compiled kernels is in no point's time
    _condense(SequenceSet.from_strings(quest_sequences(4 * k, fixed_length, I, n_items, seed)), k, epsilon, 2, seed)
    rows = []
    for i, (kind, T, D) in enumerate(runs):
        data = SequenceSet.from_strings(quest_sequences(D, T, I, n_items, seed))
        start, cpu = time.perf_counter(), time.process_time()
        res = _condense(data, k, epsilon, 2, seed, subrange(progress, i / len(runs), (i + 1) / len(runs)))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        rows.append({"varied": kind, "T": T, "D": D, "mean_length": float(data.lengths.mean()), "seconds": seconds,
                     "cpu_seconds": cpu, "groups": int(res.groups.max() + 1), "suppressed": res.suppressed})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------------
# commands: CSV + PNG
def _save(df: pd.DataFrame, fig, out: Path, stem: str) -> list[Path]:
    from anonstudio.core.io._atomic import atomic_write

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / f"{stem}.csv"
    with atomic_write(csv_path) as fh:
        df.to_csv(fh, index=False)
    return [csv_path, save_png(fig, out / f"{stem}.png")]


def _line_plot(df, x, ys, xlabel, ylabel, title):
    fig, ax = subplots(figsize=(6, 4))
    for y, label in ys:
        ax.plot(df[x], df[y], marker="o", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if len(ys) > 1:
        ax.legend()
    ax.grid(alpha=0.3)
    return fig


def run_composition(out, *, input: str, k: int, epsilon: float, order: int, seed: int, length: str,
                    progress=None) -> list[Path]:
    data = _read_fasta(input)
    df = composition_table(data, k=k, epsilon=epsilon, order=order, seed=seed, length=length, progress=progress)
    fig, ax = subplots(figsize=(8, 4))
    x = np.arange(len(df))
    ax.bar(x - 0.2, df["original"], 0.4, label="original")
    ax.bar(x + 0.2, df["pseudo"], 0.4, label="pseudo-strings")
    ax.set_xticks(x, df["symbol"])
    ax.set_ylabel("fraction")
    ax.set_title(f"Composition, k = {k}, pseudo-string length: {length} (CD = {df['CD'].iloc[0]:.4f})")
    ax.legend()
    return _save(df, fig, out, "condensation-composition")


def run_cd(out, *, input: str, group_sizes: str, epsilon: float, order: int, seed: int, length: str,
           progress=None) -> list[Path]:
    df = cd_table(_read_fasta(input), _int_list(group_sizes, "group_sizes"), epsilon=epsilon, order=order, seed=seed,
                  length=length, progress=progress)
    fig = _line_plot(df, "group_size", [("CD", "CD")], "group size k", "compositional difference CD (Eq. 5)",
                     f"Composition difference vs group size (Fig. 8), length: {length}")
    return _save(df, fig, out, "condensation-cd")


def run_ordering(out, *, input: str, group_sizes: str, epsilon: float, order: int, seed: int, pairs: int,
                 strings_per_group: int, scoring: str, lengths: str, progress=None) -> list[Path]:
    modes = _length_list(lengths)
    df = ordering_table(_read_fasta(input), _int_list(group_sizes, "group_sizes"), epsilon=epsilon, order=order,
                        seed=seed, pairs=pairs, strings_per_group=strings_per_group or None, scoring=scoring,
                        lengths=modes, progress=progress)
    wide = df.pivot(index="group_size", columns="length", values="distance_order_preserved").reset_index()
    fig = _line_plot(wide, "group_size", [(m, f"pseudo-string length: {m}") for m in modes], "group size k",
                     f"fraction of orderings preserved ({scoring} NW)", "Distance ordering vs group size (Fig. 9)")
    return _save(df, fig, out, "condensation-ordering")


def _classifier_words(classifier: str) -> tuple[str, str]:
    return ("WavRule", "Figs. 12-13") if classifier == "wavrule" else ("k-NN", "Figs. 10-11")


def run_knn(out, *, D: int, T: float, I: float, items: int, patterns: int, group_sizes: str, epsilon: float, seed: int,
            length: str, test_size: int, neighbors: int, distance: str, classifier: str = "knn",
            progress=None) -> list[Path]:
    data = quest_two_classes(D, T, I, items, seed, patterns)
    df = knn_table(data, _int_list(group_sizes, "group_sizes"), epsilon=epsilon, seed=seed, test_size=test_size,
                   n_neighbors=neighbors, distance=distance, length=length, classifier=classifier, progress=progress)
    name, figs = _classifier_words(classifier)
    fig = _line_plot(df, "group_size", [("accuracy_original", "trained on originals"),
                                         ("accuracy_pseudo", "trained on pseudo-strings"),
                                         ("accuracy_original_shuffled", "originals, items shuffled in each string")],
                     "group size k", f"{name} accuracy",
                     f"V{T:g}.I{I:g}.D{2 * D}: classification ({figs}), length: {length}")
    return _save(df, fig, out, "condensation-knn")


def run_order(out, *, D: int, T: float, I: float, items: int, patterns: int, k: int, orders: str, epsilon: float,
              seed: int, length: str, test_size: int, neighbors: int, distance: str, classifier: str = "knn",
              progress=None) -> list[Path]:
    from anonstudio.core import metrics

    data = quest_two_classes(D, T, I, items, seed, patterns)
    order_list = _int_list(orders, "orders")
    if min(order_list) < 2:
        raise ParameterError("orders must be at least 2", column="orders")
    df = knn_table(data, [k], epsilon=epsilon, orders=order_list, seed=seed, test_size=test_size,
                   n_neighbors=neighbors, distance=distance, length=length, classifier=classifier,
                   progress=subrange(progress, 0.0, 0.8))
    f = metrics.composition(data)
    df["CD"] = [metrics.compositional_difference(
        f, metrics.composition(_condense(data, k, epsilon, o, seed, length=length).output)) for o in order_list]
    report(progress, 1.0, "done")
    fig = _line_plot(df, "order", [("accuracy_original", "trained on originals"),
                                    ("accuracy_pseudo", "trained on pseudo-strings")],
                     "order of the statistics", f"{_classifier_words(classifier)[0]} accuracy",
                     f"Higher-order statistics, k = {k} (Table 2)")
    return _save(df, fig, out, "condensation-order")


def run_scaling(out, *, lengths: str, sizes: str, fixed_length: int, fixed_size: int, I: float, items: int, k: int,
                epsilon: float, seed: int, progress=None) -> list[Path]:
    df = scaling_table(_int_list(lengths, "lengths"), _int_list(sizes, "sizes"), fixed_length=fixed_length,
                       fixed_size=fixed_size, I=I, n_items=items, k=k, epsilon=epsilon, seed=seed, progress=progress)
    fig, (a, b) = subplots(1, 2, figsize=(9, 4))
    d1 = df[df["varied"] == "length"]
    d2 = df[df["varied"] == "size"]
    a.plot(d1["T"], d1["seconds"], marker="o")
    a.set_xlabel("average string length T")
    a.set_ylabel("seconds")
    a.set_title(f"T(x).I{I:g}.D{fixed_size} (Fig. 14)")
    b.plot(d2["D"], d2["seconds"], marker="o")
    b.set_xlabel("number of strings D")
    b.set_title(f"T{fixed_length}.I{I:g}.D(x) (Fig. 15)")
    for ax in (a, b):
        ax.grid(alpha=0.3)
    return _save(df, fig, out, "condensation-scaling")


_INPUT = Param("input", "str", "", "FASTA file of strings (e.g. ../shared/data/proteins/yeast_swissprot_1000.fasta)",
               browse="file", filter=dialog_filter("fasta"))
_EPS = Param("epsilon", "float", 1.5, "length similarity ε (Def. 2.1)", low=0.0, low_open=True)
_ORDER = Param("order", "int", 2, "order of the statistics (§4.3, §4.6)", low=2, high=8)
_SEED = Param("seed", "int", 1, "random seed")
_LENGTH = Param("length", "choice", "group",
                "pseudo-string length: group mean (default), segment template length (§4.3), whole input (Figs. 4-7)",
                choices=LENGTH_MODES)
_SIZES = Param("group_sizes", "str", "5,10,20,40,80", "comma-separated group sizes k")
_QUEST = (
    Param("D", "int", 2000, "sequences per class (the paper: 50,000)", low=10),
    Param("T", "float", 20.0, "average sequence length", low=1.0),
    Param("I", "float", 6.0, "average pattern length (V20.I6 / V20.I4)", low=1.0),
    Param("items", "int", 1000, "number of distinct items", low=2),
    Param("patterns", "int", 2000, "size of each instance's pattern pool (Quest's default: 2,000)", low=1),
)
_KNN = (
    Param("test_size", "int", 200, "held-out original strings (the paper: 1,000)", low=1),
    Param("neighbors", "int", 5, "neighbours of the k-NN classifier", low=1),
    Param("distance", "choice", "nw", "k-NN distance: Needleman–Wunsch unit costs, BLOSUM62 or composition",
          choices=("nw", "blosum62", "composition")),
    Param("classifier", "choice", "knn", "knn: nearest neighbours (Figs. 10-11); wavrule: rules over Haar wavelet "
          "items (Aggarwal 2002, Figs. 12-13)", choices=("knn", "wavrule")),
)

EXPERIMENTS: dict[str, Command] = {
    "condensation-composition": Command(
        "condensation-composition", "composition of original vs pseudo-strings (000 Figs. 4-7)",
        ParamSet((_INPUT, Param("k", "int", 20, "group size", low=2), _EPS, _ORDER, _SEED, _LENGTH)),
        run_composition),
    "condensation-cd": Command(
        "condensation-cd", "compositional difference CD vs group size (000 Fig. 8)",
        ParamSet((_INPUT, _SIZES, _EPS, _ORDER, _SEED, _LENGTH)), run_cd),
    "condensation-ordering": Command(
        "condensation-ordering", "inter-group distance ordering preserved vs group size (000 Fig. 9)",
        ParamSet((_INPUT, _SIZES, _EPS, _ORDER, _SEED,
                  Param("pairs", "int", 20, "sampled group pairs m", low=2),
                  Param("strings_per_group", "int", 0,
                        "strings sampled per group for Gdist (0 = all, as Eq. 6)", low=0),
                  Param("scoring", "choice", "unit", "Needleman–Wunsch costs: unit, or BLOSUM62 with affine gaps",
                        choices=("unit", "blosum62")),
                  Param("lengths", "str", "group,segment",
                        "pseudo-string length modes, one curve each (group, segment = §4.3, database)"))),
        run_ordering),
    "condensation-knn": Command(
        "condensation-knn", "k-NN or WavRule accuracy, original vs pseudo training data, vs group size "
        "(000 Figs. 10-13)",
        ParamSet((*_QUEST, Param("group_sizes", "str", "5,10,20,40", "comma-separated group sizes k"), _EPS, _SEED,
                  _LENGTH, *_KNN)), run_knn),
    "condensation-order": Command(
        "condensation-order", "k-NN accuracy and CD with statistics of order 2, 3, 4 (000 Table 2)",
        ParamSet((*_QUEST, Param("k", "int", 20, "group size", low=2),
                  Param("orders", "str", "2,3,4", "comma-separated orders"), _EPS, _SEED, _LENGTH, *_KNN)),
        run_order),
    "condensation-scaling": Command(
        "condensation-scaling", "running time vs string length and vs number of strings (000 Figs. 14-15)",
        ParamSet((Param("lengths", "str", "10,20,30,40", "average lengths T (Fig. 14)"),
                  Param("sizes", "str", "2000,5000,10000,20000", "numbers of strings D (Fig. 15)"),
                  Param("fixed_length", "int", 20, "T while D varies", low=1),
                  Param("fixed_size", "int", 10000, "D while T varies", low=10),
                  Param("I", "float", 4.0, "average pattern length", low=1.0),
                  Param("items", "int", 1000, "number of distinct items", low=2),
                  Param("k", "int", 40, "anonymity level (the paper: 40)", low=2), _EPS, _SEED)), run_scaling),
}
