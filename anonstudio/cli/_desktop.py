"""``anonstudio desktop-entry``: install (or remove) the Linux desktop entry and icons for the current user.

Follows the freedesktop.org Desktop Entry and Icon Theme specifications: the entry goes to
``$XDG_DATA_HOME/applications/anonstudio.desktop`` (default ``~/.local/share``), the icon to
``$XDG_DATA_HOME/icons/hicolor/<N>x<N>/apps/anonstudio.png`` and ``…/scalable/apps/anonstudio.svg``.
``Exec`` is the ``anonstudio`` program this command was started from (a wheel's console script or a
desktop bundle's executable), so the entry starts the same installation.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from anonstudio import _folders
from anonstudio.core.errors import AnonStudioError

SIZES = (16, 32, 48, 64, 128, 256)


def data_home() -> Path:
    """The user's data folder (``$XDG_DATA_HOME``, else ``~/.local/share``)."""
    return _folders.data_home()


def program() -> list[str]:
    """The command (program and arguments) that starts this installation of anonstudio.

    Paths are made absolute but symlinks are kept: a virtual environment's ``python`` is a symlink whose
    target would start the base interpreter without the environment's packages."""
    if getattr(sys, "frozen", False):  # a PyInstaller bundle: its own executable
        return [str(Path(sys.executable).absolute())]
    found = shutil.which("anonstudio")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "anonstudio"]


def _quote(arg: str) -> str:
    """Quote one ``Exec`` argument as the Desktop Entry specification asks (reserved characters)."""
    if not any(c in arg for c in ' \t\n"\'\\><~|&;$*?#()`'):
        return arg
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`").replace("$", "\\$")
    return f'"{escaped}"'


def entry_text(command: list[str]) -> str:
    from anonstudio import __version__

    quoted = " ".join(_quote(a) for a in command)
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        f"Version=1.5\n"
        "Name=anonstudio\n"
        "GenericName=Data anonymization workbench\n"
        "Comment=Anonymize tables, event sequences and protein/DNA strings before sharing them\n"
        f"Exec={quoted} gui %f\n"
        "Icon=anonstudio\n"
        "Terminal=false\n"
        "Categories=Science;DataVisualization;Office;\n"
        "MimeType=text/csv;text/tab-separated-values;\n"
        "Keywords=anonymization;privacy;k-anonymity;FASTA;\n"
        f"X-anonstudio-Version={__version__}\n"
    )


def install(prefix: Path | None = None, command: list[str] | None = None) -> list[Path]:
    """Write the desktop entry and icons under ``prefix`` (default ``$XDG_DATA_HOME``); returns the paths."""
    from anonstudio.core.io import atomic_write
    from anonstudio.resources import icon_path

    prefix = Path(prefix) if prefix is not None else data_home()
    written: list[Path] = []
    try:
        entry = prefix / "applications" / "anonstudio.desktop"
        entry.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(entry, "w", encoding="utf-8") as fh:
            fh.write(entry_text(command or program()))
        written.append(entry)
        for size in SIZES:
            target = prefix / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "anonstudio.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(target, "wb") as fh:
                fh.write(icon_path(size).read_bytes())
            written.append(target)
        svg = prefix / "icons" / "hicolor" / "scalable" / "apps" / "anonstudio.svg"
        svg.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(svg, "wb") as fh:
            fh.write(icon_path().read_bytes())
        written.append(svg)
    except OSError as exc:
        raise AnonStudioError(f"cannot install the desktop entry: {exc.strerror or exc}", file=str(exc.filename or prefix)) from None
    return written


def uninstall(prefix: Path | None = None) -> list[Path]:
    """Remove what :func:`install` wrote; returns the paths removed."""
    prefix = Path(prefix) if prefix is not None else data_home()
    candidates = [prefix / "applications" / "anonstudio.desktop"]
    candidates += [prefix / "icons" / "hicolor" / f"{s}x{s}" / "apps" / "anonstudio.png" for s in SIZES]
    candidates.append(prefix / "icons" / "hicolor" / "scalable" / "apps" / "anonstudio.svg")
    removed = []
    for path in candidates:
        if path.is_file():
            path.unlink()
            removed.append(path)
    return removed
