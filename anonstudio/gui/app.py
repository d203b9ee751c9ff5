"""``anonstudio gui [FILE] [--demo]``: start the desktop workbench."""

from __future__ import annotations

import sys
from pathlib import Path

ORGANIZATION = "anonstudio"
APPLICATION = "anonstudio"


def make_application(argv: list[str] | None = None):
    """The running ``QApplication`` (created with anonstudio's names, which ``QSettings`` uses)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(list(argv) if argv is not None else sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setOrganizationDomain("anonstudio.invalid")
    app.setApplicationName(APPLICATION)
    from anonstudio import __version__

    app.setApplicationVersion(__version__)
    return app


def main(file: str | Path | None = None, demo: bool = False) -> int:
    """Open the workbench (on ``file``: data, job or project; or on the bundled demo) and run the event
    loop; returns the exit code."""
    app = make_application()
    from anonstudio.gui.main_window import MainWindow

    window = MainWindow()
    window.show()
    if demo:
        window.open_demo()
    elif file is not None:
        window.open_path(file, wait=False)
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main(*(sys.argv[1:2] or [None])))
