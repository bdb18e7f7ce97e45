"""Pipelined requests (sent before the answers to the earlier ones): each is answered, in order, on a real
`draguard serve` over TLS, and none keeps the worker from its other connections."""

from __future__ import annotations

import http.client
import io
import json
import socket
from types import SimpleNamespace

import gevent
import pytest

from tests.builders import slice_with
from tests.webhook.conftest import SNI, Server, admission_review, client_context, encode
from webhook.front import GuardedWorker
from webhook.serve import Limits

SLICES = "/validate/resourceslices"


def review_request(uid: str) -> bytes:
    body = encode(admission_review(slice_with(numa=1), uid=uid))
    return (f"POST {SLICES} HTTP/1.1\r\nHost: {SNI}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


@pytest.mark.slow
def test_pipelined_requests_are_answered_in_order(webhook_server: Server) -> None:
    data = [review_request(f"uid-p{n}") if n % 3 != 1 else f"GET /healthz HTTP/1.1\r\nHost: {SNI}\r\n\r\n".encode()
            for n in range(30)]
    with socket.create_connection(("127.0.0.1", webhook_server.port), timeout=30) as raw, \
            client_context(webhook_server.ca_file).wrap_socket(raw, server_hostname=SNI) as tls:
        tls.sendall(b"".join(data))
        answers = []
        for _ in data:
            answer = http.client.HTTPResponse(tls)  # type: ignore[arg-type]
            answer.begin()
            answers.append((answer.status, answer.read()))
    assert [status for status, _ in answers] == [200] * len(data)
    assert [json.loads(body)["response"]["uid"] if n % 3 != 1 else body.decode()
            for n, (_, body) in enumerate(answers)] == [f"uid-p{n}" if n % 3 != 1 else "ok\n" for n in range(30)]


def test_a_pipelined_request_lets_the_worker_s_other_connections_go_first() -> None:
    """A request already read takes no wait, so nothing made the connection's greenlet yield between requests: a
    client pipelining a thousand reviews had the worker to itself until its last answer."""
    worker = SimpleNamespace(limits=Limits(), _idle=set())
    parser = SimpleNamespace(unreader=SimpleNamespace(buf=io.BytesIO(b"POST / HTTP/1.1\r\n")))
    ran: list[str] = []
    left, right = socket.socketpair()
    with left, right:
        other = gevent.spawn(ran.append, "other connection")
        assert GuardedWorker._wait_idle(worker, left, parser) is True  # type: ignore[arg-type]
        assert ran == ["other connection"]
        other.join()
