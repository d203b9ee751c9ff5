"""Synthetic data generators (tables, HHP-like events, Quest-like item sequences, proteins).

:data:`GENERATORS` maps the ``anonstudio generate KIND`` names to :class:`~anonstudio.core.params.Command`.
"""

from __future__ import annotations

from anonstudio.core.params import Command

GENERATORS: dict[str, Command] = {}

__all__ = ["GENERATORS"]
