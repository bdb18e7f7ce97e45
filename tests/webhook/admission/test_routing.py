"""Routing a review by what the API server says it is: a review whose kind, resource and objects disagree is denied on
either path, whatever kinds it names; a consistent review of a kind the path does not handle is let through with a
note; DELETE, CONNECT and subresource writes are let through as before."""

from __future__ import annotations

from typing import Any

import pytest

from webhook.admission.response import Response, allowed, denied
from webhook.admission.review import GroupVersionKind, GroupVersionResource, Request
from webhook.admission.routing import SELECTOR_KINDS, SLICE_KINDS, route

DRA = "resource.k8s.io"


def gvk(kind: str, group: str = DRA, version: str = "v1") -> GroupVersionKind:
    return GroupVersionKind(group, version, kind)


def gvr(resource: str, group: str = DRA, version: str = "v1") -> GroupVersionResource:
    return GroupVersionResource(group, version, resource)


def obj(kind: str, api_version: str = f"{DRA}/v1") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}


def request(kind: GroupVersionKind, resource: GroupVersionResource, new: Any, *, old: Any = None,
            operation: str = "CREATE", sub_resource: str = "") -> Request:
    return Request("uid-1", kind, resource, operation, new, old, sub_resource=sub_resource)


def on_slices(req: Request) -> Response | None:
    return route(req, SLICE_KINDS)


def on_selectors(req: Request) -> Response | None:
    return route(req, SELECTOR_KINDS)


@pytest.mark.parametrize(("req", "message"), [
    (request(gvk("ResourceSlice"), gvr("configmaps"), obj("ResourceSlice")),
     "request.kind ResourceSlice does not match request.resource resource.k8s.io/v1/configmaps "
     "(a ResourceSlice is in resourceslices)"),
    (request(gvk("ResourceSlice"), gvr("configmaps", ""), obj("ResourceSlice")),
     "request.kind resource.k8s.io/v1, Kind=ResourceSlice does not match request.resource v1/configmaps"),
    (request(gvk("ConfigMap", ""), gvr("configmaps", "example.com"), obj("ConfigMap", "v1")),
     "request.kind v1, Kind=ConfigMap does not match request.resource example.com/v1/configmaps"),
    (request(gvk("ConfigMap"), gvr("resourceslices"), obj("ResourceSlice")),
     "request.kind ConfigMap does not match request.resource resource.k8s.io/v1/resourceslices "
     "(which holds ResourceSlice)"),
    (request(gvk("ConfigMap", ""), gvr("configmaps", ""), obj("ResourceSlice")),
     "object.kind 'ResourceSlice' does not match the request's kind ConfigMap"),
    (request(gvk("Resourceslice"), gvr("resourceslices"), obj("ResourceSlice")),
     "request.kind Resourceslice does not match request.resource resource.k8s.io/v1/resourceslices "
     "(which holds ResourceSlice)"),
    (request(gvk("ResourceSlice", "example.com"), gvr("resourceslices", "example.com"), obj("ResourceSlice")),
     "object.apiVersion 'resource.k8s.io/v1' does not match the request's apiVersion example.com/v1"),
    (request(gvk("ResourceSlice", version="v1beta2"), gvr("resourceslices"), obj("ResourceSlice")),
     "request.kind resource.k8s.io/v1beta2, Kind=ResourceSlice does not match request.resource "
     "resource.k8s.io/v1/resourceslices"),
    (request(gvk("ResourceSlice"), gvr("resourceslices"), obj("ResourceSlice", f"{DRA}/v1beta2")),
     "object.apiVersion 'resource.k8s.io/v1beta2' does not match the request's apiVersion resource.k8s.io/v1"),
    (request(gvk("ResourceSlice"), gvr("resourceslices"), obj("ResourceSlice"), old=obj("ResourceSlice", "v1"),
             operation="UPDATE"),
     "oldObject.apiVersion 'v1' does not match the request's apiVersion resource.k8s.io/v1"),
])
def test_a_slice_review_that_disagrees_with_itself_is_denied(req: Request, message: str) -> None:
    assert on_slices(req) == denied(message)


@pytest.mark.parametrize(("req", "message"), [
    (request(gvk("Pod"), gvr("resourceclaims"), obj("ResourceClaim")),
     "request.kind Pod does not match request.resource resource.k8s.io/v1/resourceclaims (which holds ResourceClaim)"),
    (request(gvk("Pod", ""), gvr("pods", ""), obj("ResourceClaim")),
     "object.kind 'ResourceClaim' does not match the request's kind Pod"),
    (request(gvk("ResourceSlice"), gvr("resourceslices"), obj("ResourceClaim")),
     "object.kind 'ResourceClaim' does not match the request's kind ResourceSlice"),
    (request(gvk("DeviceClass"), gvr("deviceclass"), obj("DeviceClass")),
     "request.kind DeviceClass does not match request.resource resource.k8s.io/v1/deviceclass "
     "(a DeviceClass is in deviceclasses)"),
])
def test_a_selector_review_that_disagrees_with_itself_is_denied(req: Request, message: str) -> None:
    assert on_selectors(req) == denied(message)


@pytest.mark.parametrize(("length", "shown"), [(127, "K" * 127), (128, "K" * 128), (129, "K" * 127 + "…")])
def test_a_kind_the_request_names_is_quoted_up_to_128_characters(length: int, shown: str) -> None:
    req = request(gvk("K" * length), gvr("resourceslices"), obj("ResourceSlice"))
    assert on_slices(req) == denied(f"request.kind {shown} does not match request.resource "
                                    "resource.k8s.io/v1/resourceslices (which holds ResourceSlice)")


@pytest.mark.parametrize(("length", "shown"), [(64, "v" * 64), (65, "v" * 63 + "…")])
def test_an_objects_api_version_is_quoted_up_to_64_characters(length: int, shown: str) -> None:
    req = request(gvk("ResourceSlice"), gvr("resourceslices"), obj("ResourceSlice", "v" * length))
    assert on_slices(req) == denied(
        f"object.apiVersion '{shown}' does not match the request's apiVersion resource.k8s.io/v1")


@pytest.mark.parametrize(("req", "note"), [
    (request(gvk("ConfigMap", ""), gvr("configmaps", ""), obj("ConfigMap", "v1")), "v1, Kind=ConfigMap"),
    (request(gvk("Widget", "example.com"), gvr("widgets", "example.com"), obj("Widget", "example.com/v1")),
     "example.com/v1, Kind=Widget"),
    (request(gvk("DeviceTaintRule", version="v1alpha3"), gvr("devicetaintrules", version="v1alpha3"),
             obj("DeviceTaintRule", f"{DRA}/v1alpha3")), "resource.k8s.io/v1alpha3, Kind=DeviceTaintRule"),
])
def test_a_consistent_review_of_a_kind_the_path_does_not_handle_is_allowed_with_a_note(req: Request,
                                                                                         note: str) -> None:
    assert on_slices(req) == allowed().noted(f"{note} is not handled by this webhook; allowed without checks")


@pytest.mark.parametrize(("kind", "resource", "path", "route_it"), [
    ("ResourceClaim", "resourceclaims", "/validate/selectors", on_slices),
    ("ResourceClaimTemplate", "resourceclaimtemplates", "/validate/selectors", on_slices),
    ("DeviceClass", "deviceclasses", "/validate/selectors", on_slices),
    ("ResourceSlice", "resourceslices", "/validate/resourceslices", on_selectors),
])
def test_a_kind_the_other_path_checks_is_denied_naming_that_path(kind: str, resource: str, path: str,
                                                                 route_it: Any) -> None:
    # a webhook configuration that sends it here would otherwise let it pass unchecked
    assert route_it(request(gvk(kind), gvr(resource), obj(kind))) == denied(
        f"{kind} is checked on {path}, not on this path: fix the webhook configuration's rules so each path gets "
        "its kinds")


@pytest.mark.parametrize("req", [
    request(gvk("ResourceSlice"), gvr("resourceslices"), obj("ResourceSlice")),
    request(gvk("ResourceSlice"), gvr("resourceslices"), {"metadata": {"name": "x"}}),  # kind and version filled in
    request(gvk("ResourceSlice", version="v1beta2"), gvr("resourceslices", version="v1beta2"),
            obj("ResourceSlice", f"{DRA}/v1beta2"), old=obj("ResourceSlice", f"{DRA}/v1beta2"), operation="UPDATE"),
    request(gvk("ResourceSlice"), GroupVersionResource("", "", ""), obj("ResourceSlice")),  # hand-written, no resource
])
def test_a_consistent_review_of_a_kind_the_path_handles_goes_to_the_rules(req: Request) -> None:
    assert on_slices(req) is None


@pytest.mark.parametrize("operation", ["DELETE", "CONNECT"])
def test_delete_and_connect_are_allowed_untouched_whatever_they_name(operation: str) -> None:
    req = request(gvk("ConfigMap"), gvr("resourceslices"), None, old=obj("Pod"), operation=operation)
    assert on_slices(req) == allowed()


def test_a_subresource_write_is_allowed_with_a_note_even_when_its_kind_is_not_its_resources() -> None:
    """`deployments/scale` holds a `Scale` of autoscaling/v1: a subresource's kind may differ from its resource's."""
    req = request(gvk("Scale", "autoscaling"), gvr("resourceclaims"), obj("Scale", "autoscaling/v1"),
                  sub_resource="status")
    assert on_selectors(req) == allowed().noted("subresource resource.k8s.io/v1/resourceclaims/status not checked")
