"""Adult (../shared/data/adult) with the MST paper's quasi-identifiers, read with pandas (no core.io needed)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anonstudio.core.data import Table
from anonstudio.core.hierarchy import Hierarchy

QUASI_IDENTIFIERS = ["age", "workclass", "sex", "education", "occupation"]


def load_hierarchy(path: Path, attribute: str) -> Hierarchy:
    rows = [line.split(";") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return Hierarchy(attribute, rows, source=path)


def load_adult(shared_data: Path, quasi_identifiers=QUASI_IDENTIFIERS, rows: int | None = None):
    path = Path(shared_data) / "adult" / "adult.csv"
    df = pd.read_csv(path, sep=";", dtype=object, keep_default_na=False, nrows=rows)
    t = Table(df, source=path, delimiter=";").with_roles(list(quasi_identifiers), sensitive=["salary-class"])
    hs = {
        q: load_hierarchy(Path(shared_data) / "adult" / "hierarchies" / f"adult_hierarchy_{q}.csv", q)
        for q in quasi_identifiers
    }
    return t, hs


def adult_job(folder: Path, shared_data: Path, quasi_identifiers, algorithm: str) -> Path:
    """A job file in ``folder`` on Adult with ARX's hierarchies, salary-class sensitive; ``algorithm`` is the
    ``[algorithm]`` body (e.g. ``'name = "mst"\nk = 5'``); output ``out.csv`` and ``out.json`` beside it."""
    adult = Path(shared_data) / "adult"
    hier = "\n".join(f'{q} = "{adult}/hierarchies/adult_hierarchy_{q}.csv"' for q in quasi_identifiers)
    job = Path(folder) / "job.toml"
    job.write_text(
        f'[input]\npath = "{adult}/adult.csv"\nquasi_identifiers = {list(quasi_identifiers)!r}\n'
        f'sensitive = ["salary-class"]\n\n[hierarchies]\n{hier}\n\n[algorithm]\n{algorithm}\n\n'
        f'[output]\npath = "out.csv"\nreport = "out.json"\n'
    )
    return job
