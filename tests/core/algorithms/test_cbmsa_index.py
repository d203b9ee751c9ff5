"""CBMSA's neighbour index (issue 42 item 3): k-d-tree blocks of similar sequences instead of all pairs."""

from __future__ import annotations

import numpy as np
import pytest

from anonstudio.core.algorithms import cbmsa as cbmsa_module
from anonstudio.core.algorithms._neighbour_index import kd_blocks
from anonstudio.core.algorithms.cbmsa import CBMSA, CBMSABaseline
from anonstudio.core.data import EventLog
from anonstudio.core.errors import ParameterError
from anonstudio.core.generate._events import event_hierarchies, hhp_events
from anonstudio.core.privacy import verify_kc_privacy

QIS = ["AdmYr", "ZIP", "DSFC"]


def hhp(n: int, seed: int = 3) -> tuple[EventLog, dict]:
    return EventLog(hhp_events(n, 5, 3, seed=seed), "PID", "VID", QIS, "Disease"), event_hierarchies(QIS)


def test_index_release_passes_the_verifier_and_stays_near_the_exact_loss():
    log, h = hhp(600)
    exact = CBMSA(k=5, c=0.7, highly_sensitive=["HIV"], neighbours="exact").run(log, h)
    index = CBMSA(k=5, c=0.7, highly_sensitive=["HIV"], neighbours="index", block_size=150).run(log, h)
    assert verify_kc_privacy(log, index.output, h, 5, 0.7, ["HIV"]).passed
    # four blocks of 150 of 600 sequences: measured +5.4 %; at 10k sequences in blocks of 1,000 see the benchmark
    assert index.metrics["IL"] <= 1.10 * exact.metrics["IL"]
    assert any("neighbours = \"index\"" in note for note in index.notes)
    # every sequence is published in a group of at least k or counted as removed
    groups = index.groups
    published = groups[groups >= 0]
    assert np.bincount(published).min() >= 5
    assert (groups < 0).sum() == index.metrics["removed_sequences"]


def test_index_is_deterministic_and_the_baseline_runs_on_it_too():
    log, h = hhp(300, seed=5)
    one = CBMSA(k=4, c=0.7, highly_sensitive=["HIV"], neighbours="index", block_size=80).run(log, h)
    two = CBMSA(k=4, c=0.7, highly_sensitive=["HIV"], neighbours="index", block_size=80).run(log, h)
    assert one.output.df.equals(two.output.df)
    base = CBMSABaseline(k=4, c=0.7, highly_sensitive=["HIV"], neighbours="index", block_size=80).run(log, h)
    assert verify_kc_privacy(log, base.output, h, 4, 0.7, ["HIV"]).passed


def test_auto_and_a_block_holding_everything_are_the_exact_search():
    log, h = hhp(200, seed=7)
    exact = CBMSA(k=5, c=0.7, highly_sensitive=["HIV"], neighbours="exact").run(log, h)
    auto = CBMSA(k=5, c=0.7, highly_sensitive=["HIV"]).run(log, h)
    whole = CBMSA(k=5, c=0.7, highly_sensitive=["HIV"], neighbours="index", block_size=500).run(log, h)
    assert auto.output.df.equals(exact.output.df)
    assert whole.output.df.equals(exact.output.df)


def test_leftover_merge_applies_to_the_last_pool():
    log, h = hhp(400, seed=11)
    res = CBMSA(k=5, c=0.7, highly_sensitive=["HIV"], neighbours="index", block_size=100,
                leftover="merge").run(log, h)
    assert verify_kc_privacy(log, res.output, h, 5, 0.7, ["HIV"]).passed
    assert res.metrics["removed_sequences"] <= 4


def test_exact_search_too_large_is_refused_naming_the_index(monkeypatch):
    log, h = hhp(300, seed=2)
    monkeypatch.setattr(cbmsa_module, "MAX_MATRIX_BYTES", 1000)
    with pytest.raises(ParameterError, match="neighbours = \"index\"") as err:
        CBMSA(k=5, c=0.7, neighbours="exact").run(log, h)
    assert err.value.key == "algorithm.neighbours"
    # the index needs only a block's matrix at a time
    res = CBMSA(k=5, c=0.7, neighbours="index", block_size=15).run(log, h)
    assert res.metrics["clusters"] > 0


def test_kd_blocks_cover_every_row_once_in_blocks_of_similar_points():
    rng = np.random.default_rng(0)
    points = np.concatenate([rng.normal(0, 1, (500, 3)), rng.normal(50, 1, (500, 3))])
    blocks = kd_blocks(points, 128)
    rows = np.concatenate(blocks)
    assert sorted(rows.tolist()) == list(range(1000))
    assert all(64 <= len(b) <= 128 for b in blocks)
    # the two far-apart clouds never share a block
    assert all(len(set((b >= 500).tolist())) == 1 for b in blocks)
