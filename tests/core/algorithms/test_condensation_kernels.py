"""Issue 17 item 5: the faster condensation kernels compute what the plain ones compute, draw for draw.

CreateGroups (Fig. 3, §4.2) with the Eq. 3 distances of a block of centroids at once, and the order-2
generation (§4.3) from statistics tabulated once per position, must give the same groups and the same
pseudo-strings as one centroid at a time and one string at a time: same seed, same output."""

from __future__ import annotations

import numpy as np
import pytest

import anonstudio.core.algorithms._condensation_steps as steps
from anonstudio.core.algorithms.condensation import Condensation, convert_length, create_groups
from anonstudio.core.data import SequenceSet
from anonstudio.core.kernels import _condensation as K


def _strings(n, lo, hi, seed, letters="ACDEFGHIKLMNPQRSTVWY", motif=None):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        s = "".join(rng.choice(list(letters), int(rng.integers(lo, hi + 1))))
        if motif and rng.random() < 0.5:  # near-duplicates make close distances and ties
            cut = int(rng.integers(0, len(s)))
            s = s[:cut] + motif + s[cut:]
        out.append(s)
    return out


AA = "ACDEFGHIKLMNPQRSTVWY"


@pytest.mark.parametrize("seed,k,letters", [(1, 5, AA), (2, 3, "ACGT"), (3, 7, AA)])
def test_block_distances_give_the_groups_of_one_centroid_at_a_time(monkeypatch, seed, k, letters):
    data = SequenceSet.from_strings(_strings(230, 40, 70, seed, letters, motif="WWPPGGHH"[: len(letters) + 2]))
    tpl = convert_length(data, np.arange(len(data)))
    blocked = create_groups(tpl, k, len(data.alphabet), np.random.default_rng(seed))
    monkeypatch.setattr(steps, "_BLOCK", 0)
    plain = create_groups(tpl, k, len(data.alphabet), np.random.default_rng(seed))
    assert np.array_equal(blocked.labels, plain.labels)
    assert blocked.objective == plain.objective  # bit for bit: the same sums in the same order
    assert (blocked.moved, blocked.dissolved, blocked.reassignment_kept) == (
        plain.moved, plain.dissolved, plain.reassignment_kept)
    assert blocked.count == plain.count and np.bincount(blocked.labels).min() >= k


def test_block_distances_equal_template_distance():
    data = SequenceSet.from_strings(_strings(60, 20, 45, 4))
    tpl = convert_length(data, np.arange(60))
    ptr, mem = K.group_members(np.arange(60) % 7, 7)
    cents = np.zeros((tpl.length, len(data.alphabet), 7))
    K.fill_block(tpl.symbols, tpl.values, ptr, mem, np.arange(7), 7, cents)
    out = np.empty((60, 7))
    K.block_distances(tpl.symbols, tpl.values, np.arange(60), 60, cents, 7, out)
    dense = np.zeros((tpl.length, len(data.alphabet)))
    for g in range(7):
        members = mem[ptr[g]:ptr[g + 1]]
        K.add_centroid(tpl.symbols, tpl.values, members, len(members), dense)
        want = [K.template_distance(tpl.symbols, tpl.values, t, dense) for t in range(60)]
        K.clear_centroid(tpl.symbols, members, len(members), dense)
        assert out[:, g].tolist() == want


@pytest.mark.parametrize("letters,n_members", [("ACDEFGHIKLMNPQRSTVWY", 20), ("ACGT", 9), (None, 12)])
def test_tabulated_order2_generation_draws_the_same_strings(letters, n_members):
    rng = np.random.default_rng(n_members)
    if letters is None:  # an item alphabet: more symbols than a group holds
        tokens = [f"i{j}" for j in range(300)]
        strings = [list(rng.choice(tokens, int(rng.integers(15, 25)))) for _ in range(n_members)]
    else:
        strings = _strings(n_members, 30, 75, n_members, letters)
    data = SequenceSet.from_strings(strings)
    for length in (None, 50, 17):  # the group's own length, longer, shorter (ConvertLength, §3)
        tpl = convert_length(data, np.arange(n_members), length)
        members = rng.permutation(n_members).astype(np.int64)
        uniforms = rng.random((n_members + 5, tpl.length))
        uniforms[0, :] = 0.0  # the die's edges
        uniforms[1, :] = np.nextafter(1.0, 0.0)
        plain = np.zeros((n_members + 5, tpl.length), np.int32)
        tabulated = np.zeros_like(plain)
        K.generate_group(tpl.symbols, tpl.values, members, 2, uniforms, len(data.alphabet), plain)
        K.generate_group_order2(tpl.symbols, tpl.values, members, uniforms, len(data.alphabet), tabulated)
        assert np.array_equal(plain, tabulated)


def test_a_run_is_the_same_with_the_plain_kernels(monkeypatch):
    data = SequenceSet.from_strings(_strings(300, 30, 120, 9, motif="WWPPGGHHCC"), alphabet="protein-20")
    fast = Condensation(k=6, seed=3).run(data, {})
    monkeypatch.setattr(steps, "_BLOCK", 0)
    real = steps._kernels

    class Plain:  # order 2 through the general order-s kernel
        def __getattr__(self, name):
            return getattr(real(), name)

        def generate_group_order2(self, tsym, tval, mem, uniforms, n_symbols, out):
            real().generate_group(tsym, tval, mem, 2, uniforms, n_symbols, out)

    monkeypatch.setattr(steps, "_kernels", lambda: Plain())
    plain = Condensation(k=6, seed=3).run(data, {})
    assert np.array_equal(fast.output.codes, plain.output.codes)
    assert np.array_equal(fast.groups, plain.groups)
    assert fast.details["segments"] == plain.details["segments"]
