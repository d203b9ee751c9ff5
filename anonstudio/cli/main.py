"""``anonstudio`` — the command-line face of the engine (see ``cli-contract.md``).

Exit codes, one meaning each: 0 published (or, for other commands, done); 1 the privacy model could not be met
or verification failed; 2 the user's input, job or environment is wrong (one line on stderr naming it: file,
line/record, key; not enough memory or open files; a traceback only with ``--debug``); 3 a defect of
anonstudio; 128 + n stopped by signal n (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT, 138 SIGUSR1).
Closed or full standard streams never change the exit code.

This module is the process: the parser, :func:`main` and :func:`entry`; the commands are one module per group
(:mod:`._release` run/verify/key, :mod:`._risk`, :mod:`._methods`, :mod:`._declared` generate/experiment,
:mod:`._setup` demo/warmup/desktop-entry), stop signals in :mod:`._signals`.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import os
import signal
import sys
import threading
import traceback
from pathlib import Path

from anonstudio import __version__
from anonstudio.cli._common import _silence_stdout
from anonstudio.cli._declared import _add_experiment, _add_generate, cmd_experiment, cmd_generate
from anonstudio.cli._methods import _run_epilog, cmd_methods, methods_text
from anonstudio.cli._release import cmd_key, cmd_run, cmd_verify
from anonstudio.cli._risk import cmd_risk
from anonstudio.cli._setup import cmd_demo, cmd_desktop_entry, cmd_warmup
from anonstudio.cli._signals import (
    _RECEIVED,
    STOP_SIGNALS,
    Terminated,
    _exit_code_of,
    _interrupted,
    _on_signal,
    _stop,
    _stopped_text,
)
from anonstudio.core.errors import AnonStudioError, environment_error
from anonstudio.core.progress import Cancelled

#: what other modules import from here (the commands live one group a module: _release, _risk, _methods,
#: _declared, _setup; what they share in _common; stop signals in _signals)
__all__ = ["STOP_SIGNALS", "Terminated", "build_parser", "cmd_demo", "cmd_desktop_entry",
           "cmd_experiment", "cmd_generate", "cmd_gui", "cmd_key", "cmd_methods", "cmd_risk", "cmd_run", "cmd_verify",
           "cmd_warmup", "entry", "guard_standard_streams", "main", "methods_text", "prepare_process"]


def cmd_gui(args: argparse.Namespace) -> int:
    from anonstudio.gui.app import main as gui_main

    return gui_main(file=args.file, demo=args.demo)


def _command_of(argv: list[str] | None) -> str | None:
    """The subcommand named on the command line (the first word that is not an option), if any."""
    for word in argv or ():
        if not word.startswith("-"):
            return word
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser; ``argv`` decides which engine-declared subcommands are built in full
    (all of them when ``None``)."""
    parser = argparse.ArgumentParser(prog="anonstudio", description="Anonymize tables, event sequences and strings.")
    parser.add_argument("--version", action="version", version=f"anonstudio {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command")

    wants_run_help = argv is not None and len(argv) >= 1 and argv[0] == "run" and ("-h" in argv or "--help" in argv)
    p = sub.add_parser("run", help="run one job headless", formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=_run_epilog() if wants_run_help else None)
    p.add_argument("job", type=Path)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a job key, e.g. algorithm.k=10")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("methods", help="every method with what it takes, writes and guarantees, and its parameters")
    p.add_argument("--json", action="store_true", help="the same as JSON")
    p.set_defaults(func=cmd_methods)

    p = sub.add_parser("verify", help="re-check an existing output against the job's privacy model")
    p.add_argument("job", type=Path)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.add_argument("--model-only", action="store_true",
                   help="check the canonical form and the privacy model only, without running the job's method again "
                        "(where the release key its draws came from is not on this machine; a forger's choices "
                        "then go unseen)")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("key", help="the release key the secret draws come from: its file and fingerprint (never the "
                                   "key itself); --create or --rotate it")
    p.add_argument("--file", type=Path, default=None,
                   help="the key file (default: $ANONSTUDIO_KEY_FILE, else $XDG_DATA_HOME/anonstudio/keys/release.key)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--create", action="store_true", help="make a new key (refused if one exists)")
    how.add_argument("--rotate", action="store_true",
                     help="make a new key, the old one kept beside it as release-<fingerprint>.key")
    p.add_argument("--json", action="store_true", help="print path and fingerprint as JSON")
    p.set_defaults(func=cmd_key)

    p = sub.add_parser("risk", help="re-identification risk of a table (prosecutor, journalist, marketer; sample and "
                                    "population uniques) and the attacks' figures")
    p.add_argument("table", type=Path, help="the table: original or anonymized (a record whose every quasi-identifier "
                                            "is '*' counts as suppressed)")
    p.add_argument("--qi", metavar="A,B,C", help="the quasi-identifiers, comma-separated")
    p.add_argument("--sensitive", metavar="S", help="sensitive column(s): homogeneity and inference figures")
    p.add_argument("--identifying", metavar="I,J", help="columns that are not published (left out of the unique-"
                                                       "with-other-columns figure)")
    p.add_argument("--population", metavar="N", help="size of the population the table is a sample of "
                                                     "(default: the US population, 317,238,626, as ARX)")
    p.add_argument("--sampling-fraction", metavar="F", help="the table's share of the population (instead of "
                                                            "--population): N = records / F")
    p.add_argument("--population-table", type=Path, metavar="FILE",
                   help="a table the given one is a sample of: journalist and marketer risk from its classes")
    p.add_argument("--person", metavar="P", help="the column naming each record's person (several records per "
                                                 "person): classes are sized by their distinct people")
    p.add_argument("--person-table", type=Path, metavar="FILE",
                   help="the table holding --person row for row (a release's input: the release has no ids)")
    p.add_argument("--threshold", metavar="T", help="risk above which a record counts as at risk (default 0.2)")
    p.add_argument("--snb", choices=("model", "arx"), default="model",
                   help="SNB's equations: the model's (default) or ARX 3.9's, to reproduce its figures")
    p.add_argument("--json", action="store_true", help="print the figures as JSON (keys: docs/cli-contract.md)")
    p.set_defaults(func=cmd_risk)

    p = sub.add_parser("demo", help="run the bundled demo jobs headless")
    p.add_argument("--out", default="anonstudio-demo", help="folder to copy the demo to and write results in")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("gui", help="open the desktop workbench")
    p.add_argument("file", nargs="?", type=Path, help="data file, job file or project to open")
    p.add_argument("--demo", action="store_true", help="open the workbench on the bundled demo data")
    p.set_defaults(func=cmd_gui)

    p = sub.add_parser("warmup", help="compile the numba kernels now (first runs are then as fast as later ones)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=cmd_warmup)

    p = sub.add_parser("desktop-entry", help="install the Linux desktop entry and icon for this user")
    p.add_argument("--prefix", type=Path, default=None, help="data folder (default: $XDG_DATA_HOME or ~/.local/share)")
    p.add_argument("--uninstall", action="store_true", help="remove the entry and icons instead")
    p.set_defaults(func=cmd_desktop_entry)

    # `generate` and `experiment` list their kinds and options from the engine's declarations, which import
    # numpy, pandas and matplotlib: build them only when the command line names them (start-up, issue 17).
    gp = sub.add_parser("generate", help="synthetic data")
    gp.set_defaults(func=cmd_generate)
    ep = sub.add_parser("experiment", help="a paper's experiment as CSV + PNG")
    ep.set_defaults(func=cmd_experiment)
    wanted = "*" if argv is None else _command_of(argv)
    if wanted in ("generate", "*"):
        _add_generate(gp)
    if wanted in ("experiment", "*"):
        _add_experiment(ep)
    return parser


def _safe_message(exc: AnonStudioError) -> str:
    """One line: control characters escaped (a cell could hold terminal escapes), long values cut."""
    text = str(exc)
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= 2000 else text[:1999] + "…"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    previous = {}
    if threading.current_thread() is threading.main_thread():
        _RECEIVED["signal"] = None
        previous = {signum: signal.signal(signum, _on_signal) for signum in STOP_SIGNALS}
    try:
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if args.command is None:
            args = build_parser(["gui", *argv]).parse_args(["gui", *argv])
        return args.func(args)
    except AnonStudioError as exc:
        if debug:
            traceback.print_exc()
        print(f"anonstudio: {_safe_message(exc)}", file=sys.stderr)
        return exc.exit_code
    except (KeyboardInterrupt, Cancelled) as exc:
        print(_stopped_text(exc), file=sys.stderr)
        return _stop(_exit_code_of(exc))
    except BrokenPipeError:
        # the reader of our standard output went away (``anonstudio … | head``): nothing more to say to it
        _silence_stdout()
        return 0
    except Exception as exc:  # a bug, not bad input: say so plainly
        if _interrupted(exc) or _RECEIVED["signal"] is not None:  # a stop signal surfaced as another error
            print(_stopped_text(exc), file=sys.stderr)
            return _stop(_exit_code_of(exc))
        problem = environment_error(exc)  # out of memory, open files or threads: the machine, not a defect
        if problem is not None:
            if debug:
                traceback.print_exc()
            print(f"anonstudio: {_safe_message(problem)}", file=sys.stderr)
            return problem.exit_code
        if debug:
            traceback.print_exc()
        else:
            print(f"anonstudio: internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)", file=sys.stderr)
        return 3
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


#: see :func:`entry`
_YOUNG_OBJECTS_BEFORE_COLLECTING = 5_000


def entry() -> None:
    """The ``anonstudio`` command and ``python -m anonstudio``: :func:`main` in a process of its own.

    Three things only such a process can do (issue 17: a whole Mondrian run on Adult in <= 1 s), each left out
    for the workbench (``gui``), which loads its kernels in the background anyway:
    - Kernels are loaded from numba's cache without readying numba's compiler
      (:func:`anonstudio.core.kernels.lean_cache_loads`).
    - Python's cyclic garbage collector looks at new objects after 5,000 allocations instead of 700. The
      imports of pandas, pyarrow and numba create some 200,000 objects that live as long as the process;
      with 700, a whole Mondrian run on Adult spent 0.09 s in 287 collections, two of them full ones that
      walk every object; with 5,000, 0.04 s in 53 and no full one (``gc.callbacks``). Objects in cycles are
      still freed, a little later; reference-counted memory (every array and frame) is freed as before.
    - It leaves without tearing the interpreter down once the command is done: freeing every module of
      numba, llvmlite, pandas and pyarrow one by one took 0.1 s of a 1 s run and serves nothing. Before
      leaving it does what Python's own exit would do that matters: waits for threads that are not daemons,
      runs the ``atexit`` handlers, flushes both streams. Outputs are complete before this: every file is
      written, closed and renamed into place by the command itself. The workbench (anything that loaded Qt)
      exits the usual way.
    """
    try:
        guard_standard_streams()
        _own_warnings_in_one_line()
        argv = sys.argv[1:]
        prepare_process(argv)
        code = main(argv)
    except KeyboardInterrupt:
        # Ctrl-C before main installed its handlers (the first half second: imports, numba's set-up) or after it
        # restored them: the same one line as a stop during the run, never a traceback (issue 44 item 10)
        with contextlib.suppress(Exception):
            print("anonstudio: cancelled", file=sys.stderr)
        code = 130
    if "PySide6.QtCore" in sys.modules:
        raise SystemExit(code)
    _leave(code)


class _Stream:
    """A standard stream that never fails the command (issue 29): once a write or flush fails — the stream
    was closed, is ``/dev/full``, its reader went away, its terminal hung up — the stream's file descriptor is
    pointed at ``/dev/null`` and further output is dropped. A run that published still exits 0, a failed one
    still 1 or 2 (its one line lost)."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):
                self._break()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._break()

    def isatty(self) -> bool:
        try:
            return not self.broken and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def _break(self) -> None:
        self.broken = True
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # what is still buffered, and C libraries' output, go there
            os.close(devnull)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def guard_standard_streams() -> None:
    """For the command process: a closed standard stream (``>&-``) gets ``/dev/null`` as its file descriptor —
    else the first file the run opens would take its number and a stray print would land in an output — and
    stdout and stderr are wrapped by :class:`_Stream`."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                devnull = os.open(os.devnull, os.O_RDWR)
                if devnull != fd:
                    os.dup2(devnull, fd)
                    os.close(devnull)
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 (lives as long as the process)
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is None:
            stream = open(fd, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        if not isinstance(stream, _Stream):
            setattr(sys, name, _Stream(stream))


def _own_warnings_in_one_line() -> None:
    """anonstudio's own warnings about the process (the kernel cache folder) as one ``anonstudio: warning:`` line,
    as the run's other warnings are, not with Python's file:line and source line."""
    import warnings

    from anonstudio import KernelCacheWarning

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if isinstance(category, type) and issubclass(category, KernelCacheWarning):
            print(f"anonstudio: warning: {message}", file=file or sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def prepare_process(argv: list[str]) -> None:
    """What :func:`entry` does to the process before ``main(argv)``: numba's idle OpenMP threads sleep
    (:func:`anonstudio.core.kernels.application_process`: this process is anonstudio's own); lean kernel loads and
    the collector's threshold for every command but the workbench (also used by the whole-process benchmark's
    profiled run)."""
    from anonstudio.core.kernels import application_process

    application_process()
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in (None, "gui"):
        from anonstudio.core.kernels import lean_cache_loads

        lean_cache_loads()
        gc.set_threshold(_YOUNG_OBJECTS_BEFORE_COLLECTING, *gc.get_threshold()[1:])


def _leave(code: int) -> None:
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:  # not CPython: its own exit
        raise SystemExit(code)
    wait_for_threads = getattr(threading, "_shutdown", None)  # what Python's own exit calls first: it also
    if wait_for_threads is not None and threading.current_thread() is threading.main_thread():
        wait_for_threads()  # runs threading's exit hooks (an idle ThreadPoolExecutor's workers are woken there)
    else:
        for thread in threading.enumerate():
            if thread is not threading.current_thread() and not thread.daemon:
                thread.join()
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
