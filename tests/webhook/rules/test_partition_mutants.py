"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: `partitionTypeAttribute` and the devices that must carry it. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.partition` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, changed, findings

CASES = [
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind'}, 'v1',
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition without counters'),
    pytest.param({'spec.partitionTypeAttribute': 'Bad Name', 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition bad name'),
    pytest.param({'spec.partitionTypeAttribute': 'kind', 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition unqualified'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices': [{'name': 'a'}, {'name': 'b', 'consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}]}, 'v1',
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition missing attribute'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'kind': {'int': 1}}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition attribute not string'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'kind': {'string': 'x'}}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition attribute bare ok'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'gpu.example.com/kind': {'string': 'x'}}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition attribute full ok'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'kind': 3}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-attribute-union', 'spec.devices[0].attributes[kind]', 'Invalid value: "": exactly one value must be specified', 'keep one value field per attribute; leave out empty lists'), ('k8s-wire-type', 'spec.devices[0].attributes[kind]', 'Invalid value: 3: must be of type object', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`'), ('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition attribute not object'),
    pytest.param({'spec.driver': 3, 'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'kind': {'string': 'x'}}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-driver', 'spec.driver', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-driver', 'spec.driver', 'Required value', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-wire-type', 'spec.driver', 'Invalid value: 3: must be of type string', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`'), ('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='partition other driver'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_partition_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert findings(changed(changes, version)) == expected

