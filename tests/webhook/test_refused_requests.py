"""Requests refused before they are a review, on a real `draguard serve` over real TLS: what gunicorn's HTTP parser
refuses, transfer codings nobody decodes, plain HTTP on the TLS port. Each is answered with one line of JSON
(`{"code", "error", "message"}`, as every non-review error on the port) and the standard reason phrase, never an
HTML page, and the server goes on serving."""

from __future__ import annotations

import contextlib
import gzip
import http.client
import json
import socket
import ssl

import pytest

from tests.builders import slice_with
from tests.webhook.conftest import SNI, Server, admission_review, client_context, encode
from webhook.front import PLAIN_HTTP

pytestmark = pytest.mark.slow

SLICES = "/validate/resourceslices"
REVIEW = encode(admission_review(slice_with(numa=1), uid="uid-refused"))
LINE_LIMIT = 8190  # gunicorn's limit_request_line, as `draguard serve` sets it
FIELD_LIMIT = 8190  # gunicorn's limit_request_field_size: a header line, its CRLF included
FIELDS_LIMIT = 100  # gunicorn's limit_request_fields


def head(extra: str = "", target: str = SLICES, length: int | None = len(REVIEW)) -> bytes:
    framing = "" if length is None else f"Content-Length: {length}\r\n"
    return f"POST {target} HTTP/1.1\r\nHost: {SNI}\r\nContent-Type: application/json\r\n{framing}{extra}\r\n".encode()


def exchange(sock: socket.socket | ssl.SSLSocket, data: bytes) -> http.client.HTTPResponse:
    sock.sendall(data)
    answer = http.client.HTTPResponse(sock)  # type: ignore[arg-type]
    answer.begin()
    return answer


def over_tls(server: Server, data: bytes) -> tuple[http.client.HTTPResponse, bytes]:
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw, \
            client_context(server.ca_file).wrap_socket(raw, server_hostname=SNI) as tls:
        answer = exchange(tls, data)
        return answer, answer.read()


def assert_refused(answer: http.client.HTTPResponse, body: bytes, code: int, reason: str, message: str) -> None:
    assert (answer.status, answer.reason) == (code, reason)
    assert answer.getheader("Content-Type") == "application/json"
    assert answer.getheader("Connection") == "close"  # what follows a refused request cannot be framed
    assert b"\n" not in body
    assert json.loads(body) == {"code": code, "error": reason, "message": message}


def chunked(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data)


def request_line(length: int) -> bytes:
    """`POST /validate/resourceslices?pad=... HTTP/1.1`, `length` bytes long (without its CRLF)."""
    fixed = len(f"POST {SLICES}?pad= HTTP/1.1")
    return head(target=f"{SLICES}?pad={'a' * (length - fixed)}")


@pytest.mark.parametrize(("length", "code"), [(LINE_LIMIT - 1, 200), (LINE_LIMIT, 200), (LINE_LIMIT + 1, 414)])
def test_a_request_line_over_its_limit_is_a_json_414(webhook_server: Server, length: int, code: int) -> None:
    data = request_line(length)
    assert data.index(b"\r\n") == length
    answer, body = over_tls(webhook_server, data + REVIEW)
    if code == 200:
        assert (answer.status, json.loads(body)["response"]["uid"]) == (200, "uid-refused")
    else:
        assert_refused(answer, body, 414, "Request URI Too Long",
                       f"Request Line is too large ({length} > {LINE_LIMIT})")


@pytest.mark.parametrize(("size", "code"), [(FIELD_LIMIT - 1, 200), (FIELD_LIMIT, 200), (FIELD_LIMIT + 1, 431)])
def test_a_header_over_its_limit_is_a_json_431(webhook_server: Server, size: int, code: int) -> None:
    field = f"X-Pad: {'a' * (size - len('X-Pad: ') - 2)}\r\n"
    assert len(field) == size
    answer, body = over_tls(webhook_server, head(field) + REVIEW)
    if code == 200:
        assert answer.status == 200
    else:
        assert_refused(answer, body, 431, "Request Header Fields Too Large",
                       "Error parsing headers: 'limit request headers fields size'")


@pytest.mark.parametrize(("count", "code"), [(FIELDS_LIMIT - 1, 200), (FIELDS_LIMIT, 200), (FIELDS_LIMIT + 1, 431)])
def test_more_headers_than_the_limit_is_a_json_431(webhook_server: Server, count: int, code: int) -> None:
    extra = "".join(f"X-{n}: 1\r\n" for n in range(count - 3))  # Host, Content-Type and Content-Length are 3
    answer, body = over_tls(webhook_server, head(extra) + REVIEW)
    if code == 200:
        assert answer.status == 200
    else:
        assert_refused(answer, body, 431, "Request Header Fields Too Large",
                       "Error parsing headers: 'limit request headers fields'")


@pytest.mark.parametrize(
    ("data", "code", "reason", "message"),
    [
        (head(f"Content-Length: {len(REVIEW)}\r\n") + REVIEW, 400, "Bad Request",
         "Invalid HTTP Header: 'CONTENT-LENGTH'"),
        (head("Content-Type: text/plain\r\n") + REVIEW, 400, "Bad Request", "Invalid HTTP Header: 'CONTENT-TYPE'"),
        (head("Transfer-Encoding: chunked\r\n") + chunked(REVIEW), 400, "Bad Request",
         "Invalid HTTP Header: 'CONTENT-LENGTH'"),
        (head("X-Folded: a\r\n b\r\n") + REVIEW, 400, "Bad Request",
         "Obsolete line folding is unacceptable: 'X-FOLDED'"),
        (head().replace(b"POST", b"post", 1) + REVIEW, 400, "Bad Request",
         "Invalid Method 'Invalid HTTP method: 'post''"),
        (head().replace(b"HTTP/1.1", b"HTTP/2.0", 1) + REVIEW, 400, "Bad Request",
         "Invalid HTTP Version 'Invalid HTTP Version: (2, 0)'"),
        (head("Expect: 200-ok\r\n") + REVIEW, 417, "Expectation Failed", "Unable to comply with expectation: '200-ok'"),
        (head("Transfer-Encoding: br, chunked\r\n", length=None) + chunked(REVIEW), 501, "Not Implemented",
         "Unsupported transfer coding: 'br, chunked'"),
    ],
    ids=["two-content-lengths", "two-content-types", "length-and-chunked", "folded-header", "lower-case-method",
         "http-2-version", "unknown-expectation", "unknown-transfer-coding"],
)
def test_a_request_the_parser_refuses_is_answered_in_one_line_of_json(
    webhook_server: Server, data: bytes, code: int, reason: str, message: str
) -> None:
    answer, body = over_tls(webhook_server, data)
    assert_refused(answer, body, code, reason, message)


def test_a_refused_request_line_is_quoted_in_at_most_512_characters(webhook_server: Server) -> None:
    line = b"GET /" + b"\x01" * 4000 + b" HTTP/1.1\r\n\r\n"  # a control character: gunicorn quotes the line
    answer, body = over_tls(webhook_server, line)
    assert (answer.status, answer.getheader("Content-Type")) == (400, "application/json")
    message = json.loads(body)["message"]
    assert message.startswith("Invalid Request Line") and len(message) == 512 and message.endswith("…")


@pytest.mark.parametrize("coding", ["gzip", "deflate", "compress"])
@pytest.mark.parametrize("path", [SLICES, "/healthz"])
def test_a_compressing_transfer_coding_is_a_501_not_a_body_read_undecoded(
    webhook_server: Server, coding: str, path: str
) -> None:
    """gunicorn lets gzip, deflate and compress before chunked through without decoding them: a gzip-coded review
    was answered `not valid JSON: not UTF-8`, and an uncoded one under that label was reviewed. Go's server takes
    chunked alone."""
    sent = gzip.compress(REVIEW) if coding == "gzip" else REVIEW
    data = head(f"Transfer-Encoding: {coding}, chunked\r\n", target=path, length=None) + chunked(sent)
    answer, body = over_tls(webhook_server, data)
    assert_refused(answer, body, 501, "Not Implemented", f"Unsupported transfer coding: '{coding}, chunked'")


def test_chunked_alone_is_still_read(webhook_server: Server) -> None:
    answer, body = over_tls(webhook_server, head("Transfer-Encoding: Chunked\r\n", length=None) + chunked(REVIEW))
    assert (answer.status, json.loads(body)["response"]) == (200, {"uid": "uid-refused", "allowed": True})


@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "PUT", "OPTIONS"])
def test_plain_http_on_the_tls_port_is_answered_400_in_one_line(webhook_server: Server, method: str) -> None:
    """As a Go HTTPS server answers it (net/http), rather than a failed handshake the client cannot read."""
    target = "*" if method == "OPTIONS" else SLICES
    with socket.create_connection(("127.0.0.1", webhook_server.port), timeout=30) as raw:
        answer = exchange(raw, f"{method} {target} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{{}}".encode())
        body = answer.read() if method != "HEAD" else b""
    assert (answer.status, answer.reason, answer.getheader("Connection")) == (400, "Bad Request", "close")
    if method != "HEAD":
        assert json.loads(body) == {"code": 400, "error": "Bad Request", "message": PLAIN_HTTP}
    reply = webhook_server.post(SLICES, REVIEW)  # TLS on the same port is unaffected
    assert (reply.status, reply.response) == (200, {"uid": "uid-refused", "allowed": True})


@pytest.mark.parametrize("start", [b"\x16\x03\x01", b"PATCH /x HTTP/1.1\r\n\r\n", b"GET\r\n"])
def test_anything_else_is_still_taken_as_a_tls_handshake(webhook_server: Server, start: bytes) -> None:
    with socket.create_connection(("127.0.0.1", webhook_server.port), timeout=30) as raw:
        answer = b""
        with contextlib.suppress(OSError):  # the server may have reset the connection already
            raw.sendall(start)
            raw.shutdown(socket.SHUT_WR)
            answer = raw.recv(1024)
    assert b"HTTP/" not in answer  # closed (the handshake failed): no HTTP answer


def test_the_metrics_port_refuses_in_json_too(webhook_server: Server) -> None:
    with socket.create_connection(("127.0.0.1", webhook_server.metrics_port), timeout=30) as raw:
        answer = exchange(raw, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Bad : 1\r\n\r\n")
        body = answer.read()
    assert_refused(answer, body, 400, "Bad Request", "Invalid HTTP header name: 'X-Bad '")
