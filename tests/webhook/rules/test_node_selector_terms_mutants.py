"""A slice's node selector: two terms, matchFields without matchExpressions, operators, keys and values that are wrong or of the wrong type. The findings in full through `run_rules`. Named `test_node_selector_terms*` so mutation
testing runs it first on `webhook.rules.k8s.node_selector`."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.release_cases import findings_of
from tests.webhook.rules.slice_cases import DELETE, Found

CASES = [
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a b", "operator": "Exists"}]}, {"matchExpressions": [{"key": "c d", "operator": "Exists"}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms', 'Invalid value: [{"matchExpressions":[{"key":"a b","operator":"Exists"}]},{"matchExpressions":[{"key":"c d","operator":"Exists"}]}]: must have exactly one node selector term', 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key', 'Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')', 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[1].matchExpressions[0].key', 'Invalid value: "c d": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')', 'set exactly one; booleans must be true or left out')],
                 id='two terms with bad keys'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a b"]}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values[0]', 'Invalid value: "a b": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'set exactly one; booleans must be true or left out')],
                 id='matchFields after no matchExpressions'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": 3}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator', 'Invalid value: "": not a valid selector operator', 'set exactly one; booleans must be true or left out')],
                 id='an expression operator not a string'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Has"}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator', 'Invalid value: "Has": not a valid selector operator', 'set exactly one; booleans must be true or left out')],
                 id='an expression operator unknown'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["a", "b c"]}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[1]', 'Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')', 'set exactly one; booleans must be true or left out')],
                 id='an expression value not a label value'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": 3, "values": ["a"]}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].operator', 'Invalid value: "": not a valid selector operator', 'set exactly one; booleans must be true or left out')],
                 id='a field operator not a string'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": 3, "operator": "In", "values": ["a"]}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key', 'Invalid value: "": not a valid field selector key', 'set exactly one; booleans must be true or left out')],
                 id='a field key not a string'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["a"]}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key', 'Invalid value: "metadata.uid": not a valid field selector key', 'set exactly one; booleans must be true or left out')],
                 id='a field key unknown'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": 3, "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a b"]}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions', 'Invalid value: 3: must be of type array', 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values[0]', 'Invalid value: "a b": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'set exactly one; booleans must be true or left out')],
                 id='matchExpressions not a list, then matchFields'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert findings_of(changes, version) == expected
