"""A review that clears celext's caches collects their reference cycles at once (the workers collect rarely)."""

from __future__ import annotations

import gc
import io
import json

import pytest

from webhook.admission.endpoint import SELECTORS_PATH, State, answer_review
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


def test_a_full_collection_follows_the_review_that_cleared_the_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    one = len(EXPRESSION) * COMPILED_BYTES_PER_TEXT_BYTE + COMPILED_BYTES_FIXED
    cache = CompileCacheBudget(max_bytes=one)  # room for exactly the first expression
    state = State(Fixed(), compile_cache=cache)
    collections: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: collections.append(generation) or 0)

    def send(expression: str) -> int:
        body = review(expression)
        code, _ = answer_review(SELECTORS_PATH, state, length=len(body), content_type="application/json",
                                stream=io.BytesIO(body))
        return code

    assert (send(EXPRESSION), cache.clears, collections) == (200, 0, [])
    assert (send(EXPRESSION), cache.clears, collections) == (200, 0, [])  # already counted: nothing to clear
    assert (send(EXPRESSION + " "), cache.clears, collections) == (200, 1, [2])  # one byte over: cleared, collected


def test_without_a_compile_cache_nothing_is_collected(monkeypatch: pytest.MonkeyPatch) -> None:
    collections: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: collections.append(generation) or 0)
    body = review(EXPRESSION)
    code, _ = answer_review(SELECTORS_PATH, State(Fixed()), length=len(body), content_type="application/json",
                            stream=io.BytesIO(body))
    assert (code, collections) == (200, [])
