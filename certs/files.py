"""Certificate material in a directory: every file replaced atomically, private keys created 0600.

A reader (the webhook's `TLSReloader`, a kubelet-projected volume) never sees a half-written file: content goes to
a temporary file in the same directory, is flushed to disk, then renamed over the old name.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from certs.errors import CertsError
from certs.material import NAMES, PRIVATE, Changes, Material

PRIVATE_MODE = 0o600
PUBLIC_MODE = 0o644


def write_atomic(path: Path, data: bytes, *, private: bool) -> None:
    mode = PRIVATE_MODE if private else PUBLIC_MODE
    try:
        # mkstemp creates the file 0600, so a key is never readable by others, not even for a moment.
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise CertsError(f"{path.parent}: cannot write: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CertsError(f"{path}: cannot write: {err.strerror or err}") from None


class DirectoryStore:
    """ca.crt, ca.key, ca-next.key, tls.crt and tls.key in one directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def __str__(self) -> str:
        return str(self.directory)

    def load(self) -> dict[str, bytes]:
        if self.directory.exists() and not self.directory.is_dir():
            raise CertsError(f"{self.directory}: not a directory")
        found: dict[str, bytes] = {}
        for name in NAMES:
            path = self.directory / name
            try:
                found[name] = path.read_bytes()
            except FileNotFoundError:
                continue
            except OSError as err:
                raise CertsError(f"{path}: cannot read: {err.strerror or err}") from None
        return found

    def save(self, changes: Changes, current: Material | None = None) -> None:
        """Write what changed, each file atomically, keys first.

        A reader looking between two renames sees a key and certificate that do not match; `TLSReloader` keeps
        serving its previous pair until both are new.
        """
        del current  # a directory needs no optimistic-concurrency token
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CertsError(f"{self.directory}: cannot create: {err.strerror or err}") from None
        for name in sorted(changes, key=lambda n: (n not in PRIVATE, n)):
            data = changes[name]
            path = self.directory / name
            if data is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                write_atomic(path, data, private=name in PRIVATE)
