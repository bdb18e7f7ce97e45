"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: node selectors: expressions, fields, terms. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.node_selector` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import DELETE, Found, case

CASES = [
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'NotIn'}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'", 'set exactly one; booleans must be true or left out')],
                 id='ns in without values'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Lt'}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values', "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'", 'set exactly one; booleans must be true or left out')],
                 id='ns gt without values'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Exists', 'values': ['x']}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values', "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'", 'set exactly one; booleans must be true or left out')],
                 id='ns exists with values'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Near'}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator', 'Invalid value: "Near": not a valid selector operator', 'set exactly one; booleans must be true or left out')],
                 id='ns bad operator'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 3, 'operator': 'Exists'}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key', 'Invalid value: "": name part must be non-empty', 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key', 'Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')', 'set exactly one; booleans must be true or left out')],
                 id='ns key missing'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchFields': [{'key': 'metadata.name', 'operator': 'Exists'}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].operator', 'Invalid value: "Exists": not a valid selector operator', 'set exactly one; booleans must be true or left out')],
                 id='ns field bad operator'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchFields': [{'key': 'spec.x', 'operator': 'In', 'values': ['a']}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key', 'Invalid value: "spec.x": not a valid field selector key', 'set exactly one; booleans must be true or left out')],
                 id='ns field bad key'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': ['ok', 'Bad_Value']}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values', "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector", 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values[1]', 'Invalid value: "Bad_Value": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'set exactly one; booleans must be true or left out')],
                 id='ns field bad value'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': ['a', 'b']}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values', "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector", 'set exactly one; booleans must be true or left out')],
                 id='ns field two values'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{}]}}, 'v1',
                 [],
                 id='ns term empty'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [3]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0]', 'Invalid value: 3: must be of type object', 'set exactly one; booleans must be true or left out')],
                 id='ns term not object'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': 3}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms', 'Invalid value: 3: must be of type array', 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms', 'Invalid value: 3: must have exactly one node selector term', 'set exactly one; booleans must be true or left out')],
                 id='ns terms not list'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'In', 'values': ['x', 3]}]}]}}, 'v1',
                 [],
                 id='ns values not strings'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Gt', 'values': ['x']}]}]}}, 'v1',
                 [],
                 id='ns gt bad int'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Gt', 'values': ['1', '2']}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values', "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'", 'set exactly one; booleans must be true or left out')],
                 id='ns gt two values'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': {'key': 'a'}}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions', 'Invalid value: {"key":"a"}: must be of type array', 'set exactly one; booleans must be true or left out')],
                 id='ns expressions not array'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchExpressions': [3]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0]', 'Invalid value: 3: must be of type object', 'set exactly one; booleans must be true or left out')],
                 id='ns expression not object'),
    pytest.param({'spec.nodeName': DELETE, 'spec.nodeSelector': {'nodeSelectorTerms': [{'matchFields': 'x'}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields', 'Invalid value: "x": must be of type array', 'set exactly one; booleans must be true or left out')],
                 id='ns fields not array'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_node_selector_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert case(changes, version) == expected

