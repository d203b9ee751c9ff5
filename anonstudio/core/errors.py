"""Errors the engine raises for things a user can fix.

Every error a user can cause is an :class:`AnonStudioError` carrying where it happened (file, line or
record, column) and one human sentence. The CLI prints ``str(error)`` as its one line on stderr and maps
the class to the exit code of the contract (``exit_code``); the GUI shows the same text in a dialog.
"""

from __future__ import annotations

from pathlib import Path

try:  # loaded now: at its address-space limit a process may no longer load an extension module
    import resource as _resource
except ImportError:  # Windows
    _resource = None  # type: ignore[assignment]


class AnonStudioError(Exception):
    """Base of every user-facing error.

    Parameters
    ----------
    message:
        One sentence saying what is wrong, in the user's terms.
    file:
        The file involved, if any.
    line:
        1-based line number in ``file``.
    record:
        A record identifier (FASTA id, sequence id, row number) where lines do not fit.
    column:
        Column or attribute name (of the data).
    key:
        Job-file key (``algorithm.k``, ``input.quasi_identifiers``) or parameter name.
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        record: str | int | None = None,
        column: str | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.record = record
        self.column = column
        self.key = key

    def location(self, *, column: bool = True, key: bool = True) -> str:
        """``file:line`` / ``file, record R`` / ``column 'c'`` — whatever is known, joined (``column`` and
        ``key`` False: without those parts, for callers that word them themselves)."""
        parts: list[str] = []
        if self.file is not None:
            parts.append(self.file + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.record is not None:
            parts.append(f"record {self.record}")
        if column and self.column is not None:
            parts.append(f"column '{self.column}'")
        if key and self.key is not None:
            parts.append(f"key '{self.key}'")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        return one_line(f"{where}: {self.message}" if where else self.message)


def one_line(text: str) -> str:
    """``text`` with every control character (a newline, a carriage return, a tab, an escape) written as its
    escape, ``\\n``: an error is one line on stderr and one sentence in a dialog, whatever a key, a file name or
    a value quoted in it holds."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii") for c in text)


class InputError(AnonStudioError):
    """A data file (table, FASTA, events) cannot be read as asked."""


class ReadFailure(InputError):
    """The system failed to read a file (an I/O error of the disk or the network file system): nothing is known
    of its content, so it is never a verification's verdict on it (exit 2)."""


class HierarchyError(AnonStudioError):
    """A generalization hierarchy is malformed or does not cover the data."""


class JobError(AnonStudioError):
    """A job file is malformed: unknown key, wrong type, missing path."""


class ParameterError(AnonStudioError):
    """An algorithm parameter is out of range or inconsistent with the data (e.g. k > n)."""


class OutputError(AnonStudioError):
    """An output cannot be written where asked: a folder, a device, a read-only place, a full disk."""


class NotAvailableError(AnonStudioError):
    """A method or experiment named in the contract that this version does not provide yet."""


class PrivacyError(AnonStudioError):
    """The privacy model could not be met, or an output failed independent verification (exit 1)."""

    exit_code = 1


class ResourceError(AnonStudioError):
    """The machine lacks what the run needs — memory, open files, threads — under its limits (exit 2)."""


_GB = float(1 << 30)


def _size(n: float) -> str:
    """``n`` bytes as a reader takes them in: GB from one, else MB or kB ("needs about 0.0 GB, 0.0 GB available"
    said nothing: issue 44 item 10)."""
    if n >= _GB:
        return f"{n / _GB:,.1f} GB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):,.0f} MB"
    return f"{n / 1024:,.0f} kB" if n >= 1024 else f"{int(n)} bytes"


def _proc_bytes(path: str, key: str) -> int | None:
    """The ``key`` line of a ``/proc`` file (in kB there) as bytes; ``None`` if it cannot be read."""
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_available() -> tuple[int | None, str]:
    """Bytes this process may still allocate, and what bounds them: the smaller of the system's available
    memory (``MemAvailable``) and what the address-space limit (``ulimit -v``) leaves. ``None`` if unknown."""
    best = _proc_bytes("/proc/meminfo", "MemAvailable:")
    what = "the system's free memory"
    try:
        if _resource is None:
            raise ImportError("no resource module (Windows)")
        soft = _resource.getrlimit(_resource.RLIMIT_AS)[0]
        if soft != _resource.RLIM_INFINITY:
            # a process at its limit may fail to read the file: the limit still bounds it
            left = max(0, soft - (_proc_bytes("/proc/self/status", "VmSize:") or 0))
            if best is None or left < best:
                best, what = left, f"under the address-space limit, ulimit -v, of {_size(soft)}"
    except (ImportError, OSError, ValueError, IndexError, AttributeError):
        pass
    return best, what


def _requested_bytes(exc: MemoryError) -> int | None:
    """What a failed allocation asked for, where numpy says (its ``_ArrayMemoryError`` keeps shape and type)."""
    size = getattr(exc, "_total_size", None)
    if isinstance(size, int):
        return size
    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if shape is not None and dtype is not None:
        total = int(getattr(dtype, "itemsize", 1))
        for n in shape:
            total *= int(n)
        return total
    return None


#: the phases of a run, by the module (and, in the pipeline, the function) that was running: the outermost match
#: along the stack names what needed the memory
_PHASES: tuple[tuple[str, str, str], ...] = (
    ("anonstudio.core.publication", "", "publishing the release"),
    ("anonstudio.core.io._atomic", "", "publishing the release"),
    ("anonstudio.core.jobs._pipeline", "load_data", "reading the input"),
    ("anonstudio.core.jobs._pipeline", "load_hierarchies", "building the hierarchies"),
    ("anonstudio.core.jobs._pipeline", "build_hierarchy_spec", "building the hierarchies"),
    ("anonstudio.core.jobs._pipeline", "verify_job", "the verification"),
    ("anonstudio.core.privacy", "", "the verification"),
    ("anonstudio.core.risk", "", "the risk analysis"),
    ("anonstudio.core.metrics", "", "the quality measures"),
    ("anonstudio.core.views", "", "the result views"),
    ("anonstudio.core.algorithms", "", "the method's run"),
    ("anonstudio.core.kernels", "", "the method's run"),
    ("anonstudio.core.hierarchy", "", "building the hierarchies"),
    ("anonstudio.core.io", "", "reading the input"),
    ("anonstudio.core.generate", "", "generating the data"),
    ("anonstudio.core.experiments", "", "the experiment"),
)


def failed_step(exc: BaseException) -> str | None:
    """What the run was doing when ``exc`` was raised ("reading the input", "the method's run", "the
    verification", "publishing the release" …), from the outermost frame of the engine's phases on its
    traceback; ``None`` when no phase is on it."""
    tb = exc.__traceback__
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        function = tb.tb_frame.f_code.co_name
        for prefix, name, phase in _PHASES:
            if (module == prefix or module.startswith(prefix + ".")) and (not name or name == function):
                return phase
        tb = tb.tb_next
    return None


def environment_error(exc: BaseException) -> ResourceError | None:
    """One sentence for running out of memory, open files or threads (anywhere in ``exc``'s chain of causes),
    or ``None`` when ``exc`` is something else. Memory: "needs about N GB, M GB available" when the failed
    allocation says its size (numpy arrays), else the memory that was available."""
    import errno

    seen = 0
    step = failed_step(exc)
    while exc is not None and seen < 8:
        text = str(exc)
        mapped = "failed to map segment" in text or "Cannot allocate memory" in text  # a library that did not fit
        # pandas' C parser says "Error tokenizing data. C error: out of memory" in a ParserError (a ValueError)
        parser_oom = isinstance(exc, (ValueError, RuntimeError)) and "C error: out of memory" in text
        if isinstance(exc, MemoryError) or (isinstance(exc, OSError) and (exc.errno == errno.ENOMEM or mapped)) or (
                isinstance(exc, ImportError) and mapped) or parser_oom:
            left, what = memory_available()
            have = f"{_size(left)} available ({what})" if left is not None else "less available"
            needed = _requested_bytes(exc) if isinstance(exc, MemoryError) else None
            if "libllvmlite" in text:
                return ResourceError(f"not enough memory to load the kernel compiler (numba's libllvmlite): {have}; "
                                     "raise the limit or free memory")
            if mapped:
                library = text.split(":")[0].rsplit("/", 1)[-1] or "a library"
                return ResourceError(f"not enough memory to load {library}: {have}; raise the limit or free memory")
            during = f" for {step}" if step else " for this run"
            if needed:
                return ResourceError(f"not enough memory{during}: it needs about {_size(needed)}, {have}; "
                                     "use a smaller input or a machine with more memory")
            return ResourceError(f"not enough memory{during} ({have} when it ran out): use a smaller input, "
                                 "raise the limit or free memory")
        if isinstance(exc, RuntimeError) and "can't start new thread" in text:
            left, what = memory_available()
            have = f" ({_size(left)} available, {what})" if left is not None else ""
            return ResourceError(f"cannot start a thread: the memory limit or the process limit (ulimit -u) is too "
                                 f"low{have}")
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
            try:
                import resource

                limit = f"this process may open {resource.getrlimit(resource.RLIMIT_NOFILE)[0]} (ulimit -n)"
            except ImportError:
                limit = "the limit of open files is reached"
            return ResourceError(f"too many open files: {limit}; raise the limit, e.g. ulimit -n 4096")
        cause = exc.__cause__ or exc.__context__
        if cause is None:
            break
        exc = cause
        seen += 1
    return None
