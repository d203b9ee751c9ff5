"""What the papers' experiments share: parsing a list of numbers from the command line or the form, reading
the Adult table with ARX's hierarchies from ``../shared/data/adult``, and refusing to start without a package
only an experiment needs."""

from __future__ import annotations

import importlib
from dataclasses import replace
from pathlib import Path

from anonstudio.core.errors import InputError, NotAvailableError, ParameterError

_REPO = Path(__file__).resolve().parents[3]
#: the optional extra (pyproject.toml) that installs what only some experiments use
EXPERIMENTS_EXTRA = "anonstudio[experiments]"


def require_packages(experiment: str, packages: dict[str, str]) -> None:
    """Stop ``experiment`` before it starts (exit 2) when a package only experiments need is not installed;
    ``packages`` maps each import name to what the experiment uses it for."""
    missing = []
    for name, use in packages.items():
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(f"{name} ({use})")
    if missing:
        raise NotAvailableError(f"experiment '{experiment}' needs {', '.join(missing)}, which is not installed: "
                                f"pip install '{EXPERIMENTS_EXTRA}'")


def numbers(values, name: str, cast, low, high=None) -> list:
    """``values`` (strings or numbers) cast with ``cast`` and checked to lie in ``[low, high]``."""
    out = []
    for v in values:
        try:
            x = cast(str(v).strip())
        except ValueError:
            kind = "whole numbers" if cast is int else "numbers"
            raise ParameterError(f"'{name}' must be {kind} separated by commas, got '{v}'", column=name) from None
        if x < low or (high is not None and x > high):
            bound = f"≥ {low}" if high is None else f"in [{low}, {high}]"
            raise ParameterError(f"'{name}' values must be {bound}, got {x}", column=name)
        out.append(x)
    return out


def default_data_dir() -> Path | None:
    """``../shared/data/adult`` beside the repository, if present."""
    d = (_REPO / ".." / "shared" / "data" / "adult").resolve()
    return d if (d / "adult.csv").is_file() else None


def read_adult(data: str, hierarchies: str, rows: int, qis: list[str], sensitive: list[str] | None = None,
               *, data_dir=None):
    """``(table, hierarchies)``: Adult with the roles set (``qis`` quasi-identifying, ``sensitive``) and
    ARX's hierarchy of every quasi-identifier, each checked to cover its column. ``data``: the CSV or its
    folder ('' = :func:`default_data_dir`, or ``data_dir()`` when given); ``rows`` > 0 keeps the first rows."""
    from anonstudio.core.io import read_hierarchy, read_table

    if data:
        path = Path(data)
    else:
        found = (data_dir or default_data_dir)()
        if found is None:
            raise InputError(
                f"Adult data not found at {(_REPO / '..' / 'shared' / 'data' / 'adult').resolve()}: "
                "give the folder or CSV with --data"
            )
        path = found
    csv = path / "adult.csv" if path.is_dir() else path
    if not csv.is_file():
        raise InputError("data file not found", file=csv)
    hdir = Path(hierarchies) if hierarchies else csv.parent / "hierarchies"
    table = read_table(csv)
    if rows > 0:
        table = replace(table, df=table.df.iloc[:rows].reset_index(drop=True), types=dict(table.types))
    missing = [q for q in list(qis) + list(sensitive or []) if q not in table.df.columns]
    if missing:
        raise InputError(f"no column named {', '.join(repr(m) for m in missing)}", file=csv, column=missing[0])
    table = table.with_roles(qis, sensitive=sensitive)
    hs = {}
    for q in qis:
        hpath = hdir / f"adult_hierarchy_{q}.csv"
        if not hpath.is_file():
            raise InputError(f"hierarchy of '{q}' not found (expected adult_hierarchy_{q}.csv)", file=hpath, column=q)
        h = read_hierarchy(hpath, attribute=q)
        h.check_covers(table.df[q].dropna().astype(str).unique().tolist(), data_file=csv)
        hs[q] = h
    return table, hs
