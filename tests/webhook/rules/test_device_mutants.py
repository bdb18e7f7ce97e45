"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: a device's taints, counter consumption, node selection, binding conditions and mappings. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.device` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import DELETE, Found, case

CASES = [
    pytest.param({'spec.devices[0].taints': {}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].taints', 'Invalid value: {}: must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='taints not a list'),
    pytest.param({'spec.devices[0].taints': [3]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].taints[0]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-taints', 'spec.devices[0].taints[0].effect', 'Required value', 'fix the taint key, value or effect'), ('k8s-taints', 'spec.devices[0].taints[0].key', 'Invalid value: "": name part must be non-empty', 'fix the taint key, value or effect'), ('k8s-taints', 'spec.devices[0].taints[0].key', 'Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')', 'fix the taint key, value or effect')],
                 id='taint not an object'),
    pytest.param({'spec.devices[0].taints': [{'key': 'k', 'effect': 3}]}, 'v1',
                 [('k8s-taints', 'spec.devices[0].taints[0].effect', 'Required value', 'fix the taint key, value or effect'), ('k8s-wire-type', 'spec.devices[0].taints[0].effect', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='taint effect wrong type'),
    pytest.param({'spec.devices[0].taints': [{'key': 'k', 'effect': 'Bogus'}]}, 'v1',
                 [('k8s-taints', 'spec.devices[0].taints[0].effect', 'Unsupported value: "Bogus": supported values: "NoExecute", "NoSchedule", "None"', 'fix the taint key, value or effect')],
                 id='taint effect unknown'),
    pytest.param({'spec.devices[0].taints': [{'key': 'Bad Key', 'effect': 'NoSchedule'}]}, 'v1',
                 [('k8s-taints', 'spec.devices[0].taints[0].key', 'Invalid value: "Bad Key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')', 'fix the taint key, value or effect')],
                 id='taint key bad'),
    pytest.param({'spec.devices[0].consumesCounters': {}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].consumesCounters', 'Invalid value: {}: must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='consumesCounters not a list'),
    pytest.param({'spec.devices[0].consumesCounters': [{'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-counters', 'spec.devices[0].consumesCounters[0].counterSet', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names')],
                 id='consumes counter set missing'),
    pytest.param({'spec.devices[0].consumesCounters': [{'counterSet': 3, 'counters': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-counters', 'spec.devices[0].consumesCounters[0].counterSet', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names'), ('k8s-wire-type', 'spec.devices[0].consumesCounters[0].counterSet', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='consumes counter set bad'),
    pytest.param({'spec.nodeName': DELETE, 'spec.perDeviceNodeSelection': True, 'spec.devices[0].nodeSelector': 3}, 'v1',
                 [('k8s-node-selection', 'spec.devices[0]', 'Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec', 'set exactly one; booleans must be true or left out'), ('k8s-wire-type', 'spec.devices[0].nodeSelector', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='device node selector wrong type'),
    pytest.param({'spec.nodeName': DELETE, 'spec.perDeviceNodeSelection': True, 'spec.devices[0].nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Gt', 'values': ['x']}]}]}}, 'v1',
                 [],
                 id='device node selector bad'),
    pytest.param({'spec.devices[0].nodeName': 'n'}, 'v1',
                 [('k8s-node-selection', 'spec.devices[0]', 'Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec', 'set exactly one; booleans must be true or left out')],
                 id='device node name without per device'),
    pytest.param({'spec.devices[0].bindingConditions': 'x', 'spec.devices[0].bindsToNode': True}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].bindingConditions', 'Invalid value: "x": must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='binding conditions not a list'),
    pytest.param({'spec.devices[0].bindingConditions': [1], 'spec.devices[0].bindsToNode': True}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].bindingConditions[0]', 'Invalid value: 1: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='binding conditions not strings'),
    pytest.param({'spec.devices[0].bindingConditions': ['a'], 'spec.devices[0].bindsToNode': True}, 'v1',
                 [('k8s-binding-conditions', 'spec.devices[0].bindingFailureConditions', 'Invalid value: null: bindingFailureConditions are required to use bindingConditions', 'list each condition once and set both lists together')],
                 id='binding conditions without failure'),
    pytest.param({'spec.devices[0].bindingFailureConditions': ['a'], 'spec.devices[0].bindsToNode': True}, 'v1',
                 [('k8s-binding-conditions', 'spec.devices[0].bindingConditions', 'Invalid value: null: bindingConditions are required to use bindingFailureConditions', 'list each condition once and set both lists together')],
                 id='binding failure without conditions'),
    pytest.param({'spec.devices[0].bindsToNode': True}, 'v1',
                 [],
                 id='binds to node without conditions'),
    pytest.param({'spec.devices[0].nodeAllocatableResourceMappings': 3}, 'v1',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResourceMappings', 'unknown field "spec.devices[0].nodeAllocatableResourceMappings"', 'Kubernetes 1.37 no longer has this field; the API server drops it')],
                 id='mappings wrong type'),
    pytest.param({'spec.devices[0].nodeAllocatableResourceMappings': {'cpu': 3}}, 'v1',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResourceMappings', 'unknown field "spec.devices[0].nodeAllocatableResourceMappings"', 'Kubernetes 1.37 no longer has this field; the API server drops it')],
                 id='mappings entry wrong type'),
    pytest.param({'spec.devices[0].capacity': [1]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].capacity', 'Invalid value: [1]: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='capacity not a map'),
    pytest.param({'spec.devices[0].allowMultipleAllocations': 'yes'}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].allowMultipleAllocations', 'Invalid value: "yes": must be of type boolean', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='allowMultipleAllocations wrong'),
    pytest.param({'spec.devices[0].bindingConditions': [], 'spec.devices[0].bindingFailureConditions': ['a'], 'spec.devices[0].bindsToNode': True}, 'v1',
                 [('k8s-binding-conditions', 'spec.devices[0].bindingConditions', 'Invalid value: []: bindingConditions are required to use bindingFailureConditions', 'list each condition once and set both lists together')],
                 id='binding failure with empty conditions'),
    pytest.param({'spec.devices[0].bindingConditions': ['a', 'b'], 'spec.devices[0].bindingFailureConditions': ['b'], 'spec.devices[0].bindsToNode': True}, 'v1',
                 [('k8s-binding-conditions', 'spec.devices[0].bindingFailureConditions[0]', 'Invalid value: "b": bindingFailureConditions must not overlap with bindingConditions', 'list each condition once and set both lists together')],
                 id='binding conditions overlap'),
    pytest.param({'spec.nodeName': DELETE, 'spec.perDeviceNodeSelection': True, 'spec.devices[0].attributes': {'a': {'int': 'x'}}, 'spec.devices[0].nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'In'}]}]}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-node-selection', 'spec.devices[0].nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'", 'set exactly one; booleans must be true or left out')],
                 id='device node selector and another problem'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_device_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert case(changes, version) == expected

