"""GUI test fixtures: a main window with private settings, captured message boxes, screenshots."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest.importorskip("pytestqt")
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@pytest.fixture
def settings(tmp_path) -> QSettings:
    """Settings in a temporary ini file (never the user's)."""
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


class Messages:
    """Records QMessageBox calls instead of showing them; ``answer`` is what ``question`` returns."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []
        self.answer = QMessageBox.StandardButton.Discard

    def texts(self, kind: str | None = None) -> list[str]:
        return [text for k, _title, text in self.calls if kind is None or k == kind]


@pytest.fixture
def messages(monkeypatch) -> Messages:
    rec = Messages()

    def make(kind):
        def fake(parent, title, text, *args, **kwargs):
            rec.calls.append((kind, title, str(text)))
            return rec.answer if kind == "question" else QMessageBox.StandardButton.Ok

        return staticmethod(fake)

    for kind in ("critical", "warning", "information", "question", "about"):
        monkeypatch.setattr(QMessageBox, kind, make(kind))
    return rec


@pytest.fixture
def window(qtbot, settings, messages):
    from anonstudio.gui.main_window import MainWindow

    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    yield w
    w.state.dirty = False
    w.runner.shutdown()


@pytest.fixture
def screenshot():
    """``screenshot(widget, name)`` saves ``artifacts/screenshots/<name>.png`` and returns its path."""

    def save(widget, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        assert widget.grab().save(str(path)), f"could not save {path}"
        return path

    return save


@pytest.fixture
def adult_csv(tmp_path) -> Path:
    """A small Adult-like table."""
    df = pd.DataFrame(
        {
            "age": ["39", "50", "38", "53", "28", "37", "49", "52", "31", "42"],
            "sex": ["Male", "Male", "Male", "Male", "Female", "Female", "Female", "Male", "Female", "Male"],
            "education": ["Bachelors", "Bachelors", "HS-grad", "11th", "Bachelors", "Masters", "9th", "HS-grad", "Masters", "Bachelors"],
            "salary-class": ["<=50K", "<=50K", "<=50K", "<=50K", "<=50K", "<=50K", "<=50K", ">50K", ">50K", ">50K"],
        }
    )
    path = tmp_path / "adult.csv"
    df.to_csv(path, index=False, sep=";")
    return path


@pytest.fixture
def sex_hierarchy_csv(tmp_path) -> Path:
    path = tmp_path / "sex.csv"
    path.write_text("Male;*\nFemale;*\n", encoding="utf-8")
    return path


@pytest.fixture
def education_hierarchy_csv(tmp_path) -> Path:
    """Leaves only part of the data's values (Masters and 9th are missing)."""
    path = tmp_path / "education.csv"
    path.write_text("Bachelors;Higher;*\nHS-grad;Secondary;*\n11th;Secondary;*\n", encoding="utf-8")
    return path
