"""The papers' experiments as functions returning tidy tables, written as CSV + PNG.

:data:`EXPERIMENTS` maps ``anonstudio experiment NAME`` to :class:`~anonstudio.core.params.Command`.
"""

from __future__ import annotations

from anonstudio.core.experiments._condensation import EXPERIMENTS as _CONDENSATION
from anonstudio.core.params import Command

EXPERIMENTS: dict[str, Command] = {}
EXPERIMENTS.update(_CONDENSATION)

__all__ = ["EXPERIMENTS"]
