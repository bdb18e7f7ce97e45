"""`webhook.connection.SocketBody`: a review's body read straight from the socket, with gunicorn's parser state kept
in step (what it drains before the next request, whether the connection may be reused). Driven through gunicorn's
own parser over a fake socket that hands out TLS-record-sized pieces."""

from __future__ import annotations

import time
from typing import Any

import pytest
from gunicorn import http
from gunicorn.config import Config

from webhook.admission.endpoint import read_body
from webhook.admission.review import MAX_BODY, BadReview
from webhook.connection import DeadlineInput, SocketBody
from webhook.front import ConfigValues

RECORD = 16 * 1024  # what one TLS record carries at most: one recv returns no more


class Interrupted(BaseException):
    """Stands for gevent.Timeout (a BaseException): a deadline, not a broken body."""


class Records:
    """A socket that returns the bytes it was given at most one record at a time; an exception in the list is
    raised when reached. Every `recv_into` must stay within the view and the count it is given."""

    def __init__(self, *parts: bytes | BaseException) -> None:
        self.pieces: list[bytes | BaseException] = []
        for part in parts:
            if isinstance(part, BaseException):
                self.pieces.append(part)
            else:
                self.pieces += [part[i:i + RECORD] for i in range(0, len(part), RECORD)]
        self.asked: list[int] = []

    def _next(self, size: int) -> bytes:
        if not self.pieces:
            return b""
        piece = self.pieces[0]
        if isinstance(piece, BaseException):
            self.pieces.pop(0)
            raise piece
        taken, rest = piece[:size], piece[size:]
        if rest:
            self.pieces[0] = rest
        else:
            self.pieces.pop(0)
        return taken

    def recv(self, size: int) -> bytes:
        return self._next(size)

    def recv_into(self, view: memoryview, size: int) -> int:
        assert size <= len(view)
        self.asked.append(size)
        data = self._next(size)
        view[:len(data)] = data
        return len(data)


def request(body: bytes, path: str = "/validate/resourceslices") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def parser(sock: Records) -> Any:
    return http.get_parser(ConfigValues(Config()), sock, ("127.0.0.1", 1))


def body_of(req: Any) -> SocketBody:
    body = SocketBody.of(req.body)
    assert isinstance(body, SocketBody)
    return body


# gunicorn's first read is 8 KiB: bodies held whole in it, ending exactly at its end, and spread over many records
@pytest.mark.parametrize("size", [1, 100, 8192 - 80, 8192 - 79, 8192 - 78, RECORD, 5 * RECORD + 7, 138_264])
def test_a_body_is_read_whole_and_the_pipelined_request_after_it_is_parsed(size: int) -> None:
    first, second = bytes(range(256)) * (size // 256) + b"x" * (size % 256), b'{"second": true}'
    sock = Records(request(first) + request(second, "/validate/selectors"))
    requests = parser(sock)
    req = next(requests)
    assert body_of(req).read(len(first) + 10) == first
    assert all(asked <= len(first) for asked in sock.asked)  # never past the body's end
    after = next(requests)  # nothing left to drain: the next request starts right after the body
    assert (after.path, body_of(after).read(100)) == ("/validate/selectors", second)
    assert body_of(after).read(100) == b""


def test_a_body_is_read_in_the_pieces_asked_for() -> None:
    body = b"0123456789" * 10_000
    sock = Records(request(body) + request(b"{}"))
    requests = parser(sock)
    reader = body_of(next(requests))
    pieces = []
    while piece := reader.read(30_000):
        pieces.append(piece)
    assert [len(p) for p in pieces] == [30_000, 30_000, 30_000, 10_000]
    assert b"".join(pieces) == body
    assert body_of(next(requests)).read(10) == b"{}"


def test_a_body_cut_short_is_refused_with_what_arrived() -> None:
    whole = request(b"{" + b" " * 99_998 + b"}")
    stream = DeadlineInput(body_of(next(parser(Records(whole[:50_000])))), time.monotonic() + 15, 15)
    with pytest.raises(BadReview) as refused:
        read_body(100_000, "application/json", stream)
    received = 50_000 - whole.index(b"\r\n\r\n") - 4
    assert (refused.value.code, refused.value.message) == (
        400, f"request body ended after {received} of 100000 bytes (the client closed the connection)")


def test_a_read_error_closes_the_connection_as_gunicorn_s_reader_does() -> None:
    body = b"x" * 50_000
    reset = ConnectionResetError(104, "Connection reset by peer")
    sock = Records(request(body)[:20_000], reset, request(body)[20_000:])
    requests = parser(sock)
    req = next(requests)
    with pytest.raises(BadReview) as refused:
        read_body(len(body), "application/json", DeadlineInput(body_of(req), time.monotonic() + 15, 15))
    assert (refused.value.code, refused.value.message) == (
        400, "request body could not be read: [Errno 104] Connection reset by peer")
    assert req.body.failed is True
    assert requests.finish_body() is False  # where the next request starts is unknown: the connection closes


def test_an_interrupted_read_leaves_only_the_rest_of_the_body_to_drain() -> None:
    body = b"y" * 60_000
    whole = request(body)
    sock = Records(whole[:30_000], Interrupted(), whole[30_000:] + request(b"{}"))
    requests = parser(sock)
    req = next(requests)
    with pytest.raises(Interrupted):
        body_of(req).read(len(body))
    assert req.body.failed is False  # a deadline is not a broken body: gunicorn drains the rest
    after = next(requests)
    assert (after.path, body_of(after).read(10)) == ("/validate/resourceslices", b"{}")


def test_only_a_fresh_body_framed_by_its_length_is_read_directly() -> None:
    chunked = (b"POST /validate/resourceslices HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"2\r\n{}\r\n0\r\n\r\n")
    req = next(parser(Records(chunked)))
    assert SocketBody.of(req.body) is req.body
    started = next(parser(Records(request(b"{}" * 10))))
    assert started.body.read(3) == b'{}{'  # gunicorn's reader holds the rest now: the direct reader would miss it
    assert SocketBody.of(started.body) is started.body


@pytest.mark.parametrize(("size", "code"), [(MAX_BODY - 1, 200), (MAX_BODY, 200), (MAX_BODY + 1, 413)])
def test_the_body_cap_holds_on_the_direct_path(size: int, code: int) -> None:
    body = b"{" + b" " * (size - 2) + b"}"
    reader = body_of(next(parser(Records(request(body)))))
    stream = DeadlineInput(reader, time.monotonic() + 15, 15)
    if code == 200:
        assert read_body(size, "application/json", stream) == body
    else:
        with pytest.raises(BadReview) as refused:
            read_body(size, "application/json", stream)
        assert (refused.value.code, refused.value.message) == (
            413, f"request entity is too large; limit is {MAX_BODY} bytes")


def test_lines_and_reads_mixed_continue_where_the_last_one_stopped() -> None:
    body = b"first line\nsecond line\n" + b"z" * 40_000
    sock = Records(request(body) + request(b"{}"))
    requests = parser(sock)
    reader = body_of(next(requests))
    assert reader.read(6) == b"first "
    assert reader.readline() == b"line\n"  # gunicorn's Body reads on from the socket reader's position
    assert reader.readline(3) == b"sec"
    assert reader.read(None) == b"ond line\n" + b"z" * 40_000  # part held by gunicorn's Body, the rest after it
    assert reader.read() == b""
    assert body_of(next(requests)).read(-1) == b"{}"


def test_the_wsgi_path_reads_the_body_directly_under_its_deadline() -> None:
    from webhook.connection import BodyDeadline

    body = b"w" * 70_000
    requests = parser(Records(request(body) + request(b"{}")))
    seen: list[Any] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(environ["wsgi.input"]._stream)
        return [environ["wsgi.input"].read(len(body) + 1)]

    assert BodyDeadline(app, 15)({"wsgi.input": next(requests).body}, lambda *args: None) == [body]
    assert isinstance(seen[0], SocketBody)
    assert body_of(next(requests)).read(10) == b"{}"
