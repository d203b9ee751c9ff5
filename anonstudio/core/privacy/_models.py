"""The privacy models moved to :mod:`anonstudio.core.models` (declared without numpy, so the methods' declarations
can list them); this module keeps the old import path."""

from anonstudio.core.models import _distribution, _population  # noqa: F401  (they register)
from anonstudio.core.models._base import *  # noqa: F403
from anonstudio.core.models._base import MODELS, NEAR_COPIES, REQUIREMENTS  # noqa: F401
from anonstudio.core.models._basic import *  # noqa: F403
