"""Property tests: whatever strings a table or FASTA holds, writing and reading back gives them again."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from anonstudio.core.io import read_fasta, read_table, write_fasta, write_table

cells = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6)
names = st.text(alphabet="abcdefghij_- ;,\"", min_size=1, max_size=5).filter(lambda s: s.strip() != "")


@st.composite
def frames(draw):
    cols = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    n = draw(st.integers(0, 5))
    data = {c: draw(st.lists(cells, min_size=n, max_size=n)) for c in cols}
    return pd.DataFrame(data, columns=cols, dtype=object)


@settings(max_examples=60, deadline=None)
@given(frames(), st.sampled_from([",", ";", "\t"]))
def test_table_round_trip_keeps_every_string(df, delim):
    # a one-column header that splits into names on another delimiter is refused on purpose ("wrong delimiter?")
    others = [c for c in ",;\t|" if c != delim]
    assume(len(df.columns) > 1 or not any(len([p for p in df.columns[0].split(c) if p.strip()]) > 1 for c in others))
    with tempfile.TemporaryDirectory() as tmp:
        path = write_table(df, Path(tmp) / "t.csv", delimiter=delim)
        back = read_table(path, delimiter=delim, missing=[])
    assert list(back.df.columns) == list(df.columns)
    assert back.df.to_numpy().tolist() == df.to_numpy().tolist()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.text(alphabet="ACDEFGHIKLMNPQRSTVWYBZXUO", min_size=1, max_size=150), min_size=1, max_size=5),
    st.integers(1, 80),
)
def test_fasta_round_trip(seqs, width):
    headers = [f"pseudo_{i} segment=0 group={i}" for i in range(len(seqs))]
    with tempfile.TemporaryDirectory() as tmp:
        path = write_fasta(headers, seqs, Path(tmp) / "s.fasta", width=width)
        lines = path.read_text().splitlines()
        back = read_fasta(path)
    assert back.strings() == seqs and back.headers == headers
    assert max(len(x) for x in lines if not x.startswith(">")) <= width
