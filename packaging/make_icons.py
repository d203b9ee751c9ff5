"""Render the application icon's PNG sizes from ``anonstudio/resources/icons/anonstudio.svg`` with Qt's
SVG renderer (QtSvg ships with PySide6-Essentials). Run after editing the SVG::

    QT_QPA_PLATFORM=offscreen python packaging/make_icons.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "anonstudio" / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256)


def render(svg: Path = ICONS / "anonstudio.svg", out: Path = ICONS) -> list[Path]:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (keeps Qt alive)
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = out / f"anonstudio-{size}.png"
        if not image.save(str(path)):
            raise SystemExit(f"cannot write {path}")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in render():
        print(p)
