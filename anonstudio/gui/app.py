"""``anonstudio gui [FILE] [--demo]``: start the desktop workbench.

Environment: ``ANONSTUDIO_EXIT_AFTER_SHOW=1`` makes the workbench print ``shown after X.XXX s`` (seconds
from the process's start to the window being shown and painted, and with ``--demo`` the demo opened)
and quit at once with exit code 0; ``tests/benchmarks/bench_gui_startup.py`` uses it. A number of seconds
instead of ``1`` (e.g. ``ANONSTUDIO_EXIT_AFTER_SHOW=2.5``) keeps the window up that long before quitting,
with the event loop running (the packaging smoke tests use it). ``ANONSTUDIO_SAY_DIALOGS=1`` prints
``dialog shown: <title>`` each time a dialog opens (the signal tests wait for it).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

_IMPORTED = time.time()
EXIT_AFTER_SHOW = "ANONSTUDIO_EXIT_AFTER_SHOW"
SAY_DIALOGS = "ANONSTUDIO_SAY_DIALOGS"


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
    exits with 128 + the signal's number.

    A signal also reaches a window busy in a nested event loop — a modal dialog (an error on opening a truncated
    project), a question — which ignored it before (issue 44 item 10): the socket notifier fires in any event
    loop of the GUI thread; the open dialogs are dismissed (rejected, as Escape does), the window closes (its
    runners are cancelled and waited for) and every event loop is left. A signal that arrives before the main
    event loop has started (a dialog shown while the file named on the command line opens) makes :func:`main`
    return without starting it."""

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
        self._previous = {number: signal.signal(number, self._note)
                          for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        self.notifier = QSocketNotifier(self._read.fileno(), QSocketNotifier.Type.Read)
        self.notifier.activated.connect(self._wake)

    def _note(self, number: int, frame) -> None:  # the Python-level handler: note only, Qt acts on the wake-up
        self._pending.append(number)

    def _wake(self, *args) -> None:
        import contextlib
        import signal

        with contextlib.suppress(OSError):
            while True:
                got = self._read.recv(512)
                if not got:
                    break
                for number in got:  # the C-level handler writes each signal's number (the Python one may lag)
                    if number not in self._pending:
                        self._pending.append(number)
        while self._pending:
            number = self._pending.pop(0)
            if number not in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                continue
            if number != signal.SIGINT:  # nobody will answer a question: keep the work, then close
                with contextlib.suppress(Exception):
                    if self.window.state.dirty:
                        self.window.autosave()
                self.window.state.dirty = False
            self._dismiss_dialogs()
            if self.window.close():
                self.received = number
                self.app.closeAllWindows()  # the guide, the experiments window
                self.app.exit(0)  # every running event loop, the dialogs' nested ones too

    def _dismiss_dialogs(self) -> None:
        """Reject every open modal dialog (innermost first), so each nested event loop returns as on Escape."""
        from PySide6.QtWidgets import QApplication, QDialog

        for _ in range(32):  # a dialog's closing may open none, but never loop on one that refuses
            widget = QApplication.activeModalWidget()
            if widget is None:
                return
            if isinstance(widget, QDialog):
                widget.done(int(QDialog.DialogCode.Rejected))
            widget.close()
            widget.hide()  # a dialog that ignores its close event still leaves the modal stack

    def uninstall(self) -> None:
        """The event loop has returned: the process's earlier handlers and wake-up fd back, the socket closed (a
        signal arriving later, in a process that goes on, is not this window's)."""
        import contextlib
        import signal

        self.notifier.setEnabled(False)
        with contextlib.suppress(ValueError, OSError):
            signal.set_wakeup_fd(self._previous_fd)
            for number, handler in self._previous.items():
                signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        self._read.close()
        self._write.close()

    def exit_code(self, code: int) -> int:
        return 128 + int(self.received) if self.received is not None else code


def main(file: str | Path | None = None, demo: bool = False) -> int:
    """Open the workbench (on ``file``: data, job or project; or on the bundled demo) and run the event
    loop; returns the exit code."""
    from anonstudio.core.kernels import application_process

    application_process()  # a process of its own: numba's idle OpenMP threads sleep (before numba loads)
    app = make_application()
    from anonstudio.gui.main_window import MainWindow
    from anonstudio.gui.workers import collect_garbage_in_gui_thread

    collect_garbage_in_gui_thread(freeze_after_preload=True)  # the engine's modules, once imported (see there)

    window = MainWindow()
    window.install_excepthook()  # an exception escaping a slot: a sentence, details, the error log — never raw
    stops = StopSignals(app, window)
    if os.environ.get(SAY_DIALOGS):
        app.installEventFilter(_dialog_reporter(app))
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
    try:
        # a stop signal taken in a dialog before the loop started (the file given on the command line) ends here
        code = int(app.exec()) if stops.received is None else 0
    finally:
        stops.uninstall()
    return stops.exit_code(code)


def _dialog_reporter(app):
    """An event filter printing ``dialog shown: <title>`` when a dialog is shown (``ANONSTUDIO_SAY_DIALOGS``)."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QDialog

    class Reporter(QObject):
        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == QEvent.Type.Show and isinstance(watched, QDialog):
                print(f"dialog shown: {watched.windowTitle()}", flush=True)
            return False

    return Reporter(app)


if __name__ == "__main__":
    sys.exit(main(*(sys.argv[1:2] or [None])))
