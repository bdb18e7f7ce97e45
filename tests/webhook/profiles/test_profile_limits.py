"""Each limit a release profile sets, at limit-1, limit and limit+1, per release where releases differ."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import device, slice_with
from tests.webhook.profiles.conftest import run

TAINTS_ON = {"DRADeviceTaints": True}


def taints(n: int) -> list[dict[str, Any]]:
    return [{"key": f"k{i}", "effect": "NoSchedule"} for i in range(n)]


@pytest.mark.parametrize(("version", "limit"), [("1.34", 4), ("1.35", 16), ("1.37", 16)])
@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_taints_per_device(version: str, limit: int, delta: int) -> None:
    found = run(slice_with(device("d0", taints=taints(limit + delta))), version, TAINTS_ON)
    expected = [("k8s-taints", "deny", "spec.devices[0].taints",
                 f"Too many: {limit + 1}: must have at most {limit} items")] if delta > 0 else []
    assert found == expected


@pytest.mark.parametrize(("version", "limit"), [("1.34", None), ("1.35", 64), ("1.37", 64)])
@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_devices_with_taints(version: str, limit: int | None, delta: int) -> None:
    # 1.34 has no lower limit for slices using advanced features: 65 tainted devices pass there.
    count = 64 + delta
    obj = slice_with(*(device(f"d{i}", taints=taints(1)) for i in range(count)))
    expected = [("k8s-device-count", "deny", "spec.devices", f"Too many: {count}: must have at most 64 items")]
    assert run(obj, version, TAINTS_ON) == (expected if limit is not None and delta > 0 else [])


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_attribute_values_only_from_1_36(delta: int) -> None:
    # 48 values: 31 scalar attributes and one list; 1.35 has no list attributes, so no value limit either.
    attrs: dict[str, Any] = {f"a{i}": i for i in range(31)}
    attrs["gpu.example.com/ids"] = list(range(17 + delta))
    obj = slice_with(device("d0", attributes=attrs))
    expected = [("k8s-attribute-limits", "deny", "spec.devices[0]",
                 f"Invalid value: {48 + delta}: the total number of attribute values must not exceed 48")]
    assert run(obj, "1.36", {"DRAListTypeAttributes": True}) == (expected if delta > 0 else [])


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_binding_conditions(delta: int) -> None:
    conditions = [f"c{i}" for i in range(4 + delta)]
    obj = slice_with(device("d0", bindingConditions=conditions, bindingFailureConditions=["failed"]))
    expected = [("k8s-binding-conditions", "deny", "spec.devices[0].bindingConditions",
                 "Too many: 5: must have at most 4 items")]
    assert run(obj, "1.36") == (expected if delta > 0 else [])
    assert run(obj, "1.35") == [
        ("k8s-feature-gate", "warn", f"spec.devices[0].{f}", "the API server drops this field: feature gate "
         "DRADeviceBindingConditions (alpha in Kubernetes 1.35, off by default; this cluster: off)")
        for f in ("bindingConditions", "bindingFailureConditions")]


@pytest.mark.parametrize(("ops", "problems"), [
    (["NodeUnprepareResources"], []),
    (["NodePrepareResources", "NodeUnprepareResources"], []),
    (["NodePrepareResources", "*"], []),
    (["*", "NodePrepareResources", "NodeUnprepareResources"], []),
    (["NodePrepareResources", "NodePrepareResources"], [
        ("spec.skipNodeOperations", 'Invalid value: ["NodePrepareResources","NodePrepareResources"]: '
         "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped"),
        ("spec.skipNodeOperations[1]", 'Duplicate value: "NodePrepareResources"')]),
    (["NodeReleaseResources"], [("spec.skipNodeOperations[0]", 'Unsupported value: "NodeReleaseResources": '
                                 'supported values: "*", "NodePrepareResources", "NodeUnprepareResources"')]),
])
def test_skip_node_operations_set(ops: list[str], problems: list[tuple[str, str]]) -> None:
    found = run(slice_with(skipNodeOperations=ops), "1.37", {"DRAOptionalNodeOperations": True})
    assert found == [("k8s-skip-node-operations", "deny", p, m) for p, m in problems]


@pytest.mark.parametrize(("multiplier", "ok"), [("-1", False), ("0", False), ("1m", True)])
def test_node_allocatable_multipliers_must_be_positive(multiplier: str, ok: bool) -> None:
    obj = slice_with(device("d0", capacity={"mem": "8Gi"}, nodeAllocatableResources={
        "cpu": {"mapping": {"deviceMultiplier": multiplier}},
        "memory": {"mapping": {"capacityKey": "mem", "capacityMultiplier": multiplier}},
        "hugepages-2Mi": {"overhead": {"perPod": multiplier}}}))
    found = run(obj, "1.37", {"DRANodeAllocatableResources": True})
    path = "spec.devices[0].nodeAllocatableResources"
    expected = [
        ("k8s-node-allocatable-resources", "deny", f"{path}[cpu].mapping.deviceMultiplier",
         f'Invalid value: "{multiplier}": must be positive'),
        ("k8s-node-allocatable-resources", "deny", f"{path}[memory].mapping.capacityMultiplier",
         f'Invalid value: "{multiplier}": must be positive'),
    ]
    if multiplier.startswith("-"):  # an overhead may be zero, not negative
        expected.insert(0, ("k8s-node-allocatable-resources", "deny", f"{path}[hugepages-2Mi].overhead.perPod",
                            f'Invalid value: "{multiplier}": must be non-negative'))
    assert found == ([] if ok else sorted(expected))


def test_node_allocatable_overhead_and_mapping_forms() -> None:
    obj = slice_with(device("d0", capacity={"mem": "8Gi"}, nodeAllocatableResources={
        "cpu": {"overhead": {}},
        "memory": {"mapping": {"capacityMultiplier": "1", "capacityKey": ""}},
        "ephemeral-storage": {"mapping": {"capacityMultiplier": "2"}}}))
    path = "spec.devices[0].nodeAllocatableResources"
    assert run(obj, "1.37", {"DRANodeAllocatableResources": True}) == sorted([
        ("k8s-node-allocatable-resources", "deny", f"{path}[cpu].overhead",
         'Invalid value: "": at least one of perPod or perContainer must be set'),
        ("k8s-node-allocatable-resources", "deny", f"{path}[ephemeral-storage].mapping",  # declarative union
         'Invalid value: "": must specify one of: `capacityKey`, `deviceMultiplier`'),
        ("k8s-node-allocatable-resources", "deny", f"{path}[ephemeral-storage].mapping.capacityKey",
         "Required value: capacityKey is required when capacityMultiplier is set"),
        ("k8s-node-allocatable-resources", "deny", f"{path}[memory].mapping.capacityKey",
         'Invalid value: "": capacityKey must not be an empty string'),
    ])


def test_a_limit_of_an_older_release_is_named_in_the_hint() -> None:
    from tests.webhook.profiles.conftest import policy_for
    from webhook.run import run_rules

    found = run_rules(slice_with(device("d0", taints=taints(5))), policy_for("1.34", TAINTS_ON)).findings
    assert [(f.rule, f.hint) for f in found] == [
        ("k8s-taints", "Kubernetes 1.34 allows at most 4 taints per device (1.37: 16)")]
