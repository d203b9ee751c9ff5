"""Issue 39 item 10: the share of inputs whose own condensation group an attacker holding the input finds."""

from __future__ import annotations

import numpy as np

from anonstudio.core.data import SequenceSet
from anonstudio.core.metrics import own_group_found


def _set(strings: list[str]) -> SequenceSet:
    return SequenceSet.from_strings(strings, ids=[f"s{i}" for i in range(len(strings))], alphabet="protein-20")


def test_groups_of_different_positional_make_up_are_found_and_alike_ones_are_not():
    rng = np.random.default_rng(3)
    letters = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    # group 0: A-rich first half, group 1: W-rich first half; the same length, the same overall letters
    def member(rich: str) -> str:
        head = "".join(rng.choice([rich, *letters], size=40, p=[0.5, *([0.5 / 20] * 20)]))
        return head + "".join(rng.choice(letters, size=40))
    inputs = _set([member("A") for _ in range(5)] + [member("W") for _ in range(5)])
    pseudo = _set([member("A") for _ in range(5)] + [member("W") for _ in range(5)])
    groups = np.array([0] * 5 + [1] * 5)
    own = own_group_found(inputs, groups, pseudo, groups)
    assert own == {"inputs": 10, "found": 10, "share": 1.0, "bins": 128}
    # with the group labels of the pseudo-strings swapped, the attacker's best guess is always the other group
    assert own_group_found(inputs, groups, pseudo, 1 - groups)["found"] == 0
    # inputs without a group (refused) are not counted
    assert own_group_found(inputs, np.array([-1] * 5 + [1] * 5), pseudo, groups)["inputs"] == 5


def test_length_tells_groups_of_one_make_up_apart():
    rng = np.random.default_rng(5)
    letters = list("ACDEFGHIKLMNPQRSTVWY")
    short = ["".join(rng.choice(letters, size=50)) for _ in range(6)]
    long = ["".join(rng.choice(letters, size=400)) for _ in range(6)]
    inputs = _set(short[:3] + long[:3])
    pseudo = _set(short[3:] + long[3:])
    groups = np.array([0, 0, 0, 1, 1, 1])
    assert own_group_found(inputs, groups, pseudo, groups)["share"] == 1.0
