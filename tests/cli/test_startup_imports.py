"""Building the parser and listing the methods import no heavy library (issue 17 item 3): the method
classes declare their names, facts and parameters importable without numpy, pandas or numba; those load
only when a method runs. Behaviour, not timing: which modules a fresh interpreter loaded
(tests/benchmarks/bench_startup.py measures the time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "numba", "pyarrow", "PySide6", "numpy", "scipy", "sklearn", "mlxtend", "pyqtgraph",
         "networkx", "Bio", "matplotlib")

_PROBE = """
import json, sys
from anonstudio.cli import main as cli
for argv in (["--help"], ["methods"], ["methods", "--json"], ["run", "--help"]):
    cli.build_parser(argv)
text = cli.methods_text()
from anonstudio.core.algorithms import available
facts = [cls.facts() for cls in available()]
print(json.dumps({"methods": len(facts), "text": len(text),
                  "loaded": sorted(m for m in %r if m in sys.modules)}))
"""


def test_parser_and_method_list_import_no_heavy_library(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", _PROBE % (HEAVY,)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["methods"] >= 9 and seen["text"] > 0  # every method was declared and described
    assert seen["loaded"] == [], f"building the parser / listing the methods imported {seen['loaded']}"


def test_methods_command_imports_no_heavy_library(tmp_path):
    probe = ("import sys\nfrom anonstudio.cli.main import main\nmain(['methods'])\nmain(['methods', '--json'])\n"
             f"print('LOADED', *sorted(m for m in {HEAVY!r} if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "condensation — " in proc.stdout
    loaded = proc.stdout.rstrip().splitlines()[-1].split()[1:]
    assert loaded == [], f"`anonstudio methods` imported {loaded}"
