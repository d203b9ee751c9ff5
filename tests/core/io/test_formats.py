"""The format registry (issue 44, item 3): every format is one entry, and io, the workspace and the GUI's
dialogs follow from it."""

from pathlib import Path

import pandas as pd
import pytest

from anonstudio.core import io
from anonstudio.core.io import formats
from anonstudio.core.workspace import guess_kind


def test_each_suffix_names_one_format_of_each_kind():
    for kind in ("table", "fasta", "hierarchy", "project", "job"):
        seen: dict[str, str] = {}
        for fmt in formats.formats_for(kind):
            for s in fmt.suffixes:
                assert s not in seen, f"{s} is both {seen[s]} and {fmt.name}"
                seen[s] = fmt.name
                assert formats.format_for(f"data{s.upper()}", kind) is fmt


@pytest.mark.parametrize("name, kind", [("a.csv", "table"), ("a.TSV", "table"), ("a.txt", "table"),
                                        ("a.parquet", "table"), ("a.pq", "table"), ("a.fa", "fasta"),
                                        ("a.fasta", "fasta"), ("a.data", None), ("a", None)])
def test_the_data_kind_follows_from_the_registry(name, kind):
    assert io.format_of(name) == kind


@pytest.mark.parametrize("name, kind", [("p.anonstudio.json", "project"), ("old.json", "project"),
                                        ("job.toml", "job"), ("s.faa", "fasta"), ("t.csv", "table"),
                                        ("adult.data", "table")])
def test_the_workbench_tells_what_a_file_is_from_the_registry(name, kind):
    assert guess_kind(name) == kind


def test_a_table_is_written_in_the_format_its_name_ends_in(tmp_path):
    frame = pd.DataFrame({"a": ["1", "x,y"], "b": ["2", None]})
    csv = io.write_output(frame, tmp_path / "t.csv")[0]
    tsv = io.write_output(frame, tmp_path / "t.tsv")[0]
    pq = io.write_output(frame, tmp_path / "t.pq")[0]
    assert csv.read_bytes() == b'a,b\n1,2\n"x,y",\n'
    assert tsv.read_bytes() == b"a\tb\n1\t2\nx,y\t\n"
    assert pq.read_bytes()[:4] == b"PAR1"
    for path in (csv, tsv, pq):  # what verify re-derives is what was written
        assert io.output_bytes(frame, path) == path.read_bytes()
    assert io.read_table(pq).df.astype(object).where(lambda d: d.notna(), None).values.tolist() == \
        [["1", "2"], ["x,y", None]]


def test_an_unknown_ending_is_written_as_delimited_text(tmp_path):
    frame = pd.DataFrame({"a": ["1"]})
    assert io.write_output(frame, tmp_path / "t.data")[0].read_bytes() == b"a\n1\n"


def test_dialog_filters_come_from_the_registry():
    assert formats.dialog_filter("fasta") == "FASTA (*.fasta *.fa *.faa *.fna *.fas);;All files (*)"
    assert formats.dialog_filter("table", label="Tables") == \
        "Tables (*.csv *.tsv *.txt *.parquet *.pq);;All files (*)"
    each = formats.dialog_filter("table", each=True).split(";;")
    assert each[:4] == ["CSV (*.csv)", "TSV (*.tsv)", "Delimited text (*.txt)", "Parquet (*.parquet *.pq)"]
    assert formats.filter_format("Parquet (*.parquet *.pq)", "table") is formats.get("parquet")
    assert formats.filter_format("All files (*)", "table") is None


def test_an_export_defaults_to_the_chosen_format_then_the_input_s_then_the_kind_s():
    # the job's (or the last export's) output names the format
    assert formats.export_format("table", chosen=Path("out.parquet"), input_path="in.csv").name == "parquet"
    assert formats.export_format("table", chosen="tsv", input_path="in.csv").name == "tsv"
    # nothing chosen: the input's registered format
    assert formats.export_format("events", input_path="log.pq").name == "parquet"
    # an input ending no format knows (UCI's adult.data) is not exported under that ending
    assert formats.export_format("table", input_path="adult.data").suffix == ".csv"
    assert formats.export_format("fasta", input_path="x.txt").suffix == ".fasta"
    assert formats.with_suffix("out", formats.get("parquet")) == Path("out.parquet")
    assert formats.with_suffix("out.pq", formats.get("parquet")) == Path("out.pq")


def test_a_saved_job_names_an_output_in_a_registered_format(tmp_path):
    from anonstudio.core.workspace import Workspace, job_dict

    (tmp_path / "adult.data").write_text("age,sex\n30,F\n31,M\n")
    ws = Workspace()
    ws.open_data(io.read_data(tmp_path / "adult.data", format="table"), tmp_path / "adult.data")
    ws.method = "mondrian"
    job = job_dict(ws, tmp_path / "j.toml")
    assert job["output"]["path"].endswith("j-output.csv")
