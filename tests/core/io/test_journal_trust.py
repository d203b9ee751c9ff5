"""A publication journal is a file anyone who delivers a folder can write, and recovery renames and deletes what
it names (hunt after issue 28: a planted journal made `verify` swap the job's input for a forged one, then pass
a release of every real record). Recovery touches only what a publication of the journal's folder writes."""

from __future__ import annotations

import json
import os

import pytest

from anonstudio.core import io
from anonstudio.core.errors import OutputError
from anonstudio.core.io._atomic import JOURNAL_PREFIX, staging_name


def _journal(folder, entries):
    path = folder / f"{JOURNAL_PREFIX}4242.c0ffee00.json"
    path.write_text(json.dumps({"format": "anonstudio-journal", "version": 1, "pid": 4242, "entries": entries}))
    return path


def _files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("layout", ["input beside the output", "input outside the folder", "relative paths"])
def test_a_journal_naming_what_no_publication_here_writes_is_refused_and_nothing_moves(tmp_path, layout):
    out_dir = tmp_path / "results"
    out_dir.mkdir()
    data_dir = out_dir if layout == "input beside the output" else tmp_path
    data = data_dir / "people.csv"
    data.write_text("name;age\nAda;36\n")
    fake = out_dir / staging_name("people.csv", "old.", pid=1)
    fake.write_text("name;age\nforged;1\n")
    output = out_dir / "release.csv"
    output.write_text("age\n*\n")
    if layout == "relative paths":
        entries = [{"target": "people.csv", "new": [0, 0, 0, 0], "backup": "results/" + fake.name, "staged": None}]
    else:
        entries = [{"target": str(data), "new": [0, 0, 0, 0], "backup": str(fake), "staged": None}]
    journal = _journal(out_dir, entries)
    before = {**_files(out_dir), **_files(tmp_path)}
    with pytest.raises(OutputError, match="cannot be used.*nothing was renamed or deleted"):
        io.recover(output, protect=[data])
    assert {**_files(out_dir), **_files(tmp_path)} == before  # the input, the forged file and the journal as they were
    assert journal.exists() and data.read_text() == "name;age\nAda;36\n"


def test_a_genuine_interrupted_publication_is_still_rolled_back(tmp_path):
    """The journal a real publication writes passes the checks: its old file comes back, the new one goes."""
    target = tmp_path / "release.csv"
    target.write_text("old\n")
    backup = tmp_path / staging_name("release.csv", "old.")
    os.link(target, backup)
    staged = tmp_path / staging_name("release.csv")
    staged.write_text("new\n")
    os.replace(staged, target)  # the swap began: the new file is in place, the old one only in the backup
    st = os.lstat(target)
    from anonstudio.core.io._atomic import _ident

    _journal(tmp_path, [{"target": str(target), "staged": str(staged), "new": _ident(st), "backup": str(backup)},
                        {"target": str(tmp_path / "release.report.json"),
                         "staged": str(tmp_path / staging_name("release.report.json")),
                         "new": [0, 0, 0, 0], "backup": None}])
    said = io.recover(target)
    assert any("rolled back" in s for s in said) and target.read_text() == "old\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".anonstudio.")]
