"""GUI test fixtures: a main window with private settings, captured message boxes, screenshots; kernels compiled
once per test run before any timed wait."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest.importorskip("pytestqt")
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from tests.conftest import SESSION_SCREENSHOTS as SCREENSHOTS  # noqa: E402

#: how long a runner that did not stop within its shutdown's 10 s is waited for before its test fails
STOP_GRACE_MS = 120_000


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Every method's kernels compiled (or loaded from the cache) once per test run, before the first Qt test:
    a test's timed wait for a run (``waitSignal(..., timeout=20_000)``) then never includes a cold compile, which
    takes minutes on a fresh cache and a loaded machine (issue 44 item 6). The demo jobs run in a temporary
    folder, as ``anonstudio warmup`` runs them. At the end of the run, every task thread still running is
    waited for: a thread destroyed while it runs aborts the whole process ("QThread: Destroyed while thread
    ... still running", exit 134)."""
    from anonstudio.core.warmup import warm_up

    warm_up()
    yield
    workers = sys.modules.get("anonstudio.gui.workers")
    reaper = getattr(workers, "_REAPER", None)
    still = [t for t in list(getattr(reaper, "live", ())) if not t.wait(STOP_GRACE_MS)]
    if still:
        pytest.fail(f"{len(still)} task thread(s) still running at the end of the tests: "
                    + ", ".join(t.objectName() for t in still))


def stop_runner(runner, what: str = "the window's runner", timeout_ms: int = 10_000) -> None:
    """Shut ``runner`` down; a task that does not stop within the shutdown's ``timeout_ms`` fails the test (the
    thread is then waited for up to :data:`STOP_GRACE_MS`, so the next test starts without it), never the whole
    process (the fixture used to ignore ``shutdown()``'s False, and the thread was destroyed while running)."""
    if runner.shutdown(timeout_ms):
        return
    from anonstudio.gui.workers import _reaper

    late = [t for t in list(_reaper().live) if not t.wait(STOP_GRACE_MS)]
    pytest.fail(f"{what} did not stop within {timeout_ms / 1000:g} s of its shutdown (Cancel was ignored)"
                + (f"; {len(late)} thread(s) still running after {STOP_GRACE_MS // 1000} s more" if late else ""))


@pytest.fixture
def shown(qtbot):
    """``shown(PaneClass, width, height)``: a pane built standalone, owned by qtbot, sized and shown."""

    def make(cls, width: int = 1100, height: int = 700):
        pane = cls(parent=None)
        qtbot.addWidget(pane)
        pane.resize(width, height)
        pane.show()
        return pane

    return make


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
    stop_runner(w.runner)


@pytest.fixture
def screenshot():
    """``screenshot(widget, name)`` saves ``<name>.png`` in this test run's screenshot folder (a temporary one,
    or ``$ANONSTUDIO_SCREENSHOTS``: see tests/gui/readme_screenshots.py) and returns its path."""

    def save(widget, name: str) -> Path:
        from PySide6.QtWidgets import QApplication

        for _ in range(3):  # let pending layouts settle first
            QApplication.processEvents()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        assert widget.grab().save(str(path)), f"could not save {path}"
        return path

    return save


@pytest.fixture
def adult_csv(tmp_path, engine_io) -> Path:
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
def sex_hierarchy_csv(tmp_path, engine_io) -> Path:
    path = tmp_path / "sex.csv"
    path.write_text("Male;*\nFemale;*\n", encoding="utf-8")
    return path


@pytest.fixture
def education_hierarchy_csv(tmp_path, engine_io) -> Path:
    """Leaves only part of the data's values (Masters and 9th are missing)."""
    path = tmp_path / "education.csv"
    path.write_text("Bachelors;Higher;*\nHS-grad;Secondary;*\n11th;Secondary;*\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------------------
# a tiny, real method for driving runs through the window without depending on which methods have landed
import time  # noqa: E402

import numpy as np  # noqa: E402

from anonstudio.core.algorithms import Algorithm, Result  # noqa: E402
from anonstudio.core.data import Table  # noqa: E402
from anonstudio.core.params import Param, ParamSet, suppression_budget  # noqa: E402
from anonstudio.core.progress import report  # noqa: E402


class GeneraliseAll(Algorithm):
    """Generalise every quasi-identifier to its hierarchy's root (one group: k-anonymous for k ≤ n).

    Reference: full-domain generalisation to the top level, Samarati (2001), as a test fixture.
    """

    name = "test-root"
    title = "Generalise all (test)"
    data_kind = "table"
    reference = "Samarati P. Protecting respondents' identities in microdata release. IEEE TKDE 13(6), 2001."
    parameters = ParamSet((
        Param("k", "int", 2, "group size", low=1),
        Param("delay", "float", 0.0, "seconds to sleep per chunk (to test cancelling)", low=0),
    ))
    # it publishes every record at the root, i.e. fully suppressed: its own default allows that, as a job with
    # algorithm.max_suppression = 1 would (the generalizing methods' default allows a tenth)
    pipeline_parameters = suppression_budget(1.0)

    def run(self, data, hierarchies, progress=None):
        df = data.df.copy()
        chunks = 20
        for i in range(chunks):
            report(progress, i / chunks, f"chunk {i + 1} of {chunks}")
            if self.params["delay"]:
                time.sleep(self.params["delay"])
        for attr in data.quasi_identifiers:
            df[attr] = hierarchies[attr].root_label
        out = Table(df, roles=dict(data.roles), types=dict(data.types), source=None, delimiter=data.delimiter)
        return Result(out, np.zeros(len(df), dtype=np.int64))


@pytest.fixture
def registered_method() -> str:
    """The name of :class:`GeneraliseAll`, registered for this test (the public registry API)."""
    from anonstudio.core import algorithms

    with algorithms.registered(GeneraliseAll) as name:
        yield name


@pytest.fixture
def test_method(registered_method) -> str:
    """As ``registered_method``, for tests that run it."""
    return registered_method


@pytest.fixture
def engine_io():
    """The engine's readers and writers (a missing one is a failure, never a skip)."""
    from anonstudio.core import io

    return io
