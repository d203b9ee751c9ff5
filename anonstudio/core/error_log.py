"""The error log: where an unexpected exception — a bug of anonstudio, never a fault of the user's data or
settings — is written with its traceback, so that the workbench can show a sentence (and the details on request)
and name the file to send with a bug report (issue 30 item 2). ``$XDG_DATA_HOME/anonstudio/errors.log`` (default
``~/.local/share``; on macOS and Windows anonstudio's data folder there, :mod:`anonstudio._folders`), beside the
release log; ``ANONSTUDIO_ERROR_LOG`` names another file. Qt-free.
"""

from __future__ import annotations

import os
import threading
import traceback
from datetime import datetime, timezone
from pathlib import Path

from anonstudio._folders import data_dir
from anonstudio.core.errors import AnonStudioError

#: the log keeps at most this many bytes: a larger file is renamed ``errors.log.1`` (one older file kept)
MAX_BYTES = 1 << 20
_LOCK = threading.Lock()


def error_log_path() -> Path:
    """The error log's path (``ANONSTUDIO_ERROR_LOG``, else ``$XDG_DATA_HOME/anonstudio/errors.log``)."""
    given = os.environ.get("ANONSTUDIO_ERROR_LOG")
    if given:
        return Path(given)
    return data_dir() / "errors.log"


def is_unexpected(exc: BaseException) -> bool:
    """Whether ``exc`` is a bug of anonstudio rather than something a user can cause and fix: every exception but
    an :class:`AnonStudioError` (names the file, line, key) and an ``OSError`` naming a file."""
    if isinstance(exc, AnonStudioError):
        return False
    return not (isinstance(exc, OSError) and exc.filename)


def details_of(exc: BaseException) -> str:
    """The exception's traceback as text (what a "details" disclosure shows)."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()


def log_unexpected(exc: BaseException, context: str = "") -> Path | None:
    """Append ``exc`` with its traceback, the time (UTC) and ``context`` (what was being done) to the error log;
    returns its path, or ``None`` when it cannot be written (the dialog then says so — logging never raises)."""
    from anonstudio import __version__

    path = error_log_path()
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    entry = f"--- {stamp} anonstudio {__version__}" + (f" — {context}" if context else "") + "\n" + details_of(exc) + "\n"
    try:
        with _LOCK:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() and path.stat().st_size > MAX_BYTES:
                path.replace(path.with_name(path.name + ".1"))
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(entry)
    except OSError:
        return None
    return path
