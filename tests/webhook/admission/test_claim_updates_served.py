"""UPDATE reviews of ResourceClaims, ResourceClaimTemplates and DeviceClasses, answered by the real served app
(`draguard serve`, gunicorn over TLS, the session's default policy: Kubernetes 1.37): a claim's or template's spec is
immutable (ValidateResourceClaimUpdate / ValidateResourceClaimTemplateUpdate), metadata follows
ValidateObjectMetaUpdate, and an unchanged object (or a change to what may change) is allowed."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.webhook.conftest import Server, admission_review

SELECTORS = "/validate/selectors"
SPEC_IMMUTABLE = "spec: Invalid value: null: field is immutable"


def claim(count: int = 1, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "gpu", "namespace": "ml", "uid": "0b9f6c2e-1d1a-4c55-9c1b-3f1d7c0e9a11", **meta},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": count}}]}}}


def template(count: int = 1, labels: dict[str, str] | None = None) -> dict[str, Any]:
    spec = claim(count)["spec"]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "gpu", "namespace": "ml"},
            "spec": {"metadata": {"labels": labels or {"app": "train"}}, "spec": spec}}


def device_class(expression: str = "device.driver == 'gpu.example.com'") -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def update(server: Server, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    reply = server.post(SELECTORS, admission_review(new, operation="UPDATE", old=old, uid="uid-update"))
    assert reply.status == 200
    response: dict[str, Any] = reply.response
    assert response["uid"] == "uid-update"
    return response


def denied(response: dict[str, Any]) -> list[tuple[str, str]]:
    assert response["allowed"] is False, response
    return [(c["field"], c["message"]) for c in response["status"]["details"]["causes"]]


def test_a_changed_claim_spec_is_denied(webhook_server: Server) -> None:
    response = update(webhook_server, claim(count=2), claim(count=1))
    assert denied(response) == [("spec", "Invalid value: null: field is immutable")]
    assert response["status"]["message"] == f"1 problem: {SPEC_IMMUTABLE} [k8s-immutable]"


@pytest.mark.parametrize("change", ["labels", "annotations", "finalizers", "nothing"])
def test_a_claim_whose_spec_is_unchanged_is_allowed(webhook_server: Server, change: str) -> None:
    old = claim()
    new = copy.deepcopy(old)
    if change == "labels":
        new["metadata"]["labels"] = {"team": "ml"}
    elif change == "annotations":
        new["metadata"]["annotations"] = {"example.com/owner": "ml"}
    elif change == "finalizers":
        new["metadata"]["finalizers"] = ["example.com/keep"]
    response = update(webhook_server, new, old)
    assert (response["allowed"], "status" in response) == (True, False)


def test_a_spec_written_differently_but_decoded_the_same_is_unchanged(webhook_server: Server) -> None:
    """Semantic.DeepEqual of the decoded specs: `null` and `[]` are nil alike, an unknown field is dropped, an
    explicit zero value of a non-pointer field is unset."""
    new = claim()
    new["spec"]["devices"]["constraints"] = []
    new["spec"]["devices"]["config"] = None
    new["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = []
    response = update(webhook_server, new, claim())
    assert response["allowed"] is True


def test_a_changed_template_spec_is_denied_and_its_metadata_counts(webhook_server: Server) -> None:
    """The template's whole `spec` is immutable, its `spec.metadata` (the claims' labels) included."""
    assert denied(update(webhook_server, template(count=2), template())) == [
        ("spec", "Invalid value: null: field is immutable")]
    assert denied(update(webhook_server, template(labels={"app": "serve"}), template())) == [
        ("spec", "Invalid value: null: field is immutable")]
    assert update(webhook_server, template(), template())["allowed"] is True


def test_a_renamed_claim_is_denied(webhook_server: Server) -> None:
    """ValidateObjectMetaUpdate: metadata.name and namespace are immutable."""
    response = update(webhook_server, claim(name="other"), claim())
    assert denied(response) == [("metadata.name", 'Invalid value: "other": field is immutable')]
    response = update(webhook_server, claim(namespace="prod"), claim())
    assert denied(response) == [("metadata.namespace", 'Invalid value: "prod": field is immutable')]


def test_no_finalizer_may_be_added_to_a_claim_being_deleted(webhook_server: Server) -> None:
    old = claim(deletionTimestamp="2026-08-01T10:00:00Z", finalizers=["example.com/a"])
    kept = claim(deletionTimestamp="2026-08-01T10:00:00Z", finalizers=["example.com/a"])
    added = claim(deletionTimestamp="2026-08-01T10:00:00Z", finalizers=["example.com/c", "example.com/a",
                                                                       "example.com/b"])
    assert update(webhook_server, kept, old)["allowed"] is True
    assert denied(update(webhook_server, added, old)) == [(
        "metadata.finalizers", 'Forbidden: no new finalizers can be added if the object is being deleted, found new '
        'finalizers []string{"example.com/b", "example.com/c"}')]


def test_a_device_class_spec_may_change(webhook_server: Server) -> None:
    """ValidateDeviceClassUpdate validates the new spec; nothing in it is immutable."""
    new = device_class("device.driver == 'other.example.com'")
    assert update(webhook_server, new, device_class())["allowed"] is True
    renamed = device_class()
    renamed["metadata"]["name"] = "other.example.com"
    assert denied(update(webhook_server, renamed, device_class())) == [
        ("metadata.name", 'Invalid value: "other.example.com": field is immutable')]
