"""webhook.audit.client: what the API server sends is decoded as JSON, or the run stops with one line."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from webhook.audit.client import Cluster, Failure
from webhook.errors import DraguardError

HOST = "https://127.0.0.1:6443"


class _Answer:
    def __init__(self, status: int, data: bytes) -> None:
        self.status, self._data = status, data

    def read(self) -> bytes:
        return self._data

    def getheader(self, name: str, default: str | None = None) -> str | None:
        return default


class _Client:
    """The two calls of the kubernetes ApiClient the audit makes, answering one canned response."""

    def __init__(self, status: int, data: bytes) -> None:
        self.configuration = SimpleNamespace(host=HOST)
        self.answer = _Answer(status, data)

    def param_serialize(self, **kwargs: Any) -> tuple[Any, ...]:
        return (kwargs["method"], kwargs["resource_path"])

    def call_api(self, *args: Any, **kwargs: Any) -> _Answer:
        return self.answer


@pytest.mark.parametrize(("data", "decoded"), [
    (b'{"items": [{"n": 99999999999999999999}], "metadata": {}}', {"items": [{"n": 99999999999999999999}],
                                                                  "metadata": {}}),
    (b'{"a": 1, "a": 2}', {"a": 2}),
    (b"", None),
])
def test_json_is_decoded_as_json_loads_would(data: bytes, decoded: Any) -> None:
    assert Cluster(_Client(200, data)).request("GET", "/apis/x") == decoded


@pytest.mark.parametrize("data", [b"<html>bad gateway</html>", b'{"items": [', b"\xff\xfe", b"[" * 100_000])
def test_a_success_that_is_not_json_is_one_line(data: bytes) -> None:
    with pytest.raises(DraguardError) as caught:
        Cluster(_Client(200, data)).request("GET", "/apis/resource.k8s.io/v1/resourceslices")
    assert str(caught.value) == (f"GET /apis/resource.k8s.io/v1/resourceslices: the API server at {HOST} did not "
                                 f"answer with JSON (HTTP 200)")


@pytest.mark.parametrize(("status", "data", "reason", "message"), [
    # kube-apiserver's answer to a path it does not serve: Go's http.NotFound, text/plain
    (404, b"404 page not found\n", "NotFound", "the server could not find the requested resource"),
    (502, b"<html>bad\ngateway</html>", "InternalError",
     'an error on the server ("<html>bad gateway</html>") has prevented the request from succeeding'),
    (403, b"denied by proxy\n", "Forbidden", "denied by proxy"),
    (401, b"", "Unauthorized", "the server has asked for the client to provide credentials"),
    (418, b"teapot", "", "the server responded with the status code 418 but did not return more information"),
    (503, b'{"kind": "APIGroup"}', "ServiceUnavailable", "the server is currently unable to handle the request"),
    (500, b"x" * 3000, "InternalError",
     f'an error on the server ("{"x" * 2048}") has prevented the request from succeeding'),
])
def test_an_error_answer_without_a_status_is_worded_as_client_go(status: int, data: bytes, reason: str,
                                                                  message: str) -> None:
    with pytest.raises(Failure) as caught:
        Cluster(_Client(status, data)).request("GET", "/apis/x")
    assert (caught.value.status, caught.value.reason, caught.value.message, caught.value.body) == (
        status, reason, message, {})


def test_an_error_status_is_a_failure_with_its_reason() -> None:
    status = b'{"kind": "Status", "reason": "Expired", "message": "too old", "metadata": {"continue": "t2"}}'
    with pytest.raises(Failure) as caught:
        Cluster(_Client(410, status)).request("GET", "/apis/x")
    assert (caught.value.status, caught.value.reason, caught.value.message) == (410, "Expired", "too old")
    assert caught.value.body["metadata"] == {"continue": "t2"}
