"""One review through `answer_review` as a front hands it over (a body stream, its length and content type): the
HTTP code and answer, the one log line in full, how the body is read and drained. Fast on purpose: these are the
tests mutation testing runs first against `webhook.admission.endpoint` (tests/mutation)."""

from __future__ import annotations

import json
import logging
import types
from typing import Any

import pytest

import webhook.run  # noqa: F401  (the rule catalogue, imported at collection rather than in the first test)
from webhook import metrics
from webhook.admission import endpoint, handlers, review
from webhook.admission.endpoint import (
    DRAIN_LIMIT,
    SELECTORS_PATH,
    BodyDeadlineExceeded,
    State,
    answer_review,
    read_body,
)
from webhook.admission.logs import REQUEST_LOGGER
from webhook.admission.review import MAX_BODY, BadReview
from webhook.budget import COMPILED_BYTES_FIXED, COMPILED_BYTES_PER_TEXT_BYTE, Budget, CompileCacheBudget
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

JSON = "application/json"
CHUNK = 64 * 1024  # what `_discard` asks for at a time
COMPILE_WARNING = ("[selector-compile] spec.selectors[0].cel.expression: compilation failed: found no matching "
                   "overload for '_==_' applied to '(string, int)'")


FIXED = PolicyStore.fixed(Policy.default())


class Stream:
    """A body stream that records the sizes asked for and hands out at most `cap` bytes a read."""

    def __init__(self, data: bytes = b"", *, cap: int | None = None, endless: int = 0, fail: Exception | None = None,
                 text: bool = False) -> None:
        self.data, self.cap, self.endless, self.fail, self.text = data, cap, endless, fail, text
        self.asked: list[int] = []

    def read(self, size: int) -> Any:
        self.asked.append(size)
        if self.fail is not None:
            raise self.fail
        if self.endless:  # `endless` bytes of zeros, however they are asked for
            give = min(size, self.endless)
            self.endless -= give
            return bytes(give)
        give = min(size, self.cap) if self.cap is not None else size
        chunk, self.data = self.data[:give], self.data[give:]
        return chunk.decode() if self.text else chunk


def device_class(expression: str = "device.driver == 1", **metadata: str) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": metadata or {"name": "c"},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def body_of(obj: dict[str, Any] | None, *, operation: str = "CREATE", old: dict[str, Any] | None = None,
            api_version: str = "admission.k8s.io/v1", kind: str = "DeviceClass", **fields: Any) -> bytes:
    request: dict[str, Any] = {
        "uid": "u-1", "operation": operation, "object": obj,
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": kind},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": kind.lower() + "es"},
        **fields,
    }
    if old is not None:
        request["oldObject"] = old
    return json.dumps({"apiVersion": api_version, "kind": "AdmissionReview", "request": request}).encode()


def send(body: bytes, path: str = SELECTORS_PATH, state: State | None = None, *, length: int | None = -1,
         content_type: str | None = JSON, stream: Stream | None = None) -> tuple[int, dict[str, Any]]:
    code, data = answer_review(path, state or State(FIXED), length=len(body) if length == -1 else length,
                               content_type=content_type, stream=stream or Stream(body))
    return code, json.loads(data)


@pytest.fixture
def lines(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> pytest.LogCaptureFixture:
    """The admission log records, each request's latency made 12.3456 ms by a clock that ticks that much a read."""
    ticks = iter(range(100))
    clock = types.SimpleNamespace(perf_counter=lambda: next(ticks) * 0.0123456)
    monkeypatch.setattr(endpoint, "time", clock)
    caplog.set_level(logging.INFO, logger=REQUEST_LOGGER)
    return caplog


def fields(record: logging.LogRecord) -> dict[str, Any]:
    out: dict[str, Any] = dict(record.fields)  # type: ignore[attr-defined]
    assert out.pop("worker") > 0
    return out


REQUEST_FIELDS = {"kind": "DeviceClass", "resource": "resource.k8s.io/v1/deviceclasses", "namespace": "ns",
                  "operation": "CREATE", "dryRun": True, "user": "alice"}


def test_a_warned_review_logs_every_field_at_info(lines: pytest.LogCaptureFixture) -> None:
    body = body_of(device_class(), namespace="ns", dryRun=True, userInfo={"username": "alice"})
    code, answer = send(body)
    assert (code, answer["response"]) == (200, {"uid": "u-1", "allowed": True, "warnings": [COMPILE_WARNING]})
    assert [(r.levelname, r.getMessage()) for r in lines.records] == [("INFO", "admission review")]
    assert fields(lines.records[0]) == {"webhook": SELECTORS_PATH, "decision": "allowed", "code": 200, "uid": "u-1",
                                **REQUEST_FIELDS, "name": "c", "rules": ["selector-compile"], "warnings": 1,
                                "latencyMs": 12.346}


@pytest.mark.parametrize(
    ("request_name", "metadata", "logged"),
    [("given", {"name": "c", "generateName": "g-"}, "given"),
     ("", {"name": "c", "generateName": "g-"}, "c"),
     ("", {"generateName": "g-"}, "g-"),
     ("", {"name": "n" * 300}, "n" * 256)],
)
def test_the_logged_name_is_the_request_s_then_the_object_s_then_its_generate_name(
        lines: pytest.LogCaptureFixture, request_name: str, metadata: dict[str, str], logged: str) -> None:
    send(body_of(device_class(**metadata), name=request_name))
    assert fields(lines.records[0])["name"] == logged


def test_a_delete_logs_the_old_object_s_name(lines: pytest.LogCaptureFixture) -> None:
    code, answer = send(body_of(None, operation="DELETE", old=device_class(name="gone")))
    assert (code, answer["response"]) == (200, {"uid": "u-1", "allowed": True})
    assert fields(lines.records[0]) == {
        "webhook": SELECTORS_PATH, "decision": "allowed", "code": 200, "uid": "u-1", "kind": "DeviceClass",
        "resource": "resource.k8s.io/v1/deviceclasses", "namespace": "", "name": "gone", "operation": "DELETE",
        "dryRun": False, "user": "", "rules": [], "warnings": 0, "latencyMs": 12.346}


def test_a_noted_answer_is_logged_at_warning_with_its_note(lines: pytest.LogCaptureFixture) -> None:
    rule = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "r"}}
    rules = {"group": "resource.k8s.io", "version": "v1", "resource": "devicetaintrules"}
    code, answer = send(body_of(rule, kind="DeviceTaintRule", resource=rules))
    assert (code, answer["response"]) == (200, {"uid": "u-1", "allowed": True})
    assert lines.records[0].levelname == "WARNING"
    note = "resource.k8s.io/v1, Kind=DeviceTaintRule is not handled by this webhook; allowed without checks"
    assert fields(lines.records[0])["note"] == note


def test_a_clean_review_is_logged_at_info_without_a_note(lines: pytest.LogCaptureFixture) -> None:
    send(body_of(device_class('device.driver == "x"')))
    assert lines.records[0].levelname == "INFO"
    assert "note" not in fields(lines.records[0])
    assert "error" not in fields(lines.records[0])


def test_a_refused_review_is_logged_at_warning_with_its_uid_and_error(lines: pytest.LogCaptureFixture) -> None:
    body = body_of(device_class(), operation="PATCH")
    code, answer = send(body)
    message = 'request.operation: unsupported value "PATCH"; expected one of CREATE, UPDATE, DELETE, CONNECT'
    assert (code, answer["response"]["status"]["message"]) == (400, message)
    assert lines.records[0].levelname == "WARNING"
    assert fields(lines.records[0]) == {"webhook": SELECTORS_PATH, "decision": "rejected", "code": 400, "uid": "u-1",
                                "rules": [], "error": message, "latencyMs": 12.346}


def test_a_v1beta1_review_is_answered_in_v1beta1() -> None:
    code, answer = send(body_of(device_class(), api_version="admission.k8s.io/v1beta1"))
    assert (code, answer["apiVersion"], answer["response"]["allowed"]) == (200, "admission.k8s.io/v1beta1", True)


def test_a_bug_in_a_handler_is_a_500_in_the_review_s_version(monkeypatch: pytest.MonkeyPatch,
                                                             lines: pytest.LogCaptureFixture) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(handlers, "selectors", broken)
    code, answer = send(body_of(device_class(), api_version="admission.k8s.io/v1beta1"))
    message = "internal error in the draguard webhook (RuntimeError); see its log for uid u-1"
    assert (code, answer) == (500, {"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "response": {
        "uid": "u-1", "allowed": False, "status": {"status": "Failure", "code": 500, "message": message,
                                                    "reason": "InternalError"}}})
    assert lines.records[0].levelname == "ERROR"
    assert fields(lines.records[0])["error"] == message
    assert lines.records[0].exc_info is not None and str(lines.records[0].exc_info[1]) == "boom"


def test_a_bug_before_the_review_is_read_is_a_500_in_v1_without_a_uid(lines: pytest.LogCaptureFixture) -> None:
    """A server stream handing back text instead of bytes is a bug on this side, answered as one."""
    body = body_of(device_class(), api_version="admission.k8s.io/v1beta1")
    code, answer = send(body, stream=Stream(body, text=True))
    message = "internal error in the draguard webhook (TypeError); see its log for uid"  # one line: no trailing space
    assert (code, answer) == (500, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {
        "uid": "", "allowed": False, "status": {"status": "Failure", "code": 500, "message": message,
                                                    "reason": "InternalError"}}})
    assert fields(lines.records[0]) == {"webhook": SELECTORS_PATH, "decision": "error", "code": 500, "rules": [],
                                "error": message + " ", "latencyMs": 12.346}


def test_a_review_counts_as_in_flight_while_it_is_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []
    answer = handlers.selectors

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(metrics.in_flight(SELECTORS_PATH)._value.get())
        return answer(*args, **kwargs)

    monkeypatch.setattr(handlers, "selectors", counting)
    before = metrics.in_flight(SELECTORS_PATH)._value.get()
    assert send(body_of(device_class()))[0] == 200
    assert (seen, metrics.in_flight(SELECTORS_PATH)._value.get()) == ([before + 1], before)


def test_the_compile_cache_is_used_and_a_clearing_review_alone_owes_a_collection(
        monkeypatch: pytest.MonkeyPatch) -> None:
    expression = 'device.driver == "x"'
    cache = CompileCacheBudget(max_bytes=len(expression) * COMPILED_BYTES_PER_TEXT_BYTE + COMPILED_BYTES_FIXED)
    state = State(FIXED, compile_cache=cache)
    owed: list[int] = []
    monkeypatch.setattr(endpoint, "CLEARED", endpoint.DeferredCollection())
    monkeypatch.setattr(endpoint.CLEARED, "owe", lambda: owed.append(cache.clears))
    for text in (expression, expression + " ", expression + " ", expression):
        assert send(body_of(device_class(text)), state=state)[0] == 200
    assert (cache.clears, owed) == (2, [1, 2])  # the third review fits: nothing owed after it


# --- reading the body -------------------------------------------------------------------------------------------


def test_a_body_with_a_length_is_read_in_one_read_of_that_length() -> None:
    stream = Stream(b'{"a":1}' + b"trailing")
    assert read_body(7, JSON, stream) == b'{"a":1}'
    assert stream.asked == [7]


def test_a_body_arriving_in_pieces_is_joined_asking_only_for_what_is_left() -> None:
    stream = Stream(b'{"abc":12345}', cap=4)
    assert read_body(13, JSON, stream) == b'{"abc":12345}'
    assert stream.asked == [13, 9, 5, 1]


def test_a_chunked_body_is_read_to_its_end_asking_for_one_byte_past_the_cap() -> None:
    stream = Stream(b'{"abc":1}', cap=5)
    assert read_body(None, JSON, stream) == b'{"abc":1}'
    assert stream.asked == [MAX_BODY + 1, MAX_BODY - 4, MAX_BODY - 8]


def test_a_chunked_review_is_answered() -> None:
    body = body_of(device_class())
    assert send(body, length=None, stream=Stream(body, cap=100))[0] == 200


def test_a_body_cut_short_is_a_400_naming_the_sizes() -> None:
    body = body_of(device_class())
    code, answer = send(body, length=len(body) + 5)
    assert (code, answer["response"]["status"]["message"]) == (
        400, f"request body ended after {len(body)} of {len(body) + 5} bytes (the client closed the connection)")


@pytest.mark.parametrize(
    ("fail", "code", "reason", "message"),
    [(BodyDeadlineExceeded(2.5), 408, "Timeout", "request body not received within 2.5 s"),
     (ValueError("bad chunk size"), 400, "BadRequest", "request body could not be read: bad chunk size"),
     (ValueError(), 400, "BadRequest", "request body could not be read: ValueError")],
)
def test_a_body_the_server_cannot_read_is_refused(fail: Exception, code: int, reason: str, message: str) -> None:
    with pytest.raises(BadReview, match=f"^{message}$") as caught:
        read_body(10, JSON, Stream(fail=fail))
    assert caught.value.code == code
    assert review.refusal(caught.value)["response"]["status"] == {"status": "Failure", "code": code,
                                                                  "message": message, "reason": reason}


def test_the_body_deadline_keeps_its_seconds() -> None:
    assert (BodyDeadlineExceeded(0.25).seconds, str(BodyDeadlineExceeded(0.25))) == (
        0.25, "request body not received within 0.25 s")


@pytest.mark.parametrize(("length", "drained"), [(MAX_BODY + 1, True), (DRAIN_LIMIT, True), (DRAIN_LIMIT + 1, False)])
def test_an_oversized_body_up_to_the_drain_limit_is_read_and_thrown_away(length: int, drained: bool) -> None:
    stream = Stream(b"x" * 10)
    with pytest.raises(BadReview, match=f"^request entity is too large; limit is {MAX_BODY} bytes$"):
        read_body(length, JSON, stream)
    assert stream.asked == ([CHUNK, CHUNK] if drained else [])
    assert stream.data == (b"" if drained else b"x" * 10)


def test_draining_stops_one_read_past_the_drain_limit() -> None:
    stream = Stream(endless=DRAIN_LIMIT + 10 * CHUNK)
    with pytest.raises(BadReview, match=r"^request entity is too large"):
        read_body(MAX_BODY + 1, JSON, stream)
    assert stream.asked == [CHUNK] * (DRAIN_LIMIT // CHUNK + 1)


def test_a_chunked_body_past_the_cap_is_drained_then_refused() -> None:
    stream = Stream(endless=MAX_BODY + 1 + 3 * CHUNK)
    with pytest.raises(BadReview, match=r"^request entity is too large") as caught:
        read_body(None, JSON, stream)
    assert caught.value.code == 413
    assert stream.endless == 0
    assert stream.asked[0] == MAX_BODY + 1


@pytest.mark.parametrize(("size", "accepted"), [(MAX_BODY - 1, True), (MAX_BODY, True), (MAX_BODY + 1, False)])
@pytest.mark.parametrize("chunked", [False, True])
def test_a_body_of_up_to_7_mib_is_read_whole(size: int, accepted: bool, chunked: bool) -> None:
    stream = Stream(b"x" * size)
    if accepted:
        assert len(read_body(None if chunked else size, JSON, stream)) == size
        return
    with pytest.raises(BadReview, match=f"^request entity is too large; limit is {MAX_BODY} bytes$"):
        read_body(None if chunked else size, JSON, stream)


def test_the_state_s_budget_bounds_each_review() -> None:
    obj = device_class()
    obj["spec"]["selectors"] = [{"cel": {"expression": f'device.driver == "d{i}"'}} for i in range(2)]
    code, answer = send(body_of(obj), state=State(FIXED, budget=Budget(selectors=1)))
    assert (code, answer["response"]["allowed"]) == (200, False)
    assert "2 distinct selector expressions exceed this webhook's budget of 1 per object" in \
        answer["response"]["status"]["message"]
