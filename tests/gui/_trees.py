"""A reference for the MST views' tests: the classes left when tree edges are removed (networkx, not ours)."""

from __future__ import annotations

import numpy as np


def components_after_cut(n: int, edges: np.ndarray, removed: np.ndarray) -> np.ndarray:
    """Class id per node of the forest left by removing ``removed`` (edge indices) from the tree ``edges``."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(n))
    keep = np.ones(len(edges), bool)
    keep[removed] = False
    g.add_edges_from(edges[keep].tolist())
    node_group = np.empty(n, np.int64)
    for i, comp in enumerate(nx.connected_components(g)):
        node_group[list(comp)] = i
    return node_group
