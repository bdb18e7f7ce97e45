"""The admission answer at its limits: quoted message and path lengths, listed findings, audit keys and
values, warning lines, the cause reason of every upstream error type, the review's own texts."""

from __future__ import annotations

import json

import pytest

from webhook.admission import review
from webhook.admission.handlers import (
    PATH_CHARS,
    QUOTED_CHARS,
    audit_annotations,
    decide,
    deny_message,
    quoted,
    warning_line,
)
from webhook.admission.response import AUDIT_VALUE_CHARS, DENY_LISTED, audit_key, clip, fit_warnings
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding


def finding(message: str, rule: str = "r", action: Action = Action.DENY, path: str = "spec.x") -> Finding:
    return Finding(FieldPath.root(*path.split(".")), message).stamped(rule, action)


@pytest.mark.parametrize(("length", "shown"), [(QUOTED_CHARS - 1, QUOTED_CHARS - 1), (QUOTED_CHARS, QUOTED_CHARS),
                                               (QUOTED_CHARS + 1, QUOTED_CHARS)])
def test_a_quoted_message_is_cut_past_512_characters(length: int, shown: int) -> None:
    text = quoted("m" * length)
    assert len(text) == shown
    assert text.endswith("…") is (length > QUOTED_CHARS)


def test_a_long_message_that_one_line_shrinks_still_says_it_was_cut() -> None:
    """Only the first 4 x 512 characters are made one line; what follows them is cut even when they shrink."""
    assert quoted("a" + " " * 3000 + "b") == "a…"
    assert quoted("a" + " " * 100 + "b") == "a b"  # read whole: nothing cut
    assert quoted("x\ty\nz") == "x y z"


@pytest.mark.parametrize(("runes", "expected"), [(2, "a…"), (3, "abc"), (4, "abc")])
def test_clip_keeps_a_text_at_the_limit_whole(runes: int, expected: str) -> None:
    assert clip("abc", runes) == expected


@pytest.mark.parametrize(
    ("key", "accepted"),
    [("a", True), ("a" * 63, True), ("a" * 64, False), ("a.b_c-d", True), ("A9", True), ("-a", False),
     ("a-", False), ("a b", False), ("", False), ("a/b", False), ("é", False)],
)
def test_audit_keys_are_qualified_name_parts_of_at_most_63_characters(key: str, accepted: bool) -> None:
    assert audit_key(key) == (key if accepted else None)


def test_deny_messages_count_problems_and_list_at_most_20() -> None:
    assert deny_message([finding("bad")]) == "1 problem: spec.x: bad [r]"
    assert deny_message([finding("bad"), finding("worse", "s")]) == "2 problems: spec.x: bad [r]; spec.x: worse [s]"
    exactly = deny_message([finding(f"m{i}") for i in range(DENY_LISTED)])
    assert exactly.startswith(f"{DENY_LISTED} problems: spec.x: m0 [r]; ")
    assert exactly.endswith(f"spec.x: m{DENY_LISTED - 1} [r]")
    over = deny_message([finding(f"m{i}") for i in range(DENY_LISTED + 1)])
    assert over.endswith(f"spec.x: m{DENY_LISTED - 1} [r]; and 1 more (run `draguard validate` on this object for "
                         f"all of them)")


def test_denial_causes_list_what_the_message_lists() -> None:
    answer = decide([finding(f"m{i}") for i in range(DENY_LISTED + 1)])
    assert len(answer.causes) == DENY_LISTED
    assert answer.causes[0] == ("spec.x", "m0")
    assert answer.causes[-1] == ("spec.x", f"m{DENY_LISTED - 1}")


def test_long_paths_are_cut_at_256_characters_everywhere() -> None:
    path = "spec." + "k" * 300
    shown = clip(path, PATH_CHARS)
    assert len(shown) == PATH_CHARS
    deny = finding("bad", path=path)
    assert deny_message([deny]) == f"1 problem: {shown}: bad [r]"
    assert decide([deny]).causes == ((shown, "bad"),)
    assert warning_line(finding("w", action=Action.WARN, path=path)) == f"[r] {shown}: w"
    assert audit_annotations([finding("a", action=Action.AUDIT, path=path)]) == {"r": f"{shown}: a"}


def test_a_warning_line_quotes_at_most_1024_characters_of_the_message() -> None:
    assert warning_line(finding("w" * 1024, action=Action.WARN)) == "[r] spec.x: " + "w" * 1024
    assert warning_line(finding("w" * 1025, action=Action.WARN)) == "[r] spec.x: " + "w" * 1023 + "…"


def test_audit_annotations_group_by_rule_and_skip_keys_the_api_server_refuses() -> None:
    findings = [finding("one", "r1", Action.AUDIT), finding("two", "r1", Action.AUDIT),
                finding("three", "bad key", Action.AUDIT), finding("four", "r2", Action.AUDIT)]
    assert audit_annotations(findings) == {"r1": "spec.x: one; spec.x: two", "r2": "spec.x: four"}


@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_an_audit_value_is_cut_past_4096_characters(extra: int) -> None:
    # eight findings: 8 x "spec.x: " + 7 x "; " + messages of 7 x 502 + 504 characters = 4096
    findings = [finding("v" * 502, "r", Action.AUDIT) for _ in range(7)]
    findings.append(finding("w" * (504 + extra), "r", Action.AUDIT))
    value = audit_annotations(findings)["r"]
    assert len(value) == min(AUDIT_VALUE_CHARS + extra, AUDIT_VALUE_CHARS)
    assert value.endswith("…" if extra > 0 else "w")


def test_decide_sorts_findings_by_action() -> None:
    answer = decide([finding("d"), finding("w", "w", Action.WARN), finding("a", "a", Action.AUDIT)])
    assert (answer.allowed, answer.code, answer.reason) == (False, 403, "Forbidden")
    assert answer.warnings == ("[w] spec.x: w",)
    assert dict(answer.audit) == {"a": "spec.x: a"}
    assert answer.message == "1 problem: spec.x: d [r]"
    quiet = decide([finding("w", "w", Action.WARN)])
    assert (quiet.allowed, quiet.message, quiet.causes) == (True, "", ())


def test_warnings_are_deduplicated_and_empty_ones_dropped() -> None:
    assert fit_warnings(["a", "a", " ", "b\nc"]) == ("a", "b c")


@pytest.mark.parametrize(
    ("message", "reason"),
    [("Not found: x", "FieldValueNotFound"), ("Required value", "FieldValueRequired"),
     ("Duplicate value: 1", "FieldValueDuplicate"), ("Invalid value: 1", "FieldValueInvalid"),
     ("Unsupported value: 1", "FieldValueNotSupported"), ("Forbidden: x", "FieldValueForbidden"),
     ("Too long: x", "FieldValueTooLong"), ("Too short: x", "FieldValueTooShort"),
     ("Too many: x", "FieldValueTooMany"), ("Internal error: x", "InternalError"),
     ("numaNode -2 is negative", "FieldValueInvalid"), ("Too many", "FieldValueTooMany"),
     ("Required value: a: b", "FieldValueRequired")],
)
def test_each_upstream_error_type_gives_its_cause_reason(message: str, reason: str) -> None:
    assert review.cause_type(message) == reason
    answer = review.answer("u", decide([finding(message)]))
    assert answer["response"]["status"]["details"]["causes"] == [{"reason": reason, "field": "spec.x",
                                                                  "message": message}]


NO_KIND = "request.kind is missing: expected {group, version, kind}"


def _body(**request: object) -> bytes:
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                       "request": {"uid": "u", **request}}).encode()


@pytest.mark.parametrize(
    ("body", "message"),
    [(b"[]", "expected a JSON object of kind AdmissionReview, got an array"),
     (b'{"apiVersion": 1}', "expected admission.k8s.io/v1, Kind=AdmissionReview, got 1, Kind=<missing>"),
     (json.dumps({"apiVersion": "v" * 100, "kind": "AdmissionReview"}).encode(),
      f"expected admission.k8s.io/v1, Kind=AdmissionReview, got {json.dumps('v' * 100)[:80]}, "
      'Kind="AdmissionReview"'),
     (_body(operation="CREATE", kind={"kind": "ResourceSlice"}, object={}, dryRun="x"),
      'request.dryRun: expected true or false, got "x"'),
     (_body(operation="CREATE", kind={"kind": ""}, object={}), NO_KIND),
     (_body(operation="CREATE", kind={"kind": 1}, object={}), NO_KIND),
     (_body(operation="CREATE", kind="x", object={}), NO_KIND),
     (_body(operation="DELETE", kind={"kind": "ResourceSlice"}, object=[]),
      "request.object: expected a JSON object, got an array"),
     (_body(operation="DELETE", kind={"kind": "ResourceSlice"}, oldObject=1),
      "request.oldObject: expected a JSON object, got a number"),
     (_body(operation="CREATE", kind={"kind": "ResourceSlice"}),
      "request.object is missing: a CREATE review carries the object"),
     (_body(operation="PATCH", kind={"kind": "ResourceSlice"}),
      'request.operation: unsupported value "PATCH"; expected one of CREATE, UPDATE, DELETE, CONNECT'),
     (b'{"a": NaN}', "request body is not valid JSON: NaN is not JSON"),
     (b"\xff", "request body is not valid JSON: not UTF-8"),
     # json.loads alone would guess these encodings and read the review; the API server sends UTF-8, no BOM
     (_body(operation="DELETE").decode().encode("utf-16"), "request body is not valid JSON: not UTF-8"),
     (_body(operation="DELETE").decode().encode("utf-32"), "request body is not valid JSON: not UTF-8"),
     (b"\xef\xbb\xbf" + _body(operation="DELETE"),
      "request body is not valid JSON: a byte order mark (U+FEFF) before the JSON"),
     (b"{", "request body is not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
     (b"[" * 100000, review.DEEP_JSON)],
)
def test_review_refusals_name_the_problem(body: bytes, message: str) -> None:
    with pytest.raises(review.BadReview) as caught:
        review.parse(body)
    assert (caught.value.code, caught.value.message) == (400, message)


def test_a_review_that_parses_keeps_every_field_it_reads() -> None:
    req = review.parse(_body(operation="UPDATE", kind={"group": "resource.k8s.io", "version": "v1", "kind": "K"},
                             resource={"group": "g", "version": "v", "resource": "r"}, object={"a": 1},
                             oldObject={"b": 2}, name="n", namespace="ns", subResource="status", dryRun=None,
                             userInfo={"username": "alice"}))
    assert (req.uid, str(req.kind), str(req.resource), req.operation) == (
        "u", "resource.k8s.io/v1, Kind=K", "g/v/r", "UPDATE")
    assert (req.object, req.old_object, req.name, req.namespace, req.sub_resource, req.dry_run, req.user) == (
        {"a": 1}, {"b": 2}, "n", "ns", "status", False, "alice")
    bare = review.parse(_body(operation="DELETE", kind={"kind": "K"}, dryRun=True, userInfo="x"))
    assert (str(bare.kind), str(bare.resource), bare.dry_run, bare.user, bare.object) == (
        ", Kind=K", "", True, "", None)
    assert str(review.GroupVersionKind("", "v1", "K")) == "v1, Kind=K"
