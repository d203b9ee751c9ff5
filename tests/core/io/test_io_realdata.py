"""The real files in ../shared/data load as documented (and quickly), and are never modified."""

from __future__ import annotations

import time

import pytest

from anonstudio.core.io import read_fasta, read_hierarchy, read_table, write_fasta, write_hierarchy, write_table

pytestmark = pytest.mark.realdata

ATTRIBUTES = ["age", "education", "marital-status", "native-country", "occupation", "race", "salary-class",
              "sex", "workclass"]
LEAVES = {"age": 100, "education": 16, "marital-status": 7, "native-country": 41, "occupation": 14, "race": 5,
          "salary-class": 2, "sex": 2, "workclass": 8}


def test_adult_loads_as_30162_by_9_fast(shared_data):
    path = shared_data / "adult" / "adult.csv"
    times = []
    for _ in range(3):
        start = time.perf_counter()
        t = read_table(path)
        times.append(time.perf_counter() - start)
    assert t.df.shape == (30162, 9)
    assert list(t.df.columns) == ["sex", "age", "race", "marital-status", "education", "native-country",
                                  "workclass", "occupation", "salary-class"]
    assert t.delimiter == ";" and t.encoding == "utf-8"
    assert t.df.iloc[0].tolist() == ["Male", "39", "White", "Never-married", "Bachelors", "United-States",
                                     "State-gov", "Adm-clerical", "<=50K"]
    assert not t.df.isna().any().any()
    print(f"\nread_table(adult.csv): {min(times):.3f} s")  # timed on demand: tests/benchmarks/bench_io.py


def test_adult_round_trips_byte_for_byte(shared_data, tmp_path):
    path = shared_data / "adult" / "adult.csv"
    t = read_table(path)
    out = write_table(t, tmp_path / "adult.csv", delimiter=t.delimiter, encoding=t.encoding)
    assert out.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_adult_hierarchies_load_cover_the_data_and_round_trip(shared_data, tmp_path, attribute):
    path = shared_data / "adult" / "hierarchies" / f"adult_hierarchy_{attribute}.csv"
    h = read_hierarchy(path, attribute=attribute)
    assert len(h.leaves) == LEAVES[attribute] and h.root_label == "*"
    out = write_hierarchy(h, tmp_path / path.name)
    assert out.read_bytes() == path.read_bytes().replace(b"\r\n", b"\n")
    data = _adult(shared_data)
    h.check_covers(data.df[attribute].unique().tolist(), data_file=data.source)


_ADULT = {}


def _adult(shared_data):
    if "t" not in _ADULT:
        _ADULT["t"] = read_table(shared_data / "adult" / "adult.csv")
    return _ADULT["t"]


@pytest.mark.parametrize(
    "name, count",
    [("yeast_swissprot_1000.fasta", 1000), ("mouse_string_1000.fasta", 1000), ("yeast_swissprot_6049.fasta", 6049)],
)
def test_protein_files_load(shared_data, name, count):
    s = read_fasta(shared_data / "proteins" / name)
    assert len(s) == count and len(set(s.ids)) == count
    if name.startswith("yeast"):
        assert s.ids[0] == "sp|P09032|EI2BG_YEAST" and s.lengths.max() == 4910
        assert "OS=Saccharomyces cerevisiae" in s.headers[0]
    else:
        assert s.ids[0] == "10090.ENSMUSP00000139848"
        assert {"X", "U"} <= set(s.alphabet.symbols[c] for c in set(s.codes.tolist()))
        assert 54 <= s.lengths.min() and s.lengths.max() == 798


def test_yeast_fasta_round_trips_byte_for_byte(shared_data, tmp_path):
    path = shared_data / "proteins" / "yeast_swissprot_1000.fasta"
    s = read_fasta(path, label_pattern=r"OS=(\S+)")
    assert set(s.labels) == {"Saccharomyces"}
    out = write_fasta(s, tmp_path / "y.fasta")
    assert out.read_bytes() == path.read_bytes()


def test_inputs_are_not_modified(shared_data):
    files = [shared_data / "adult" / "adult.csv", shared_data / "proteins" / "mouse_string_1000.fasta",
             shared_data / "adult" / "hierarchies" / "adult_hierarchy_native-country.csv"]
    before = [(f.stat().st_mtime_ns, f.read_bytes()) for f in files]
    read_table(files[0])
    read_fasta(files[1])
    read_hierarchy(files[2], attribute="native-country")
    assert [(f.stat().st_mtime_ns, f.read_bytes()) for f in files] == before
