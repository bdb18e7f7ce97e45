"""Refused reviews answer in the version they were asked in, and error replies always carry a reason."""

from __future__ import annotations

import pytest

from tests.webhook.test_app import SLICES, FakeTLS
from webhook.admission.response import Response, errored
from webhook.app import Settings, create_app
from webhook.fieldpath import FieldPath
from webhook.findings import Finding
from webhook.policy import Policy
from webhook.policy_store import PolicyStore


@pytest.mark.parametrize("version", ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"])
def test_a_refused_review_is_answered_in_the_version_it_was_asked_in(version: str) -> None:
    client = create_app(Settings(), PolicyStore.fixed(Policy.default()), FakeTLS()).test_client()
    body = {"apiVersion": version, "kind": "AdmissionReview",
            "request": {"uid": "u-1", "operation": "CREATE", "kind": {"kind": "ResourceSlice"}}}
    reply = client.post(SLICES, json=body)
    assert reply.status_code == 400
    assert reply.get_json() == {
        "apiVersion": version, "kind": "AdmissionReview",
        "response": {"uid": "u-1", "allowed": False, "status": {
            "status": "Failure", "code": 400, "reason": "BadRequest",
            "message": "request.object is missing: a CREATE review carries the object"}}}


def test_an_unlisted_code_is_an_internal_error_reason() -> None:
    assert errored(503, "overloaded") == Response(False, 503, "InternalError", "overloaded")
    assert errored(400, "x", "Custom") == Response(False, 400, "Custom", "x")


def test_findings_accumulate_in_order() -> None:
    first, second, third = (Finding(FieldPath.root("spec"), m) for m in "abc")
    response = Response(True).with_findings([first]).with_findings([second, third])
    assert response.findings == (first, second, third)
    assert response.allowed
