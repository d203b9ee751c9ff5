"""The engine never imports Qt: importing every core module with PySide6/pyqtgraph blocked must work."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import ROOT


def test_core_imports_with_qt_blocked():
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6') or name.startswith(('anonstudio.gui', 'anonstudio.cli')):
                    raise ImportError('blocked: ' + name)
                return None

        sys.meta_path.insert(0, Block())
        import anonstudio.core as core
        names = [m.name for m in pkgutil.walk_packages(core.__path__, 'anonstudio.core.')]
        for name in names:
            importlib.import_module(name)
        print(len(names))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) >= 10
