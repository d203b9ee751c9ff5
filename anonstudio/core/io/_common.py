"""Shared pieces of the readers: opening a file read-only, decoding it, naming delimiters."""

from __future__ import annotations

import codecs
import stat
from pathlib import Path

from anonstudio.core.errors import AnonStudioError, InputError, ReadFailure
from anonstudio.core.progress import checkpoint

#: Names users may write for a tab in a job file or on the command line.
_DELIMITER_ALIASES = {"\\t": "\t", "tab": "\t", "TAB": "\t", "comma": ",", "semicolon": ";"}


#: Longest line (or cell) a table, event log, hierarchy, job or project file may have. Real records are far
#: shorter; a longer line is a wrong file (binary data, a file with no line breaks) and would otherwise be
#: echoed and held whole.
MAX_LINE_BYTES = 1 << 20
#: FASTA sequence lines may be long (a whole chromosome on one line): their bound is larger.
MAX_FASTA_LINE_BYTES = 64 << 20


def read_bytes(path: str | Path, error: type[AnonStudioError] = InputError, *,
               max_line: int | None = MAX_LINE_BYTES) -> bytes:
    """The whole file, opened read-only (inputs are never modified).

    Only regular files are read: a device (``/dev/zero``), a FIFO or a socket would be read without end. A
    line longer than ``max_line`` bytes is an error naming the line."""
    path = Path(path)
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(info.st_mode):
            raise error("is not a regular file (a device, pipe or socket): give a data file", file=path)
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise error("file not found", file=path) from None
    except IsADirectoryError:
        raise error("is a folder, not a file", file=path) from None
    except PermissionError:
        raise error("cannot be read: permission denied", file=path) from None
    except OSError as exc:
        failure = error(f"cannot be read: {exc.strerror or exc}", file=path)
        if issubclass(error, InputError):  # the device failed, not the content: never read as a verdict on it
            failure = ReadFailure(failure.message, file=path)
        raise failure from None
    if max_line is not None and len(raw) > max_line:
        check_line_lengths(raw, path, max_line, error)
    return raw


def check_line_lengths(raw: bytes, path: str | Path, max_line: int, error: type[AnonStudioError] = InputError) -> None:
    """Raise ``error`` naming the first line longer than ``max_line`` bytes."""
    import numpy as np

    data = np.frombuffer(raw, dtype=np.uint8)
    # the line breaks found slice by slice: no single call holds the interpreter lock for long
    breaks = np.concatenate([np.flatnonzero(data[s : s + SLICE] == 10) + s for s in range(0, len(data), SLICE)]
                            + [np.zeros(0, dtype=np.int64)])
    ends = np.concatenate([breaks, [len(raw)]])
    starts = np.concatenate([[0], breaks + 1])
    too_long = np.flatnonzero(ends - starts > max_line)
    if len(too_long):
        i = int(too_long[0])
        raise error(f"line {i + 1} is {int(ends[i] - starts[i]):,} bytes long, more than the {max_line:,} a record "
                    "may have: is this the right file?", file=path, line=i + 1)


#: bytes handled per call when reading large files (decoding, line checks): each call stays short, so a
#: reader on a worker thread leaves the workbench's window responsive
SLICE = 1 << 22


def line_ranges(data: bytes | str, start: int = 0, size: int | None = None):
    """``(begin, end)`` ranges covering ``data[start:]`` (bytes or text), each about ``size`` long (default
    :data:`SLICE`) and cut after a line feed (so a UTF-8 character, and a CRLF, never straddles two)."""
    size = SLICE if size is None else size
    newline = b"\n" if isinstance(data, bytes) else "\n"
    while start < len(data):
        stop = data.find(newline, min(start + size, len(data)))
        stop = len(data) if stop < 0 else stop + 1
        yield start, stop
        start = stop


def _decode_utf8(raw: bytes) -> str:
    """``raw.decode("utf-8")`` in slices cut after a line break (a break never falls inside a character)."""
    if len(raw) <= SLICE:
        return raw.decode("utf-8")
    return "".join(_decode_slices(raw, 0, "utf-8"))


def _decode_slices(raw: bytes, start: int, codec: str) -> list[str]:
    parts = []
    for begin, stop in line_ranges(raw, start):
        parts.append(raw[begin:stop].decode(codec))
        checkpoint()  # a read on the workbench's worker may be cancelled between slices
    return parts


def decode_slices(
    raw: bytes, path: str | Path, encoding: str | None = None, error: type[AnonStudioError] = InputError
) -> tuple[list[str], str, int]:
    """:func:`decode`, with the text as a list of slices of whole lines that are never joined: ``(slices,
    encoding, offset)``, where ``offset`` is where the text starts in ``raw`` (3 after a UTF-8 byte-order
    mark). Joining the slices of an 80 MB file is one call that holds the interpreter lock 50-230 ms (a
    frozen workbench while a worker reads); a reader that needs the bytes again reads ``raw[offset:]``, which
    is the text in UTF-8 exactly when the encoding is ``utf-8`` or ``utf-8-sig``.

    Only UTF-8 and latin-1 (the fallbacks) are decoded slice by slice; other encodings in one call."""
    if encoding is not None:
        try:
            name = codecs.lookup(encoding).name
        except LookupError:
            name = ""
        if name not in ("utf-8", "utf-8-sig"):
            text, enc = decode(raw, path, encoding, error)  # an unknown encoding is an error there
            return [text], enc, -1
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text, enc = decode(raw, path, None, error)
        return [text], enc, -1
    offset = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    try:
        return _decode_slices(raw, offset, "utf-8"), ("utf-8-sig" if offset else "utf-8"), offset
    except UnicodeDecodeError:
        if encoding is not None:
            text, enc = decode(raw, path, encoding, error)  # raises the error naming the line
            return [text], enc, -1
        return _decode_slices(raw, 0, "latin-1"), "latin-1", -1


def _line_of_byte(raw: bytes, pos: int) -> int:
    return raw.count(b"\n", 0, pos) + 1


def decode(
    raw: bytes, path: str | Path, encoding: str | None = None, error: type[AnonStudioError] = InputError
) -> tuple[str, str]:
    """Decode ``raw`` and say how: ``(text, encoding)``.

    Without ``encoding``: UTF-8 (a byte-order mark is removed and reported as ``"utf-8-sig"``), and
    ``"latin-1"`` only if the bytes are not valid UTF-8. With ``encoding``, exactly that codec (a UTF-8 BOM is
    still removed); bytes it cannot decode are an error naming the line.
    """
    if encoding is None:
        if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            try:
                return raw.decode("utf-16"), "utf-16"
            except UnicodeDecodeError as exc:
                raise error(f"the file starts with a UTF-16 byte-order mark but byte {exc.start} is not UTF-16",
                            file=path) from None
        try:
            if raw.startswith(codecs.BOM_UTF8):
                return _decode_utf8(raw[len(codecs.BOM_UTF8):]), "utf-8-sig"
            return _decode_utf8(raw), "utf-8"
        except UnicodeDecodeError:
            return raw.decode("latin-1"), "latin-1"
    from anonstudio.core.limits import text_encoding_problem

    problem = text_encoding_problem(encoding)
    if problem is not None:
        raise error(problem, file=path)
    name = codecs.lookup(encoding).name
    if name in ("utf-8", "utf-8-sig"):
        name = "utf-8-sig" if raw.startswith(codecs.BOM_UTF8) else "utf-8"
        encoding = name
    try:
        return raw.decode(encoding), (encoding if name not in ("utf-8", "utf-8-sig") else name)
    except UnicodeDecodeError as exc:
        raise error(
            f"byte 0x{raw[exc.start]:02x} cannot be decoded as {encoding}; give the file's encoding "
            f"(e.g. latin-1)",
            file=path,
            line=_line_of_byte(raw, exc.start),
        ) from None
    except UnicodeError as exc:  # codecs such as punycode or idna fail without a position
        raise error(f"cannot be decoded as {encoding} ({exc}); give the file's encoding (e.g. utf-8 or latin-1)",
                    file=path) from None


def normalize_delimiter(delimiter: str | None, path: str | Path | None, error: type[AnonStudioError] = InputError) -> str | None:
    """``"\\t"``/``"tab"`` → a tab; anything but a single character is an error."""
    if delimiter is None:
        return None
    delimiter = _DELIMITER_ALIASES.get(delimiter, delimiter)
    if len(delimiter) != 1 or delimiter in "\r\n\"":
        raise error(f"delimiter must be one character (not a quote or line break), got {delimiter!r}", file=path)
    return delimiter


def delimiter_name(delimiter: str) -> str:
    return {"\t": "tab", ",": "','", ";": "';'", "|": "'|'"}.get(delimiter, repr(delimiter))
