"""A device's node-allocatable resources (1.37 `nodeAllocatableResources`, 1.36 `nodeAllocatableResourceMappings`)
given the wrong JSON type, unknown fields and multipliers at zero and below: the findings in full through
`run_rules`. Named `test_node_allocatable_*` so mutation testing runs it first on
`webhook.rules.k8s.node_allocatable`."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.release_cases import findings_of
from tests.webhook.rules.slice_cases import Found

CASES = [
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": 3}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu]', 'Required value: at least one of mapping or overhead must be set', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together'), ('k8s-wire-type', 'spec.devices[0].nodeAllocatableResources[cpu]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='an entry not an object'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"bogus": 1, "overhead": {"perPod": "1"}}}}, 'v1+gates',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResources[cpu].bogus', 'unknown field "spec.devices[0].nodeAllocatableResources[cpu].bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='an unknown entry field'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"mapping": 3}}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu]', 'Required value: at least one of mapping or overhead must be set', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together'), ('k8s-wire-type', 'spec.devices[0].nodeAllocatableResources[cpu].mapping', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='mapping not an object'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"overhead": 3}}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu]', 'Required value: at least one of mapping or overhead must be set', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together'), ('k8s-wire-type', 'spec.devices[0].nodeAllocatableResources[cpu].overhead', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='overhead not an object'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"mapping": {"bogus": 1, "deviceMultiplier": "1"}}}}, 'v1+gates',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResources[cpu].mapping.bogus', 'unknown field "spec.devices[0].nodeAllocatableResources[cpu].mapping.bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='an unknown mapping field'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"mapping": {"capacityKey": 3, "capacityMultiplier": "1"}}}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu].mapping.capacityKey', 'Required value: capacityKey is required when capacityMultiplier is set', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together'), ('k8s-wire-type', 'spec.devices[0].nodeAllocatableResources[cpu].mapping.capacityKey', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='capacityKey not a string'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "x"}}}}, 'v1+gates',
                 [('k8s-wire-type', 'spec.devices[0].nodeAllocatableResources[cpu].mapping.deviceMultiplier', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='deviceMultiplier not a quantity'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "0"}}}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu].mapping.deviceMultiplier', 'Invalid value: "0": must be positive', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together')],
                 id='deviceMultiplier 0'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "-1Ki"}}}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu].mapping.deviceMultiplier', 'Invalid value: "-1Ki": must be positive', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together')],
                 id='deviceMultiplier -1Ki'),
    pytest.param({"spec.devices[0].capacity": {"cores": {"value": "8"}}, "spec.devices[0].nodeAllocatableResources": {"cpu": {"mapping": {"capacityKey": "cores", "capacityMultiplier": "0"}}}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu].mapping.capacityMultiplier', 'Invalid value: "0": must be positive', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together')],
                 id='capacityMultiplier 0'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"overhead": {"bogus": 1, "perPod": "1"}}}}, 'v1+gates',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResources[cpu].overhead.bogus', 'unknown field "spec.devices[0].nodeAllocatableResources[cpu].overhead.bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='an unknown overhead field'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"overhead": {"perPod": "x"}}}}, 'v1+gates',
                 [('k8s-wire-type', 'spec.devices[0].nodeAllocatableResources[cpu].overhead.perPod', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='perPod not a quantity'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"overhead": {"perPod": "0"}}}}, 'v1+gates',
                 [],
                 id='perPod 0'),
    pytest.param({"spec.devices[0].nodeAllocatableResources": {"cpu": {"overhead": {"perContainer": "-1m"}}}}, 'v1+gates',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResources[cpu].overhead.perContainer', 'Invalid value: "-1m": must be non-negative', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together')],
                 id='perContainer -1m'),
    pytest.param({"spec.devices[0].nodeAllocatableResourceMappings": {"cpu": 3}}, '1.36',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResourceMappings[cpu]', 'Required value: at least one of allocationMultiplier or capacityKey must be set', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together'), ('k8s-wire-type', 'spec.devices[0].nodeAllocatableResourceMappings[cpu]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='1.36: an entry not an object'),
    pytest.param({"spec.devices[0].nodeAllocatableResourceMappings": {"cpu": {"bogus": 1, "allocationMultiplier": "1"}}}, '1.36',
                 [('k8s-unknown-field', 'spec.devices[0].nodeAllocatableResourceMappings[cpu].bogus', 'unknown field "spec.devices[0].nodeAllocatableResourceMappings[cpu].bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='1.36: an unknown entry field'),
    pytest.param({"spec.devices[0].nodeAllocatableResourceMappings": {"cpu": {"capacityKey": 3, "allocationMultiplier": "1"}}}, '1.36',
                 [('k8s-wire-type', 'spec.devices[0].nodeAllocatableResourceMappings[cpu].capacityKey', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='1.36: capacityKey not a string'),
    pytest.param({"spec.devices[0].nodeAllocatableResourceMappings": {"cpu": {"allocationMultiplier": "0"}}}, '1.36',
                 [('k8s-node-allocatable-resources', 'spec.devices[0].nodeAllocatableResourceMappings[cpu].allocationMultiplier', 'Invalid value: "0": must be positive', 'use a native resource name and a capacity key the device publishes; set capacityKey and capacityMultiplier together')],
                 id='1.36: allocationMultiplier 0'),
    pytest.param({"spec.devices[0].nodeAllocatableResourceMappings": {"cpu": {"allocationMultiplier": "x"}}}, '1.36',
                 [('k8s-wire-type', 'spec.devices[0].nodeAllocatableResourceMappings[cpu].allocationMultiplier', 'Invalid value: "x": quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='1.36: allocationMultiplier not a quantity'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_node_allocatable_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert findings_of(changes, version) == expected
