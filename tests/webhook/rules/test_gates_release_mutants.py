"""Findings a release or a gate explains, in full: limits that differ between releases, fields a release does not
have, node selection left empty by a dropped gate. Fast through `run_rules`, so mutation testing runs them first
on `webhook.rules.k8s.gates` (tests/mutation)."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import DELETE, Found, changed
from webhook.policy import Policy
from webhook.run import run_rules

CASES = [
    pytest.param(Policy.default().with_profile("1.34", gates={"DRADeviceTaints": True}), {'spec.devices[0].taints': [{'key': 'k0', 'effect': 'NoSchedule'}, {'key': 'k1', 'effect': 'NoSchedule'}, {'key': 'k2', 'effect': 'NoSchedule'}, {'key': 'k3', 'effect': 'NoSchedule'}, {'key': 'k4', 'effect': 'NoSchedule'}]},
                 [('k8s-taints', 'spec.devices[0].taints', 'Too many: 5: must have at most 4 items', 'Kubernetes 1.34 allows at most 4 taints per device (1.37: 16)')],
                 id='five taints on 1.34'),
    pytest.param(Policy.default().with_profile("1.34"), {'spec.partitionTypeAttribute': 'gpu.example.com/kind'},
                 [('k8s-unknown-field', 'spec.partitionTypeAttribute', 'unknown field "spec.partitionTypeAttribute"', 'Kubernetes 1.34 has no such field (added in 1.37); the API server drops it')],
                 id='a 1.37 spec field on 1.34'),
    pytest.param(Policy.default().with_profile("1.34"), {'spec.devices[0].nodeAllocatableResources': {'cpu': {}}},
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResources', 'unknown field "spec.devices[0].nodeAllocatableResources"', 'Kubernetes 1.34 has no such field (added in 1.37); the API server drops it')],
                 id='a 1.37 device field on 1.34'),
    pytest.param(Policy.default().with_profile("1.34"), {'spec.devices[0].capacity': {'mem': {'value': '1', 'bogus': 1}}},
                 [('k8s-unknown-field', 'spec.devices[0].capacity[mem].bogus', 'unknown field "spec.devices[0].capacity[mem].bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='an unknown capacity field on 1.34'),
    pytest.param(Policy.default().with_profile("1.34"), {'spec.devices[0].attributes': {'a': {'ints': [1]}}},
                 [('k8s-attribute-union', 'spec.devices[0].attributes[a]', 'Invalid value: "": exactly one value must be specified', 'Kubernetes 1.34 has no list attributes (added in 1.36), so the API server dropped the list value; publish a scalar (int, bool, string, version)'), ('k8s-unknown-field', 'spec.devices[0].attributes[a].ints', 'unknown field "spec.devices[0].attributes[a].ints"', 'Kubernetes 1.34 has no such field (added in 1.36); the API server drops it')],
                 id='an unknown attribute field on 1.34'),
    pytest.param(Policy.default().with_profile("1.37", gates={"DRAPartitionableDevices": False}), {'spec.nodeName': DELETE, 'spec.perDeviceNodeSelection': True, 'spec.devices[0].nodeName': 'n'},
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'the API server dropped fields of DRAPartitionableDevices, off in this cluster (Kubernetes 1.37); see the k8s-feature-gate findings'), ('k8s-feature-gate', 'spec.devices[0].nodeName', 'the API server drops this field: feature gate DRAPartitionableDevices (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAPartitionableDevices on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevices=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-feature-gate', 'spec.perDeviceNodeSelection', 'the API server drops this field: feature gate DRAPartitionableDevices (beta in Kubernetes 1.37, on by default; this cluster: off)', 'enable DRAPartitionableDevices on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevices=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='per-device selection with its gate off'),
]


@pytest.mark.parametrize(("policy", "changes", "expected"), CASES)
def test_release_and_gate_hints_in_full(policy: Policy, changes: dict[str, Any], expected: Found) -> None:
    outcome = run_rules(changed(changes), policy)
    assert [(f.rule, str(f.path), f.message, f.hint) if f.hint else (f.rule, str(f.path), f.message)
            for f in outcome.findings] == expected
