from __future__ import annotations

from typing import Any

import pytest

from tests.builders import claim_with_selector, device_class_with_selector, slice_with
from webhook.admission import handlers
from webhook.admission.handlers import audit_annotations, decide, deny_message, warning_line
from webhook.admission.response import DENY_LISTED
from webhook.admission.review import GroupVersionKind, GroupVersionResource, Request
from webhook.fieldpath import FieldPath
from webhook.findings import Action, Finding
from webhook.policy import Policy

SLICE_GVK = GroupVersionKind("resource.k8s.io", "v1", "ResourceSlice")
NUMA_INT = "spec.devices[0].attributes[resource.kubernetes.io/numaNode].int"


def request(obj: Any, *, operation: str = "CREATE", old: Any = None, gvk: GroupVersionKind = SLICE_GVK,
            sub_resource: str = "") -> Request:
    plural = gvk.kind.lower() + ("es" if gvk.kind.endswith("s") else "s")  # deviceclasses, resourceslices
    resource = GroupVersionResource(gvk.group, gvk.version, plural)
    return Request("uid-1", gvk, resource, operation, obj, old, sub_resource=sub_resource)


def finding(path: str, message: str, rule: str, action: Action) -> Finding:
    return Finding(FieldPath.root(*path.split(".")), message).stamped(rule, action)


def test_a_clean_slice_is_allowed_without_warnings() -> None:
    answer = handlers.resourceslices(request(slice_with(numa=3)), Policy.default())
    assert (answer.allowed, answer.warnings, dict(answer.audit), answer.findings) == (True, (), {}, ())


def test_a_deny_finding_denies_with_its_field_path_and_rule() -> None:
    answer = handlers.resourceslices(request(slice_with(numa=-2)), Policy.default())
    assert not answer.allowed
    assert (answer.code, answer.reason) == (403, "Forbidden")
    assert answer.message == f"1 problem: {NUMA_INT}: numaNode -2 is negative [numa-node-range]"
    assert answer.causes == ((NUMA_INT, "numaNode -2 is negative"),)


def test_the_policy_turns_a_deny_rule_into_a_warning() -> None:
    policy = Policy.from_mapping({"rules": {"numa-node-range": "warn"}})
    answer = handlers.resourceslices(request(slice_with(numa=-2)), policy)
    assert answer.allowed
    assert answer.warnings == (f"[numa-node-range] {NUMA_INT}: numaNode -2 is negative",)


def test_the_policy_turns_a_rule_into_an_audit_annotation() -> None:
    policy = Policy.from_mapping({"rules": {"numa-node-range": "audit"}})
    answer = handlers.resourceslices(request(slice_with(numa=-2)), policy)
    assert (answer.allowed, answer.warnings) == (True, ())
    assert dict(answer.audit) == {"numa-node-range": f"{NUMA_INT}: numaNode -2 is negative"}


def test_update_does_not_deny_a_violation_the_old_object_had() -> None:
    old = slice_with(numa=-2)
    new = slice_with(numa=-2, annotations={"touched": "yes"})
    answer = handlers.resourceslices(request(new, operation="UPDATE", old=old), Policy.default())
    assert answer.allowed
    assert answer.warnings == (
        f"[numa-node-range] {NUMA_INT}: numaNode -2 is negative (already present before this update)",
    )


def test_update_denies_a_violation_the_update_introduces() -> None:
    answer = handlers.resourceslices(
        request(slice_with(numa=-2), operation="UPDATE", old=slice_with(numa=1)), Policy.default()
    )
    assert not answer.allowed


@pytest.mark.parametrize("operation", ["DELETE", "CONNECT"])
def test_delete_and_connect_are_allowed_untouched(operation: str) -> None:
    answer = handlers.resourceslices(request(None, operation=operation, old=slice_with(numa=-2)), Policy.default())
    assert (answer.allowed, answer.findings, answer.note) == (True, (), "")


def test_an_unknown_kind_is_allowed_with_a_note_for_the_log() -> None:
    gvk = GroupVersionKind("", "v1", "ConfigMap")
    answer = handlers.resourceslices(request({"data": {}}, gvk=gvk), Policy.default())
    assert answer.allowed
    assert answer.note == "v1, Kind=ConfigMap is not handled by this webhook; allowed without checks"


def test_a_claim_sent_to_the_slice_webhook_is_denied_naming_its_path() -> None:
    # the other path checks it: here it would pass unchecked, so a misrouting webhook configuration fails closed
    gvk = GroupVersionKind("resource.k8s.io", "v1", "ResourceClaim")
    answer = handlers.resourceslices(request(claim_with_selector("device.foo =="), gvk=gvk), Policy.default())
    assert not answer.allowed
    assert answer.message == ("ResourceClaim is checked on /validate/selectors, not on this path: fix the webhook "
                              "configuration's rules so each path gets its kinds")
    gvk = GroupVersionKind("resource.k8s.io", "v1", "ResourceSlice")
    assert not handlers.selectors(request(slice_with(numa=1), gvk=gvk), Policy.default()).allowed


def test_subresource_writes_are_allowed_untouched() -> None:
    gvk = GroupVersionKind("resource.k8s.io", "v1", "ResourceClaim")
    answer = handlers.selectors(request(claim_with_selector("device.foo =="), gvk=gvk, sub_resource="status"),
                                Policy.default())
    assert (answer.allowed, answer.findings) == (True, ())
    assert answer.note == "subresource resource.k8s.io/v1/resourceclaims/status not checked"


def test_a_list_fragile_selector_is_warned_about() -> None:
    gvk = GroupVersionKind("resource.k8s.io", "v1", "ResourceClaim")
    claim = claim_with_selector('device.attributes["resource.kubernetes.io"].numaNode == 0')
    answer = handlers.selectors(request(claim, gvk=gvk), Policy.default())
    assert answer.allowed
    assert "list-fragile-compare" in {f.rule for f in answer.findings}
    assert any(w.startswith("[list-fragile-compare] spec.devices.requests[0].exactly.selectors[0].cel.expression: ")
               for w in answer.warnings)


def test_the_include_spelling_in_a_device_class_is_a_warning_by_default_and_denied_when_the_policy_says() -> None:
    gvk = GroupVersionKind("resource.k8s.io", "v1", "DeviceClass")
    obj = device_class_with_selector('device.attributes["x.com"].models.include("a")')
    answer = handlers.selectors(request(obj, gvk=gvk), Policy.default())
    assert answer.allowed
    assert any(w.startswith("[selector-includes-spelling] spec.selectors[0].cel.expression: ") for w in answer.warnings)
    strict = Policy.from_mapping({"rules": {"selector-includes-spelling": "deny"}}, "policy.yaml")
    answer = handlers.selectors(request(obj, gvk=gvk), strict)
    assert not answer.allowed
    assert "[selector-includes-spelling]" in answer.message


def test_a_selector_celext_cannot_compile_is_a_warning_by_default() -> None:
    gvk = GroupVersionKind("resource.k8s.io", "v1", "ResourceClaim")
    answer = handlers.selectors(request(claim_with_selector("device.driver =="), gvk=gvk), Policy.default())
    assert answer.allowed
    assert any(w.startswith("[selector-compile] ") for w in answer.warnings)


def test_objects_without_kind_take_it_from_the_request() -> None:
    obj = slice_with(numa=-2)
    del obj["kind"], obj["apiVersion"]
    assert not handlers.resourceslices(request(obj), Policy.default()).allowed


def test_deny_message_lists_every_finding_up_to_a_cap() -> None:
    findings = [finding(f"spec.d{i}", "bad\nvalue", "r", Action.DENY) for i in range(DENY_LISTED + 2)]
    message = deny_message(findings)
    assert message.startswith(f"{DENY_LISTED + 2} problems: spec.d0: bad value [r]; spec.d1: bad value [r]; ")
    assert message.endswith("; and 2 more (run `draguard validate` on this object for all of them)")
    assert deny_message(findings[:1]) == "1 problem: spec.d0: bad value [r]"
    answer = decide(findings)
    assert answer.message == message
    assert answer.causes == tuple((f"spec.d{i}", "bad value") for i in range(DENY_LISTED))  # as many as listed
    assert len(answer.findings) == DENY_LISTED + 2  # the log line and the metrics still count every one


def test_warning_lines_and_audit_annotations_name_rule_and_path() -> None:
    a = finding("spec.a", "first", "rule-a", Action.AUDIT)
    b = finding("spec.b", "second", "rule-a", Action.AUDIT)
    assert warning_line(a) == "[rule-a] spec.a: first"
    assert audit_annotations([a, b]) == {"rule-a": "spec.a: first; spec.b: second"}
