"""Issue 44 item 10: a damaged release log was silently reset — the releases it recorded forgotten, no message.
Now the run says so (one warning naming the log), keeps the damaged file aside, starts a new log, and a second
release with other settings is warned about again from the new log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLE = "sex;age;disease\nMale;30;Flu\nFemale;31;HIV\nMale;30;Cold\nFemale;31;Flu\nMale;32;HIV\nFemale;33;Cold\n"
JOB = """[input]
path = "t.csv"
quasi_identifiers = ["sex"]
sensitive = ["disease"]
[hierarchies]
sex = "sex.csv"
[algorithm]
name = "mondrian"
k = {k}
[output]
path = "out{k}.csv"
release_log = "releases.json"
"""


def _run(work: Path, k: int) -> subprocess.CompletedProcess:
    (work / "job.toml").write_text(JOB.format(k=k))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "anonstudio", "run", "job.toml"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("damage", [b"{\"abc\": [", b"[1, 2, 3]", b"\xff\xfe not text"])
def test_a_damaged_release_log_is_reported_kept_aside_and_started_anew(tmp_path, damage):
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "sex.csv").write_text("Male;*\nFemale;*\n")
    (tmp_path / "releases.json").write_bytes(damage)
    done = _run(tmp_path, 2)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "release log" in line]
    assert len(said) == 1 and "is damaged" in said[0] and "kept aside as" in said[0], done.stderr
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("releases.json.damaged-")]
    assert len(aside) == 1 and aside[0].read_bytes() == damage  # nothing of it is lost
    again = _run(tmp_path, 3)  # other settings: the new log remembers the first release
    assert again.returncode == 0, again.stderr
    assert "published before with other settings" in again.stderr and "is damaged" not in again.stderr
