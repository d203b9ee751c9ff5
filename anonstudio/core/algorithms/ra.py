"""Random anonymization (``ra``) and enhanced random anonymization (``ra-enhanced``).

W. Yang, S. Qiao, "A novel anonymization algorithm: Privacy protection and knowledge preservation",
Expert Systems with Applications 37 (2010) 756–766 (paper 001).

- Algorithm 1 (RA): for every record, one quasi-identifier ``Q_k`` is chosen with probability ``p_k`` and
  its value replaced by a draw from ``Dist_k``, the attribute's empirical distribution in the input (the
  draw may equal the old value). ``weights = "entropy"`` takes Proposition 7's optimum
  ``p_i ∝ e^{Entropy(Q_i)}``, which maximizes the probabilistic anonymity of Eq. 1.
- Algorithm 2 (enhanced RA, §6): for every record, ``attributes_per_record`` distinct quasi-identifiers are
  chosen uniformly and each is redrawn from its ``Dist``.
- ``draws = "shuffle"`` (ours, not the paper's): instead of independent draws, the cells chosen in a column
  exchange their values by a random permutation (within each block of rows, below). Each new value is still a
  draw from the column's values (those of the chosen cells, a random sample of the column), but the column's
  multiset of values — its marginal distribution — is published exactly, where independent draws move it by
  multinomial noise (on Adult with entropy weights, age's total variation 0.014-0.018).

Rows are redrawn in blocks of :data:`BLOCK_ROWS` (131,072), block ``b`` from its own random stream of the
seed (:func:`block_rng`), so the output depends on the seed only — not on which process redraws which block:
the Dask engine redraws runs of blocks as tasks and publishes the local engine's bytes. A table of one block
draws what ``default_rng(seed)`` drew before blocks existed.

Both are vectorised over records with numpy (one draw per redrawn cell, per attribute at once) and
reproducible from ``seed``; columns that are not quasi-identifiers are never touched. Numeric
quasi-identifiers are categories of their values, or of their hierarchy level when the job names one
(``level = {age = 1}``: every cell is published at that level — the paper's banded age — and the draws
come from the level's distribution). Missing cells are a category of their own.

A redraw may hit the old value, so some records keep their full original combination: with entropy weights
14 % of Adult's records (Σ_i w_i Σ_a p_a² = 14.3 %, measured 14.3 % over 30 seeds), with uniform weights 49 %,
enhanced RA at 3 per record 10 % (``tests/benchmarks/bench_ra_randomness.py``).

The output is *not* k-anonymous and the verifier does not say it is: RA is a randomization model whose
protection is probabilistic (Pa, Eq. 1). Its verifier (``core.privacy._random``) checks same rows and
columns, non-QI cells byte for byte, at most one (resp. ``attributes_per_record``) quasi-identifier cell
of each record differs from the original, every published value is one of the attribute's own values, not
so many records unchanged that no randomization is likely, and two statistical tests per quasi-identifier
(``core.privacy._randomness``: the share of changed cells fits the job's weights; among the changed cells the
new value is independent of the old; a shuffle keeps each block's values) at a false-alarm rate of 1e-9 for
the whole verdict.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from anonstudio.core.algorithms._base import Algorithm, Result, SecretSeed
from anonstudio.core.errors import ParameterError
from anonstudio.core.execution import Executor, LocalExecutor
from anonstudio.core.limits import MAX_BIAS_RUNS, MAX_INT
from anonstudio.core.params import Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report, subrange

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np
    import pandas as pd

    from anonstudio.core.data import Table


#: reruns x records the empirical bias may cost (about a second of reruns); larger tables get fewer reruns
BIAS_CELL_BUDGET = 3_000_000
#: RA's seed is its key: anyone who knows it replays the draws and undoes them (a default seed of 1 let a reader
#: put every record of a shuffled release back; the demo's written seed undid a copy of its job on another table).
#: A job's run draws from the user's release key (issue 39, :mod:`anonstudio.core.keys`) and a job may not write a
#: seed; an in-memory run may give one (a guessable one fails verification), or draws one from the operating system.
SEED = Param("seed", "int", None, "random seed of the draws, in-memory runs only: a job's run draws from the release "
             "key and may not write a seed; unset, one is drawn from the operating system", low=0)
BIAS_RUNS = Param("bias_runs", "int", 20, "reruns with the next seeds that measure the relative bias R(q) of "
                  "frequent values and pairs beside its analytic value (0: analytic only)", low=0,
                  high=MAX_BIAS_RUNS)
DRAWS = Param("draws", "choice", "independent", "independent: each redrawn cell is a fresh draw from the column's "
              "distribution (the paper's Algorithms 1 and 2); shuffle: the redrawn cells of a column swap their "
              "values at random, so every column's marginal distribution is kept exactly",
              choices=("independent", "shuffle"))


#: rows of one random block: every block draws from its own stream of the seed (:func:`block_rng`)
BLOCK_ROWS = 1 << 17
#: runs of blocks per worker on the Dask engine
TASKS_PER_WORKER = 4


def block_rng(seed: int, block: int) -> np.random.Generator:
    """The random stream of block ``block`` of rows: ``SeedSequence(seed)`` itself for the first block (so a
    table of up to :data:`BLOCK_ROWS` rows draws exactly what ``default_rng(seed)`` draws, as before blocks),
    its spawned child ``block`` (``SeedSequence(seed).spawn(…)[block]``) for the others."""
    import numpy as np

    seq = np.random.SeedSequence(seed) if block == 0 else np.random.SeedSequence(seed, spawn_key=(block,))
    return np.random.Generator(np.random.PCG64(seq))


def redraw_blocks(item: tuple, shared: tuple, progress=None) -> tuple[np.ndarray, list[np.ndarray]]:
    """One task: redraw a run of consecutive blocks (module level: Dask sends it by reference).

    ``item``: ``(blocks, codes)`` with ``blocks`` a list of ``(index, start, stop)`` and ``codes`` the run's input
    codes (``int[rows, m]``; only ``draws = "shuffle"`` needs them, else None). ``shared``: ``(method, seed, p,
    dists, shuffle)``. Returns the run's ``chosen`` cells and, per attribute, the new codes of its chosen cells
    in row order. Within a block: the cells are chosen (:meth:`_choose`), then each attribute's chosen cells are
    redrawn from its distribution (or, shuffling, permuted among themselves: the block's values are kept)."""
    import numpy as np

    blocks, codes = item
    method, seed, p, dists, shuffle = shared
    m = len(p)
    chosen_parts, drawn_parts = [], [[] for _ in range(m)]
    base = blocks[0][1] if blocks else 0
    for b, start, stop in blocks:
        rng = block_rng(seed, b)
        chosen = method._choose(rng, stop - start, p)
        for a in range(m):
            rows = np.flatnonzero(chosen[:, a])
            if len(rows):
                if shuffle:
                    drawn_parts[a].append(rng.permutation(codes[start - base + rows, a]))
                else:
                    drawn_parts[a].append(rng.choice(len(dists[a]), size=len(rows), p=dists[a]))
        chosen_parts.append(chosen)
    chosen = np.concatenate(chosen_parts) if chosen_parts else np.zeros((0, m), dtype=bool)
    return chosen, [np.concatenate(d).astype(np.int64) if d else np.zeros(0, dtype=np.int64) for d in drawn_parts]


def encode_column(data: Table, attr: str, hierarchies: dict, level: int) -> tuple[np.ndarray, Any]:
    """One quasi-identifier as ``(codes, categories)``: the category of each record and the categories
    themselves (the exact strings read, in the column's own dtype; missing cells a category of their own),
    mapped to the hierarchy ``level`` when one is named. Works on the distinct values only."""
    import numpy as np
    import pandas as pd

    col = data.df[attr]
    codes, uniques = pd.factorize(col, use_na_sentinel=False)
    codes = codes.astype(np.int64)
    if level:
        h = hierarchies.get(attr)
        if h is None:
            raise ParameterError(f"level = {level} for '{attr}' needs a hierarchy for '{attr}'",
                                 key="algorithm.level", column=attr)
        if level > h.height:
            raise ParameterError(f"level {level} of '{attr}' is above its hierarchy's root (height {h.height})",
                                 key="algorithm.level", column=attr)
        labels = [h.generalize(str(v), level) if not pd.isna(v) else None for v in np.asarray(uniques, dtype=object)]
        level_codes, level_uniques = pd.factorize(pd.Series(labels, dtype=object), use_na_sentinel=False)
        return level_codes.astype(np.int64)[codes], pd.array(np.asarray(level_uniques, dtype=object), dtype=object)
    return codes, uniques


def choice_weights(spec: Any, attributes: list[str], entropies: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Algorithm 1's ``p``: ``"entropy"`` (Proposition 7), ``"uniform"``, or a table attribute = weight
    (normalised to sum 1, said in the notes). Returns ``(p, notes)``."""
    import numpy as np

    from anonstudio.core.metrics._ra import entropy_weights

    m = len(attributes)
    if spec == "entropy":
        return entropy_weights(entropies), []
    if spec == "uniform":
        return np.full(m, 1.0 / m), []
    unknown = [a for a in spec if a not in attributes]
    if unknown:
        raise ParameterError(f"weights name '{unknown[0]}', which is not a quasi-identifier "
                             f"({', '.join(attributes)})", key="algorithm.weights")
    p = np.array([float(spec.get(a, 0.0)) for a in attributes])
    if p.sum() <= 0:
        raise ParameterError("weights must give some quasi-identifier a positive weight", key="algorithm.weights")
    notes = []
    if abs(p.sum() - 1.0) > 1e-9:
        notes.append(f"weights summed to {p.sum():g}; they were divided by that sum")
    missing = [a for a in attributes if a not in spec]
    if missing:
        notes.append(f"weights give no weight to {', '.join(missing)}: those are never redrawn")
    return p / p.sum(), notes


class _RandomAnonymization(SecretSeed, Algorithm):
    data_kind = "table"
    engines = ("local", "dask")
    output_kind = "table"
    reference = ("W. Yang, S. Qiao: A novel anonymization algorithm: Privacy protection and knowledge preservation. "
                 "Expert Systems with Applications 37:756-766, 2010")
    reported_metrics = ("probabilistic_anonymity", "probabilistic_anonymity_max", "redrawn_cells",
                        "total_variation_max", "singled_out_one_change")
    needs_hierarchies = False  # values are published as read (or at a level the job names)
    group_unit = None  # every record is redrawn on its own: no classes, no groups
    people_refusal = "it redraws each record on its own and forms no classes whose people could be counted"
    result_view = "Randomization"
    titles = {"weights": "Which attribute is redrawn", "draws": "How values are redrawn",
              "bias_runs": "Reruns measuring bias", "level": "Publish at hierarchy level",
              "attributes_per_record": "Attributes redrawn per record"}

    @abstractmethod
    def _per_record(self) -> int:
        """How many quasi-identifiers of a record may be redrawn."""

    @abstractmethod
    def _choose(self, rng: np.random.Generator, n: int, p: np.ndarray) -> np.ndarray:
        """``bool[n, m]``: which quasi-identifier cells of each record are redrawn."""

    def run(self, data: Table, hierarchies: dict, progress: ProgressCallback | None = None, *,
            executor=None) -> Result:
        """Redraw the cells (see the module). With an ``executor`` (the Dask engine) the blocks of rows are
        redrawn as tasks; the output is the same (:func:`redraw_blocks`)."""
        import numpy as np
        import pandas as pd

        from anonstudio.core.data import Table
        from anonstudio.core.metrics._ra import attribute_entropy

        qis = list(data.quasi_identifiers)
        if not qis:
            raise ParameterError("random anonymization needs quasi-identifiers", file=data.source,
                                 key="input.quasi_identifiers")
        n, m = len(data.df), len(qis)
        levels = self.params.get("level") or {}
        for attr in levels:
            if attr not in qis:
                raise ParameterError(f"level is given for '{attr}', which is not a quasi-identifier",
                                     file=data.source, key="algorithm.level")
        report(progress, 0.0, "value distributions")
        encoded = [encode_column(data, attr, hierarchies, levels.get(attr, 0)) for attr in qis]
        dists = [np.bincount(c, minlength=len(cats)) / max(n, 1) for c, cats in encoded]
        entropies = np.array([attribute_entropy(d) for d in dists])
        p, notes = self._weights(qis, entropies)
        constant = [a for a, h in zip(qis, entropies) if h == 0]
        if constant:
            notes.append(f"{', '.join(constant)} has one value only (entropy 0): redrawing it changes nothing, and it "
                         "adds no anonymity")
        report(progress, 0.2, "redrawing")
        chosen, drawn = self._redraw([c for c, _ in encoded], n, p, dists, executor, subrange(progress, 0.2, 0.8))
        # identifying columns dropped; the other columns are shared, not copied (only QI columns are replaced)
        out = data.output_frame().copy(deep=False)
        for a, attr in enumerate(qis):
            column, cats = encoded[a]
            if len(drawn[a]):
                column = column.copy()
                column[chosen[:, a]] = drawn[a]
            # every cell is one of the column's own strings (unchanged cells their exact text), in its dtype
            out[attr] = pd.Series(cats.take(column), index=out.index)
            report(progress, 0.8 + 0.2 * (a + 1) / m, f"redrew {len(drawn[a]):,} cells of {attr}")
        output = Table(out, roles={c: r for c, r in data.roles.items() if c in out.columns},
                       # a redrawn value is one of the column's own: its type stays (not re-inferred)
                       types={c: t for c, t in data.types.items() if c in out.columns and not levels.get(c)},
                       source=None, delimiter=data.delimiter, encoding=data.encoding, header_lines=data.header_lines,
                       missing_text={c: t for c, t in data.missing_text.items() if c in out.columns and c not in qis})
        report(progress, 1.0, f"{int(chosen.sum()):,} cells redrawn")
        return Result(
            output=output,
            groups=np.zeros(n, dtype=np.int64),  # no classes: RA's protection is over the whole table
            suppressed=0,
            metrics={"weights": {a: round(float(w), 6) for a, w in zip(qis, p)},
                     "entropy": {a: round(float(h), 6) for a, h in zip(qis, entropies)}},
            details={"redrawn": chosen, "attributes": qis, "levels": dict(levels), "weights": p,
                     "entropies": entropies},
            notes=notes,
        )

    def _redraw(self, columns: list[np.ndarray], n: int, p: np.ndarray, dists: list[np.ndarray], executor,
                progress: ProgressCallback | None) -> tuple[np.ndarray, list[np.ndarray]]:
        """``(chosen bool[n, m], drawn)``: the cells redrawn and, per attribute, their new codes in row order.

        Rows are redrawn in blocks of :data:`BLOCK_ROWS`, each from its own random stream (:func:`block_rng`),
        so a block's draws do not depend on which task, process or machine redraws it: this process block by
        block, or the executor's tasks over runs of consecutive blocks, give the same cells the same values."""
        import numpy as np

        def codes(start: int, stop: int) -> np.ndarray | None:
            # independent draws need no input codes (only the distributions, shared); shuffles do
            return np.stack([c[start:stop] for c in columns], axis=1) if shuffle else None

        blocks = [(b, b * BLOCK_ROWS, min(n, (b + 1) * BLOCK_ROWS)) for b in range(max(1, -(-n // BLOCK_ROWS)))]
        shuffle = self.params.get("draws") == "shuffle"
        shared = (self, self.effective_seed(), p, dists, shuffle)
        if executor is None:
            parts = []
            for i, block in enumerate(blocks):
                report(progress, i / len(blocks), f"redrawing block {i + 1} of {len(blocks)}")
                parts.append(redraw_blocks(([block], codes(block[1], block[2])), shared))
        else:
            tasks = max(1, min(len(blocks), TASKS_PER_WORKER * executor.workers()))
            runs = [blocks[len(blocks) * t // tasks: len(blocks) * (t + 1) // tasks] for t in range(tasks)]
            items = [(run, codes(run[0][1], run[-1][2])) for run in runs]
            parts = executor.map(redraw_blocks, items, shared=shared, progress=progress, label="block of rows",
                                 scatter=shuffle)
        chosen = np.concatenate([c for c, _ in parts]) if parts else np.zeros((0, len(p)), dtype=bool)
        drawn = [np.concatenate([d[a] for _, d in parts]) for a in range(len(p))]
        return chosen, drawn

    @abstractmethod
    def _weights(self, qis: list[str], entropies: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """Each attribute's chance of being redrawn (Eq. 1's ``p``) and notes for the report."""

    @abstractmethod
    def _asked_weights(self) -> str | dict[str, float]:
        """The job's chance of each quasi-identifier being redrawn, as the verifier takes it
        (``verify_random_anonymization``'s ``weights``)."""

    def privacy_model(self) -> dict[str, Any]:
        # weights: each quasi-identifier's chance of being redrawn, as the job asks (the verifier bounds how
        # many records a real run leaves unchanged and tests each column's share of changed cells against it)
        weights = self._asked_weights()
        return {"model": "random-anonymization", "max_changed": self._per_record(),
                "levels": dict(self.params.get("level") or {}),
                "weights": dict(weights) if isinstance(weights, dict) else weights,
                "draws": self.params.get("draws") or "independent",
                # the job's seed (None: drawn from the operating system): a guessable one fails verification
                "seed": self.params.get("seed")}

    def evaluate(self, data: Table, result: Result, hierarchies: dict, progress: ProgressCallback | None = None,
                 *, executor: Executor | None = None) -> dict:
        """Pa at the weights used (Eq. 1), its maximum (Proposition 7) and the uniform estimate (Eq. 3); cells
        redrawn per attribute; the total-variation distance of each attribute's marginal before and after."""
        from anonstudio.core.metrics._ra import (
            breach_measures,
            max_probabilistic_anonymity,
            probabilistic_anonymity,
            total_variation,
            uniform_anonymity_estimate,
        )

        qis = result.details["attributes"]
        entropies = result.details["entropies"]  # full precision (the report's copies are rounded)
        weights = result.details["weights"]
        redrawn = result.details["redrawn"]
        levels = result.details["levels"]
        original = published_original(data, qis, levels, hierarchies)
        tv = {a: round(total_variation(original[a], result.output.df[a]), 6) for a in qis}
        # §4.2 breaches for the 10 most frequent published combinations (prior knowledge of the supports)
        published = result.output.df[qis].astype(object).where(result.output.df[qis].notna(), "\x00NA")
        top = list(published.value_counts().index[:10])
        breaches = breach_measures(original, qis, top)
        report(progress, 0.3, "relative bias of frequent combinations")
        bias = self._bias(data, result, original, hierarchies, qis, progress, executor)
        result.details["bias"] = bias
        return {
            "bias_combinations": len(bias),
            "bias_max_abs": round(float(bias["R_mean"].abs().max()), 6) if len(bias) else 0.0,
            "bias_max_abs_z": (round(float(bias["z"].abs().max()), 3)
                               if "z" in bias and bias["z"].notna().any() else None),
            "c_amplification_max": max((b["c_amplification"] for b in breaches), default=1.0),
            "guess_probability_bound_max": max((b["guess_bound"] for b in breaches), default=0.0),
            "probabilistic_anonymity": probabilistic_anonymity(weights, entropies),
            "probabilistic_anonymity_max": max_probabilistic_anonymity(entropies),
            "probabilistic_anonymity_uniform_estimate": round(uniform_anonymity_estimate(entropies), 6),
            "redrawn_cells": {a: int(redrawn[:, i].sum()) for i, a in enumerate(qis)},
            "total_variation": tv,
            "total_variation_max": max(tv.values()) if tv else 0.0,
            "singled_out_one_change": self.singled_out(data, result.output, hierarchies, original=original),
        }

    def singled_out(self, data: Table, output: Table, hierarchies: dict, *,
                    original: pd.DataFrame | None = None) -> dict[str, Any]:
        """The near-match attack on this release (issue 39; :func:`anonstudio.core.metrics._ra_linkage.singled_out`):
        records with exactly one published record within ``max_changed`` changed quasi-identifiers of their true
        values (at the job's levels), how many of those are their own, and how many sensitive values that makes
        certain. ``output``'s rows in the input's order (before the publication shuffles them)."""
        from anonstudio.core.metrics._ra_linkage import singled_out

        cached = getattr(self, "_singled_out", None)
        if cached is not None and cached[0] is data and cached[1] is output:  # evaluate's, for the release warning
            return dict(cached[2])
        qis = [q for q in data.quasi_identifiers if q in output.df.columns]
        if original is None:
            original = published_original(data, qis, dict(self.params.get("level") or {}), hierarchies)
        sensitive = [c for c in data.sensitive if c in data.df.columns and c in output.df.columns]
        frame = original.copy(deep=False)
        for c in sensitive:
            frame[c] = data.df[c]
        figures = singled_out(frame, output.df, qis, self._per_record(), sensitive)
        self._singled_out = (data, output, figures)
        return dict(figures)


    def _bias(self, data: Table, result: Result, original: pd.DataFrame, hierarchies: dict, qis: list[str],
              progress: ProgressCallback | None, executor: Executor | None = None) -> pd.DataFrame:
        """§5.2 for the 20 most frequent values and pairs (one table for the result view, ``details["bias"]``)."""
        from anonstudio.core.metrics._ra_bias import frequent_combinations

        combos = frequent_combinations(original, qis, 1, 20) + (
            frequent_combinations(original, qis, 2, 20) if len(qis) > 1 else [])
        return self.bias_of(data, result, hierarchies, combos, progress, original=original, executor=executor)

    def bias_of(self, data: Table, result: Result, hierarchies: dict, combos: list[dict],
                progress: ProgressCallback | None = None, *, original: pd.DataFrame | None = None,
                executor: Executor | None = None) -> pd.DataFrame:
        """The exact E R(q) and sd (Eq. 10 and its variance) of each combination in ``combos`` (``{attribute:
        value}``, values as published) beside R(q) measured over ``bias_runs`` reruns with the next seeds (fewer
        on large tables, said in the notes). The workbench calls it for a combination the user types. The reruns
        are tasks of ``executor`` (the Dask engine spreads them over its workers; default: this process)."""
        from anonstudio.core.metrics._ra_bias import bias_table

        qis, weights = result.details["attributes"], result.details["weights"]
        if original is None:
            original = published_original(data, qis, result.details["levels"], hierarchies)
        n = len(original)
        runs = self.params.get("bias_runs", 0)
        budget = max(5, int(BIAS_CELL_BUDGET // max(n, 1)))
        if runs > budget:
            note = f"the empirical bias used {budget} reruns instead of {runs} ({n:,} records)"
            if note not in result.notes:
                result.notes.append(note)
            runs = budget
        # one task per rerun: in this process one after another, or spread over a Dask cluster's workers
        # (the next seeds, wrapping round at the largest seed a parameter may hold)
        seeds = [(self.effective_seed() + 1 + r) % (MAX_INT + 1) for r in range(runs)]
        outputs = (executor or LocalExecutor()).map(
            rerun_output, seeds, shared=(type(self), self.params, data, hierarchies),
            progress=subrange(progress, 0.3, 0.95), label="rerun for the empirical bias")
        if self.params.get("draws") == "shuffle":
            note = ("draws = shuffle: the analytic E R(q) and sd are those of independent draws (the paper's); "
                    "shuffled draws keep single values exact (R = 0) and vary less")
            if note not in result.notes:
                result.notes.append(note)
        if self.name == "ra":
            return bias_table(original, outputs, combos, qis, weights=dict(zip(qis, weights)))
        return bias_table(original, outputs, combos, qis, per_record=self._per_record())


def rerun_output(seed: int, shared: tuple, progress: ProgressCallback | None) -> pd.DataFrame:
    """One rerun of the empirical bias: the method with parameters ``shared[1]`` and the next ``seed`` on the
    same input, its published table (a module-level function, so Dask can send it to a worker)."""
    cls, params, data, hierarchies = shared
    return cls(**{**params, "seed": seed, "bias_runs": 0}).run(data, hierarchies, progress).output.df


def published_original(data: Table, qis: list[str], levels: dict, hierarchies: dict) -> pd.DataFrame:
    """The input's quasi-identifier columns as RA publishes them: at the job's hierarchy level where one is named."""
    import pandas as pd

    original = data.df[qis]
    if levels:
        original = original.copy()
        for a, lv in levels.items():
            original[a] = original[a].map(lambda v, h=hierarchies[a], lv=lv: h.generalize(str(v), lv) if pd.notna(v) else v)
    return original


class RandomAnonymization(_RandomAnonymization):
    """Algorithm 1 of Yang & Qiao (2010): one quasi-identifier per record, chosen with probability ``p_k``,
    redrawn from its distribution; ``weights = "entropy"`` is Proposition 7's optimum (see the module)."""

    name = "ra"
    title = "Random anonymization (Yang & Qiao)"
    description = ("redraws one quasi-identifier value of every record from that column's own distribution; a draw "
                   "may repeat the old value, so some records keep their full original combination (on Adult 14 % "
                   "with entropy weights, 49 % with uniform)")
    privacy_models = ("random anonymization: at most one changed quasi-identifier per record, values from the "
                      "column's own domain; statistical tests (false-alarm rate 1e-9): each column's share of changed "
                      "cells fits the weights, new values independent of the old",)
    parameters = ParamSet((
        Param("weights", "weights", "entropy",
              "how likely each quasi-identifier is to be the one redrawn: entropy (Proposition 7, the most "
              "anonymity), uniform, or attribute = weight", choices=("entropy", "uniform")),
        SEED,
        DRAWS,
        BIAS_RUNS,
        Param("level", "levels", None, "publish these quasi-identifiers at a hierarchy level, e.g. age=1 "
              "(the paper's banded age)"),
    ))

    def _per_record(self) -> int:
        return 1

    def _asked_weights(self):
        return self.params["weights"]

    def _weights(self, qis, entropies):
        return choice_weights(self.params["weights"], qis, entropies)

    def _choose(self, rng, n, p):
        import numpy as np

        which = rng.choice(len(p), size=n, p=p)
        chosen = np.zeros((n, len(p)), dtype=bool)
        chosen[np.arange(n), which] = True
        return chosen


class EnhancedRandomAnonymization(_RandomAnonymization):
    """Algorithm 2 of Yang & Qiao (2010): ``attributes_per_record`` distinct quasi-identifiers per record,
    chosen uniformly, each redrawn from its distribution (§6: limits what prior knowledge of the original
    associations reveals)."""

    name = "ra-enhanced"
    title = "Enhanced random anonymization (Yang & Qiao)"
    description = ("redraws several quasi-identifier values of every record (attributes_per_record, chosen at "
                   "random) from each column's own distribution; draws may repeat old values (on Adult 10 % of "
                   "records keep their full original combination at 3 per record)")
    privacy_models = ("random anonymization: at most attributes_per_record changed quasi-identifiers per record, "
                      "values from the column's own domain; statistical tests (false-alarm rate 1e-9): each "
                      "column's share of changed cells fits attributes_per_record, new values independent of the old",)
    parameters = ParamSet((
        Param("attributes_per_record", "int", 3, "how many quasi-identifiers of each record are redrawn (k of §6)",
              low=1),
        SEED,
        DRAWS,
        BIAS_RUNS,
        Param("level", "levels", None, "publish these quasi-identifiers at a hierarchy level, e.g. age=1"),
    ))

    def _per_record(self) -> int:
        return self.params["attributes_per_record"]

    def _asked_weights(self):
        return "uniform"  # a uniformly random subset of max_changed: each attribute redrawn with chance k/m

    def _weights(self, qis, entropies):
        import numpy as np

        k = self.params["attributes_per_record"]
        if k > len(qis):
            raise ParameterError(f"attributes_per_record = {k} is more than the {len(qis)} quasi-identifiers",
                                 key="algorithm.attributes_per_record")
        return np.full(len(qis), k / len(qis)), []  # each attribute's chance of being redrawn (for Pa)

    def _choose(self, rng, n, p):
        import numpy as np

        k = self.params["attributes_per_record"]
        keys = rng.random((n, len(p)))
        picked = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < len(p) else np.tile(np.arange(len(p)), (n, 1))
        chosen = np.zeros((n, len(p)), dtype=bool)
        np.put_along_axis(chosen, picked, True, axis=1)
        return chosen

    def evaluate(self, data, result, hierarchies, progress=None, *, executor=None):
        out = super().evaluate(data, result, hierarchies, progress, executor=executor)
        # Pa of Eq. 1 assumes one attribute per record; for several the paper analyses prior knowledge (§6)
        out.pop("probabilistic_anonymity", None)
        out["attributes_per_record"] = self.params["attributes_per_record"]
        return out
