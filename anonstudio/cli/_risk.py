"""``anonstudio risk``: the re-identification risk of a table and the attacks' figures."""

from __future__ import annotations

import argparse
import json

from anonstudio.cli._common import _names, _number, _say


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
