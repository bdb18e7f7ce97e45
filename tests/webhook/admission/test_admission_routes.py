"""The admission endpoint at its edges: the media type, a resource against its kind, the compile-cache budget."""

from __future__ import annotations

import json
import logging
import time

import pytest

from tests.builders import claim_with_selector
from tests.webhook.reliability.test_fail_closed import client_for, review
from webhook.admission import handlers
from webhook.admission.endpoint import decision, encode
from webhook.admission.response import allowed
from webhook.admission.review import (
    BadReview,
    GroupVersionKind,
    GroupVersionResource,
    Request,
    check_content_type,
    parse,
)
from webhook.budget import COMPILED_BYTES_FIXED, COMPILED_BYTES_PER_TEXT_BYTE, CompileCacheBudget
from webhook.policy import Policy


@pytest.mark.parametrize("content_type", [
    "application/json", "application/json; charset=utf-8", "application/json; charset=utf-8; q=1",
    " Application/JSON ;x=y",
])
def test_json_with_any_parameters_is_accepted(content_type: str) -> None:
    check_content_type(content_type)  # no BadReview


@pytest.mark.parametrize("content_type", ["application/yaml; charset=utf-8", "text/plain", "", None])
def test_anything_else_is_a_415_naming_what_was_sent(content_type: str | None) -> None:
    with pytest.raises(BadReview) as caught:
        check_content_type(content_type)
    assert (caught.value.code, caught.value.message) == (
        415, f"contentType={content_type or ''}, expected application/json")


def test_a_resource_of_another_group_is_held_against_the_kind() -> None:
    body = review(claim_with_selector('device.driver == "x"'), kind="ResourceClaim", resource="resourceslices")
    body["request"]["resource"]["group"] = "example.com"
    response = client_for().post("/validate/selectors", json=body).get_json()["response"]
    assert (response["allowed"], response["status"]["message"]) == (
        False, "request.kind resource.k8s.io/v1, Kind=ResourceClaim does not match request.resource "
               "example.com/v1/resourceslices")


def test_a_served_review_notes_what_it_compiled_in_the_webhooks_cache_budget() -> None:
    expression = 'device.driver == "x"'
    cache = CompileCacheBudget()
    req = Request("uid-c", GroupVersionKind("resource.k8s.io", "v1", "ResourceClaim"),
                  GroupVersionResource("resource.k8s.io", "v1", "resourceclaims"), "CREATE",
                  claim_with_selector(expression))
    assert handlers.selectors(req, Policy.default(), cache=cache).allowed
    assert cache.estimated_bytes == len(expression) * COMPILED_BYTES_PER_TEXT_BYTE + COMPILED_BYTES_FIXED


@pytest.mark.parametrize("api_version", ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"])
@pytest.mark.parametrize(("request_part", "message"), [
    (None, "request is missing: an AdmissionReview sent to a webhook carries request"),
    ({"uid": ""}, "request.uid is missing or empty"),
])
def test_a_review_without_a_usable_request_is_answered_in_its_own_api_version(
    api_version: str, request_part: object, message: str
) -> None:
    body = {"apiVersion": api_version, "kind": "AdmissionReview", "request": request_part}
    with pytest.raises(BadReview) as caught:
        parse(json.dumps(body).encode())
    assert (caught.value.code, caught.value.message, caught.value.api_version) == (400, message, api_version)


@pytest.mark.parametrize(("code", "shown"), [(200, "allowed"), (399, "allowed"), (400, "rejected"),
                                             (401, "rejected"), (499, "rejected"), (500, "error")])
def test_the_decision_logged_and_counted_for_each_status_code(code: int, shown: str) -> None:
    assert decision(code, allowed()) == shown


def test_text_msgspec_cannot_write_is_still_compact_json() -> None:
    assert encode({"m": "\ud800", "n": [1, 2]}) == b'{"m":"\\ud800","n":[1,2]}'


def test_the_logged_latency_is_the_time_the_review_took(caplog: pytest.LogCaptureFixture) -> None:
    body = review(claim_with_selector('device.driver == "x"'), kind="ResourceClaim", resource="resourceclaims")
    client = client_for()
    with caplog.at_level(logging.INFO):
        before = time.perf_counter()
        client.post("/validate/selectors", json=body)
        took_ms = (time.perf_counter() - before) * 1000
    line = next(r for r in caplog.records if r.getMessage() == "admission review")
    assert 0 <= line.fields["latencyMs"] <= took_ms + 0.001  # type: ignore[attr-defined]
