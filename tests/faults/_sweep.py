"""The fault sweep of issue 29: a publication's filesystem steps, found in a traced run, each failed or signalled
in a fresh run (``strace -e inject``), and what a reader then finds checked.

A *step* is one system call of the command's main thread that touches the output folder: creating and
writing a staging file, flushing a file or the folder, a hard link (a backup), a rename, an unlink. strace
counts injections per system call and per thread, so a step is named by its call and ordinal (the 3rd
``rename`` of the main thread) and found again in each faulted run's own trace, which must show the same step
there (staging names are random: they are compared with their pid and token blotted out).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRACED = "rename,renameat,renameat2,unlink,unlinkat,link,linkat,write,fsync,fdatasync,openat"
#: the error each kind of step is failed with
ERRORS = {"rename": "EIO", "renameat": "EIO", "renameat2": "EIO", "link": "EPERM", "linkat": "EPERM",
          "unlink": "EIO", "unlinkat": "EIO", "write": "ENOSPC", "fsync": "EIO", "fdatasync": "EIO",
          "openat": "ENOSPC"}
ACTIONS = ("error", "SIGKILL", "SIGTERM")
_LINE = re.compile(r"^(\d+) +(\w+)\((.*)$")
_STAGING = re.compile(r"\.anonstudio\.(part|journal)\.\d+\.[0-9a-f]{8}(?:[0-9a-f]{8})?\.")


def strace_problem() -> str | None:
    """Why the sweep cannot run here (no strace, or tracing not permitted), or ``None``."""
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace; ./scripts/setup does it as root)"
    done = subprocess.run(["strace", "-f", "-qq", "-e", "trace=none", "true"], capture_output=True, text=True)
    if done.returncode != 0:
        return f"strace cannot trace here: {done.stderr.strip()[:200]}"
    return None


@dataclass(frozen=True)
class Step:
    syscall: str
    ordinal: int  # among the main thread's calls of ``syscall``
    text: str  # the call's arguments, staging names blotted out

    def __str__(self) -> str:
        return f"{self.syscall}#{self.ordinal} {self.text[:110]}"


def _calls(log: Path, work: Path) -> list[tuple[str, int, str]]:
    """``(syscall, ordinal, arguments)`` of the main thread (the first one in the log), in order; the run's
    folder ``work`` written ``<work>``."""
    counts: collections.Counter = collections.Counter()
    out = []
    main = None
    for line in log.read_text(errors="replace").splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        tid, call, rest = m.groups()
        main = main or tid
        if tid != main:
            continue
        counts[call] += 1
        out.append((call, counts[call], _STAGING.sub(".anonstudio.<staging>.", rest.replace(str(work), "<work>"))))
    return out


def publication_steps(log: Path, folder: Path) -> list[Step]:
    """The steps of a traced run that touch ``folder``: files created there, their first write, flushes,
    links, renames and unlinks. Opening the folder itself (its lock, a flush of the folder) is no step, nor are
    later writes to a file already written."""
    inside = f"<work>/{folder.name}/"
    steps, written = [], set()
    for call, n, rest in _calls(log, folder.parent):
        if inside not in rest and f"<work>/{folder.name}>" not in rest:
            continue
        if call == "openat" and ("O_CREAT" not in rest or "O_DIRECTORY" in rest):
            continue
        if call == "write":
            fd = rest.split(",", 1)[0]
            if fd in written:
                continue
            written.add(fd)
        steps.append(Step(call, n, rest.split(") = ")[0]))
    return steps


def strace_command(log: Path, step: Step | None, action: str | None) -> list[str]:
    cmd = ["strace", "-f", "-qq", "-y", "-o", str(log), "-e", f"trace={TRACED}"]
    if step is not None:
        what = f"error={ERRORS[step.syscall]}" if action == "error" else f"signal={action}"
        cmd += ["-e", f"inject={step.syscall}:{what}:when={step.ordinal}"]
    return cmd


def environment(xdg: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1", XDG_DATA_HOME=str(xdg),
               QT_QPA_PLATFORM="offscreen")
    return env


def run_traced(folder: Path, args: list[str], log: Path, xdg: Path, step: Step | None = None,
               action: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*strace_command(log, step, action), sys.executable, "-m", "anonstudio", *args],
                          cwd=folder, env=environment(xdg), capture_output=True, text=True, timeout=600)


def injected_at(log: Path, step: Step, work: Path) -> bool:
    """Whether the faulted run's trace (of a run in ``work``) has ``step`` where it was planned (same call,
    ordinal and arguments)."""
    for call, n, rest in _calls(log, work):
        if call == step.syscall and n == step.ordinal:
            return rest.split(") = ")[0].startswith(step.text[:60])
    return False


# ---------------------------------------------------------------------------------------------------------
# what a reader finds
@dataclass(frozen=True)
class Release:
    """The files of one release of the sweep's job, by name: their bytes (the report: its parameters)."""

    files: dict[str, bytes]
    label: str


def state_of(out: Path, names: list[str], report: str) -> dict[str, object]:
    state: dict[str, object] = {}
    for name in names:
        p = out / name
        if p.exists():
            state[name] = json.loads(p.read_text())["parameters"] if name == report else p.read_bytes()
    return state


def release_state(release: Release, names: list[str], report: str) -> dict[str, object]:
    return {n: (json.loads(release.files[n])["parameters"] if n == report else release.files[n]) for n in names}


def leftovers(out: Path) -> list[str]:
    """Staging files and journals in ``out``."""
    with contextlib.suppress(FileNotFoundError):
        return sorted(p.name for p in out.iterdir() if p.name.startswith(".anonstudio."))
    return []
