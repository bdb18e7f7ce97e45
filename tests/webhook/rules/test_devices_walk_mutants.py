"""How the rules walk a slice's devices (`webhook.rules.devices`): read-only devices and attribute maps are read
like dicts, devices without a name or with an unprintable one are named `?` and escaped in messages, a spec
that is not an object is no device list, a driver that is not a string names no aliases. The findings in full
through `run_rules`. Named `test_devices_*` so mutation testing runs it first on `webhook.rules.devices`."""

# ruff: noqa: E501

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, case, changed, findings

NUMA = "resource.kubernetes.io/numaNode"
NEGATIVE = [('numa-node-range', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].int', 'numaNode -1 is negative', 'omit the attribute while the NUMA node is unknown (drivers publish -1 for unknown; the KEP-6072 helper publishes nothing then)')]

CASES = [
    pytest.param({'spec.devices': [{'attributes': {'resource.kubernetes.io/numaNode': {'ints': [0, 1]}}}, {'name': 'a\tb', 'attributes': {'resource.kubernetes.io/numaNode': {'ints': [0, 2]}}}]},
                 [('k8s-device-name', 'spec.devices[0].name', 'Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once'), ('numa-node-list-consistency', 'spec.devices[1].attributes[resource.kubernetes.io/numaNode].ints', 'a\\tb publishes [0, 2] but ?, on the same physical node 0, publishes [0, 1]', "derive every device's list from the same SLIT row (the KEP-6072 helper does); the order after the physical node does not matter"), ('k8s-device-name', 'spec.devices[1].name', 'Invalid value: "a\\tb": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='a device without a name and one with a tab in its name'),
    pytest.param({'spec': 3},
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'set exactly one; booleans must be true or left out'), ('k8s-wire-type', 'spec', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-driver', 'spec.driver', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-driver', 'spec.driver', 'Required value', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-pool', 'spec.pool.name', 'Required value', 'name the pool (often the node name) and publish resourceSliceCount >= 1'), ('k8s-pool', 'spec.pool.resourceSliceCount', 'Invalid value: 0: must be greater than zero', 'name the pool (often the node name) and publish resourceSliceCount >= 1')],
                 id='spec not an object'),
    pytest.param({'spec.driver': 3, 'spec.devices[0].attributes': {'numa': {'string': 'x'}}},
                 [('k8s-driver', 'spec.driver', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-driver', 'spec.driver', 'Required value', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-wire-type', 'spec.driver', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a driver that is not a string and a bare numa attribute'),
]


@pytest.mark.parametrize(("changes", "expected"), CASES)
def test_devices_in_full(changes: dict[str, Any], expected: Found) -> None:
    assert case(changes) == expected


def test_a_read_only_device_is_read() -> None:
    obj = changed({"spec.devices[0].attributes": {NUMA: {"int": -1}}})
    obj["spec"]["devices"][0] = MappingProxyType(obj["spec"]["devices"][0])
    assert findings(obj) == NEGATIVE


def test_a_read_only_attribute_map_is_read() -> None:
    obj = changed({})
    obj["spec"]["devices"][0]["attributes"] = MappingProxyType({NUMA: {"int": -1}})
    assert findings(obj) == NEGATIVE
