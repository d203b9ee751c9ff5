"""write_output / read_output_like / write_json / read_data: the pieces the job pipeline calls."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonstudio.core.data import EventLog, Role, SequenceSet, Table
from anonstudio.core.errors import InputError
from anonstudio.core.io import read_data, read_output_like, read_table, write_json, write_output


def put(tmp_path, text: str, name: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_write_output_table_keeps_its_delimiter_and_like_overrides(tmp_path):
    t = read_table(put(tmp_path, "name;age;sex\nAnn;30;F\nBob;41;M\n", "in.csv"))
    t = t.with_roles(quasi_identifiers=["age"], sensitive=["sex"], identifying=["name"])
    written = write_output(t, tmp_path / "out.csv")
    assert written == [tmp_path / "out.csv"]
    assert (tmp_path / "out.csv").read_text() == "age;sex\n30;F\n41;M\n"
    side = pd.DataFrame({"group": [0, 1], "sex": ["F", "M"]})
    write_output(side, tmp_path / "out.sensitive.csv", like=t)
    assert (tmp_path / "out.sensitive.csv").read_text() == "group;sex\n0;F\n1;M\n"
    write_output(side, tmp_path / "plain.tsv")
    assert (tmp_path / "plain.tsv").read_text() == "group\tsex\n0\tF\n1\tM\n"


def test_write_output_event_log_and_sequences(tmp_path):
    log = EventLog(pd.DataFrame({"PID": ["a", "a"], "VID": ["1", "2"], "dx": ["x", "y"]}), "PID", "VID", ["dx"],
                   delimiter="\t")
    assert write_output(log, tmp_path / "e.txt") == [tmp_path / "e.txt"]
    assert (tmp_path / "e.txt").read_text() == "PID\tVID\tdx\na\t1\tx\na\t2\ty\n"
    seqs = SequenceSet.from_strings(["MKV" * 30], ids=["pseudo_1"], headers=["pseudo_1 segment=0 group=0"])
    write_output(seqs, tmp_path / "s.fasta")
    assert (tmp_path / "s.fasta").read_text() == ">pseudo_1 segment=0 group=0\n" + "MKV" * 20 + "\n" + "MKV" * 10 + "\n"
    with pytest.raises(TypeError):
        write_output({"not": "data"}, tmp_path / "x.csv")


def test_read_output_like_a_table_keeps_roles_and_delimiter(tmp_path):
    t = read_table(put(tmp_path, "name;age;sex\nAnn;30;F\nBob;41;M\n", "in.csv"))
    t = t.with_roles(quasi_identifiers=["age"], sensitive=["sex"], identifying=["name"])
    out = put(tmp_path, "age;sex\n30-49;F\n30-49;M\n", "out.csv")
    back = read_output_like(t, out)
    assert isinstance(back, Table) and back.delimiter == ";"
    assert back.roles == {"age": Role.QUASI, "sex": Role.SENSITIVE}
    assert back.df["age"].tolist() == ["30-49", "30-49"] and back.source == out


def test_read_output_like_events_and_fasta(tmp_path):
    log = EventLog(pd.DataFrame({"PID": ["a"], "VID": ["1"], "dx": ["x"]}), "PID", "VID", ["dx"], delimiter=",")
    back = read_output_like(log, put(tmp_path, "PID,VID,dx\na,1,*\nb,1,y\n", "o.csv"))
    assert isinstance(back, EventLog) and back.quasi_identifiers == ["dx"] and len(back) == 2
    seqs = SequenceSet.from_strings(["MKV"], alphabet="protein-25")
    back = read_output_like(seqs, put(tmp_path, ">pseudo_1 segment=0 group=0\nMKJ\n", "o.fasta"))
    assert back.strings() == ["MKJ"] and back.alphabet.name == "as-found"
    empty = read_output_like(seqs, put(tmp_path, "", "empty.fasta"))
    assert len(empty) == 0


def test_read_output_like_reports_a_bad_output_with_its_line(tmp_path):
    t = read_table(put(tmp_path, "a;b\n1;2\n", "in.csv"))
    bad = put(tmp_path, "a;b\n1;2;3\n", "out.csv")
    with pytest.raises(InputError) as exc:
        read_output_like(t, bad)
    assert f"{bad}:2" in str(exc.value)


def test_write_json_converts_numpy_and_is_indented(tmp_path):
    report = {
        "k": np.int64(5),
        "ncp": np.float32(0.25),
        "ok": np.bool_(True),
        "sizes": np.array([3, 4]),
        "path": Path("/x/y.csv"),
        "nan": float("nan"),
        "role": Role.QUASI,
        "nested": [{"v": np.float64(1.5)}],
        "name": "Köln",
    }
    out = write_json(report, tmp_path / "r.json")
    text = out.read_text(encoding="utf-8")
    assert text.endswith("}\n") and '\n  "k": 5,' in text and "Köln" in text
    data = json.loads(text)
    assert data == {
        "k": 5, "ncp": 0.25, "ok": True, "sizes": [3, 4], "path": "/x/y.csv", "nan": None,
        "role": "quasi-identifying", "nested": [{"v": 1.5}], "name": "Köln",
    }
    with pytest.raises(TypeError):
        write_json({"x": object()}, tmp_path / "bad.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_read_data_by_extension_and_format(tmp_path):
    assert isinstance(read_data(put(tmp_path, "a;b\n1;2\n", "t.tsv")), Table)
    assert isinstance(read_data(put(tmp_path, ">x\nMK\n", "p.faa")), SequenceSet)
    ev = read_data(put(tmp_path, "PID;VID\na;1\n", "e.dat"), format="events", sequence_id="PID", event_order="VID")
    assert isinstance(ev, EventLog)
    path = put(tmp_path, "x", "data.bin")
    with pytest.raises(InputError, match="cannot tell the format") as exc:
        read_data(path)
    assert str(path) in str(exc.value)
    with pytest.raises(InputError, match="needs sequence_id"):
        read_data(path, format="events")
