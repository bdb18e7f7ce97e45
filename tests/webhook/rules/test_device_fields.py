"""Device fields at upstream's checks (validateDevice and the slice's counter sets): taints, counter sets
and consumption, binding conditions, per-device node selection. Each case: the findings in full."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import device, slice_with
from tests.webhook.rules.upstream_texts import DNS_LABEL, LABEL_VALUE, NAME_PART, PER_DEVICE
from webhook.policy import Policy
from webhook.run import run_rules

D = "spec.devices[0]"


def findings(obj: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f.rule, str(f.path), f.message) for f in run_rules(obj, Policy.default()).findings]


def counter_sets(groups: list[Any]) -> dict[str, Any]:
    obj = slice_with(node_name=None, allNodes=True, sharedCounters=groups)
    del obj["spec"]["devices"]
    return obj


def per_device(**fields: Any) -> dict[str, Any]:
    return slice_with(device("d", **fields), node_name=None, perDeviceNodeSelection=True)


@pytest.mark.parametrize(("obj", "expected"), [
    pytest.param(slice_with(device("d", taints=[{"key": "bad key!", "value": "bad value!", "effect": ""}])), [
        ("k8s-taints", f"{D}.taints[0].effect", "Required value"),
        ("k8s-taints", f"{D}.taints[0].key", f'Invalid value: "bad key!": {NAME_PART}'),
        ("k8s-taints", f"{D}.taints[0].value", f'Invalid value: "bad value!": {LABEL_VALUE}')], id="taint-bad"),
    pytest.param(slice_with(device("d", taints=[{"key": "k", "effect": "Sometimes"}])), [
        ("k8s-taints", f"{D}.taints[0].effect",
         'Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"')], id="taint-effect"),
    pytest.param(slice_with(device("d", taints=[{"key": "k", "value": "v", "effect": "NoExecute"}])), [],
                 id="taint-good"),
    pytest.param(counter_sets([{"counters": {"c": {"value": "1"}}}, {"name": "Bad_", "counters": {}},
                               {"name": "a", "counters": {"Bad_Key": {"value": "1"}}},
                               {"name": "a", "counters": {"c": {"value": "1"}}}]), [
        ("k8s-counters", "spec.sharedCounters[0].name", "Required value"),
        ("k8s-counters", "spec.sharedCounters[1].counters", "Required value"),
        ("k8s-counters", "spec.sharedCounters[1].name", f'Invalid value: "Bad_": {DNS_LABEL}'),
        ("k8s-counters", "spec.sharedCounters[2].counters", f'Invalid value: "Bad_Key": {DNS_LABEL}'),
        ("k8s-counters", "spec.sharedCounters[3]", 'Duplicate value: "a"')], id="counter-sets"),
    pytest.param(slice_with(device("d", consumesCounters=[{"counterSet": "", "counters": {"c": {"value": "1"}}}])), [
        ("k8s-counters", f"{D}.consumesCounters[0].counterSet", "Required value")], id="consumption-unnamed"),
    pytest.param(slice_with(device("d", bindingFailureConditions=["f"], bindsToNode=True)), [
        ("k8s-binding-conditions", f"{D}.bindingConditions",
         "Invalid value: null: bindingConditions are required to use bindingFailureConditions")],
        id="failure-conditions-alone"),
    pytest.param(slice_with(device("d", bindingConditions=["c", "c"], bindingFailureConditions=[], bindsToNode=True)), [
        ("k8s-binding-conditions", f"{D}.bindingConditions[1]", 'Duplicate value: "c"'),
        ("k8s-binding-conditions", f"{D}.bindingFailureConditions",
         "Invalid value: []: bindingFailureConditions are required to use bindingConditions")],
        id="conditions-alone-and-repeated"),
    pytest.param(slice_with(device("d", bindingConditions=["c"], bindingFailureConditions=["c", "bad key!"],
                                   bindsToNode=True)), [
        ("k8s-binding-conditions", f"{D}.bindingFailureConditions[0]",
         'Invalid value: "c": bindingFailureConditions must not overlap with bindingConditions'),
        ("k8s-binding-conditions", f"{D}.bindingFailureConditions[1]", f'Invalid value: "bad key!": {NAME_PART}')],
        id="conditions-overlap"),
    pytest.param(slice_with(device("d", nodeName="n")), [
        ("k8s-node-selection", D, "Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set "
                                  "if `perDeviceNodeSelection` is set to true in the ResourceSlice spec")],
        id="per-device-field-without-per-device-selection"),
    pytest.param(per_device(nodeName="n", allNodes=True), [
        ("k8s-node-selection", D, f'Invalid value: "{{`nodeName`, `allNodes`}}": {PER_DEVICE}')], id="two-set"),
    pytest.param(per_device(allNodes=False), [
        ("k8s-node-selection", D, f"Required value: {PER_DEVICE}"),
        ("k8s-node-selection", f"{D}.allNodes", "Invalid value: false: must be either unset or set to true")],
        id="all-nodes-false"),
    pytest.param(per_device(nodeName=""), [
        ("k8s-node-selection", D, f"Required value: {PER_DEVICE}"),
        ("k8s-node-selection", f"{D}.nodeName", 'Invalid value: "": must not be empty')], id="node-name-empty"),
    pytest.param(per_device(nodeName="node-1"), [], id="node-name"),
])
def test_device_fields(obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert findings(obj) == expected
