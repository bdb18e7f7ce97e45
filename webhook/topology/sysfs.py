"""Read a sysfs tree (the real /sys, or a copy or a test tree) safely, with one-line errors.

Safe means: paths are built only from validated parts (a PCI address that passed the BDF check, node and
CPU numbers), never escape the root through `..`, and only small regular files are read: a fake tree with
a FIFO or a device node in place of `numa_node` must not hang or flood the tool. Symlinks are followed,
since the real /sys is made of them (`bus/pci/devices/<BDF>` -> `../../../devices/pci0000:00/...`).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from msgspec import Struct

from webhook.errors import DraguardError

MAX_FILE_BYTES = 64 * 1024  # a sysfs attribute is at most one page; anything larger is not one
MARKERS = ("bus/pci/devices", "devices/system/node", "devices/system/cpu")


class SysfsError(DraguardError):
    """A sysfs root that is not one, or a file in it that cannot be read."""


class SysfsAccessError(SysfsError):
    """The operating system refused a read or a listing (permissions, I/O): not a fact about the tree (as a
    symbolic link loop or a link to nothing are), so the derivation stops rather than treat it as upstream's
    per-device failure (a driver running as root reads it)."""


class Sysfs(Struct, frozen=True):
    """A `webhook.topology.numa.Reader` over a directory. Build it with `Sysfs.open(root)`."""

    root: Path

    @classmethod
    def open(cls, root: str | Path) -> Sysfs:
        if str(root) == "":
            raise SysfsError("sysfs root is empty: pass --sysfs-root DIR, the directory where sysfs is mounted")
        path = Path(root)
        try:
            info = path.stat()
        except (FileNotFoundError, NotADirectoryError):
            raise SysfsError(f"sysfs root {path}: no such directory") from None
        except OSError as err:
            raise SysfsAccessError(f"sysfs root {path}: cannot read: {err.strerror or err}") from None
        if not stat.S_ISDIR(info.st_mode):
            raise SysfsError(f"sysfs root {path}: not a directory")
        try:
            os.listdir(path)
        except OSError as err:
            raise SysfsAccessError(f"sysfs root {path}: cannot read: {err.strerror or err}") from None
        if not any(_is_dir(path / marker) for marker in MARKERS):
            raise SysfsError(
                f"{path} is not a sysfs root: it has none of {', '.join(MARKERS)} (pass --sysfs-root DIR, "
                "the directory where sysfs is mounted, usually /sys)"
            )
        return cls(path)

    def read(self, rel: str, *, lenient: bool = False) -> str | None:
        """The attribute's text, None when absent; SysfsError for anything that is no sysfs attribute.
        `lenient`: bytes that are not UTF-8 are read as `\\xNN` escapes (what a caller that parses fields with a
        fallback, as the SLIT row, then refuses field by field) instead of failing the whole read."""
        path = self._path(rel)
        try:
            info = path.stat()
        except FileNotFoundError:
            if path.is_symlink():  # the entry is there, where it points is not (a partial copy of /sys)
                raise SysfsError(f"{path}: a symbolic link to {os.readlink(path)}, which does not exist") from None
            return None
        except NotADirectoryError:
            return None  # a parent is a file: the tree does not have this entry
        except OSError as err:
            raise _failure(path, "read", err) from None
        if stat.S_ISDIR(info.st_mode):
            raise SysfsError(f"{path}: is a directory, expected a sysfs attribute file")
        if not stat.S_ISREG(info.st_mode):
            raise SysfsError(f"{path}: not a regular file, so not a sysfs attribute")
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as err:
            raise _failure(path, "read", err) from None
        if len(data) > MAX_FILE_BYTES:
            raise SysfsError(f"{path}: larger than {MAX_FILE_BYTES // 1024} KiB, so not a sysfs attribute")
        # UTF-8, as Go's strings.TrimSpace and strings.Fields read the bytes (a no-break space is a space there)
        if lenient:
            return data.decode("utf-8", errors="backslashreplace")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise SysfsError(f"{path}: malformed value: not UTF-8 text") from None

    def listdir(self, rel: str) -> list[str] | None:
        path = self._path(rel)
        try:
            return sorted(os.listdir(path))
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            if err.errno == errno.ELOOP:
                return None  # a symbolic link loop is no directory
            raise _failure(path, "list", err) from None

    def has(self, rel: str) -> bool:
        """Whether the tree has an entry at `rel`, a symbolic link to nothing included (its reader says why)."""
        return os.path.lexists(self._path(rel))

    def describe(self, rel: str) -> str:
        """The full path of `rel`, for messages."""
        return str(self._path(rel))

    def _path(self, rel: str) -> Path:
        parts = rel.split("/")
        if any(part in ("", ".", "..") for part in parts):
            raise ValueError(f"not a plain relative sysfs path: {rel!r}")  # a bug in the caller
        return self.root.joinpath(*parts)


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as err:
        raise SysfsAccessError(f"{path}: cannot read: {err.strerror or err}") from None


def _failure(path: Path, what: str, err: OSError) -> SysfsError:
    """The error for an OSError: a symbolic link loop is a fact about the tree (upstream's read fails as for a
    malformed value), anything else (permissions, I/O) is this run's problem: SysfsAccessError."""
    message = f"{path}: cannot {what}: {err.strerror or err}"
    return SysfsError(message) if err.errno == errno.ELOOP else SysfsAccessError(message)
