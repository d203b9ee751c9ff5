"""CBMSA and its baseline (Sehatkar & Matwin, 004): the alignment, the clustering, (k,c)-privacy of the output."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.algorithms.cbmsa import CBMSA, CBMSABaseline, cost_state, encode_events
from anonstudio.core.data import EventLog
from anonstudio.core.errors import ParameterError
from anonstudio.core.experiments._paper_examples import P004_QIS, P004_TABLE_1, p004_hierarchies, p004_log
from anonstudio.core.generate._events import event_hierarchies, hhp_events
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.kernels import _cbmsa as kern
from anonstudio.core.privacy import verify_kc_privacy
from anonstudio.core.progress import Cancelled

#: 004 Table 1: visits of ten patients of a hospital (the engine's copy of the paper's worked example)
TABLE_1 = P004_TABLE_1
QIS = list(P004_QIS)


def table1_hierarchies() -> dict[str, Hierarchy]:
    """Our reading of 004 Fig. 1 (the engine's, shared with ``experiment reproduce``)."""
    return p004_hierarchies()


def table1() -> EventLog:
    return p004_log()


def hhp(n: int, seed: int = 1, n_qis: int = 3) -> tuple[EventLog, dict]:
    df = hhp_events(n, 5, n_qis, seed=seed)
    qis = list(df.columns[2 : 2 + n_qis])
    return EventLog(df, "PID", "VID", qis, "Disease"), event_hierarchies(qis)


def test_paper_table_1_at_k2_c05_satisfies_2_05_privacy():
    """004 Table 2 anonymizes Table 1 to (2, 0.5)-privacy with HIV highly sensitive; ours must pass the
    independent verifier at the same settings and report its loss."""
    log, h = table1(), table1_hierarchies()
    result = CBMSA(k=2, c=0.5, highly_sensitive=["HIV"]).run(log, h)
    check = verify_kc_privacy(log, result.output, h, 2, 0.5, ["HIV"])
    assert check.passed, check.failures
    m = result.metrics
    assert 0 < m["IL"] < len(QIS) * 3  # some loss, less than suppressing every event of the longest sequence
    assert m["highest_confidence"] <= 0.5
    published = result.output.df
    assert published["PID"].nunique() + m["removed_sequences"] == 10
    # the three HIV patients (6, 8, 9) cannot share one group of two: at most one per pair
    groups = dict(zip(result.details["sequence_ids"], result.details["sequence_cluster"]))
    for g in set(groups.values()) - {-1}:
        members = [s for s, x in groups.items() if x == g]
        assert len(members) >= 2
        assert sum(s in ("6", "8", "9") for s in members) <= len(members) * 0.5


def _brute_force(rep_a, rep_b, wa, wb, cost_pair, sup):
    """Minimum over every order-preserving matching of two event lists (the alignments of 004 §3)."""
    la, lb = len(rep_a), len(rep_b)
    best = np.inf
    for r in range(min(la, lb) + 1):
        for ia in itertools.combinations(range(la), r):
            for ib in itertools.combinations(range(lb), r):
                cost = sum(cost_pair(rep_a[i], rep_b[j]) for i, j in zip(ia, ib))
                cost += sum(wa * sup(rep_a[i]) for i in range(la) if i not in ia)
                cost += sum(wb * sup(rep_b[j]) for j in range(lb) if j not in ib)
                best = min(best, cost)
    return best


def test_alignment_is_the_cheapest_of_all_order_preserving_matchings():
    log, h = hhp(40, seed=3)
    enc = encode_events(log, h)
    rep, frac, packed = enc["rep"].copy(), enc["frac"], enc["packed"]
    rng = np.random.default_rng(0)
    # generalize some events so the representatives are not all leaves
    for e in rng.choice(len(rep), size=len(rep) // 3, replace=False):
        q = int(rng.integers(rep.shape[1]))
        rep[e, q] = packed.node_anc[rep[e, q], min(int(rng.integers(1, 3)), packed.node_anc.shape[1] - 1)]
    tab, climb, _ = cost_state(packed, frac, rep)
    from anonstudio.core.kernels._generalize import lca_node

    def lm(node):
        return frac[node]

    offs = enc["offsets"]
    checked = 0
    for s_a, s_b in rng.integers(0, 40, size=(60, 2)):
        if s_a == s_b:
            continue
        sa, la = int(offs[s_a]), int(min(offs[s_a + 1] - offs[s_a], 5))
        sb, lb = int(offs[s_b]), int(min(offs[s_b + 1] - offs[s_b], 5))
        wa, wb = int(rng.integers(1, 4)), int(rng.integers(1, 4))

        def pair(x, y):
            g = 0.0
            for q in range(rep.shape[1]):
                anc = lca_node(rep[x, q], rep[y, q], packed.node_anc, packed.node_level)
                g += (wa + wb) * lm(anc) - wa * lm(rep[x, q]) - wb * lm(rep[y, q])
            return g

        def sup(x):
            return sum(1.0 - lm(rep[x, q]) for q in range(rep.shape[1]))

        expected = _brute_force(list(range(sa, sa + la)), list(range(sb, sb + lb)), wa, wb, pair, sup)
        got = kern.align_cost(tab, climb, sa, la, wa, sb, lb, wb, np.empty(2 * (lb + 1)))
        assert got == pytest.approx(expected, abs=1e-9)
        # the traceback's matching costs what the DP said
        map_a, map_b = np.empty(la, dtype=np.int64), np.empty(lb, dtype=np.int64)
        count = kern._align_moves(tab, climb, sa, la, wa, sb, lb, wb, map_a, map_b)
        pairs = [(i, int(np.flatnonzero(map_b == map_a[i])[0])) for i in range(la) if map_a[i] >= 0]
        assert len(pairs) == count and [p[1] for p in pairs] == sorted(p[1] for p in pairs)
        traced = sum(pair(sa + i, sb + j) for i, j in pairs)
        traced += sum(wa * sup(sa + i) for i in range(la) if map_a[i] < 0)
        traced += sum(wb * sup(sb + j) for j in range(lb) if map_b[j] < 0)
        assert traced == pytest.approx(expected, abs=1e-9)
        checked += 1
    assert checked > 40


def test_climbing_lca_gives_the_same_costs_as_the_tables(monkeypatch):
    """An attribute with too many hierarchy nodes for a table finds LCAs by climbing: same answer."""
    log, h = hhp(120, seed=5)
    fast = CBMSA(k=4, c=0.7, highly_sensitive=["HIV"]).run(log, h)
    from anonstudio.core.algorithms import cbmsa

    monkeypatch.setattr(cbmsa, "MAX_TABLE_NODES", 50)  # DSFC (441 nodes) and ZIP (130) climb
    slow = CBMSA(k=4, c=0.7, highly_sensitive=["HIV"]).run(log, h)
    assert slow.metrics == fast.metrics
    pd.testing.assert_frame_equal(slow.output.df, fast.output.df)


@pytest.mark.parametrize("method", [CBMSA, CBMSABaseline])
@pytest.mark.parametrize(("k", "c"), [(5, 0.7), (10, 0.5), (3, 0.3)])
def test_output_satisfies_k_c_privacy_on_generated_visits(method, k, c):
    log, h = hhp(300, seed=2)
    result = method(k=k, c=c, highly_sensitive=["HIV", "Hepatitis"]).run(log, h)
    check = verify_kc_privacy(log, result.output, h, k, c, ["HIV", "Hepatitis"])
    assert check.passed, check.failures
    sizes = result.details["cluster_size"]
    assert (sizes >= k).all()
    assert (result.details["cluster_confidence"] <= c + 1e-12).all()
    # the report's IL is the per-cluster losses summed over the input sequences (004 Eq. 1)
    assert result.metrics["IL"] == pytest.approx(result.details["cluster_loss"].sum() / 300
                                                 + _removed_loss(result, log, h) / 300)


def _removed_loss(result, log, h):
    enc = encode_events(log, h)
    frac = enc["frac"]
    removed = np.flatnonzero(result.details["sequence_cluster"] < 0)
    offs = enc["offsets"]
    return sum((1.0 - frac[enc["rep"][offs[s] : offs[s + 1]]]).sum() for s in removed)


def test_frozen_clusters_stop_growing():
    """Without highly-sensitive values a cluster is frozen as soon as it reaches k: no cluster reaches 2k
    (two clusters below k merge to at most 2k - 2 sequences)."""
    log, h = hhp(400, seed=4)
    result = CBMSA(k=6, c=1.0).run(log, h)
    sizes = result.details["cluster_size"]
    assert (sizes >= 6).all() and (sizes <= 10).all()
    assert result.metrics["removed_sequences"] < 6


def test_cbmsa_loses_less_than_suppressing_everything_and_ties_are_deterministic():
    log, h = hhp(200, seed=6)
    a = CBMSA(k=5, c=0.7, highly_sensitive=["HIV"]).run(log, h)
    b = CBMSA(k=5, c=0.7, highly_sensitive=["HIV"], seed=99).run(log, h)  # seed has no effect on CBMSA
    pd.testing.assert_frame_equal(a.output.df, b.output.df)
    full = _removed_loss(type("R", (), {"details": {"sequence_cluster": np.full(200, -1)}})(), log, h) / 200
    assert a.metrics["IL"] < 0.6 * full


def test_baseline_is_reproducible_per_seed_and_random_across_seeds():
    log, h = hhp(200, seed=7)
    one = CBMSABaseline(k=5, c=0.7, seed=1).run(log, h)
    again = CBMSABaseline(k=5, c=0.7, seed=1).run(log, h)
    other = CBMSABaseline(k=5, c=0.7, seed=2).run(log, h)
    pd.testing.assert_frame_equal(one.output.df, again.output.df)
    assert not one.output.df.equals(other.output.df)


def test_equal_length_representatives_are_matched_event_by_event_by_the_baseline():
    keep = np.empty(8, dtype=np.int64)
    kern._baseline_keep(5, 5, 123, keep)
    assert list(keep[:5]) == [0, 1, 2, 3, 4]
    seen = set()
    for key in range(200):
        kern._baseline_keep(6, 3, key, keep)
        assert list(keep[:3]) == sorted(set(keep[:3])) and 0 <= keep[0] and keep[2] <= 5
        seen.add(tuple(keep[:3]))
    assert len(seen) == 20  # every 3-subset of 6 events is drawn


def test_k_larger_than_the_sequences_is_refused():
    log, h = table1(), table1_hierarchies()
    with pytest.raises(ParameterError, match=r"k = 11 is larger than the number of sequences \(10\)"):
        CBMSA(k=11, c=0.5).run(log, h)


@pytest.mark.parametrize(("params", "message"), [
    ({"k": 1}, "'k' must be ≥ 2"),
    ({"c": 0.0}, "'c'"),
    ({"c": 1.5}, "'c'"),
])
def test_nonsense_parameters_are_refused(params, message):
    with pytest.raises(ParameterError, match=message):
        CBMSA(**params)


def test_a_highly_sensitive_value_that_never_occurs_is_a_warning():
    log, h = table1(), table1_hierarchies()
    result = CBMSA(k=2, c=0.5, highly_sensitive=["HIV", "Ebola"]).run(log, h)
    assert any("'Ebola'" in w and "do not occur" in w for w in result.warnings)
    assert not any("'HIV'" in w for w in result.warnings)


def test_cancel_between_merge_rounds():
    log, h = hhp(300, seed=8)
    seen = []

    def progress(fraction, message):
        seen.append(fraction)
        if "still merging" in message:
            raise Cancelled()

    with pytest.raises(Cancelled):
        CBMSA(k=5, c=0.7).run(log, h, progress)
    assert max(seen) < 0.96 and any(f >= 0.45 for f in seen)


def test_removing_many_sequences_is_a_warning_not_a_silent_pass():
    """Every patient carries HIV and c = 0.5: no group can keep the bound, so nothing can be published —
    the output is empty and (trivially) private, and the run says so loudly."""
    df = pd.read_csv(io.StringIO(TABLE_1), dtype=str).assign(Disease="HIV")
    log, h = EventLog(df, "PID", "VID", QIS, "Disease"), table1_hierarchies()
    result = CBMSA(k=2, c=0.5, highly_sensitive=["HIV"]).run(log, h)
    assert result.metrics["removed_sequences"] == 10 and len(result.output.df) == 0
    assert any("10 of 10 sequences were removed" in w for w in result.warnings)


def test_leftover_merge_publishes_table_1_whole_where_the_paper_rule_removes_two():
    """004's rule removes the last cluster (patients 8 and 9, both HIV, at k = 2, c = 0.5); the paper's own
    Table 2 publishes all ten. ``leftover = "merge"`` joins it to the closest finished cluster that still
    satisfies (k,c): all ten published, less loss, and the verifier agrees."""
    log, h = table1(), table1_hierarchies()
    paper = CBMSA(k=2, c=0.5, highly_sensitive=["HIV"]).run(log, h)
    merged = CBMSA(k=2, c=0.5, highly_sensitive=["HIV"], leftover="merge").run(log, h)
    assert paper.metrics["removed_sequences"] == 2
    assert merged.metrics["removed_sequences"] == 0 and merged.output.df["PID"].nunique() == 10
    assert merged.metrics["IL"] < paper.metrics["IL"]
    assert verify_kc_privacy(log, merged.output, h, 2, 0.5, ["HIV"]).passed
    assert any('leftover = "merge"' in note for note in merged.notes)


@pytest.mark.parametrize("method", [CBMSA, CBMSABaseline])
def test_leftover_merge_keeps_k_c_privacy_on_generated_visits(method):
    log, h = hhp(300, seed=2)
    for k, c in ((10, 0.7), (5, 0.3)):
        run = method(k=k, c=c, highly_sensitive=["HIV", "Hepatitis"], leftover="merge").run(log, h)
        check = verify_kc_privacy(log, run.output, h, k, c, ["HIV", "Hepatitis"])
        assert check.passed, check.failures
        assert (run.details["cluster_size"] >= k).all() and (run.details["cluster_confidence"] <= c + 1e-12).all()


@pytest.mark.parametrize("method", [CBMSA, CBMSABaseline])
def test_published_events_are_numbered_one_to_m_and_original_numbers_are_refused(method):
    """The output kept each event's original number (VID): a sequence's gaps showed which of its events were
    suppressed, and 159 of the demo's 300 sequences could be told apart inside their groups of identical QI
    sequences, yet (k,c)-privacy passed (third false-pass hunt, 2026-11-26)."""
    log, h = hhp(300, seed=2)
    result = method(k=5, c=0.7, highly_sensitive=["HIV", "Hepatitis"]).run(log, h)
    assert result.metrics["suppressed_events"] > 0  # there were gaps to show
    out = result.output.df
    by_sequence = out.groupby(out["PID"].astype(str), sort=False)
    numbers = pd.to_numeric(out["VID"]).to_numpy()
    assert (numbers == by_sequence.cumcount().to_numpy() + 1).all()
    assert verify_kc_privacy(log, result.output, h, 5, 0.7, ["HIV", "Hepatitis"]).passed
    rows = next(r for r in by_sequence.indices.values() if len(r) >= 2)
    gapped = out.copy()
    gapped.loc[rows[-1], "VID"] = str(len(rows) + 1)  # 1, 2, ..., m-1, m+1: an event suppressed before the last
    verdict = verify_kc_privacy(log, gapped, h, 5, 0.7, ["HIV", "Hepatitis"])
    assert not verdict.passed
    assert any("published event order" in p and f"not 1..{len(rows)}" in p for p in verdict.problems)
