"""The engine: data containers, readers and writers, hierarchies, methods, verifiers and metrics.

No module under ``anonstudio.core`` imports Qt, pyqtgraph, the GUI or the CLI (an import-linter contract
in ``pyproject.toml`` and a test check it).
"""
