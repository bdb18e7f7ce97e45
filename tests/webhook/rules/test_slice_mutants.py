"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: the slice's own fields: apiVersion, metadata, node selection, pool, the device list. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.slice` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import DELETE, Found, case

CASES = [
    pytest.param({'apiVersion': DELETE, 'spec.devices[0].attributes': {'a': {'int': 'x'}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`')],
                 id='no apiVersion is read as v1'),
    pytest.param({'apiVersion': 'example.com/v1'}, 'v1',
                 [('k8s-api-version', 'apiVersion', 'no matches for kind "ResourceSlice" in version "example.com/v1"', 'use `apiVersion: resource.k8s.io/v1` (v1alpha2/v1alpha3 slices are gone)')],
                 id='another group'),
    pytest.param({'apiVersion': 'resource.k8s.io/v9'}, 'v1',
                 [('k8s-api-version', 'apiVersion', 'no matches for kind "ResourceSlice" in version "resource.k8s.io/v9"', 'use `apiVersion: resource.k8s.io/v1` (v1alpha2/v1alpha3 slices are gone)')],
                 id='an unserved version'),
    pytest.param({'spec.devices[0]': {'name': 'd', 'basic': {'attributes': {'a': {'int': 'x'}}}}}, 'v1beta1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`')],
                 id='v1beta1 basic device'),
    pytest.param({'spec.devices[0]': {'name': 'd', 'basic': 3}}, 'v1beta1',
                 [],
                 id='v1beta1 basic not an object'),
    pytest.param({'metadata': {'generateName': 'Bad_-'}}, 'v1',
                 [('k8s-object-meta', 'metadata.generateName', 'Invalid value: "Bad_-": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='generateName bad'),
    pytest.param({'metadata': {'generateName': 'gen-'}}, 'v1',
                 [],
                 id='generateName ok ends with dash'),
    pytest.param({'metadata': {}}, 'v1',
                 [('k8s-object-meta', 'metadata.name', 'Required value: name or generateName is required', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='no name'),
    pytest.param({'metadata.labels': {'a': 1, 'b': 'ok'}}, 'v1',
                 [('k8s-wire-type', 'metadata.labels[a]', 'Invalid value: 1: must be of type string', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`')],
                 id='label value not string'),
    pytest.param({'metadata.annotations': {'Bad Key': 'v', 'ok.io/x': 'v'}}, 'v1',
                 [('k8s-object-meta', 'metadata.annotations', 'Invalid value: "Bad Key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='annotation key bad'),
    pytest.param({'metadata.annotations': [1]}, 'v1',
                 [('k8s-wire-type', 'metadata.annotations', 'Invalid value: [1]: must be of type object', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`')],
                 id='annotations not map'),
    pytest.param({'metadata.namespace': 'ns'}, 'v1',
                 [('k8s-object-meta', 'metadata.namespace', 'Forbidden: not allowed on this type', 'ResourceSlices are cluster-scoped: drop `metadata.namespace`')],
                 id='namespace set'),
    pytest.param({'spec.allNodes': True}, 'v1',
                 [('k8s-node-selection', 'spec', 'Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set', 'set exactly one; booleans must be true or left out')],
                 id='two node selection fields'),
    pytest.param({'spec.nodeName': DELETE, 'spec.allNodes': False}, 'v1',
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.allNodes', 'Invalid value: false: must be either unset or set to true', 'set exactly one; booleans must be true or left out')],
                 id='all nodes false only'),
    pytest.param({'spec.nodeName': DELETE}, 'v1',
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'set exactly one; booleans must be true or left out')],
                 id='no node selection'),
    pytest.param({'spec.nodeName': DELETE, 'spec.allNodes': 'yes'}, 'v1',
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'set exactly one; booleans must be true or left out'), ('k8s-wire-type', 'spec.allNodes', 'Invalid value: "yes": must be of type boolean', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`')],
                 id='allNodes not bool'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Exists'}]}, {'matchExpressions': [{'key': 'b', 'operator': 'Exists'}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms', 'Invalid value: [{"matchExpressions":[{"key":"a","operator":"Exists"}]},{"matchExpressions":[{"key":"b","operator":"Exists"}]}]: must have exactly one node selector term', 'set exactly one; booleans must be true or left out')],
                 id='node selector two terms'),
    pytest.param({'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Exists'}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec', 'Invalid value: "{`nodeName`, `nodeSelector`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set', 'set exactly one; booleans must be true or left out')],
                 id='node selector and name'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'In'}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'", 'set exactly one; booleans must be true or left out')],
                 id='node selector bad expression'),
    pytest.param({'spec.nodeName': DELETE, 'spec.perDeviceNodeSelection': True}, 'v1',
                 [('k8s-node-selection', 'spec.devices[0]', 'Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec', 'set exactly one; booleans must be true or left out')],
                 id='per device node selection'),
    pytest.param({'spec.nodeName': DELETE, 'spec.perDeviceNodeSelection': True, 'spec.devices[0].nodeName': 'n'}, 'v1',
                 [],
                 id='per device with device node name'),
    pytest.param({'spec.sharedCounters': [{'name': 's', 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-counters', 'spec', 'Invalid value: "": only one of `sharedCounters` or `devices` is allowed', 'publish counter sets and devices in separate slices; use DNS-label names')],
                 id='shared counters and devices'),
    pytest.param({'spec.pool': {'resourceSliceCount': 1}}, 'v1',
                 [('k8s-pool', 'spec.pool.name', 'Required value', 'name the pool (often the node name) and publish resourceSliceCount >= 1')],
                 id='pool without name'),
    pytest.param({'spec.pool.resourceSliceCount': 0}, 'v1',
                 [('k8s-pool', 'spec.pool.resourceSliceCount', 'Invalid value: 0: must be greater than zero', 'name the pool (often the node name) and publish resourceSliceCount >= 1')],
                 id='pool count zero'),
    pytest.param({'spec.pool.generation': -1}, 'v1',
                 [('k8s-pool', 'spec.pool.generation', 'Invalid value: -1: must be greater than or equal to zero', 'name the pool (often the node name) and publish resourceSliceCount >= 1')],
                 id='pool generation negative'),
    pytest.param({'spec.pool.generation': '1'}, 'v1',
                 [('k8s-wire-type', 'spec.pool.generation', 'Invalid value: "1": must be of type integer', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`')],
                 id='pool generation string'),
    pytest.param({'spec.devices': [3, {'name': 'd'}]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0]', 'Invalid value: 3: must be of type object', 'quote strings and versions, leave numbers and booleans unquoted, write quantities like `16Gi`')],
                 id='device not an object'),
    pytest.param({'spec.devices': [{'name': 'd'}, {'name': 'd'}]}, 'v1',
                 [('k8s-device-name', 'spec.devices[1]', 'Duplicate value: "d"', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='duplicate device names'),
    pytest.param({'spec.devices': [{}]}, 'v1',
                 [('k8s-device-name', 'spec.devices[0].name', 'Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='device without name'),
    pytest.param({'spec.skipNodeOperations': ['Prepare', 'Bogus']}, 'v1',
                 [('k8s-feature-gate', 'spec.skipNodeOperations', 'the API server drops this field: feature gate DRAOptionalNodeOperations (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAOptionalNodeOperations on the cluster (kube-apiserver --feature-gates=DRAOptionalNodeOperations=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='skip ops unknown'),
    pytest.param({'spec.skipNodeOperations': [1]}, 'v1',
                 [('k8s-feature-gate', 'spec.skipNodeOperations', 'the API server drops this field: feature gate DRAOptionalNodeOperations (alpha in Kubernetes 1.37, off by default; this cluster: off)', 'enable DRAOptionalNodeOperations on the cluster (kube-apiserver --feature-gates=DRAOptionalNodeOperations=true) or leave the field out; draguard: featureGates in the policy or --feature-gates')],
                 id='skip ops not strings'),
    pytest.param({'spec.driver': 'Bad_Driver'}, 'v1',
                 [('k8s-driver', 'spec.driver', 'Invalid value: "Bad_Driver": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', "use the driver's domain name, e.g. `gpu.example.com`")],
                 id='driver bad'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_slice_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert case(changes, version) == expected

