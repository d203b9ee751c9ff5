"""What every command shares: one ``--option`` per declared parameter and their values, command-line numbers
and lists, progress on stderr, and output that survives a reader going away."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

from anonstudio.cli._signals import _raise_if_signalled
from anonstudio.core.params import Param, ParamSet


def _add_params(parser: argparse.ArgumentParser, params: ParamSet) -> None:
    """One ``--option`` per declared parameter; values are validated by the declaration, not argparse."""
    for p in params:
        flag = "--" + p.name.replace("_", "-")
        help_ = p.help + (f" [{p.describe_range()}]" if p.describe_range() else "") + (
            f" (default: {p.default})" if p.default is not None else ""
        )
        if p.kind == "bool":
            parser.add_argument(flag, dest=p.name, action=argparse.BooleanOptionalAction, default=None, help=help_)
        else:
            parser.add_argument(flag, dest=p.name, default=None, help=help_, metavar=p.kind.upper())
        for choice in p.shortcuts:
            parser.add_argument("--" + choice.replace("_", "-"), dest=p.name, action="store_const", const=choice,
                                help=f"the same as {flag} {choice}")


def _collect(args: argparse.Namespace, params: ParamSet) -> dict:
    values = {}
    for p in params:
        v = getattr(args, p.name, None)
        if v is not None:
            values[p.name] = _coerce(p, v)
    return params.validate(values)


def _coerce(p: Param, v):
    if isinstance(v, str) and p.kind in ("int", "float"):
        try:
            return int(v) if p.kind == "int" and v.lstrip("-").isdigit() else float(v)
        except ValueError:
            return v
    if isinstance(v, str) and p.kind == "str_list":
        return [x.strip() for x in v.split(",") if x.strip()]
    return v


def _number(text: str | None, option: str, kind: type):
    """A command-line number, or a one-line error naming the option."""
    from anonstudio.core.errors import ParameterError

    if text is None:
        return None
    try:
        value = kind(text)
    except ValueError:
        raise ParameterError(f"{option} takes {'a whole number' if kind is int else 'a number'}, not '{text}'",
                             key=option) from None
    return value


def _names(text: str | None) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


class _Progress:
    """Prints the engine's progress messages to stderr, at most a few times a second."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.last = 0.0
        self.tty = sys.stderr.isatty()

    def __call__(self, fraction: float, message: str) -> None:
        _raise_if_signalled()  # a safe point: a signal swallowed inside a library call is honoured here
        if self.quiet:
            return
        now = time.monotonic()
        if now - self.last < 0.25 and fraction < 1.0:
            return
        self.last = now
        if self.tty:
            sys.stderr.write(f"\r{fraction * 100:5.1f}%  {message[:70]:<70}")
            if fraction >= 1.0:
                sys.stderr.write("\n")
            sys.stderr.flush()


def _say(*args, **kwargs) -> None:
    """print() to standard output that survives a reader going away (``| head``): the command still
    finishes and returns its own exit code (verify's 1 stays 1)."""
    try:
        print(*args, **kwargs)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
