"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: `partitionTypeAttribute` and the devices that must carry it. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.partition` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, case

CASES = [
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind'}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.partitionTypeAttribute', 'Invalid value: "gpu.example.com/kind": may only be set on a slice which declares devices that consume counters', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='gated partition without counters'),
    pytest.param({'spec.partitionTypeAttribute': 'Bad Name', 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.partitionTypeAttribute', 'Invalid value: "Bad Name": a fully qualified name must be a domain and a name separated by a slash', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`'), ('k8s-partition-type-attribute', 'spec.partitionTypeAttribute', 'Invalid value: "Bad Name": a valid C identifier must start with alphabetic character or \'_\', followed by a string of alphanumeric characters or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\', regex used for validation is \'[A-Za-z_][A-Za-z0-9_]*\')', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='gated partition bad name'),
    pytest.param({'spec.partitionTypeAttribute': 'kind', 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.partitionTypeAttribute', 'Invalid value: "kind": a fully qualified name must be a domain and a name separated by a slash', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='gated partition unqualified'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices': [{'name': 'a'}, {'name': 'b', 'consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}]}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[1].attributes[gpu.example.com/kind]', 'Required value: device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='gated partition missing attribute'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'kind': {'int': 1}}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Invalid value: {"int":1}: must be a string value because `partitionTypeAttribute` names this attribute', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='gated partition attribute not string'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'kind': {'string': 'x'}}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1+gates',
                 [],
                 id='gated partition attribute bare ok'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'gpu.example.com/kind': {'string': 'x'}}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1+gates',
                 [],
                 id='gated partition attribute full ok'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'kind': 3}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Invalid value: {}: must be a string value because `partitionTypeAttribute` names this attribute', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`'), ('k8s-attribute-union', 'spec.devices[0].attributes[kind]', 'Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`', 'keep one value field per attribute; leave out empty lists'), ('k8s-wire-type', 'spec.devices[0].attributes[kind]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='gated partition attribute not object'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': [1], 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1+gates',
                 [('k8s-wire-type', 'spec.devices[0].attributes', 'Invalid value: [1]: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-partition-type-attribute', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Required value: device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='gated partition attributes not a map'),
    pytest.param({'spec.driver': 'other.example.com', 'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices[0].attributes': {'kind': {'string': 'x'}}, 'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Required value: device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='gated partition other driver'),
    pytest.param({'spec.partitionTypeAttribute': 'gpu.example.com/kind', 'spec.devices': [{'name': 'a', 'consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}], 'attributes': {'kind': {'string': 'x'}}}, {'name': 'b', 'consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}}], 'attributes': {'kind': {'bool': True}}}]}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[1].attributes[gpu.example.com/kind]', 'Invalid value: {"bool":true}: must be a string value because `partitionTypeAttribute` names this attribute', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='gated partition second device'),
    pytest.param({'spec.partitionTypeAttribute': 3}, 'v1+gates',
                 [('k8s-wire-type', 'spec.partitionTypeAttribute', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='gated partition name wrong type'),
    pytest.param({'spec.skipNodeOperations': ['NodePrepareResources', 'Bogus']}, 'v1+gates',
                 [('k8s-skip-node-operations', 'spec.skipNodeOperations', 'Invalid value: ["NodePrepareResources","Bogus"]: NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped', 'also skip NodeUnprepareResources (or use `*`)'), ('k8s-skip-node-operations', 'spec.skipNodeOperations[1]', 'Unsupported value: "Bogus": supported values: "*", "NodePrepareResources", "NodeUnprepareResources"', 'also skip NodeUnprepareResources (or use `*`)')],
                 id='gated skip ops unknown'),
    pytest.param({'spec.skipNodeOperations': [1]}, 'v1+gates',
                 [('k8s-wire-type', 'spec.skipNodeOperations[0]', 'Invalid value: 1: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='gated skip ops not strings'),
    pytest.param({'spec.skipNodeOperations': ['NodePrepareResources']}, 'v1+gates',
                 [('k8s-skip-node-operations', 'spec.skipNodeOperations', 'Invalid value: ["NodePrepareResources"]: NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped', 'also skip NodeUnprepareResources (or use `*`)')],
                 id='gated skip ops prepare only'),
    pytest.param({'spec.skipNodeOperations': ['NodeUnprepareResources', 'NodeUnprepareResources']}, 'v1+gates',
                 [('k8s-skip-node-operations', 'spec.skipNodeOperations[1]', 'Duplicate value: "NodeUnprepareResources"', 'also skip NodeUnprepareResources (or use `*`)')],
                 id='gated skip ops duplicate'),
    pytest.param({'spec.devices[0].nodeAllocatableResourceMappings': {'cpu': 3}}, 'v1+gates',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResourceMappings', 'unknown field "spec.devices[0].nodeAllocatableResourceMappings"', 'Kubernetes 1.37 no longer has this field; the API server drops it')],
                 id='gated mappings entry wrong type'),
    pytest.param({'spec.devices[0].nodeAllocatableResourceMappings': 3}, 'v1+gates',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResourceMappings', 'unknown field "spec.devices[0].nodeAllocatableResourceMappings"', 'Kubernetes 1.37 no longer has this field; the API server drops it')],
                 id='gated mappings wrong type'),
    pytest.param({'spec.devices[0].nodeAllocatableResources': {'cpu': 3}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu]', 'Required value: at least one of mapping or overhead must be set', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together'), ('k8s-wire-type', 'spec.devices[0].nodeAllocatableResources[cpu]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='gated resources entry wrong type'),
    pytest.param({'spec.skipNodeOperations': ['NodeUnprepareResources'], 'spec.partitionTypeAttribute': 'gpu.example.com/kind'}, 'v1',
                 [('k8s-feature-gate', 'spec.partitionTypeAttribute', 'the API server drops this field: feature gate DRAPartitionableDevicesType (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAPartitionableDevicesType on the cluster (kube-apiserver --feature-gates=DRAPartitionableDevicesType=true) or leave the field out; draguard: featureGates in the policy or --feature-gates'), ('k8s-feature-gate', 'spec.skipNodeOperations', 'the API server drops this field: feature gate DRAOptionalNodeOperations (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAOptionalNodeOperations on the cluster (kube-apiserver --feature-gates=DRAOptionalNodeOperations=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='gates off skip ops and partition'),
    pytest.param({'spec.devices[0].nodeAllocatableResourceMappings': {'cpu': {}}, 'spec.devices[0].nodeAllocatableResources': {'cpu': {}}}, 'v1',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResourceMappings', 'unknown field "spec.devices[0].nodeAllocatableResourceMappings"', 'Kubernetes 1.37 no longer has this field; the API server drops it'), ('k8s-feature-gate', 'spec.devices[0].nodeAllocatableResources', 'the API server drops this field: feature gate DRANodeAllocatableResources (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRANodeAllocatableResources on the cluster (kube-apiserver --feature-gates=DRANodeAllocatableResources=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='gates off device fields'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_partition_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert case(changes, version) == expected

