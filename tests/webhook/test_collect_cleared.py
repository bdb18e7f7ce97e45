"""A review that clears celext's caches owes a full collection of their reference cycles (the workers collect
rarely); it runs once the answer is written, at most once per COLLECT_INTERVAL, never on a review's time."""

from __future__ import annotations

import gc
import io
import json

import pytest

from webhook.admission import endpoint
from webhook.admission.endpoint import COLLECT_INTERVAL, SELECTORS_PATH, State, answer_review
from webhook.budget import COMPILED_BYTES_FIXED, COMPILED_BYTES_PER_TEXT_BYTE, CompileCacheBudget
from webhook.policy import Policy

EXPRESSION = 'device.attributes["gpu.example.com"].model == "a100"'


class Fixed:
    def current(self) -> Policy:
        return Policy.default()


def review(expression: str) -> bytes:
    obj = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"},
           "spec": {"selectors": [{"cel": {"expression": expression}}]}}
    request = {"uid": "u", "operation": "CREATE", "object": obj,
               "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "DeviceClass"},
               "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "deviceclasses"}}
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def collections(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    found: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: found.append(generation) or 0)
    return found


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """A fresh deferred collection per test, on a clock the test moves."""
    ticking = Clock()
    monkeypatch.setattr(endpoint, "CLEARED", endpoint.DeferredCollection(clock=ticking))
    return ticking


def test_the_collection_is_owed_by_the_review_that_cleared_and_run_after_its_answer(
        collections: list[int], clock: Clock) -> None:
    one = len(EXPRESSION) * COMPILED_BYTES_PER_TEXT_BYTE + COMPILED_BYTES_FIXED
    cache = CompileCacheBudget(max_bytes=one)  # room for exactly the first expression
    state = State(Fixed(), compile_cache=cache)

    def send(expression: str) -> int:
        body = review(expression)
        code, _ = answer_review(SELECTORS_PATH, state, length=len(body), content_type="application/json",
                                stream=io.BytesIO(body))
        return code

    assert (send(EXPRESSION), cache.clears, collections) == (200, 0, [])
    endpoint.collect_cleared()
    assert collections == []  # nothing cleared, nothing owed
    assert (send(EXPRESSION), cache.clears, collections) == (200, 0, [])  # already counted: nothing to clear
    assert (send(EXPRESSION + " "), cache.clears, collections) == (200, 1, [])  # cleared: not inside the review
    endpoint.collect_cleared()  # the door, once the answer is written
    assert collections == [2]
    endpoint.collect_cleared()
    assert collections == [2]  # paid


@pytest.mark.parametrize(("elapsed", "collected"), [(COLLECT_INTERVAL - 0.001, False), (COLLECT_INTERVAL, True),
                                                    (COLLECT_INTERVAL + 0.001, True)])
def test_at_most_one_collection_per_interval(collections: list[int], clock: Clock, elapsed: float,
                                             collected: bool) -> None:
    endpoint.CLEARED.owe()
    assert endpoint.CLEARED.settle()
    endpoint.CLEARED.owe()  # caches cleared again soon after
    clock.now += elapsed
    assert endpoint.CLEARED.settle() is collected
    assert collections == [2, 2] if collected else [2]
    if not collected:  # still owed: the first answer after the interval pays it
        clock.now += 0.001
        assert endpoint.CLEARED.settle()
        assert collections == [2, 2]


def test_without_a_compile_cache_nothing_is_collected(collections: list[int], clock: Clock) -> None:
    body = review(EXPRESSION)
    code, _ = answer_review(SELECTORS_PATH, State(Fixed()), length=len(body), content_type="application/json",
                            stream=io.BytesIO(body))
    endpoint.collect_cleared()
    assert (code, collections) == (200, [])


@pytest.mark.parametrize("route", ["wsgi", "flask"])
def test_both_doors_settle_the_owed_collection_once_the_answer_is_written(
        collections: list[int], clock: Clock, route: str) -> None:
    """`AdmissionRoute` (the served WSGI route) and the Flask view behind it, reached without the route."""
    from webhook.app import Settings, create_app
    from webhook.policy_store import PolicyStore

    app = create_app(Settings(compile_cache_bytes=1), PolicyStore.fixed(Policy.default()))
    if route == "flask":
        app.wsgi_app = app.wsgi_app.app  # type: ignore[attr-defined]  # the views alone
    reply = app.test_client().post(SELECTORS_PATH, data=review(EXPRESSION), content_type="application/json")
    reply.close()
    assert (reply.status_code, collections) == (200, [2])


def test_the_recorded_latency_counts_the_wait_for_the_worker() -> None:
    """The latency histogram and the log line measure from the review's arrival: a review that waited 1.5 s for
    its worker is recorded at 1.5 s or more, not at its own few milliseconds."""
    from prometheus_client import REGISTRY

    def total() -> float:
        return REGISTRY.get_sample_value("controller_runtime_webhook_latency_seconds_sum",
                                         {"webhook": SELECTORS_PATH}) or 0.0

    body = review(EXPRESSION)
    before = total()
    answer_review(SELECTORS_PATH, State(Fixed()), length=len(body), content_type="application/json",
                  stream=io.BytesIO(body), waited=1.5)
    assert 1.5 <= total() - before < 2.5
