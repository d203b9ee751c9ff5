"""Genuine and crafted random-anonymization outputs for the randomness checks (issue 28, item 4): the
configurations a real run may have, and the deterministic maps an attacker may publish instead. Shared by
``test_ra_randomness.py`` and ``tests/benchmarks/bench_ra_randomness.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from anonstudio.core.algorithms import get
from anonstudio.core.data import Table

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "anonstudio" / "resources" / "demo" / "adult-sample.csv"
ADULT = ROOT.parent / "shared" / "data" / "adult" / "adult.csv"

#: a custom weights mapping; salary-class left out is never redrawn
CUSTOM = {"age": 0.4, "education": 0.2, "sex": 0.1, "marital-status": 0.1, "workclass": 0.1, "race": 0.05,
          "native-country": 0.05}

#: (label, method, parameters): every way a job may redraw
CONFIGS = [
    ("ra entropy", "ra", {"weights": "entropy"}),
    ("ra uniform", "ra", {"weights": "uniform"}),
    ("ra custom", "ra", {"weights": CUSTOM}),
    ("ra-enhanced k=3", "ra-enhanced", {"attributes_per_record": 3}),
    ("ra entropy shuffle", "ra", {"weights": "entropy", "draws": "shuffle"}),
    ("ra uniform shuffle", "ra", {"weights": "uniform", "draws": "shuffle"}),
    ("ra custom shuffle", "ra", {"weights": CUSTOM, "draws": "shuffle"}),
    ("ra-enhanced k=3 shuffle", "ra-enhanced", {"attributes_per_record": 3, "draws": "shuffle"}),
]


def table_of(path: Path) -> Table:
    """Occupation sensitive, the other eight columns quasi-identifiers (001 §7.1)."""
    from anonstudio.core.io import read_table

    t = read_table(path)
    return t.with_roles([c for c in t.df.columns if c != "occupation"], ["occupation"])


def genuine(table: Table, method: str, params: dict, seed: int) -> tuple[dict, pd.DataFrame]:
    """The job's privacy spec and the method's own output for ``seed``."""
    alg = get(method)(seed=seed, bias_runs=0, **params)
    return alg.privacy_model(), alg.run(table, {}).output.df


def _next_value(values: pd.Series) -> dict:
    """Each age to the next larger age the column holds (the largest has none and stays)."""
    ordered = sorted(set(values.dropna()), key=float)
    return dict(zip(ordered, ordered[1:]))


def _cyclic_permutation(values: pd.Series) -> dict:
    """A fixed permutation of the column's values without a fixed point: each to the next in sorted order."""
    ordered = sorted(set(values.dropna()))
    return dict(zip(ordered, ordered[1:] + ordered[:1]))


def crafted(table: Table, output: pd.DataFrame, spec: dict, seed: int) -> dict[str, pd.DataFrame]:
    """Outputs that keep every value in its column's domain and at most one changed value per record, so
    the exact checks pass them, but were mapped, not drawn:

    - ``sex flipped``: the input with every record's sex flipped;
    - ``age next (every record)``: the input with every age moved to the next larger age;
    - ``age next (changed cells)``: ``output`` (a real run) with every changed age set to the next larger age
      than the old one — the share of changed cells is the real run's;
    - ``education permuted (job's share)``: a fixed permutation of the education values applied to a random
      share of records equal to the job's chance of redrawing education; the other records as in ``output``
      with their education kept;
    - ``education permuted (redrawn cells)``: ``output`` with every changed education set to the permuted old
      value (the real run's share);
    - ``age rotated (multiset kept)``, ``education rotated (multiset kept)``: ``output`` with the changed cells'
      new values rearranged by a fixed rule that keeps the multiset (:func:`_rotated`);
    - ``unchanged``: the input as it is.
    """
    src = table.df
    rng = np.random.default_rng(seed)
    out = {}
    flip = src.copy()
    flip["sex"] = np.where(src["sex"] == "Male", "Female", "Male")
    out["sex flipped"] = flip
    nxt = _next_value(src["age"])
    every = src.copy()
    every["age"] = src["age"].map(lambda a: nxt.get(a, a))
    out["age next (every record)"] = every
    moved = (output["age"] != src["age"]).to_numpy()
    changed = output.copy()
    changed.loc[moved, "age"] = src["age"][moved].map(lambda a: nxt.get(a, a)).to_numpy()
    out["age next (changed cells)"] = changed
    perm = _cyclic_permutation(src["education"])
    from anonstudio.core.privacy._random import _collision_and_entropy
    from anonstudio.core.privacy._randomness import redraw_chances

    qis = list(table.quasi_identifiers)
    entropies = {q: _collision_and_entropy(src[q].astype(str).to_numpy())[1] for q in qis}
    chance = redraw_chances(entropies, spec.get("weights"), spec.get("max_changed", 1))["education"]
    pick = rng.random(len(src)) < chance
    share = output.copy()
    share["education"] = src["education"].to_numpy()
    share.loc[pick, qis] = src.loc[pick, qis].to_numpy()
    share.loc[pick, "education"] = src["education"][pick].map(perm).to_numpy()
    out["education permuted (job's share)"] = share
    redrawn = (output["education"] != src["education"]).to_numpy()
    same_share = output.copy()
    same_share.loc[redrawn, "education"] = src["education"][redrawn].map(perm).to_numpy()
    out["education permuted (redrawn cells)"] = same_share
    for column in ("age", "education"):
        out[f"{column} rotated (multiset kept)"] = _rotated(src, output, column)
    out["unchanged"] = src.copy()
    return out


def partly_mapped(src: pd.DataFrame, output: pd.DataFrame, column: str, share: float, seed: int,
                  keep_values: bool) -> pd.DataFrame:
    """``output`` (a real run) with a deterministic map applied to a random ``share`` of ``column``'s changed
    cells, the rest as drawn: age to the next larger age, education by the fixed permutation — or, with
    ``keep_values`` (what a shuffle must keep), those cells' new values rearranged among them by the rank of
    their old values (:func:`_rotated`'s rule: sorted, rotated by the largest class)."""
    rng = np.random.default_rng(seed)
    moved = np.flatnonzero((output[column] != src[column]).to_numpy())
    pick = np.sort(rng.choice(moved, size=max(2, int(round(share * len(moved)))), replace=False))
    out = output.copy()
    where = out.columns.get_loc(column)
    if keep_values:  # the picked cells' new values, sorted, given to the cells sorted by old value
        key = (lambda v: v.astype(float)) if column == "age" else (lambda v: v)
        old = src[column].to_numpy()[pick]
        new = output[column].to_numpy()[pick]
        matched = np.empty(len(pick), dtype=object)
        largest = int(pd.Series(new).value_counts().max())
        matched[np.argsort(key(old), kind="stable")] = np.roll(new[np.argsort(key(new), kind="stable")], largest)
        out.iloc[pick, where] = matched
        return out
    mapping = _next_value(src["age"]) if column == "age" else _cyclic_permutation(src[column])
    out.iloc[pick, where] = src[column].iloc[pick].map(lambda v: mapping.get(v, v)).to_numpy()
    return out


def _rotated(src: pd.DataFrame, output: pd.DataFrame, column: str) -> pd.DataFrame:
    """``output`` with the new values of ``column``'s changed cells rearranged deterministically: the cells
    sorted by old value receive the same multiset of values sorted and rotated by the largest class, so each
    old value goes to the next values in order, none to itself, and the column's values (its marginal) are
    kept as they were — what a shuffle must keep."""
    moved = np.flatnonzero((output[column] != src[column]).to_numpy())
    old = src[column].to_numpy()[moved]
    order = np.argsort(old, kind="stable")
    largest = int(pd.Series(old).value_counts().max()) if len(old) else 0
    new = np.empty(len(moved), dtype=object)
    new[order] = np.roll(old[order], largest)
    rotated = output.copy()
    rotated.iloc[moved, rotated.columns.get_loc(column)] = new
    return rotated


def kept_combinations(table: Table, output: pd.DataFrame) -> float:
    """The share of records whose every quasi-identifier is published as it was."""
    qis = list(table.quasi_identifiers)
    same = (output[qis].astype(str).to_numpy() == table.df[qis].astype(str).to_numpy()).all(axis=1)
    return float(same.mean())
