"""The paper's experiments (000 §5) run on small data: each writes its CSV with the expected columns and a PNG."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.algorithms.condensation import knn_original_vs_pseudo

from anonstudio.core.experiments import EXPERIMENTS


@pytest.fixture(scope="module")
def small_fasta(tmp_path_factory):
    rng = np.random.default_rng(1)
    letters = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    path = tmp_path_factory.mktemp("fa") / "small.fasta"
    with open(path, "w") as fh:
        for i in range(160):
            n = int(rng.integers(30, 120))
            fh.write(f">p{i} test protein\n{''.join(rng.choice(letters, n))}\n")
    return path


def _check(paths, columns):
    csv = next(p for p in paths if p.suffix == ".csv")
    png = next(p for p in paths if p.suffix == ".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    df = pd.read_csv(csv)
    assert list(df.columns) == columns
    assert len(df) > 0
    return df


def test_all_paper_experiments_are_registered():
    assert {"condensation-composition", "condensation-cd", "condensation-ordering", "condensation-knn",
            "condensation-order", "condensation-scaling"} <= set(EXPERIMENTS)


def test_composition(tmp_path, small_fasta):
    cmd = EXPERIMENTS["condensation-composition"]
    paths = cmd.run(tmp_path, **cmd.parameters.validate({"input": str(small_fasta), "k": 10}))
    df = _check(paths, ["index", "symbol", "original", "pseudo", "CD"])
    assert df["original"].sum() == pytest.approx(1.0) and df["pseudo"].sum() == pytest.approx(1.0)
    assert df["CD"].iloc[0] == pytest.approx(np.abs(df["original"] - df["pseudo"]).sum())


def test_cd_vs_group_size(tmp_path, small_fasta):
    cmd = EXPERIMENTS["condensation-cd"]
    paths = cmd.run(tmp_path, **cmd.parameters.validate({"input": str(small_fasta), "group_sizes": "5,20"}))
    df = _check(paths, ["group_size", "CD", "groups", "suppressed"])
    assert df["group_size"].tolist() == [5, 20]
    assert (df["CD"] < 0.2).all()


def test_ordering_vs_group_size(tmp_path, small_fasta):
    cmd = EXPERIMENTS["condensation-ordering"]
    params = cmd.parameters.validate({"input": str(small_fasta), "group_sizes": "5,10", "pairs": 6,
                                      "strings_per_group": 3})
    df = _check(cmd.run(tmp_path, **params),
                ["group_size", "length", "distance_order_preserved", "group_pairs", "scoring"])
    assert df["distance_order_preserved"].between(0, 1).all()
    # one curve per pseudo-string length mode: the default group length and §4.3's segment length
    assert df[["length", "group_size"]].values.tolist() == [["group", 5], ["group", 10], ["segment", 5],
                                                             ["segment", 10]]


def test_ordering_refuses_an_unknown_length_mode(tmp_path, small_fasta):
    from anonstudio.core.errors import ParameterError

    cmd = EXPERIMENTS["condensation-ordering"]
    params = cmd.parameters.validate({"input": str(small_fasta), "group_sizes": "5", "lengths": "group,median"})
    with pytest.raises(ParameterError, match="'lengths'.*median"):
        cmd.run(tmp_path, **params)


def test_missing_input_is_a_clear_error(tmp_path):
    from anonstudio.core.errors import ParameterError

    cmd = EXPERIMENTS["condensation-cd"]
    with pytest.raises(ParameterError, match="--input"):
        cmd.run(tmp_path, **cmd.parameters.validate({}))


def test_knn_vs_group_size(tmp_path):
    cmd = EXPERIMENTS["condensation-knn"]
    params = cmd.parameters.validate({"D": 150, "group_sizes": "5,10", "test_size": 30})
    cols = ["group_size", "order", "classifier", "accuracy_original", "accuracy_pseudo", "accuracy_original_shuffled",
            "test", "train"]
    df = _check(cmd.run(tmp_path, **params), cols)
    assert df["accuracy_original"].between(0, 1).all() and df["accuracy_pseudo"].between(0, 1).all()
    assert set(df["classifier"]) == {"knn"}
    # the control is computed once per split: the same at every group size
    assert df["accuracy_original_shuffled"].nunique() == 1
    wav = _check(cmd.run(tmp_path / "w", **{**params, "classifier": "wavrule"}), cols)
    assert set(wav["classifier"]) == {"wavrule"} and wav["accuracy_pseudo"].between(0, 1).all()


def test_higher_orders(tmp_path):
    cmd = EXPERIMENTS["condensation-order"]
    params = cmd.parameters.validate({"D": 120, "k": 8, "orders": "2,3", "test_size": 20})
    df = _check(cmd.run(tmp_path, **params),
                ["group_size", "order", "classifier", "accuracy_original", "accuracy_pseudo",
                 "accuracy_original_shuffled", "test", "train", "CD"])
    assert df["order"].tolist() == [2, 3]


def test_scaling(tmp_path):
    cmd = EXPERIMENTS["condensation-scaling"]
    params = cmd.parameters.validate({"lengths": "5,10", "sizes": "200,400", "fixed_size": 300, "k": 10})
    df = _check(cmd.run(tmp_path, **params),
                ["varied", "T", "D", "mean_length", "seconds", "cpu_seconds", "groups", "suppressed"])
    assert df["varied"].tolist() == ["length", "length", "size", "size"]
    assert (df["seconds"] > 0).all() and (df["cpu_seconds"] > 0).all()


def test_quest_two_class_knn_pool_size():
    """§5.1: V20.I6-style data (two Quest instances, 1,000 items), group size 20. With Quest's default pool of
    2,000 patterns the original-trained classifier is near the paper's ≈ 85 % (measured 0.88), and the
    pseudo-trained one falls about 13 points below it (0.76): the paper's "within about 4 %" does not hold,
    as REPRODUCTION.md says. A pool of 100 (the generator's old default) makes the two instances trivially
    separable (1.00 / 0.98) — the reason it once looked reproduced."""
    from anonstudio.core.experiments._condensation import quest_two_classes

    quest = quest_two_classes(1000, 20, 6, 1000, 1)
    r = knn_original_vs_pseudo(quest, k=20, seed=1, test_size=300, n_neighbors=5)
    assert r["test"] == 300 and 0.8 < r["accuracy_original"] < 0.95
    assert 0.08 < r["accuracy_original"] - r["accuracy_pseudo"] < 0.2
    small = knn_original_vs_pseudo(quest_two_classes(1000, 20, 6, 1000, 1, patterns=100), k=20, seed=1,
                                   test_size=300, n_neighbors=5)
    assert small["accuracy_original"] > 0.97 and small["accuracy_original"] - small["accuracy_pseudo"] <= 0.04
