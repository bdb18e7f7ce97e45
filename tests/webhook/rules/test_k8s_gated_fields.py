"""Fields behind alpha gates of Kubernetes 1.37 (and 1.36's node-allocatable mappings), with the gates on:
skipNodeOperations, partitionTypeAttribute, nodeAllocatableResources / nodeAllocatableResourceMappings. Each
case gives the findings a user sees (rule, field path, upstream's message)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import device, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

GATES = {"DRAOptionalNodeOperations": True, "DRAPartitionableDevicesType": True, "DRANodeAllocatableResources": True}
V137 = Policy.default().with_profile("1.37", gates=GATES)
V136 = Policy.default().with_profile("1.36", gates={"DRANodeAllocatableResources": True})
SKIP = "k8s-skip-node-operations"
ALLOC = "k8s-node-allocatable-resources"
NAR = "spec.devices[0].nodeAllocatableResources"
NARM = "spec.devices[0].nodeAllocatableResourceMappings"
SUPPORTED = 'supported values: "*", "NodePrepareResources", "NodeUnprepareResources"'


def findings(obj: dict[str, Any], policy: Policy = V137) -> list[tuple[str, str, str]]:
    return [(f.rule, str(f.path), f.message) for f in run_rules(obj, policy).findings]


def allocatable(resources: dict[str, Any]) -> dict[str, Any]:
    return slice_with(device("d", capacity={"mem": "1Gi"}, nodeAllocatableResources=resources))


@pytest.mark.parametrize(("ops", "expected"), [
    (["NodePrepareResources", "NodeUnprepareResources"], []),
    (["NodePrepareResources", "*"], []),
    (["NodeUnprepareResources"], []),
    (["NodePrepareResources"], [(SKIP, "spec.skipNodeOperations",
                                 'Invalid value: ["NodePrepareResources"]: NodePrepareResources cannot be skipped '
                                 "unless NodeUnprepareResources is also skipped")]),
    (["*", "Bogus", "Bogus"], [
        (SKIP, "spec.skipNodeOperations[1]", f'Unsupported value: "Bogus": {SUPPORTED}'),
        (SKIP, "spec.skipNodeOperations[2]", 'Duplicate value: "Bogus"'),
        (SKIP, "spec.skipNodeOperations[2]", f'Unsupported value: "Bogus": {SUPPORTED}')]),
])
def test_skip_node_operations(ops: list[str], expected: list[tuple[str, str, str]]) -> None:
    assert findings(slice_with(device("d"), skipNodeOperations=ops)) == expected


def test_partition_type_needs_devices_that_consume_counters() -> None:
    assert findings(slice_with(device("d"), partitionTypeAttribute="gpu.example.com/partition")) == [
        ("k8s-partition-type-attribute", "spec.partitionTypeAttribute",
         'Invalid value: "gpu.example.com/partition": may only be set on a slice which declares devices that '
         "consume counters")]


@pytest.mark.parametrize(("resources", "expected"), [
    ({"cpu": {}}, [(ALLOC, f"{NAR}[cpu]", "Required value: at least one of mapping or overhead must be set")]),
    ({"gpu": {"overhead": {"perPod": "1"}}}, [
        (ALLOC, f"{NAR}[gpu]", 'Invalid value: "gpu": must be a node allocatable resource name')]),
    ({"hugepages-2Mi": {"overhead": {"perPod": "0", "perContainer": "1"}}}, []),
    ({"memory": {"overhead": {"perPod": "-1"}}}, [
        (ALLOC, f"{NAR}[memory].overhead.perPod", 'Invalid value: "-1": must be non-negative')]),
    ({"memory": {"overhead": {"perContainer": "-2"}}}, [
        (ALLOC, f"{NAR}[memory].overhead.perContainer", 'Invalid value: "-2": must be non-negative')]),
    ({"memory": {"overhead": {}}}, [
        (ALLOC, f"{NAR}[memory].overhead", 'Invalid value: "": at least one of perPod or perContainer must be set')]),
    ({"memory": {"mapping": {"capacityKey": "mem", "capacityMultiplier": "1"}}}, []),
    ({"memory": {"mapping": {"capacityKey": "nope"}}}, [
        (ALLOC, f"{NAR}[memory].mapping.capacityKey", 'Not found: "nope"'),
        (ALLOC, f"{NAR}[memory].mapping.capacityMultiplier",
         "Required value: capacityMultiplier is required when capacityKey is set")]),
    ({"memory": {"mapping": {"capacityKey": "", "capacityMultiplier": "1"}}}, [
        (ALLOC, f"{NAR}[memory].mapping.capacityKey", 'Invalid value: "": capacityKey must not be an empty string')]),
    ({"memory": {"mapping": {"capacityMultiplier": "2"}}}, [  # no union member: declarative validation's union
        (ALLOC, f"{NAR}[memory].mapping", 'Invalid value: "": must specify one of: `capacityKey`, `deviceMultiplier`'),
        (ALLOC, f"{NAR}[memory].mapping.capacityKey",
         "Required value: capacityKey is required when capacityMultiplier is set")]),
    ({"memory": {"mapping": {"capacityKey": "mem", "capacityMultiplier": "0"}}}, [
        (ALLOC, f"{NAR}[memory].mapping.capacityMultiplier", 'Invalid value: "0": must be positive')]),
    ({"memory": {"mapping": {"deviceMultiplier": "0"}}}, [
        (ALLOC, f"{NAR}[memory].mapping.deviceMultiplier", 'Invalid value: "0": must be positive')]),
    ({"memory": {"mapping": {"deviceMultiplier": "1"}}}, []),
])
def test_node_allocatable_resources(resources: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert findings(allocatable(resources)) == expected


@pytest.mark.parametrize(("mappings", "expected"), [
    ({"cpu": {}}, [(ALLOC, f"{NARM}[cpu]",
                    "Required value: at least one of allocationMultiplier or capacityKey must be set")]),
    ({"memory": {"capacityKey": "nope", "allocationMultiplier": "0"}}, [
        (ALLOC, f"{NARM}[memory].allocationMultiplier", 'Invalid value: "0": must be positive'),
        (ALLOC, f"{NARM}[memory].capacityKey", 'Not found: "nope"')]),
    ({"hugepages-1Gi": {"capacityKey": "mem"}}, []),
    ({"memory": {"allocationMultiplier": "1"}}, []),
    ({"gpu": {"allocationMultiplier": "1"}}, [
        (ALLOC, f"{NARM}[gpu]", 'Invalid value: "gpu": must be a node allocatable resource name')]),
])
def test_node_allocatable_mappings_of_1_36(mappings: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    obj = slice_with(device("d", capacity={"mem": "1Gi"}, nodeAllocatableResourceMappings=mappings))
    assert findings(obj, V136) == expected
