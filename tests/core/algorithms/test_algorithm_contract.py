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


def _events_sample():
    from anonstudio.core.data import EventLog
    from anonstudio.core.generate import event_hierarchies, hhp_events

    qis = ["AdmYr", "ZIP", "DSFC"]
    return EventLog(hhp_events(90, 4, 3, seed=5), "PID", "VID", qis, "Disease"), event_hierarchies(qis)


SAMPLES = {"table": _table_sample, "fasta": _fasta_sample, "events": _events_sample}
METHODS = algorithms.available()


def test_every_kind_of_data_has_a_sample():
    assert {c.data_kind for c in METHODS} <= set(SAMPLES)


def _make(cls, **extra):
    names = cls.parameters.names()
    params = {"k": 4} if "k" in names else ({"l": 3} if "l" in names else {})
    if "seed" in cls.parameters.names():
        params["seed"] = 11
    params.update(extra)
    return cls(**params)


def _output_frame(out):
    from anonstudio.core.data import EventLog

    if isinstance(out, (Table, EventLog)):
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
    """A bounded parameter below its minimum is refused by name when the method is built (the group size k,
    or l for anatomy, where there is one: then also one larger than the data, when it runs); an unknown key
    is refused by name."""
    data, hier = SAMPLES[cls.data_kind]()
    names = cls.parameters.names()
    bounded = [p for p in cls.parameters if p.kind in ("int", "float") and p.low is not None and p.name != "seed"]
    size = "k" if "k" in names else "l" if "l" in names else None
    param = next(p for p in bounded if p.name == size) if size else (bounded[0] if bounded else None)
    if param is not None:
        with pytest.raises(AnonStudioError, match=rf"parameter '{param.name}' must be"):
            _make(cls, **{param.name: param.low - 1})
    else:  # no bounded number (random anonymization): a choice it does not offer
        choice = next(p for p in cls.parameters if p.kind in ("choice", "weights"))
        with pytest.raises(AnonStudioError, match=rf"'{choice.name}'"):
            _make(cls, **{choice.name: "no-such-choice"})
    if size:
        with pytest.raises(AnonStudioError, match=rf"\b{size}\b"):
            _make(cls, **{size: 10_000}).run(data, hier)
    with pytest.raises(AnonStudioError, match="unknown parameter 'nonsense'"):
        _make(cls, nonsense=1)
