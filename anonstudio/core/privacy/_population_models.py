"""Moved to :mod:`anonstudio.core.models._population`; this name is that module (the old import path)."""

import sys

from anonstudio.core.models import _population

sys.modules[__name__] = _population
