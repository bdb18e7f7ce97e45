"""Fields an API server drops when their feature gate is off, next to devices and capacities of the wrong type,
on create and on update (a field the old object used is kept), and `field_key`, which names the profile field
an unknown-field finding is about: the findings in full through `run_rules`. Named `test_gates_*` so mutation
testing runs it first on `webhook.rules.k8s.gates`."""

# ruff: noqa: E501

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from tests.webhook.rules.release_cases import RELEASES, findings_of
from tests.webhook.rules.slice_cases import DELETE, Found, changed
from webhook.fieldpath import FieldPath
from webhook.rules.k8s.gates import field_key
from webhook.run import run_rules

CASES = [
    pytest.param({"spec.nodeName": DELETE, "spec.perDeviceNodeSelection": True, "spec.devices[0].nodeName": "n", "spec.devices[0].taints": [{"key": "k", "effect": "NoSchedule"}]}, '1.37 two gates off',
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'the API server dropped fields of DRADeviceTaints, DRAPartitionableDevices, off in this cluster (Kubernetes 1.37); see the k8s-feature-gate findings'), ('k8s-feature-gate', 'spec.devices[0].nodeName', 'the API server drops this field: feature gate DRAPartitionableDevices (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAPartitionableDevices on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevices=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-feature-gate', 'spec.devices[0].taints', 'the API server drops this field: feature gate DRADeviceTaints (GA in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRADeviceTaints on the cluster (kube-apiserver --feature-gates=DRADeviceTaints=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-feature-gate', 'spec.perDeviceNodeSelection', 'the API server drops this field: feature gate DRAPartitionableDevices (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAPartitionableDevices on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevices=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='two gates off, node selection dropped'),
    pytest.param({"spec.devices": [{"name": "dev-0", "taints": [{"key": "k", "effect": "NoSchedule"}]}, 3, {"name": "dev-2", "taints": 5}]}, '1.37 two gates off',
                 [('k8s-feature-gate', 'spec.devices[0].taints', 'the API server drops this field: feature gate DRADeviceTaints (GA in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRADeviceTaints on the cluster (kube-apiserver --feature-gates=DRADeviceTaints=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-wire-type', 'spec.devices[1]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-feature-gate', 'spec.devices[2].taints', 'the API server drops this field: feature gate DRADeviceTaints (GA in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRADeviceTaints on the cluster (kube-apiserver --feature-gates=DRADeviceTaints=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='a dropped field and a device not an object after it'),
    pytest.param({"spec.devices[0].capacity": {"a": {"value": "1", "requestPolicy": {"default": "1"}}, "b": 3}}, '1.34',
                 [('k8s-feature-gate', 'spec.devices[0].capacity[a].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (alpha in Kubernetes 1.34, off by default; this cluster: off)', 'enable DRAConsumableCapacity on the cluster (kube-apiserver --feature-gates=DRAConsumableCapacity=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-wire-type', 'spec.devices[0].capacity[b]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a dropped capacity field next to a capacity not an object'),
    pytest.param({"spec.devices[0].capacity": {"a": {"value": "x", "requestPolicy": {"default": "1"}}}}, '1.34',
                 [('k8s-feature-gate', 'spec.devices[0].capacity[a].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (alpha in Kubernetes 1.34, off by default; this cluster: off)', 'enable DRAConsumableCapacity on the cluster (kube-apiserver --feature-gates=DRAConsumableCapacity=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-wire-type', 'spec.devices[0].capacity[a].value', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a dropped capacity field next to a bad capacity value'),
    pytest.param({"spec.devices[0].capacity": {"b": 3}}, '1.34',
                 [('k8s-wire-type', 'spec.devices[0].capacity[b]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a capacity not an object on 1.34'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_dropped_fields_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert findings_of(changes, version) == expected


_POLICY = {"requestPolicy": {"default": "1"}}


@pytest.mark.parametrize(("old", "expected"), [
    pytest.param({"b": 3}, [('k8s-feature-gate', 'spec.devices[0].capacity[a].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (alpha in Kubernetes 1.34, off by default; this cluster: off)')],
                 id='old capacity not an object: the field is dropped'),
    pytest.param({"b": 3, "a": {"value": "1", **_POLICY}}, [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy', 'Forbidden: allowMultipleAllocations must be true')],
                 id='old object used the field: it is kept and validated'),
])
def test_an_update_keeps_a_field_the_old_object_used(old: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    new = changed({"spec.devices[0].capacity": {"a": {"value": "1", **_POLICY}}})
    outcome = run_rules(new, RELEASES["1.34"], old=changed({"spec.devices[0].capacity": old}))
    assert [(f.rule, str(f.path), f.message) for f in outcome.findings] == expected


_DEVICE = FieldPath.root("spec").child("devices").index(0)


@pytest.mark.parametrize(("path", "key"), [
    (FieldPath.root("spec").child("nodeName"), "spec.nodeName"),
    (FieldPath.root("spec"), None),
    (FieldPath.root("spec").child("devices"), "spec.devices"),
    (FieldPath.root("spec").child("pool").child("name"), None),
    (FieldPath.root("metadata").child("name"), None),
    (FieldPath.root("spec").child("sharedCounters").index(0).child("counters"), None),
    (_DEVICE, None),
    (_DEVICE.child("taints"), "device.taints"),
    (_DEVICE.child("capacity").key("mem").child("requestPolicy"), "capacity.requestPolicy"),
    (_DEVICE.child("attributes").key("a").child("ints"), "attribute.ints"),
    (_DEVICE.child("foo").key("a").child("ints"), None),
    (_DEVICE.child("capacity").key("mem"), None),
    (_DEVICE.child("capacity").key("mem").child("requestPolicy").child("x"), None),
])
def test_field_key(path: FieldPath, key: str | None) -> None:
    assert field_key(path) == key


def test_a_read_only_device_has_its_gated_field_dropped_too() -> None:
    obj = changed({"spec.devices[0].taints": [{"key": "k", "effect": "NoSchedule"}]})
    obj["spec"]["devices"][0] = MappingProxyType(obj["spec"]["devices"][0])
    outcome = run_rules(obj, RELEASES["1.37 two gates off"])
    assert [(f.rule, str(f.path), f.message) for f in outcome.findings] == [
        ('k8s-feature-gate', 'spec.devices[0].taints', 'the API server drops this field: feature gate DRADeviceTaints (GA in Kubernetes 1.37, on by default; this cluster: off)')]
