"""Shared pieces of the readers: opening a file read-only, decoding it, naming delimiters."""

from __future__ import annotations

import codecs
from pathlib import Path

from anonstudio.core.errors import AnonStudioError, InputError

#: Names users may write for a tab in a job file or on the command line.
_DELIMITER_ALIASES = {"\\t": "\t", "tab": "\t", "TAB": "\t", "comma": ",", "semicolon": ";"}


def read_bytes(path: str | Path, error: type[AnonStudioError] = InputError) -> bytes:
    """The whole file, opened read-only (inputs are never modified)."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise error("file not found", file=path) from None
    except IsADirectoryError:
        raise error("is a folder, not a file", file=path) from None
    except PermissionError:
        raise error("cannot be read: permission denied", file=path) from None
    except OSError as exc:
        raise error(f"cannot be read: {exc.strerror or exc}", file=path) from None


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
        try:
            if raw.startswith(codecs.BOM_UTF8):
                return raw.decode("utf-8-sig"), "utf-8-sig"
            return raw.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            return raw.decode("latin-1"), "latin-1"
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise error(f"unknown encoding '{encoding}'", file=path) from None
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


def normalize_delimiter(delimiter: str | None, path: str | Path, error: type[AnonStudioError] = InputError) -> str | None:
    """``"\\t"``/``"tab"`` → a tab; anything but a single character is an error."""
    if delimiter is None:
        return None
    delimiter = _DELIMITER_ALIASES.get(delimiter, delimiter)
    if len(delimiter) != 1 or delimiter in "\r\n\"":
        raise error(f"delimiter must be one character (not a quote or line break), got {delimiter!r}", file=path)
    return delimiter


def delimiter_name(delimiter: str) -> str:
    return {"\t": "tab", ",": "','", ";": "';'", "|": "'|'"}.get(delimiter, repr(delimiter))
