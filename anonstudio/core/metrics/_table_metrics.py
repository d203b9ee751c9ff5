"""Information-loss metrics of an anonymized table, from the output table and the hierarchies alone.

Ramana & Kumari, "Graph based local recoding for data anonymization" (paper 002):

- NCP of a cell (Eq. 5 numeric, Eq. 6 categorical): numeric attributes (every hierarchy leaf a number)
  ``(max - min) / (A_max - A_min)`` over the leaves under the cell's node, the domain being the hierarchy's
  leaves; categorical ``0`` for a single value, else ``leaves(node) / |A|`` with ``|A|`` the hierarchy's
  leaf count. NCP of a record / class is the sum over the quasi-identifiers (Ghinita et al. 2007).
- GCP (Eq. 7): ``sum_E |E| * NCP(E) / (d * N)``.
- DM, discernibility (Eq. 8): ``sum_E |E|^2``, plus ``N`` per suppressed record (Bayardo & Agrawal 2005).
- CAVG (Eq. 9): ``(N - suppressed) / (classes * k)``.

An equivalence class is a set of output records with identical QI cells. A record whose every QI cell is
``*`` or its hierarchy's root label is *suppressed* (as the verifiers of ``core.privacy`` see it): it counts
``NCP = 1`` per attribute in GCP, ``N`` in DM and is left out of CAVG (Bayardo & Agrawal's convention, which
ARX follows). Paper 002 does not treat suppression apart: with ``suppressed_as = "class"`` (the keys
``DM_paper`` and ``CAVG_paper`` of :func:`table_metrics`) the suppressed records are one more equivalence
class in Eqs. 8 and 9, as the paper's formulas read.
A cell label is looked up at the lowest hierarchy level holding it; ``*`` not in a hierarchy means its root.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anonstudio.core.data import text_cells
from anonstudio.core.data._chunks import factorize, isin, row_classes
from anonstudio.core.errors import HierarchyError

SUPPRESSED = "*"


def _frame(output: Any) -> pd.DataFrame:
    return output.df if hasattr(output, "df") else output


def _node_ncp(h) -> np.ndarray:
    """NCP (Eqs 5-6) of every node of one hierarchy."""
    arr = h.arrays
    if np.all(np.isfinite(arr.node_min)):
        root = int(arr.ancestor[0, h.height])
        span = arr.node_max[root] - arr.node_min[root]
        return (arr.node_max - arr.node_min) / span if span > 0 else np.zeros(h.n_nodes)
    leaves = arr.node_leaves
    return np.where(leaves <= 1, 0.0, leaves / max(len(h.leaves), 1))


def _label_ncp(h) -> dict[str, float]:
    """label → NCP, the lowest level winning when a label appears on several levels."""
    ncp = _node_ncp(h)
    out: dict[str, float] = {}
    order = np.argsort(np.asarray(h.node_level_list), kind="stable")
    for node in order:
        out.setdefault(h.node_labels[node], float(ncp[node]))
    out.setdefault(SUPPRESSED, 1.0)
    return out


def ncp_cells(output: Any, quasi_identifiers: list[str], hierarchies: dict) -> np.ndarray:
    """``float64[n, d]``: NCP of every QI cell of the output (Eqs 5-6).

    Raises :class:`HierarchyError` for a cell label that is not a node of its attribute's hierarchy,
    naming the record (1-based) and the column.
    """
    df = _frame(output)
    out = np.zeros((len(df), len(quasi_identifiers)))
    for a, attr in enumerate(quasi_identifiers):
        if attr not in hierarchies:
            raise HierarchyError(f"no hierarchy for quasi-identifier '{attr}'", column=attr)
        table = _label_ncp(hierarchies[attr])
        inv, uniques = factorize(text_cells(df[attr], SUPPRESSED))  # in slices: no long hold of the lock
        vals = np.empty(len(uniques))
        for u, label in enumerate(uniques):
            v = table.get(str(label))
            if v is None:
                row = int(np.flatnonzero(inv == u)[0])
                raise HierarchyError(
                    f"output cell '{label}' is not a node of the hierarchy of '{attr}'",
                    record=row + 1,
                    column=attr,
                )
            vals[u] = v
        out[:, a] = vals[inv]
    return out


def equivalence_classes(
    output: Any, quasi_identifiers: list[str], hierarchies: dict | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(class id per record, suppressed mask)``: records with identical QI cells share a class id
    (numbered in order of first record); suppressed records (every QI cell ``*`` or, given the
    hierarchies, its root label) get -1."""
    df = _frame(output)
    n = len(df)
    if not quasi_identifiers or n == 0:
        return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
    texts = []
    suppressed = np.ones(n, dtype=bool)
    for attr in quasi_identifiers:
        col = text_cells(df[attr], SUPPRESSED)
        texts.append(col)
        roots = [SUPPRESSED]
        if hierarchies is not None and attr in hierarchies:
            roots.append(hierarchies[attr].root_label)
        suppressed &= isin(col, roots)
    classes = np.full(n, -1, dtype=np.int64)
    kept = ~suppressed
    if kept.any():  # numbered by first appearance, in short calls (core.data._chunks.row_classes)
        classes[kept] = row_classes([t[kept] for t in texts], int(kept.sum()))
    return classes, suppressed


def class_sizes(classes: np.ndarray) -> np.ndarray:
    kept = classes[classes >= 0]
    return np.bincount(kept) if len(kept) else np.zeros(0, dtype=np.int64)


def gcp(ncp: np.ndarray) -> float:
    """Global certainty penalty (Eq. 7) from the per-cell NCP matrix ``[N, d]``."""
    n, d = ncp.shape
    return float(ncp.sum() / (d * n)) if n and d else 0.0


def discernibility(sizes: np.ndarray, n_suppressed: int = 0, n_records: int | None = None,
                   suppressed_as: str = "record") -> float:
    """Discernibility metric (Eq. 8): ``sum |E|^2`` plus ``N`` per suppressed record (``suppressed_as =
    "record"``), or plus ``|S|^2`` with the suppressed records one class (``"class"``, the paper's formula)."""
    sizes = np.asarray(sizes, dtype=np.float64)
    if suppressed_as == "class":
        return float((sizes**2).sum() + float(n_suppressed) ** 2)
    n = float(sizes.sum() + n_suppressed) if n_records is None else float(n_records)
    return float((sizes**2).sum() + n * n_suppressed)


def cavg(sizes: np.ndarray, k: int, n_suppressed: int = 0, suppressed_as: str = "record") -> float:
    """Normalized average equivalence class size (Eq. 9): ``records / (classes * k)`` over the classes
    (``"record"``), or with the suppressed records as one more class (``"class"``, the paper's formula)."""
    sizes = np.asarray(sizes)
    records, classes = float(sizes.sum()), len(sizes)
    if suppressed_as == "class" and n_suppressed:
        records, classes = records + n_suppressed, classes + 1
    return records / (classes * k) if classes else 0.0


def table_metrics(output: Any, quasi_identifiers: list[str], hierarchies: dict, *, k: int,
                  classes: np.ndarray | None = None, suppressed: np.ndarray | None = None) -> dict[str, Any]:
    """The report metrics of a generalized table: ``NCP_total`` (the NCP of every quasi-identifier cell, summed
    over the records: a sum, not a share — ``GCP`` is that sum over the ``d · N`` cells, 0 to 1), ``NCP`` (the
    same sum under its old name, kept through 0.3 for scripts that read it: see the contract's changelog),
    ``NCP_by_attribute`` (mean per record), ``GCP``, ``DM``, ``CAVG``, ``classes`` (published equivalence
    classes) and ``suppressed`` (records fully suppressed; also as ``suppressed_records``, the name that says
    what it counts). ``classes`` / ``suppressed``: :func:`equivalence_classes` of the output, if already known."""
    ncp = ncp_cells(output, quasi_identifiers, hierarchies)
    if classes is None or suppressed is None:
        classes, suppressed = equivalence_classes(output, quasi_identifiers, hierarchies)
    sizes = class_sizes(classes)
    n = len(classes)
    n_sup = int(suppressed.sum())
    if n_sup:
        ncp[suppressed] = 1.0
    return {
        "NCP_total": float(ncp.sum()),
        "NCP": float(ncp.sum()),
        "NCP_by_attribute": {a: float(ncp[:, i].mean()) if n else 0.0 for i, a in enumerate(quasi_identifiers)},
        "GCP": gcp(ncp),
        "DM": discernibility(sizes, n_sup, n),
        "CAVG": cavg(sizes, k),
        "DM_paper": discernibility(sizes, n_sup, n, suppressed_as="class"),
        "CAVG_paper": cavg(sizes, k, n_sup, suppressed_as="class"),
        "classes": int(len(sizes)),
        "min_class_size": int(sizes.min()) if len(sizes) else 0,
        "suppressed": n_sup,
        "suppressed_records": n_sup,
    }
