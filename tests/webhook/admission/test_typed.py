"""A review whose object leaves out `kind` or `apiVersion` is judged as the version the request names."""

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.test_app import SLICES, FakeTLS
from webhook.app import Settings, create_app
from webhook.policy import Policy
from webhook.policy_store import PolicyStore

BETA1_SLICE = {"metadata": {"name": "s"}, "spec": {
    "driver": "gpu.example.com", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
    "devices": [{"name": "d", "basic": {"attributes": {"resource.kubernetes.io/numaNode": {"int": 0}}}}]}}


def decide(obj: dict[str, Any], version: str) -> dict[str, Any]:
    client = create_app(Settings(), PolicyStore.fixed(Policy.default()), FakeTLS()).test_client()
    body = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "u", "operation": "CREATE", "object": obj,
        "kind": {"group": "resource.k8s.io", "version": version, "kind": "ResourceSlice"},
        "resource": {"group": "resource.k8s.io", "version": version, "resource": "resourceslices"}}}
    reply = client.post(SLICES, json=body)
    assert reply.status_code == 200
    response: dict[str, Any] = reply.get_json()["response"]
    return response


@pytest.mark.parametrize("given", [{}, {"kind": "ResourceSlice"}, {"apiVersion": "resource.k8s.io/v1beta1"}])
def test_a_v1beta1_request_reads_the_object_as_v1beta1(given: dict[str, Any]) -> None:
    assert decide({**given, **BETA1_SLICE}, "v1beta1") == {"uid": "u", "allowed": True}


def test_the_same_object_in_a_v1_request_is_read_as_v1() -> None:
    assert decide(BETA1_SLICE, "v1") == {"uid": "u", "allowed": True, "warnings": [
        '[k8s-unknown-field] spec.devices[0].basic: unknown field "spec.devices[0].basic"']}
