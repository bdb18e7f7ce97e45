"""The hints that name the release or the feature gate behind a finding: a field the release lacks or no
longer has, a field an off gate drops, and the errors such a drop causes."""

from __future__ import annotations

from typing import Any

from tests.builders import device, slice_with
from webhook.policy import Policy
from webhook.run import run_rules

# 1.37 (the default) reports an attribute's union through declarative validation (apimachinery validate.Union)
NO_MEMBER = ('Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, '
             '`strings`, `versions`')


def seen(obj: dict[str, Any], policy: Policy) -> list[tuple[str, str, str, str | None]]:
    return [(f.rule, str(f.path), f.message, f.hint) for f in run_rules(obj, policy).findings]


def test_a_field_the_release_no_longer_has() -> None:
    obj = slice_with(device("d", capacity={"mem": "1Gi"},
                            nodeAllocatableResourceMappings={"memory": {"allocationMultiplier": "1"}}))
    path = "spec.devices[0].nodeAllocatableResourceMappings"
    assert seen(obj, Policy.default().with_profile("1.37")) == [(
        "k8s-unknown-field", path, f'unknown field "{path}"',
        "Kubernetes 1.37 no longer has this field; the API server drops it")]


def test_a_misspelt_capacity_field_keeps_the_spelling_hint() -> None:
    obj = slice_with(device("d", capacity={"mem": {"value": "1Gi", "bogus": 1}}))
    path = "spec.devices[0].capacity[mem].bogus"
    assert seen(obj, Policy.default().with_profile("1.34")) == [(
        "k8s-unknown-field", path, f'unknown field "{path}"',
        "fix the field name's spelling; a dropped union member leaves the attribute empty")]


def test_list_attributes_without_the_gate() -> None:
    obj = slice_with(device("d", attributes={"x.example.com/a": [1, 2]}))
    attribute = "spec.devices[0].attributes[x.example.com/a]"
    union = ("k8s-attribute-union", attribute, NO_MEMBER)
    assert seen(obj, Policy.default().with_list_types(False)) == [
        (*union, "the cluster runs without the DRAListTypeAttributes feature gate, so the API server dropped the list "
                 "value; publish a scalar (int, bool, string, version) or enable the gate"),
        ("k8s-feature-gate", f"{attribute}.ints", "the API server drops this field: feature gate DRAListTypeAttributes "
         "(alpha in Kubernetes 1.37, off by default; this cluster: off)", "enable DRAListTypeAttributes on the cluster "
         "(kube-apiserver --feature-gates=DRAListTypeAttributes=true) or leave the field out; draguard: featureGates "
         "in the policy or --feature-gates")]


def test_list_attributes_before_the_release_that_has_them() -> None:
    obj = slice_with(device("d", attributes={"x.example.com/a": [1, 2]}))
    attribute = "spec.devices[0].attributes[x.example.com/a]"
    assert seen(obj, Policy.default().with_profile("1.35")) == [
        ("k8s-attribute-union", attribute, 'Invalid value: "": exactly one value must be specified',
         "Kubernetes 1.35 has no list attributes (added in 1.36), so the API server dropped the list value; publish "
         "a scalar (int, bool, string, version)"),
        ("k8s-unknown-field", f"{attribute}.ints", f'unknown field "{attribute}.ints"',
         "Kubernetes 1.35 has no such field (added in 1.36); the API server drops it")]


def test_a_gated_field_the_cluster_drops() -> None:
    obj = slice_with(device("d", taints=[{"key": "k", "effect": "NoSchedule"}]))
    assert seen(obj, Policy.default().with_profile("1.34")) == [(
        "k8s-feature-gate", "spec.devices[0].taints",
        "the API server drops this field: feature gate DRADeviceTaints (alpha in Kubernetes 1.34, off by default; "
        "this cluster: off)",
        "enable DRADeviceTaints on the cluster (kube-apiserver --feature-gates=DRADeviceTaints=true) or leave the "
        "field out; draguard: featureGates in the policy or --feature-gates")]


def test_node_selection_errors_a_dropped_field_causes_name_the_gate() -> None:
    obj = slice_with(device("d", nodeName="node-0"), node_name=None, perDeviceNodeSelection=True)
    found = seen(obj, Policy.default().with_profile("1.34"))
    selection = [f for f in found if f[0] == "k8s-node-selection"]
    assert selection and all(
        hint == "the API server dropped fields of DRAPartitionableDevices, off in this cluster (Kubernetes 1.34); "
                "see the k8s-feature-gate findings" for _, _, _, hint in selection)
