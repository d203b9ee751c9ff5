"""The papers' experiments as functions returning tidy tables, written as CSV + PNG.

:data:`EXPERIMENTS` maps ``anonstudio experiment NAME`` to :class:`~anonstudio.core.params.Command`.
"""

from __future__ import annotations

from anonstudio.core.experiments._cbmsa_hhp import CBMSA_HHP
from anonstudio.core.experiments._condensation import EXPERIMENTS as _CONDENSATION
from anonstudio.core.experiments._mst_adult import MST_ADULT, run_mst_adult
from anonstudio.core.experiments._ra_adult import RA_ADULT
from anonstudio.core.experiments._reproduce import REPRODUCE
from anonstudio.core.params import Command

EXPERIMENTS: dict[str, Command] = {}
EXPERIMENTS.update(_CONDENSATION)
EXPERIMENTS[MST_ADULT.name] = MST_ADULT
EXPERIMENTS[CBMSA_HHP.name] = CBMSA_HHP
EXPERIMENTS[RA_ADULT.name] = RA_ADULT
EXPERIMENTS[REPRODUCE.name] = REPRODUCE  # last: it runs the others

__all__ = ["EXPERIMENTS", "run_mst_adult"]
