"""The quasi-identifiers' hierarchies packed into one node space for the tabular methods' kernels
(:class:`PackedHierarchies`, with each node's NCP, 002 Eqs 5-6), and a :class:`Table`'s quasi-identifier cells as
packed leaf node ids (:func:`encode_quasi_identifiers`; a value missing from its hierarchy is a
:class:`HierarchyError` naming the data file, line and column).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import TYPE_CHECKING

from anonstudio.core.errors import HierarchyError, ParameterError

if TYPE_CHECKING:  # annotations only: declaring the method imports no numpy or pandas (issue 17)
    import numpy as np

    from anonstudio.core.data import Table
    from anonstudio.core.hierarchy import Hierarchy


@dataclass
class PackedHierarchies:
    """The hierarchies of ``attributes`` in one packed node space.

    Attributes
    ----------
    offsets:
        ``int64[d + 1]``: packed id of attribute ``a``'s local node ``j`` is ``offsets[a] + j``.
    node_anc:
        ``int32[n_nodes, max_height + 1]``: ancestor of each node at each level at or above its own (the
        attribute's root repeated above its height; -1 below the node's level).
    node_level:
        ``int64[n_nodes]``.
    node_ncp:
        ``float64[n_nodes]``: NCP of a cell generalized to the node: numeric attributes (every leaf a number)
        ``(max - min) / (domain max - domain min)`` over the node's leaves (002 Eq. 5); categorical ones
        0 for a leaf, else ``leaves(node) / leaves(root)`` (002 Eq. 6). The domain is the hierarchy's.
    node_leaves:
        ``int64[n_nodes]``: leaves under each node.
    node_min, node_max:
        ``float64[n_nodes]``: numeric range of each node's leaves (NaN for categorical attributes).
    heights:
        ``int64[d]``.
    numeric:
        ``bool[d]``: all leaves of the attribute's hierarchy are numbers.
    labels:
        Label of every packed node.
    """

    attributes: list[str]
    hierarchies: list[Hierarchy]
    offsets: np.ndarray
    node_anc: np.ndarray
    node_level: np.ndarray
    node_ncp: np.ndarray
    node_leaves: np.ndarray
    node_min: np.ndarray
    node_max: np.ndarray
    heights: np.ndarray
    numeric: np.ndarray
    labels: np.ndarray

    @property
    def d(self) -> int:
        return len(self.attributes)

    def leaf_nodes(self, a: int) -> np.ndarray:
        """Packed node id of each leaf (in the hierarchy's leaf order) of attribute ``a``."""
        import numpy as np

        return (self.hierarchies[a].arrays.ancestor[:, 0] + self.offsets[a]).astype(np.int32)

    def hdist_level_weights(self) -> tuple[np.ndarray, int]:
        """Integer CHD weights: ``w[a, level] = 2 * level * (L / H_a)`` with ``L`` the lcm of the heights.

        ``HDist`` (002 Eq. 3) of two records is ``sum_a w[a, lca_level_a] / L``: both records climb from their
        leaves (level 0) to the LCA at ``lca_level_a``, each step costing ``1 / H_a`` (Eqs 1-2). Integers keep
        ties exact, so the tie-breaking of the spanning tree is deterministic.
        """
        import numpy as np

        lcm = 1
        for h in self.heights:
            if h > 0:
                lcm = lcm * int(h) // gcd(lcm, int(h))
        top = self.node_anc.shape[1]
        w = np.zeros((self.d, top), dtype=np.int64)
        for a, h in enumerate(self.heights):
            if h > 0:
                for level in range(top):
                    w[a, level] = 2 * min(level, int(h)) * (lcm // int(h))
        return w, lcm


def pack_hierarchies(attributes: list[str], hierarchies: dict[str, Hierarchy]) -> PackedHierarchies:
    """Pack the hierarchies of ``attributes`` (each must be present) for the kernels."""
    import numpy as np

    if not attributes:
        raise ParameterError("the table has no quasi-identifiers to generalize: name them in input.quasi_identifiers",
                             column="quasi_identifiers")
    hs = []
    for attr in attributes:
        if attr not in hierarchies:
            raise HierarchyError(
                f"quasi-identifier '{attr}' has no hierarchy: add one under [hierarchies]", column=attr
            )
        hs.append(hierarchies[attr])
    top = max((h.height for h in hs), default=0) + 1
    sizes = [h.n_nodes for h in hs]
    offsets = np.zeros(len(hs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)
    total = int(offsets[-1])
    node_anc = np.full((total, top), -1, dtype=np.int32)
    node_level = np.zeros(total, dtype=np.int64)
    node_ncp = np.zeros(total, dtype=np.float64)
    node_leaves = np.zeros(total, dtype=np.int64)
    node_min = np.full(total, np.nan)
    node_max = np.full(total, np.nan)
    numeric = np.zeros(len(hs), dtype=bool)
    labels: list[str] = []
    for a, h in enumerate(hs):
        arr = h.arrays
        off = int(offsets[a])
        anc = arr.ancestor.astype(np.int64) + off
        for level in range(h.height + 1):
            nodes = anc[:, level]
            for up in range(level, top):
                node_anc[nodes, up] = anc[:, min(up, h.height)]
        node_level[off : off + h.n_nodes] = arr.node_level
        leaves = arr.node_leaves
        node_leaves[off : off + h.n_nodes] = leaves
        root_leaves = len(h.leaves)
        is_num = bool(np.all(np.isfinite(arr.node_min)))
        numeric[a] = is_num
        if is_num:
            root = int(arr.ancestor[0, h.height])
            span = arr.node_max[root] - arr.node_min[root]
            ncp = (arr.node_max - arr.node_min) / span if span > 0 else np.zeros(h.n_nodes)
            node_min[off : off + h.n_nodes] = arr.node_min
            node_max[off : off + h.n_nodes] = arr.node_max
        else:
            ncp = np.where(leaves <= 1, 0.0, leaves / max(root_leaves, 1))
        node_ncp[off : off + h.n_nodes] = ncp
        labels.extend(h.node_labels)
    return PackedHierarchies(
        attributes=list(attributes),
        hierarchies=hs,
        offsets=offsets,
        node_anc=node_anc,
        node_level=node_level,
        node_ncp=node_ncp,
        node_leaves=node_leaves,
        node_min=node_min,
        node_max=node_max,
        heights=np.array([h.height for h in hs], dtype=np.int64),
        numeric=numeric,
        labels=np.array(labels, dtype=object),
    )


def encode_quasi_identifiers(data: Table, packed: PackedHierarchies) -> tuple[np.ndarray, np.ndarray]:
    """QI cells as packed leaf node ids.

    Returns ``(leaf_nodes int32[n, d], missing bool[n])``; a record with a missing (NA) QI cell is marked
    in ``missing`` (its codes are 0 and must not be used). A present value that is not a leaf of its
    hierarchy raises :class:`HierarchyError` naming the data file, the line and the column.
    """
    import numpy as np

    from anonstudio.core.data._chunks import factorize

    n = data.n_rows
    codes = np.zeros((n, packed.d), dtype=np.int32)
    missing = np.zeros(n, dtype=bool)
    for a, attr in enumerate(packed.attributes):
        h = packed.hierarchies[a]
        col = data.df[attr]
        inv, uniques = factorize(col)  # in slices of rows, cancellable between them
        leaf_of_unique = np.empty(len(uniques), dtype=np.int64)
        for u, value in enumerate(uniques):
            idx = h.leaf_index.get(str(value))
            if idx is None:
                row = int(np.flatnonzero(inv == u)[0])
                hsrc = f" {h.source}" if h.source is not None else ""
                raise HierarchyError(
                    f"value '{value}' of '{attr}' is not in its hierarchy{hsrc}",
                    file=data.source,
                    line=data.line_of(row) if data.source is not None else None,
                    record=None if data.source is not None else row + 1,
                    column=attr,
                )
            leaf_of_unique[u] = h.arrays.ancestor[idx, 0] + packed.offsets[a]
        na = inv < 0
        missing |= na
        codes[:, a] = np.where(na, 0, leaf_of_unique[np.maximum(inv, 0)] if len(uniques) else 0)
    return codes, missing
