"""Shared fixtures: where the real data lives, and a headless Qt platform for GUI tests."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the suite never touches the user's own data folder: the release log (and anything else anonstudio keeps under
# $XDG_DATA_HOME) goes to a folder of this session, removed at exit; subprocesses inherit it
SESSION_DATA_HOME = tempfile.mkdtemp(prefix="anonstudio-tests-data-")
os.environ["XDG_DATA_HOME"] = SESSION_DATA_HOME
atexit.register(shutil.rmtree, SESSION_DATA_HOME, ignore_errors=True)
# screenshots the GUI tests save (the ``screenshot`` fixture) go to a folder of this session, never into the checkout;
# ANONSTUDIO_SCREENSHOTS names another (tests/gui/readme_screenshots.py copies the docs' images from there)
SESSION_SCREENSHOTS = Path(os.environ.get("ANONSTUDIO_SCREENSHOTS") or Path(SESSION_DATA_HOME) / "screenshots")
# the workbench's first-start kernel compile (issue 17) would run beside every GUI test on a fresh CI
# cache, competing with the tests' own runs; tests compile what they run themselves
os.environ.setdefault("ANONSTUDIO_NO_WARMUP", "1")

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = (ROOT / ".." / "shared" / "data").resolve()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``: required in CI (a missing folder fails there), skipped elsewhere."""
    if not SHARED_DATA.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED_DATA} is missing in CI")
        pytest.skip("../shared/data is not beside this checkout")
    return SHARED_DATA


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


def pytest_collection_modifyitems(config, items):
    """Every test that drives Qt carries the ``gui`` marker, so ``-m "not gui"`` runs the Qt-free suite: the
    tests under ``tests/gui`` and any other that asks for ``qtbot``."""
    gui_dir = ROOT / "tests" / "gui"
    for item in items:
        if "qtbot" in getattr(item, "fixturenames", ()) or Path(str(item.fspath)).is_relative_to(gui_dir):
            item.add_marker(pytest.mark.gui)


@pytest.fixture(autouse=True)
def garbage_collection(request):
    """Automatic garbage collection is on in every test (issue 44 item 1: the GUI tests used to run with it off
    until one test happened to turn it back on, so 46 closed main windows were alive at the 96th test and the
    process grew to 13-14 GB). A Qt test ends with a full collection on the GUI thread, so a worker thread of a
    later test never frees an earlier test's Qt objects (which deadlocks PySide: see
    ``anonstudio.gui.workers.collect_garbage_in_gui_thread``); a test that installed the application's GUI-thread
    collector has it removed again."""
    if not gc.isenabled():
        gc.enable()
    yield
    workers = sys.modules.get("anonstudio.gui.workers")
    if workers is not None and getattr(workers, "_COLLECTOR", None) is not None:
        workers.stop_gui_thread_collection()  # collects, and turns automatic collection back on
    elif request.node.get_closest_marker("gui") is not None:
        gc.collect()
    if not gc.isenabled():
        gc.enable()


def _peak_megabytes() -> tuple[float, float]:
    """The peak resident memory of this process and of its largest finished child process, in MB."""
    import resource

    scale = 1 / 1024 if sys.platform != "darwin" else 1 / (1024 * 1024)  # kB on Linux, bytes on macOS
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale)


#: the most the suite's own process may reach (issue 44 item 1: it reached 13-14 GB)
PEAK_LIMIT_MB = 4096


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The peak memory of the suite's process (and of its largest child: a CLI run, a packaging build) at the end
    of the summary, against the 4 GB the suite must stay under."""
    own, child = _peak_megabytes()
    verdict = "within" if own <= PEAK_LIMIT_MB else "OVER"
    terminalreporter.write_line(f"peak memory: {own:,.0f} MB in the test process ({verdict} the {PEAK_LIMIT_MB:,} MB "
                                f"limit), {child:,.0f} MB in its largest child process")
