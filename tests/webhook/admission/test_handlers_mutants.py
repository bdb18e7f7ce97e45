"""The admission handlers' answers where a bug would hide: old objects on UPDATE and CREATE, the quoted texts of a
route mismatch at their limits, the one-line quote of a long message, the per-object budget. Fast, so mutation
testing runs them first on `webhook.admission.handlers` (tests/mutation)."""

from __future__ import annotations

from typing import Any

import pytest

import webhook.run  # noqa: F401  (the rule catalogue, imported at collection rather than in the first test)
from webhook.admission.handlers import QUOTED_CHARS, quoted, resourceslices, selectors
from webhook.admission.response import Response
from webhook.admission.review import GroupVersionKind, GroupVersionResource, Request
from webhook.admission.routing import route_mismatch
from webhook.budget import Budget
from webhook.findings import Action
from webhook.policy import Policy

GROUP = "resource.k8s.io"
SLICE = GroupVersionKind(GROUP, "v1", "ResourceSlice")
SLICES = GroupVersionResource(GROUP, "v1", "resourceslices")
BAD_NAME = ('spec.driver', 'Invalid value: "Bad_Driver": a lowercase RFC 1123 subdomain must consist of lower case '
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
            "[a-z0-9])?)*')")


def a_slice(driver: str = "gpu.example.com", *, typed: bool = True) -> dict[str, Any]:
    obj: dict[str, Any] = {"metadata": {"name": "s"}, "spec": {
        "driver": driver, "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1}, "devices": [{"name": "d"}]}}
    if typed:
        obj.update(apiVersion="resource.k8s.io/v1", kind="ResourceSlice")
    return obj


def request(obj: Any, *, operation: str = "CREATE", old: Any = None, kind: GroupVersionKind = SLICE,
            resource: GroupVersionResource = SLICES) -> Request:
    return Request(uid="u", kind=kind, resource=resource, operation=operation, object=obj, old_object=old)


def denied_causes(answer: Response) -> list[tuple[str, str]]:
    assert not answer.allowed
    return list(answer.causes)


def test_an_update_whose_old_object_lacks_kind_and_version_is_ratcheted_against_it() -> None:
    answer = resourceslices(request(a_slice("Bad_Driver"), operation="UPDATE", old=a_slice("Bad_Driver", typed=False)),
                            Policy.default())
    assert answer.allowed
    assert [(f.rule, f.action, f.message.endswith(" (already present before this update)")) for f in answer.findings] \
        == [("k8s-driver", Action.WARN, True)]


def test_a_create_is_never_ratcheted_even_when_it_carries_an_old_object() -> None:
    answer = resourceslices(request(a_slice("Bad_Driver"), old=a_slice("Bad_Driver")), Policy.default())
    assert denied_causes(answer) == [BAD_NAME]


def test_the_per_object_selector_budget_is_applied() -> None:
    obj = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"},
           "spec": {"selectors": [{"cel": {"expression": f'device.driver == "d{i}"'}} for i in range(2)]}}
    req = request(obj, kind=GroupVersionKind(GROUP, "v1", "DeviceClass"),
                  resource=GroupVersionResource(GROUP, "v1", "deviceclasses"))
    assert selectors(req, Policy.default(), budget=Budget(selectors=2)).allowed
    answer = selectors(req, Policy.default(), budget=Budget(selectors=1))
    assert not answer.allowed
    assert "2 distinct selector expressions exceed this webhook's budget of 1 per object" in answer.message


@pytest.mark.parametrize("length", [127, 128, 129])
def test_a_mismatched_resource_is_quoted_up_to_128_characters(length: int) -> None:
    """The version is the only free part of a known resource's name: a crafted one may be long."""
    resource = GroupVersionResource(GROUP, "v" * (length - len("resource.k8s.io//resourceslices")), "resourceslices")
    text = str(resource)
    assert len(text) == length
    shown = text if length <= 128 else text[:127] + "…"
    req = request(a_slice(), kind=GroupVersionKind(GROUP, "v1", "DeviceClass"), resource=resource)
    assert route_mismatch(req) == f"request.kind DeviceClass does not match request.resource {shown} (which holds " \
                                  "ResourceSlice)"


@pytest.mark.parametrize(("kind", "shown"), [("K" * 64, "'" + "K" * 64 + "'"), ("K" * 65, "'" + "K" * 63 + "…'"),
                                             (5, "a number"), (None, None)])
def test_an_object_of_another_kind_is_named_up_to_64_characters(kind: Any, shown: str | None) -> None:
    obj = {**a_slice(), "kind": kind}
    expected = "" if shown is None else f"object.kind {shown} does not match the request's kind ResourceSlice"
    assert route_mismatch(request(obj)) == expected


def test_an_old_object_of_another_kind_is_refused_too() -> None:
    old = {**a_slice(), "kind": "Pod"}
    assert route_mismatch(request(a_slice(), operation="UPDATE", old=old)) == (
        "oldObject.kind 'Pod' does not match the request's kind ResourceSlice")


def test_a_kind_outside_the_dra_group_is_compared_too() -> None:
    other = GroupVersionKind("example.com", "v1", "ResourceSlice")
    others = GroupVersionResource("example.com", "v1", "resourceslices")
    assert route_mismatch(request({**a_slice(), "kind": "Pod"}, kind=other, resource=others)) == (
        "object.kind 'Pod' does not match the request's kind ResourceSlice")
    pod = GroupVersionKind(GROUP, "v1", "Pod")
    assert route_mismatch(request({**a_slice(), "kind": "Pod"}, kind=pod)) == (
        "request.kind Pod does not match request.resource resource.k8s.io/v1/resourceslices "
        "(which holds ResourceSlice)")


@pytest.mark.parametrize(
    ("message", "expected"),
    [("a" + " " * 2100 + "b" * 10, "a…"),  # the text read is the first 4 x 512 characters, whatever follows
     ("a" * 511 + " " * 1600 + "b", "a" * 511 + "…"),  # cut, shrunk to 511: 511 characters and the ellipsis
     ("a" * 510 + " " * 1600 + "b", "a" * 510 + "…")],
)
def test_a_message_cut_before_it_shrank_says_so(message: str, expected: str) -> None:
    assert quoted(message) == expected
    assert len(expected) <= QUOTED_CHARS


def test_a_message_cut_and_shrunk_to_exactly_512_characters_still_says_it_was_cut() -> None:
    assert quoted("a" * 512 + " " * 1600 + "b") == "a" * 511 + "…"
