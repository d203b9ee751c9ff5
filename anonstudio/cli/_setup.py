"""Commands that set anonstudio up on a machine: ``demo`` (run the bundled demo jobs), ``warmup`` (compile the
kernels now) and ``desktop-entry`` (the Linux desktop entry)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from anonstudio.cli._common import _Progress, _say
from anonstudio.core.errors import AnonStudioError


def cmd_demo(args: argparse.Namespace) -> int:
    from anonstudio.core.demo import demo_jobs, prepare_demo
    from anonstudio.core.jobs import load_job, run_job

    out = Path(args.out).resolve()
    prepare_demo(out)
    failures = 0
    for job_path in demo_jobs(out):
        try:
            job = load_job(job_path)
            outcome = run_job(job, _Progress(args.quiet))
        except AnonStudioError as exc:
            if exc.exit_code == 2 and "not available yet" in str(exc):
                _say(f"{job_path.name}: skipped ({exc.message})")
                continue
            print(f"{job_path.name}: FAILED: {exc}", file=sys.stderr)
            failures += 1
            continue
        v = outcome.report["verification"]
        _say(f"{job_path.name}: {outcome.report['algorithm']} → {job.output_path} "
              f"({'verified' if v['passed'] else 'NOT verified'}: {v['model']})")
    _say(f"demo results are in {out}")
    return 1 if failures else 0


def cmd_warmup(args: argparse.Namespace) -> int:

    from anonstudio.core.warmup import warm_up

    from anonstudio.core.kernels import cache_folder

    _say(f"compiling the kernels into {cache_folder()}")
    for m in warm_up(_Progress(args.quiet)):
        _say(f"{m.method}: skipped ({m.skipped})" if m.skipped else f"{m.method} ({m.job}): {m.seconds:.2f} s")
    return 0


def cmd_desktop_entry(args: argparse.Namespace) -> int:
    from anonstudio.cli import _desktop

    paths = _desktop.uninstall(args.prefix) if args.uninstall else _desktop.install(args.prefix)
    for p in paths:
        _say(p)
    if not paths:
        _say("nothing to remove" if args.uninstall else "nothing written")
    return 0
