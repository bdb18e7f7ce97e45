"""Every limit the ResourceSlice rules mirror, at limit - 1, at the limit and at limit + 1, through the rule runner.

At limit - 1 and at the limit the object is clean (no finding from any rule); at limit + 1 the exact findings
(rule, path, message) the API server's validation gives. Each row names the upstream constant it mirrors:
  validation.go = k8s.io/apimachinery/pkg/util/validation/validation.go
  types.go      = k8s.io/api/resource/v1/types.go (and pkg/apis/resource/types.go, the same values)
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from webhook.policy import Policy
from webhook.run import run_rules

Obj = dict[str, Any]


def base() -> Obj:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "slice"},
        "spec": {"driver": "gpu.example.com", "nodeName": "node", "pool": {"name": "pool", "resourceSliceCount": 1},
                 "devices": [{"name": "dev-0"}]},
    }


def with_(change: Callable[[Obj], None]) -> Obj:
    obj = base()
    change(obj)
    return obj


def device(obj: Obj) -> Obj:
    first: Obj = obj["spec"]["devices"][0]
    return first


def findings(obj: Obj) -> list[tuple[str, str, str]]:
    outcome = run_rules(obj, Policy.default())
    return sorted((f.rule, str(f.path), f.message) for f in outcome.findings)


def chars(n: int, unit: str = "a") -> str:
    return unit * n


def subdomain(n: int) -> str:
    """A DNS-1123 subdomain of exactly n characters: 63-character labels, never an empty one."""
    labels, left = [], n
    while left > 0:
        take = min(63, left)
        if left - take == 1:
            take -= 1
        labels.append("a" * take)
        left -= take + 1
    name = ".".join(labels)
    assert len(name) == n
    return name


def ints(n: int) -> dict[str, list[int]]:
    return {"ints": list(range(n))}


@dataclass(frozen=True)
class Limit:
    name: str
    upstream: str
    limit: int
    build: Callable[[int], Obj]
    over: Callable[[int], list[tuple[str, str, str]]]  # findings at n = limit + 1


def _set_device(**fields: Callable[[int], Any]) -> Callable[[int], Obj]:
    def build(n: int) -> Obj:
        return with_(lambda o: device(o).update({k: f(n) for k, f in fields.items()}))
    return build


def _devices(n: int, **fields: Any) -> Obj:
    return with_(lambda o: o["spec"].update(devices=[{"name": f"dev-{i}", **copy.deepcopy(fields)} for i in range(n)]))


def _shared_counters(sets: list[Obj]) -> Obj:
    """A slice that publishes counter sets only (`devices` and `sharedCounters` are exclusive)."""
    obj = base()
    del obj["spec"]["devices"]
    obj["spec"]["sharedCounters"] = sets
    return obj


TAINT = {"key": "example.com/t", "effect": "NoSchedule"}
LABEL_MSG = "must be no more than {} characters"  # DNS names (IsDNS1123Label/Subdomain)
LABEL_BYTES_MSG = "must be no more than {} bytes"  # label keys and values: apimachinery since 1.35 (1.34: characters)
D0 = "spec.devices[0]"

LIMITS = [
    Limit("device name", "validation.go DNS1123LabelMaxLength", 63,
          _set_device(name=chars),
          lambda n: [("k8s-device-name", f"{D0}.name",
                      f'Invalid value: "{chars(n)}": {LABEL_MSG.format(63)}')]),
    Limit("metadata.name", "validation.go DNS1123SubdomainMaxLength (NameIsDNSSubdomain)", 253,
          lambda n: with_(lambda o: o["metadata"].update(name=subdomain(n))),
          lambda n: [("k8s-object-meta", "metadata.name",
                      f'Invalid value: "{subdomain(n)}": {LABEL_MSG.format(253)}')]),
    Limit("spec.nodeName", "validation.go DNS1123SubdomainMaxLength (ValidateNodeName)", 253,
          lambda n: with_(lambda o: o["spec"].update(nodeName=subdomain(n))),
          lambda n: [("k8s-node-selection", "spec.nodeName",
                      f'Invalid value: "{subdomain(n)}": {LABEL_MSG.format(253)}')]),
    Limit("label value", "validation.go LabelValueMaxLength", 63,
          lambda n: with_(lambda o: o["metadata"].update(labels={"k": chars(n)})),
          lambda n: [("k8s-object-meta", "metadata.labels",
                     f'Invalid value: "{chars(n)}": {LABEL_BYTES_MSG.format(63)}')]),
    Limit("label key name part", "validation.go qualifiedNameMaxLength", 63,
          lambda n: with_(lambda o: o["metadata"].update(labels={chars(n): "v"})),
          lambda n: [("k8s-object-meta", "metadata.labels",
                      f'Invalid value: "{chars(n)}": name part {LABEL_BYTES_MSG.format(63)}')]),
    Limit("label key prefix", "validation.go DNS1123SubdomainMaxLength (IsQualifiedName prefix)", 253,
          lambda n: with_(lambda o: o["metadata"].update(labels={subdomain(n) + "/k": "v"})),
          lambda n: [("k8s-object-meta", "metadata.labels",
                      f'Invalid value: "{subdomain(n)}/k": prefix part {LABEL_BYTES_MSG.format(253)}')]),
    Limit("driver", "types.go DriverNameMaxLength", 63,
          lambda n: with_(lambda o: o["spec"].update(driver=subdomain(n))),
          lambda n: [("k8s-driver", "spec.driver", "Too long: may not be more than 63 bytes")]),
    Limit("pool name", "types.go PoolNameMaxLength", 253,
          lambda n: with_(lambda o: o["spec"]["pool"].update(name=subdomain(n))),
          lambda n: [("k8s-pool", "spec.pool.name", "Too long: may not be more than 253 bytes"),
                     ("k8s-pool", "spec.pool.name", f'Invalid value: "{subdomain(n)}": {LABEL_MSG.format(253)}')]),
    Limit("pool name with parts", "types.go PoolNameMaxLength (the whole name; each part is a subdomain)", 253,
          lambda n: with_(lambda o: o["spec"]["pool"].update(name="p/" + subdomain(n - 2))),
          lambda n: [("k8s-pool", "spec.pool.name", "Too long: may not be more than 253 bytes")]),
    Limit("attribute id", "types.go DeviceMaxIDLength", 32,
          _set_device(attributes=lambda n: {"example.com/" + chars(n, "i"): {"int": 1}}),
          lambda n: [("k8s-qualified-name", f"{D0}.attributes", "Too long: may not be more than 32 bytes")]),
    Limit("attribute domain", "types.go DeviceMaxDomainLength", 63,
          _set_device(attributes=lambda n: {subdomain(n) + "/id": {"int": 1}}),
          lambda n: [("k8s-qualified-name", f"{D0}.attributes", "Too long: may not be more than 63 bytes")]),
    Limit("string attribute bytes", "types.go DeviceAttributeMaxValueLength", 64,
          _set_device(attributes=lambda n: {"s": {"string": chars(n)}}),
          lambda n: [("k8s-attribute-value", f"{D0}.attributes[s].string", "Too long: may not be more than 64 bytes")]),
    Limit("string attribute bytes (multi-byte)", "types.go DeviceAttributeMaxValueLength (bytes, not runes)", 64,
          _set_device(attributes=lambda n: {"s": {"string": "é" * (n // 2) + "a" * (n % 2)}}),
          lambda n: [("k8s-attribute-value", f"{D0}.attributes[s].string", "Too long: may not be more than 64 bytes")]),
    Limit("version attribute bytes", "types.go DeviceAttributeMaxValueLength", 64,
          _set_device(attributes=lambda n: {"v": {"version": "1.0.0-" + chars(n - 6)}}),
          lambda n: [("k8s-attribute-value", f"{D0}.attributes[v].version",
                      "Too long: may not be more than 64 bytes")]),
    Limit("attributes + capacities per device", "types.go ResourceSliceMaxAttributesAndCapacitiesPerDevice", 32,
          _set_device(attributes=lambda n: {f"a{i}": {"int": i} for i in range(n - 1)},
                      capacity=lambda n: {"mem": {"value": "1Gi"}}),
          lambda n: [("k8s-attribute-limits", D0, f"Invalid value: {n}: the total number of attributes and "
                      "capacities must not exceed 32")]),
    Limit("attribute values per device", "types.go ResourceSliceMaxAttributeValuesPerDevice", 48,
          _set_device(attributes=lambda n: {"l": ints(n - 1), "s": {"int": 1}}),
          lambda n: [("k8s-attribute-limits", D0, f"Invalid value: {n}: the total number of attribute values "
                      "must not exceed 48")]),
    Limit("devices per slice", "types.go ResourceSliceMaxDevices", 128,
          _devices,
          lambda n: [("k8s-device-count", "spec.devices", f"Too many: {n}: must have at most 128 items")]),
    Limit("devices per slice with taints", "types.go ResourceSliceMaxDevicesWithAdvancedFeatures", 64,
          lambda n: _devices(n, taints=[TAINT]),
          lambda n: [("k8s-device-count", "spec.devices", f"Too many: {n}: must have at most 64 items")]),
    Limit("devices per slice with list attributes", "types.go ResourceSliceMaxDevicesWithAdvancedFeatures", 64,
          lambda n: _devices(n, attributes={"l": {"ints": [0, 1]}}),
          lambda n: [("k8s-device-count", "spec.devices", f"Too many: {n}: must have at most 64 items")]),
    Limit("taints per device", "types.go DeviceTaintsMaxLength", 16,
          _set_device(taints=lambda n: [{"key": f"example.com/t{i}", "effect": "NoSchedule"} for i in range(n)]),
          lambda n: [("k8s-taints", f"{D0}.taints", f"Too many: {n}: must have at most 16 items")]),
    Limit("taint value", "validation.go LabelValueMaxLength", 63,
          _set_device(taints=lambda n: [{"key": "example.com/t", "value": chars(n), "effect": "NoSchedule"}]),
          lambda n: [("k8s-taints", f"{D0}.taints[0].value",
                      f'Invalid value: "{chars(n)}": {LABEL_BYTES_MSG.format(63)}')]),
    Limit("bindingConditions", "types.go BindingConditionsMaxSize", 4,
          _set_device(bindingConditions=lambda n: [f"c{i}" for i in range(n)],
                      bindingFailureConditions=lambda n: ["f"]),
          lambda n: [("k8s-binding-conditions", f"{D0}.bindingConditions",
                      f"Too many: {n}: must have at most 4 items")]),
    Limit("bindingFailureConditions", "types.go BindingFailureConditionsMaxSize", 4,
          _set_device(bindingConditions=lambda n: ["c"],
                      bindingFailureConditions=lambda n: [f"f{i}" for i in range(n)]),
          lambda n: [("k8s-binding-conditions", f"{D0}.bindingFailureConditions",
                      f"Too many: {n}: must have at most 4 items")]),
    Limit("sharedCounters sets", "types.go ResourceSliceMaxCounterSets", 8,
          lambda n: _shared_counters([{"name": f"s{i}", "counters": {"c": {"value": "1"}}} for i in range(n)]),
          lambda n: [("k8s-counters", "spec.sharedCounters", f"Too many: {n}: must have at most 8 items")]),
    Limit("counters per set", "types.go ResourceSliceMaxCountersPerCounterSet", 32,
          lambda n: _shared_counters([{"name": "s", "counters": {f"c{i}": {"value": "1"} for i in range(n)}}]),
          lambda n: [("k8s-counters", "spec.sharedCounters[0].counters",
                      f"Too many: {n}: must have at most 32 items")]),
    Limit("consumesCounters per device", "types.go ResourceSliceMaxDeviceCounterConsumptionsPerDevice", 2,
          _set_device(consumesCounters=lambda n: [{"counterSet": f"s{i}", "counters": {"c": {"value": "1"}}}
                                                  for i in range(n)]),
          lambda n: [("k8s-counters", f"{D0}.consumesCounters", f"Too many: {n}: must have at most 2 items")]),
    Limit("counters per consumption", "types.go ResourceSliceMaxCountersPerDeviceCounterConsumption", 32,
          _set_device(consumesCounters=lambda n: [{"counterSet": "s", "counters": {
              f"c{i}": {"value": "1"} for i in range(n)}}]),
          lambda n: [("k8s-counters", f"{D0}.consumesCounters[0].counters",
                      f"Too many: {n}: must have at most 32 items")]),
    Limit("counter name", "validation.go DNS1123LabelMaxLength", 63,
          _set_device(consumesCounters=lambda n: [{"counterSet": chars(n), "counters": {"c": {"value": "1"}}}]),
          lambda n: [("k8s-counters", f"{D0}.consumesCounters[0].counterSet",
                      f'Invalid value: "{chars(n)}": {LABEL_MSG.format(63)}')]),
    Limit("capacity validValues", "types.go CapacityRequestPolicyDiscreteMaxOptions", 10,
          _set_device(allowMultipleAllocations=lambda n: True, capacity=lambda n: {"mem": {
              "value": "100Gi", "requestPolicy": {"default": "1Gi",
                                                  "validValues": [f"{i + 1}Gi" for i in range(n)]}}}),
          # Too many options are not searched for the default, so upstream reports that as well.
          lambda n: [("k8s-capacity", f"{D0}.capacity[mem].requestPolicy.validValues",
                      f"Too many: {n}: must have at most 10 items"),
                     ("k8s-capacity", f"{D0}.capacity[mem].requestPolicy.validValues",
                      'Invalid value: "1Gi": default value is not valid according to the requestPolicy')]),
    Limit("numaNode value", "deviceattribute/numa_linux.go maxNUMANodes (draguard's numa-node-range)", 1024,
          _set_device(attributes=lambda n: {"resource.kubernetes.io/numaNode": {"int": n - 1}}),
          lambda n: [("numa-node-range", f"{D0}.attributes[resource.kubernetes.io/numaNode].int",
                      f"numaNode {n - 1} must be below 1024")]),
]


@pytest.mark.parametrize("limit", LIMITS, ids=lambda lim: lim.name)
@pytest.mark.parametrize("delta", [-1, 0])
def test_at_and_below_the_limit_is_clean(limit: Limit, delta: int) -> None:
    assert findings(limit.build(limit.limit + delta)) == []


@pytest.mark.parametrize("limit", LIMITS, ids=lambda lim: lim.name)
def test_one_past_the_limit_is_the_upstream_error(limit: Limit) -> None:
    n = limit.limit + 1
    assert findings(limit.build(n)) == sorted(limit.over(n))
