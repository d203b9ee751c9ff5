"""Generalization kernels shared by the tabular methods (MST recoding, Mondrian, k-member).

All hierarchies of a job are packed into one node space: node ``offset[a] + local_id`` of attribute ``a``.
``node_anc[node, level]`` is the node's ancestor at ``level`` (for ``level >= node_level[node]``; levels above
an attribute's height repeat its root), so the lowest common ancestor of two nodes of one attribute is the
first level at which their ancestor columns agree.
"""

from __future__ import annotations

import numpy as np

from anonstudio.core.kernels._jit import njit

@njit(cache=True, nogil=True)
def lca_node(n1, n2, node_anc, node_level):
    """Lowest common ancestor (packed node id) of two nodes of the same attribute."""
    if n1 == n2:
        return n1
    lev = node_level[n1]
    if node_level[n2] > lev:
        lev = node_level[n2]
    top = node_anc.shape[1]
    for level in range(lev, top):
        a = node_anc[n1, level]
        if a == node_anc[n2, level]:
            return a
    return node_anc[n1, top - 1]


@njit(cache=True, nogil=True)
def class_lca(leaf_nodes, labels, n_classes, node_anc, node_level):
    """Per class and attribute, the LCA node of the members' leaves.

    leaf_nodes: int32[n, d] packed leaf node ids; labels: int64[n] class of each record (-1 = none).
    Returns int32[n_classes, d] (-1 for a class without members).
    """
    n, d = leaf_nodes.shape
    out = np.full((n_classes, d), -1, dtype=np.int32)
    for i in range(n):
        c = labels[i]
        if c < 0:
            continue
        for a in range(d):
            cur = out[c, a]
            if cur < 0:
                out[c, a] = leaf_nodes[i, a]
            else:
                out[c, a] = lca_node(cur, leaf_nodes[i, a], node_anc, node_level)
    return out


@njit(cache=True, nogil=True)
def union_costs(nodes, others, node_anc, node_level, node_cost):
    """Per row of ``others`` (``int[m, d]`` packed nodes of classes), the summed ``node_cost`` of the cells a class
    at ``nodes`` (``int[d]``) and that class publish together: the lowest common ancestors, attribute by attribute."""
    m, d = others.shape
    out = np.zeros(m, dtype=np.float64)
    # the joint cell on an attribute depends on the other class's node there only: each node's once
    known = np.zeros(node_anc.shape[0], dtype=np.bool_)
    joint_cost = np.zeros(node_anc.shape[0], dtype=np.float64)
    for i in range(m):
        s = 0.0
        for a in range(d):
            other = others[i, a]
            if not known[other]:
                joint_cost[other] = node_cost[lca_node(nodes[a], other, node_anc, node_level)]
                known[other] = True
            s += joint_cost[other]
        out[i] = s
    return out


