"""The commands of a release: ``run`` (run a job and publish it), ``verify`` (re-check a published release)
and ``key`` (the release key its secret draws come from)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from anonstudio.cli._common import _Progress, _say


def cmd_run(args: argparse.Namespace) -> int:
    """Run the job through the one run entry (:func:`anonstudio.core.jobs.run`: the input read once, the hierarchies
    completed once) and publish it (:func:`anonstudio.core.jobs.publish_job`)."""
    from anonstudio.core.jobs import load_job, publish_job, run
    from anonstudio.core.progress import report, subrange
    from anonstudio.core.publication import publication_warnings
    from anonstudio.core.release_verdict import release_verdict
    from anonstudio.core.views import run_lines

    progress = _Progress(args.quiet)
    report(progress, 0.0, f"reading {Path(args.job).name}")
    job = load_job(args.job, args.set)
    outcome = run(job, subrange(progress, 0.05, 0.95))
    publish_job(outcome, job)
    report(progress, 1.0, f"wrote {job.output_path.name}")
    rep = outcome.report
    for line in run_lines(rep):
        _say(line)
    for note in rep.get("notes", []):
        print(f"anonstudio: note: {note}", file=sys.stderr)
    for warning in rep.get("warnings", []):
        print(f"anonstudio: warning: {warning}", file=sys.stderr)
    verdict = release_verdict(rep, publication_warnings(rep, outcome.result.output, shuffle_rows=job.shuffle_rows,
                                                        shuffle_seed=job.shuffle_seed))
    if verdict.model_holds and not verdict.safe_to_publish:
        print(f"anonstudio: verdict: {verdict.headline()}", file=sys.stderr)
    _say(f"output: {job.output_path}")
    if job.report_path:
        _say(f"report: {job.report_path}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from anonstudio.core.jobs import load_job, verify_job

    job = load_job(args.job, args.set)
    from anonstudio.core.secret_draws import draws_from_key

    verification = verify_job(job, rederive=not args.model_only)
    if args.model_only and not args.json:
        _say("note: --model-only: the release was not re-derived; choices a forger made inside what the model "
             "allows (class make-up, draws, order) go unseen"
             + ("" if verification.details.get("key") else
                " (the release key the draws came from is not on this machine)"
                if draws_from_key(job.algorithm_class(), job.params) and job.params.get("seed") is None else ""))
    for note in verification.details.get("recovered", []):
        print(f"anonstudio: note: {note}", file=sys.stderr)
    if job.report_path is not None and job.report_path.exists():
        print(f"anonstudio: note: the report {job.report_path.name} is not checked: it is the run's record for you "
              "(settings, figures computed from the input), not part of the release — publish the data files only",
              file=sys.stderr)
    if args.json:
        _say(json.dumps(verification.as_dict(), indent=2))
    else:
        _say(f"{job.output_path}: {'passed' if verification.passed else 'FAILED'} ({verification.model}) "
             f"{verification.summary()}")
        for problem in verification.problems[1:] if not verification.passed else []:
            _say(f"  also: {problem}")
    return 0 if verification.passed else 1


def cmd_key(args: argparse.Namespace) -> int:
    """Show the release key's file and fingerprint; ``--create`` makes it, ``--rotate`` replaces it (the old one
    kept beside it). The key itself is never printed."""
    from anonstudio.core.keys import create_key, default_key_path, load_key, rotate_key

    where = Path(args.file) if args.file is not None else default_key_path()
    kept = None
    if args.rotate:
        key, kept = rotate_key(where)
    elif args.create:
        key = create_key(where)
    else:
        found = load_key(where)
        if found is None:
            _say(f"no release key at {where} yet: 'anonstudio run' makes it on first use, or 'anonstudio key "
                 "--create' now")
            return 0
        key = found
    if args.json:
        _say(json.dumps({"path": str(key.path), "fingerprint": key.fingerprint,
                         **({"previous": str(kept)} if kept is not None else {})}, indent=2))
        return 0
    _say(f"release key: {key.path}")
    _say(f"fingerprint: {key.fingerprint}")
    if kept is not None:
        _say(f"the previous key is kept at {kept}: releases drawn from it are re-derived with it (output.key_file)")
    return 0
