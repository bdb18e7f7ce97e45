"""`draguard serve --client-ca --allowed-subject` over real TLS: the API server's certificate or nothing."""

from __future__ import annotations

import http.client
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders import slice_with
from tests.webhook.auth.conftest import SLICES, AuthServer, ClientPKI, refused_count, start_auth_server
from tests.webhook.conftest import JSON, admission_review, encode, eventually, send

pytestmark = pytest.mark.slow

ALLOWED = "kube-apiserver"
ANSWER = {"uid": "uid-auth", "allowed": True}


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> ClientPKI:
    pki = ClientPKI(tmp_path_factory.mktemp("client-pki"))
    pki.write_ca()
    return pki


@pytest.fixture(scope="module")
def server(pki: ClientPKI, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthServer]:
    args = ("--client-ca", str(pki.ca_file), "--allowed-subject", ALLOWED,
            "--allowed-subject", "spiffe://cluster.local/ns/kube-system/*")
    started = start_auth_server(tmp_path_factory.mktemp("mtls"), args, ready_client=pki.client(ALLOWED))
    yield started
    started.stop()


def admission_lines(server: AuthServer) -> int:
    return sum(1 for entry in server.logs() if entry.get("msg") == "admission review")


def refused_at_tls(server: AuthServer, client: tuple[Path, Path] | None) -> str:
    """The TLS error a client meets (TLS 1.3 reports the server's alert on the first read, not in the handshake)."""
    with pytest.raises((ssl.SSLError, ConnectionError)) as caught:
        server.review(client=client)
    return str(caught.value)


def test_the_allowed_subject_is_answered(server: AuthServer, pki: ClientPKI) -> None:
    reviewed = admission_lines(server)
    reply = server.review(client=pki.client(ALLOWED))
    assert (reply.status, reply.response) == (200, ANSWER)
    assert admission_lines(server) == reviewed + 1


def test_a_uri_san_matching_a_glob_is_answered(server: AuthServer, pki: ClientPKI) -> None:
    client = pki.client("any-name", uris=("spiffe://cluster.local/ns/kube-system/sa/webhook-auth",))
    assert server.review(client=client).status == 200


def test_no_client_certificate_is_refused_at_the_handshake(server: AuthServer) -> None:
    before = refused_count(server.metrics(), "client_cert_missing")
    error = refused_at_tls(server, None)
    assert "CERTIFICATE_REQUIRED" in error or "reset" in error.lower() or "EOF" in error
    eventually(lambda: refused_count(server.metrics(), "client_cert_missing") == before + 1,
               "draguard_auth_refused_total{reason=client_cert_missing} counted")


def test_a_certificate_from_another_ca_is_refused_at_the_handshake(server: AuthServer, tmp_path: Path) -> None:
    stranger = ClientPKI(tmp_path).client(ALLOWED)  # the right name, the wrong CA
    before = refused_count(server.metrics(), "client_cert_untrusted")
    error = refused_at_tls(server, stranger)
    assert "UNKNOWN_CA" in error or "reset" in error.lower() or "EOF" in error
    eventually(lambda: refused_count(server.metrics(), "client_cert_untrusted") == before + 1,
               "draguard_auth_refused_total{reason=client_cert_untrusted} counted")


def test_a_trusted_certificate_with_another_subject_is_403(server: AuthServer, pki: ClientPKI) -> None:
    reviewed = admission_lines(server)
    reply = server.review(client=pki.client("kube-apiserver-impostor", dns=("kube-apiserver.example",)))
    assert (reply.status, reply.headers["content-type"]) == (403, "application/json")
    assert reply.json() == {
        "code": 403, "error": "Forbidden",
        "message": "client certificate CN=kube-apiserver-impostor, DNS:kube-apiserver.example is not allowed "
                   "(see --allowed-subject)",
    }
    assert refused_count(server.metrics(), "subject_not_allowed") >= 1
    (line,) = [e for e in server.logs() if e.get("reason") == "subject_not_allowed"]
    assert (line["code"], line["path"], line["level"]) == (403, SLICES, "warning")
    assert admission_lines(server) == reviewed  # the refused review never reached the view or the rules


def test_probes_stay_open_to_an_allowed_or_disallowed_certificate(server: AuthServer, pki: ClientPKI) -> None:
    other = pki.client("someone-else")
    assert server.request("GET", "/healthz", client=other).status == 200
    assert server.request("GET", "/readyz", client=other).status == 200


def test_a_rotated_client_ca_admits_new_clients_and_old_connections_finish(tmp_path: Path) -> None:
    old = ClientPKI(tmp_path / "old")
    old.write_ca()
    old_client = old.client(ALLOWED)
    # Two workers, as deployed: each holds its own reloader and must pick the new bundle up by itself.
    server = start_auth_server(tmp_path / "server", ("--client-ca", str(old.ca_file)), ready_client=old_client,
                               workers=2)
    try:
        kept = server.connect(old_client)  # an API server connection that stays open across the rotation
        body = encode(admission_review(slice_with(numa=1), uid="uid-kept"))
        assert send(kept, "POST", SLICES, body, JSON).status == 200

        new = ClientPKI(tmp_path / "new")
        new_client = new.client(ALLOWED)
        old.ca = new.ca  # the mounted bundle now holds only the new CA
        old.write_ca()

        def new_accepted() -> bool:
            try:
                return server.review(client=new_client).status == 200
            except (ssl.SSLError, ConnectionError):
                return False

        def old_refused() -> bool:
            try:
                server.review(client=old_client)
            except (ssl.SSLError, ConnectionError):
                return True
            return False

        # Every worker: a few handshakes in a row must all go the new way (the kernel spreads them over both).
        eventually(lambda: all(new_accepted() for _ in range(6)), "clients of the new CA accepted without a restart")
        eventually(lambda: all(old_refused() for _ in range(6)), "the old CA's certificate refused at the handshake")
        reply = send(kept, "POST", SLICES, body, JSON)  # the connection verified before the rotation goes on
        assert (reply.status, reply.response) == (200, {"uid": "uid-kept", "allowed": True})
        kept.close()
    finally:
        server.stop()


def raw_exchange(server: AuthServer, client: tuple[Path, Path], data: bytes) -> tuple[int, str, bytes, bytes]:
    """Send `data` on a new connection; the first answer's status, Connection header and body, then what follows it
    on the connection until the server closes it (b"" when it closes right after the answer)."""
    conn = server.connect(client)
    conn.connect()
    sock = conn.sock
    assert sock is not None
    try:
        sock.sendall(data)
        answer = http.client.HTTPResponse(sock)  # type: ignore[arg-type]
        answer.begin()
        body = answer.read()
        sock.settimeout(30)
        try:
            after = sock.recv(1024)
        except (ssl.SSLError, ConnectionError):
            after = b""
        return answer.status, answer.getheader("Connection") or "", body, after
    finally:
        conn.close()


def chunked_review(chunks: bytes) -> bytes:
    return (f"POST {SLICES} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode() + chunks


@pytest.mark.parametrize("size_line", [b"zz", b"-1"])
def test_a_body_that_breaks_its_framing_closes_the_connection(server: AuthServer, pki: ClientPKI,
                                                              size_line: bytes) -> None:
    """Behind client authentication a review goes through WSGI: it answered `Connection: keep-alive` after a broken
    chunk, then left the connection hanging until the next request, which it closed without an answer (the API
    server's next review on the pooled connection failed). The answer now says close, and the connection closes."""
    follower = encode(admission_review(slice_with(numa=1), uid="uid-after"))
    then = (f"POST {SLICES} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(follower)}\r\n\r\n").encode() + follower
    status, connection, body, after = raw_exchange(server, pki.client(ALLOWED),
                                                   chunked_review(size_line + b"\r\n" + then))
    assert (status, connection, after) == (400, "close", b"")
    assert b"request body could not be read: Invalid chunk size" in body


def test_a_body_left_unread_closes_the_connection(server: AuthServer, pki: ClientPKI) -> None:
    data = b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
    assert raw_exchange(server, pki.client(ALLOWED), data) == (200, "close", b"ok\n", b"")


def test_a_whole_chunked_body_keeps_the_connection(server: AuthServer, pki: ClientPKI) -> None:
    review = encode(admission_review(slice_with(numa=1), uid="uid-auth"))
    conn = server.connect(pki.client(ALLOWED))
    try:
        conn.putrequest("POST", SLICES)
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders(b"%x\r\n%s\r\n0\r\n\r\n" % (len(review), review))
        first = conn.getresponse()
        first.read()
        sock = conn.sock
        second = send(conn, "POST", SLICES, review, JSON)
        same = conn.sock is sock  # both went over one connection
    finally:
        conn.close()
    assert (first.status, first.getheader("Connection"), second.status, same) == (200, "keep-alive", 200, True)
