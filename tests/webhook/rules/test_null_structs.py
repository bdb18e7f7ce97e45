"""A `null` item of a list of structs or strings, or a `null` map value, in a ResourceSlice is Go's zero value.

The API server's decoder (sigs.k8s.io/json, encoding/json's `literalStore`) leaves a null struct, string or number
untouched, so `devices: [null]` holds a Device with no field set and `bindingConditions: [null]` the string "".
None of them is a wrong type; what the server says is what its validation says about that zero value. Each case
below is written in YAML, as a driver author would publish it.
"""

from __future__ import annotations

import pytest

from tests.webhook.rules.yaml_slices import Row, run_yaml, slice_yaml
from webhook.policy import Policy

D0 = "spec.devices[0]"
NODE = "  nodeName: node-0\n"
LABEL_EMPTY = 'Invalid value: "": name part must be non-empty'
LABEL_REGEX = ('Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must '
               "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
               "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
DNS_LABEL = ('Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '
             "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
             "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
ALL_GATES = {"DRAPartitionableDevicesType": True, "DRAOptionalNodeOperations": True,
             "DRANodeAllocatableResources": True}

# 1.37 (the default) reports an attribute's union through declarative validation (apimachinery validate.Union)
NO_MEMBER = ('Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, '
             '`strings`, `versions`')


def findings(spec: str, version: str = "1.37", gates: dict[str, bool] | None = None) -> list[Row]:
    gates = gates if gates is not None else ALL_GATES if version == "1.37" else {}
    return sorted(run_yaml(slice_yaml(spec), Policy.from_mapping({"kubernetes": version, "featureGates": gates})))


def test_a_null_device_is_a_device_without_a_name() -> None:
    assert findings(NODE + "  devices: [null]") == [("k8s-device-name", "deny", f"{D0}.name", DNS_LABEL)]


@pytest.mark.parametrize(("version", "duplicate_path"), [("1.37", "spec.devices[1]"), ("1.34", "spec.devices[1].name")])
def test_two_null_devices_share_the_empty_name(version: str, duplicate_path: str) -> None:
    assert findings(NODE + "  devices: [null, null]", version) == sorted([
        ("k8s-device-name", "deny", f"{D0}.name", DNS_LABEL),
        ("k8s-device-name", "deny", "spec.devices[1].name", DNS_LABEL),
        ("k8s-device-name", "deny", duplicate_path, 'Duplicate value: ""')])


def test_a_null_binding_condition_is_the_empty_label() -> None:
    spec = NODE + "  devices:\n  - {name: gpu-0, bindsToNode: true, bindingConditions: [null], " \
                  "bindingFailureConditions: [failed]}"
    assert findings(spec) == [("k8s-binding-conditions", "deny", f"{D0}.bindingConditions[0]", LABEL_EMPTY),
                              ("k8s-binding-conditions", "deny", f"{D0}.bindingConditions[0]", LABEL_REGEX)]


def test_a_null_taint_is_a_taint_without_key_or_effect() -> None:
    assert findings(NODE + "  devices:\n  - {name: gpu-0, taints: [null]}") == [
        ("k8s-taints", "deny", f"{D0}.taints[0].effect", "Required value"),
        ("k8s-taints", "deny", f"{D0}.taints[0].key", LABEL_EMPTY),
        ("k8s-taints", "deny", f"{D0}.taints[0].key", LABEL_REGEX)]


def test_a_null_counter_consumption_names_no_set_and_no_counters() -> None:
    assert findings(NODE + "  devices:\n  - {name: gpu-0, consumesCounters: [null]}") == [
        ("k8s-counters", "deny", f"{D0}.consumesCounters[0].counterSet", "Required value"),
        ("k8s-counters", "deny", f"{D0}.consumesCounters[0].counters", "Required value")]


def test_a_null_counter_consumption_in_1_34_references_no_set_of_the_slice() -> None:
    spec = (NODE + "  sharedCounters: [{name: gpus, counters: {memory: {value: 1Gi}}}]\n"
            "  devices:\n  - {name: gpu-0, consumesCounters: [null]}")
    assert findings(spec, "1.34", {"DRAPartitionableDevices": True}) == [
        ("k8s-counters", "deny", f"{D0}.consumesCounters[0].counterSet",
         'Invalid value: "": must reference a counterSet defined in the ResourceSlice sharedCounters'),
        ("k8s-counters", "deny", f"{D0}.consumesCounters[0].counterSet", "Required value"),
        ("k8s-counters", "deny", f"{D0}.consumesCounters[0].counters", "Required value")]


def test_a_null_counter_set_is_nameless_and_empty() -> None:
    assert findings(NODE + "  sharedCounters: [null, {name: gpus, counters: {memory: null}}]") == [
        ("k8s-counters", "deny", "spec.sharedCounters[0].counters", "Required value"),
        ("k8s-counters", "deny", "spec.sharedCounters[0].name", "Required value")]


@pytest.mark.parametrize("device", [
    "{name: gpu-0, capacity: {memory: null}}",  # a capacity of quantity 0
    "{name: gpu-0, consumesCounters: [{counterSet: gpus, counters: {memory: null}}]}",  # a counter of 0
])
def test_a_null_quantity_struct_is_zero_and_valid(device: str) -> None:
    assert findings(NODE + f"  devices:\n  - {device}") == []


def test_a_null_node_selector_term_selects_nothing_and_is_valid() -> None:
    assert findings("  nodeSelector: {nodeSelectorTerms: [null]}\n  devices: [{name: gpu-0}]") == []


def test_a_null_node_selector_requirement_has_no_key_and_no_operator() -> None:
    spec = ("  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [null, {key: zone, operator: In, values: [null]}],"
            " matchFields: [null]}]}\n  devices: [{name: gpu-0}]")
    term = "spec.nodeSelector.nodeSelectorTerms[0]"
    assert findings(spec) == [
        ("k8s-node-selection", "deny", f"{term}.matchExpressions[0].key", LABEL_EMPTY),
        ("k8s-node-selection", "deny", f"{term}.matchExpressions[0].key", LABEL_REGEX),
        ("k8s-node-selection", "deny", f"{term}.matchExpressions[0].operator",
         'Invalid value: "": not a valid selector operator'),
        ("k8s-node-selection", "deny", f"{term}.matchFields[0].key",
         'Invalid value: "": not a valid field selector key'),
        ("k8s-node-selection", "deny", f"{term}.matchFields[0].operator",
         'Invalid value: "": not a valid selector operator')]  # values: [null] is [""], a valid label value


def test_a_null_partition_type_attribute_is_the_empty_attribute() -> None:
    spec = (NODE + "  partitionTypeAttribute: gpu.example.com/profile\n  devices:\n"
            "  - {name: gpu-0, consumesCounters: [{counterSet: gpus, counters: {memory: {value: 1Gi}}}], "
            "attributes: {profile: null}}")
    assert findings(spec) == [
        ("k8s-attribute-union", "deny", f"{D0}.attributes[profile]",
         NO_MEMBER),
        ("k8s-partition-type-attribute", "deny", f"{D0}.attributes[gpu.example.com/profile]",
         "Invalid value: {}: must be a string value because `partitionTypeAttribute` names this attribute")]


def test_a_null_skipped_operation_is_the_empty_operation() -> None:
    assert findings(NODE + "  skipNodeOperations: [null, '*']\n  devices: [{name: gpu-0}]") == [
        ("k8s-skip-node-operations", "deny", "spec.skipNodeOperations[0]",
         'Unsupported value: "": supported values: "*", "NodePrepareResources", "NodeUnprepareResources"')]


def test_a_null_node_allocatable_resource_maps_nothing() -> None:
    assert findings(NODE + "  devices:\n  - {name: gpu-0, nodeAllocatableResources: {memory: null}}") == [
        ("k8s-node-allocatable-resources", "deny", f"{D0}.nodeAllocatableResources[memory]",
         "Required value: at least one of mapping or overhead must be set")]


@pytest.mark.parametrize(("count", "expected"), [
    (9, []),
    (10, []),  # validValues may hold 10 options; the null one is 0, the default
    (11, [("k8s-capacity", "deny", f"{D0}.capacity[memory].requestPolicy.validValues",
           "Too many: 11: must have at most 10 items"),
          ("k8s-capacity", "deny", f"{D0}.capacity[memory].requestPolicy.validValues",
           'Invalid value: "0": default value is not valid according to the requestPolicy')]),
])
def test_a_null_valid_value_is_the_quantity_zero(count: int, expected: list[Row]) -> None:
    options = ", ".join(["null"] + [f'"{i}"' for i in range(1, count)])
    spec = (NODE + "  devices:\n  - {name: gpu-0, allowMultipleAllocations: true, capacity: {memory: "
            f"{{value: '64', requestPolicy: {{default: '0', validValues: [{options}]}}}}}}}}")
    assert findings(spec) == sorted(expected)


@pytest.mark.parametrize(("spec", "path", "message"), [
    (NODE + "  devices: [3]", D0, "Invalid value: 3: must be of type object"),
    (NODE + "  devices:\n  - {name: gpu-0, taints: [x]}", f"{D0}.taints[0]",
     'Invalid value: "x": must be of type object'),
])
def test_a_value_of_another_type_is_still_a_wrong_type(spec: str, path: str, message: str) -> None:
    assert [row for row in findings(spec) if row[0] == "k8s-wire-type"] == [("k8s-wire-type", "deny", path, message)]
