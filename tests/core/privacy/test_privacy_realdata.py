"""Verifiers on the real data in ../shared/data: Adult (30,162 rows, ARX hierarchies) and yeast proteins."""

from __future__ import annotations

import csv
import time

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.data import SequenceSet, Table
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.privacy import verify_k_anonymity, verify_output, verify_pseudo_strings

pytestmark = pytest.mark.realdata

QIS = ["age", "workclass", "sex", "education", "occupation"]


def _adult(shared_data):
    path = shared_data / "adult" / "adult.csv"
    df = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)
    table = Table(df, source=path).with_roles(QIS, ["salary-class"])
    hs = {}
    for q in QIS:
        hp = shared_data / "adult" / "hierarchies" / f"adult_hierarchy_{q}.csv"
        with open(hp, newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.reader(fh, delimiter=";") if r]
        hs[q] = Hierarchy(q, rows, source=hp)
    return table, hs


def test_adult_global_recoding_with_suppression_verifies_fast_and_a_changed_cell_fails(shared_data):
    table, hs = _adult(shared_data)
    out = table.df.copy()
    for q in QIS:
        level = 1 if hs[q].height > 1 else 0
        mapping = {leaf: hs[q].generalize(leaf, level) for leaf in hs[q].leaves}
        out[q] = out[q].map(mapping)
    sizes = out.groupby(QIS)[QIS[0]].transform("size")
    out.loc[sizes < 5, QIS] = "*"  # suppress the records of small classes
    start = time.perf_counter()
    v = verify_output({"model": "k-anonymity", "k": 5}, table, out, hs)
    elapsed = time.perf_counter() - start
    assert v.passed, v.problems
    assert v.details["records"] == 30162 and v.details["suppressed"] == int((sizes < 5).sum()) > 0
    print(f"\nAdult verified in {elapsed:.3f} s")  # timed on demand: tests/benchmarks/bench_verifiers.py

    row = int(np.flatnonzero((sizes >= 5).to_numpy())[100])
    out.loc[row, "salary-class"] = "<=50K" if table.df["salary-class"].iloc[row] != "<=50K" else ">50K"
    v = verify_k_anonymity(table, out, hs, 5)
    assert not v.passed
    assert v.problems[0].startswith(f"row {row + 1} (adult.csv:{row + 2}), column 'salary-class'")


def _fasta(path, limit=None) -> tuple[list[str], list[str]]:
    ids, seqs = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line.startswith(">"):
                ids.append(line[1:].split()[0])
                seqs.append("")
            elif line:
                seqs[-1] += line
    return ids, seqs


def test_yeast_shuffled_pseudo_strings_verify_and_a_copy_fails(shared_data):
    ids, seqs = _fasta(shared_data / "proteins" / "yeast_swissprot_1000.fasta")
    original = SequenceSet.from_strings(seqs, ids=ids, alphabet="protein-25")
    rng = np.random.default_rng(7)
    pseudo = ["".join(rng.permutation(list(s))) for s in seqs]
    headers = [f"pseudo_{i + 1} segment=1 group={i // 5 + 1}" for i in range(len(pseudo))]
    out = SequenceSet.from_strings(pseudo, ids=[h.split()[0] for h in headers], headers=headers, alphabet="protein-25")
    start = time.perf_counter()
    v = verify_pseudo_strings(original, out, k=5)
    elapsed = time.perf_counter() - start
    assert v.passed, v.problems
    # shuffled proteins share only short motifs with real ones
    assert 4 <= v.details["longest_shared_mean"] <= 12 and v.details["longest_shared_max"] < 60
    assert v.details["groups"] == 200 and v.details["smallest_group"] == 5
    print(f"\nyeast pseudo-strings verified in {elapsed:.2f} s")
    pseudo[17] = seqs[400]
    out = SequenceSet.from_strings(pseudo, ids=[h.split()[0] for h in headers], headers=headers, alphabet="protein-25")
    v = verify_pseudo_strings(original, out, k=5)
    assert not v.passed and v.problems == [f"pseudo-string 18 ('pseudo_18') is an exact copy of input record '{ids[400]}'"]
    assert v.details["longest_shared_max"] == len(seqs[400])
