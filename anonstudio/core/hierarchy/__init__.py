"""Generalization hierarchies: the tree, validation, builders and array views for kernels."""

from anonstudio.core.hierarchy._tree import Hierarchy, HierarchyArrays

__all__ = ["Hierarchy", "HierarchyArrays"]
