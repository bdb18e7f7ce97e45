"""`draguard serve` while things change under it: certificate rotation, a broken certificate, policy reload, SIGTERM.

Each test starts its own server (it changes files or stops the process). Waiting is by polling for an
observable change with a generous deadline, never by sleeping a fixed time.
"""

from __future__ import annotations

import http.client
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509

from tests.builders import slice_with
from tests.webhook.conftest import (
    JSON,
    SNI,
    Server,
    Traffic,
    admission_review,
    encode,
    eventually,
    issue_certs,
    send,
    served_serial,
    start_server,
)
from tests.webhook.test_serve import metric

pytestmark = pytest.mark.slow

SLICES = "/validate/resourceslices"


def replace_file(path: Path, data: bytes) -> None:
    fresh = path.with_name(path.name + ".new")
    fresh.write_bytes(data)
    os.replace(fresh, path)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = start_server(tmp_path / "server", policy="rules: {}\n")
    yield server
    server.stop()


def test_certificate_rotation_while_requests_flow_drops_nothing(server: Server) -> None:
    before = served_serial(server.port, server.ca_file)
    with Traffic(server.port, [lambda: server.ca_file] * 2) as traffic:  # four client threads
        eventually(traffic.progressed(5), "traffic on every client thread")
        issue_certs(server.cert_dir, "rotated.draguard.example")  # new SANs: a new leaf from the same CA
        after = x509.load_pem_x509_certificate((server.cert_dir / "tls.crt").read_bytes()).serial_number
        assert after != before
        # Every worker serves the new certificate: ten fresh handshakes in a row get it.
        streak = [0]

        def switched() -> bool:
            streak[0] = streak[0] + 1 if served_serial(server.port, server.ca_file) == after else 0
            return streak[0] >= 10

        eventually(switched, "the rotated certificate on new connections")
        eventually(traffic.progressed(10), "requests on every client thread after the switch")
    assert traffic.failures == []
    assert sum(traffic.counts) >= 4 * 15


def test_a_broken_new_certificate_keeps_the_old_one_serving(server: Server) -> None:
    before = served_serial(server.port, server.ca_file)
    good = (server.cert_dir / "tls.crt").read_bytes()
    replace_file(server.cert_dir / "tls.crt", b"-----BEGIN CERTIFICATE-----\nnot a certificate\n")
    # Handshakes are what make a worker look at the files; each poll makes one and must get the old certificate.
    eventually(lambda: served_serial(server.port, server.ca_file) == before
               and any("keeping the certificate" in line["msg"] for line in server.logs()),
               "a log line about the unusable certificate")
    assert server.post(SLICES, admission_review(slice_with(numa=1), uid="u")).response == {"uid": "u",
                                                                                           "allowed": True}
    assert server.get("/readyz").status == 200
    replace_file(server.cert_dir / "tls.crt", good)


def test_the_policy_file_is_reloaded_and_a_broken_one_ignored(tmp_path: Path) -> None:
    server = start_server(tmp_path / "server", policy="rules: {}\n", workers=1)
    try:
        bad_slice = admission_review(slice_with(numa=-2), uid="u-policy")
        assert server.post(SLICES, bad_slice).response["allowed"] is False
        replace_file(server.policy_file, b"rules:\n  numa-node-range: warn\n")
        eventually(lambda: server.post(SLICES, bad_slice).response["allowed"] is True, "the new policy in force")
        replace_file(server.policy_file, b"rules:\n  no-such-rule: deny\n")
        eventually(lambda: server.get("/readyz").json()["checks"]["policy"]["lastReloadError"] is not None,
                   "the broken policy noticed")
        ready = server.get("/readyz")
        assert ready.status == 503  # the broken file is visible where rollouts and alerts look
        assert ready.json()["checks"]["policy"]["ok"] is False
        assert ready.json()["checks"]["policy"]["lastReloadError"] == (
            f"policy {server.policy_file}: rules: unknown rule id 'no-such-rule' (see `draguard rules`)"
        )
        assert server.post(SLICES, bad_slice).response["allowed"] is True  # the previous policy still holds
        assert any(line["msg"].startswith("keeping the previous policy: ") for line in server.logs())
        metrics = server.metrics()
        assert metric(metrics, "draguard_policy_reloads_total", result="success") == 1
        assert metric(metrics, "draguard_policy_reloads_total", result="error") == 1
        assert metric(metrics, "draguard_policy_reload_errors_total") == 1
    finally:
        server.stop()


def refuses_connections(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return True
    return False


def test_sigterm_lets_an_in_flight_request_finish(tmp_path: Path) -> None:
    server = start_server(tmp_path / "server", policy="rules: {}\n", workers=1)
    body = encode(admission_review(slice_with(numa=1), uid="uid-drain"))
    idle = server.connect()  # a kept-alive connection with nothing in flight when SIGTERM comes
    conn = server.connect()
    try:
        assert send(idle, "POST", SLICES, body, JSON).headers["connection"] == "keep-alive"
        conn.connect()  # the TLS handshake is done: a worker has accepted this connection
        assert conn.sock is not None
        head = (f"POST {SLICES} HTTP/1.1\r\nHost: {SNI}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        conn.sock.sendall(head + body[:10])  # the request is in flight: its body is still arriving
        server.process.terminate()
        eventually(lambda: any(line["msg"] == "Handling signal: term" for line in server.logs()),
                   "the master handling SIGTERM")
        # The master logs that line before it signals the worker: wait until the worker drains (it has closed its
        # listening socket, as the master has, so new connections are refused), or the request below may still
        # be answered as before the signal, with `Connection: keep-alive`.
        eventually(lambda: refuses_connections(server.port), "the worker draining")
        # A request the API server sends on an idle kept-alive connection during the drain is still answered.
        late = send(idle, "POST", SLICES, body, JSON)
        assert (late.status, late.response) == (200, {"uid": "uid-drain", "allowed": True})
        assert late.headers["connection"] == "close"  # not reset: the client learns to reconnect elsewhere
        conn.sock.sendall(body[10:])
        raw = http.client.HTTPResponse(conn.sock)
        raw.begin()
        data = raw.read()
        assert raw.status == 200
        assert data.startswith(b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":'
                               b'{"uid":"uid-drain","allowed":true}')
    finally:
        conn.close()
        idle.close()
    assert server.process.wait(timeout=60) == 0
