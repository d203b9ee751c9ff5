"""What a ``global`` run tells of its lattice (issue 40 item 5), and publishing a transformation the job names.

Against the brute force of ``test_global_recoding`` (every transformation judged with pandas): every transformation
the search checked and found passing is one the brute force publishes, with the same loss, and never below the
optimum's; every one it found failing — checked, or by monotonicity — is one the brute force refuses; one it marked
anonymous by monotonicity the brute force publishes (the all-root one aside: every record is then suppressed). ``algorithm.transformation`` publishes exactly the transformation
named, verified, with the brute force's loss, and refuses (exit 1) one that fails. The lattice graph stays within its
cap and says so.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonstudio.core import jobs, views
from anonstudio.core.algorithms import get
from anonstudio.core.algorithms._lattice_search import ANONYMOUS, FAILS, NOT_ANONYMOUS, PASSES
from anonstudio.core.errors import ParameterError, PrivacyError
from tests.core.algorithms.test_global_recoding import brute_force, small_tables


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=small_tables(), k=st.integers(2, 3), share=st.sampled_from([0.0, 0.25, 1.0]),
       quality=st.sampled_from(["loss", "dm"]), data=st.data())
def test_the_lattice_a_run_reports_agrees_with_the_brute_force(case, k, share, quality, data):
    table, hierarchies, qis = case
    present = int((~table.df[qis].isna().any(axis=1)).sum())
    found = brute_force(table, hierarchies, qis, k=k, share=share, quality=quality)
    if k > present or not found:
        return
    outcome = jobs.anonymize(table, hierarchies, get("global")(k=k, quality=quality), max_suppression=share)
    nodes = views.lattice_nodes_of(outcome)
    assert nodes is not None and nodes.attributes == qis
    assert nodes.heights == [hierarchies[q].height for q in qis]
    publishable = {tuple(lv): v for v, _, _, lv in found}
    levels = nodes.levels_of(np.arange(nodes.size))
    best = min(publishable.values())
    for node, lv in enumerate(levels.tolist()):
        status = int(nodes.status[node])
        if status == PASSES:
            assert tuple(lv) in publishable
            assert nodes.loss_of(node) == pytest.approx(publishable[tuple(lv)], rel=1e-9, abs=1e-12)
            assert nodes.loss_of(node) >= best - 1e-9 * max(1.0, abs(best))
        elif status == ANONYMOUS and lv != nodes.heights:  # (every cell at its root: every record suppressed,
            assert tuple(lv) in publishable                # which the budget may not allow; the re-run checks it)
        elif status in (FAILS, NOT_ANONYMOUS):
            assert tuple(lv) not in publishable
    assert nodes.status[nodes.optimum] == PASSES
    assert {q: int(v) for q, v in zip(qis, levels[nodes.optimum])} == outcome.report["metrics"]["transformation"]

    # any publishable transformation, named by the job, is published as it is and verified
    value, _, _, chosen = found[data.draw(st.integers(0, len(found) - 1))]
    named = dict(zip(qis, chosen))
    again = jobs.anonymize(table, hierarchies, get("global")(k=k, quality=quality, transformation=named),
                     max_suppression=share)
    assert again.verification.passed
    assert again.report["metrics"]["transformation"] == named
    assert again.report["metrics"]["quality"][quality]["value"] == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert views.lattice_nodes_of(again).chosen == nodes.node_of(chosen)


def _demo():
    from anonstudio.core.views.samples import preview_outcome

    return preview_outcome("table", "global")


def test_a_transformation_that_fails_is_refused_and_a_wrong_one_named():
    outcome = _demo()
    table, hierarchies = outcome.data, outcome.hierarchies
    qis = list(table.quasi_identifiers)
    bottom = {q: 0 for q in qis}
    with pytest.raises(PrivacyError, match="the transformation named .* does not meet k = 3"):
        jobs.anonymize(table, hierarchies, get("global")(k=3, transformation=bottom), max_suppression=0.0)
    with pytest.raises(ParameterError, match="gives no level for"):
        jobs.anonymize(table, hierarchies, get("global")(k=3, transformation={qis[0]: 1}))
    with pytest.raises(ParameterError, match="not a quasi-identifier"):
        jobs.anonymize(table, hierarchies, get("global")(k=3, transformation={**bottom, "disease": 0}))
    with pytest.raises(ParameterError, match="above its hierarchy's height"):
        jobs.anonymize(table, hierarchies, get("global")(k=3, transformation={**bottom, qis[0]: 99}))
    with pytest.raises(ParameterError, match="outside min_level / max_level"):
        jobs.anonymize(table, hierarchies, get("global")(k=3, transformation=bottom, min_level={qis[0]: 1}))


def test_the_lattice_graph_joins_direct_successors_and_caps_what_it_draws():
    nodes = views.lattice_nodes_of(_demo())
    whole = views.lattice_graph(nodes)
    assert len(whole.nodes) == nodes.size and "showing" not in whole.note
    for a, b in whole.edges.tolist():  # one attribute one level up
        step = whole.levels[b] - whole.levels[a]
        assert sorted(step.tolist()) == [0] * (len(step) - 1) + [1]
    assert whole.y.tolist() == whole.levels.sum(axis=1).tolist()
    expected_edges = sum(int((whole.levels[:, a] < nodes.high[a]).sum()) for a in range(len(nodes.high)))
    assert len(whole.edges) == expected_edges
    cap = max(len(nodes.checked) // 2, 3)
    small = views.lattice_graph(nodes, cap=cap)
    assert len(small.nodes) == cap and f"showing {cap:,} of them" in small.note
    assert small.optimum >= 0 and small.status[small.optimum] == PASSES
    assert all(0 <= a < cap and 0 <= b < cap for a, b in small.edges.tolist())
    # beyond the checked ones: those fewest level steps from the optimum, so its neighbours come with their edges
    cap = min(len(nodes.checked) + 20, nodes.size - 1)
    ball = views.lattice_graph(nodes, cap=cap)
    assert len(ball.nodes) == cap and set(nodes.checked.tolist()) <= set(ball.nodes.tolist())
    optimum = ball.levels[ball.optimum]
    others = [i for i, n in enumerate(ball.nodes.tolist()) if n not in set(nodes.checked.tolist())]
    left_out = np.setdiff1d(np.arange(nodes.size), ball.nodes)
    nearest_left_out = np.abs(nodes.levels_of(left_out) - optimum).sum(axis=1).min()
    assert max(np.abs(ball.levels[others] - optimum).sum(axis=1)) <= nearest_left_out


def test_distributions_and_levels_count_what_the_release_holds():
    outcome = _demo()
    out, original = outcome.result.output.df, outcome.data.df
    for attribute in views.utility_attributes(outcome):
        d = views.distribution(outcome, attribute)
        assert d.before.counts.sum() == d.after.counts.sum() == len(original)
        if d.after.edges is None:
            assert dict(zip(d.after.labels, d.after.counts.tolist())) == \
                out[attribute].astype("string").fillna("(missing)").value_counts().to_dict()
    line = views.generalization_levels(outcome)
    for q, v in outcome.report["metrics"]["transformation"].items():
        assert f"{q}: level {v} of {outcome.hierarchies[q].height}" in line
    mondrian = jobs.anonymize(outcome.data, outcome.hierarchies, get("mondrian")(k=3))
    assert views.generalization_levels(mondrian).startswith("mixed levels — ")


def test_a_named_transformation_whose_suppressed_block_is_not_diverse_says_so():
    """Hunt 2 (C_transformation): 8 suppressed records within a budget of 20, all of one person with HIV; the '*'
    rows would show that everyone suppressed has HIV, so the transformation is refused, and the message says it is
    the block, not the budget."""
    import random
    from dataclasses import replace

    import pandas as pd

    from anonstudio.core.data import Table
    from anonstudio.core.hierarchy import grouping, intervals

    rng = random.Random(1)
    rows = [{"pid": f"P{i:03d}", "age": rng.choice(range(30, 50)), "sex": rng.choice("MF"),
             "diagnosis": rng.choice(["flu", "asthma", "diabetes", "copd", "migraine"])} for i in range(200)]
    rows += [{"pid": "P999", "age": 97, "sex": "F", "diagnosis": "HIV"}] * 8
    frame = pd.DataFrame(rows)
    table = replace(Table(frame).with_roles(["age", "sex"], sensitive=["diagnosis"], identifying=["pid"]),
                    person="pid")
    hs = {"age": intervals("age", frame["age"], [5, 10, 20]), "sex": grouping("sex", [{"any": ["M", "F"]}])}
    named = get("global")(k=5, l=2, l_kind="distinct", transformation={"age": 1, "sex": 0})
    with pytest.raises(PrivacyError, match=r"its 8 suppressed records fit the budget, but the block of suppressed rows "
                                           r"would itself fail distinct l-diversity with l = 2") as caught:
        jobs.anonymize(table, hs, named)
    assert caught.value.exit_code == 1
    # k alone: the same 8 records are suppressed and the release passes
    assert jobs.anonymize(table, hs, get("global")(k=5, transformation={"age": 1, "sex": 0})).verification.passed
