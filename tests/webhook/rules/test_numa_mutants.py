"""Findings in full (rule, field path, message, in the runner's order) for small ResourceSlices that each break
one thing: the standard NUMA, PCIe root and PCI bus attributes and their vendor aliases. Fast through `run_rules`, so mutation testing runs them first on
`webhook.rules.numa` (tests/mutation); the messages are upstream's (k8s.io/kubernetes pkg/apis/resource/validation).
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.slice_cases import Found, case

CASES = [
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'string': '0'}}}]}, 'v1',
                 [('numa-node-type', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode]', 'resource.kubernetes.io/numaNode is a string value; it must be int or ints', 'publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`')],
                 id='numa string'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'bool': True}}}]}, 'v1',
                 [('numa-node-type', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode]', 'resource.kubernetes.io/numaNode is a bool value; it must be int or ints', 'publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`')],
                 id='numa bool'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'int': -1}}}]}, 'v1',
                 [('numa-node-range', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].int', 'numaNode -1 is negative', 'omit the attribute while the NUMA node is unknown (drivers publish -1 for unknown; the KEP-6072 helper publishes nothing then)')],
                 id='numa negative'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'int': 0}}}]}, 'v1',
                 [],
                 id='numa zero'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'int': 1024}}}]}, 'v1',
                 [('numa-node-range', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].int', 'numaNode 1024 must be below 1024', 'publish the node id the kernel reports; NUMA node ids are below 1024')],
                 id='numa 1024'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'ints': [1, 0]}}}]}, 'v1',
                 [],
                 id='numa list'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'ints': [0, 1]}}}]}, 'v1',
                 [],
                 id='numa list ok'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'ints': [0, 1, 1]}}}]}, 'v1',
                 [('numa-node-duplicates', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].ints[2]', 'numaNode 1 appears twice in the list (also at index 1)', 'list each NUMA node once: matchAttribute treats the list as a set, CEL counts every entry')],
                 id='numa list repeated'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'ints': [1, 0, 2]}}}]}, 'v1',
                 [],
                 id='numa list with zero second'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'ints': [0, 2, 1]}}}]}, 'v1',
                 [('numa-node-order', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].ints[2]', 'numaNode list [0, 2, 1] is not ascending after the physical node (2 comes before 1)', 'publish the physical node first, then the others ascending, as the KEP-6072 helper does: [0, 1, 2]')],
                 id='numa list unordered rest'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'ints': [0, -1]}}}]}, 'v1',
                 [('numa-node-range', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].ints[1]', 'numaNode -1 is negative', 'omit the attribute while the NUMA node is unknown (drivers publish -1 for unknown; the KEP-6072 helper publishes nothing then)')],
                 id='numa list negative'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'int': 0}}}, {'name': 'd1', 'attributes': {'resource.kubernetes.io/numaNode': {'ints': [0, 1]}}}]}, 'v1',
                 [('numa-node-mixed-form', 'spec.devices[1].attributes[resource.kubernetes.io/numaNode].ints', 'd1 publishes numaNode as ints while d0 uses int', 'publish one form across the slice, so one selector works on every device')],
                 id='numa mixed forms'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'numa': {'int': 0}}}]}, 'v1',
                 [('numa-node-standard-missing', 'spec.devices[0].attributes[numa]', 'the device publishes gpu.example.com/numa but not resource.kubernetes.io/numaNode, so cross-driver matchAttribute cannot see its NUMA node', 'also publish resource.kubernetes.io/numaNode with the same node (KEP-6072)')],
                 id='numa alias vendor'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'gpu.example.com/numaNode': {'int': 0}}}]}, 'v1',
                 [('numa-node-standard-missing', 'spec.devices[0].attributes[gpu.example.com/numaNode]', 'the device publishes gpu.example.com/numaNode but not resource.kubernetes.io/numaNode, so cross-driver matchAttribute cannot see its NUMA node', 'also publish resource.kubernetes.io/numaNode with the same node (KEP-6072)')],
                 id='numa alias vendor numaNode'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'numa': {'int': 0}, 'resource.kubernetes.io/numaNode': {'int': 0}}}]}, 'v1',
                 [],
                 id='numa alias and standard'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'numa': {'int': 1}, 'resource.kubernetes.io/numaNode': {'int': 0}}}]}, 'v1',
                 [('numa-node-alias-mismatch', 'spec.devices[0].attributes[numa].int', 'gpu.example.com/numa is 1 but resource.kubernetes.io/numaNode says the device is on NUMA node 0', 'publish the same physical node in both; selectors on gpu.example.com/numa and on the standard attribute would otherwise pick different devices')],
                 id='numa alias and standard differ'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/numaNode': {'int': 0}}}, {'name': 'd1', 'attributes': {}}]}, 'v1',
                 [],
                 id='numa some devices'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pcieRoot': {'string': 'bogus'}}}]}, 'v1',
                 [],
                 id='pcie root bad'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pcieRoot': {'int': 1}}}]}, 'v1',
                 [('pcie-root-type', 'spec.devices[0].attributes[resource.kubernetes.io/pcieRoot]', 'resource.kubernetes.io/pcieRoot is a int value; it must be string or strings', 'publish the root complex name, e.g. `string: "pci0000:00"`')],
                 id='pcie root int'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pcieRoot': {'string': 'pci0000:00'}}}]}, 'v1',
                 [],
                 id='pcie root ok'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pcieRoot': {'strings': ['pci0000:00', 'pci0000:01']}}}]}, 'v1',
                 [],
                 id='pcie roots list'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pcieRoot': {'strings': ['pci0000:00', 'x']}}}]}, 'v1',
                 [],
                 id='pcie roots list bad'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pciBusID': {'string': '3b:00.0'}}}]}, 'v1',
                 [('pci-bus-id-format', 'spec.devices[0].attributes[resource.kubernetes.io/pciBusID].string', 'resource.kubernetes.io/pciBusID "3b:00.0" is not a PCI address dddd:bb:dd.f in lower-case hex', 'write the address as sysfs names it, domain:bus:device.function, e.g. 0000:3b:00.0')],
                 id='pci bus id bad'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pciBusID': {'string': '0000:3B:00.0'}}}]}, 'v1',
                 [('pci-bus-id-format', 'spec.devices[0].attributes[resource.kubernetes.io/pciBusID].string', 'resource.kubernetes.io/pciBusID "0000:3B:00.0" is not a PCI address dddd:bb:dd.f in lower-case hex', 'use lower-case hex: 0000:3b:00.0')],
                 id='pci bus id upper'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pciBusID': {'string': '0000:3b:00.0'}}}]}, 'v1',
                 [],
                 id='pci bus id ok'),
    pytest.param({'spec.devices': [{'name': 'd0', 'attributes': {'resource.kubernetes.io/pciBusID': {'int': 3}}}]}, 'v1',
                 [('pci-bus-id-format', 'spec.devices[0].attributes[resource.kubernetes.io/pciBusID]', 'resource.kubernetes.io/pciBusID must be a string value', 'publish the address as a string, e.g. `string: "0000:3b:00.0"`')],
                 id='pci bus id int'),
    pytest.param({'spec.devices': [{'name': 'd', 'basic': {'attributes': {'resource.kubernetes.io/numaNode': {'int': -1}}}}]}, 'v1beta1',
                 [('numa-node-range', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].int', 'numaNode -1 is negative', 'omit the attribute while the NUMA node is unknown (drivers publish -1 for unknown; the KEP-6072 helper publishes nothing then)')],
                 id='numa in v1beta1'),
    pytest.param({'spec.devices': [{'attributes': {'resource.kubernetes.io/numaNode': {'string': 'x'}}}]}, 'v1',
                 [('numa-node-type', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode]', 'resource.kubernetes.io/numaNode is a string value; it must be int or ints', 'publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`'), ('k8s-device-name', 'spec.devices[0].name', 'Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='numa on unnamed'),
    pytest.param({'spec.devices': [{'name': 'a\x07', 'attributes': {'resource.kubernetes.io/numaNode': {'string': 'x'}}}]}, 'v1',
                 [('numa-node-type', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode]', 'resource.kubernetes.io/numaNode is a string value; it must be int or ints', 'publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`'), ('k8s-device-name', 'spec.devices[0].name', 'Invalid value: "a\\a": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')', 'use lower-case names of at most 63 characters, like `gpu-0`, each once')],
                 id='numa nonprintable name'),
]


@pytest.mark.parametrize(("changes", "version", "expected"), CASES)
def test_numa_findings_in_full(changes: dict[str, Any], version: str, expected: Found) -> None:
    assert case(changes, version) == expected

