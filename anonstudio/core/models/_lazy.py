"""numpy, imported when a model first computes, not when the models are declared.

The methods' declarations list the privacy models they enforce (:func:`anonstudio.core.models.enforced_by`), and
``anonstudio methods`` lists the methods without loading numpy (issue 17; ``tests/cli/test_startup_imports.py``):
the model modules therefore name numpy through this stand-in, which imports it on the first attribute read and
keeps each attribute it handed out (later reads are plain attribute hits).
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """A module imported on the first attribute read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(importlib.import_module(self._name), attr)
        setattr(self, attr, value)
        return value


numpy = LazyModule("numpy")
