"""``anonstudio methods`` and the method names ``run --help`` lists: every method of the registry in plain words,
read from the methods' declarations (no numpy, pandas or numba imported, issue 17)."""

from __future__ import annotations

import argparse
import json

from anonstudio.cli._common import _say


def methods_text() -> str:
    """Every method of the registry in plain words: what it takes and writes, what it guarantees, its
    parameters (with the pipeline's own keys for that kind of data)."""
    import textwrap

    from anonstudio.core.algorithms import CONTRACT_NAMES, available

    lines = []
    classes = available()
    for cls in classes:
        f = cls.facts()
        lines.append(f"{f['name']} — {f['title']}")
        lines += textwrap.wrap(f["description"], 96, initial_indent="  ", subsequent_indent="  ")
        lines.append(f"  input: {f['input']}; output: {f['output']}; verified: {', '.join(f['privacy_models']) or '-'}")
        lines.append(f"  engines ([execution] engine): {', '.join(f['engines'])}")
        if f["metrics"]:
            lines.append(f"  metrics: {', '.join(f['metrics'])}")
        # a method with secret draws takes no seed from a job: its draws come from the release key
        params = [p for p in cls.form_parameters()]
        if cls.secret_draws:
            lines.append("  draws: from your release key ('anonstudio key'); a job may not write a seed")
        elif getattr(cls, "keyed_draws", False):
            lines.append("  draws: from your release key ('anonstudio key') unless the job writes a seed (the release "
                         "is then NOT safe to publish)")
        for prm in params:
            default = "required" if prm.required else f"default {prm.default!r}"
            rng = f" {prm.describe_range()}" if prm.describe_range() else ""
            lines += textwrap.wrap(f"{prm.name} ({prm.kind}{rng}; {default}): {prm.help}", 96,
                                   initial_indent="    ", subsequent_indent="      ")
        lines.append(f"  paper: {f['reference']}")
        lines.append("")
    missing = [n for n in CONTRACT_NAMES if n not in {c.name for c in classes}]
    if missing:
        lines.append(f"not available in this version: {', '.join(missing)}")
    lines.append("every other method also takes seed (a deterministic method records that it has no effect)")
    lines.append("every release is also verified byte for byte: its files must be the canonical form anonstudio writes "
                 "of what was checked, with every token from a whitelist (docs: Guarantees and limits)")
    return "\n".join(lines)


def cmd_methods(args: argparse.Namespace) -> int:
    if args.json:
        from anonstudio.core.algorithms import available

        _say(json.dumps([c.facts() for c in available()], indent=2, default=str))
    else:
        _say(methods_text())
    return 0


def _run_epilog() -> str:
    # names from the registry without importing the methods (--help stays light); details: `anonstudio methods`
    from anonstudio.core.algorithms import names

    return ("methods ([algorithm] name): " + ", ".join(names()) +
            "\n`anonstudio methods` says what each takes, writes and guarantees, with its parameters")
