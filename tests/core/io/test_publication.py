"""Issue 29: a release (output, side table, report) is published through a journal and is never half done.

What a reader of the folder can see is checked after every kind of failure: a rename that fails (an I/O error,
an immutable old file), a stop signal during the swap, a process killed at any step (then recovered from the
journal), two runs publishing to one folder, staging files left by earlier runs. The strace sweep of the
whole command is ``tests/faults``.
"""

from __future__ import annotations

import errno
import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from anonstudio.core.errors import OutputError
from anonstudio.core.io import _atomic
from anonstudio.core.io._atomic import (JOURNAL_PREFIX, STAGING_PREFIX, Publication, atomic_write, recover,
                                       staging_name)
from anonstudio.core.progress import defer_stop

ROOT = Path(__file__).resolve().parents[3]
NAMES = ("out.csv", "out.sensitive.csv", "out.json")


def _publish(folder: Path, tag: str, **kwargs) -> list[Path]:
    targets = [folder / n for n in NAMES]
    with Publication(*targets, **kwargs) as pub:
        for target in targets:
            pub.stage(target).write_text(f"{tag} {target.name}\n")
        return pub.commit(last=folder / "out.json")


def _state(folder: Path) -> dict[str, str]:
    return {n: (folder / n).read_text() for n in NAMES if (folder / n).exists()}


def _release(tag: str) -> dict[str, str]:
    return {n: f"{tag} {n}\n" for n in NAMES}


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".anonstudio."))


def test_a_release_replaces_the_old_one_whole_and_leaves_nothing_behind(tmp_path):
    _publish(tmp_path, "old")
    done = _publish(tmp_path, "new")
    assert [p.name for p in done] == list(NAMES)  # the report last
    assert _state(tmp_path) == _release("new")
    assert _leftovers(tmp_path) == []


def test_a_staging_path_keeps_the_extension_and_names_its_writer(tmp_path):
    long_name = "x" * 240 + ".parquet"
    with Publication(tmp_path / "a.tsv") as pub:
        staged = pub.stage(tmp_path / "a.tsv")
        assert staged.suffix == ".tsv" and staged.parent == tmp_path
        assert staged.name.startswith(f"{STAGING_PREFIX}{os.getpid()}.")
        longer = pub.stage(tmp_path / long_name)
        assert longer.suffix == ".parquet" and len(longer.name.encode()) <= 255
        longer.write_text("x")  # a real, writable path
    assert _leftovers(tmp_path) == []  # nothing committed: everything staged is removed


def _failing(monkeypatch, call: str, target: Path, code: int = errno.EIO):
    """``os.<call>`` fails once with ``code`` when it would put something at ``target`` (``replace``), or link
    or remove ``target`` (``link``, ``unlink``)."""
    real = getattr(os, call)
    failed = []

    def fake(*args, **kwargs):
        dst = args[1] if call == "replace" else args[0]
        if Path(dst) == target and not failed:  # once: the roll-back's own renames work
            failed.append(dst)
            raise OSError(code, os.strerror(code), str(target))
        return real(*args, **kwargs)

    monkeypatch.setattr(os, call, fake)


@pytest.mark.parametrize("name", NAMES)
def test_a_failed_rename_rolls_the_whole_release_back(tmp_path, monkeypatch, name):
    """The issue's cases: a failed report rename left a new output without report; a failed output rename
    deleted the old report; Anatomy's failed side-table rename left a new QIT beside the old sensitive table."""
    _publish(tmp_path, "old")
    _failing(monkeypatch, "replace", tmp_path / name)
    with pytest.raises(OutputError, match="cannot write: Input/output error") as err:
        _publish(tmp_path, "new")
    assert err.value.file == str(tmp_path / name)
    monkeypatch.undo()
    assert _state(tmp_path) == _release("old")
    assert _leftovers(tmp_path) == []


def test_an_immutable_old_output_keeps_the_old_release(tmp_path, monkeypatch):
    """``chattr +i`` on the old output: it can be neither linked (the backup is a copy) nor replaced; the run
    once deleted the old report then. Now: exit 2 naming the output, the old release untouched."""
    _publish(tmp_path, "old")
    _failing(monkeypatch, "link", tmp_path / "out.csv", errno.EPERM)
    _failing(monkeypatch, "replace", tmp_path / "out.csv", errno.EPERM)
    with pytest.raises(OutputError, match="Operation not permitted"):
        _publish(tmp_path, "new")
    monkeypatch.undo()
    assert _state(tmp_path) == _release("old")
    assert _leftovers(tmp_path) == []


def test_a_stop_signal_during_the_swap_rolls_it_back_then_stops(tmp_path, monkeypatch):
    """As the command's signal handler does: the stop is kept until the swap is done, which is then undone."""
    _publish(tmp_path, "old")
    real = os.replace

    def replace(src, dst, *a, **k):
        if Path(dst) == tmp_path / "out.sensitive.csv":
            assert defer_stop(lambda: (_ for _ in ()).throw(KeyboardInterrupt()))  # SIGTERM arrives here
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        _publish(tmp_path, "new")
    monkeypatch.undo()
    assert _state(tmp_path) == _release("old")
    assert _leftovers(tmp_path) == []


def test_a_stop_signal_after_the_swap_leaves_the_new_release(tmp_path, monkeypatch):
    _publish(tmp_path, "old")
    real = os.unlink

    def unlink(path, *a, **k):
        if Path(path).name.startswith(JOURNAL_PREFIX):
            assert defer_stop(lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
        return real(path, *a, **k)

    monkeypatch.setattr(os, "unlink", unlink)
    with pytest.raises(KeyboardInterrupt):
        _publish(tmp_path, "new")
    monkeypatch.undo()
    assert _state(tmp_path) == _release("new")
    assert _leftovers(tmp_path) == []


_KILLER = r"""
import importlib.util, os, signal, sys
from pathlib import Path
spec = importlib.util.spec_from_file_location("atomic_under_test", sys.argv[3])
atomic = importlib.util.module_from_spec(spec)
spec.loader.exec_module(atomic)
folder, kill_at = Path(sys.argv[1]), int(sys.argv[2])
calls = [0]
def counted(real):
    def call(*args, **kwargs):
        calls[0] += 1
        if calls[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    return call
for name in ("replace", "unlink", "link", "fsync", "open"):
    setattr(os, name, counted(getattr(os, name)))
names = ("out.csv", "out.sensitive.csv", "out.json")
with atomic.Publication(*[folder / n for n in names]) as pub:
    for n in names:
        pub.stage(folder / n).write_text(f"new {n}\n")
    pub.commit(last=folder / "out.json")
print("published after", calls[0], "calls")
"""


@pytest.mark.parametrize("scenario", ["old release in place", "first release"])
def test_a_run_killed_at_any_step_is_recovered_from_its_journal(tmp_path, scenario):
    """kill -9 at each file-system call of a publication (strace-free: the calls are wrapped); then the next
    run's (or verify's) recovery leaves exactly the old release or the new one, and no staging file."""
    cases = held = 0
    for kill_at in range(1, 200):
        folder = tmp_path / f"k{kill_at}"
        folder.mkdir()
        if scenario == "old release in place":
            _publish(folder, "old")
        done = subprocess.run([sys.executable, "-c", _KILLER, str(folder), str(kill_at), _atomic.__file__],
                              env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=120)
        if done.returncode == 0:
            assert "published after" in done.stdout
            break
        assert done.returncode == -9, done.stderr
        cases += 1
        before = _release("old") if scenario == "old release in place" else {}
        now = _state(folder)
        if "out.json" in now:  # a report in the folder belongs to a complete release, even before recovery
            assert now in (_release("old"), _release("new")), (kill_at, now)
        messages = recover(folder / "out.csv")
        after = _state(folder)
        assert after in (before, _release("new")), (kill_at, after, messages)
        assert _leftovers(folder) == [], (kill_at, _leftovers(folder))
        held += 1
    assert cases >= 15 and held == cases


def test_stale_staging_files_of_any_age_are_removed_by_the_next_publication(tmp_path):
    dead = staging_name("out.csv", pid=999999999)  # a pid no process has
    mine = staging_name("out.json", "old.")  # this pid, but no publication of it uses it
    legacy_old, legacy_new = ".out.csv.1a2b3c4d.part.csv", ".out.json.9f8e7d6c.part.json"
    # names that merely start with the prefix are no staging of anonstudio's (issue 44 item 10): never removed
    lookalikes = [f"{STAGING_PREFIX}data.csv", f"{STAGING_PREFIX}999999999.deadbeef.out.csv",
                  f"{STAGING_PREFIX}999999999.deadbeef00000000.out.csv"]
    for name in (dead, mine, legacy_old, legacy_new, ".keep-me", *lookalikes):
        (tmp_path / name).write_text("x")
    hour_ago = time.time() - 3600
    os.utime(tmp_path / legacy_old, (hour_ago, hour_ago))
    _publish(tmp_path, "new")
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert left == sorted([".keep-me", legacy_new, *lookalikes])  # earlier versions' only when older than 10 minutes


def test_a_single_file_writer_removes_dead_writers_files_only(tmp_path):
    dead = tmp_path / staging_name("x.csv", pid=999999999)
    live = tmp_path / staging_name("x.csv", pid=os.getppid())  # the parent lives: it may be writing
    for p in (dead, live):
        p.write_text("x")
    with atomic_write(tmp_path / "x.csv") as fh:
        fh.write("done\n")
    assert not dead.exists() and live.exists()
    assert (tmp_path / "x.csv").read_text() == "done\n"


def test_a_second_publication_to_the_folder_waits_for_the_first(tmp_path):
    """Two runs writing one place: the second waits for the first's lock, so the folder ends with one run's
    release, whole (issue 29: run B's output beside run A's report, both exit 0)."""
    order = []
    entered = threading.Event()

    def first():
        targets = [tmp_path / n for n in NAMES]
        with Publication(*targets) as pub:
            entered.set()
            for t in targets:
                pub.stage(t).write_text(f"A {t.name}\n")
            time.sleep(0.5)
            pub.commit(last=tmp_path / "out.json")
            order.append("A")

    thread = threading.Thread(target=first)
    thread.start()
    entered.wait(10)
    with pytest.raises(OutputError, match="another anonstudio process is publishing in this folder"):
        _publish(tmp_path, "C", wait=0.05)
    _publish(tmp_path, "B", wait=30)
    order.append("B")
    thread.join()
    assert order == ["A", "B"]
    assert _state(tmp_path) == _release("B")
    assert _leftovers(tmp_path) == []


def test_a_failure_before_the_journal_changes_nothing(tmp_path, monkeypatch):
    """A full disk while the journal is written: the old release stays, staged files and backups go."""
    _publish(tmp_path, "old")
    real = os.replace

    def replace(src, dst, *a, **k):
        if Path(dst).name.startswith(JOURNAL_PREFIX):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OutputError, match="No space left on device") as err:
        _publish(tmp_path, "new")
    assert err.value.file == str(tmp_path / "out.csv")
    monkeypatch.undo()
    assert _state(tmp_path) == _release("old")
    assert _leftovers(tmp_path) == []


def test_a_damaged_journal_is_one_clear_error(tmp_path):
    (tmp_path / f"{JOURNAL_PREFIX}999999999.deadbeef.json").write_text("{not json")
    with pytest.raises(OutputError, match="cannot be used") as err:
        recover(tmp_path / "out.csv")
    assert JOURNAL_PREFIX in str(err.value)


def test_recovery_of_a_folder_that_does_not_exist_does_nothing(tmp_path):
    assert recover(tmp_path / "nowhere" / "out.csv") == []
    assert not (tmp_path / "nowhere").exists()


def test_the_module_loads_on_its_own():
    """The kill test loads ``_atomic`` from its file (without pandas): it must not need the io package."""
    spec = importlib.util.spec_from_file_location("atomic_alone", _atomic.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.Publication is not Publication and module.STAGING_PREFIX == STAGING_PREFIX


def test_when_the_roll_back_fails_too_the_next_recovery_finishes_it(tmp_path, monkeypatch):
    """The report's rename fails, and so does putting the old report back (a disk going bad): the error says
    that the next run restores the previous release from the journal, and it does."""
    _publish(tmp_path, "old")
    real = os.replace

    def replace(src, dst, *a, **k):
        if Path(dst) == tmp_path / "out.json":
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OutputError, match="rolling back failed too.*restores the previous release"):
        _publish(tmp_path, "new")
    monkeypatch.undo()
    assert any(p.name.startswith(JOURNAL_PREFIX) for p in tmp_path.iterdir())
    assert "out.json" not in _state(tmp_path)  # no report: a reader sees no release, never a mixed one
    messages = recover(tmp_path / "out.csv")
    assert messages and "rolled back" in messages[0]
    assert _state(tmp_path) == _release("old")
    assert _leftovers(tmp_path) == []
