"""Mondrian (LeFevre et al. 2006): strict median / hierarchy cuts, k and entropy l-diversity respected,
cells are hierarchy labels, clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import algorithms
from anonstudio.core.algorithms.mondrian import Mondrian
from anonstudio.core.data import Table
from anonstudio.core.errors import ParameterError, PrivacyError
from anonstudio.core.hierarchy import Hierarchy
from tests.core import _paper002 as P
from tests.core.algorithms.test_mst_recoding import _random_case


def _age_table(ages, sens=None):
    rows = [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(0, 100)]
    hs = {"age": Hierarchy("age", rows)}
    cols = {"age": [str(a) for a in ages]}
    if sens is not None:
        cols["s"] = sens
    t = Table(pd.DataFrame(cols, dtype=object)).with_roles(["age"], sensitive=["s"] if sens is not None else None)
    return t, hs


def test_registered_under_its_job_name():
    assert algorithms.get("mondrian") is Mondrian


def test_median_cut_on_numbers_then_hierarchy_labels():
    t, hs = _age_table([11, 12, 13, 14, 21, 22, 23, 24])
    res = Mondrian(k=4, max_suppression=0).run(t, hs)
    assert res.output.df["age"].tolist() == ["10-19"] * 4 + ["20-29"] * 4
    res = Mondrian(k=2, max_suppression=0).run(t, hs)  # four parts of two; each still generalizes to its decade node
    assert res.output.df["age"].tolist() == ["10-19"] * 4 + ["20-29"] * 4
    assert np.bincount(res.groups).tolist() == [2, 2, 2, 2]
    res = Mondrian(k=5, max_suppression=0).run(t, hs)  # no cut keeps 5 on both sides
    assert set(res.output.df["age"]) == {"*"}


def test_categorical_cuts_follow_the_hierarchy():
    res = Mondrian(k=3, max_suppression=0).run(P.table(), P.hierarchies())
    out = res.output.df
    assert out.groupby(["Gender", "Age", "Zip-code"]).size().min() >= 3
    assert (out["Gender"] != "Person").all()  # gender is cut into Male / Female
    res_h = Mondrian(k=3, numeric_split="hierarchy", max_suppression=0).run(P.table(), P.hierarchies())
    assert res_h.output.df.groupby(["Gender", "Age", "Zip-code"]).size().min() >= 3


def test_nearest_cut_takes_the_allowable_boundary_when_the_median_is_not():
    # with k alone the edges of the median's run are the best boundaries; with l-diversity they may fail:
    # left of the median a, a, a, b is not entropy 2-diverse ...
    t, hs = _age_table([11, 12, 13, 14, 21, 22, 23, 24], ["a", "a", "a", "b", "b", "b", "a", "b"])
    assert set(Mondrian(k=2, l=2, cut="paper", max_suppression=0).run(t, hs).output.df["age"]) == {"*"}
    # ... the nearest boundary that is (a, a, a, b, b, b | a, b) is taken
    res = Mondrian(k=2, l=2, max_suppression=0).run(t, hs)
    assert np.bincount(res.groups).tolist() == [6, 2]
    assert res.output.df["age"].tolist() == ["*"] * 6 + ["20-29"] * 2


def test_nearest_cut_pools_children_too_small_to_stand_alone():
    rows = [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["c1", "C", "*"]]
    hs = {"x": Hierarchy("x", rows)}
    values = ["a1"] * 3 + ["a2"] * 3 + ["b1"] * 2 + ["c1"] * 2
    t = Table(pd.DataFrame({"x": values}, dtype=object)).with_roles(["x"])
    assert set(Mondrian(k=3, cut="paper", max_suppression=0).run(t, hs).output.df["x"]) == {"*"}  # B and C hold 2 each
    out = Mondrian(k=3, max_suppression=0).run(t, hs).output.df["x"].tolist()
    # A stands alone (and splits into a1 / a2); B and C are pooled under their LCA
    assert out == ["a1"] * 3 + ["a2"] * 3 + ["*"] * 4


@pytest.mark.parametrize("cut", ["paper", "nearest"])
@pytest.mark.parametrize("seed", range(6))
def test_random_tables_k_anonymous_with_lca_cells(seed, cut):
    rng = np.random.default_rng(300 + seed)
    t, hs = _random_case(rng, int(rng.integers(20, 200)))
    k = int(rng.integers(2, 8))
    res = Mondrian(k=k, cut=cut, max_suppression=0).run(t, hs)
    assert np.bincount(res.groups).min() >= k
    for attr in t.quasi_identifiers:
        for g in np.unique(res.groups):
            rows = res.groups == g
            assert set(res.output.df[attr][rows]) == {hs[attr].lca(t.df[attr][rows])[1]}


def test_entropy_l_diversity_constraint():
    rng = np.random.default_rng(5)
    ages = rng.integers(0, 100, 400)
    sens = [["flu", "hiv", "cancer", "none"][i] for i in rng.integers(0, 4, 400)]
    t, hs = _age_table(ages, sens)
    alg = Mondrian(k=4, l=3, max_suppression=0)
    res = alg.run(t, hs)
    assert alg.privacy_model() == {"model": "k-anonymity", "k": 4, "l": 3.0, "l_kind": "entropy", "sensitive": "s"}
    for _, grp in res.output.df.groupby("age"):
        p = grp["s"].value_counts(normalize=True).to_numpy()
        assert -(p * np.log(p)).sum() >= np.log(3) - 1e-9
    plain = Mondrian(k=4, max_suppression=0).run(t, hs)
    assert plain.groups.max() > res.groups.max()  # the constraint blocks some cuts
    with pytest.raises(PrivacyError, match="cannot be met"):
        Mondrian(k=4, l=5).run(t, hs)


def test_bad_input():
    t, hs = _age_table([1, 2, 3])
    with pytest.raises(ParameterError, match="k = 4 is larger"):
        Mondrian(k=4).run(t, hs)
    with pytest.raises(ParameterError, match="needs exactly one sensitive attribute"):
        Mondrian(k=2, l=2).run(t, hs)
    with pytest.raises(ParameterError, match="'l' must be ≥ 1"):
        Mondrian(k=2, l=0.5)
