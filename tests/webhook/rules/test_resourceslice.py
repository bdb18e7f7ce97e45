"""Kubernetes parity: named scenarios (upstream's names where they exist), each an object and the exact
(rule, path, message) list the API server's validation would give."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from tests.webhook.rules.upstream_texts import DNS_LABEL, LABEL_VALUE, PER_DEVICE, SUBDOMAIN
from webhook.policy import Policy
from webhook.run import run_rules

C_ID = ("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
        "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
        "'[A-Za-z_][A-Za-z0-9_]*')")
BAD = "!@#$%^"
NODES = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
UNION = "exactly one value must be specified"  # validateDeviceAttribute: what 1.34-1.36 report
# 1.37 (the default) reports the union through declarative validation (apimachinery validate.Union)
MEMBERS = "`int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`"
NO_MEMBER = f'Invalid value: "": must specify one of: {MEMBERS}'


def base(devices: int = 1, name: str = "foo", node: str = "foo", driver: str = "test.example.com") -> dict[str, Any]:
    """upstream's testResourceSlice: four scalar attributes and one capacity per device."""
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
        "spec": {
            "nodeName": node, "driver": driver, "pool": {"name": node, "resourceSliceCount": 1},
            "devices": [{
                "name": f"device-{i}",
                "attributes": {"int": {"int": 42}, "string": {"string": "hello world"},
                               "version": {"version": "1.2.3"}, "bool": {"bool": True}},
                "capacity": {"memory": {"value": "1Gi"}},
            } for i in range(devices)],
        },
    }


def edit(obj: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    change(obj)
    return obj


def spec(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        for key, value in fields.items():
            if value is None:
                obj["spec"].pop(key, None)
            else:
                obj["spec"][key] = value
    return change


def dev(i: int, **fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        obj["spec"]["devices"][i].update(fields)
    return change


def every_device(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(obj: dict[str, Any]) -> None:
        for device in obj["spec"]["devices"]:
            device.update(fields)
    return change


D = "spec.devices"
TAINT = [{"key": "example.com/taint", "effect": "NoExecute"}]
RANGE_POLICY = {"default": "2Gi", "validRange": {"min": "1Gi", "max": "4Gi", "step": "1Gi"}}

SCENARIOS: dict[str, tuple[dict[str, Any], list[tuple[str, str, str]]]] = {
    "good": (base(128), []),
    "too-large": (base(129), [("k8s-device-count", D, "Too many: 129: must have at most 128 items")]),
    "good-taints": (edit(base(64), every_device(taints=TAINT)), []),
    "too-large-taints": (edit(base(65), every_device(taints=TAINT)),
                         [("k8s-device-count", D, "Too many: 65: must have at most 64 items")]),
    "too-large-list-attributes": (edit(base(65), dev(0, attributes={"numaNode": {"ints": [0, 1]}})),
                                  [("k8s-device-count", D, "Too many: 65: must have at most 64 items")]),
    "too-large-empty-list-attribute": (edit(base(65), dev(3, attributes={"numaNode": {"ints": []}})),
                                       [("k8s-device-count", D, "Too many: 65: must have at most 64 items")]),
    "bad-generate-name": (edit(base(name=""), lambda o: o["metadata"].update(generateName="Prefix-")), [
        ("k8s-object-meta", "metadata.generateName", f'Invalid value: "Prefix-": {SUBDOMAIN}')]),
    "bad-annotations": (edit(base(), lambda o: o["metadata"].update(annotations={BAD: "hello world"})), [
        ("k8s-object-meta", "metadata.annotations",
         f'Invalid value: "{BAD}": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', '
         "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
         "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")]),
    "label-value-not-a-string": (edit(base(), lambda o: o["metadata"].update(labels={"gpu": 1})), [
        ("k8s-wire-type", "metadata.labels[gpu]", "Invalid value: 1: must be of type string")]),
    # cleared by the API server before validation (rest.BeforeCreate), as kustomize's namespace stamp meets it
    "namespace-on-cluster-scoped": (edit(base(), lambda o: o["metadata"].update(namespace="default")), []),
    "bad-node-selector-requirements": (edit(base(), spec(nodeName=None, nodeSelector={"nodeSelectorTerms": [{
        "matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "IN", "values": ["a"]},
                             {"key": "zone", "operator": "Exists", "values": ["x"]}],
        "matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["a", "b"]}]}]})), [
        ("k8s-node-selection", "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator",
         'Invalid value: "IN": not a valid selector operator'),
        ("k8s-node-selection", "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[1].values",
         "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        ("k8s-node-selection", "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key",
         'Invalid value: "metadata.uid": not a valid field selector key'),
        ("k8s-node-selection", "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values",
         "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector")]),
    "missing-name": (base(name=""), [("k8s-object-meta", "metadata.name",
                                      "Required value: name or generateName is required")]),
    "bad-name": (base(name=BAD), [("k8s-object-meta", "metadata.name", f'Invalid value: "{BAD}": {SUBDOMAIN}')]),
    "generate-name": (edit(base(), lambda o: o["metadata"].update(generateName="prefix-")), []),
    "bad-labels": (edit(base(), lambda o: o["metadata"].update(labels={"hello-world": "spaces not allowed"})),
                   [("k8s-object-meta", "metadata.labels", f'Invalid value: "spaces not allowed": {LABEL_VALUE}')]),
    "bad-nodename": (base(node=BAD), [
        ("k8s-node-selection", "spec.nodeName", f'Invalid value: "{BAD}": {SUBDOMAIN}'),
        ("k8s-pool", "spec.pool.name", f'Invalid value: "{BAD}": {SUBDOMAIN}')]),
    "bad-pool": (edit(base(), spec(pool={"name": "x/" * 126 + "xy", "resourceSliceCount": 0, "generation": -1})), [
        ("k8s-pool", "spec.pool.generation", "Invalid value: -1: must be greater than or equal to zero"),
        ("k8s-pool", "spec.pool.name", "Too long: may not be more than 253 bytes"),
        ("k8s-pool", "spec.pool.resourceSliceCount", "Invalid value: 0: must be greater than zero")]),
    "missing-pool-name": (edit(base(), spec(pool={"resourceSliceCount": 1})),
                          [("k8s-pool", "spec.pool.name", "Required value")]),
    "bad-empty-node-selector": (edit(base(), spec(nodeName=None, nodeSelector={})), [
        ("k8s-node-selection", "spec.nodeSelector.nodeSelectorTerms",
         "Invalid value: null: must have exactly one node selector term"),
        ("k8s-node-selection", "spec.nodeSelector.nodeSelectorTerms",
         "Required value: must have at least one node selector term")]),
    "bad-node-selection": (edit(base(), spec(nodeSelector={"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["worker"]}]}]})),
        [("k8s-node-selection", "spec", f'Invalid value: "{{`nodeName`, `nodeSelector`}}": {NODES}, but multiple '
          "fields are set")]),
    "bad-node-selection-all-nodes": (edit(base(), spec(allNodes=True)), [
        ("k8s-node-selection", "spec", f'Invalid value: "{{`nodeName`, `allNodes`}}": {NODES}, but multiple fields '
         "are set")]),
    "empty-node-selection": (edit(base(), spec(nodeName=None)), [("k8s-node-selection", "spec",
                                                                   f"Required value: {NODES}")]),
    "all-nodes-false": (edit(base(), spec(nodeName=None, allNodes=False)), [
        ("k8s-node-selection", "spec", f"Required value: {NODES}"),
        ("k8s-node-selection", "spec.allNodes", "Invalid value: false: must be either unset or set to true")]),
    "bad-drivername": (base(driver=BAD), [("k8s-driver", "spec.driver", f'Invalid value: "{BAD}": {SUBDOMAIN}')]),
    "upper-case-drivername": (base(driver="Test.Example.COM"), []),
    "both-shared-counters-and-devices": (
        edit(base(), spec(sharedCounters=[{"name": "counterset", "counters": {"memory": {"value": "1Gi"}}}])),
        [("k8s-counters", "spec", 'Invalid value: "": only one of `sharedCounters` or `devices` is allowed')]),
    "bad-devices": (edit(base(3), dev(1, name=BAD)), [("k8s-device-name", f"{D}[1].name",
                                                        f'Invalid value: "{BAD}": {DNS_LABEL}')]),
    "duplicate-device-name": (edit(base(2), dev(1, name="device-0")),
                              [("k8s-device-name", f"{D}[1]", 'Duplicate value: "device-0"')]),
    "bad-attribute": (edit(base(5), lambda o: [
        o["spec"]["devices"][1].update(attributes={BAD: {}}),
        o["spec"]["devices"][2].update(attributes={"foo": {"string": "x", "version": "1.2.3"}}),
        o["spec"]["devices"][3].update(attributes={"foo": {"version": "x" * 65}}),
        o["spec"]["devices"][4].update(attributes={"foo": {"string": "x" * 65}})]), [
        ("k8s-qualified-name", f"{D}[1].attributes", f'Invalid value: "{BAD}": {C_ID}'),
        ("k8s-attribute-union", f"{D}[1].attributes[{BAD}]", NO_MEMBER),
        ("k8s-attribute-union", f"{D}[2].attributes[foo]",
         f'Invalid value: "{{string, version}}": must specify exactly one of: {MEMBERS}'),
        ("k8s-attribute-value", f"{D}[3].attributes[foo].version",
         f'Invalid value: "{"x" * 65}": must be a string compatible with semver.org spec 2.0.0'),
        ("k8s-attribute-value", f"{D}[3].attributes[foo].version", "Too long: may not be more than 64 bytes"),
        ("k8s-attribute-value", f"{D}[4].attributes[foo].string", "Too long: may not be more than 64 bytes")]),
    "good-list-attribute": (edit(base(4), lambda o: [
        d.update(attributes={"foo": v}) for d, v in zip(o["spec"]["devices"], (
            {"bools": [True]}, {"ints": [1]}, {"strings": ["x"]}, {"versions": ["1.2.3"]}), strict=True)]), []),
    "bad-list-attribute": (edit(base(4), lambda o: [
        d.update(attributes={"foo": v}) for d, v in zip(o["spec"]["devices"], (
            {"ints": []}, {"ints": [1], "bools": [True]}, {"strings": ["x" * 65]}, {"versions": ["01.2.3"]}),
            strict=True)]), [
        ("k8s-attribute-union", f"{D}[0].attributes[foo].ints", "Invalid value: []: must not be empty if specified"),
        ("k8s-attribute-union", f"{D}[1].attributes[foo]",
         f'Invalid value: "{{ints, bools}}": must specify exactly one of: {MEMBERS}'),
        ("k8s-attribute-value", f"{D}[2].attributes[foo].strings[0]", "Too long: may not be more than 64 bytes"),
        ("k8s-attribute-value", f"{D}[3].attributes[foo].versions[0]",
         'Invalid value: "01.2.3": must be a string compatible with semver.org spec 2.0.0')]),
    "multi-byte-string-counts-bytes": (edit(base(), dev(0, attributes={"foo": {"string": "é" * 33}})),
                                       [("k8s-attribute-value", f"{D}[0].attributes[foo].string",
                                         "Too long: may not be more than 64 bytes")]),
    "duplicates-in-list-are-accepted": (edit(base(), dev(0, attributes={"foo": {"ints": [1, 1]}})), []),
    "good-attribute-names": (edit(base(2), dev(1, attributes={
        "x" * 32: {"string": "y"}, "x" * 63 + "/" + "y" * 32: {"string": "z"}})), []),
    "bad-attribute-c-identifier": (edit(base(2), dev(1, attributes={"." * 33: {"string": "y"}})), [
        ("k8s-qualified-name", f"{D}[1].attributes", f'Invalid value: "{"." * 33}": {C_ID}'),
        ("k8s-qualified-name", f"{D}[1].attributes", "Too long: may not be more than 32 bytes")]),
    "bad-attribute-domain": (edit(base(2), dev(1, attributes={"_" * 64 + "/y": {"string": "z"}})), [
        ("k8s-qualified-name", f"{D}[1].attributes", f'Invalid value: "{"_" * 64}": {SUBDOMAIN}'),
        ("k8s-qualified-name", f"{D}[1].attributes", "Too long: may not be more than 63 bytes")]),
    "bad-attribute-empty-domain-and-c-identifier": (edit(base(2), dev(1, attributes={"/": {"string": "z"}})), [
        ("k8s-qualified-name", f"{D}[1].attributes", 'Invalid value: "": the domain must not be empty'),
        ("k8s-qualified-name", f"{D}[1].attributes", 'Invalid value: "": the name must not be empty')]),
    "more-than-one-slash-is-accepted": (edit(base(), dev(0, attributes={"a.b/c/d": {"string": "z"}})), []),
    "combined-attributes-capacity-length": (edit(base(), dev(0, attributes={
        f"attr_{i}": {"string": "x"} for i in range(32)})), [
        ("k8s-attribute-limits", f"{D}[0]",
         "Invalid value: 33: the total number of attributes and capacities must not exceed 32")]),
    "too-many-attribute-values": (edit(base(), dev(0, attributes={"a": {"ints": list(range(40))},
                                                                   "b": {"strings": ["x"] * 9}})), [
        ("k8s-attribute-limits", f"{D}[0]",
         "Invalid value: 49: the total number of attribute values must not exceed 48")]),
    "request-policy-without-multiple-allocations": (
        edit(base(), dev(0, capacity={"memory": {"value": "4Gi", "requestPolicy": RANGE_POLICY}})),
        [("k8s-capacity", f"{D}[0].capacity[memory].requestPolicy",
          "Forbidden: allowMultipleAllocations must be true")]),
    "good-request-policy": (edit(base(), dev(0, allowMultipleAllocations=True, capacity={
        "memory": {"value": "4Gi", "requestPolicy": RANGE_POLICY}})), []),
    "bad-request-policy-both": (edit(base(), dev(0, allowMultipleAllocations=True, capacity={"memory": {
        "value": "4Gi", "requestPolicy": {**RANGE_POLICY, "validValues": ["1Gi"]}}})), [
        ("k8s-capacity", f"{D}[0].capacity[memory].requestPolicy",
         'Forbidden: exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same '
         "time")]),
    "bad-valid-values": (edit(base(), dev(0, allowMultipleAllocations=True, capacity={"memory": {
        "value": "4Gi", "requestPolicy": {"default": "3Gi", "validValues": ["2Gi", "1Gi", "8Gi"]}}})), [
        ("k8s-capacity", f"{D}[0].capacity[memory].requestPolicy.validValues",
         'Invalid value: "3Gi": default value is not valid according to the requestPolicy'),
        ("k8s-capacity", f"{D}[0].capacity[memory].requestPolicy.validValues[1]",
         'Invalid value: "1Gi": values must be sorted in ascending order'),
        ("k8s-capacity", f"{D}[0].capacity[memory].requestPolicy.validValues[2]",
         'Invalid value: "8Gi": option is larger than capacity value: 4Gi')]),
    "bad-valid-range": (edit(base(), dev(0, allowMultipleAllocations=True, capacity={"memory": {
        "value": "4Gi", "requestPolicy": {"default": "2Gi", "validRange": {"min": "1Gi", "step": "2Gi"}}}})), [
        ("k8s-capacity", f"{D}[0].capacity[memory].requestPolicy.validRange.step",
         'Invalid value: "2Gi": value is not a multiple of a given step (2Gi) from (1Gi)')]),
    "missing-default": (edit(base(), dev(0, allowMultipleAllocations=True, capacity={"memory": {
        "value": "4Gi", "requestPolicy": {"validRange": {"min": "1Gi"}}}})), [
        ("k8s-capacity", f"{D}[0].capacity[memory].requestPolicy.default",
         "Required value: required when validRange is defined")]),
    "bad-taint": (edit(base(), dev(0, taints=[{"key": BAD, "value": "a b", "effect": "Sometimes"}, {"key": "k"}])), [
        ("k8s-taints", f"{D}[0].taints[0].effect",
         'Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"'),
        ("k8s-taints", f"{D}[0].taints[0].key",
         f'Invalid value: "{BAD}": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and '
         "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
         "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
        ("k8s-taints", f"{D}[0].taints[0].value", f'Invalid value: "a b": {LABEL_VALUE}'),
        ("k8s-taints", f"{D}[0].taints[1].effect", "Required value")]),
    "too-many-taints": (edit(base(), dev(0, taints=TAINT * 17)),
                        [("k8s-taints", f"{D}[0].taints", "Too many: 17: must have at most 16 items")]),
    "bad-consumes-counters": (edit(base(), dev(0, consumesCounters=[
        {"counterSet": "a", "counters": {"mem": {"value": "1"}}}, {"counterSet": "a", "counters": {}}])), [
        ("k8s-counters", f"{D}[0].consumesCounters[1]", 'Duplicate value: "a"'),
        ("k8s-counters", f"{D}[0].consumesCounters[1].counters", "Required value")]),
    "bad-shared-counters": (edit(base(), spec(devices=None, sharedCounters=[
        {"name": "Set", "counters": {"mem": {"value": "1"}}},
        {"name": "set2", "counters": {"Bad": {"value": "1"}}}])), [
        ("k8s-counters", "spec.sharedCounters[0].name", f'Invalid value: "Set": {DNS_LABEL}'),
        ("k8s-counters", "spec.sharedCounters[1].counters", f'Invalid value: "Bad": {DNS_LABEL}')]),
    "duplicate-shared-counter-sets": (edit(base(), spec(devices=None, sharedCounters=[
        {"name": "set", "counters": {"mem": {"value": "1"}}}] * 2)), [
        ("k8s-counters", "spec.sharedCounters[1]", 'Duplicate value: "set"')]),
    "too-many-shared-counter-sets": (edit(base(), spec(devices=None, sharedCounters=[
        {"name": "Bad", "counters": {}}] * 9)), [
        ("k8s-counters", "spec.sharedCounters", "Too many: 9: must have at most 8 items")]),
    "too-many-counter-consumptions": (edit(base(), dev(0, consumesCounters=[{"counterSet": "a"}] * 3)), [
        ("k8s-counters", f"{D}[0].consumesCounters", "Too many: 3: must have at most 2 items")]),
    "duplicate-binding-failure-conditions": (edit(base(), dev(
        0, bindingConditions=["ready"], bindingFailureConditions=["failed", "failed"])), [
        ("k8s-binding-conditions", f"{D}[0].bindingFailureConditions[1]", 'Duplicate value: "failed"')]),
    "too-many-binding-conditions": (edit(base(), dev(
        0, bindingConditions=["a", "b", "c", "d", "E F"], bindingFailureConditions=["x"])), [
        ("k8s-binding-conditions", f"{D}[0].bindingConditions", "Too many: 5: must have at most 4 items")]),
    "per-device-node-selection": (edit(base(2), lambda o: [
        spec(nodeName=None, perDeviceNodeSelection=True)(o),
        o["spec"]["devices"][0].update(nodeName="node-1"),
        o["spec"]["devices"][1].update(nodeName="node-1", allNodes=True)]), [
        ("k8s-node-selection", f"{D}[1]", f'Invalid value: "{{`nodeName`, `allNodes`}}": {PER_DEVICE}')]),
    "empty-node-name": (edit(base(), spec(nodeName="")), [
        ("k8s-node-selection", "spec", f"Required value: {NODES}"),
        ("k8s-node-selection", "spec.nodeName",
         'Invalid value: "": must be either unset or set to a non-empty string')]),
    "empty-device-node-name": (edit(base(2), lambda o: [
        spec(nodeName=None, perDeviceNodeSelection=True)(o),
        o["spec"]["devices"][0].update(nodeName=""),
        o["spec"]["devices"][1].update(nodeName="node-1")]), [
        ("k8s-node-selection", f"{D}[0]", f"Required value: {PER_DEVICE}"),
        ("k8s-node-selection", f"{D}[0].nodeName", 'Invalid value: "": must not be empty')]),
    "device-node-without-per-device-selection": (edit(base(), dev(0, allNodes=True)), [
        ("k8s-node-selection", f"{D}[0]", "Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only "
         "be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec")]),
    "bad-binding-conditions": (edit(base(), dev(0, bindingConditions=["a", "a"], bindingFailureConditions=["a"])), [
        ("k8s-binding-conditions", f"{D}[0].bindingConditions[1]", 'Duplicate value: "a"'),
        ("k8s-binding-conditions", f"{D}[0].bindingFailureConditions[0]",
         'Invalid value: "a": bindingFailureConditions must not overlap with bindingConditions')]),
    "binding-conditions-need-failure-conditions": (edit(base(), dev(0, bindingConditions=["ready"])), [
        ("k8s-binding-conditions", f"{D}[0].bindingFailureConditions",
         "Invalid value: null: bindingFailureConditions are required to use bindingConditions")]),
    "wrong-json-types": (edit(base(), lambda o: [
        o["spec"]["pool"].update(resourceSliceCount="1"),
        o["spec"]["devices"][0]["attributes"].update(int={"int": "42"}, bool={"bool": "true"})]), [
        ("k8s-wire-type", f"{D}[0].attributes[bool].bool", 'Invalid value: "true": must be of type boolean'),
        ("k8s-wire-type", f"{D}[0].attributes[int].int", 'Invalid value: "42": must be of type integer'),
        # the decoder's error only: the API server refuses the object there, before range checks
        ("k8s-wire-type", "spec.pool.resourceSliceCount", 'Invalid value: "1": must be of type integer')]),
    "unknown-attribute-member": (edit(base(), dev(0, attributes={"foo": {"intz": 1}})), [
        ("k8s-attribute-union", f"{D}[0].attributes[foo]", NO_MEMBER),
        ("k8s-unknown-field", f"{D}[0].attributes[foo].intz", 'unknown field "spec.devices[0].attributes[foo].intz"')]),
    "unknown-pool-and-capacity-fields": (edit(base(), lambda o: [
        o["spec"]["pool"].update(count=1), o["spec"]["devices"][0]["capacity"]["memory"].update(val="1")]), [
        ("k8s-unknown-field", f"{D}[0].capacity[memory].val", 'unknown field "spec.devices[0].capacity[memory].val"'),
        ("k8s-unknown-field", "spec.pool.count", 'unknown field "spec.pool.count"')]),
    "unknown-top-level-and-metadata-fields": (edit(base(), lambda o: [
        o.update(status={}, specs={}), o["metadata"].update(labelz={"a": "b"}, uid="u", managedFields=[])]), [
        ("k8s-unknown-field", "metadata.labelz", 'unknown field "metadata.labelz"'),
        ("k8s-unknown-field", "specs", 'unknown field "specs"'),
        ("k8s-unknown-field", "status", 'unknown field "status"')]),
    "unserved-api-version": (edit(base(), lambda o: o.update(apiVersion="resource.k8s.io/v1alpha2")), [
        ("k8s-api-version", "apiVersion",
         'no matches for kind "ResourceSlice" in version "resource.k8s.io/v1alpha2"')]),
    "v1beta1-basic-devices": (edit(base(), lambda o: [
        o.update(apiVersion="resource.k8s.io/v1beta1"),
        o["spec"].update(devices=[{"name": "gpu-0", "basic": {"attributes": {"foo": {}}}}])]), [
        ("k8s-attribute-union", f"{D}[0].attributes[foo]", NO_MEMBER)]),
}


def parity(obj: dict[str, Any], policy: Policy | None = None, old: dict[str, Any] | None = None
           ) -> list[tuple[str, str, str]]:
    outcome = run_rules(obj, policy or Policy.default(), old=old)
    return sorted((f.rule, str(f.path), f.message) for f in outcome.findings if f.rule.startswith("k8s-"))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name: str) -> None:
    obj, expected = SCENARIOS[name]
    assert parity(obj) == sorted(expected)


def test_parity_findings_are_denied_by_default_and_unknown_fields_warned() -> None:
    obj, _ = SCENARIOS["unknown-attribute-member"]
    actions = {f.rule: f.action.value for f in run_rules(obj, Policy.default()).findings if f.action}
    assert actions == {"k8s-attribute-union": "deny", "k8s-unknown-field": "warn"}


def test_update_changing_immutable_fields() -> None:
    old = base()
    new = edit(base(), lambda o: [o["spec"].update(driver="other.example.com", nodeName="bar"),
                                  o["spec"]["pool"].update(name="bar")])
    assert parity(new, old=old) == [
        ("k8s-immutable", "spec.driver", 'Invalid value: "other.example.com": field is immutable'),
        ("k8s-immutable", "spec.nodeName", 'Invalid value: "bar": field is immutable'),
        ("k8s-immutable", "spec.pool.name", 'Invalid value: "bar": field is immutable')]


def test_unchanged_taints_are_not_revalidated_on_update() -> None:
    bad = [{"key": "k", "effect": "Sometimes"}]
    old = edit(base(), dev(0, taints=bad))
    assert parity(edit(base(), dev(0, taints=bad)), old=old) == []
    assert [r for r, _, _ in parity(edit(base(), dev(0, taints=bad)))] == ["k8s-taints"]


def test_list_types_disabled_drops_lists_then_the_union_fails() -> None:
    obj = edit(base(), dev(0, attributes={"resource.kubernetes.io/numaNode": {"ints": [0, 1]}}))
    policy = Policy.from_mapping({"listTypes": "disabled"})
    union, gate = run_rules(obj, policy).findings
    assert (union.rule, str(union.path), union.message) == (
        "k8s-attribute-union", f"{D}[0].attributes[resource.kubernetes.io/numaNode]", NO_MEMBER)
    assert union.hint.startswith("the cluster runs without the DRAListTypeAttributes feature gate")
    assert (gate.rule, str(gate.path)) == (
        "k8s-feature-gate", f"{D}[0].attributes[resource.kubernetes.io/numaNode].ints")


def test_list_types_disabled_keeps_lists_the_old_object_already_had() -> None:
    obj = edit(base(), dev(0, attributes={"resource.kubernetes.io/numaNode": {"ints": [0, 1]}}))
    policy = Policy.from_mapping({"listTypes": "disabled"})
    assert run_rules(obj, policy, old=obj).findings == []


@pytest.mark.parametrize(("release", "expected"), [
    ("1.36", []),
    ("1.37", []),
    # 1.35 has no list fields: its decoder drops them from the stored object too, so nothing ratchets
    ("1.35", [("k8s-attribute-union", f"{D}[0].attributes[resource.kubernetes.io/numaNode]",
               f'Invalid value: "": {UNION}'),
              ("k8s-unknown-field", f"{D}[0].attributes[resource.kubernetes.io/numaNode].ints",
               f'unknown field "{D}[0].attributes[resource.kubernetes.io/numaNode].ints"')]),
])
def test_only_a_release_with_list_fields_keeps_those_the_old_object_had(
        release: str, expected: list[tuple[str, str, str]]) -> None:
    old = edit(base(), dev(0, attributes={"resource.kubernetes.io/numaNode": {"ints": [0, 1]}}))
    obj = edit(base(), dev(0, attributes={"resource.kubernetes.io/numaNode": {"ints": [0, 1, 2]}}))
    policy = Policy.from_mapping({"kubernetes": release, "listTypes": "disabled"} if release >= "1.36"
                                 else {"kubernetes": release})
    assert [(f.rule, str(f.path), f.message) for f in run_rules(obj, policy, old=old).findings] == expected


def test_list_types_disabled_leaves_scalars_alone() -> None:
    obj = edit(base(), dev(0, attributes={"resource.kubernetes.io/numaNode": {"int": 0}}))
    assert run_rules(obj, Policy.from_mapping({"listTypes": "disabled"})).findings == []


def test_object_meta_hints_fit_the_problem() -> None:
    obj = edit(base(name="Foo"), lambda o: o["metadata"].update(labels={"a": "b"}))
    hints = {f.message.split(":")[0]: f.hint for f in run_rules(obj, Policy.default()).findings
             if f.rule == "k8s-object-meta"}
    assert hints == {"Invalid value": "use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`"}
