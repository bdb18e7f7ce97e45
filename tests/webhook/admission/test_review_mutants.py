"""`review.parse` read back in full (every field of the `Request`), its refusals in full (code, message, the
review's own apiVersion echoed), the lazy old object, the body size at its limit. Fast, so mutation testing runs
them first on `webhook.admission.review` (tests/mutation)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from webhook.admission.review import (
    MAX_BODY,
    BadReview,
    GroupVersionKind,
    GroupVersionResource,
    Request,
    check_content_type,
    parse,
    refusal,
)
from webhook.wire import LazyObject

BETA = "admission.k8s.io/v1beta1"
KIND = {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"}
RESOURCE = {"group": "resource.k8s.io", "version": "v1", "resource": "resourceslices"}
OBJ = {"metadata": {"name": "s"}}


def body(request: Any, api_version: Any = "admission.k8s.io/v1", kind: Any = "AdmissionReview") -> bytes:
    review: dict[str, Any] = {"request": request}
    if api_version is not None:
        review["apiVersion"] = api_version
    if kind is not None:
        review["kind"] = kind
    return json.dumps(review).encode()


def refused(data: bytes) -> tuple[int, dict[str, Any]]:
    with pytest.raises(BadReview) as caught:
        parse(data)
    return caught.value.code, refusal(caught.value)


def test_every_field_the_webhook_reads_is_parsed() -> None:
    request = {"uid": "u", "kind": KIND, "resource": RESOURCE, "operation": "UPDATE", "object": OBJ,
               "name": "s", "namespace": "ns", "subResource": "status", "dryRun": True,
               "userInfo": {"username": "alice"}}
    assert parse(body(request, BETA)) == Request(
        uid="u", kind=GroupVersionKind("resource.k8s.io", "v1", "ResourceSlice"),
        resource=GroupVersionResource("resource.k8s.io", "v1", "resourceslices"), operation="UPDATE", object=OBJ,
        old_object=None, name="s", namespace="ns", sub_resource="status", dry_run=True, user="alice",
        api_version=BETA)


@pytest.mark.parametrize("fields", [{}, {"dryRun": None}, {"dryRun": False}, {"userInfo": None},
                                    {"userInfo": "alice"}, {"resource": "slices"}, {"namespace": 3}])
def test_fields_absent_null_or_of_another_type_read_as_empty(fields: dict[str, Any]) -> None:
    request = {"uid": "u", "kind": KIND, "resource": RESOURCE, "operation": "CREATE", "object": OBJ, **fields}
    resource = (GroupVersionResource("", "", "") if "resource" in fields
                else GroupVersionResource("resource.k8s.io", "v1", "resourceslices"))
    assert parse(body(request)) == Request(
        uid="u", kind=GroupVersionKind("resource.k8s.io", "v1", "ResourceSlice"), resource=resource,
        operation="CREATE", object=OBJ)


def test_a_kind_and_a_resource_print_as_upstream_writes_them() -> None:
    assert str(GroupVersionKind("resource.k8s.io", "v1", "DeviceClass")) == "resource.k8s.io/v1, Kind=DeviceClass"
    assert str(GroupVersionKind("", "v1", "Pod")) == "v1, Kind=Pod"
    assert str(GroupVersionResource("resource.k8s.io", "v1", "deviceclasses")) == "resource.k8s.io/v1/deviceclasses"
    assert str(GroupVersionResource("", "v1", "pods")) == "v1/pods"


def test_an_old_object_is_read_lazily_and_equals_what_was_sent() -> None:
    old = {"metadata": {"name": "s"}, "spec": {"driver": "d"}}
    request = {"uid": "u", "kind": KIND, "resource": RESOURCE, "operation": "UPDATE", "object": OBJ,
               "oldObject": old}
    parsed = parse(body(request))
    assert isinstance(parsed.old_object, LazyObject)
    assert dict(parsed.old_object) == old
    assert parsed.object == OBJ


@pytest.mark.parametrize("old", [None, "text"])
def test_an_old_object_that_is_not_an_object_is_read_or_refused_as_before(old: Any) -> None:
    request = {"uid": "u", "kind": KIND, "resource": RESOURCE, "operation": "DELETE", "object": None,
               "oldObject": old}
    if old is None:
        assert parse(body(request)).old_object is None
    else:
        assert refused(body(request))[1]["response"]["status"]["message"] == (
            "request.oldObject: expected a JSON object, got a string")


def status(code: int, message: str, reason: str = "BadRequest") -> dict[str, Any]:
    return {"status": "Failure", "code": code, "message": message, "reason": reason}


@pytest.mark.parametrize(
    ("request_", "uid", "message"),
    [(None, "", "request is missing: an AdmissionReview sent to a webhook carries request"),
     ({"uid": ""}, "", "request.uid is missing or empty"),
     ({"uid": "u", "operation": "PATCH"}, "u",
      'request.operation: unsupported value "PATCH"; expected one of CREATE, UPDATE, DELETE, CONNECT'),
     ({"uid": "u", "operation": "CREATE"}, "u", "request.kind is missing: expected {group, version, kind}"),
     ({"uid": "u", "operation": "CREATE", "kind": {"kind": ""}}, "u",
      "request.kind is missing: expected {group, version, kind}"),
     ({"uid": "u", "operation": "CREATE", "kind": {"kind": 3}}, "u",
      "request.kind is missing: expected {group, version, kind}"),
     ({"uid": "u", "operation": "UPDATE", "kind": KIND}, "u",
      "request.object is missing: an UPDATE review carries the object"),
     ({"uid": "u", "operation": "DELETE", "kind": KIND, "object": 5}, "u",
      "request.object: expected a JSON object, got a number"),
     ({"uid": "u", "operation": "CREATE", "kind": KIND, "object": OBJ, "dryRun": "yes"}, "u",
      'request.dryRun: expected true or false, got "yes"')],
)
def test_a_refusal_names_the_problem_and_echoes_the_review_s_version(request_: Any, uid: str, message: str) -> None:
    code, answer = refused(body(request_, BETA))
    assert (code, answer) == (400, {"apiVersion": BETA, "kind": "AdmissionReview", "response": {
        "uid": uid, "allowed": False, "status": status(400, message)}})


@pytest.mark.parametrize(
    ("api_version", "kind", "shown"),
    [(None, "AdmissionReview", "<missing>, Kind=\"AdmissionReview\""),
     ("v1", None, '"v1", Kind=<missing>'),
     ("x" * 100, "AdmissionReview", '"' + "x" * 79 + ', Kind="AdmissionReview"')],
)
def test_a_review_of_another_version_or_kind_is_refused_in_v1(api_version: Any, kind: Any, shown: str) -> None:
    code, answer = refused(body({"uid": "u"}, api_version, kind))
    assert (code, answer) == (400, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {
        "uid": "u", "allowed": False, "status": status(400, f"expected admission.k8s.io/v1, Kind=AdmissionReview, "
                                                            f"got {shown}")}})


@pytest.mark.parametrize(("size", "code"), [(MAX_BODY - 1, 400), (MAX_BODY, 400), (MAX_BODY + 1, 413)])
def test_a_body_up_to_7_mib_is_read(size: int, code: int) -> None:
    data = b" " * (size - 2) + b"{}"
    got, answer = refused(data)
    message = ("expected admission.k8s.io/v1, Kind=AdmissionReview, got <missing>, Kind=<missing>" if code == 400
               else f"request entity is too large; limit is {MAX_BODY} bytes")
    assert (got, answer["response"]["status"]) == (
        code, status(code, message, "BadRequest" if code == 400 else "RequestEntityTooLarge"))


@pytest.mark.parametrize(("content_type", "accepted"),
                         [("application/json", True), ("Application/JSON; charset=utf-8", True),
                          ("application/json; charset=utf-8; x=y", True), ("text/plain; application/json", False),
                          (None, False), ("", False)])
def test_the_content_type_is_read_up_to_its_first_parameter(content_type: str | None, accepted: bool) -> None:
    if accepted:
        check_content_type(content_type)
        return
    with pytest.raises(BadReview, match=r"^contentType=.*, expected application/json$") as caught:
        check_content_type(content_type)
    assert (caught.value.code, caught.value.message) == (
        415, f"contentType={content_type or ''}, expected application/json")
