"""Moved to :mod:`anonstudio.core.models._distribution`; this name is that module (the old import path)."""

import sys

from anonstudio.core.models import _distribution

sys.modules[__name__] = _distribution
