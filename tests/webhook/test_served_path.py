"""The served path of a review: the WSGI route before Flask, one write per answer, the budget's timers in a gevent
worker. What a user sees must not differ from what the Flask views answered."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import threading
import weakref
from types import SimpleNamespace
from typing import Any

import gevent
import msgspec
import pytest
from flask import Flask

from tests.builders import slice_with
from tests.conftest import REPO
from tests.webhook.conftest import SNI, Server, admission_review, client_context, encode
from webhook.admission.review import MAX_BODY
from webhook.app import AdmissionRoute, Settings, create_app
from webhook.balance import Balance
from webhook.budget import Budget, metered
from webhook.connection import OneWrite
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

SLICES, SELECTORS = "/validate/resourceslices", "/validate/selectors"


@pytest.fixture
def app() -> Flask:
    return create_app(Settings(), PolicyStore.fixed(Policy.default()))


def flask_only(app: Flask) -> Flask:
    """The same app with the route taken out: what the Flask views answer."""
    route = app.wsgi_app
    assert isinstance(route, AdmissionRoute)
    app.wsgi_app = route.app  # type: ignore[method-assign]
    return app


CASES: list[tuple[str, bytes, dict[str, str]]] = [
    (SLICES, encode(admission_review(slice_with(numa=1), uid="u-ok")), {"Content-Type": "application/json"}),
    (SLICES, encode(admission_review(slice_with(numa=-2), uid="u-deny")), {"Content-Type": "application/json"}),
    (SELECTORS, encode(admission_review(slice_with(numa=1), uid="u-kind")), {"Content-Type": "application/json"}),
    (SLICES, b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u-nan", "x": NaN}}',
     {"Content-Type": "application/json"}),
    (SLICES, b"{not json", {"Content-Type": "application/json; charset=utf-8"}),
    (SLICES, encode(admission_review(slice_with(numa=1))), {"Content-Type": "text/plain"}),
    (SLICES, encode(admission_review(slice_with(numa=1))), {}),
    (SLICES, b"", {"Content-Type": "application/json"}),
    (SLICES, b" " * (MAX_BODY + 1), {"Content-Type": "application/json"}),
]


@pytest.mark.parametrize(("path", "body", "headers"), CASES)
def test_the_route_answers_as_the_flask_views_did(path: str, body: bytes, headers: dict[str, str]) -> None:
    routed = create_app(Settings(), PolicyStore.fixed(Policy.default())).test_client().post(
        path, data=body, headers=headers)
    viewed = flask_only(create_app(Settings(), PolicyStore.fixed(Policy.default()))).test_client().post(
        path, data=body, headers=headers)
    assert (routed.status, routed.headers.to_wsgi_list(), routed.get_data()) == (
        viewed.status, viewed.headers.to_wsgi_list(), viewed.get_data())
    assert routed.headers["Content-Type"] == "application/json"


def test_a_review_does_not_go_through_flask(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    def flask_view(path: str) -> Any:
        raise AssertionError("the Flask view answered a review")

    monkeypatch.setattr("webhook.views._review", flask_view)
    reply = app.test_client().post(SLICES, json=admission_review(slice_with(numa=1), uid="u-route"))
    assert (reply.status_code, reply.get_json()["response"]) == (200, {"uid": "u-route", "allowed": True})


@pytest.mark.parametrize(("method", "path", "code"), [
    ("GET", SLICES, 405), ("PUT", SELECTORS, 405), ("POST", SLICES + "/", 404), ("POST", "/validate/pods", 404),
])
def test_other_methods_and_paths_stay_flask_s(app: Flask, method: str, path: str, code: int) -> None:
    reply = app.test_client().open(path, method=method)
    assert (reply.status_code, reply.get_json()["code"]) == (code, code)


def test_a_bug_around_the_answer_is_a_json_500_without_a_traceback(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr("webhook.admission.endpoint._record", broken)
    reply = app.test_client().post(SLICES, json=admission_review(slice_with(numa=1)))
    assert (reply.status_code, reply.get_json()["error"]) == (500, "Internal Server Error")
    assert "Traceback" not in reply.get_data(as_text=True)


class Recorder:
    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed = False

    def sendall(self, data: bytes) -> None:
        self.sent.append(data)

    def close(self) -> None:
        self.closed = True


def test_one_write_sends_what_was_held_at_once() -> None:
    sock = Recorder()
    out = OneWrite(sock)
    out.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
    out.sendall(memoryview(b"{}"))
    assert sock.sent == []
    out.flush()
    out.flush()
    assert sock.sent == [b"HTTP/1.1 200 OK\r\n\r\n{}"]


def test_any_other_use_of_the_socket_sends_what_is_held_first() -> None:
    sock = Recorder()
    out = OneWrite(sock)
    out.sendall(b"held")
    out.close()
    assert (sock.sent, sock.closed) == ([b"held"], True)


@pytest.mark.slow
def test_a_served_answer_is_one_tls_record(webhook_server: Server) -> None:
    body = encode(admission_review(slice_with(numa=1), uid="u-record"))
    request = (f"POST {SLICES} HTTP/1.1\r\nHost: {SNI}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    with socket.create_connection(("127.0.0.1", webhook_server.port), timeout=30) as raw, \
            client_context(webhook_server.ca_file).wrap_socket(raw, server_hostname=SNI) as tls:
        tls.sendall(request)
        first = tls.recv(1 << 16)  # one TLS record's plaintext: with headers and body written apart, the headers
    head, _, rest = first.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert json.loads(rest)["response"] == {"uid": "u-record", "allowed": True}


GEVENT_TIMED = """
import gevent.monkey
gevent.monkey.patch_all()
import gevent
from webhook.budget import Budget, BudgetExceeded, metered

def review():
    with metered(Budget(0, 0.05, 0)) as meter:
        print("timed", meter.timed, flush=True)
        try:
            while True:  # no check between steps: only the CPU timer can stop this
                pass
        except BudgetExceeded as err:
            print(err.message, flush=True)

gevent.spawn(review).join()
"""


@pytest.mark.slow
def test_the_budget_timers_run_in_a_gevent_greenlet() -> None:
    done = subprocess.run([sys.executable, "-c", GEVENT_TIMED], cwd=REPO, capture_output=True, text=True,
                          timeout=30, check=True)
    assert done.stdout.splitlines() == [
        "timed True", "evaluation used more than its CPU budget of 0.05 s; not evaluated further"]


def test_off_the_main_thread_the_budget_is_checked_between_steps() -> None:
    seen: list[bool] = []

    def evaluate() -> None:
        with metered(Budget(0, 1.0, 1.0)) as meter:
            seen.append(meter.timed)

    worker = threading.Thread(target=evaluate)
    worker.start()
    worker.join()
    with metered(Budget(0, 1.0, 1.0)) as meter:
        seen.append(meter.timed)
    assert seen == [False, True]


def exchange(server: Server, path: str, body: bytes, extra: str = "", version: str = "1.1") -> tuple[list[str], bytes]:
    """Send one request on a fresh TLS connection; the answer's head lines and body, read until the server closes
    or the body is complete."""
    request = (f"POST {path} HTTP/{version}\r\nHost: {SNI}\r\nContent-Type: application/json\r\n{extra}"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw, \
            client_context(server.ca_file).wrap_socket(raw, server_hostname=SNI) as tls:
        tls.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < _length(data):
            chunk = tls.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head.decode("latin-1").split("\r\n"), rest


def _length(data: bytes) -> int:
    for line in data.partition(b"\r\n\r\n")[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 1 << 30


def undated(head: list[str]) -> list[str]:
    return [line if not line.startswith("Date: ") else "Date: <now>" for line in head]


@pytest.mark.slow
@pytest.mark.parametrize("body", [
    encode(admission_review(slice_with(numa=-2), uid="u-same")),
    b"{not json",
])
def test_the_direct_answer_is_the_wsgi_answer(webhook_server: Server, body: bytes) -> None:
    # An escaped path is the same route for gunicorn's WSGI environ (it unquotes PATH_INFO), but not the raw path
    # the direct path compares: the second request takes the WSGI route.
    direct = exchange(webhook_server, SLICES, body)
    wsgi = exchange(webhook_server, SLICES.replace("slices", "%73lices"), body)
    assert (undated(direct[0]), direct[1]) == (undated(wsgi[0]), wsgi[1])
    assert [line.split(":")[0] for line in direct[0][1:]] == [
        "Server", "Date", "Connection", "Content-Type", "Content-Length"]


@pytest.mark.slow
@pytest.mark.parametrize(("extra", "version", "connection"), [
    ("", "1.1", "keep-alive"), ("Connection: close\r\n", "1.1", "close"), ("", "1.0", "close"),
    ("Connection: keep-alive\r\n", "1.0", "keep-alive"),
])
def test_the_direct_answer_keeps_or_closes_the_connection_as_asked(
    webhook_server: Server, extra: str, version: str, connection: str
) -> None:
    head, body = exchange(webhook_server, SLICES, encode(admission_review(slice_with(numa=1), uid="u-c")), extra,
                          version)
    assert head[0] == f"HTTP/{version} 200 OK"
    assert f"Connection: {connection}" in head
    assert json.loads(body)["response"] == {"uid": "u-c", "allowed": True}


def test_a_deadline_serves_every_request_of_a_connection() -> None:
    from webhook.connection import LATE, Deadline

    deadline = Deadline(0.05)
    assert deadline.run(lambda a, b: a + b, 1, 2) == 3
    assert deadline.run(gevent.sleep, 30) is LATE  # interrupted at the deadline, not after 30 s
    assert deadline.run(str.upper, "again") == "AGAIN"
    other = gevent.Timeout(0.01)
    with pytest.raises(gevent.Timeout) as caught:
        Deadline(30).run(lambda: (other.start(), gevent.sleep(30)))
    assert caught.value is other  # another deadline's expiry is not this one's


class FakeWorker:
    """What `GuardedWorker._answer` uses of its worker: the review path, which writes and then ends as told, and
    the worker's balance (busy while it answers)."""

    def __init__(self, end: BaseException | None) -> None:
        self.end = end
        self._balance = Balance(None, None)
        self.busy_while_answering: float | None = None

    def _review(self, req: object, out: OneWrite, since: float | None = None) -> bool:
        self.busy_while_answering = self._balance.answering_since
        out.sendall(b"HTTP/1.1 200 OK\r\n\r\n{}")
        if self.end is not None:
            raise self.end
        return True


@pytest.mark.parametrize(("end", "written"), [
    (None, [b"HTTP/1.1 200 OK\r\n\r\n{}"]),  # kept alive
    (StopIteration(), [b"HTTP/1.1 200 OK\r\n\r\n{}"]),  # answered with Connection: close
    (gevent.Timeout(30), []),  # the request deadline passed: the connection is cut
])
def test_an_answer_is_written_unless_the_request_deadline_passed(end: BaseException | None,
                                                                 written: list[bytes]) -> None:
    from webhook.front import GuardedWorker

    sock = Recorder()
    out = OneWrite(sock)
    worker = FakeWorker(end)
    if end is None:
        GuardedWorker._answer(worker, True, None, None, out, None)  # type: ignore[arg-type]
    else:
        with pytest.raises(type(end)):
            GuardedWorker._answer(worker, True, None, None, out, None)  # type: ignore[arg-type]
    assert sock.sent == written
    # busy for its peers while it answered, and no longer however the answer ended
    assert worker.busy_while_answering is not None and worker._balance.answering_since is None


class Tracked(dict[str, Any]):
    """A decoded object that can be watched with a weak reference (a plain dict cannot)."""


class ReviewRequest:
    """What `GuardedWorker._review` reads of gunicorn's parsed request."""

    method, path, query, version, _expected_100_continue = "POST", SLICES, "timeout=3s", (1, 1), False

    def __init__(self, body: bytes) -> None:
        self.headers = [("CONTENT-TYPE", "application/json"), ("CONTENT-LENGTH", str(len(body)))]
        self.body = io.BytesIO(body)

    def should_close(self) -> bool:
        return False


@pytest.mark.parametrize("uid", ["u-free", ""])  # a review, and one refused (400) for its empty uid
def test_the_decoded_review_is_freed_after_the_answer_is_written(monkeypatch: pytest.MonkeyPatch, uid: str) -> None:
    from webhook.admission import review
    from webhook.front import GuardedWorker
    from webhook.serve import Limits

    decoded: list[weakref.ref[Tracked]] = []
    parse = review.parse

    def tracked(body: bytes) -> review.Request:
        req = parse(body)
        obj = Tracked(req.object or {})
        decoded.append(weakref.ref(obj))
        return msgspec.structs.replace(req, object=obj)

    monkeypatch.setattr(review, "parse", tracked)
    alive_at_write: list[bool] = []

    class Watching(Recorder):
        def sendall(self, data: bytes) -> None:
            alive_at_write.extend(ref() is not None for ref in decoded)
            super().sendall(data)

    app = create_app(Settings(), PolicyStore.fixed(Policy.default()))
    worker = SimpleNamespace(_route=app.wsgi_app, limits=Limits(), alive=True)
    sock = Watching()
    body = encode(admission_review(slice_with(numa=1), uid=uid))
    assert GuardedWorker._review(worker, ReviewRequest(body), OneWrite(sock)) is True  # type: ignore[arg-type]
    assert sock.sent[0].startswith(b"HTTP/1.1 200 OK\r\n" if uid else b"HTTP/1.1 400 BAD REQUEST\r\n")
    # The answer went out while the decoded object was still held, and it was freed right after.
    assert alive_at_write == ([True] if uid else [])
    assert [ref() for ref in decoded] == ([None] if uid else [])


def test_answer_review_hands_the_decoded_review_to_release() -> None:
    from webhook.admission.endpoint import State, answer_review

    body = encode(admission_review(slice_with(numa=1), uid="u-release"))
    release: list[object] = []
    code, _ = answer_review(SLICES, State(PolicyStore.fixed(Policy.default())), length=len(body),
                            content_type="application/json", stream=io.BytesIO(body), release=release)
    assert code == 200
    assert [type(r).__name__ for r in release] == ["Request"]
    assert release[0].uid == "u-release"  # type: ignore[attr-defined]
    code, _ = answer_review(SLICES, State(PolicyStore.fixed(Policy.default())), length=3,
                            content_type="application/json", stream=io.BytesIO(b"{x}"), release=release)
    assert (code, release[1:]) == (400, [None])  # nothing was decoded: nothing to hold


def test_transfer_codings_are_looked_at_only_for_a_chunked_body() -> None:
    """`_check_transfer_coding` refuses a coding before `chunked` (gunicorn lets gzip through undecoded); a body framed
    by Content-Length, the API server's, skips the header scan on the per-request path."""
    from gunicorn.http.body import Body, ChunkedReader, LengthReader
    from gunicorn.http.errors import UnsupportedTransferCoding

    from webhook.front import _check_transfer_coding

    def request(reader: Any, coding: str) -> SimpleNamespace:
        return SimpleNamespace(body=Body(reader), headers=[("HOST", SNI), ("TRANSFER-ENCODING", coding)])

    chunks = object.__new__(ChunkedReader)
    with pytest.raises(UnsupportedTransferCoding, match="gzip, chunked"):
        _check_transfer_coding(request(chunks, "gzip, chunked"))
    _check_transfer_coding(request(chunks, " Chunked "))
    _check_transfer_coding(request(LengthReader(None, 0), "gzip"))  # not scanned: gunicorn framed it by length
