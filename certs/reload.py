"""Serve the newest valid certificate without restarting: `TLSReloader` (the contract `draguard serve` builds on).

The server holds one `ssl.SSLContext` whose `sni_callback` runs at the start of every handshake, before the
certificate is sent. It swaps in the context built from the newest valid files, so a rotated Secret (kubelet
replaces its files atomically) is served to every new connection while open connections keep theirs. The files
are stat'ed at most once per `check_interval`; new files that are unusable (unparsable, a key that does not
match, expired) are logged once and the previous context stays, like controller-runtime's certwatcher.

With `client_ca`, every context also requires a client certificate chaining to that bundle, and the bundle is
watched with the pair: the SNI callback swaps the whole context, and OpenSSL verifies the client's chain against
the store of the context in force, so a rotated client CA applies to the next handshake while open connections
keep what they were verified with.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import ssl
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct

from certs.client import client_ca_bundle, require_client_certs
from certs.errors import CertsError
from certs.pem import key_matches, parse_any_key, parse_certs

log = logging.getLogger(__name__)

_Stamp = tuple[tuple[int, int, int, int], ...]


class _Loaded(Struct, frozen=True):
    context: ssl.SSLContext
    not_after: dt.datetime
    stamp: _Stamp


def _stamp(*paths: Path) -> _Stamp:
    """What changes when a file is replaced: device, inode, mtime and size (follows kubelet's ..data symlink)."""
    stamps = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            stamps.append((-1, -1, -1, -1))
        else:
            stamps.append((st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(stamps)


@contextlib.contextmanager
def _pem_path(data: bytes, name: str) -> Iterator[str]:
    """A path holding `data`, for `load_cert_chain`, which reads only paths.

    On Linux an anonymous memory file (memfd), so the key is never written to disk and no writable directory is
    needed (the webhook runs with a read-only root filesystem); elsewhere a private temporary file.
    """
    if hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd"):
        fd = os.memfd_create(f"draguard-{name}", os.MFD_CLOEXEC)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            yield f"/proc/self/fd/{fd}"
        finally:
            os.close(fd)
        return
    with tempfile.TemporaryDirectory(prefix="draguard-tls-") as tmp:
        path = os.path.join(tmp, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        yield path


def _server_context(cert_pem: bytes, key_pem: bytes, client_ca_pem: bytes | None = None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    # Load the very bytes that were checked, not the files again: they may have been replaced in between.
    with _pem_path(cert_pem, "tls.crt") as cert_path, _pem_path(key_pem, "tls.key") as key_path:
        context.load_cert_chain(cert_path, key_path)
    if client_ca_pem is not None:
        require_client_certs(context, client_ca_pem)
    return context


def load_pair(
    cert_file: Path, key_file: Path, now: dt.datetime | None = None, client_ca: Path | None = None
) -> _Loaded:
    """Read, check and load one certificate/key pair (and client CA); `CertsError` with one line when unusable."""
    stamp = _stamp(cert_file, key_file, *((client_ca,) if client_ca else ()))
    try:
        cert_pem, key_pem = cert_file.read_bytes(), key_file.read_bytes()
        client_ca_pem = client_ca.read_bytes() if client_ca else None
    except OSError as err:
        raise CertsError(f"{err.filename}: cannot read: {err.strerror or err}") from None
    if client_ca is not None and client_ca_pem is not None:
        client_ca_pem = client_ca_bundle(client_ca_pem, str(client_ca))
    leaf = parse_certs(cert_pem, str(cert_file))[0]
    key = parse_any_key(key_pem, str(key_file))
    if not key_matches(leaf, key):
        raise CertsError(f"{key_file} does not match the certificate in {cert_file}")
    now = now or dt.datetime.now(dt.UTC)
    if now >= leaf.not_valid_after_utc:
        raise CertsError(f"{cert_file}: the certificate expired on {leaf.not_valid_after_utc:%Y-%m-%d %H:%M:%S} UTC")
    try:
        context = _server_context(cert_pem, key_pem, client_ca_pem)
    except (ssl.SSLError, OSError) as err:
        raise CertsError(f"{cert_file}: cannot be served: {err}") from None
    return _Loaded(context, leaf.not_valid_after_utc, stamp)


class TLSReloader:
    """Hands every new TLS handshake the newest valid certificate from `cert_file`/`key_file`.

    >>> reloader = TLSReloader("tls.crt", "tls.key")          # doctest: +SKIP
    >>> server_socket = reloader.server_context().wrap_socket(sock, server_side=True)   # doctest: +SKIP
    """

    def __init__(
        self, cert_file: Path | str, key_file: Path | str, *, check_interval: float = 1.0,
        client_ca: Path | str | None = None,
    ) -> None:
        self.cert_file, self.key_file = Path(cert_file), Path(key_file)
        self.client_ca = Path(client_ca) if client_ca is not None else None
        self.check_interval = check_interval
        self._lock = threading.Lock()
        self._current = load_pair(self.cert_file, self.key_file, client_ca=self.client_ca)  # raises: nothing to serve
        self._rejected: _Stamp | None = None
        self._last_error: str | None = None
        self._checked = time.monotonic()
        self._outer = self._current.context  # its sni_callback swaps in the newest context
        self._outer.sni_callback = self._on_hello

    @property
    def loaded(self) -> bool:
        """True while a valid certificate is served (always, once constructed: a bad file never replaces it)."""
        return self._current is not None

    @property
    def not_after(self) -> dt.datetime:
        """When the certificate now being served expires (UTC)."""
        return self._current.not_after

    @property
    def last_error(self) -> str | None:
        """Why the newest files on disk are not being served, or None when they are."""
        return self._last_error

    def server_context(self) -> ssl.SSLContext:
        """The context to wrap the listening socket with; TLS 1.2 or newer."""
        return self._outer

    def reload(self) -> bool:
        """Check the files now (ignoring `check_interval`); True when a new certificate is now being served."""
        with self._lock:
            self._checked = time.monotonic()
            return self._reload_locked()

    def _reload_locked(self) -> bool:
        stamp = _stamp(self.cert_file, self.key_file, *((self.client_ca,) if self.client_ca else ()))
        if stamp in (self._current.stamp, self._rejected):
            return False
        try:
            fresh = load_pair(self.cert_file, self.key_file, client_ca=self.client_ca)
        except CertsError as err:
            self._rejected, self._last_error = stamp, err.message
            log.warning("keeping the certificate that expires %s: %s", f"{self.not_after:%Y-%m-%d}", err.message)
            return False
        self._current, self._rejected, self._last_error = fresh, None, None
        log.info("serving a new certificate from %s (expires %s)", self.cert_file, f"{fresh.not_after:%Y-%m-%d}")
        return True

    def _maybe_reload(self) -> ssl.SSLContext:
        now = time.monotonic()
        if now - self._checked >= self.check_interval and self._lock.acquire(blocking=False):
            # One handshake re-reads; concurrent ones carry on with the current context instead of waiting.
            try:
                self._checked = now
                self._reload_locked()
            finally:
                self._lock.release()
        return self._current.context

    def _on_hello(self, sock: ssl.SSLObject | ssl.SSLSocket, server_name: str | None, context: ssl.SSLContext) -> None:
        del server_name, context  # the same certificate serves every SAN
        newest = self._maybe_reload()
        if sock.context is not newest:
            sock.context = newest
