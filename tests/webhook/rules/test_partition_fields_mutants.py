"""`partitionTypeAttribute` under a driver that is not a string, naming an attribute that is null or not an object; `skipNodeOperations` of the wrong type. The findings in full through `run_rules`. Named `test_partition_fields*` so mutation
testing runs it first on `webhook.rules.k8s.partition`."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.release_cases import findings_of
from tests.webhook.rules.slice_cases import Found

CASES = [
    pytest.param({"spec.driver": 3, "spec.partitionTypeAttribute": "3/kind", "spec.devices[0].consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}], "spec.devices[0].attributes": {"kind": {"string": "a"}}}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[0].attributes[3/kind]', 'Required value: device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`'), ('k8s-driver', 'spec.driver', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-driver', 'spec.driver', 'Required value', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-wire-type', 'spec.driver', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a driver that is not a string and a partition type under its number'),
    pytest.param({"spec.partitionTypeAttribute": "gpu.example.com/kind", "spec.devices[0].consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}], "spec.devices[0].attributes": {"kind": None}}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Invalid value: {}: must be a string value because `partitionTypeAttribute` names this attribute', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`'), ('k8s-attribute-union', 'spec.devices[0].attributes[kind]', 'Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`', 'keep one value field per attribute; leave out empty lists')],
                 id='a partition type attribute of null'),
    pytest.param({"spec.partitionTypeAttribute": "gpu.example.com/kind", "spec.devices[0].consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}], "spec.devices[0].attributes": {"gpu.example.com/kind": 5}}, 'v1+gates',
                 [('k8s-attribute-union', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Invalid value: "": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`', 'keep one value field per attribute; leave out empty lists'), ('k8s-partition-type-attribute', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Invalid value: {}: must be a string value because `partitionTypeAttribute` names this attribute', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`'), ('k8s-wire-type', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Invalid value: 5: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a partition type attribute not an object'),
    pytest.param({"spec.skipNodeOperations": 3}, 'v1+gates',
                 [('k8s-wire-type', 'spec.skipNodeOperations', 'Invalid value: 3: must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='skipNodeOperations not a list'),
    pytest.param({"spec.partitionTypeAttribute": "gpu.example.com/kind", "spec.devices[0].consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}], "spec.devices[0].attributes": {"kind": {"int": 1}}}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Invalid value: {"int":1}: must be a string value because `partitionTypeAttribute` names this attribute', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='a partition type attribute that is an int'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert findings_of(changes, version) == expected
