"""The package layering, from every import statement in the tree (a lazy import inside a function is
still a dependency): no cycle between anonstudio's packages, and the CLI reaches the GUI only inside its
``gui`` command. The forbidden edges themselves are import-linter contracts (pyproject.toml), run by
``scripts/test`` and checked here too so that a plain ``pytest`` sees them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]


def _unit(module: str) -> str:
    """``anonstudio.core.<sub>`` for the engine's packages, ``anonstudio.<top>`` for the rest."""
    parts = module.split(".")
    if parts[:2] == ["anonstudio", "core"] and len(parts) > 2:
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def _imports() -> list[tuple[str, str, Path, ast.AST]]:
    found = []
    for f in (ROOT / "anonstudio").rglob("*.py"):
        mod = ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        pkg = mod if f.name == "__init__.py" else mod.rsplit(".", 1)[0]
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    targets = [".".join(base + ([node.module] if node.module else []))]
                else:
                    targets = [node.module or ""]
            for t in targets:
                if t.startswith("anonstudio"):
                    found.append((mod, t, f, node))
    return found


def test_no_import_cycle_between_packages():
    graph = nx.DiGraph()
    for mod, target, _, _ in _imports():
        a, b = _unit(mod), _unit(target)
        if a != b and b != "anonstudio" and (a, b) != ("anonstudio.cli", "anonstudio.gui"):
            graph.add_edge(a, b)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"import cycles between packages: {cycles[:5]}"


def test_the_cli_imports_the_gui_only_inside_its_gui_command():
    places = []
    for f in (ROOT / "anonstudio" / "cli").rglob("*.py"):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(func):
                    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("anonstudio.gui"):
                        places.append(func.name)
        top_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert not any((getattr(n, "module", "") or "").startswith("anonstudio.gui") for n in top_level), f
    assert places == ["cmd_gui"], places


def test_the_import_contracts_hold():
    import os

    exe = Path(sys.executable).with_name("lint-imports")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([str(exe), "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert ", 0 broken" in done.stdout


def _imports_qt(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        if any(n.split(".")[0] in ("PySide6", "pyqtgraph") for n in names):
            return True
    return False


def test_the_gui_package_holds_only_qt_code():
    """Issue 34: every module under ``anonstudio/gui`` imports PySide6 or pyqtgraph itself — Qt-free logic (the
    workspace, result views, projects, jobs) lives in ``anonstudio.core`` where the command line and tests use it.
    A package's ``__init__`` that holds nothing but its docstring and imports of its own modules is exempt."""
    smells = []
    for f in sorted((ROOT / "anonstudio" / "gui").rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        if _imports_qt(tree):
            continue
        package = ".".join(f.relative_to(ROOT).parent.parts)
        body = [n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        marker = f.name == "__init__.py" and all(
            isinstance(n, ast.ImportFrom) and (n.module or "").startswith(package) or
            (isinstance(n, ast.Assign) and [t.id for t in n.targets if isinstance(t, ast.Name)] == ["__all__"])
            for n in body)
        if not marker:
            smells.append(str(f.relative_to(ROOT)))
    assert not smells, f"modules in anonstudio/gui that import no Qt (move them to anonstudio.core): {smells}"
