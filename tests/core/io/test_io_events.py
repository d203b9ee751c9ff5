"""Event CSV: roles, order parsing, duplicate events named by line; writing the input's columns."""

from __future__ import annotations

import pandas as pd
import pytest

from anonstudio.core.data import EventLog
from anonstudio.core.errors import InputError
from anonstudio.core.io import read_events, write_events

EVENTS = "PID;VID;age;los;diagnosis\np1;2;34;3;flu\np1;1;34;5;HIV\np2;1;51;2;flu\np3;1;29;1;?\n"
ROLES = dict(sequence_id="PID", event_order="VID", quasi_identifiers=["age", "los"], sensitive="diagnosis")


def put(tmp_path, text: str, name: str = "e.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


def test_reads_an_event_log_with_roles(tmp_path):
    log = read_events(put(tmp_path, EVENTS), **ROLES)
    assert isinstance(log, EventLog)
    assert len(log) == 3 and log.n_events == 4
    assert log.quasi_identifiers == ["age", "los"] and log.sensitive == "diagnosis"
    assert log.delimiter == ";" and log.source == tmp_path / "e.csv"
    ids, order, offsets = log.sequence_index()
    assert ids == ["p1", "p2", "p3"]
    assert log.df["VID"].iloc[order[offsets[0] : offsets[1]]].tolist() == ["1", "2"]
    assert log.df["diagnosis"].iloc[3] is pd.NA


def test_iso_dates_are_an_order(tmp_path):
    text = "PID,date,dx\na,2020-01-02,x\na,2020-01-01,y\n"
    log = read_events(put(tmp_path, text), sequence_id="PID", event_order="date", quasi_identifiers=["dx"])
    assert log.n_events == 2


def test_duplicate_sequence_order_pair_names_both_lines(tmp_path):
    path = put(tmp_path, "PID;VID;age\np1;1;3\np2;1;4\np1;2;3\np1;1.0;5\n")
    with pytest.raises(InputError, match="sequence 'p1' has two events with order '1.0' \\(first on line 2\\)") as exc:
        read_events(path, sequence_id="PID", event_order="VID", quasi_identifiers=["age"])
    assert f"{path}:5" in str(exc.value) and exc.value.column == "VID"


def test_unparseable_order_names_line(tmp_path):
    path = put(tmp_path, "PID;VID;age\np1;1;3\np1;two;4\n")
    with pytest.raises(InputError, match="'two' is not a number") as exc:
        read_events(path, sequence_id="PID", event_order="VID", quasi_identifiers=["age"])
    assert f"{path}:3" in str(exc.value)
    path = put(tmp_path, "PID;when;age\np1;monday;3\n", "f.csv")
    with pytest.raises(InputError, match="neither a number nor an ISO date") as exc:
        read_events(path, sequence_id="PID", event_order="when", quasi_identifiers=["age"])
    assert f"{path}:2" in str(exc.value)


def test_missing_order_or_sequence_id_names_line(tmp_path):
    path = put(tmp_path, "PID;VID;age\np1;1;3\np1;;4\n")
    with pytest.raises(InputError, match="no order value") as exc:
        read_events(path, sequence_id="PID", event_order="VID")
    assert f"{path}:3" in str(exc.value)
    path = put(tmp_path, "PID;VID;age\np1;1;3\nNA;2;4\n", "f.csv")
    with pytest.raises(InputError, match="no sequence id") as exc:
        read_events(path, sequence_id="PID", event_order="VID")
    assert f"{path}:3" in str(exc.value)


def test_unknown_column_names_the_header_line(tmp_path):
    path = put(tmp_path, EVENTS)
    with pytest.raises(InputError, match="'diag', which is not a column") as exc:
        read_events(path, sequence_id="PID", event_order="VID", sensitive="diag")
    assert f"{path}:1" in str(exc.value) and exc.value.column == "diag"


def test_table_errors_pass_through(tmp_path):
    path = put(tmp_path, "PID;VID;age\np1;1;3\np1;2\n")
    with pytest.raises(InputError, match="row has 2 fields but the header has 3") as exc:
        read_events(path, sequence_id="PID", event_order="VID")
    assert f"{path}:3" in str(exc.value)


def test_write_events_keeps_columns_and_the_logs_delimiter(tmp_path):
    log = read_events(put(tmp_path, EVENTS), **ROLES)
    kept = EventLog(log.df.iloc[[1, 0, 2]].reset_index(drop=True), "PID", "VID", ["age", "los"], "diagnosis",
                    delimiter=log.delimiter)
    out = write_events(kept, tmp_path / "o.csv")
    assert out.read_text() == "PID;VID;age;los;diagnosis\np1;1;34;5;HIV\np1;2;34;3;flu\np2;1;51;2;flu\n"
    out = write_events(kept.df, tmp_path / "o2.csv")
    assert out.read_text().startswith("PID,VID,age,los,diagnosis\n")
    back = read_events(out, **ROLES)
    assert back.df.equals(kept.df)
