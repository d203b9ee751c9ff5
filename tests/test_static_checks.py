"""ruff and mypy as ``scripts/test`` runs them (their settings: ``[tool.ruff]`` and ``[tool.mypy]`` in
pyproject.toml), so that a plain ``pytest`` sees a new unused import, an undefined name or an untyped public
function of the engine's API too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name(name)
    assert exe.exists(), f"{name} is not installed beside {sys.executable}: run scripts/setup (it installs .[test])"
    return subprocess.run([str(exe), *args], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=600)


def test_ruff_is_clean():
    done = _tool("ruff", "check", "--no-cache", "anonstudio", "tests")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_mypy_is_clean_on_the_engines_public_api():
    done = _tool("mypy", "--no-incremental")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout
