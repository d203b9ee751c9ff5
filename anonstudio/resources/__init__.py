"""Files the package ships: the demo data and jobs, the user guide and the application icon.

Found through :mod:`importlib.resources`, so they are the same from a clone, an installed wheel or a
desktop bundle (never through a path relative to a checkout)::

    from anonstudio.resources import demo_folder, guide_text, icon_path
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def _root() -> Path:
    # Every supported install (wheel, editable, PyInstaller bundle) unpacks the package onto the file
    # system, so the traversable is a real directory; say so plainly if one day it is not (a zip import).
    root = resources.files(__name__)
    path = Path(str(root))
    if not path.is_dir():
        raise FileNotFoundError(f"anonstudio's bundled files are not on the file system ({root})")
    return path


def demo_folder() -> Path:
    """The bundled demo folder (read only: copy it before writing results next to it)."""
    return _root() / "demo"


def guide_path() -> Path:
    """The user guide (Markdown): the workbench's Help ▸ User guide (F1), built by ``scripts/sync-guide`` from the
    docs pages ``docs/guide.md`` and ``docs/jobs.md``."""
    return _root() / "guide" / "guide.md"


def guide_text() -> str:
    """The user guide's Markdown text."""
    return guide_path().read_text(encoding="utf-8")


def icon_path(size: int | None = None) -> Path:
    """The application icon: the SVG, or the PNG of ``size`` pixels (16, 32, 48, 64, 128, 256)."""
    icons = _root() / "icons"
    return icons / ("anonstudio.svg" if size is None else f"anonstudio-{size}.png")
