"""Our risk figures equal ARX's (issue 32 item 3), checked without Java against the figures ARX's public risk API
printed (``arx_risk_figures.json``, written by ``tests/benchmarks/bench_risk_vs_arx.py --record``; ARX 3.9 at
commit aacd487f): Adult (8 and 5 quasi-identifiers, the US population and sampling fractions 0.5 and 0.05), two
samples of ``anonstudio generate table``, Adult's Mondrian k = 5 release and three crafted class-size profiles.

With ``equations="arx"`` every figure equals ARX's to 1e-6. With the default (the SNB model's equations) SNB is
available where ARX's never is, and above a sampling fraction of 0.1 Dankar's rule may then take SNB where ARX's
takes Zayatz: those are the only differences, and they are asserted as such."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from anonstudio.core.generate import GENERATORS
from anonstudio.core.io import read_table
from anonstudio.core.metrics import table_risk
from anonstudio.core.risk import Histogram, resolve_population, risk_figures

from tests.benchmarks.bench_risk_vs_arx import flat_ours as flat  # our figures under the recording's names

RECORDED = json.loads((Path(__file__).with_name("arx_risk_figures.json")).read_text(encoding="utf-8"))
TOLERANCE = 1e-6


def assert_equal_to_arx(ours: dict, arx: dict, *, skip=()) -> None:
    for key, value in arx.items():
        if key in skip:
            continue
        if isinstance(value, str):
            assert ours[key] == value, key
        else:
            assert abs(ours[key] - value) <= TOLERANCE, (key, ours[key], value)


def histogram_of(recorded: dict) -> Histogram:
    h = recorded["histogram"]
    return Histogram(np.array(h[0::2], dtype=np.int64), np.array(h[1::2], dtype=np.int64))


def test_the_recording_covers_every_case():
    assert set(RECORDED) >= {"adult-8qi", "adult-5qi", "adult-8qi-f0.5", "adult-5qi-f0.05",
                             "generated-2000-seed7-8qi", "generated-2000-seed7-5qi-f0.3",
                             "generated-10000-seed3-5qi", "generated-10000-seed3-8qi-f0.2",
                             "crafted-alpha-below-0-f0.05", "crafted-every-record-unique"}
    # ARX's SNB is never available: the departure this module documents
    assert all(case["figures"]["population_uniques.snb"] == 0.0 for case in RECORDED.values())


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_figures_from_arxs_class_sizes_equal_arxs(name):
    """Every estimator on ARX's own class-size histogram of the case: the arithmetic alone, no data needed."""
    case = RECORDED[name]
    h = histogram_of(case)
    size, _ = resolve_population(h.records, sampling_fraction=case["sampling_fraction"])  # no case suppresses
    assert_equal_to_arx(flat(risk_figures(h, size, equations="arx")), case["figures"])
    model = flat(risk_figures(h, size))
    differs = {"population_uniques.snb", "population_uniques.dankar", "population_uniques.dankar.model"}
    assert_equal_to_arx(model, case["figures"], skip=differs)
    if h.of_size(1) and h.of_size(2) and h.classes < h.records:
        if (case["sampling_fraction"] or 0.0) > 0.1 and model["population_uniques.snb"] < \
                model["population_uniques.zayatz"]:
            assert model["population_uniques.dankar.model"] == "snb"  # where ARX, without SNB, takes Zayatz
        else:
            assert_equal_to_arx(model, case["figures"], skip={"population_uniques.snb"})


@pytest.mark.realdata
@pytest.mark.parametrize("name", [n for n in sorted(RECORDED) if RECORDED[n]["table"] == "adult"])
def test_adult_read_by_our_reader_gives_arxs_classes_and_figures(name, shared_data):
    case = RECORDED[name]
    table = read_table(shared_data / "adult" / "adult.csv")
    r = table_risk(table, case["quasi_identifiers"], sampling_fraction=case["sampling_fraction"], equations="arx")
    assert [x for pair in zip(r["class_sizes"]["sizes"], r["class_sizes"]["counts"]) for x in pair] == \
        case["histogram"]
    assert_equal_to_arx(flat(r), case["figures"])


@pytest.mark.parametrize("name", [n for n in sorted(RECORDED) if RECORDED[n]["table"].startswith("generated")])
def test_generated_samples_give_arxs_classes_and_figures(name, tmp_path):
    case = RECORDED[name]
    _, rows, seed = case["table"].split("-")
    path = tmp_path / "generated.csv"
    GENERATORS["table"].run(path, rows=int(rows), seed=int(seed), with_hierarchies=False)
    r = table_risk(read_table(path), case["quasi_identifiers"], sampling_fraction=case["sampling_fraction"],
                   equations="arx")
    assert [x for pair in zip(r["class_sizes"]["sizes"], r["class_sizes"]["counts"]) for x in pair] == \
        case["histogram"]
    assert_equal_to_arx(flat(r), case["figures"])
