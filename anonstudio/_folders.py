"""The user's folders anonstudio keeps things in, as each platform names them (``platformdirs``).

Linux and the BSDs follow the XDG base directories (``$XDG_DATA_HOME`` else ``~/.local/share``,
``$XDG_CACHE_HOME`` else ``~/.cache``, ``$XDG_CONFIG_HOME`` else ``~/.config``); macOS ``~/Library/Application
Support``, ``~/Library/Caches`` and ``~/Library/Application Support``; Windows ``%LOCALAPPDATA%`` (the cache in its
``Cache`` folder). The settings of the workbench are Qt's (``QSettings``), which follows the same rules.
Imports nothing of anonstudio: the package's ``__init__`` needs the cache folder before anything else loads.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP = "anonstudio"


def data_home() -> Path:
    """The user's data folder itself (``$XDG_DATA_HOME`` on Linux): desktop entries and icons go below it."""
    return platformdirs.user_data_path()


def data_dir() -> Path:
    """anonstudio's data folder: the release key, the release log, the error log."""
    return platformdirs.user_data_path(APP, appauthor=False)


def cache_dir() -> Path:
    """anonstudio's cache folder: the compiled kernels."""
    return platformdirs.user_cache_path(APP, appauthor=False)
