"""The workbench obeys stop signals (issue 34 item 7): ``anonstudio gui`` under ``timeout`` or Ctrl+C closes as
Quit does, instead of running on (a process started under ``timeout 20`` was still running 37 minutes later)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _start(tmp_path: Path, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen", ANONSTUDIO_EXIT_AFTER_SHOW="600",
               HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               ANONSTUDIO_NO_WARMUP="1")
    proc = subprocess.Popen([sys.executable, "-m", "anonstudio", "gui", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # "shown after X s": the window is up and its event loop runs
    assert line.startswith("shown after"), (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_a_stop_signal_closes_the_workbench(tmp_path, sig, code):
    proc = _start(tmp_path)
    proc.send_signal(sig)
    try:
        assert proc.wait(timeout=60) == code, proc.stderr.read()
    finally:
        proc.kill()


def test_sigterm_keeps_unsaved_work_in_an_autosave(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("age;sex\n30;M\n40;F\n", encoding="utf-8")
    proc = _start(tmp_path, str(data))  # a data file opened: unsaved work
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(timeout=60) == 143, proc.stderr.read()
    finally:
        proc.kill()
    saved = list(tmp_path.rglob("*.autosave.json"))
    assert saved, sorted(str(p) for p in tmp_path.rglob("*"))
    assert "t.csv" in json.dumps(json.loads(saved[0].read_text(encoding="utf-8")))


def _start_until_dialog(tmp_path: Path, *args: str) -> subprocess.Popen:
    """Start the workbench on ``args`` and return once it says a dialog is up (``ANONSTUDIO_SAY_DIALOGS``)."""
    import select
    import time

    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen", ANONSTUDIO_EXIT_AFTER_SHOW="600",
               ANONSTUDIO_SAY_DIALOGS="1", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), ANONSTUDIO_NO_WARMUP="1")
    proc = subprocess.Popen([sys.executable, "-m", "anonstudio", "gui", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    seen = []
    while time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            line = proc.stdout.readline()
            seen.append(line)
            if line.startswith("dialog shown:"):
                time.sleep(0.5)  # the dialog's own event loop is running by now
                return proc
    proc.kill()
    raise AssertionError(f"no dialog came up: {seen}, {proc.stderr.read()}")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stop_signal_closes_the_workbench_while_an_error_dialog_is_up(tmp_path, sig, code):
    """Issue 44 item 10: opened on a truncated project, the workbench sat in its error dialog — shown before
    the main event loop starts — and was still running 20 s after SIGTERM."""
    project = tmp_path / "t.anonstudio.json"
    project.write_text('{"format": "anonstudio-project", "vers', encoding="utf-8")
    proc = _start_until_dialog(tmp_path, str(project))
    proc.send_signal(sig)
    try:
        assert proc.wait(timeout=10) == code
        assert "Traceback" not in proc.stderr.read()
    finally:
        proc.kill()


def test_sigterm_closes_a_dialog_opened_from_the_running_window(tmp_path):
    """A dialog opened in the main event loop (a data file that cannot be read on the worker thread)."""
    data = tmp_path / "bad.csv"
    data.write_bytes(b"a;b\n1;2;3;4\n\x00\x01\n")
    proc = _start_until_dialog(tmp_path, str(data))
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(timeout=10) == 143
        assert "Traceback" not in proc.stderr.read()
    finally:
        proc.kill()
