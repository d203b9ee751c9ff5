"""CBMSA: (k,c)-privacy for multidimensional event sequences, and the paper's baseline (``cbmsa``,
``cbmsa-baseline``).

M. Sehatkar, S. Matwin, "Clustering-based Multidimensional Sequence Data Anonymization", EDBT/ICDT
Workshops 2014 (``../shared/papers/004_*``).

Every sequence starts as its own cluster whose representative is the sequence itself. Repeatedly the two
closest active clusters merge (agglomerative clustering, §3); the distance (Eq. 6) is the growth of the
information loss, computed from the best alignment of the two representatives (Definition 2, Eq. 7): a
dynamic programme over all quasi-identifiers at once that either generalizes a pair of events to their
per-attribute lowest common ancestor or suppresses an event of either side. Merged members are rewritten to
the merged representative (suppressed events dropped, the rest generalized; sensitive values unchanged) and
the cluster's HighSensList (its sequences that still show a highly-sensitive value) is recounted. A cluster
that satisfies (k,c)-privacy (Definition 1) is frozen; among the closest pairs, merges that keep the share
of highly-sensitive sequences at most c are preferred. When one active cluster is left it violates the
model and is removed (its sequences are not published; counted in the report).

The baseline (§4) differs only in the matching: representatives of equal length are generalized event by
event; otherwise ``|X| - |Y|`` randomly chosen events of the longer are suppressed first.

Information loss is the Loss Metric (Eqs 1-5): per value ``(|L(â)| - |L(a)|) / |Δ|`` (Eq. 3), summed over a
sequence's QIs and events (Eqs 4-5) and its cluster (Eq. 2), divided by the number of input sequences
(Eq. 1). Suppressed events cost every QI generalized to the root; removed sequences count as fully
suppressed in ``IL`` (counting them keeps IL honest when many are removed). ``IL_paper`` is Eq. 1 as printed:
the sum over the published clusters only (removed sequences left out), still divided by ``|D|``.

Implementation choices (not fixed by the paper): cluster distances are cached in a condensed matrix and
recomputed only for pairs touching the merged cluster, so the whole run costs O(n²) alignments; the
confidence preference uses the bound ``(h_X + h_Y) / (|X| + |Y|)`` before suppression (suppression can only
lower it); a missing quasi-identifier cell is treated as already suppressed (the root); ties go to the
lowest cluster index.

Past the quadratic wall (``neighbours = "index"``, issue 42): all pairs cost O(n²) alignments and
``4·n(n-1)/2`` bytes (74.5 GiB at 200k sequences). The index clusters blocks of at most ``block_size``
sequences with similar signatures, the leaves of a k-d tree (Bentley 1975) as in record linkage's blocking
(Hernández & Stolfo 1995; :mod:`anonstudio.core.algorithms._neighbour_index`), each exactly as above; the
sequences of every block's last cluster are pooled and clustered again until the pool fits one block, whose
last cluster follows ``leftover``. Time O(n log n + n·block_size) alignments, memory O(n + block_size²).
The release goes through the same verifier; only the loss differs (printed by
``tests/benchmarks/bench_neighbour_index.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anonstudio.core.algorithms._base import Algorithm, Result
from anonstudio.core.algorithms._tabular import pack_hierarchies
from anonstudio.core.errors import HierarchyError, ParameterError
from anonstudio.core.params import Param, ParamSet
from anonstudio.core.progress import ProgressCallback, report

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import EventLog

#: refuse runs whose cached distance matrix would need more than this (float32, n(n-1)/2 pairs)
MAX_MATRIX_BYTES = 6 * 1024**3
#: ``neighbours = "auto"`` compares every pair up to this many sequences (exact at 5k: ~10 s, 50 MB of
#: distances) and uses the blocking index above it
AUTO_EXACT_MAX = 5000
#: an attribute with more hierarchy nodes than this finds LCAs by climbing instead of a table lookup
MAX_TABLE_NODES = 3000


def encode_events(data: EventLog, hierarchies: dict) -> dict[str, Any]:
    """The event log as kernel arrays: events grouped by sequence in event order, QI cells as packed leaf
    nodes (a missing cell is its attribute's root), Loss Metric fraction of every node."""
    import numpy as np
    import pandas as pd

    qis = list(data.quasi_identifiers)
    if not qis:
        raise ParameterError("the event log has no quasi-identifiers: name them in input.quasi_identifiers",
                             key="input.quasi_identifiers")
    packed = pack_hierarchies(qis, hierarchies)
    ids, order, offsets = data.sequence_index()
    n_ev = len(order)
    rep = np.zeros((n_ev, len(qis)), dtype=np.int32)
    frac = np.zeros(len(packed.node_leaves), dtype=np.float64)
    missing_cells = 0
    for a, attr in enumerate(qis):
        h = packed.hierarchies[a]
        off = int(packed.offsets[a])
        frac[off : off + h.n_nodes] = h.arrays.node_leaves / float(len(h.leaves))
        root = int(h.arrays.ancestor[0, h.height]) + off
        col = data.df[attr].to_numpy(dtype=object)[order]
        inv, uniques = pd.factorize(pd.Series(col, dtype=object), use_na_sentinel=True)
        node_of = np.empty(len(uniques), dtype=np.int64)
        for u, value in enumerate(uniques):
            leaf = h.leaf_index.get(str(value))
            if leaf is None:
                where = int(np.flatnonzero(inv == u)[0])
                seq = ids[int(np.searchsorted(offsets, where, side="right") - 1)]
                raise HierarchyError(f"value '{value}' of '{attr}' (sequence '{seq}') is not in its hierarchy",
                                     file=data.source, record=str(seq), column=attr)
            node_of[u] = int(h.arrays.ancestor[leaf, 0]) + off
        na = inv < 0
        missing_cells += int(na.sum())
        rep[:, a] = np.where(na, root, node_of[np.maximum(inv, 0)] if len(uniques) else root)
    return {"ids": ids, "order": order, "offsets": np.asarray(offsets, dtype=np.int64), "rep": rep,
            "frac": frac, "packed": packed, "missing_cells": missing_cells}


def lca_tables(packed, frac: np.ndarray) -> tuple:
    """The per-attribute ``frac[lca(a, b)]`` tables of :func:`cost_state` (attributes of at most
    :data:`MAX_TABLE_NODES` nodes), built once per run: ``(table, att_off, base, size, node_level)``."""
    import numpy as np

    from anonstudio.core.kernels._cbmsa import lca_fraction_table

    d = len(packed.attributes)
    att_off = np.asarray(packed.offsets[:-1], dtype=np.int64)
    sizes = np.diff(np.asarray(packed.offsets, dtype=np.int64))
    size = np.where(sizes <= MAX_TABLE_NODES, sizes, 0).astype(np.int64)
    base = np.zeros(d, dtype=np.int64)
    base[1:] = np.cumsum(size[:-1] ** 2)
    table = np.zeros(max(int((size**2).sum()), 1))
    node_level = np.asarray(packed.node_level, dtype=np.int64)
    for q in range(d):
        if size[q]:
            lo = int(att_off[q])
            lca_fraction_table(lo, lo + int(size[q]), packed.node_anc, node_level, frac,
                               table[base[q] : base[q] + size[q] ** 2])
    return table, att_off, base, size, node_level


def cost_state(packed, frac: np.ndarray, rep: np.ndarray, tables: tuple | None = None) -> tuple[tuple, tuple | None,
                                                                                                  tuple]:
    """What the alignment kernels need to cost a generalization (see :mod:`anonstudio.core.kernels._cbmsa`):
    ``tab = (table, roff, loc, fsum, sup)`` with one ``frac[lca(a, b)]`` table per attribute of at most
    :data:`MAX_TABLE_NODES` nodes; ``climb`` (``None`` when every attribute has a table) for the others;
    ``meta = (rep, frac, node_anc, node_level, att_off, base, size)`` for rewriting representatives.
    ``tables`` (from :func:`lca_tables`) reuses tables already built for the same hierarchies."""
    import numpy as np

    from anonstudio.core.kernels._cbmsa import set_events

    table, att_off, base, size, node_level = tables if tables is not None else lca_tables(packed, frac)
    d = len(packed.attributes)
    n_ev = len(rep)
    tab = (table, np.zeros((n_ev, d), dtype=np.int64), np.zeros((n_ev, d), dtype=np.int64), np.zeros(n_ev),
           np.zeros(n_ev))
    set_events(0, n_ev, rep, frac, att_off, base, size, tab)
    climb = None if (size > 0).all() else (size, rep, packed.node_anc, node_level, frac)
    meta = (rep, frac, packed.node_anc, node_level, att_off, base, size)
    return tab, climb, meta


@dataclass
class _Run:
    """One run's encoded input and the output the clustering fills in (per sequence ``seq_cluster``, -1 when
    removed, and ``hi_flag``; per event ``published`` node and ``kept``)."""

    leaf: np.ndarray
    seq_off: np.ndarray
    ev_high: np.ndarray
    hi_flag: np.ndarray
    packed: Any
    frac: np.ndarray
    tables: tuple
    k: int
    c: float
    seq_cluster: np.ndarray
    published: np.ndarray
    kept: np.ndarray
    notes: list
    progress: Any


def information_loss(frac: np.ndarray, leaf: np.ndarray, published: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Per-event Loss Metric (004 Eqs 3-4): ``Σ_q frac[published] - frac[leaf]`` for kept events and
    ``Σ_q 1 - frac[leaf]`` for suppressed ones (every value generalized to the root)."""
    import numpy as np

    top = np.where(kept[:, None], frac[published], 1.0)
    return (top - frac[leaf]).sum(axis=1)


class CBMSA(Algorithm):
    """Clustering-based multidimensional sequence anonymizer (Sehatkar & Matwin 2014, §3)."""

    name = "cbmsa"
    group_unit = "cluster"
    title = "CBMSA: (k,c)-privacy for event sequences (Sehatkar & Matwin)"
    data_kind = "events"
    reference = ("M. Sehatkar, S. Matwin: Clustering-based Multidimensional Sequence Data Anonymization. "
                 "EDBT/ICDT Workshops 2014")
    description = ("clusters patients' visit sequences so that each published sequence of generalized visits is "
                   "shared by at least k patients and at most a share c of them show a highly-sensitive value; "
                   "events are aligned by dynamic programming (generalize a pair of visits or suppress one)")
    output_kind = "events"
    privacy_models = ("(k,c)-privacy",)
    reported_metrics = ("IL", "IL_paper", "IL_per_event", "clusters", "removed_sequences", "suppressed_events",
                        "highest_confidence")
    result_view = "Clusters"
    #: the paper's baseline matching instead of the alignment
    baseline = False
    titles = {"highly_sensitive": "Highly sensitive values", "leftover": "Last cluster"}
    draws = False  # deterministic: ties go to the lowest index (the baseline draws its suppressed events)
    parameters = ParamSet(
        (
            Param("k", "int", 5, help="every published sequence is shared by at least k sequences", low=2),
            Param("c", "float", 0.7, help="largest share of a group's sequences that may show a highly-sensitive "
                  "value", low=0.0, high=1.0, low_open=True),
            Param("highly_sensitive", "str_list", [], help="values of the sensitive column whose disclosure the "
                  "confidence bound c limits (e.g. HIV)"),
            Param("leftover", "choice", "remove", help="the last cluster, which cannot satisfy (k,c) on its own: "
                  "'remove' it (the paper, 004 §3) or 'merge' it into the closest finished cluster with which it "
                  "still satisfies (k,c) (removed only if there is none)", choices=("remove", "merge")),
            Param("seed", "int", 1, help="random seed (the baseline's random suppression; CBMSA itself is "
                  "deterministic)", low=0),
            Param("neighbours", "choice", "auto", help="how clusters find their nearest neighbours: 'exact' "
                  "caches the distance of every pair (O(n²) time and memory, refused above 6 GiB); 'index' "
                  "clusters blocks of block_size similar sequences (a k-d tree over sequence signatures) and then "
                  "their leftovers, O(n·block_size); 'auto' is exact up to 5,000 sequences, index above",
                  choices=("auto", "exact", "index")),
            Param("block_size", "int", 2000, help="neighbours = 'index': most sequences clustered together in one "
                  "block (larger: lower loss, time and memory grow with it)", low=2),
        )
    )

    def privacy_model(self) -> dict[str, Any]:
        return {"model": "(k,c)-privacy", "k": self.params["k"], "c": self.params["c"],
                "highly_sensitive": list(self.params["highly_sensitive"])}

    @staticmethod
    def _merge_leftover(kern, n, tab, climb, meta, start, rlen, size, high, status, ver, head, nxt, tail, seq_off, pos,
                        ev_high, hi_flag, baseline, seed, k, c, max_len, dist, targets, map_a, map_b, keep, tmp,
                        notes) -> None:
        """``leftover = "merge"``: the last active cluster joins the finished cluster closest to it (Eq. 6, from
        the current representatives) among those with which the union still satisfies (k,c) — counted before
        suppression, which can only lower the share."""
        import numpy as np

        for a in np.flatnonzero(status == kern.ACTIVE):
            frozen = np.flatnonzero((status == kern.FROZEN)
                                    & (high + high[a] <= c * (size + size[a]) + 1e-9)
                                    & (size + size[a] >= k))
            if not len(frozen):
                continue
            kern._row(int(a), frozen.astype(np.int64), n, tab, climb, start, rlen, size, ver, baseline, seed, max_len,
                      dist)
            lo, hi = np.minimum(frozen, a), np.maximum(frozen, a)
            d = dist[lo * (2 * n - lo - 1) // 2 + (hi - lo - 1)]
            j = int(frozen[int(np.argmin(d))])
            moved = int(size[a])
            kern.merge(j, int(a), tab, climb, meta, start, rlen, size, high, status, ver, head, nxt, tail, seq_off,
                       pos, ev_high, hi_flag, baseline, seed, k, c, map_a, map_b, keep, tmp)
            status[j] = kern.FROZEN
            notes.append(f"the last cluster ({moved} sequence{'' if moved == 1 else 's'}) was merged into the closest "
                         "finished cluster "
                         "with which it satisfies (k,c) (leftover = \"merge\"), not removed")

    def _indexed(self, run: _Run, n: int, block: int) -> np.ndarray:
        """``neighbours = "index"``: blocks of at most ``block`` sequences with similar signatures
        (:func:`~anonstudio.core.algorithms._neighbour_index.kd_blocks`), each clustered exactly; the
        sequences of every block's last cluster (which violates (k,c)) are pooled and clustered again, until
        the pool fits one block, whose last cluster follows ``leftover``. Returns the removed sequences."""
        import numpy as np

        from anonstudio.core.algorithms._neighbour_index import kd_blocks, sequence_signatures
        from anonstudio.core.kernels._cbmsa import one_thread

        block = max(block, 4 * run.k)  # a block must hold several clusters of k
        pool = np.arange(n, dtype=np.int64)
        rounds = 0
        while len(pool) > block:
            blocks = kd_blocks(sequence_signatures(run.leaf, run.seq_off, pool, run.packed), block)
            rounds += 1
            left = []
            with one_thread():
                for b, members in enumerate(blocks):
                    lo = 0.9 * (1 - 0.5 ** (rounds - 1)) + 0.9 * 0.5 ** rounds * b / len(blocks)
                    left.append(self._cluster(run, pool[members], False,
                                              (lo, lo + 0.9 * 0.5 ** rounds / len(blocks))))
            nxt = np.sort(np.concatenate(left)) if left else np.zeros(0, dtype=np.int64)
            if rounds == 1:
                run.notes.append(f"neighbours = \"index\": {n} sequences clustered in {len(blocks)} blocks of at "
                                 f"most {block} similar sequences (k-d tree over sequence signatures), not all "
                                 "pairs; the last cluster of every block is clustered again with the others")
            progress_made = len(nxt) < len(pool)
            pool = nxt
            if not progress_made:
                break
        if len(pool) > block:  # no progress: the pool's sequences cannot form (k,c) groups together
            return pool
        with one_thread():
            return self._cluster(run, pool, True, (0.9, 0.95))

    def _cluster(self, run: _Run, members: np.ndarray, final: bool, span: tuple[float, float]) -> np.ndarray:
        """Agglomerative clustering (004 §3) of the sequences ``members`` (global indices) with every pair's
        distance cached: writes their clusters, published events and HighSensList flags into ``run`` and returns
        the members of the last active cluster (``final``: after the ``leftover`` policy)."""
        import numpy as np

        from anonstudio.core.kernels import _cbmsa as kern

        k, c = run.k, run.c
        lens = (run.seq_off[members + 1] - run.seq_off[members]).astype(np.int64)
        n = len(members)
        seq_off = np.zeros(n + 1, dtype=np.int64)
        seq_off[1:] = np.cumsum(lens)
        n_ev = int(seq_off[-1])
        idx = np.repeat(run.seq_off[members] - seq_off[:-1], lens) + np.arange(n_ev)
        leaf = run.leaf[idx]
        ev_high = run.ev_high[idx]
        lo_p, hi_p = span

        def at(x: float) -> float:
            return lo_p + (hi_p - lo_p) * x

        # --- state
        rep = leaf.copy()
        start = seq_off[:-1].copy()
        rlen = lens.copy()
        max_len = int(rlen.max()) if n else 0
        size = np.ones(n, dtype=np.int64)
        # singleton HighSensList: a sequence holds a highly-sensitive event (every sequence has events)
        hi_flag = np.logical_or.reduceat(ev_high, seq_off[:-1]) if n else np.zeros(0, dtype=np.bool_)
        high = hi_flag.astype(np.int64)
        status = np.full(n, kern.ACTIVE, dtype=np.int8)
        ver = np.zeros(n, dtype=np.int64)
        head = np.arange(n, dtype=np.int64)
        nxt = np.full(n, -1, dtype=np.int64)
        tail = np.arange(n, dtype=np.int64)
        pos = (np.arange(n_ev) - np.repeat(seq_off[:-1], lens)).astype(np.int32)
        baseline = bool(self.baseline)
        seed = int(self.params["seed"])
        tab, climb, meta = cost_state(run.packed, run.frac, rep, run.tables)
        dist = np.zeros(max(n * (n - 1) // 2, 1), dtype=np.float32)

        # --- all pair distances between singletons, in row chunks of about equal work
        report(run.progress, at(0.0), f"{self.name}: distances between {n} sequences")
        pairs_before = np.arange(n, dtype=np.float64)
        pairs_before = pairs_before * (2 * n - pairs_before - 1) / 2  # pairs in rows < i
        total_pairs = max(n * (n - 1) / 2, 1.0)
        n_chunks = int(min(max(n // 50, 1), 40))
        bounds = np.searchsorted(pairs_before, np.linspace(0, total_pairs, n_chunks + 1)[1:-1])
        edges = [0, *sorted(set(int(b) for b in bounds)), n]
        for r0, r1 in zip(edges[:-1], edges[1:]):
            if r1 > r0:
                kern.initial_distances(r0, r1, n, tab, climb, start, rlen, size, ver, baseline, seed, max_len, dist)
            report(run.progress, at(0.45 * (pairs_before[r1 - 1] if r1 < n else total_pairs) / total_pairs),
                   f"{self.name}: distances, {r1}/{n} sequences")
        nn = np.full(n, -1, dtype=np.int64)
        nnd = np.full(n, np.inf)
        kern.nearest_neighbours(n, status, dist, size, high, c, nn, nnd)

        # --- agglomerative merges, in rounds between progress reports (cancel point)
        targets = np.empty(n, dtype=np.int64)
        map_a = np.empty(max_len + 1, dtype=np.int64)
        map_b = np.empty(max_len + 1, dtype=np.int64)
        keep = np.empty(max_len + 1, dtype=np.int64)
        tmp = np.empty((max_len + 1, rep.shape[1]), dtype=np.int32)
        active = n
        per_round = max(16, n // 200)
        while active > 1:
            active = kern.merge_rounds(per_round, n, tab, climb, meta, start, rlen, size, high, status, ver, head,
                                       nxt, tail, seq_off, pos, ev_high, hi_flag, baseline, seed, k, c, max_len,
                                       dist, nn, nnd, targets, map_a, map_b, keep, tmp)
            report(run.progress, at(0.45 + 0.5 * (n - active) / max(n, 1)),
                   f"{self.name}: {int((status == kern.FROZEN).sum())} clusters done, {active} still merging")
        if final and self.params["leftover"] == "merge":
            self._merge_leftover(kern, n, tab, climb, meta, start, rlen, size, high, status, ver, head, nxt, tail,
                                 seq_off, pos, ev_high, hi_flag, baseline, seed, k, c, max_len, dist, targets, map_a,
                                 map_b, keep, tmp, run.notes)
        del dist
        left: list[int] = []
        for s in np.flatnonzero(status == kern.ACTIVE):  # the last cluster violates (k,c)
            m = head[s]
            while m >= 0:
                left.append(int(m))
                m = nxt[m]

        # --- clusters (named after their first member's global index), per sequence and per event
        local = np.full(n, -1, dtype=np.int64)
        for cl in np.flatnonzero(status == kern.FROZEN):
            m = head[cl]
            while m >= 0:
                local[m] = cl
                m = nxt[m]
        ok = local >= 0
        run.seq_cluster[members[ok]] = members[local[ok]]
        ev_cluster = local[np.repeat(np.arange(n), lens)]
        kept = (pos >= 0) & (ev_cluster >= 0)
        slots = start[np.maximum(ev_cluster, 0)] + np.maximum(pos, 0)
        run.published[idx[kept]] = rep[slots[kept]]
        run.kept[idx] = kept
        run.hi_flag[members] = hi_flag
        return members[np.asarray(left, dtype=np.int64)]

    def run(self, data: EventLog, hierarchies: dict, progress: ProgressCallback | None = None) -> Result:
        import numpy as np
        import pandas as pd

        from anonstudio.core.data import EventLog, read_alike

        k, c = int(self.params["k"]), float(self.params["c"])
        # values are matched as they read (' HIV' and 'hiv' are HIV: the verifier counts them so)
        given = [str(v) for v in self.params["highly_sensitive"]]
        omega = [read_alike(v) for v in given]
        enc = encode_events(data, hierarchies)
        ids, order, seq_off, leaf = enc["ids"], enc["order"], enc["offsets"], enc["rep"]
        frac, packed = enc["frac"], enc["packed"]
        n, n_ev = len(ids), len(order)
        if k > n:
            raise ParameterError(f"k = {k} is larger than the number of sequences ({n}) in "
                                 f"{getattr(data.source, 'name', None) or 'the event log'}", key="algorithm.k")
        notes: list[str] = []
        warnings: list[str] = []
        if data.sensitive is None and omega:
            raise ParameterError("highly_sensitive values are named but the event log has no sensitive column",
                                 key="algorithm.highly_sensitive")
        sens = (data.df[data.sensitive].to_numpy(dtype=object)[order] if data.sensitive
                else np.full(n_ev, None, dtype=object))
        present = {read_alike(v) for v in pd.unique(pd.Series(sens, dtype=object).dropna().astype(str))}
        absent = [v for v, read in zip(given, omega) if read not in present]
        if absent:
            warnings.append(f"highly-sensitive value(s) {', '.join(repr(v) for v in absent)} do not occur in the "
                            f"sensitive column '{data.sensitive}': the confidence bound does not constrain them")
        if not omega:
            notes.append("no highly-sensitive values named: only the k part of (k,c)-privacy constrains the output")
        if enc["missing_cells"]:
            notes.append(f"{enc['missing_cells']} missing quasi-identifier cell(s) are published as the root "
                         "(suppressed) value")
        if self.baseline:
            notes.append(f"baseline matching (004 §4) with seed {self.params['seed']}")
        else:
            notes.append("seed has no effect on CBMSA (deterministic; ties go to the lowest index)")
        # a missing sensitive cell (empty, '?', 'NA' as read) is not a value — never highly sensitive, as in
        # tables and as the (k,c) verifier counts it
        missing = pd.isna(sens) if len(sens) else np.zeros(0, dtype=bool)
        spelled = pd.Series(sens[~missing], dtype=object).astype(str).to_numpy(dtype=object)
        spellings = pd.unique(spelled)
        lookup = dict(zip(spellings, (read_alike(v) for v in spellings)))
        ev_high = np.zeros(n_ev, dtype=bool)
        ev_high[~missing] = np.isin(np.array([lookup[v] for v in spelled], dtype=object), omega)

        hi_flag = np.logical_or.reduceat(ev_high, seq_off[:-1]) if n else np.zeros(0, dtype=np.bool_)
        tables = lca_tables(packed, frac)
        run = _Run(leaf=leaf, seq_off=seq_off, ev_high=ev_high, hi_flag=hi_flag, packed=packed, frac=frac,
                   tables=tables, k=k, c=c, seq_cluster=np.full(n, -1, dtype=np.int64), published=leaf.copy(),
                   kept=np.zeros(n_ev, dtype=bool), notes=notes, progress=progress)
        block = int(self.params["block_size"])
        mode = self.params["neighbours"]
        if mode == "auto":
            mode = "exact" if n <= AUTO_EXACT_MAX else "index"
        if mode == "exact" or n <= block:
            need = 4 * n * (n - 1) // 2
            if need > MAX_MATRIX_BYTES:
                raise ParameterError(
                    f"{n} sequences need {need / 1024**3:.1f} GiB of cached distances (neighbours = \"exact\" "
                    f"compares every pair); the limit is {MAX_MATRIX_BYTES / 1024**3:.0f} GiB — use neighbours = "
                    "\"index\" or split the data set", key="algorithm.neighbours")
            left = self._cluster(run, np.arange(n, dtype=np.int64), True, (0.0, 1.0))
        else:
            left = self._indexed(run, n, block)
        removed_members = [int(s) for s in left]
        seq_cluster, published, kept = run.seq_cluster, run.published, run.kept
        seq_of_event = np.repeat(np.arange(n), np.diff(seq_off))
        ev_cluster = seq_cluster[seq_of_event]
        loss = information_loss(frac, leaf, published, kept)
        # cluster ids renumbered by first sequence (input order of sequences)
        groups = np.full(n, -1, dtype=np.int64)
        uniq_cl, first = np.unique(seq_cluster[seq_cluster >= 0], return_index=True) if (seq_cluster >= 0).any() \
            else (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        rank = np.empty(len(uniq_cl), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(uniq_cl))
        ok = seq_cluster >= 0
        groups[ok] = rank[np.searchsorted(uniq_cl, seq_cluster[ok])]

        # --- the published event log: kept events, sequences in input order, events in order
        labels = np.asarray(packed.labels, dtype=object)
        rows = order[kept]
        out = data.df.iloc[rows].copy()
        for a, attr in enumerate(data.quasi_identifiers):
            out[attr] = pd.array(labels[published[kept, a]], dtype=out[attr].dtype
                                 if isinstance(out[attr].dtype, pd.StringDtype) else object)
        out = out.reset_index(drop=True)
        # events renumbered 1..m in each published sequence: the original numbers showed which events were
        # suppressed (gaps), and so singled sequences out of their group of identical QI sequences
        number = out.groupby(out[data.sequence_id].astype(str), sort=False).cumcount().to_numpy() + 1
        numeric = pd.api.types.is_numeric_dtype(out[data.event_order].dtype)
        out[data.event_order] = number if numeric else pd.array([str(v) for v in number], dtype=object)
        output = EventLog(out, data.sequence_id, data.event_order, list(data.quasi_identifiers), data.sensitive,
                          source=None, delimiter=data.delimiter, encoding=data.encoding)

        seq_loss = np.bincount(seq_of_event, weights=loss, minlength=n)
        n_groups = len(uniq_cl)
        cl_loss = np.bincount(groups[ok], weights=seq_loss[ok], minlength=n_groups)
        cl_size = np.bincount(groups[ok], minlength=n_groups)
        cl_high = np.bincount(groups[ok], weights=hi_flag[ok].astype(float), minlength=n_groups)
        share = np.divide(cl_high, cl_size, out=np.zeros(n_groups), where=cl_size > 0)
        suppressed_events = int((~kept).sum())
        il = float(loss.sum() / max(n, 1))
        metrics = {
            "IL": il,
            # Eq. 1 as printed: the clusters' losses only (removed sequences are in no cluster), over |D|
            "IL_paper": float(loss[ev_cluster >= 0].sum() / max(n, 1)),
            "IL_per_event": float(loss.sum() / max(n_ev, 1)),
            "clusters": int(n_groups),
            "removed_sequences": int(len(removed_members)),
            "suppressed_events": suppressed_events,
            "highest_confidence": float(share.max()) if n_groups else 0.0,
        }
        if removed_members:
            one = len(removed_members) == 1
            notes.append(f"{len(removed_members)} sequence{'' if one else 's'} of the last cluster could not satisfy "
                         f"({k},{c})-privacy and {'was' if one else 'were'} removed (004 §3)")
        if len(removed_members) > 0.1 * n:
            warnings.append(f"{len(removed_members)} of {n} sequences were removed: with c = {c:g} too many of them "
                            "show a highly-sensitive value to form groups that keep the bound — raise c or k")
        details = {
            "sequence_ids": [str(s) for s in ids],
            "sequence_offsets": seq_off,
            "event_rows": order,
            "event_kept": kept,
            "event_published_row": np.where(kept, np.cumsum(kept) - 1, -1),
            "sequence_cluster": groups,
            "sequence_loss": seq_loss,
            "cluster_loss": cl_loss,
            "cluster_size": cl_size,
            "cluster_high": cl_high.astype(np.int64),
            "cluster_confidence": share,
            "c": c,
            "k": k,
            "highly_sensitive": given,
        }
        report(progress, 1.0, f"{self.name}: {n_groups} clusters, IL {il:.3f}")
        return Result(output=output, groups=groups, suppressed=suppressed_events, metrics=metrics, details=details,
                      notes=notes, warnings=warnings)


class CBMSABaseline(CBMSA):
    """The baseline of 004 §4: the same clustering without dynamic-programming alignment."""

    draws = True
    name = "cbmsa-baseline"
    title = "CBMSA baseline (random suppression, no alignment)"
    description = ("the paper's baseline for CBMSA: the same clustering, but sequences of unequal length lose "
                   "randomly chosen events of the longer one instead of being aligned")
    baseline = True
