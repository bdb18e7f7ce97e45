"""A whole CA rotation (`draguard certs rotate` overlap -> leaf -> retire) under a running `draguard serve`.

The server is the real one (gunicorn, two workers, `TLSReloader`), started by the webhook tests' helper. While the
phases run, client threads keep sending AdmissionReviews, half on a fresh connection each time (a new handshake) and
half on kept-alive connections: some trust the overlap bundle they were handed after phase `overlap` was injected,
some re-read the live `ca.crt` for every connection as the API server re-reads an injected `caBundle`. Not one
request may fail. Waiting is by polling for an observable change, never by sleeping a fixed time.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography import x509

from tests.builders import slice_with
from tests.webhook.conftest import JSON, SNI, Connection, admission_review, client_context, encode, send, start_server
from webhook.cli import main

pytestmark = pytest.mark.slow

DEADLINE = 60.0
SLICES = "/validate/resourceslices"


def eventually(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {DEADLINE}s: {what}")
        time.sleep(0.05)  # polling for a change, not timing it


def served_serial(port: int, bundle: Path) -> int:
    """The serial of the certificate a fresh handshake gets, verified for the Service name against `bundle`."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw, \
            client_context(bundle).wrap_socket(raw, server_hostname=SNI) as tls:
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der).serial_number


def file_serial(path: Path) -> int:
    return x509.load_pem_x509_certificate(path.read_bytes()).serial_number


def rotate(cert_dir: Path, phase: str) -> None:
    assert main(["certs", "rotate", "--dir", str(cert_dir), "--phase", phase]) == 0


class Traffic:
    """One client thread per (bundle, fresh-or-kept-alive) pair, sending reviews until stopped."""

    def __init__(self, port: int, bundles: list[Callable[[], Path]]) -> None:
        self.port = port
        self.stop = threading.Event()
        self.failures: list[str] = []
        plan = [(bundle, fresh) for bundle in bundles for fresh in (True, False)]
        self.counts = [0] * len(plan)
        self.threads = [threading.Thread(target=self._run, args=(n, *p)) for n, p in enumerate(plan)]

    def __enter__(self) -> Traffic:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def progressed(self, by: int) -> Callable[[], bool]:
        start = list(self.counts)
        return lambda: all(now >= then + by for now, then in zip(self.counts, start, strict=True))

    def _run(self, n: int, bundle: Callable[[], Path], fresh: bool) -> None:
        conn: Connection | None = None
        while not self.stop.is_set():
            uid = f"t{n}-{self.counts[n]}"
            try:
                if conn is None:
                    conn = Connection(self.port, client_context(bundle()))
                reply = send(conn, "POST", SLICES, encode(admission_review(slice_with(numa=1), uid=uid)), JSON)
                if reply.status != 200 or reply.response != {"uid": uid, "allowed": True}:
                    self.failures.append(f"{uid}: HTTP {reply.status} {reply.body[:200]!r}")
            except Exception as err:  # every failed request counts, whatever failed
                self.failures.append(f"{uid}: {err!r}")
                conn = None
            if fresh and conn is not None:
                conn.close()
                conn = None
            self.counts[n] += 1
        if conn is not None:
            conn.close()


def test_a_full_ca_rotation_under_a_running_server_drops_no_request(tmp_path: Path) -> None:
    server = start_server(tmp_path / "server", policy="rules: {}\n")
    try:
        live = server.cert_dir / "ca.crt"
        old_bundle = Path(shutil.copy(live, tmp_path / "old.crt"))
        first = served_serial(server.port, old_bundle)

        rotate(server.cert_dir, "overlap")  # then `inject`: the API server now holds the overlap bundle
        overlap_bundle = Path(shutil.copy(live, tmp_path / "overlap.crt"))
        with Traffic(server.port, [lambda: overlap_bundle, lambda: live]) as traffic:
            eventually(traffic.progressed(5), "traffic on every client thread")
            assert served_serial(server.port, old_bundle) == first  # the old-bundle client still works

            rotate(server.cert_dir, "leaf")  # the switch: both workers re-read tls.crt/tls.key on a handshake
            switched = file_serial(server.cert_dir / "tls.crt")
            assert switched != first
            streak = [0]

            def serving_the_new_leaf() -> bool:
                streak[0] = streak[0] + 1 if served_serial(server.port, overlap_bundle) == switched else 0
                return streak[0] >= 10

            eventually(serving_the_new_leaf, "ten fresh handshakes in a row served the new serving certificate")

            def old_bundle_refused() -> bool:
                try:
                    served_serial(server.port, old_bundle)
                except ssl.SSLCertVerificationError:
                    return True
                return False

            eventually(old_bundle_refused, "a client with only the old bundle refused after the switch")
            eventually(traffic.progressed(10), "requests on every client thread after the switch")

            rotate(server.cert_dir, "retire")  # then `inject` again: only the new CA is trusted
            assert len(x509.load_pem_x509_certificates(live.read_bytes())) == 1
            assert served_serial(server.port, live) == switched
            eventually(traffic.progressed(10), "requests on every client thread after the retirement")
        assert traffic.failures == []
        assert sorted(p.name for p in server.cert_dir.iterdir()) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]
    finally:
        assert server.stop() == 0
