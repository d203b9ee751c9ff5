"""The commands whose kinds and options the engine declares: ``generate`` (synthetic data) and ``experiment``
(a paper's experiment as CSV + PNG). Their parsers are built only when the command line names them: the
declarations import numpy, pandas and matplotlib (start-up, issue 17)."""

from __future__ import annotations

import argparse
from pathlib import Path

from anonstudio.cli._common import _add_params, _collect, _Progress, _say
from anonstudio.core.errors import AnonStudioError


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
