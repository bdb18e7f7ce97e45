"""A ResourceSlice's top-level fields given the wrong JSON type or an edge value, and updates that change (or
seem to change) an immutable field: the findings in full, through `run_rules`. Each wrong type is one the
API server's decoder refuses; its `k8s-wire-type` finding comes with whatever the field's absence implies.
Named `test_slice_*` so mutation testing runs it first on `webhook.rules.k8s.slice` (tests/mutation)."""

# ruff: noqa: E501

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from tests.webhook.rules.release_cases import RELEASES, findings_of
from tests.webhook.rules.slice_cases import DELETE, Found, changed, findings
from webhook.rules.k8s.fast import precise_only
from webhook.run import run_rules

CASES = [
    pytest.param({"metadata": 3}, 'v1',
                 [('k8s-wire-type', 'metadata', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-object-meta', 'metadata.name', 'Required value: name or generateName is required', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='metadata not an object'),
    pytest.param({"metadata.name": 3}, 'v1',
                 [('k8s-object-meta', 'metadata.name', 'Required value: name or generateName is required', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`'), ('k8s-wire-type', 'metadata.name', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='name not a string'),
    pytest.param({"metadata.name": DELETE, "metadata.generateName": 3}, 'v1',
                 [('k8s-wire-type', 'metadata.generateName', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-object-meta', 'metadata.name', 'Required value: name or generateName is required', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='generateName not a string'),
    pytest.param({"metadata.name": DELETE, "metadata.generateName": "gpu-"}, 'v1',
                 [],
                 id='generateName ending in a dash'),
    pytest.param({"metadata.name": DELETE, "metadata.generateName": "gpu.-"}, 'v1',
                 [],
                 id='generateName ending in a dot and a dash'),
    pytest.param({"metadata.name": DELETE, "metadata.generateName": "gpu."}, 'v1',
                 [('k8s-object-meta', 'metadata.generateName', 'Invalid value: "gpu.": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='generateName ending in a dot'),
    pytest.param({"metadata.name": DELETE, "metadata.generateName": "-"}, 'v1',
                 [],
                 id='generateName of one dash'),
    pytest.param({"metadata.labels": 3}, 'v1',
                 [('k8s-wire-type', 'metadata.labels', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='labels not an object'),
    pytest.param({"metadata.namespace": 3}, 'v1',
                 [('k8s-wire-type', 'metadata.namespace', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='namespace not a string'),
    pytest.param({"metadata.namespace": "ns"}, 'v1',
                 [],  # cleared by the API server before validation
                 id='a namespace'),
    pytest.param({"spec.bogus": 1}, 'v1',
                 [('k8s-unknown-field', 'spec.bogus', 'unknown field "spec.bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='unknown spec field'),
    pytest.param({"spec.driver": 3}, 'v1',
                 [('k8s-driver', 'spec.driver', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-driver', 'spec.driver', 'Required value', "use the driver's domain name, e.g. `gpu.example.com`"), ('k8s-wire-type', 'spec.driver', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='driver not a string'),
    pytest.param({"spec.pool": 3}, 'v1',
                 [('k8s-wire-type', 'spec.pool', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-pool', 'spec.pool.name', 'Required value', 'name the pool (often the node name) and publish resourceSliceCount >= 1'), ('k8s-pool', 'spec.pool.resourceSliceCount', 'Invalid value: 0: must be greater than zero', 'name the pool (often the node name) and publish resourceSliceCount >= 1')],
                 id='pool not an object'),
    pytest.param({"spec.pool.bogus": 1}, 'v1',
                 [('k8s-unknown-field', 'spec.pool.bogus', 'unknown field "spec.pool.bogus"', "fix the field name's spelling; a dropped union member leaves the attribute empty")],
                 id='unknown pool field'),
    pytest.param({"spec.pool.name": 3}, 'v1',
                 [('k8s-pool', 'spec.pool.name', 'Required value', 'name the pool (often the node name) and publish resourceSliceCount >= 1'), ('k8s-wire-type', 'spec.pool.name', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='pool name not a string'),
    pytest.param({"spec.pool.resourceSliceCount": "1"}, 'v1',
                 [('k8s-wire-type', 'spec.pool.resourceSliceCount', 'Invalid value: "1": must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='resourceSliceCount not an integer'),
    pytest.param({"spec.pool.resourceSliceCount": None}, 'v1',  # null decodes as Go's zero: then out of range
                 [('k8s-pool', 'spec.pool.resourceSliceCount', 'Invalid value: 0: must be greater than zero', 'name the pool (often the node name) and publish resourceSliceCount >= 1')],
                 id='resourceSliceCount null'),
    pytest.param({"spec.pool.resourceSliceCount": 1.5}, 'v1',
                 [('k8s-wire-type', 'spec.pool.resourceSliceCount', 'Invalid value: 1.5: must be of type integer', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='resourceSliceCount a fraction'),
    pytest.param({"spec.pool.generation": -1}, 'v1',
                 [('k8s-pool', 'spec.pool.generation', 'Invalid value: -1: must be greater than or equal to zero', 'name the pool (often the node name) and publish resourceSliceCount >= 1')],
                 id='generation -1'),
    pytest.param({"spec.pool.generation": 0}, 'v1',
                 [],
                 id='generation 0'),
    pytest.param({"spec.nodeName": 3}, 'v1',
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'set exactly one; booleans must be true or left out'), ('k8s-wire-type', 'spec.nodeName', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='nodeName not a string'),
    pytest.param({"spec.nodeName": ""}, 'v1',
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'set exactly one; booleans must be true or left out'), ('k8s-node-selection', 'spec.nodeName', 'Invalid value: "": must be either unset or set to a non-empty string', 'set exactly one; booleans must be true or left out')],
                 id='nodeName empty'),
    pytest.param({"spec.nodeName": DELETE, "spec.nodeSelector": 3}, 'v1',
                 [('k8s-node-selection', 'spec', 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required', 'set exactly one; booleans must be true or left out'), ('k8s-wire-type', 'spec.nodeSelector', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='nodeSelector not an object'),
    pytest.param({"spec.sharedCounters": 3}, 'v1',
                 [('k8s-wire-type', 'spec.sharedCounters', 'Invalid value: 3: must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='sharedCounters not a list'),
    pytest.param({"spec.devices": 3}, 'v1',
                 [('k8s-wire-type', 'spec.devices', 'Invalid value: 3: must be of type array', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='devices not a list'),
    pytest.param({"spec.devices": [{"name": "dev-0", "basic": {"attributes": {"a": {"int": 1}}}}]}, 'v1beta1',
                 [],
                 id='a v1beta1 basic device'),
    pytest.param({"spec.devices": [3]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a device not an object'),
    pytest.param({"spec.devices": [{"name": "dev-0"}, {"name": "dev-0"}]}, 'v1',
                 [('k8s-device-name', 'spec.devices[1]', 'Duplicate value: "dev-0"', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='a duplicate device name'),
    pytest.param({"spec.devices": [{"name": "dev-0"}, 3, {"name": "dev-0"}]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[1]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-device-name', 'spec.devices[2]', 'Duplicate value: "dev-0"', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='a duplicate past a device that is not an object'),
    pytest.param({"spec.devices": [{"name": 3}, {"name": "dev-1"}]}, 'v1',
                 [('k8s-device-name', 'spec.devices[0].name', 'Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once'), ('k8s-wire-type', 'spec.devices[0].name', 'Invalid value: 3: must be of type string', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a device name not a string'),
    pytest.param({"spec.devices": [{"name": f"dev-{i}"} for i in range(128)]}, 'v1',
                 [],
                 id='128 devices'),
    pytest.param({"spec.devices": [{"name": f"dev-{i}"} for i in range(129)]}, 'v1',
                 [('k8s-device-count', 'spec.devices', 'Too many: 129: must have at most 128 items', 'split the devices over more slices of the same pool (raise resourceSliceCount)')],
                 id='129 devices'),
    pytest.param({"spec.devices": [{"name": f"dev-{i}", **({"taints": [{"key": "k", "effect": "NoSchedule"}]} if i == 0 else {})} for i in range(64)]}, 'v1',
                 [],
                 id='64 devices, one tainted'),
    pytest.param({"spec.devices": [{"name": f"dev-{i}", **({"taints": [{"key": "k", "effect": "NoSchedule"}]} if i == 0 else {})} for i in range(65)]}, 'v1',
                 [('k8s-device-count', 'spec.devices', 'Too many: 65: must have at most 64 items', 'split the devices over more slices of the same pool (raise resourceSliceCount)')],
                 id='65 devices, one tainted'),
    pytest.param({"spec.devices": [{"name": f"dev-{i}", **({"attributes": {"a": {"ints": [1]}}} if i == 64 else {})} for i in range(65)]}, 'v1',
                 [('k8s-device-count', 'spec.devices', 'Too many: 65: must have at most 64 items', 'split the devices over more slices of the same pool (raise resourceSliceCount)')],
                 id='65 devices, the last with a list attribute'),
    pytest.param({"spec.devices": [{"name": f"dev-{i}", **({"consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}]} if i == 0 else {})} for i in range(65)]}, 'v1',
                 [('k8s-device-count', 'spec.devices', 'Too many: 65: must have at most 64 items', 'split the devices over more slices of the same pool (raise resourceSliceCount)')],
                 id='65 devices, one consuming counters'),
    pytest.param({"spec.devices": [3, {"name": "Bad Name"}]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-device-name', 'spec.devices[1].name', 'Invalid value: "Bad Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='a device not an object, then a bad name'),
    pytest.param({"spec.devices": [3, 4]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), ('k8s-wire-type', 'spec.devices[1]', 'Invalid value: 4: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='two devices not objects'),
    pytest.param({"spec.devices": [3]}, 'v1beta1',
                 [('k8s-wire-type', 'spec.devices[0]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='a v1beta1 device not an object'),
    pytest.param({"spec.devices": [3] + [{"name": f"dev-{i}"} for i in range(1, 129)]}, 'v1',
                 [('k8s-device-count', 'spec.devices', 'Too many: 129: must have at most 128 items', 'split the devices over more slices of the same pool (raise resourceSliceCount)')],
                 id='129 devices, one not an object'),
    pytest.param({"spec.devices": [3] + [{"name": f"dev-{i}"} for i in range(1, 65)]}, 'v1',
                 [('k8s-wire-type', 'spec.devices[0]', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`')],
                 id='65 devices, one not an object'),
    pytest.param({"spec.devices[0].taints": [{"key": f"k{i}", "effect": "NoSchedule"} for i in range(5)]}, '1.34 with taints',
                 [('k8s-taints', 'spec.devices[0].taints', 'Too many: 5: must have at most 4 items', 'Kubernetes 1.34 allows at most 4 taints per device (1.37: 16)')],
                 id='five taints on 1.34'),
    pytest.param({"spec.devices": [{"name": "dev-0"}, {"name": "dev-1", "taints": [{"key": f"k{i}", "effect": "NoSchedule"} for i in range(5)]}]}, '1.34 with taints',
                 [('k8s-taints', 'spec.devices[1].taints', 'Too many: 5: must have at most 4 items', 'Kubernetes 1.34 allows at most 4 taints per device (1.37: 16)')],
                 id='five taints on 1.34, on the second device'),
    pytest.param({"metadata.labels": {"a/b/c": "v"}}, '1.34',
                 [('k8s-object-meta', 'metadata.labels', 'Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\') with an optional DNS subdomain prefix and \'/\' (e.g. \'example.com/MyName\')', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='a label key of three parts on 1.34'),
    pytest.param({"metadata.name": DELETE, "metadata.generateName": ".-"}, 'v1',
                 [('k8s-object-meta', 'metadata.generateName', 'Invalid value: ".-": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')', 'use a lower-case DNS subdomain as the name, like `node-1-gpu.example.com`')],
                 id='a generateName of a dot and a dash'),
    pytest.param({"spec.partitionTypeAttribute": "gpu.example.com/kind", "spec.devices[0].consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}], "spec.devices[0].attributes": {"kind": {"int": 1}}}, 'v1+gates',
                 [('k8s-partition-type-attribute', 'spec.devices[0].attributes[gpu.example.com/kind]', 'Invalid value: {"int":1}: must be a string value because `partitionTypeAttribute` names this attribute', 'name a string attribute every counter-consuming device publishes, e.g. `gpu.example.com/profile`')],
                 id='a partition type with a device consuming counters'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
@pytest.mark.parametrize("precise", [False, True], ids=["served", "precise"])
def test_slice_fields_in_full(changes: dict[str, Any], version: str, expected: Found, precise: bool) -> None:
    with precise_only() if precise else contextlib.nullcontext():
        assert findings_of(changes, version) == expected


_DRIVER_INVALID = ('k8s-driver', 'spec.driver', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\') (already present before this update)', "use the driver's domain name, e.g. `gpu.example.com`")
_DRIVER_REQUIRED = ('k8s-driver', 'spec.driver', 'Required value (already present before this update)', "use the driver's domain name, e.g. `gpu.example.com`")
_POOL_NAME_REQUIRED = ('k8s-pool', 'spec.pool.name', 'Required value (already present before this update)', 'name the pool (often the node name) and publish resourceSliceCount >= 1')

# (new, old): a missing pool name, a pool that is not an object and an empty one all read as the name ""; a
# missing driver and an empty one both as "": none of these pairs changes an immutable field.
UPDATES = [
    pytest.param({'spec.pool': {'resourceSliceCount': 1}}, {'spec.pool': 3}, [_POOL_NAME_REQUIRED],
                 id='pool without a name, was not an object'),
    pytest.param({'spec.pool': 3}, {'spec.pool': {'resourceSliceCount': 1}},
                 [('k8s-wire-type', 'spec.pool', 'Invalid value: 3: must be of type object', 'give each field its API type: a list in [ ], an object in { }, strings and versions quoted, numbers and booleans bare, quantities like `16Gi`'), _POOL_NAME_REQUIRED, ('k8s-pool', 'spec.pool.resourceSliceCount', 'Invalid value: 0: must be greater than zero', 'name the pool (often the node name) and publish resourceSliceCount >= 1')],
                 id='pool not an object, was without a name'),
    pytest.param({'spec.driver': ''}, {'spec.driver': DELETE}, [_DRIVER_INVALID, _DRIVER_REQUIRED],
                 id='driver empty, was missing'),
    pytest.param({'spec.driver': DELETE}, {'spec.driver': ''}, [_DRIVER_INVALID, _DRIVER_REQUIRED],
                 id='driver missing, was empty'),
    pytest.param({'spec.driver': DELETE}, {'spec.driver': 'gpu.example.com'},
                 [(*_DRIVER_INVALID[:2], _DRIVER_INVALID[2].removesuffix(' (already present before this update)'), _DRIVER_INVALID[3]),
                  ('k8s-driver', 'spec.driver', 'Required value', "use the driver's domain name, e.g. `gpu.example.com`"),
                  ('k8s-immutable', 'spec.driver', 'Invalid value: "": field is immutable', 'delete and recreate the object instead of changing these fields')],
                 id='driver removed'),
    pytest.param({'spec.pool.name': 'other'}, {},
                 [('k8s-immutable', 'spec.pool.name', 'Invalid value: "other": field is immutable', 'delete and recreate the object instead of changing these fields')],
                 id='pool renamed'),
    pytest.param({'metadata.name': DELETE}, {}, [], id='name dropped on update'),
    pytest.param({'spec.devices[0].attributes': {'a': {'int': 1}}}, {'spec.devices[0].attributes': {'a': {'int': 2}}}, [],
                 id='an attribute changed'),
]


@pytest.mark.parametrize(("new", "old", "expected"), UPDATES)
def test_slice_updates_in_full(new: dict[str, Any], old: dict[str, Any], expected: Found) -> None:
    assert findings(changed(new), changed(old)) == expected


def test_an_old_spec_that_is_not_an_object() -> None:
    old = changed({})
    old["spec"] = 3
    assert findings(changed({}), old) == []


def test_an_update_keeps_a_gated_field_the_old_devices_used() -> None:
    policy = {"requestPolicy": {"default": "1"}}
    new = changed({"spec.devices[0].capacity": {"a": {"value": "1", **policy}}})
    for old, expected in [
        ({"b": {"value": "1"}}, [('k8s-feature-gate', 'spec.devices[0].capacity[a].requestPolicy', 'the API server drops this field: feature gate DRAConsumableCapacity (alpha in Kubernetes 1.34, off by default; this cluster: off)')]),
        ({"a": {"value": "1", **policy}}, [('k8s-capacity', 'spec.devices[0].capacity[a].requestPolicy', 'Forbidden: allowMultipleAllocations must be true')]),
    ]:
        outcome = run_rules(new, RELEASES["1.34"], old=changed({"spec.devices[0].capacity": old}))
        assert [(f.rule, str(f.path), f.message) for f in outcome.findings] == expected
