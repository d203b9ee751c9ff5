"""The small Mondrian job the exit-code and recovery tests publish: an adult-like table of sex, age and race,
sex generalized by a two-line hierarchy, the pair written to ``out/o.csv`` and ``out/o.json``."""

from __future__ import annotations

from pathlib import Path

JOB = """[input]
path = "t.csv"
quasi_identifiers = ["sex", "age"]
[hierarchies]
sex = "sex.csv"
[algorithm]
name = "mondrian"
k = {k}
[output]
path = "out/o.csv"
report = "out/o.json"
"""


def write_small_job(folder: Path, rows: int, *, k: int = 5, name: str = "job.toml") -> Path:
    """``t.csv`` (``rows`` rows, seed 2), ``sex.csv`` and the job at ``k`` in ``folder``; returns the job's path."""
    from anonstudio.core.generate import adult_like_table

    adult_like_table(rows, seed=2)[["sex", "age", "race"]].to_csv(folder / "t.csv", index=False)
    (folder / "sex.csv").write_text("Male;*\nFemale;*\n")
    (folder / name).write_text(JOB.format(k=k))
    return folder / name
