"""The release key (issue 39 item 1): the secret every draw a guarantee needs comes from, made on the user's machine.

A seed written in a job file (or shipped in the package, as the demo's were) is not a secret: anyone who reads it
replays the draws — RA's redraws put 2,000 of 2,000 records back, SafePub's sampling gave every sampled row's input
position away, a shuffle's order is undone. So the methods whose release a known seed undoes (RA, RA-enhanced,
SafePub, Anatomy) and the output shuffle take no seed from a job: they draw from a **release key**, 32 bytes from
the operating system's entropy (:func:`secrets.token_bytes`), kept in a file of its own, owner-only (0600, in a
0700 folder): by default ``$XDG_DATA_HOME/anonstudio/keys/release.key`` (``~/.local/share/…``), or the file
``$ANONSTUDIO_KEY_FILE`` names, or the job's ``output.key_file``. It is made on first use.

The key is never printed, reported or logged: jobs, reports and the release log name it by its **fingerprint**, a
keyed BLAKE2b of it (16 hex digits) that tells two keys apart and gives nothing of the key. Each draw's seed is
HMAC-SHA256 (RFC 2104) of a purpose label — the method's draws, the output's row order, the release log's record
fingerprints — with what the release is of (a keyed digest of the input, the settings), so two purposes, two
inputs or two settings draw independent streams, and ``anonstudio verify`` re-derives a release only where the key
is (elsewhere it checks the model alone, ``--model-only``, and says so).

Standard library only: the CLI's ``key`` command reads it before anything heavy is imported.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from anonstudio._folders import data_dir
from anonstudio.core.errors import JobError

#: an environment variable naming the key file (instead of the default in the user's data folder)
KEY_ENV = "ANONSTUDIO_KEY_FILE"
#: the first word of a key file: what it is and its format's version
HEADER = "anonstudio-release-key-1"
#: bytes of secret in a key (256 bits from the operating system)
KEY_BYTES = 32
#: what a job names a key by in messages
KEY_WORDS = "the release key"


def default_key_path() -> Path:
    """``$ANONSTUDIO_KEY_FILE``, else ``$XDG_DATA_HOME/anonstudio/keys/release.key`` (``~/.local/share`` when
    ``XDG_DATA_HOME`` is unset; macOS and Windows: anonstudio's data folder there, :mod:`anonstudio._folders`):
    beside the release log, in a folder of its own that only the owner may enter."""
    named = os.environ.get(KEY_ENV)
    if named:
        return Path(named).expanduser()
    return data_dir() / "keys" / "release.key"


def fingerprint_of(secret: bytes) -> str:
    """The key's public name: BLAKE2b keyed by the key over a fixed label, 8 bytes as 16 hex digits (a preimage
    of the key would be needed to learn anything from it)."""
    return hashlib.blake2b(b"anonstudio release key fingerprint", key=secret, digest_size=8).hexdigest()


@dataclass(frozen=True)
class ReleaseKey:
    """A loaded key: where it is and its fingerprint; the secret is held but never shown (``repr`` leaves it out)."""

    path: Path
    fingerprint: str
    _secret: bytes = field(repr=False, compare=False)

    def mac(self, purpose: str, *parts: str | bytes) -> bytes:
        """HMAC-SHA256 under the key of ``purpose`` and ``parts``, each length-prefixed (no two lists of parts
        give the same message)."""
        h = hmac.new(self._secret, digestmod=hashlib.sha256)
        for part in (purpose, *parts):
            raw = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else bytes(part)
            h.update(len(raw).to_bytes(8, "big") + raw)
        return h.digest()

    def seed(self, purpose: str, *parts: str | bytes) -> int:
        """A 63-bit seed for ``purpose`` (at least 2^62: far above any seed a person types, and above
        :data:`~anonstudio.core.limits.MIN_SECRET_SEED`)."""
        value = int.from_bytes(self.mac(purpose, *parts)[:8], "big")
        return (1 << 62) | (value & ((1 << 62) - 1))

    def hash_key(self, purpose: str) -> str:
        """16 printable ASCII characters derived from the key, for ``pandas.util.hash_pandas_object``'s
        ``hash_key`` (SipHash-2-4 keyed: a record's hash then cannot be computed, nor a guess checked, without
        the key)."""
        raw = self.mac(purpose)
        return "".join(chr(33 + b % 94) for b in raw[:16])


def _refuse(message: str, path: Path) -> JobError:
    return JobError(message, file=path, key="output.key_file")


def create_key(path: str | Path | None = None) -> ReleaseKey:
    """Make a new key at ``path`` (default :func:`default_key_path`): 32 bytes from the operating system, the file
    created owner-only (0600) and exclusively (an existing key is never overwritten), its folder 0700."""
    path = Path(path) if path is not None else default_key_path()
    folder = path.parent
    try:
        made = not folder.exists()
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if made or folder.name == "keys":
            os.chmod(folder, 0o700)  # a folder of its own: only the owner enters it
    except OSError as exc:
        raise _refuse(f"cannot make the folder of the release key {folder}: {exc.strerror or exc}", folder) from None
    secret = secrets.token_bytes(KEY_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        raise _refuse(f"a release key already exists at {path}: it is never overwritten (rotate it with "
                      "'anonstudio key --rotate')", path) from None
    except OSError as exc:
        raise _refuse(f"cannot write the release key {path}: {exc.strerror or exc}", path) from None
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(f"{HEADER} {secret.hex()}\n")
    return ReleaseKey(path, fingerprint_of(secret), secret)


def read_key(path: Path) -> ReleaseKey:
    """The key in ``path``; refused (exit 2, naming the file) if it is not a regular file, anyone but its owner may
    read or write it, or it is not one key line."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _refuse(f"cannot read the release key {path}: {exc.strerror or exc}", path) from None
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(f"the release key {path} is not a regular file", path)
    if info.st_mode & 0o077:
        raise _refuse(f"the release key {path} may be read by others (mode {stat.S_IMODE(info.st_mode):04o}): "
                      f"a key anyone reads undoes its releases; make it owner-only (chmod 600 {path}) or rotate it",
                      path)
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        raise _refuse(f"the release key {path} is not a key file (one line '{HEADER} <64 hex digits>')", path) from None
    words = text.split()
    if len(words) != 2 or words[0] != HEADER or len(words[1]) != 2 * KEY_BYTES:
        raise _refuse(f"the release key {path} is not a key file (one line '{HEADER} <64 hex digits>')", path)
    try:
        secret = bytes.fromhex(words[1])
    except ValueError:
        raise _refuse(f"the release key {path} is not a key file (one line '{HEADER} <64 hex digits>')", path) from None
    return ReleaseKey(path, fingerprint_of(secret), secret)


def load_key(path: str | Path | None = None, *, create: bool = False, fingerprint: str | None = None,
             context: Path | str | None = None) -> ReleaseKey | None:
    """The key at ``path`` (default :func:`default_key_path`); ``None`` when there is none and ``create`` is
    False. With ``create``, the *default* key is made on first use; a key file a job names must exist (a typo would
    otherwise make a new key and a release nobody can re-derive). ``fingerprint``: the key the job was written for —
    another key is refused (exit 2)."""
    named = path is not None
    where = Path(path) if named else default_key_path()
    if not where.exists() and not where.is_symlink():
        if create and not named:
            return create_key(where)
        if create:
            raise JobError(f"the release key {where} does not exist: make it with 'anonstudio key --create --file "
                           f"{where}' or leave output.key_file out (the default key is made on first use)",
                           file=context, key="output.key_file")
        return None
    package = Path(__file__).resolve().parents[1]
    if where.resolve().is_relative_to(package):
        raise JobError(f"the release key {where} is a file of the anonstudio package: a key shipped with the package "
                       "is read by everyone who has it; leave output.key_file out (your own key is made on first use)",
                       file=context, key="output.key_file")
    key = read_key(where)
    if fingerprint is not None and key.fingerprint != fingerprint:
        raise JobError(f"the job was written for the release key {fingerprint}, but the key at {where} is "
                       f"{key.fingerprint}: give output.key_file of the right key, or remove output.key_fingerprint "
                       "to publish with this one", file=context, key="output.key_fingerprint")
    return key


def kept_keys(key: ReleaseKey) -> list[ReleaseKey]:
    """The keys :func:`rotate_key` kept beside ``key`` (``<stem>-<fingerprint><suffix>``), readable ones only: the
    release log checks an input under each, so a rotation does not hide what was published before it."""
    out = []
    for path in sorted(key.path.parent.glob(f"{key.path.stem}-*{key.path.suffix}")):
        try:
            out.append(read_key(path))
        except JobError:
            continue
    return out


def rotate_key(path: str | Path | None = None) -> tuple[ReleaseKey, Path | None]:
    """A new key at ``path`` (default :func:`default_key_path`); the old one, if any, kept beside it as
    ``release-<fingerprint>.key`` (still 0600), so releases made with it can still be re-derived."""
    where = Path(path) if path is not None else default_key_path()
    kept = None
    if where.exists():
        old = read_key(where)
        kept = where.with_name(f"{where.stem}-{old.fingerprint}{where.suffix}")
        os.replace(where, kept)
    return create_key(where), kept
