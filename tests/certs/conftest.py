"""Fixtures for the certs tests: a fake API server over real TLS on 127.0.0.1, and TLS client helpers."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.certs.apiserver import FakeAPIServer


@pytest.fixture
def apiserver(tmp_path: Path) -> Iterator[FakeAPIServer]:
    with FakeAPIServer(tmp_path / "cluster") as server:
        yield server


class TLSServer:
    """Accepts connections on 127.0.0.1 with a given server context and completes each handshake."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self.context = context
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            try:
                with self.context.wrap_socket(conn, server_side=True) as tls:
                    tls.sendall(b"ok")
                    tls.recv(1)  # wait for the client to close
            except (ssl.SSLError, OSError) as err:
                self.errors.append(str(err))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept(); close() alone does not
        self.listener.close()
        self._thread.join(timeout=5)


@pytest.fixture
def tls_server() -> Iterator[type[TLSServer]]:
    started: list[TLSServer] = []

    class _Tracked(TLSServer):
        def __init__(self, context: ssl.SSLContext) -> None:
            super().__init__(context)
            started.append(self)

    yield _Tracked
    for server in started:
        server.close()


def handshake(port: int, ca_file: Path | None = None, *, server_name: str, cadata: str | None = None) -> bytes:
    """Connect with SNI `server_name`, verify against the bundle, return the served certificate (DER)."""
    context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None, cadata=cadata)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
            context.wrap_socket(raw, server_hostname=server_name) as tls:
        assert tls.recv(2) == b"ok"
        der = tls.getpeercert(binary_form=True)
        assert der is not None
        return der
