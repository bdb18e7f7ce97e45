"""A device's fields given the wrong JSON type or taken to a limit (attributes and capacities 32/33, attribute
values 48/49, binding conditions 4/5), node selection per device, taints (and their `timeAdded`), `bindsToNode` and counters: the findings in full,
through `run_rules`, and the attribute-value count again on the precise path (`precise_only`), which counts
value by value. Named `test_device_*` so mutation testing runs it first on `webhook.rules.k8s.device`."""

# ruff: noqa: E501

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from tests.webhook.rules.release_cases import findings_of
from tests.webhook.rules.slice_cases import DELETE, Found, case
from webhook.rules.k8s.fast import precise_only

CASES = [
    pytest.param({"spec.devices[0].name": 3}, 'v1',
                 [('k8s-device-name', 'spec.devices[0].name', 'Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once'), ('k8s-wire-type', 'spec.devices[0].name', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='device name not a string'),
    pytest.param({"spec.devices[0].attributes": {f"a{i}": {"int": i} for i in range(16)}, "spec.devices[0].capacity": {f"c{i}": {"value": "1"} for i in range(16)}}, 'v1',
                 [],
                 id='16 attributes and 16 capacities'),
    pytest.param({"spec.devices[0].attributes": {f"a{i}": {"int": i} for i in range(17)}, "spec.devices[0].capacity": {f"c{i}": {"value": "1"} for i in range(16)}}, 'v1',
                 [('k8s-attribute-limits', 'spec.devices[0]', 'Invalid value: 33: the total number of attributes and capacities must not exceed 32', 'publish fewer attributes or shorter lists')],
                 id='17 attributes and 16 capacities'),
    pytest.param({"spec.devices[0].attributes": {"a": {"ints": list(range(24))}, "b": {"ints": list(range(24))}}}, 'v1',
                 [],
                 id='48 attribute values'),
    pytest.param({"spec.devices[0].attributes": {"a": {"ints": list(range(24))}, "b": {"ints": list(range(25))}}}, 'v1',
                 [('k8s-attribute-limits', 'spec.devices[0]', 'Invalid value: 49: the total number of attribute values must not exceed 48', 'publish fewer attributes or shorter lists')],
                 id='49 attribute values'),
    pytest.param({"spec.devices[0].attributes": {"a": {"ints": list(range(23))}, "b": {"ints": list(range(24))}, "Bad Name": {"int": 1}}}, 'v1',
                 [('k8s-qualified-name', 'spec.devices[0].attributes', 'Invalid value: "Bad Name": a valid C identifier must start with alphabetic character or \'_\', followed by a string of alphanumeric characters or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\', regex used for validation is \'[A-Za-z_][A-Za-z0-9_]*\')', 'rename the key, e.g. `gpu.example.com/memory_gb`')],
                 id='47 attribute values and a bad name'),
    pytest.param({"spec.devices[0].attributes": {"a": {"ints": list(range(24))}, "b": {"ints": list(range(24))}, "Bad Name": {"int": 1}}}, 'v1',
                 [('k8s-attribute-limits', 'spec.devices[0]', 'Invalid value: 49: the total number of attribute values must not exceed 48', 'publish fewer attributes or shorter lists'), ('k8s-qualified-name', 'spec.devices[0].attributes', 'Invalid value: "Bad Name": a valid C identifier must start with alphabetic character or \'_\', followed by a string of alphanumeric characters or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\', regex used for validation is \'[A-Za-z_][A-Za-z0-9_]*\')', 'rename the key, e.g. `gpu.example.com/memory_gb`')],
                 id='49 attribute values and a bad name'),
    pytest.param({"spec.devices[0].nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Exists"}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.devices[0]', 'Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec', 'set exactly one; booleans must be true or left out')],
                 id='a device nodeSelector without per-device selection'),
    pytest.param({"spec.devices[0].nodeName": None}, 'v1',
                 [],
                 id='a device nodeName of null'),
    pytest.param({"spec.nodeName": DELETE, "spec.perDeviceNodeSelection": True, "spec.devices[0].nodeName": "n", "spec.devices[0].nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Exists"}]}]}}, 'v1',
                 [('k8s-node-selection', 'spec.devices[0]', 'Invalid value: "{`nodeName`, `nodeSelector`}": exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec', 'set exactly one; booleans must be true or left out')],
                 id='per-device nodeName and nodeSelector'),
    pytest.param({"spec.nodeName": DELETE, "spec.perDeviceNodeSelection": True, "spec.devices[0].nodeName": 3}, 'v1',
                 [('k8s-node-selection', 'spec.devices[0]', 'Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec', 'set exactly one; booleans must be true or left out'), ('k8s-wire-type', 'spec.devices[0].nodeName', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='per-device nodeName not a string'),
    pytest.param({"spec.nodeName": DELETE, "spec.perDeviceNodeSelection": True, "spec.devices[0].allNodes": "true"}, 'v1',
                 [('k8s-node-selection', 'spec.devices[0]', 'Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec', 'set exactly one; booleans must be true or left out'), ('k8s-wire-type', 'spec.devices[0].allNodes', 'Invalid value: "true": must be of type boolean', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='per-device allNodes not a bool'),
    pytest.param({"spec.nodeName": DELETE, "spec.perDeviceNodeSelection": True, "spec.devices[0].allNodes": False}, 'v1',
                 [('k8s-node-selection', 'spec.devices[0]', 'Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec', 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.devices[0].allNodes', 'Invalid value: false: must be either unset or set to true', 'set exactly one; booleans must be true or left out')],
                 id='per-device allNodes false'),
    pytest.param({"spec.devices[0].taints": [{"key": 3, "effect": "NoSchedule"}]}, 'v1',
                 [('k8s-taints', 'spec.devices[0].taints[0].key', 'Invalid value: "": name part must be non-empty', 'fix the taint key, value or effect'), ('k8s-taints', 'spec.devices[0].taints[0].key', 'Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')', 'fix the taint key, value or effect'), ('k8s-wire-type', 'spec.devices[0].taints[0].key', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='taint key not a string'),
    pytest.param({"spec.devices[0].taints": [{"key": "k", "value": 3, "effect": "NoSchedule"}]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].taints[0].value', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='taint value not a string'),
    pytest.param({"spec.devices[0].taints": [{"key": "k", "value": "a b", "effect": "NoSchedule"}]}, 'v1',
                 [('k8s-taints', 'spec.devices[0].taints[0].value', 'Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')', 'fix the taint key, value or effect')],
                 id='taint value invalid'),
    pytest.param({'spec.devices[0].taints': [{'key': 'k', 'effect': 'NoSchedule', 'timeAdded': '2026-07-24T10:00:00Z'}]}, 'v1',
                 [],
                 id='taint timeAdded'),
    pytest.param({'spec.devices[0].taints': [{'key': 'k', 'effect': 'NoSchedule', 'timeAdded': '2026-07-24'}]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].taints[0].timeAdded', 'Invalid value: "2026-07-24": must be a time in RFC 3339 format, e.g. "2006-01-02T15:04:05Z"', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='taint timeAdded not a time'),
    pytest.param({'spec.devices[0].taints': [{'key': 'k', 'effect': 'NoSchedule', 'timeAdded': 1721815200}]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].taints[0].timeAdded', 'Invalid value: 1721815200: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='taint timeAdded not a string'),
    pytest.param({'spec.devices[0].taints': [{'key': 'k', 'effect': 'NoSchedule', 'timeAdded': None}]}, 'v1',
                 [],
                 id='taint timeAdded null'),
    pytest.param({'spec.devices[0].taints': [{'key': 'k', 'effect': 'NoSchedule', 'efect': 'NoExecute'}]}, 'v1',
                 [('k8s-unknown-field', 'spec.devices[0].taints[0].efect', 'unknown field "spec.devices[0].taints[0].efect"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='taint field misspelt'),
    pytest.param({'spec.devices[0].bindsToNode': 'true'}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].bindsToNode', 'Invalid value: "true": must be of type boolean', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='bindsToNode not a boolean'),
    pytest.param({'spec.devices[0].bindsToNode': False}, 'v1',
                 [],
                 id='bindsToNode false'),
    pytest.param({'spec.devices': DELETE, 'spec.sharedCounters': [{'name': 's', 'counter': {'c': {'value': '1'}}}]}, 'v1',
                 [('k8s-unknown-field', 'spec.sharedCounters[0].counter', 'unknown field "spec.sharedCounters[0].counter"', "fix the field name's spelling; a dropped union member leaves the attribute empty"), ('k8s-counters', 'spec.sharedCounters[0].counters', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names')],
                 id='a counter set field misspelt'),
    pytest.param({'spec.devices[0].consumesCounters': [{'counterSet': 's', 'counters': {'c': {'value': '1'}}, 'compatibilityGroups': ['a']}]}, 'v1',
                 [('k8s-unknown-field', 'spec.devices[0].consumesCounters[0].compatibilityGroups', 'unknown field "spec.devices[0].consumesCounters[0].compatibilityGroups"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='a consumption field unknown'),
    pytest.param({"spec.devices": DELETE, "spec.sharedCounters": [3]}, 'v1',
                 [('k8s-wire-type', 'spec.sharedCounters[0]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-counters', 'spec.sharedCounters[0].counters', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names'), ('k8s-counters', 'spec.sharedCounters[0].name', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names')],
                 id='counter set not an object'),
    pytest.param({"spec.devices": DELETE, "spec.sharedCounters": [{"name": "s", "counters": 3}]}, 'v1',
                 [('k8s-counters', 'spec.sharedCounters[0].counters', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names'), ('k8s-wire-type', 'spec.sharedCounters[0].counters', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='counters not an object'),
    pytest.param({"spec.devices": DELETE, "spec.sharedCounters": [{"name": "s", "counters": {"c": 3}}]}, 'v1',
                 [('k8s-wire-type', 'spec.sharedCounters[0].counters[c]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a counter not an object'),
    pytest.param({"spec.devices": DELETE, "spec.sharedCounters": [{"name": "s", "counters": {"c": {"value": "x"}}}]}, 'v1',
                 [('k8s-wire-type', 'spec.sharedCounters[0].counters[c].value', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a counter value not a quantity'),
    pytest.param({"spec.devices": DELETE, "spec.sharedCounters": [{"name": "s", "counters": {"c": {}}}]}, 'v1',
                 [],
                 id='a counter value missing'),
    pytest.param({"spec.devices": DELETE, "spec.sharedCounters": [{"name": "s", "counters": {"c": {"VALUE": "1"}}}]}, 'v1',
                 [('k8s-unknown-field', 'spec.sharedCounters[0].counters[c].VALUE', 'unknown field "spec.sharedCounters[0].counters[c].VALUE"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='a counter value in capitals'),
    pytest.param({"spec.devices": DELETE, "spec.sharedCounters": [{"name": "s", "counters": {"c" * 64: {"value": "x"}}}]}, 'v1',
                 [('k8s-counters', 'spec.sharedCounters[0].counters', 'Invalid value: "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc": must be no more than 63 characters', 'publish counter sets and devices in separate slices; use DNS-label names'), ('k8s-wire-type', 'spec.sharedCounters[0].counters[cccccccccccccccccccccccccccccc...cccccccccccccccccccccccccccccc].value', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a counter name of 64 characters'),
    pytest.param({"spec.devices[0].consumesCounters": [{"counterSet": "s", "counters": 3}]}, 'v1',
                 [('k8s-counters', 'spec.devices[0].consumesCounters[0].counters', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names'), ('k8s-wire-type', 'spec.devices[0].consumesCounters[0].counters', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='device counters not an object'),
    pytest.param({"spec.devices[0].consumesCounters": [3]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0].consumesCounters[0]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-counters', 'spec.devices[0].consumesCounters[0].counterSet', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names'), ('k8s-counters', 'spec.devices[0].consumesCounters[0].counters', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names')],
                 id='device counter consumption not an object'),
    pytest.param({"spec.devices[0].bindingConditions": ["a"], "spec.devices[0].bindingFailureConditions": 3}, 'v1+gates',
                 [('k8s-binding-conditions', 'spec.devices[0].bindingFailureConditions', 'Invalid value: null: bindingFailureConditions are required to use bindingConditions', 'list each condition once and set both lists together'), ('k8s-wire-type', 'spec.devices[0].bindingFailureConditions', 'Invalid value: 3: must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='bindingFailureConditions not a list'),
    pytest.param({"spec.devices[0].bindingConditions": ["a"], "spec.devices[0].bindingFailureConditions": [3]}, 'v1+gates',
                 [('k8s-binding-conditions', 'spec.devices[0].bindingFailureConditions', 'Invalid value: []: bindingFailureConditions are required to use bindingConditions', 'list each condition once and set both lists together'), ('k8s-wire-type', 'spec.devices[0].bindingFailureConditions[0]', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='bindingFailureConditions member not a string'),
    pytest.param({"spec.devices[0].bindingConditions": ["a", "b", "c", "d", "e"], "spec.devices[0].bindingFailureConditions": ["f"]}, 'v1+gates',
                 [('k8s-binding-conditions', 'spec.devices[0].bindingConditions', 'Too many: 5: must have at most 4 items', 'list each condition once and set both lists together')],
                 id='5 binding conditions'),
    pytest.param({"spec.devices[0].bindingConditions": ["a", "b", "c", "d"], "spec.devices[0].bindingFailureConditions": ["f"]}, 'v1+gates',
                 [],
                 id='4 binding conditions'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": 3}, 'v1+gates',
                 [('k8s-wire-type', 'spec.devices[0].nodeAllocatableResources', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='nodeAllocatableResources not an object'),
    pytest.param({"spec.devices[0].nodeAllocatableResourceMappings": 3}, '1.36',
                 [('k8s-wire-type', 'spec.devices[0].nodeAllocatableResourceMappings', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='nodeAllocatableResourceMappings not an object'),
    pytest.param({"spec.devices": [{"name": 3}, {"name": 4}]}, 'v1',
                 [('k8s-device-name', 'spec.devices[0].name', 'Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once'), ('k8s-wire-type', 'spec.devices[0].name', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-device-name', 'spec.devices[1]', 'Duplicate value: ""', 'use lower-case names of at most 63 characters, like `gpu-0`, each once'), ('k8s-device-name', 'spec.devices[1].name', 'Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once'), ('k8s-wire-type', 'spec.devices[1].name', 'Invalid value: 4: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='two device names not strings'),
    pytest.param({"spec.devices": DELETE, "spec.sharedCounters": [{"name": "s", "counters": {"c": {"value": "1"}}}, 3, {"name": "s", "counters": {"c": {"value": "1"}}}]}, 'v1',
                 [('k8s-wire-type', 'spec.sharedCounters[1]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-counters', 'spec.sharedCounters[1].counters', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names'), ('k8s-counters', 'spec.sharedCounters[1].name', 'Required value', 'publish counter sets and devices in separate slices; use DNS-label names'), ('k8s-counters', 'spec.sharedCounters[2]', 'Duplicate value: "s"', 'publish counter sets and devices in separate slices; use DNS-label names')],
                 id='a duplicate counter set past one not an object'),
    pytest.param({"spec.devices": [{"name": "dev-0"}, 3, {"name": "dev-0"}]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[1]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-device-name', 'spec.devices[2]', 'Duplicate value: "dev-0"', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='a duplicate device name past a device that is not an object'),
    pytest.param({"spec.devices[0].allowMultipleAllocations": True, "spec.devices[0].capacity": {"a": {"value": "4", "requestPolicy": {"default": "1", "validValues": ["500m", "1"]}}}}, '1.36',
                 [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy.validValues[1]', 'Duplicate value: "1"', 'set allowMultipleAllocations: true, or drop the policy; make default, validValues and validRange agree with the capacity value; fractional ranges in milli-units (DRAFractionalCapacityRange, 1.37)')],
                 id='capacity valid values 500m and 1 on 1.36, without fractional ranges'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
@pytest.mark.parametrize("precise", [False, True], ids=["served", "precise"])
def test_device_fields_in_full(changes: dict[str, Any], version: str, expected: Found, precise: bool) -> None:
    with precise_only() if precise else contextlib.nullcontext():
        assert findings_of(changes, version) == expected


def test_a_duplicate_binding_condition_is_reported_at_its_own_index() -> None:
    found = case({"spec.devices[0].bindingConditions": ["a", 3, "a"], "spec.devices[0].bindingFailureConditions": ["f"]},
                 "v1+gates")
    assert found == [
        ('k8s-wire-type', 'spec.devices[0].bindingConditions[1]', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'),
        ('k8s-binding-conditions', 'spec.devices[0].bindingConditions[2]', 'Duplicate value: "a"', 'list each condition once and set both lists together'),
    ]


_TOO_MANY_VALUES = ('k8s-attribute-limits', 'spec.devices[0]', 'Invalid value: 49: the total number of attribute values must not exceed 48', 'publish fewer attributes or shorter lists')


@pytest.mark.parametrize(("lengths", "expected"), [
    ((24, 24), []), ((24, 25), [_TOO_MANY_VALUES]), ((1, 48), [_TOO_MANY_VALUES]), ((47,), []), ((48, 1), [_TOO_MANY_VALUES]),
])
def test_attribute_values_counted_on_the_precise_path(lengths: tuple[int, ...], expected: Found) -> None:
    attributes = {f"a{i}": {"ints": list(range(n))} for i, n in enumerate(lengths)}
    with precise_only():
        assert case({"spec.devices[0].attributes": attributes}) == expected
    assert case({"spec.devices[0].attributes": attributes}) == expected
