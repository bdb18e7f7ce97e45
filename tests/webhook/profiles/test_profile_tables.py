"""The same object under different Kubernetes releases and feature gates: accepted by one, refused by another,
exactly where upstream differs (one case per DRA gate and per field a release adds)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import device, slice_with
from tests.webhook.profiles.conftest import Row, run

DEV0 = "spec.devices[0]"
STEP = f"{DEV0}.capacity[mem].requestPolicy.validRange.step"
NOT_MULTIPLE = 'Invalid value: "3": value is not a multiple of a given step (1500m) from (0)'
REGEX = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
         "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
         "(e.g. 'example.com/MyName')")


def gate_off(path: str, gate: str, where: str) -> Row:
    return ("k8s-feature-gate", "warn", path, f"the API server drops this field: feature gate {gate} ({where})")


def requested(capacity: str, policy: dict[str, Any]) -> dict[str, Any]:
    return slice_with(device("d0", allowMultipleAllocations=True,
                             capacity={"mem": {"value": capacity, "requestPolicy": policy}}))


COUNTERS = [{"counterSet": "s", "counters": {"c": {"value": "1"}}}]
PER_DEVICE = slice_with(device("d0", nodeName="n1"), node_name=None, perDeviceNodeSelection=True)
TAINTS_5 = slice_with(device("d0", taints=[{"key": f"k{i}", "effect": "NoSchedule"} for i in range(5)]))
BINDING = slice_with(device("d0", bindsToNode=True, bindingConditions=["ready"], bindingFailureConditions=["failed"]))
STEP_1500M = requested("4", {"default": "3", "validRange": {"min": "0", "step": "1500m"}})
STEP_MICRO = requested("4", {"default": "1", "validRange": {"min": "0", "step": "0.0005"}})
VALUES_HALF = requested("4", {"default": "1", "validValues": ["500m", "1"]})
ALLOCATABLE = slice_with(device("d0", capacity={"mem": "8Gi"}, nodeAllocatableResources={
    "nvidia.com/gpu": {"mapping": {"capacityKey": "mem"}}, "memory": {}}))
MAPPINGS_136 = slice_with(device("d0", capacity={"mem": "8Gi"}, nodeAllocatableResourceMappings={
    "nvidia.com/gpu": {}, "memory": {"capacityKey": "gone", "allocationMultiplier": "0"}}))
PARTITIONED = slice_with(device("d0", consumesCounters=COUNTERS, attributes={"profile": 3}),
                         device("d1", consumesCounters=COUNTERS), partitionTypeAttribute="gpu.example.com/profile")
SKIP_PREPARE = slice_with(skipNodeOperations=["NodePrepareResources"])
LISTS = slice_with(device("d0", attributes={"gpu.example.com/ids": [1, 2]}))
SLASHES = slice_with(device("d0", taints=[{"key": "a/b/c", "effect": "NoSchedule"}]))


def claim(*requests: dict[str, Any], version: str = "v1", constraints: tuple[dict[str, Any], ...] = (),
          kind: str = "ResourceClaim") -> dict[str, Any]:
    spec: dict[str, Any] = {"devices": {"requests": list(requests), "constraints": list(constraints)}}
    if kind == "ResourceClaimTemplate":
        spec = {"spec": spec}
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": kind, "metadata": {"name": "c", "namespace": "n"},
            "spec": spec}


TOLERATE = [{"key": "k", "operator": "Exists"}]
EXACT = {"deviceClassName": "gpu"}
ALTERNATIVES = claim({"name": "r", "firstAvailable": [{"name": "a", **EXACT, "tolerations": TOLERATE},
                                                      {"name": "b", **EXACT, "capacity": {"requests": {"m": "1Gi"}}}]})
TOLERATING = claim({"name": "r", "exactly": {**EXACT, "tolerations": TOLERATE}},
                   {"name": "s", "firstAvailable": [{"name": "a", **EXACT, "tolerations": TOLERATE}]})
ADMIN = claim({"name": "r", "exactly": {**EXACT, "adminAccess": True}})
ADMIN_V1BETA1 = claim({"name": "r", **EXACT, "adminAccess": False}, version="v1beta1")
CONSUMING = claim({"name": "r", "exactly": {**EXACT, "capacity": {"requests": {"m": "1Gi"}}}},
                  constraints=({"requests": ["r"], "distinctAttribute": "gpu.example.com/id"},),
                  kind="ResourceClaimTemplate")
EXTENDED = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
            "spec": {"extendedResourceName": "example.com/gpu"}}

CASES: list[tuple[str, dict[str, Any], str, dict[str, bool], list[Row]]] = [
    # DRAPartitionableDevices: alpha/off in 1.35 drops per-device node selection, leaving none at all.
    ("partitionable-1.35", PER_DEVICE, "1.35", {}, [
        gate_off(f"{DEV0}.nodeName", "DRAPartitionableDevices", "alpha in Kubernetes 1.35, off by default; "
                 "this cluster: off"),
        ("k8s-node-selection", "deny", "spec", "Required value: exactly one of `nodeName`, `nodeSelector`, "
         "`allNodes`, `perDeviceNodeSelection` is required"),
        gate_off("spec.perDeviceNodeSelection", "DRAPartitionableDevices", "alpha in Kubernetes 1.35, off by "
                 "default; this cluster: off"),
    ]),
    ("partitionable-1.35-gate-on", PER_DEVICE, "1.35", {"DRAPartitionableDevices": True}, []),
    ("partitionable-1.36", PER_DEVICE, "1.36", {}, []),
    # DRADeviceTaints: at most 4 taints in 1.34 (gate on), 16 from 1.35; dropped while the gate is off.
    ("taints-1.34", TAINTS_5, "1.34", {"DRADeviceTaints": True},
     [("k8s-taints", "deny", f"{DEV0}.taints", "Too many: 5: must have at most 4 items")]),
    ("taints-1.35", TAINTS_5, "1.35", {"DRADeviceTaints": True}, []),
    ("taints-off-1.35", TAINTS_5, "1.35", {}, [
        gate_off(f"{DEV0}.taints", "DRADeviceTaints", "alpha in Kubernetes 1.35, off by default; this cluster: off")]),
    ("taints-off-1.37", TAINTS_5, "1.37", {"DRADeviceTaints": False}, [
        gate_off(f"{DEV0}.taints", "DRADeviceTaints", "GA in Kubernetes 1.37, on by default; this cluster: off")]),
    # DRADeviceBindingConditions and DRAResourceClaimDeviceStatus guard the binding fields together.
    ("binding-1.35", BINDING, "1.35", {}, [
        gate_off(f"{DEV0}.{f}", "DRADeviceBindingConditions", "alpha in Kubernetes 1.35, off by default; "
                 "this cluster: off") for f in ("bindingConditions", "bindingFailureConditions", "bindsToNode")]),
    ("binding-1.36", BINDING, "1.36", {}, []),
    ("binding-status-off-1.36", BINDING, "1.36", {"DRAResourceClaimDeviceStatus": False}, [
        gate_off(f"{DEV0}.{f}", "DRAResourceClaimDeviceStatus", "beta in Kubernetes 1.36, on by default; "
                 "this cluster: off") for f in ("bindingConditions", "bindingFailureConditions", "bindsToNode")]),
    # DRAConsumableCapacity: alpha/off in 1.35.
    ("consumable-1.35", STEP_1500M, "1.35", {}, [
        gate_off(f"{DEV0}.allowMultipleAllocations", "DRAConsumableCapacity", "alpha in Kubernetes 1.35, off by "
                 "default; this cluster: off"),
        gate_off(f"{DEV0}.capacity[mem].requestPolicy", "DRAConsumableCapacity", "alpha in Kubernetes 1.35, off by "
                 "default; this cluster: off"),
    ]),
    # DRAFractionalCapacityRange (1.37): milli-unit steps; before, Value() rounds 1500m up to 2.
    ("fractional-1.37", STEP_1500M, "1.37", {}, []),
    ("fractional-1.36", STEP_1500M, "1.36", {}, [
        ("k8s-capacity", "deny", STEP, NOT_MULTIPLE)]),
    ("fractional-off-1.37", STEP_1500M, "1.37", {"DRAFractionalCapacityRange": False}, [
        ("k8s-capacity", "deny", STEP, NOT_MULTIPLE)]),
    ("fractional-micro-1.37", STEP_MICRO, "1.37", {}, [
        ("k8s-capacity", "deny", STEP, 'Invalid value: "500u": value cannot be represented as a milli value')]),
    ("fractional-micro-1.36", STEP_MICRO, "1.36", {}, []),
    ("fractional-values-1.37", VALUES_HALF, "1.37", {}, []),
    ("fractional-values-1.36", VALUES_HALF, "1.36", {}, [
        ("k8s-capacity", "deny", f"{DEV0}.capacity[mem].requestPolicy.validValues[1]", 'Duplicate value: "1"')]),
    # DRAListTypeAttributes: no list attributes before 1.36; alpha/off after (draguard's default policy: on).
    ("lists-1.35", LISTS, "1.35", {}, [("k8s-attribute-union", "deny", f"{DEV0}.attributes[gpu.example.com/ids]",
                                       'Invalid value: "": exactly one value must be specified'),
                                      ("k8s-unknown-field", "warn", f"{DEV0}.attributes[gpu.example.com/ids].ints",
                                       f'unknown field "{DEV0}.attributes[gpu.example.com/ids].ints"')]),
    ("lists-off-1.36", LISTS, "1.36", {"DRAListTypeAttributes": False}, [
        ("k8s-attribute-union", "deny", f"{DEV0}.attributes[gpu.example.com/ids]",
         'Invalid value: "": exactly one value must be specified'),
        gate_off(f"{DEV0}.attributes[gpu.example.com/ids].ints", "DRAListTypeAttributes",
                 "alpha in Kubernetes 1.36, off by default; this cluster: off")]),
    ("lists-on-1.36", LISTS, "1.36", {"DRAListTypeAttributes": True}, []),
    # DRANodeAllocatableResources: 1.37's nodeAllocatableResources replaces 1.36's nodeAllocatableResourceMappings.
    ("allocatable-1.37", ALLOCATABLE, "1.37", {"DRANodeAllocatableResources": True}, [
        ("k8s-node-allocatable-resources", "deny", f"{DEV0}.nodeAllocatableResources[memory]",
         "Required value: at least one of mapping or overhead must be set"),
        ("k8s-node-allocatable-resources", "deny", f"{DEV0}.nodeAllocatableResources[nvidia.com/gpu]",
         'Invalid value: "nvidia.com/gpu": must be a node allocatable resource name'),
        ("k8s-node-allocatable-resources", "deny",
         f"{DEV0}.nodeAllocatableResources[nvidia.com/gpu].mapping.capacityMultiplier",
         "Required value: capacityMultiplier is required when capacityKey is set"),
    ]),
    ("allocatable-off-1.37", ALLOCATABLE, "1.37", {}, [
        gate_off(f"{DEV0}.nodeAllocatableResources", "DRANodeAllocatableResources", "alpha in Kubernetes 1.37, off by "
                 "default; this cluster: off")]),
    ("allocatable-1.36", ALLOCATABLE, "1.36", {"DRANodeAllocatableResources": True}, [
        ("k8s-unknown-field", "warn", f"{DEV0}.nodeAllocatableResources",
         f'unknown field "{DEV0}.nodeAllocatableResources"')]),
    ("mappings-1.36", MAPPINGS_136, "1.36", {"DRANodeAllocatableResources": True}, [
        ("k8s-node-allocatable-resources", "deny",
         f"{DEV0}.nodeAllocatableResourceMappings[memory].allocationMultiplier",
         'Invalid value: "0": must be positive'),
        ("k8s-node-allocatable-resources", "deny", f"{DEV0}.nodeAllocatableResourceMappings[memory].capacityKey",
         'Not found: "gone"'),
        ("k8s-node-allocatable-resources", "deny", f"{DEV0}.nodeAllocatableResourceMappings[nvidia.com/gpu]",
         'Invalid value: "nvidia.com/gpu": must be a node allocatable resource name'),
        ("k8s-node-allocatable-resources", "deny", f"{DEV0}.nodeAllocatableResourceMappings[nvidia.com/gpu]",
         "Required value: at least one of allocationMultiplier or capacityKey must be set"),
    ]),
    ("mappings-1.37", MAPPINGS_136, "1.37", {"DRANodeAllocatableResources": True}, [
        ("k8s-unknown-field", "warn", f"{DEV0}.nodeAllocatableResourceMappings",
         f'unknown field "{DEV0}.nodeAllocatableResourceMappings"')]),
    # DRAPartitionableDevicesType (1.37): spec.partitionTypeAttribute.
    ("partition-type-1.37", PARTITIONED, "1.37", {"DRAPartitionableDevicesType": True}, [
        ("k8s-partition-type-attribute", "deny", f"{DEV0}.attributes[gpu.example.com/profile]",
         'Invalid value: {"int":3}: must be a string value because `partitionTypeAttribute` names this attribute'),
        ("k8s-partition-type-attribute", "deny", "spec.devices[1].attributes[gpu.example.com/profile]",
         "Required value: device consumes counters and `partitionTypeAttribute` names this attribute, so it must "
         "be set"),
    ]),
    ("partition-type-off-1.37", PARTITIONED, "1.37", {}, [
        gate_off("spec.partitionTypeAttribute", "DRAPartitionableDevicesType", "alpha in Kubernetes 1.37, off by "
                 "default; this cluster: off")]),
    ("partition-type-1.36", PARTITIONED, "1.36", {}, [
        ("k8s-unknown-field", "warn", "spec.partitionTypeAttribute", 'unknown field "spec.partitionTypeAttribute"')]),
    # DRAOptionalNodeOperations (1.37): spec.skipNodeOperations.
    ("skip-1.37", SKIP_PREPARE, "1.37", {"DRAOptionalNodeOperations": True}, [
        ("k8s-skip-node-operations", "deny", "spec.skipNodeOperations", 'Invalid value: ["NodePrepareResources"]: '
         "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped")]),
    ("skip-off-1.37", SKIP_PREPARE, "1.37", {}, [
        gate_off("spec.skipNodeOperations", "DRAOptionalNodeOperations", "alpha in Kubernetes 1.37, off by default; "
                 "this cluster: off")]),
    ("skip-1.36", SKIP_PREPARE, "1.36", {}, [
        ("k8s-unknown-field", "warn", "spec.skipNodeOperations", 'unknown field "spec.skipNodeOperations"')]),
    # The claim side (resourceclaimspec.DropDisabledFields): DRAPrioritizedList drops firstAvailable, with
    # whatever its entries set (here tolerations and capacity, whose gates are off in 1.35 too).
    ("prioritized-list-off-1.35", ALTERNATIVES, "1.35", {"DRAPrioritizedList": False}, [
        gate_off("spec.devices.requests[0].firstAvailable", "DRAPrioritizedList", "beta in Kubernetes 1.35, on by "
                 "default; this cluster: off")]),
    ("prioritized-list-off-1.36", ALTERNATIVES, "1.36", {"DRAPrioritizedList": False}, [
        gate_off("spec.devices.requests[0].firstAvailable", "DRAPrioritizedList", "GA in Kubernetes 1.36, on by "
                 "default; this cluster: off")]),
    ("prioritized-list-1.34", ALTERNATIVES, "1.34", {"DRADeviceTaints": True, "DRAConsumableCapacity": True}, []),
    # DRADeviceTaints: tolerations of an exact request and of each firstAvailable entry.
    ("tolerations-off-1.35", TOLERATING, "1.35", {}, [
        gate_off(f"spec.devices.requests[{i}].{where}.tolerations", "DRADeviceTaints", "alpha in Kubernetes 1.35, "
                 "off by default; this cluster: off") for i, where in ((0, "exactly"), (1, "firstAvailable[0]"))]),
    ("tolerations-1.36", TOLERATING, "1.36", {}, []),
    # DRAAdminAccess: an exact request's adminAccess (on the request itself in v1beta1), false included.
    ("admin-access-off-1.35", ADMIN, "1.35", {"DRAAdminAccess": False}, [
        gate_off("spec.devices.requests[0].exactly.adminAccess", "DRAAdminAccess", "beta in Kubernetes 1.35, on by "
                 "default; this cluster: off")]),
    ("admin-access-off-v1beta1", ADMIN_V1BETA1, "1.34", {"DRAAdminAccess": False}, [
        gate_off("spec.devices.requests[0].adminAccess", "DRAAdminAccess", "beta in Kubernetes 1.34, on by "
                 "default; this cluster: off")]),
    ("admin-access-1.34", ADMIN, "1.34", {}, []),
    # DRAConsumableCapacity: a request's capacity and a constraint's distinctAttribute (here in a template).
    ("consumable-off-1.35", CONSUMING, "1.35", {}, [
        gate_off(f"spec.spec.devices.{where}", "DRAConsumableCapacity", "alpha in Kubernetes 1.35, off by default; "
                 "this cluster: off")
        for where in ("requests[0].exactly.capacity", "constraints[0].distinctAttribute")]),
    ("consumable-1.36", CONSUMING, "1.36", {}, []),
    # DRAExtendedResource: a DeviceClass's extendedResourceName.
    ("extended-resource-off-1.35", EXTENDED, "1.35", {}, [
        gate_off("spec.extendedResourceName", "DRAExtendedResource", "alpha in Kubernetes 1.35, off by default; "
                 "this cluster: off")]),
    ("extended-resource-1.36", EXTENDED, "1.36", {}, []),
    # apimachinery 0.35 moved label keys to api/validate/content: "a valid label key" instead of "a qualified name".
    ("label-key-1.34", SLASHES, "1.34", {"DRADeviceTaints": True}, [
        ("k8s-taints", "deny", f"{DEV0}.taints[0].key", f'Invalid value: "a/b/c": a qualified name {REGEX}')]),
    ("label-key-1.35", SLASHES, "1.35", {"DRADeviceTaints": True}, [
        ("k8s-taints", "deny", f"{DEV0}.taints[0].key", f'Invalid value: "a/b/c": a valid label key {REGEX}')]),
]


@pytest.mark.parametrize(("obj", "version", "gates", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_profile_table(obj: dict[str, Any], version: str, gates: dict[str, bool], expected: list[Row]) -> None:
    assert run(obj, version, gates) == sorted(expected)


def test_every_gate_and_new_field_has_a_case() -> None:
    from webhook.profiles import load_profile

    gates = set(load_profile("1.37").gate_specs) | set(load_profile("1.36").gate_specs)
    covered = {g for c in CASES for g in c[3]} | {r[3].split("feature gate ")[1].split(" ")[0]
                                                  for c in CASES for r in c[4] if r[0] == "k8s-feature-gate"}
    # DRADeviceCompatibilityGroups guards consumesCounters[].compatibilityGroups, not in the merged API (docs/rules.md).
    assert gates - covered == {"DRADeviceCompatibilityGroups"}


def test_a_field_the_old_object_used_is_kept_while_its_gate_is_off() -> None:
    # dropDisabledFields keeps a disabled feature's fields on update when the stored object already had them.
    assert run(PER_DEVICE, "1.35", old=PER_DEVICE) == []
    assert run(TAINTS_5, "1.35", old=TAINTS_5) == []
    assert run(TOLERATING, "1.35", old=TOLERATING) == []
    assert run(EXTENDED, "1.35", old=EXTENDED) == []
    assert run(ADMIN, "1.35", {"DRAAdminAccess": False}, old=ADMIN_V1BETA1) == []  # adminAccess: false is in use


def test_an_old_claim_keeps_only_the_features_it_used() -> None:
    # The stored claim used DRADeviceTaints (a toleration), not DRAConsumableCapacity: an empty tolerations list or
    # a null capacity would not have kept either.
    old = claim({"name": "r", "exactly": {**EXACT, "tolerations": TOLERATE, "capacity": None}})
    new = claim({"name": "r", "exactly": {**EXACT, "tolerations": TOLERATE, "capacity": {"requests": {"m": "1"}}}})
    where = "alpha in Kubernetes 1.35, off by default; this cluster: off"
    assert run(new, "1.35", old=old) == [
        gate_off("spec.devices.requests[0].exactly.capacity", "DRAConsumableCapacity", where)]
    emptied = claim({"name": "r", "exactly": {**EXACT, "tolerations": []}})
    assert run(new, "1.35", old=emptied) == sorted([
        gate_off("spec.devices.requests[0].exactly.capacity", "DRAConsumableCapacity", where),
        gate_off("spec.devices.requests[0].exactly.tolerations", "DRADeviceTaints", where)])


def test_a_dropped_field_that_leaves_the_slice_invalid_is_hinted_with_the_gate() -> None:
    from tests.webhook.profiles.conftest import policy_for
    from webhook.run import run_rules

    selection = [f for f in run_rules(PER_DEVICE, policy_for("1.35")).findings if f.rule == "k8s-node-selection"]
    assert [f.hint for f in selection] == [
        "the API server dropped fields of DRAPartitionableDevices, off in this cluster (Kubernetes 1.35); see the "
        "k8s-feature-gate findings"]


@pytest.mark.parametrize(("version", "path", "hint"), [
    ("1.36", "spec.skipNodeOperations", "Kubernetes 1.36 has no such field (added in 1.37); the API server drops it"),
    ("1.37", f"{DEV0}.nodeAllocatableResourceMappings",
     "Kubernetes 1.37 no longer has this field; the API server drops it"),
])
def test_an_unknown_field_names_the_release(version: str, path: str, hint: str) -> None:
    from tests.webhook.profiles.conftest import policy_for
    from webhook.run import run_rules

    obj = slice_with(skipNodeOperations=["*"]) if "skip" in path else MAPPINGS_136
    found = [f.hint for f in run_rules(obj, policy_for(version)).findings if str(f.path) == path]
    assert found == [hint]
