"""The suppression budget every local generalizing method spends (issue 31 item 1): within max_suppression, an
outlier whose suppression lowers the quality model's loss is suppressed instead of widening its class; never
beyond the budget; never under a class model (dm), where a suppressed record costs n."""

from __future__ import annotations

import numpy as np
import pytest

from anonstudio.core import algorithms, jobs
from anonstudio.core.metrics import release_quality
from anonstudio.core.privacy import verify_output
from tests.core.algorithms.test_local_recoding import _x_table
from tests.core.algorithms.test_mst_recoding import _random_case

METHODS = ["local", "mondrian", "kmember", "mst"]
#: three a1, one a2 (its only sibling: the class a1 + a2 is published as A), three b1, three b2
VALUES = ["a1"] * 3 + ["a2"] + ["b1"] * 3 + ["b2"] * 3


@pytest.mark.parametrize("name", ["local", "mondrian"])
def test_the_outlier_is_suppressed_within_the_budget(name):
    t, hs = _x_table(VALUES)
    method = algorithms.get(name)
    without = method(k=3, max_suppression=0).run(t, hs)
    assert without.suppressed == 0 and without.output.df["x"].tolist() == ["A"] * 4 + ["b1"] * 3 + ["b2"] * 3
    outcome = jobs.anonymize(t, hs, method(k=3), max_suppression=0.1)  # 10 % of 10 records: one
    assert outcome.verification.passed
    assert outcome.result.output.df["x"].tolist() == ["a1"] * 3 + ["*"] + ["b1"] * 3 + ["b2"] * 3
    assert outcome.report["suppressed"] == 1 and outcome.report["metrics"]["suppressed_outliers"] == 1
    assert any("1 record was suppressed as outlier" in note for note in outcome.report["notes"])
    # 5 % of 10 records is no record; under DM a suppressed record costs n: a2 stays, its class is A
    assert method(k=3, max_suppression=0.05).run(t, hs).suppressed == 0
    dm = method(k=3, max_suppression=0.1, quality="dm").run(t, hs)
    assert dm.suppressed == 0 and dm.output.df["x"].tolist()[:4] == ["A"] * 4


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("seed", range(4))
def test_the_budget_lowers_the_loss_and_is_never_exceeded(name, seed):
    rng = np.random.default_rng(1100 + seed)
    t, hs = _random_case(rng, int(rng.integers(60, 200)))
    method = algorithms.get(name)
    # NCP: an arithmetic mean of cell costs, which the budget lowers exactly (ARX's Loss, a geometric mean over
    # the attributes, it lowers to first order only)
    without = method(k=4, max_suppression=0, quality="ncp").run(t, hs)
    spent = method(k=4, max_suppression=0.1, quality="ncp").run(t, hs)
    assert without.metrics["suppressed_outliers"] == 0
    assert spent.metrics["suppressed_outliers"] <= int(0.1 * len(t))
    # the records each method suppressed are exactly the outliers (no missing value here), and the rest still
    # holds k: the verifier, told to allow any suppression (classes at the root count as suppressed too)
    assert spent.suppressed == spent.metrics["suppressed_outliers"]
    model = {"model": "k-anonymity", "k": 4, "max_suppression": 1.0}
    assert verify_output(model, t, spent.output, hs).passed
    qis = t.quasi_identifiers
    loss = [release_quality(t, r.output, qis, hs)["ncp"]["normalized"] for r in (without, spent)]
    assert loss[1] <= loss[0] + 1e-9  # the budget is spent only where the loss goes down
    dm = method(k=4, max_suppression=0.1, quality="dm").run(t, hs)
    assert dm.metrics["suppressed_outliers"] == 0


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("seed", range(4))
def test_outliers_and_classes_at_the_root_stay_within_the_limit_together(name, seed):
    # a class generalized to the root of every quasi-identifier is suppressed in the verifier's eyes: the budget
    # is what is left of max_suppression after it, so outliers and such classes together stay within the limit
    rng = np.random.default_rng(1300 + seed)
    t, hs = _random_case(rng, int(rng.integers(30, 80)), d=4)
    res = algorithms.get(name)(k=6, max_suppression=0.2).run(t, hs)
    out = res.output.df[t.quasi_identifiers]
    at_root = int(((out == "*").all(axis=1) & (res.groups >= 0)).sum())
    if at_root <= int(0.2 * len(t)):  # (the method's classes alone may exceed it: not the budget's doing)
        assert at_root + res.metrics["suppressed_outliers"] <= int(0.2 * len(t))
        assert verify_output({"model": "k-anonymity", "k": 6, "max_suppression": 0.2}, t, res.output, hs).passed
