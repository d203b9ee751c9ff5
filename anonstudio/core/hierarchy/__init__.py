"""Generalization hierarchies: the tree, validation, builders and array views for kernels."""

from anonstudio.core.hierarchy._builders import *  # noqa: F403 (the builders: see its __all__)
from anonstudio.core.hierarchy._builders import __all__ as _BUILDERS
from anonstudio.core.hierarchy._tree import Hierarchy, HierarchyArrays

__all__ = ["Hierarchy", "HierarchyArrays", *_BUILDERS]
