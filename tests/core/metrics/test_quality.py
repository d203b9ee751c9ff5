"""Quality models (core/metrics/_quality.py) measured on a release worked out by hand, and their promises: the
bound a search prunes with never exceeds the value, weights count as documented, and every table method's
report carries every model with its definition."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import jobs
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.metrics import release_quality
from anonstudio.core.metrics._quality import MODELS, ClassSummary, Loss


def _hand_case():
    """a: x1 x2 | x3 x4 under g1 | g2 under * (height 2, 4 leaves); b: m f under * (height 1). Six records;
    the first four published as two classes (g1, m) and (g2, f), the last two suppressed."""
    ha = Hierarchy("a", [["x1", "g1", "*"], ["x2", "g1", "*"], ["x3", "g2", "*"], ["x4", "g2", "*"]])
    hb = Hierarchy("b", [["m", "*"], ["f", "*"]])
    original = pd.DataFrame({"a": ["x1", "x2", "x3", "x4", "x1", "x3"], "b": ["m", "m", "f", "f", "f", "m"]})
    output = pd.DataFrame({"a": ["g1", "g1", "g2", "g2", "*", "*"], "b": ["m", "m", "f", "f", "*", "*"]})
    return Table(original).with_roles(["a", "b"]), Table(output), {"a": ha, "b": hb}


def test_every_model_on_a_release_worked_out_by_hand():
    original, output, hs = _hand_case()
    q = release_quality(original, output, ["a", "b"], hs)
    # LM per cell (leaves − 1) / (4 − 1): a = (4 · 1/3 + 2 · 1) / 6 = 5/9, b = (0 + 2) / 6 = 1/3
    assert q["loss"]["by_attribute"] == pytest.approx({"a": 5 / 9, "b": 1 / 3})
    assert q["loss"]["value"] == pytest.approx(math.sqrt((1 + 5 / 9) * (1 + 1 / 3)) - 1)
    assert q["ncp"]["value"] == pytest.approx((5 / 9 + 1 / 3) / 2)
    # level / height: a = (4 · 1/2 + 2) / 6, b = 2 / 6
    assert q["precision"]["value"] == pytest.approx((2 / 3 + 1 / 3) / 2)
    # classes of 2 and 2, two suppressed records costing n = 6 each
    assert q["dm"]["value"] == 20.0 and q["dm"]["normalized"] == pytest.approx(14 / 30)
    assert q["aecs"]["value"] == 2.0 and q["aecs"]["normalized"] == pytest.approx(0.2)
    # non-uniform entropy: log2(records under the published node / records with the value)
    lost_a = 2 * math.log2(3 / 2) + 2 * math.log2(3) + 2 * math.log2(3)
    most_a = 4 * math.log2(3) + 2 * math.log2(6)
    assert q["entropy"]["by_attribute"] == pytest.approx({"a": lost_a / most_a, "b": 2 / 6})
    for entry in q.values():
        assert entry["definition"] and entry["reference"] and entry["title"]


def test_weights_are_relative_to_the_largest_and_unnamed_attributes_weigh_one():
    original, output, hs = _hand_case()
    q = release_quality(original, output, ["a", "b"], hs, weights={"a": 3.0})
    # weights divided by the largest: a 1, b 1/3
    assert q["ncp"]["value"] == pytest.approx((5 / 9 + 1 / 9) / (4 / 3))
    assert q["loss"]["value"] == pytest.approx(math.sqrt((1 + 5 / 9) * (1 + 1 / 9)) - 1)
    assert q["dm"]["value"] == 20.0  # a class model: weights do not apply


def test_loss_rounds_each_attribute_down_to_ten_decimals_as_arx_compares():
    x = np.array([[0.123456789012345, 0.5], [0.1234567890, 0.5]])
    values = Loss().aggregate(x, np.ones(2))
    assert values[0] == values[1]


def test_a_record_with_a_missing_quasi_identifier_counts_as_suppressed():
    original, output, hs = _hand_case()
    original.df.loc[4, "a"] = None  # record 5 is suppressed anyway: its loss cells cost 1 either way
    q = release_quality(original, output, ["a", "b"], hs)
    assert q["loss"]["by_attribute"]["a"] == pytest.approx(5 / 9)
    assert q["dm"]["value"] == 20.0


def test_class_bounds_never_exceed_the_value_of_any_generalization():
    """The floor of a partition bounds the value of every coarser partition after its classes below k are
    suppressed (what the lattice search prunes with)."""
    rng = np.random.default_rng(1)
    for _ in range(300):
        sizes = rng.integers(1, 20, rng.integers(1, 30))
        n = int(sizes.sum())
        k = int(rng.integers(2, min(8, n) + 1)) if n >= 2 else 1  # k ≤ n, as the method checks before searching
        floor = ClassSummary(n, 0, min(len(sizes), n // k), float((sizes * np.maximum(sizes, k)).sum()))
        merged = np.bincount(rng.integers(0, len(sizes), len(sizes)), weights=sizes).astype(np.int64)
        for coarser in (sizes, merged[merged > 0]):  # the partition itself, and one merging its classes
            after = ClassSummary.from_sizes(coarser[coarser >= k], int(coarser[coarser < k].sum()))
            for name in ("dm", "aecs"):
                assert MODELS[name].bound(floor) <= MODELS[name].value(after) + 1e-9


@pytest.mark.parametrize("method", ["mondrian", "kmember", "mst", "global"])
def test_every_table_method_reports_every_model(method):
    from anonstudio.core.generate import adult_hierarchies, adult_like_table

    qis = ["age", "sex", "education"]
    table = Table(adult_like_table(200, seed=2)).with_roles(qis)
    outcome = jobs.anonymize(table, adult_hierarchies(qis), get(method)(k=5))
    metrics = outcome.report["metrics"]
    assert set(metrics["quality"]) == set(MODELS)
    assert metrics["suppressed_records"] == metrics["suppressed"] == outcome.report["suppressed"]
    for entry in metrics["quality"].values():
        assert 0.0 <= entry["normalized"] <= 1.0
    assert metrics["quality"]["dm"]["value"] == metrics["DM"]  # one discernibility, two names
