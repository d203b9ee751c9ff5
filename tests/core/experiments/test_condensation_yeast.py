"""Condensation on real proteins: 1,000 yeast Swiss-Prot strings, k = 20, ε = 1.5, order 2 (the paper's YST setting)."""

from __future__ import annotations

import numpy as np
import pytest

from anonstudio.core.algorithms.condensation import Condensation
from anonstudio.core.io import read_fasta

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def yeast(shared_data):
    return read_fasta(shared_data / "proteins" / "yeast_swissprot_1000.fasta")


@pytest.fixture(scope="module")
def condensed(yeast):
    alg = Condensation(k=20, epsilon=1.5, order=2, seed=1)
    res = alg.run(yeast, {})
    return alg, res, alg.evaluate(yeast, res, {})


def test_composition_is_kept(condensed):
    _, _, m = condensed
    assert m["CD"] <= 0.05  # the paper reports 3–5 % (Eq. 5)


def test_no_input_is_published_and_groups_hold_k(yeast, condensed):
    _, res, m = condensed
    assert m["exact_copies"] == 0
    assert not set(yeast.strings()) & set(res.output.strings())
    assert m["group_size"]["min"] >= 20
    # every kept input string is represented by exactly one pseudo-string of its group
    assert len(res.output) == int((res.groups >= 0).sum()) == len(yeast) - res.suppressed
    assert not set(yeast.ids) & {tok for h in res.output.headers for tok in h.split()}


def test_suppression_of_both_segmentations_is_reported(condensed):
    _, res, _ = condensed
    sup = res.metrics["suppressed_by_segmentation"]
    assert sup["optimal"] <= sup["greedy"] == res.suppressed
    assert sup["greedy"] < 10  # only the few longest proteins fit no ε-range of 20 strings


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_distance_ordering_meets_the_target(yeast, seed):
    # Eq. 6 over all strings of 20 sampled group pairs: at least 0.90 preserved (the target, the paper's
    # "> 90 %"); measured 0.974 / 0.989 / 0.995 at seeds 1 / 2 / 3
    alg = Condensation(k=20, epsilon=1.5, order=2, seed=seed)
    m = alg.evaluate(yeast, alg.run(yeast, {}), {})
    assert m["distance_order_preserved"] >= 0.90
    assert m["distance_order_pairs"] == 20


def test_pseudo_strings_have_their_groups_mean_length(yeast, condensed):
    _, res, _ = condensed
    out = res.output
    for gid in np.unique(out.extra["groups"])[:10]:
        members = np.flatnonzero(res.groups == gid)
        lengths = set(out.lengths[out.extra["groups"] == gid].tolist())
        assert lengths == {int(np.ceil(yeast.lengths[members].mean()))}


def test_segment_length_is_the_papers_setting_and_loses_the_ordering(yeast, condensed):
    # §4.3 as printed: every pseudo-string of a segment has the segment's template length, so group pairs of the
    # same two segments have nearly equal Gdist and their order is a coin toss (0.84–0.91 measured by seed)
    alg = Condensation(k=20, epsilon=1.5, order=2, seed=1, length="segment")
    res = alg.run(yeast, {})
    for info in res.details["segments"]:
        seg_lengths = res.output.lengths[res.output.extra["segments"] == info["segment"]]
        assert set(seg_lengths.tolist()) == {info["template_length"]}
    m = alg.evaluate(yeast, res, {})
    assert m["distance_order_preserved"] < condensed[2]["distance_order_preserved"]


def test_fragments_are_reported_against_chance(condensed):
    _, _, m = condensed
    frag = m["longest_shared_substring"]
    assert frag["random_mean"] > 3 and frag["pseudo_mean"] >= frag["random_mean"]
    assert frag["pseudo_max"] < 60  # no long stretch of an input survives
