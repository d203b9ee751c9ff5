"""The population table of δ-presence (Nergiz et al.) and k-map, for the tabular methods: its records as
hierarchy leaves (:func:`population_leaves`) and packed leaf nodes (:func:`packed_population`), and the check that
the table is a sample of it (:func:`check_sample_of`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonstudio.core.algorithms._packed import PackedHierarchies, encode_quasi_identifiers
from anonstudio.core.errors import HierarchyError, ParameterError

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table


def population_leaves(population, packed, data, *, key: str = "algorithm.models") -> np.ndarray:
    """Each population record's leaf index in each quasi-identifier's hierarchy (``int64[P, d]``); a population
    table without a quasi-identifier column, or holding a value a hierarchy lacks, is an error naming it."""
    import numpy as np

    from anonstudio.core.privacy._verification import as_coded, frame_of

    if population is None:
        raise ParameterError("δ-presence and k-map need a population table (the model's parameter 'population')",
                             key=key)
    frame = frame_of(population)
    source = getattr(population, "source", None)
    out = np.zeros((len(frame), len(packed.attributes)), dtype=np.int64)
    for a, (q, h) in enumerate(zip(packed.attributes, packed.hierarchies)):
        if q not in frame.columns:
            raise ParameterError(f"the population table has no column '{q}' (a quasi-identifier)",
                                 file=source, column=q, key=key)
        cells = as_coded(frame[q])
        index = {str(leaf): i for i, leaf in enumerate(h.leaves)}
        lookup = np.array([index.get(str(t), -1) for t in cells.texts], dtype=np.int64)
        leaves = lookup[cells.codes] if len(cells.codes) else np.zeros(0, dtype=np.int64)
        if (leaves < 0).any():
            row = int(np.flatnonzero(leaves < 0)[0])
            raise HierarchyError(f"the population table's value {str(cells.texts[cells.codes[row]])!r} of '{q}' "
                                 f"is not a leaf of its hierarchy", file=source, column=q,
                                 **({"line": population.line_of(row)} if hasattr(population, "line_of")
                                    else {"record": row + 1}))
        out[:, a] = leaves
    return out


def packed_population(packed: PackedHierarchies, population: np.ndarray) -> np.ndarray:
    """The population's records (leaf index per quasi-identifier, :func:`population_leaves`) as packed leaf nodes."""
    import numpy as np

    if not len(population):
        return np.zeros((0, packed.d), dtype=np.int64)
    return np.stack([packed.leaf_nodes(a)[population[:, a]] for a in range(packed.d)], axis=1).astype(np.int64)


def check_sample_of(data: Table, packed: PackedHierarchies, population: np.ndarray) -> None:
    """Refuse a population table that is not the table's population: δ-presence (Nergiz et al., Def. 3: the
    table is a subset of the population) and k-map count the people of a class in it, so every record of the table
    must be there — each tuple of quasi-identifier values at least as often as in the table (records with a missing
    quasi-identifier are published suppressed and not counted)."""
    import numpy as np

    from anonstudio.core.errors import InputError

    leaves, missing = encode_quasi_identifiers(data, packed)
    mine = np.flatnonzero(~missing)
    theirs = packed_population(packed, population)
    both = np.vstack([leaves[mine].astype(np.int64), theirs.astype(np.int64)])
    if not len(both):
        return
    _, ids = np.unique(both, axis=0, return_inverse=True)
    ids = ids.ravel()
    in_table = np.bincount(ids[:len(mine)], minlength=int(ids.max()) + 1)
    in_population = np.bincount(ids[len(mine):], minlength=int(ids.max()) + 1)
    short = np.flatnonzero(in_table[ids[:len(mine)]] > in_population[ids[:len(mine)]])
    if not len(short):
        return
    row, tuple_id = int(mine[short[0]]), int(ids[short[0]])
    shown = ", ".join(f"{q}={data.df[q].iloc[row]}" for q in packed.attributes[:4])
    times = [f"{n} time" + ("" if n == 1 else "s") for n in (int(in_table[tuple_id]), int(in_population[tuple_id]))]
    raise InputError(f"the table is not a sample of the population table: {shown} occurs {times[0]} in the table "
                     f"and {times[1]} in the population table", file=data.source, line=data.line_of(row))
