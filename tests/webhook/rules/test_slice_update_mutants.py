"""ResourceSlice UPDATEs in full: immutable fields, and the ratchet that marks a problem the old slice already had
"(already present before this update)" (then warned about, not denied): devices matched by name, v1beta1 devices
read flat, unchanged taints not re-checked. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.k8s.slice` (tests/mutation)."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, changed, findings

CASES = [
    pytest.param({'spec.driver': 'other.example.com'},
                 {}, 'v1',
                 [('k8s-immutable', 'spec.driver', 'Invalid value: "other.example.com": field is immutable', 'delete and recreate the object instead of changing these fields')],
                 id='driver changed'),
    pytest.param({'spec.pool.name': 'other'},
                 {}, 'v1',
                 [('k8s-immutable', 'spec.pool.name', 'Invalid value: "other": field is immutable', 'delete and recreate the object instead of changing these fields')],
                 id='pool name changed'),
    pytest.param({'spec.nodeName': 'other'},
                 {}, 'v1',
                 [('k8s-immutable', 'spec.nodeName', 'Invalid value: "other": field is immutable', 'delete and recreate the object instead of changing these fields')],
                 id='node name changed'),
    pytest.param({'spec.devices[0].attributes': {'a': {'int': 'x'}}},
                 {'spec.devices[0].attributes': {'a': {'int': 'x'}}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer (already present before this update)', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a device problem already there is kept'),
    pytest.param({'spec.devices[0].attributes': {'a': {'int': 'x'}}},
                 {}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a device problem that is new'),
    pytest.param({'spec.devices': [{'name': 'b', 'attributes': {'a': {'int': 'x'}}}, {'name': 'a', 'attributes': {'a': {'int': 'x'}}}]},
                 {'spec.devices': [{'name': 'a', 'attributes': {'a': {'int': 'x'}}}, 3]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer (already present before this update)', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-wire-type', 'spec.devices[1].attributes[a].int', 'Invalid value: "x": must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='old devices by name'),
    pytest.param({'spec.devices[0].attributes': {'a': {'int': 'x'}}},
                 {'spec.devices': {'name': 'dev-0'}}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='old devices not a list'),
    pytest.param({'spec.devices[0].taints': [{'key': 'Bad Key', 'effect': 'NoSchedule'}]},
                 {'spec.devices[0].taints': [{'key': 'Bad Key', 'effect': 'NoSchedule'}]}, 'v1',
                 [],
                 id='taints unchanged'),
    pytest.param({'spec.devices[0].taints': [{'key': 'Bad Key', 'effect': 'NoSchedule'}]},
                 {'spec.devices[0].taints': [{'key': 'Other Bad', 'effect': 'NoSchedule'}]}, 'v1',
                 [('k8s-taints', 'spec.devices[0].taints[0].key', 'Invalid value: "Bad Key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')', 'fix the taint key, value or effect')],
                 id='taints changed'),
    pytest.param({'spec.devices[0]': {'name': 'dev-0', 'basic': {'attributes': {'a': {'int': 'x'}}}}},
                 {'spec.devices[0]': {'name': 'dev-0', 'basic': {'attributes': {'a': {'int': 'x'}}}}}, 'v1beta1',
                 [('k8s-wire-type', 'spec.devices[0].attributes[a].int', 'Invalid value: "x": must be of type integer (already present before this update)', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='v1beta1 device problem already there'),
    pytest.param({'metadata.labels': {'a': 1}},
                 {'metadata.labels': {'a': 1}}, 'v1',
                 [('k8s-wire-type', 'metadata.labels[a]', 'Invalid value: 1: must be of type string (already present before this update)', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='metadata problem already there'),
    pytest.param({'spec.allNodes': True},
                 {'spec.allNodes': True}, 'v1',
                 [('k8s-node-selection', 'spec', 'Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set (already present before this update)', 'set exactly one; booleans must be true or left out')],
                 id='two node selections already there'),
]


@pytest.mark.parametrize(("changes", "old_changes", "version", "expected"), CASES)
def test_slice_updates_in_full(changes: dict[str, Any], old_changes: dict[str, Any], version: str,
                               expected: Found) -> None:
    assert findings(changed(changes, version), old=changed(old_changes, version)) == expected
