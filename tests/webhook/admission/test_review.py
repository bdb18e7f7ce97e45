from __future__ import annotations

import json
from typing import Any

import pytest

from webhook.admission import review
from webhook.admission.response import allowed, denied
from webhook.admission.review import MAX_BODY, BadReview, GroupVersionKind, GroupVersionResource, Request

SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {}}


def body(**request: Any) -> dict[str, Any]:
    req: dict[str, Any] = {
        "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceslices"},
        "name": "s",
        "operation": "CREATE",
        "userInfo": {"username": "system:serviceaccount:dra:driver"},
        "object": SLICE,
    }
    req.update(request)
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req}


def encode(data: object) -> bytes:
    return json.dumps(data).encode()


def test_a_create_review_is_parsed_into_a_typed_request() -> None:
    req = review.parse(encode(body(dryRun=True)))
    assert req == Request(
        uid="705ab4f5-6393-11e8-b7cc-42010a800002",
        kind=GroupVersionKind("resource.k8s.io", "v1", "ResourceSlice"),
        resource=GroupVersionResource("resource.k8s.io", "v1", "resourceslices"),
        operation="CREATE",
        object=SLICE,
        name="s",
        dry_run=True,
        user="system:serviceaccount:dra:driver",
    )


def test_v1beta1_reviews_are_answered_in_v1beta1() -> None:
    data = body()
    data["apiVersion"] = "admission.k8s.io/v1beta1"
    req = review.parse(encode(data))
    assert review.answer(req.uid, allowed(), req.api_version)["apiVersion"] == "admission.k8s.io/v1beta1"


def test_delete_carries_no_object() -> None:
    req = review.parse(encode(body(operation="DELETE", object=None, oldObject=SLICE)))
    assert (req.operation, req.object, req.old_object) == ("DELETE", None, SLICE)


def refused(data: bytes) -> BadReview:
    with pytest.raises(BadReview) as caught:
        review.parse(data)
    return caught.value


@pytest.mark.parametrize(
    ("data", "code", "message", "uid"),
    [
        (b"", 400, "request body is empty", ""),
        (b"{not json", 400, "request body is not valid JSON: Expecting property name enclosed in double quotes "
                            "at line 1 column 2", ""),
        (b"\xff\xfe\x00", 400, "request body is not valid JSON: not UTF-8", ""),
        (b'{"a": NaN}', 400, "request body is not valid JSON: NaN is not JSON", ""),
        (b"[" * 100_000, 400, review.DEEP_JSON, ""),
        (b'{"a": ' + b"9" * 4301 + b"}", 400, "request body is not valid JSON: a number with more than 4300 digits "
                                             "(no Kubernetes field holds one: the API server refuses it too)", ""),
        (b"[]", 400, "expected a JSON object of kind AdmissionReview, got an array", ""),
        (encode({**body(), "kind": "Pod"}), 400,
         'expected admission.k8s.io/v1, Kind=AdmissionReview, got "admission.k8s.io/v1", Kind="Pod"',
         "705ab4f5-6393-11e8-b7cc-42010a800002"),
        (encode({**body(), "apiVersion": "v1"}), 400,
         'expected admission.k8s.io/v1, Kind=AdmissionReview, got "v1", Kind="AdmissionReview"',
         "705ab4f5-6393-11e8-b7cc-42010a800002"),
        (encode({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}), 400,
         "request is missing: an AdmissionReview sent to a webhook carries request", ""),
        (encode(body(uid="")), 400, "request.uid is missing or empty", ""),
        (encode(body(uid=7)), 400, "request.uid: expected a string, got a number", ""),
        (encode(body(object=None)), 400, "request.object is missing: a CREATE review carries the object",
         "705ab4f5-6393-11e8-b7cc-42010a800002"),
        (encode(body(operation="UPDATE", object=[1])), 400,
         "request.object: expected a JSON object, got an array", "705ab4f5-6393-11e8-b7cc-42010a800002"),
        (encode(body(operation="PATCH")), 400,
         'request.operation: unsupported value "PATCH"; expected one of CREATE, UPDATE, DELETE, CONNECT',
         "705ab4f5-6393-11e8-b7cc-42010a800002"),
        (encode(body(kind=None)), 400, "request.kind is missing: expected {group, version, kind}",
         "705ab4f5-6393-11e8-b7cc-42010a800002"),
        (encode(body(dryRun="yes")), 400, 'request.dryRun: expected true or false, got "yes"',
         "705ab4f5-6393-11e8-b7cc-42010a800002"),
        (encode(body(oldObject="x")), 400, "request.oldObject: expected a JSON object, got a string",
         "705ab4f5-6393-11e8-b7cc-42010a800002"),
        (b" " * (MAX_BODY + 1), 413, f"request entity is too large; limit is {MAX_BODY} bytes", ""),
    ],
)
def test_malformed_reviews_are_refused_with_a_clear_4xx(data: bytes, code: int, message: str, uid: str) -> None:
    err = refused(data)
    assert (err.code, err.message, err.uid) == (code, message, uid)


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON"])
def test_json_content_types_are_accepted(content_type: str) -> None:
    review.check_content_type(content_type)


@pytest.mark.parametrize("content_type", [None, "", "text/plain", "application/yaml", "application/json-patch+json"])
def test_other_content_types_are_a_415(content_type: str | None) -> None:
    with pytest.raises(BadReview) as caught:
        review.check_content_type(content_type)
    assert caught.value.code == 415
    assert caught.value.message == f"contentType={content_type or ''}, expected application/json"


def test_an_allowed_answer_echoes_uid_apiversion_and_kind() -> None:
    answer = review.answer("u-1", allowed().with_warnings("w").with_audit({"numa-node-range": "x", "bad key": "y"}))
    assert answer == {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": {"uid": "u-1", "allowed": True, "warnings": ["w"], "auditAnnotations": {"numa-node-range": "x"}},
    }


def test_a_denial_carries_status_with_field_causes() -> None:
    answer = review.answer("u-2", denied("1 problem: spec.x: bad [r]", [("spec.x", "bad")]))
    assert answer["response"] == {
        "uid": "u-2",
        "allowed": False,
        "status": {
            "status": "Failure",
            "code": 403,
            "reason": "Forbidden",
            "message": "1 problem: spec.x: bad [r]",
            "details": {"causes": [{"reason": "FieldValueInvalid", "field": "spec.x", "message": "bad"}]},
        },
    }


def test_a_refusal_is_a_review_with_the_uid_when_known() -> None:
    err = refused(encode(body(operation="PATCH")))
    assert review.refusal(err)["response"] == {
        "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
        "allowed": False,
        "status": {
            "status": "Failure",
            "code": 400,
            "reason": "BadRequest",
            "message": 'request.operation: unsupported value "PATCH"; expected one of CREATE, UPDATE, DELETE, CONNECT',
        },
    }


@pytest.mark.parametrize(
    ("message", "cause"),
    [
        ("Required value", "FieldValueRequired"),
        ("Required value: name or generateName is required", "FieldValueRequired"),
        ('Invalid value: "x": must be of type object', "FieldValueInvalid"),
        ('Duplicate value: "gpu-0"', "FieldValueDuplicate"),
        ('Unsupported value: "Foo": supported values: "Bar"', "FieldValueNotSupported"),
        ("Too many: 129: must have at most 128 items", "FieldValueTooMany"),
        ("Too long: may not be more than 64 bytes", "FieldValueTooLong"),
        ("Forbidden: may not be set", "FieldValueForbidden"),
        ("dra.net/numaNode is 0 but resource.kubernetes.io/numaNode says 1", "FieldValueInvalid"),
    ],
)
def test_denial_causes_carry_the_upstream_cause_type(message: str, cause: str) -> None:
    """As `apierrors.NewInvalid` fills `details.causes`: the type the message's upstream prefix names."""
    causes = review.answer("u", denied("m", [("spec.x", message)]))["response"]["status"]["details"]["causes"]
    assert causes == [{"reason": cause, "field": "spec.x", "message": message}]


@pytest.mark.parametrize(("value", "named"), [([], "an array"), ({}, "an object"), (1, "a number"), (1.5, "a number"),
                                              (True, "a boolean"), ("x", "a string"), (None, "null")])
def test_a_wrong_json_type_is_named_in_json_terms(value: object, named: str) -> None:
    """A client sees JSON's names for what it sent (`got an array`), not Python's (`got list`)."""
    from webhook.wire import json_type

    assert json_type(value) == named


def _old_with(value: str) -> bytes:
    """An UPDATE review whose old object holds `value` (JSON text) three levels down, where the lazy decode of
    the old object leaves it undecoded until a rule reads it."""
    old = {**SLICE, "metadata": {"name": "s", "labels": {"x": "PLACEHOLDER"}}}
    return encode(body(operation="UPDATE", oldObject=old)).replace(b'"PLACEHOLDER"', value.encode())


@pytest.mark.parametrize("digits", [4299, 4300])
def test_an_old_object_number_within_pythons_digit_limit_is_read(digits: int) -> None:
    req = review.parse(_old_with("9" * digits))
    assert req.old_object is not None
    assert req.old_object["metadata"]["labels"]["x"] == int("9" * digits)


def test_an_old_object_number_past_the_digit_limit_is_a_400_as_in_the_object() -> None:
    """It was a 500 (the lazily decoded old object raised inside the rules), which the API server treats as the
    webhook failing: with failurePolicy Ignore, the object was admitted."""
    err = refused(_old_with("9" * 4301))
    assert (err.code, err.message) == (400, "request body is not valid JSON: a number with more than 4300 digits "
                                            "(no Kubernetes field holds one: the API server refuses it too)")


def test_a_long_run_of_digits_in_an_old_object_string_is_only_text() -> None:
    req = review.parse(_old_with('"' + "9" * 4301 + '"'))
    assert req.old_object is not None
    assert req.old_object["metadata"]["labels"]["x"] == "9" * 4301
