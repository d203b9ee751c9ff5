"""``anonstudio gui [FILE] [--demo]``: start the desktop workbench.

Environment: ``ANONSTUDIO_EXIT_AFTER_SHOW=1`` makes the workbench print ``shown after X.XXX s`` (seconds
from the process's start to the window being shown and painted, and with ``--demo`` the demo opened)
and quit at once with exit code 0; ``tests/benchmarks/bench_gui_startup.py`` uses it. A number of seconds
instead of ``1`` (e.g. ``ANONSTUDIO_EXIT_AFTER_SHOW=2.5``) keeps the window up that long before quitting,
with the event loop running (the packaging smoke tests use it).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

_IMPORTED = time.time()
EXIT_AFTER_SHOW = "ANONSTUDIO_EXIT_AFTER_SHOW"


def seconds_since_process_start() -> float:
    """Wall-clock seconds since this process started (Linux: from ``/proc``; elsewhere: since this module
    was imported, which is later)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of stat(5); fields[0] is field 3
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return time.time() - _IMPORTED

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
    app.setWindowIcon(application_icon())
    from anonstudio.gui.workers import collect_garbage_in_gui_thread

    collect_garbage_in_gui_thread()  # Qt objects are destroyed in the GUI thread only (see there)
    return app


def application_icon():
    """The application icon (every bundled PNG size, so each window manager picks a sharp one)."""
    from PySide6.QtGui import QIcon

    from anonstudio.resources import icon_path

    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256):
        icon.addFile(str(icon_path(size)))
    return icon


class StopSignals:
    """SIGINT, SIGTERM and SIGHUP close the workbench (issue 34 item 7). Python runs a signal handler only when
    the interpreter gets control, which Qt's event loop does not give it: the handler only notes the signal and
    writes to a socket (``signal.set_wakeup_fd``) that a ``QSocketNotifier`` watches, so the window hears of it
    at once. Ctrl+C (SIGINT) closes the window as Quit does — it asks only if something is unsaved; SIGTERM and
    SIGHUP (``timeout``, a logout, ``kill``) cannot wait for an answer: unsaved work is autosaved beside the
    project (or in the application's data folder) and the window closes without asking. The process then
    exits with 128 + the signal's number."""

    def __init__(self, app, window) -> None:
        import signal
        import socket

        from PySide6.QtCore import QSocketNotifier

        self.app, self.window, self.received = app, window, None
        self._pending: list[int] = []
        self._read, self._write = socket.socketpair()
        for sock in (self._read, self._write):
            sock.setblocking(False)
        self._previous_fd = signal.set_wakeup_fd(self._write.fileno())
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, self._note)
        self.notifier = QSocketNotifier(self._read.fileno(), QSocketNotifier.Type.Read)
        self.notifier.activated.connect(self._wake)

    def _note(self, number: int, frame) -> None:  # the Python-level handler: note only, Qt acts on the wake-up
        self._pending.append(number)

    def _wake(self, *args) -> None:
        import contextlib
        import signal

        with contextlib.suppress(OSError):
            while self._read.recv(512):
                pass
        while self._pending:
            number = self._pending.pop(0)
            if number != signal.SIGINT:  # nobody will answer a question: keep the work, then close
                with contextlib.suppress(Exception):
                    if self.window.state.dirty:
                        self.window.autosave()
                self.window.state.dirty = False
            if self.window.close():
                self.received = number
                self.app.quit()

    def exit_code(self, code: int) -> int:
        return 128 + int(self.received) if self.received is not None else code


def main(file: str | Path | None = None, demo: bool = False) -> int:
    """Open the workbench (on ``file``: data, job or project; or on the bundled demo) and run the event
    loop; returns the exit code."""
    app = make_application()
    from anonstudio.gui.main_window import MainWindow
    from anonstudio.gui.workers import collect_garbage_in_gui_thread

    collect_garbage_in_gui_thread(freeze_after_preload=True)  # the engine's modules, once imported (see there)

    window = MainWindow()
    stops = StopSignals(app, window)
    window.show()
    if demo:
        window.open_demo()
    elif file is not None:
        window.open_path(file, wait=False)
    if os.environ.get(EXIT_AFTER_SHOW):
        from PySide6.QtCore import QTimer

        def report_shown() -> None:
            window.repaint()  # painted, not just mapped
            print(f"shown after {seconds_since_process_start():.3f} s", flush=True)

        def quit_now() -> None:
            window.state.dirty = False  # nothing to ask about
            window.close()
            app.quit()

        value = os.environ[EXIT_AFTER_SHOW].strip()
        try:
            linger = 0.0 if value == "1" else max(float(value), 0.0)  # "1" is the switch, not one second
        except ValueError:
            linger = 0.0
        QTimer.singleShot(0, report_shown)
        QTimer.singleShot(int(linger * 1000), quit_now)
    return stops.exit_code(int(app.exec()))


if __name__ == "__main__":
    sys.exit(main(*(sys.argv[1:2] or [None])))
