"""Hostile connections against a real `draguard serve` (2 guarded gevent workers) over real TLS on 127.0.0.1.

The acceptance case of the webhook issue: 1,000 stalled TCP connections, 100 half-open TLS handshakes and 200
slow-loris TLS clients are held open (deadlines raised so none is closed during the test) while valid reviews
keep a p99 under 100 ms with no error. Then each phase's deadline is shown to close what stalls in it.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.webhook.conftest import (
    JSON,
    SNI,
    Connection,
    Server,
    admission_review,
    client_context,
    encode,
    send,
    start_server,
)

pytestmark = pytest.mark.slow

SLICES = "/validate/resourceslices"
SOAK = bool(os.environ.get("DRAGUARD_SOAK"))  # `make soak`: three times the connections, many more reviews
STALLED, HALF_OPEN, LORIS = (3000, 300, 600) if SOAK else (1000, 100, 200)
# Soak size is bounded by the 300 s deadlines the test raises: past them the server rightly closes what it holds.
VALID = 3_000 if SOAK else 200
# The first bytes of a TLS record that promises a 512-byte ClientHello which never comes.
PARTIAL_HELLO = b"\x16\x03\x01\x02\x00\x01\x00"


@contextlib.contextmanager
def held(sockets: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield sockets
    finally:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.close()


def tcp(port: int, first: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    if first:
        sock.sendall(first)
    return sock


def loris(port: int, context: ssl.SSLContext) -> ssl.SSLSocket:
    """A TLS client that finished its handshake and sends the start of a request, then drips headers."""
    tls = context.wrap_socket(tcp(port), server_hostname=SNI)
    tls.sendall(f"POST {SLICES} HTTP/1.1\r\nHost: {SNI}\r\n".encode())
    return tls


def valid_traffic(server: Server, count: int) -> tuple[list[float], list[str]]:
    """`count` reviews, half on one kept-alive connection and half on fresh ones; latencies and failures."""
    latencies: list[float] = []
    failures: list[str] = []
    body_of = lambda uid: encode(admission_review(slice_with(numa=1), uid=uid))  # noqa: E731
    kept = server.connect(timeout=30)
    try:
        for n in range(count):
            uid = f"valid-{n}"
            fresh = n % 2 == 1
            conn = server.connect(timeout=30) if fresh else kept
            started = time.perf_counter()
            try:
                reply = send(conn, "POST", SLICES, body_of(uid), JSON)
                latencies.append(time.perf_counter() - started)
                if reply.status != 200 or reply.response != {"uid": uid, "allowed": True}:
                    failures.append(f"{uid}: HTTP {reply.status} {reply.body[:200]!r}")
            except (OSError, http.client.HTTPException) as err:
                failures.append(f"{uid}: {err!r}")
            finally:
                if fresh:
                    conn.close()
    finally:
        kept.close()
    return latencies, failures


def p99(latencies: list[float]) -> float:
    return sorted(latencies)[int(len(latencies) * 0.99) - 1]


def test_held_hostile_connections_do_not_starve_valid_reviews(tmp_path: Path) -> None:
    server = start_server(tmp_path / "server", args=("--handshake-timeout", "300", "--header-timeout", "300",
                                                     "--max-connections", "4000"))
    context = client_context(server.ca_file)
    # The same traffic before any hostile connection: what this (shared, possibly busy) machine gives anyway.
    baseline, baseline_failures = valid_traffic(server, VALID)
    drip_errors: list[str] = []
    stop = threading.Event()
    try:
        with held([tcp(server.port, b"\x16" if i % 2 else b"") for i in range(STALLED)]) as stalled, \
                held([tcp(server.port, PARTIAL_HELLO) for _ in range(HALF_OPEN)]) as half_open, \
                held([loris(server.port, context) for _ in range(LORIS)]) as slow, \
                held([tcp(server.metrics_port) for _ in range(200)]):

            def drip() -> None:
                n = 0
                while not stop.wait(0.5):
                    for sock in slow:
                        try:
                            sock.sendall(f"X-Drip-{n}: 1\r\n".encode())
                        except OSError as err:
                            drip_errors.append(repr(err))
                    n += 1

            dripper = threading.Thread(target=drip)
            dripper.start()
            try:
                latencies, failures = valid_traffic(server, VALID)
                metrics_text = server.metrics()  # the metrics port answers with 200 of its own stalled connections
                healthz = server.get("/healthz")
            finally:
                stop.set()
                dripper.join()
            assert len(stalled) + len(half_open) == STALLED + HALF_OPEN
    finally:
        server.stop()
    assert baseline_failures == failures == []
    assert drip_errors == []  # every slow-loris client was still connected: held, not refused
    assert healthz.status == 200
    assert "controller_runtime_webhook_requests_total" in metrics_text
    # The bound is 100 ms; on a machine so busy that even the baseline comes near it, held connections
    # must not make it more than twice as bad (with gthread workers they made it infinite).
    held_p99, quiet_p99 = p99(latencies), p99(baseline)
    assert held_p99 < max(0.100, 2 * quiet_p99), (
        f"p99 {held_p99 * 1000:.1f} ms with hostile connections held, {quiet_p99 * 1000:.1f} ms without")


def test_a_burst_of_silent_connections_does_not_hold_up_the_next_review(tmp_path: Path) -> None:
    """400 silent connections opened at once, then a review on a new connection: it is answered, allowed.

    The workers share one socket and step aside for each other to spread connections (webhook.balance); when one
    stepped aside for a peer that had itself just stepped aside, each connection of the burst waited 50 ms for
    nobody, and the review behind 400 of them waited about 5 s: past its budget, answered budget-exceeded."""
    server = start_server(tmp_path / "server", args=("--handshake-timeout", "300", "--header-timeout", "300"))
    try:
        with held([tcp(server.port, b"\x16") for _ in range(400)]):
            conn = server.connect(timeout=30)
            try:
                reply = send(conn, "POST", SLICES, encode(admission_review(slice_with(numa=1), uid="after")), JSON)
            finally:
                conn.close()
    finally:
        server.stop()
    assert (reply.status, reply.response) == (200, {"uid": "after", "allowed": True})


def closed_by_peer(sock: socket.socket | ssl.SSLSocket) -> bool:
    """True when the server closes the connection (EOF or reset) before our own 30 s read timeout."""
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, ssl.SSLError):
        return True
    except TimeoutError:
        return False


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("strict"), workers=1,
                          args=("--handshake-timeout", "1", "--header-timeout", "1", "--body-timeout", "1"))
    yield server
    server.stop()


def test_a_silent_connection_is_closed_at_the_handshake_deadline(strict_server: Server) -> None:
    with held([tcp(strict_server.port), tcp(strict_server.port, PARTIAL_HELLO)]) as socks:
        assert [closed_by_peer(s) for s in socks] == [True, True]
    # The one worker answers a review after those connections ended: whatever their end logged is written by
    # then, and every line is JSON (a handshake timeout once left a Python traceback per connection).
    assert strict_server.post(SLICES, admission_review(slice_with(numa=1), uid="uid-after")).status == 200
    assert not [line for line in strict_server.logs() if "Traceback" in json.dumps(line)]


def test_headers_that_never_end_are_closed_at_the_header_deadline(strict_server: Server) -> None:
    tls = loris(strict_server.port, client_context(strict_server.ca_file))
    tls.settimeout(30)
    with held([tls]):
        assert closed_by_peer(tls)


def test_a_body_that_never_ends_is_answered_408(strict_server: Server) -> None:
    conn = Connection(strict_server.port, client_context(strict_server.ca_file))
    conn.connect()
    assert conn.sock is not None
    body = encode(admission_review(slice_with(numa=1), uid="uid-slow-body"))
    head = (f"POST {SLICES} HTTP/1.1\r\nHost: {SNI}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    try:
        conn.sock.sendall(head + body[:10])
        raw = http.client.HTTPResponse(conn.sock)
        raw.begin()
        answer = raw.read()
    finally:
        conn.close()
    assert raw.status == 408
    assert b'"message":"request body not received within 1 s"' in answer
    assert b'"reason":"Timeout"' in answer
    # the rest of the body may still come: it must not be read as the next request, so the connection closes
    assert raw.getheader("Connection") == "close"


def test_a_quick_client_is_unaffected_by_the_strict_deadlines(strict_server: Server) -> None:
    reply = strict_server.post(SLICES, admission_review(slice_with(numa=1), uid="uid-quick"))
    assert (reply.status, reply.response) == (200, {"uid": "uid-quick", "allowed": True})
