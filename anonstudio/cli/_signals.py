"""Stop signals of a command: Ctrl-C, SIGTERM, SIGHUP, SIGQUIT and SIGUSR1 stop it with its clean-up (partial
files removed, a publication's swap finished or rolled back) and decide its exit code, 128 + n
(:func:`anonstudio.cli.main.main` installs :func:`_on_signal` for the command's length)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from anonstudio.core.progress import defer_stop


class Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP, SIGQUIT, SIGUSR1), raised in the main thread like Ctrl-C so that partial files are
    removed on the way out."""


#: the signals that stop a command with its clean-up (partial files removed, a publication's swap finished or
#: rolled back): Ctrl-C, and what a service manager, a closed terminal or a user sends to end a process
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1")
                     if hasattr(signal, name))


#: the stop signal received during this command, if any
_RECEIVED: dict[str, int | None] = {"signal": None}


def _raise_stop(signum: int) -> None:
    raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def _on_signal(signum, frame) -> None:  # noqa: ARG001 (signal handler signature)
    """A stop signal: remember it and raise. The exception can be swallowed when it lands in a library's
    callback (numba compiling through ctypes prints "Exception ignored" and fails later with another error);
    the remembered signal still decides the exit code, and the next progress report — a safe point — raises it
    again. During a publication's swap (``progress.stops_deferred``) the stop is kept until the swap is done."""
    _RECEIVED["signal"] = signum
    if defer_stop(lambda: _raise_stop(signum)):
        return
    _raise_stop(signum)


def _stop(code: int) -> int:
    """Leave after a stop signal. Partial files were removed while the exception unwound; if the signal
    interrupted numba's compiler, LLVM's state can crash the interpreter's own shutdown (a segfault after
    "terminated"), so the process ends here, streams flushed, without that shutdown."""
    if _RECEIVED["signal"] is None:
        return code  # Cancelled from a progress callback (scripts, tests): an ordinary return
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _raise_if_signalled() -> None:
    signum = _RECEIVED["signal"]
    if signum is not None:
        _raise_stop(signum)


def _interrupted(exc: BaseException) -> bool:
    """A KeyboardInterrupt, also when numba's dispatcher wrapped it into a SystemError."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _exit_code_of(exc: BaseException) -> int:
    if _RECEIVED["signal"] is not None:
        return 128 + int(_RECEIVED["signal"])
    while exc is not None:
        if isinstance(exc, Terminated):
            return 143
        exc = exc.__cause__ or exc.__context__
    return 130


def _stopped_text(exc: BaseException) -> str:
    signum = _RECEIVED["signal"]
    if signum is None or signum in (signal.SIGINT, signal.SIGTERM):
        return "anonstudio: terminated" if isinstance(exc, Terminated) else "anonstudio: cancelled"
    return f"anonstudio: terminated ({signal.Signals(signum).name})"
