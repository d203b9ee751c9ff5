"""The bundled demo: copied out of the package before anything runs on it (the bundled files are never
written to). Used by ``anonstudio demo``, ``anonstudio gui --demo`` and ``anonstudio warmup``."""

from __future__ import annotations

import shutil
from pathlib import Path

from anonstudio.core.errors import AnonStudioError


def prepare_demo(out: str | Path) -> Path:
    """Copy the bundled demo folder (data, hierarchies, one job per method family) to ``out``."""
    from anonstudio.resources import demo_folder

    out = Path(out)
    src = demo_folder()
    if not src.is_dir():
        raise AnonStudioError(f"bundled demo data not found at {src}")
    shutil.copytree(src, out, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.py", "__pycache__", "results"))
    return out


def demo_jobs(folder: str | Path) -> list[Path]:
    """The demo's job files, in name order."""
    return sorted(Path(folder).glob("*.toml"))
