"""Synthetic data generators: reproducible, shaped like the data they imitate, with covering hierarchies."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from anonstudio.core import generate as gen
from anonstudio.core import io
from anonstudio.core.errors import ParameterError
from anonstudio.core.hierarchy import Hierarchy

# Measured from ../shared/data/adult/adult.csv (30,162 records) and the 6,049 yeast Swiss-Prot proteins.
ADULT_MALE_SHARE = 20380 / 30162
ADULT_AGE_MEAN = 38.44
ADULT_RICH_SHARE = 7508 / 30162
YEAST_COUNTS = {
    "L": 279286, "S": 263906, "K": 215472, "I": 192640, "E": 191475, "N": 180800, "T": 173669, "D": 171368,
    "V": 163152, "A": 161165, "G": 145859, "R": 130510, "F": 130230, "P": 128556, "Q": 115998, "Y": 99420,
    "H": 63790, "M": 61252, "C": 37272, "W": 30543,
}


def _composition(seqs) -> np.ndarray:
    c = Counter("".join(seqs))
    v = np.array([c[a] for a in gen.AMINO_ACIDS], dtype=float)
    return v / v.sum()


YEAST = np.array([YEAST_COUNTS[a] for a in gen.AMINO_ACIDS], dtype=float)
YEAST /= YEAST.sum()


@pytest.fixture(scope="module")
def big_table() -> pd.DataFrame:
    return gen.adult_like_table(20000, seed=5)


# -- reproducibility --------------------------------------------------------------------------------------
def test_every_generator_is_reproducible_from_its_seed():
    pd.testing.assert_frame_equal(gen.adult_like_table(300, 1), gen.adult_like_table(300, 1))
    assert not gen.adult_like_table(300, 1).equals(gen.adult_like_table(300, 2))
    assert gen.protein_like(20, 1, mean_length=100) == gen.protein_like(20, 1, mean_length=100)
    assert gen.protein_like(20, 1, mean_length=100)[1] != gen.protein_like(20, 2, mean_length=100)[1]
    pd.testing.assert_frame_equal(gen.hhp_events(100, 5, 4, 1), gen.hhp_events(100, 5, 4, 1))
    assert not gen.hhp_events(100, 5, 4, 1).equals(gen.hhp_events(100, 5, 4, 2))
    assert gen.quest_sequences(50, 20, 4, 20, 1) == gen.quest_sequences(50, 20, 4, 20, 1)
    assert gen.quest_sequences(50, 20, 4, 20, 1) != gen.quest_sequences(50, 20, 4, 20, 2)


# -- Adult-like table -------------------------------------------------------------------------------------
def test_table_has_adults_columns_as_strings_and_any_size():
    df = gen.adult_like_table(7, seed=0)
    assert list(df.columns) == ["sex", "age", "race", "marital-status", "education", "native-country",
                                "workclass", "occupation", "salary-class"]
    assert len(df) == 7
    assert all(isinstance(v, str) for v in df.to_numpy().ravel())
    assert len(gen.adult_like_table(1, seed=0)) == 1


def test_table_marginals_are_adults(big_table):
    df = big_table
    assert (df["sex"] == "Male").mean() == pytest.approx(ADULT_MALE_SHARE, abs=0.015)
    assert df["age"].astype(int).mean() == pytest.approx(ADULT_AGE_MEAN, abs=0.5)
    assert df["age"].astype(int).between(17, 90).all()
    assert (df["salary-class"] == ">50K").mean() == pytest.approx(ADULT_RICH_SHARE, abs=0.015)
    assert (df["native-country"] == "United-States").mean() == pytest.approx(27504 / 30162, abs=0.015)
    assert "Never-worked" not in set(df["workclass"])


def test_table_keeps_adults_correlations(big_table):
    df = big_table
    age = df["age"].astype(int)
    married = df["marital-status"] == "Married-civ-spouse"
    assert married[age < 25].mean() < 0.1 and married[(age >= 35) & (age < 55)].mean() > 0.5
    rich = df["salary-class"] == ">50K"
    degree = df["education"].isin(["Bachelors", "Masters", "Doctorate", "Prof-school"])
    assert rich[degree].mean() > 2.5 * rich[df["education"] == "HS-grad"].mean()
    assert rich[degree & married].mean() > rich[degree & ~married].mean() + 0.3
    female = df["sex"] == "Female"
    assert female[df["occupation"] == "Adm-clerical"].mean() > 0.6
    assert female[df["occupation"] == "Craft-repair"].mean() < 0.1
    prof = df["occupation"] == "Prof-specialty"
    assert prof[degree].mean() > 4 * prof[df["education"] == "HS-grad"].mean()


@pytest.mark.realdata
def test_table_is_close_to_the_real_adult_data(shared_data):
    real = pd.read_csv(shared_data / "adult" / "adult.csv", sep=";", dtype=str)
    fake = gen.adult_like_table(len(real), seed=3)
    for col in real.columns:
        p = real[col].value_counts(normalize=True)
        q = fake[col].value_counts(normalize=True).reindex(p.index, fill_value=0)
        assert 0.5 * (p - q).abs().sum() < 0.03, col
    for edu in ["HS-grad", "Some-college", "Bachelors", "Masters"]:
        r = (real.loc[real["education"] == edu, "salary-class"] == ">50K").mean()
        f = (fake.loc[fake["education"] == edu, "salary-class"] == ">50K").mean()
        assert f == pytest.approx(r, abs=0.05), edu


def test_table_hierarchies_cover_every_value_with_arx_structure(big_table):
    hs = gen.adult_hierarchies()
    assert set(hs) == set(big_table.columns)
    for col, h in hs.items():
        assert isinstance(h, Hierarchy) and h.root_label == "*"
        assert h.missing(big_table[col]) == []
    age = hs["age"]
    assert age.ancestors_of("37") == ["37", "35-39", "30-39", "20-39", "*"]
    assert hs["education"].ancestors_of("Masters") == ["Masters", "Graduate", "Higher education", "*"]
    assert hs["native-country"].generalize("Mexico", 1) == "North America"


# -- proteins ---------------------------------------------------------------------------------------------
def test_proteins_have_yeast_composition_and_swissprot_like_lengths():
    ids, seqs = gen.protein_like(600, seed=4)
    assert len(ids) == len(set(ids)) == len(seqs) == 600
    assert set("".join(seqs)) <= set(gen.AMINO_ACIDS)
    assert all(s[0] == "M" for s in seqs)
    assert np.abs(_composition(seqs) - YEAST).sum() < 0.03
    lengths = np.array([len(s) for s in seqs])
    assert lengths.min() >= 30 and lengths.max() <= 5000
    assert lengths.mean() == pytest.approx(450, rel=0.12)
    assert np.median(lengths) < lengths.mean()  # right-skewed, as Swiss-Prot


def test_protein_length_bounds_and_bias_are_honoured():
    _, seqs = gen.protein_like(200, seed=1, mean_length=120, min_length=50, max_length=200)
    lengths = [len(s) for s in seqs]
    assert min(lengths) >= 50 and max(lengths) <= 200
    hydro = set(gen._proteins.HYDROPHOBIC)
    share = lambda ss: sum(c in hydro for c in "".join(ss)) / len("".join(ss))  # noqa: E731
    _, tilted = gen.protein_like(200, seed=1, mean_length=120, hydrophobic_bias=0.5)
    assert share(tilted) > share(seqs) + 0.05
    with pytest.raises(ParameterError, match="mean_length"):
        gen.protein_like(5, seed=1, mean_length=10)


@pytest.mark.realdata
def test_protein_composition_matches_the_real_yeast_file(shared_data):
    text = (shared_data / "proteins" / "yeast_swissprot_1000.fasta").read_text()
    real = [line for line in text.splitlines() if not line.startswith(">")]
    _, seqs = gen.protein_like(400, seed=9)
    assert np.abs(_composition(seqs) - _composition(real)).sum() < 0.04


def test_labelled_proteins_interleave_classes():
    ids, seqs, labels = gen.labelled_proteins(10, seed=1, classes=2, mean_length=80)
    assert labels[:4] == ["A", "B", "A", "B"] and labels.count("B") == 10
    assert len(set(ids)) == 20


# -- HHP-like events --------------------------------------------------------------------------------------
def test_events_have_004s_structure():
    df = gen.hhp_events(3000, mean_events=5, n_qis=4, seed=2)
    assert list(df.columns) == ["PID", "VID", "AdmYr", "ZIP", "DSFC", "LOS", "Disease"]
    sizes = df.groupby("PID", sort=False).size()
    assert len(sizes) == 3000 and sizes.min() >= 1
    assert sizes.mean() == pytest.approx(5, abs=0.15)
    vid = df["VID"].astype(int)
    assert (vid.groupby(df["PID"]).diff().fillna(1) == 1).all()  # 1, 2, 3 … per patient
    year = df["AdmYr"].astype(int)
    assert (year.groupby(df["PID"]).diff().fillna(0) >= 0).all()  # visits in time order
    first_in_year = ~df.duplicated(["PID", "AdmYr"])
    assert (df.loc[first_in_year, "DSFC"] == "0").all()
    assert (df.loc[~first_in_year, "DSFC"].astype(int) >= 0).all()
    carriers = df.loc[df["Disease"] == "HIV", "PID"].nunique() / 3000
    assert 0.02 < carriers < 0.06
    assert set(gen.HIGHLY_SENSITIVE) <= set(df["Disease"])
    assert df["LOS"].astype(int).between(1, 90).all()


def test_events_carrier_shares_are_a_parameter():
    """004 Table 1 has HIV in 3 and Hepatitis in 2 of 10 patients; the generator's default is 4 % and 5 %."""
    df = gen.hhp_events(3000, mean_events=5, n_qis=3, seed=4, carriers=(0.3, 0.2))
    shows = {v: df.loc[df["Disease"] == v, "PID"].nunique() / 3000 for v in gen.HIGHLY_SENSITIVE}
    assert shows["HIV"] == pytest.approx(0.3, abs=0.03) and shows["Hepatitis"] == pytest.approx(0.2, abs=0.03)
    assert gen.hhp_events(50, 5, 3, seed=4).equals(gen.hhp_events(50, 5, 3, seed=4, carriers=(0.04, 0.05)))
    for bad in ((0.5,), (0.1, 1.5)):
        with pytest.raises(ParameterError, match="carrier shares"):
            gen.hhp_events(10, 3, 3, 1, carriers=bad)


def test_events_qi_count_and_hierarchies():
    df = gen.hhp_events(40, mean_events=3, n_qis=2, seed=1)
    assert list(df.columns) == ["PID", "VID", "AdmYr", "ZIP", "Disease"]
    big = gen.hhp_events(2000, mean_events=10, n_qis=4, seed=1)
    hs = gen.event_hierarchies()
    for col in gen.EVENT_QIS:
        assert hs[col].missing(big[col]) == []
    assert hs["ZIP"].ancestors_of("56117") == ["56117", "5611*", "561**", "56***", "*"]
    assert hs["AdmYr"].ancestors_of("2009") == ["2009", "2009-2010", "2007-2010", "*"]
    assert hs["LOS"].generalize("3", 1) == "0-6"
    with pytest.raises(ParameterError, match="QIs"):
        gen.hhp_events(10, 3, 5, 1)


# -- Quest ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("T", "I"), [(20, 4), (20, 6), (10, 4)])
def test_quest_average_length_is_T(T, I):
    seqs = gen.quest_sequences(1500, T, I, 20, seed=3)
    assert len(seqs) == 1500
    assert np.mean([len(s) for s in seqs]) == pytest.approx(T, rel=0.08)
    assert {x for s in seqs for x in s} <= set("ACDEFGHIKLMNPQRSTVWY")


def test_quest_seeds_make_distinguishable_classes():
    def bigrams(seqs):
        c = Counter((a, b) for s in seqs for a, b in zip(s, s[1:]))
        total = sum(c.values())
        return {k: v / total for k, v in c.items()}

    a, b, a2 = (bigrams(gen.quest_sequences(400, 20, 4, 20, seed=s)) for s in (1, 2, 1))
    tv = 0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))
    assert tv > 0.15 and a == a2
    assert gen.quest_sequences(2, 10, 4, 40, seed=1)[0][0].startswith("i")


# -- commands and the CLI ---------------------------------------------------------------------------------
def _cli(*argv) -> int:
    from anonstudio.cli.main import main

    return main([str(a) for a in argv])


def test_generate_commands_write_files_and_hierarchies(tmp_path, capsys):
    assert set(gen.GENERATORS) == {"table", "proteins", "events", "quest"}
    out = tmp_path / "adult.csv"
    assert _cli("generate", "table", "--out", out, "--rows", 120, "--seed", 4) == 0
    table = io.read_table(out)
    assert table.delimiter == ";"
    assert table.df.astype(str).values.tolist() == gen.adult_like_table(120, 4).values.tolist()
    assert list(table.df.columns) == list(gen.ADULT_COLUMNS)
    assert io.read_hierarchy(tmp_path / "adult_hierarchy_age.csv", attribute="age").missing(table.df["age"]) == []
    assert (tmp_path / "adult_hierarchy_education.csv").read_text().splitlines()[0] == (
        "10th;High School;Secondary education;*")  # leaves sorted
    printed = capsys.readouterr().out.split()
    assert len(printed) == 10 and printed[0] == str(out)

    ev = tmp_path / "ev.csv"
    assert _cli("generate", "events", "--out", ev, "--sequences", 30, "--qis", 3, "--no-with-hierarchies") == 0
    log = io.read_events(ev, sequence_id="PID", event_order="VID", quasi_identifiers=["AdmYr", "ZIP", "DSFC"],
                         sensitive="Disease")
    assert len(log) == 30 and list(log.df.columns) == ["PID", "VID", "AdmYr", "ZIP", "DSFC", "Disease"]
    assert not (tmp_path / "ev_hierarchy_ZIP.csv").exists()

    fa = tmp_path / "p.fasta"
    assert _cli("generate", "proteins", "--out", fa, "--count", 6, "--classes", 2, "--mean-length", 90) == 0
    lines = fa.read_text().splitlines()
    heads = [x for x in lines if x.startswith(">")]
    assert heads[:2] == [">synp00001 class=A", ">synp00002 class=B"] and len(heads) == 6
    assert max(len(x) for x in lines) <= 60
    assert io.read_fasta(fa, alphabet="protein-20").strings()[0].startswith("M")

    q = tmp_path / "q.fasta"
    assert _cli("generate", "quest", "--out", q, "--D", 5, "--T", 8, "--classes", 2) == 0
    quest = io.read_fasta(q, alphabet="protein-20", label_pattern="class=([A-Z])")
    assert len(quest) == 10 and quest.labels[:2] == ["A", "B"]
    qt = tmp_path / "q.txt"
    assert _cli("generate", "quest", "--out", qt, "--D", 4, "--items", 40) == 0
    rows = qt.read_text().splitlines()
    assert len(rows) == 4 and all(tok.startswith("i") for tok in rows[0].split(" "))


def test_generate_rejects_bad_options(tmp_path, capsys):
    assert _cli("generate", "table", "--out", tmp_path / "x.csv", "--rows", 0) == 2
    assert "rows" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()
    assert _cli("generate", "events", "--out", tmp_path / "e.csv", "--qis", 7) == 2
    assert "qis" in capsys.readouterr().err


@pytest.mark.realdata
def test_hard_coded_tables_are_what_the_derivation_script_measures(shared_data, repo_root):
    import importlib.util

    spec = importlib.util.spec_from_file_location("derive_tables", repo_root / "anonstudio/resources/demo/derive_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (repo_root / "anonstudio/core/generate/_tables.py").read_text()
    assert module.render(shared_data) == committed
