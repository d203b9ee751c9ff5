"""Generalization hierarchies: the tree, validation, builders and array views for kernels."""

from anonstudio.core.hierarchy._builders import (
    build_hierarchy,
    dates,
    default_numeric_hierarchy,
    grouping,
    intervals,
    masking,
    nice_widths,
)
from anonstudio.core.hierarchy._tree import Hierarchy, HierarchyArrays

__all__ = [
    "Hierarchy",
    "HierarchyArrays",
    "build_hierarchy",
    "dates",
    "default_numeric_hierarchy",
    "grouping",
    "intervals",
    "masking",
    "nice_widths",
]
