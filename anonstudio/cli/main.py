"""``anonstudio`` — the command-line face of the engine (see ``cli-contract.md``).

Exit codes, one meaning each: 0 published (or, for other commands, done); 1 the privacy model could not be met
or verification failed; 2 the user's input, job or environment is wrong (one line on stderr naming it: file,
line/record, key; not enough memory or open files; a traceback only with ``--debug``); 3 a defect of
anonstudio; 128 + n stopped by signal n (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT, 138 SIGUSR1).
Closed or full standard streams never change the exit code.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import contextlib
import signal
import threading
import json
import sys
import time
import traceback
from pathlib import Path

from anonstudio import __version__
from anonstudio.core.errors import AnonStudioError, environment_error
from anonstudio.core.params import Param, ParamSet
from anonstudio.core.progress import Cancelled, defer_stop



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


def cmd_risk(args: argparse.Namespace) -> int:
    from anonstudio.core.errors import ParameterError
    from anonstudio.core.io import read_table
    from anonstudio.core.metrics import risk_lines, table_risk

    qis = _names(args.qi)
    if not qis:
        raise ParameterError("give the quasi-identifiers: --qi a,b,c", key="--qi")
    population = _number(args.population, "--population", int)
    fraction = _number(args.sampling_fraction, "--sampling-fraction", float)
    threshold = _number(args.threshold, "--threshold", float)
    table = read_table(args.table)
    population_table = read_table(args.population_table) if args.population_table else None
    if args.person_table is not None:
        if not args.person:
            raise ParameterError("--person-table needs --person COLUMN (the person column it holds)",
                                 key="--person-table")
        table = _with_person_column(table, read_table(args.person_table), args.person)
    figures = table_risk(table, qis, sensitive=_names(args.sensitive), identifying=_names(args.identifying),
                         population=population, sampling_fraction=fraction,
                         threshold=0.2 if threshold is None else threshold, population_table=population_table,
                         equations=args.snb, person=args.person or None)
    if args.json:
        _say(json.dumps(figures, indent=2))
    else:
        _say(f"{args.table}:")
        for line in risk_lines(figures):
            _say(f"  {line}")
    return 0


def _with_person_column(table, source, person: str):
    """``table`` with the person column of ``source`` (the input a release was made from, row for row)."""
    from dataclasses import replace

    from anonstudio.core.errors import InputError

    if person not in source.df.columns:
        raise InputError(f"no column '{person}' (--person) in the person table", file=source.source, column=person)
    if len(source.df) != len(table.df):
        raise InputError(f"the person table has {len(source.df):,} records, the table {len(table.df):,}: it must be "
                         "the release's input, row for row", file=source.source)
    if person in table.df.columns:
        raise InputError(f"the table has a column '{person}' already: give --person without --person-table",
                         file=table.source, column=person)
    return replace(table, df=table.df.assign(**{person: source.df[person].to_numpy()}))


def cmd_generate(args: argparse.Namespace) -> int:
    from anonstudio.core.generate import GENERATORS

    gen = GENERATORS[args.kind]
    params = _collect(args, gen.parameters)
    paths = gen.run(Path(args.out), **params)
    for p in paths:
        _say(p)
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    from anonstudio.core.experiments import EXPERIMENTS

    from anonstudio.core.execution import Execution

    exp = EXPERIMENTS[args.name]
    params = _collect(args, exp.parameters)
    settings = {"engine": args.engine, "workers": args.workers}
    if args.scheduler:
        settings["scheduler"] = args.scheduler
    execution = Execution.from_dict(settings)
    if execution.engine != "local" and not exp.distributable:
        raise AnonStudioError(f"experiment '{args.name}' runs on the local engine only", column="engine")
    if not exp.distributable:
        paths = exp.run(Path(args.out), progress=_Progress(args.quiet), **params)
    else:
        with execution.session() as executor:
            paths = exp.run(Path(args.out), progress=_Progress(args.quiet), executor=executor, **params)
    for p in paths:
        _say(p)
    return 0


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


def cmd_gui(args: argparse.Namespace) -> int:
    from anonstudio.gui.app import main as gui_main

    return gui_main(file=args.file, demo=args.demo)


def cmd_warmup(args: argparse.Namespace) -> int:

    from anonstudio.core.warmup import warm_up

    from anonstudio.core.kernels import cache_folder

    _say(f"compiling the kernels into {cache_folder()}")
    for m in warm_up(_Progress(args.quiet)):
        _say(f"{m.method}: skipped ({m.skipped})" if m.skipped else f"{m.method} ({m.job}): {m.seconds:.2f} s")
    return 0


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


def cmd_desktop_entry(args: argparse.Namespace) -> int:
    from anonstudio.cli import _desktop

    paths = _desktop.uninstall(args.prefix) if args.uninstall else _desktop.install(args.prefix)
    for p in paths:
        _say(p)
    if not paths:
        _say("nothing to remove" if args.uninstall else "nothing written")
    return 0


def _command_of(argv: list[str] | None) -> str | None:
    """The subcommand named on the command line (the first word that is not an option), if any."""
    for word in argv or ():
        if not word.startswith("-"):
            return word
    return None


def _add_generate(gp: argparse.ArgumentParser) -> None:
    from anonstudio.core.generate import GENERATORS

    gsub = gp.add_subparsers(dest="kind", required=True)
    for name, gen in GENERATORS.items():
        g = gsub.add_parser(name, help=gen.help)
        g.add_argument("--out", required=True, help="file to write")
        _add_params(g, gen.parameters)


def _add_experiment(ep: argparse.ArgumentParser) -> None:
    from anonstudio.core.experiments import EXPERIMENTS

    esub = ep.add_subparsers(dest="name", required=True)
    for name, exp in EXPERIMENTS.items():
        e = esub.add_parser(name, help=exp.help)
        e.add_argument("--out", required=True, help="folder for the CSV and PNG files")
        e.add_argument("--quiet", action="store_true")
        if exp.distributable:
            e.add_argument("--engine", choices=("local", "dask"), default="local",
                           help="run the sweep's points here (local) or as tasks on a Dask cluster")
            e.add_argument("--scheduler", default=None, metavar="ADDRESS",
                           help="Dask scheduler, e.g. tcp://host:8786 (default: start a LocalCluster)")
            e.add_argument("--workers", type=int, default=2, help="worker processes of the LocalCluster (default 2)")
        else:
            e.set_defaults(engine="local", scheduler=None, workers=2)
        _add_params(e, exp.parameters)


def _run_epilog() -> str:
    # names from the registry without importing the methods (--help stays light); details: `anonstudio methods`
    from anonstudio.core.algorithms import names

    return ("methods ([algorithm] name): " + ", ".join(names()) +
            "\n`anonstudio methods` says what each takes, writes and guarantees, with its parameters")


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


def _stopped_text(exc: BaseException) -> str:
    signum = _RECEIVED["signal"]
    if signum is None or signum in (signal.SIGINT, signal.SIGTERM):
        return "anonstudio: terminated" if isinstance(exc, Terminated) else "anonstudio: cancelled"
    return f"anonstudio: terminated ({signal.Signals(signum).name})"


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
