"""Shared fixtures: where the real data lives, and a headless Qt platform for GUI tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
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
