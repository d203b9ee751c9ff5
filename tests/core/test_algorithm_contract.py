"""One contract, run against every method the engine offers (scikit-learn's parametrize_with_checks idea):
the output passes the independent verifier, a fixed seed reproduces it, cancelling stops it, and bad
parameters raise a clear error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import algorithms, jobs
from anonstudio.core.data import SequenceSet, Table
from anonstudio.core.errors import AnonStudioError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.progress import Cancelled


def _table_sample():
    rng = np.random.default_rng(7)
    n = 120
    ages = rng.integers(20, 60, n)
    sex = rng.choice(["M", "F"], n)
    zips = rng.choice(["53528", "53529", "53531", "53532", "47677", "47678"], n)
    disease = rng.choice(["flu", "cancer", "hiv", "cold"], n)
    df = pd.DataFrame({"age": ages.astype(str), "sex": sex, "zip": zips, "disease": disease}, dtype=object)
    table = Table(df).with_roles(["age", "sex", "zip"], ["disease"])
    age_rows = [[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 60)]
    hier = {
        "age": Hierarchy("age", age_rows),
        "sex": Hierarchy("sex", [["M", "*"], ["F", "*"]]),
        "zip": Hierarchy("zip", [[z, z[:4] + "*", z[:3] + "**", "*"] for z in sorted(set(zips))]),
    }
    return table, hier


def _fasta_sample():
    rng = np.random.default_rng(3)
    letters = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    seqs = ["".join(rng.choice(letters, int(rng.integers(60, 90)))) for _ in range(80)]
    return SequenceSet.from_strings(seqs, alphabet="protein-20"), {}


SAMPLES = {"table": _table_sample, "fasta": _fasta_sample}
METHODS = [c for c in algorithms.available() if c.data_kind in SAMPLES]


def _make(cls, **extra):
    names = cls.parameters.names()
    params = {"k": 4} if "k" in names else ({"l": 3} if "l" in names else {})
    if "seed" in cls.parameters.names():
        params["seed"] = 11
    params.update(extra)
    return cls(**params)


def _output_frame(out):
    if isinstance(out, Table):
        return out.df.reset_index(drop=True)
    if isinstance(out, SequenceSet):
        return pd.DataFrame({"h": out.headers, "s": out.strings()})
    return out


@pytest.mark.parametrize("cls", METHODS, ids=lambda c: c.name)
def test_output_passes_the_independent_verifier(cls):
    data, hier = SAMPLES[cls.data_kind]()
    outcome = jobs.run(data, hier, _make(cls))
    assert outcome.verification.passed
    assert outcome.report["verification"]["passed"] is True
    assert outcome.report["algorithm"] == cls.name
    size = _make(cls).params.get("k") or _make(cls).params.get("l") or 1  # the group size the method promises
    assert outcome.report["groups"]["min_size"] >= size or outcome.report["groups"]["count"] == 0


@pytest.mark.parametrize("cls", METHODS, ids=lambda c: c.name)
def test_fixed_seed_reproduces_the_output(cls):
    data, hier = SAMPLES[cls.data_kind]()
    a = _make(cls).run(data, hier)
    b = _make(cls).run(data, hier)
    pd.testing.assert_frame_equal(_output_frame(a.output), _output_frame(b.output))
    np.testing.assert_array_equal(a.groups, b.groups)


@pytest.mark.parametrize("cls", METHODS, ids=lambda c: c.name)
def test_cancel_stops_the_run(cls):
    data, hier = SAMPLES[cls.data_kind]()
    calls = []

    def progress(fraction, message):
        calls.append(fraction)
        if len(calls) >= 2:
            raise Cancelled()

    with pytest.raises(Cancelled):
        _make(cls).run(data, hier, progress)


@pytest.mark.parametrize("cls", METHODS, ids=lambda c: c.name)
def test_bad_parameters_raise_clear_errors(cls):
    data, hier = SAMPLES[cls.data_kind]()
    with pytest.raises(AnonStudioError, match="'k'"):
        _make(cls, k=1)
    with pytest.raises(AnonStudioError, match="k"):
        _make(cls, k=10_000).run(data, hier)
