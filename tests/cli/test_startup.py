"""Start-up stays light: commands that need no data never import pandas, pyarrow, numba or matplotlib
(issue 17 item 3). Behaviour, not timing: which modules a fresh interpreter loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "pyarrow", "numba", "matplotlib", "scipy", "PySide6")

_PROBE = """
import sys
from anonstudio.cli.main import main
try:
    code = main({argv!r})
except SystemExit as exc:  # argparse's --help / --version
    code = exc.code
sys.stdout.flush()
print("\\nLOADED", " ".join(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def _loaded(argv: list[str], tmp_path: Path) -> tuple[str, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(argv=argv, heavy=HEAVY)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    out, _, tail = proc.stdout.rpartition("\nLOADED")
    assert tail, proc.stderr
    return out, set(tail.split())


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["run", "--help"], ["verify", "--help"]])
def test_help_imports_no_heavy_module(argv, tmp_path):
    out, loaded = _loaded(argv, tmp_path)
    assert "usage: anonstudio" in out or "anonstudio " in out
    assert loaded == set(), f"`anonstudio {' '.join(argv)}` imported {sorted(loaded)}"


def test_top_level_help_still_lists_every_command(tmp_path):
    out, _ = _loaded(["--help"], tmp_path)
    for command in ("run", "verify", "demo", "gui", "generate", "experiment", "warmup"):
        assert command in out


def test_generate_help_lists_the_declared_options(tmp_path):
    # the lazily built subcommands are complete when they are the command
    out, _ = _loaded(["generate", "table", "--help"], tmp_path)
    assert "--rows" in out and "--with-hierarchies" in out
    out, _ = _loaded(["experiment", "--help"], tmp_path)
    assert "mst-adult" in out
