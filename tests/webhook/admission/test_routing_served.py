"""Routing as a caller of the webhook sees it (the black-box report's cases): a review whose `request.kind` disagrees
with its resource or its object is denied with HTTP 200 and `allowed: false`, never let through unchecked."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import claim_with_selector, slice_with
from tests.webhook.reliability.test_fail_closed import client_for, review

SLICES, SELECTORS = "/validate/resourceslices", "/validate/selectors"


def sent(path: str, obj: dict[str, Any], named: tuple[str, str, str]) -> dict[str, Any]:
    """`named`: the group, kind and resource the review says it carries."""
    group, kind, resource = named
    body = review(obj, kind=kind, resource=resource)
    body["request"]["kind"]["group"] = body["request"]["resource"]["group"] = group
    reply = client_for().post(path, json=body)
    assert reply.status_code == 200
    response: dict[str, Any] = reply.get_json()["response"]
    return response


DRA = "resource.k8s.io"


@pytest.mark.parametrize(("path", "obj", "named", "message"), [
    (SLICES, slice_with(numa=-1), (DRA, "ConfigMap", "resourceslices"),
     "request.kind ConfigMap does not match request.resource resource.k8s.io/v1/resourceslices "
     "(which holds ResourceSlice)"),
    (SLICES, slice_with(numa=-1), ("", "ConfigMap", "configmaps"),
     "object.kind 'ResourceSlice' does not match the request's kind ConfigMap"),
    (SLICES, slice_with(numa=-1), (DRA, "Resourceslice", "resourceslices"),
     "request.kind Resourceslice does not match request.resource resource.k8s.io/v1/resourceslices "
     "(which holds ResourceSlice)"),
    (SLICES, slice_with(numa=-1), ("example.com", "ResourceSlice", "resourceslices"),
     "object.apiVersion 'resource.k8s.io/v1' does not match the request's apiVersion example.com/v1"),
    (SLICES, slice_with(numa=1), (DRA, "ResourceSlice", "configmaps"),
     "request.kind ResourceSlice does not match request.resource resource.k8s.io/v1/configmaps "
     "(a ResourceSlice is in resourceslices)"),
    (SELECTORS, claim_with_selector(""), ("", "Pod", "pods"),
     "object.kind 'ResourceClaim' does not match the request's kind Pod"),
    (SELECTORS, claim_with_selector(""), (DRA, "Pod", "resourceclaims"),
     "request.kind Pod does not match request.resource resource.k8s.io/v1/resourceclaims (which holds ResourceClaim)"),
])
def test_a_review_whose_kind_disagrees_is_denied(path: str, obj: dict[str, Any], named: tuple[str, str, str],
                                                 message: str) -> None:
    response = sent(path, obj, named)
    assert (response["allowed"], response["status"]["code"], response["status"]["message"]) == (False, 403, message)


def test_the_same_slice_named_truthfully_is_checked() -> None:
    response = sent(SLICES, slice_with(numa=-1), (DRA, "ResourceSlice", "resourceslices"))
    assert (response["allowed"], response["status"]["message"]) == (False, (
        "1 problem: spec.devices[0].attributes[resource.kubernetes.io/numaNode].int: numaNode -1 is negative "
        "[numa-node-range]"))


def test_a_config_map_sent_by_a_configuration_that_matches_too_much_is_allowed() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}}
    assert sent(SLICES, config_map, ("", "ConfigMap", "configmaps")) == {"uid": "uid-1", "allowed": True}
