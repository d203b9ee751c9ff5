"""Issue 44 item 10, the release log's two remaining faults.

- A run stopped after its swap but before it wrote the release log left a release published and missing from the
  log (a later release of the same input then got no warning). The log's entry now rides in the publication's
  journal: the next run publishing in that folder rolls the swap forward, writes the entry, and warns.
- Two runs sharing one log lost an entry when their read-modify-write interleaved. The append now holds an
  exclusive lock on ``<log>.lock``: two processes forced to interleave keep every entry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_release_log_damaged import JOB, TABLE  # the six-row table and its job, k and log written

ROOT = Path(__file__).resolve().parents[2]
#: a run killed (as by kill -9) at the publication's last step: the log's entry, after the swap
KILLED_AT_THE_LOG = """
import os, sys
from anonstudio.core import release_log
from anonstudio.core.io import _atomic
_atomic._AFTER_SWAP[release_log.JOURNAL_KIND] = lambda record: os._exit(137)
from anonstudio.cli.main import main
sys.exit(main(["run", sys.argv[1]]))
"""
#: one process appending releases to a shared log, each read held long enough for the other to read too
APPENDER = """
import sys, time
from pathlib import Path
from anonstudio.core import io, release_log
real = release_log._read_log
def slow(*a, **k):
    log = real(*a, **k)
    time.sleep(0.3)  # the other process reads the same log meanwhile (without the lock it would lose an entry)
    return log
release_log._read_log = slow
table = io.read_table("t.csv").with_roles(["sex"], ["disease"], [])
for i in range(3):
    release_log.record_release(table, {"algorithm": "mondrian", "parameters": {"k": i}}, {},
                               Path(f"out-{sys.argv[1]}-{i}.csv"), Path("releases.json"))
"""


def _env(work: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(work / "data"))


def _setup(work: Path) -> None:
    (work / "t.csv").write_text(TABLE)
    (work / "sex.csv").write_text("Male;*\nFemale;*\n")
    for k in (2, 3):
        (work / f"job{k}.toml").write_text(JOB.format(k=k))


def _logged(work: Path) -> list[str]:
    log = json.loads((work / "releases.json").read_text())
    return sorted(Path(e["output"]).name for entries in log.values() for e in entries)


def test_a_release_stopped_before_its_log_entry_is_logged_by_the_next_run_which_warns(tmp_path):
    _setup(tmp_path)
    killed = subprocess.run([sys.executable, "-c", KILLED_AT_THE_LOG, "job2.toml"], cwd=tmp_path, env=_env(tmp_path),
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == 137, killed.stderr
    assert (tmp_path / "out2.csv").is_file() and not (tmp_path / "releases.json").exists()
    assert [p.name for p in tmp_path.glob(".anonstudio.journal.*")], "the journal stays for the recovery"
    later = subprocess.run([sys.executable, "-m", "anonstudio", "run", "job3.toml"], cwd=tmp_path,
                           env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert later.returncode == 0, later.stderr
    assert "rolled forward" in later.stderr and "out2.csv" in later.stderr
    assert "this input was published before with other settings" in later.stderr  # the warning the log gives
    assert _logged(tmp_path) == ["out2.csv", "out3.csv"]
    assert not list(tmp_path.glob(".anonstudio.journal.*"))


def test_two_runs_sharing_one_log_keep_every_entry_under_interleaving(tmp_path):
    _setup(tmp_path)
    env = _env(tmp_path)
    subprocess.run([sys.executable, "-c", "from anonstudio.core.keys import load_key; load_key(create=True)"],
                   cwd=tmp_path, env=env, check=True, timeout=120)
    runs = [subprocess.Popen([sys.executable, "-c", APPENDER, name], cwd=tmp_path, env=env, stderr=subprocess.PIPE,
                             text=True) for name in ("a", "b")]
    for run in runs:
        assert run.wait(timeout=300) == 0, run.stderr.read() if run.stderr else ""
    assert _logged(tmp_path) == [f"out-{n}-{i}.csv" for n in "ab" for i in range(3)]
