"""(ε, δ)-differential privacy for tables: SafePub's random sampling, exponential-mechanism search of the
full-domain generalization lattice and k-anonymization with suppression (``safepub``).

R. Bild, K. A. Kuhn, F. Prasser: SafePub: A Truthful Data Anonymization Algorithm With Strong Privacy Guarantees.
PoPETs 2018(1):67-87 (DOI 10.1515/popets-2018-0004). A run, with ε = ε_anon + ε_search:

1. **Sampling**: each record is kept independently with probability β = 1 − e^(−ε_anon)
   (:func:`~anonstudio.core.privacy._safepub.sampling_probability`); the others are never published.
2. **Search** (the exponential mechanism of McSherry & Talwar, FOCS 2007; u a score of sensitivity at most 1
   computed on the sample, :func:`loss_score`, :func:`discernibility_score`; a draw at budget ε picks g with
   probability ∝ exp(ε u(g) / 2)). A walk over the lattice of full-domain transformations (one hierarchy level
   per quasi-identifier, within ``min_level`` / ``max_level``) from the most general transformation, for ``steps``
   steps: each step adds the last drawn transformation's direct specializations to the candidates, removes that
   transformation itself, and draws the next one from the candidates with ε_walk / steps — SafePub's search
   as ARX implements it (``DataDependentEDDPAlgorithm.traverse``: predecessors of the pivot added,
   the pivot removed, the next pivot drawn). **Which transformation is released** differs: ARX releases the drawn
   transformation of best *exact* score. That comparison reads the sample's scores outside any mechanism, and
   sequential composition does not cover it: on a lattice of the top and one specialization, 100 steps draw both
   almost surely, and the release is then a deterministic function of which scores higher on the sample — one
   record can flip it, with nothing bounding the ratio by e^ε_search. Here the release is one more
   exponential-mechanism draw over every transformation the walk saw (drawn ones and their specializations), at
   ε_select = :data:`SELECTION_SHARE` · ε_search; the walk spends the rest, ε_walk. Every candidate set is a
   function of earlier draws only, so the search is ε_walk + ε_select = ε_search-DP by adaptive sequential
   composition (Dwork & Roth 2014, Theorem 3.16). Measured against ARX on Adult, 8 quasi-identifiers, ε = 0.5 / 1
   / 2, ε_search = 0.1 (``tests/benchmarks/bench_dp_vs_arx.py``, issue 41 item 7): NCP 3 / 6 / 10 % above ARX's
   (whose choice is not covered, as said), against 6 / 11 / 25 % when the walk's last draw was released.
3. **k-anonymization** (Li, Qardaji & Su's "strongly-safe" k-anonymization): the sample generalized by
   the drawn transformation, every record of a class smaller than k suppressed, k the smallest with
   d(k, β, ε_anon) ≤ δ (:func:`~anonstudio.core.privacy._safepub.minimal_k`, Li et al. Theorem 5).

Steps 1 and 3 are (ε_anon, δ)-DP (the theorem); step 2 is ε_search-DP; together (ε, δ)-DP with respect to adding
or removing one record (SafePub Theorem / sequential composition), provided the hierarchies and level limits do
not depend on the data. The release keeps the table form every release has — one row per input record, a record
not sampled or suppressed a row of ``*`` — so it also publishes the input's row count, which the theorem does
not cover; its rows must be published in a random order (``output.shuffle_rows``: in the input's order a row's
position would name its record), and every published column must be a quasi-identifier (a column published
unchanged would show the values of records that were never sampled).

The random draws come from the user's release key in a job's run (:mod:`anonstudio.core.keys`; a job may not write
a seed: whoever reads it replays the sampling), from ``seed`` in an in-memory run (unset, one from the operating
system); a seed a reader can guess gives the sampling away and fails verification.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anonstudio.core.algorithms._base import Result, SecretSeed
from anonstudio.core.algorithms._tabular import GeneralizingMethod, generalized_output, renumber_by_first_record
from anonstudio.core.errors import ParameterError
from anonstudio.core.params import Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table

#: the score functions the search may maximize (each of sensitivity at most 1, SafePub's section 5; ARX's score functions)
SCORES = ("loss", "dm")
#: the most steps a search may take (each evaluates up to d new transformations)
MAX_STEPS = 100_000
#: the share of ε_search spent on the draw of the released transformation among those the walk saw; the rest is
#: split evenly among the walk's steps (see the module, step 2)
SELECTION_SHARE = 0.9

SEED = Param("seed", "int", None, "random seed of the sampling and the search, in-memory runs only: a job's run "
             "draws from the release key and may not write a seed; unset, one is drawn from the operating system",
             low=0)


def exponential_probabilities(scores: np.ndarray, epsilon: float) -> np.ndarray:
    """The exponential mechanism's distribution over candidates of sensitivity-1 ``scores`` at budget ``epsilon``:
    P(g) = exp(ε u(g) / 2) / Σ exp(ε u(g') / 2) (McSherry & Talwar 2007, as ARX's ExponentialMechanism weighs them), computed shifted by the
    largest exponent so no term overflows."""
    import numpy as np

    x = 0.5 * float(epsilon) * np.asarray(scores, dtype=np.float64)
    w = np.exp(x - x.max())
    return w / w.sum()


def exponential_choice(scores: np.ndarray, epsilon: float, rng: np.random.Generator) -> int:
    """One draw of the exponential mechanism (:func:`exponential_probabilities`): the index drawn."""
    import numpy as np

    p = exponential_probabilities(scores, epsilon)
    return int(min(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right"), len(p) - 1))


def loss_score(cell_cost: float, suppressed: int, d: int, k: int) -> float:
    """SafePub's loss score (section 5; ARX's Loss score, normalized as ARX's) with Iyengar's cell cost: minus the sample's
    cost — each kept cell (leaves under its published node − 1) / (leaves of the hierarchy − 1), each suppressed
    record d — divided by d · max(k − 1, 1).

    Sensitivity ≤ 1: adding one record t changes only t's class. t not sampled: no change. t joins a kept class:
    + its own cost ≤ d. t joins a class of k − 1 records, which is then kept: the k − 1 records cost (k − 1)·d
    before and between 0 and k·d after, a change in [−(k − 1)d, d]. t joins a smaller class: + d. So
    |Δ| ≤ d · max(k − 1, 1)."""
    return -(float(cell_cost) + d * float(suppressed)) / (d * max(k - 1, 1))


def discernibility_score(sum_squares: float, suppressed: int, n: int, k: int) -> float:
    """SafePub's discernibility score (section 5.2, as ARX's MetricSDNMDiscernability cites it): −(Σ_kept |E|² + n · suppressed) / (n · (k² / (k − 1) + 1)) (5n for
    k = 1), n the input's records.

    Sensitivity ≤ 1 (re-derived here; the normalizer is the paper's and ARX's): adding t changes t's class and the
    penalty n → n + 1 of each suppressed record. The class change is at most 2n + 1 (a kept class of m ≤ n grows),
    |k² − (k − 1)(n + 1)| (a class of k − 1 is kept) or n + 1 (t suppressed); the penalty adds at most n. For
    k ≥ 2 and k ≤ n each sum is ≤ n(k + 1) + n ≤ n(k² / (k − 1) + 1); for k = 1 nothing is suppressed and
    2n + 1 ≤ 5n."""
    norm = n * (k * k / (k - 1) + 1) if k > 1 else 5.0 * n
    return -(float(sum_squares) + n * float(suppressed)) / max(norm, 1.0)


class SafePub(SecretSeed, GeneralizingMethod):
    """(ε, δ)-differentially private full-domain generalization of a sample (see the module).

    Parameters: ``epsilon`` (total), ``delta``, ``epsilon_search`` (the part of ε spent on the search; the rest,
    ε_anon, fixes the sampling probability and k), ``steps``, ``score`` (the score function the search favours),
    ``min_level`` / ``max_level`` (the lattice searched) and ``seed``.
    """

    name = "safepub"
    group_unit = "class"
    people_refusal = ("its (ε, δ)-differential privacy is per record: one person's several records need a "
                      "guarantee per person, which its sampling does not give")
    title = "Differential privacy (SafePub: sampling + generalization)"
    reference = ("R. Bild, K. A. Kuhn, F. Prasser: SafePub: A Truthful Data Anonymization Algorithm With Strong "
                 "Privacy Guarantees. PoPETs 2018(1):67-87; N. Li, W. Qardaji, D. Su: On sampling, anonymization, "
                 "and differential privacy. ASIACCS 2012")
    description = ("publishes a random sample of the records, every quasi-identifier generalized to one hierarchy "
                   "level chosen by the exponential mechanism, classes smaller than the k that ε and δ give "
                   "suppressed: (ε, δ)-differential privacy")
    privacy_models = ("(ε, δ)-differential privacy (SafePub)", "k-anonymity with suppression (k from ε and δ)")
    reported_metrics = ("transformation", "k", "sampling_probability", "sampled_records", "NCP_total", "GCP", "DM",
                        "CAVG", "quality")
    parameters = ParamSet((
        Param("epsilon", "float", 2.0, help="ε of (ε, δ)-differential privacy: the whole budget (search included)",
              low=0.0, low_open=True, title="ε — privacy budget"),
        Param("delta", "float", 1e-6, help="δ of (ε, δ)-differential privacy: the chance the ε bound may fail",
              low=0.0, high=1.0, low_open=True, high_open=True, title="δ — failure probability"),
        Param("epsilon_search", "float", 0.1, help="the part of ε the search of the lattice spends (ARX's default "
              "0.1); the rest fixes the sampling probability β = 1 − e^−(ε − ε_search) and k", low=0.0,
              low_open=True, title="ε spent on the search"),
        Param("steps", "int", 100, help="steps of the search's walk, each an exponential-mechanism draw with "
              "a tenth of ε_search / steps; the release is one more draw, with the other nine tenths", low=1,
              high=MAX_STEPS, title="Search steps"),
        Param("score", "choice", "loss", help="what the search favours: loss (granularity: share of each hierarchy "
              "lost per cell, suppressed cells count 1) or dm (discernibility: Σ class size², a suppressed record "
              "counting n)", choices=SCORES, title="Score function"),
        Param("min_level", "levels", None, help="lowest hierarchy level the search may give an attribute, e.g. "
              "age=1", title="Lowest level per attribute"),
        Param("max_level", "levels", None, help="highest hierarchy level the search may give an attribute, e.g. "
              "native-country=1", title="Highest level per attribute"),
        SEED,
    ))
    #: suppression is part of the mechanism (every class smaller than k), not a budget
    pipeline_parameters = ParamSet()
    #: rows in the input's order would name each published record's person
    random_row_order = True
    #: a column published unchanged would show the values of records never sampled
    quasi_identifiers_only = True

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        eps, search = self.params["epsilon"], self.params["epsilon_search"]
        if not search < eps:
            raise ParameterError(f"epsilon_search ({search:g}) must be below epsilon ({eps:g}): the rest, "
                                 "ε − ε_search, is what the sampling and k-anonymity spend",
                                 key="algorithm.epsilon_search")
        self._k: int | None = None

    # -- what the parameters fix before any data is seen ---------------------------------------------------------
    @property
    def epsilon_anon(self) -> float:
        return float(self.params["epsilon"] - self.params["epsilon_search"])

    @property
    def beta(self) -> float:
        from anonstudio.core.privacy._safepub import sampling_probability

        return sampling_probability(self.epsilon_anon)

    def k_for(self, records: int) -> int:
        """The smallest k the theorem allows (:func:`~anonstudio.core.privacy._safepub.minimal_k`); a
        :class:`ParameterError` when it exceeds the ``records`` a class can hold."""
        from anonstudio.core.privacy._safepub import minimal_k

        k = minimal_k(self.epsilon_anon, self.params["delta"], max(records, 1))
        if k is None:
            raise ParameterError(f"δ = {self.params['delta']:g} at ε − ε_search = {self.epsilon_anon:g} needs "
                                 f"classes of more records than the input's {records}: raise delta or epsilon",
                                 key="algorithm.delta")
        return k

    # -- the run ----------------------------------------------------------------------------------------------
    def _published_columns(self, data: Table) -> None:
        """Every column published must be a quasi-identifier (identifying columns are dropped)."""
        qis = set(data.quasi_identifiers)
        others = [c for c in data.df.columns if c not in qis and c not in set(data.identifying)]
        if others:
            raise ParameterError(f"column '{others[0]}' would be published unchanged, for sampled and unsampled "
                                 "records alike, which differential privacy does not allow: make it a "
                                 "quasi-identifier (with a hierarchy) or identifying (left out of the release)",
                                 file=data.source, column=others[0], key="input.quasi_identifiers")

    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None) -> Result:
        import numpy as np

        from anonstudio.core.algorithms._tabular import encode_quasi_identifiers, pack_hierarchies
        from anonstudio.core.algorithms.global_recoding import _Lattice, lattice_bounds
        from anonstudio.core.metrics._quality import MODELS

        self._published_columns(data)
        packed = pack_hierarchies(data.quasi_identifiers, hierarchies)
        leaf_nodes, missing = encode_quasi_identifiers(data, packed)
        qis, hs = packed.attributes, packed.hierarchies
        n, d = data.n_rows, len(qis)
        k = self._k = self.k_for(int((~missing).sum()))
        low, high = lattice_bounds(self.params, qis, hs)
        size = int(np.prod(high - low + 1))
        sample_seq, search_seq = np.random.SeedSequence(self.effective_seed()).spawn(2)
        sampled = np.random.default_rng(sample_seq).random(n) < self.beta  # step 1: Bernoulli(β) per record
        idx = np.flatnonzero(sampled & ~missing)
        report(progress, 0.05, f"{len(idx):,} of {n:,} records sampled (β = {self.beta:.3f}); k = {k}")
        leaves = np.zeros((len(idx), d), dtype=np.int64)
        for a, h in enumerate(hs):
            node_to_leaf = np.full(h.n_nodes, -1, dtype=np.int64)
            node_to_leaf[h.arrays.ancestor[:, 0]] = np.arange(len(h.leaves))
            leaves[:, a] = node_to_leaf[leaf_nodes[idx, a] - packed.offsets[a]]
        rng = np.random.default_rng(search_seq)
        if len(idx):
            lattice = _Lattice(leaves, np.full(len(idx), -1, dtype=np.int32), 1, hs, low, high, MODELS["dm"],
                               np.ones(d), {"min_size": k}, 0, np.zeros(0, dtype=np.int32), len(idx))
            node, walk = self._search(lattice, n, k, rng, progress)
        else:  # nothing sampled: every record is published as '*' whatever the levels
            lattice, node, walk = None, size - 1, {"steps": 0, "candidates": 0, "score": 0.0}
        levels = [int(v) for v in np.unravel_index(node, tuple(high - low + 1))] if size else []
        levels = [int(lv + lo) for lv, lo in zip(levels, low)]
        report(progress, 0.96, "building the output")
        groups = np.full(n, -1, dtype=np.int64)
        class_nodes = np.zeros((0, d), dtype=np.int64)
        if lattice is not None:
            lattice.evaluate(node)  # leaves the drawn transformation's classes in the kernel's arrays
            tuple_class = lattice.keys[lattice.record_tuple]
            kept = lattice.outlier[tuple_class] == 0
            labels = renumber_by_first_record(np.where(kept, tuple_class, -1))
            groups[idx] = labels
            n_groups = int(labels.max()) + 1 if len(labels) and labels.max() >= 0 else 0
            class_nodes = np.zeros((n_groups, d), dtype=np.int64)
            if n_groups:
                _, first = np.unique(labels, return_index=True)
                first = first[1:] if labels[first[0]] < 0 else first
                rep_leaves = lattice.tuple_leaves[lattice.record_tuple[first]]
                for a, h in enumerate(hs):
                    class_nodes[:, a] = h.arrays.ancestor[rep_leaves[:, a], levels[a]] + packed.offsets[a]
        published = int((groups >= 0).sum())
        transformation = {q: v for q, v in zip(qis, levels)}
        notes = [
            f"(ε, δ)-differential privacy with ε = {self.params['epsilon']:g} (ε_anon = {self.epsilon_anon:g} for "
            f"sampling and k-anonymity, ε_search = {self.params['epsilon_search']:g} for the search) and δ = "
            f"{self.params['delta']:g}: records sampled with probability β = {self.beta:.4f}, classes smaller than "
            f"k = {k} suppressed",
            "safepub: " + ", ".join(f"{q} at level {v} of {h.height}" for q, v, h in zip(qis, levels, hs))
            + f" (drawn by the exponential mechanism in {walk['steps']} steps among {walk['candidates']} "
              f"transformations, score '{self.params['score']}')",
            f"{int(sampled.sum()):,} of {n:,} records were sampled; {published:,} are published, the others are "
            "rows of '*'",
        ]
        report(progress, 1.0, f"{published:,} records published")
        return Result(
            output=generalized_output(data, packed, groups, class_nodes),
            groups=groups,
            suppressed=n - published,
            metrics={"transformation": transformation, "k": k, "sampling_probability": self.beta,
                     "sampled_records": int(sampled.sum()), "published_records": published,
                     "epsilon_anon": self.epsilon_anon, "score_function": self.params["score"],
                     "search": walk},
            details={"transformation": transformation, "lattice_low": low.tolist(), "lattice_high": high.tolist()},
            notes=notes,
        )

    def _score(self, lattice, node: int, n: int, k: int) -> float:
        """The score (of sensitivity ≤ 1) of transformation ``node`` on the sample the lattice holds."""
        import numpy as np

        lattice.evaluate(node)  # the kernel's arrays now hold the classes: keys[t] each tuple's, outlier[c]
        keys = lattice.keys
        sizes = np.bincount(keys, weights=lattice.cnt, minlength=int(keys.max()) + 1 if len(keys) else 0)
        out = lattice.outlier[: len(sizes)] != 0
        suppressed = int(sizes[out].sum())
        if self.params["score"] == "dm":
            return discernibility_score(float((sizes[~out] ** 2).sum()), suppressed, n, k)
        levels = lattice.levels[node].astype(np.int64)
        kept = ~out[keys]
        cost = 0.0
        for a in range(lattice.d):
            cost += float((lattice.cnt[kept] * self._cell_costs[a][levels[a]][kept]).sum())
        return loss_score(cost, suppressed, lattice.d, k)

    def _search(self, lattice, n: int, k: int, rng: np.random.Generator,
                progress: ProgressCallback | None) -> tuple[int, dict]:
        """Step 2 (see the module): the walk from the top transformation, then the draw of the release among the
        transformations it saw; returns that one and a summary."""
        import numpy as np

        # each tuple's cell cost per attribute and level: (leaves under its node − 1) / (leaves − 1)
        self._cell_costs = []
        for a, h in enumerate(lattice.hierarchies):
            anc = h.arrays.ancestor[lattice.tuple_leaves[:, a]]
            under = h.arrays.node_leaves.astype(np.float64)
            span = max(len(h.leaves) - 1, 1)
            self._cell_costs.append([(under[anc[:, lv]] - 1.0) / span for lv in range(h.height + 1)])
        steps = int(self.params["steps"])
        eps_select = float(self.params["epsilon_search"]) * SELECTION_SHARE
        eps_step = (float(self.params["epsilon_search"]) - eps_select) / steps
        pivot = lattice.size - 1  # the most general transformation
        known: dict[int, float] = {pivot: self._score(lattice, pivot, n, k)}  # every score computed
        scores = dict(known)  # the candidates of the next draw
        expanded: set[int] = set()

        def expand(node: int) -> None:  # a drawn transformation's direct specializations join the candidates
            if node in expanded:
                return
            expanded.add(node)
            for a in range(lattice.d):
                if lattice.levels[node, a] > lattice.low[a]:
                    below = node - int(lattice.strides[a])
                    if below not in scores:
                        if below not in known:
                            known[below] = self._score(lattice, below, n, k)
                        scores[below] = known[below]

        def draw(epsilon: float) -> int:
            candidates = np.fromiter(scores, dtype=np.int64, count=len(scores))
            values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
            return int(candidates[exponential_choice(values, epsilon, rng)])

        drawn = {pivot: scores[pivot]}  # every transformation a step drew, with its score
        for step in range(steps):
            expand(pivot)
            scores.pop(pivot, None)  # the walk moves on: the pivot is no candidate of the next step
            if not scores:  # the walk has drawn every transformation within reach
                break
            pivot = draw(eps_step)
            drawn[pivot] = scores[pivot]
            if step % 8 == 0:
                report(progress, 0.05 + 0.85 * (step + 1) / steps, f"search step {step + 1} of {steps}")
        expand(pivot)
        scores.update(drawn)
        chosen = draw(eps_select)  # the release: one more draw, over every transformation the walk saw
        return chosen, {"steps": steps, "candidates": len(scores), "epsilon_per_step": eps_step,
                        "epsilon_select": eps_select, "score": scores[chosen]}

    def privacy_model(self) -> dict[str, Any]:
        return {"model": "safepub", "epsilon": self.params["epsilon"], "epsilon_anon": self.epsilon_anon,
                "delta": self.params["delta"], "k": self._k,
                # the job's seed (None: drawn from the operating system): a guessable one fails verification
                "seed": self.params.get("seed")}

    def evaluate(self, data: Table, result: Result, hierarchies: dict, progress=None, *, executor=None) -> dict:
        from anonstudio.core.algorithms._tabular import table_metrics_for

        return table_metrics_for(self, data, result, hierarchies, k=self._k)
