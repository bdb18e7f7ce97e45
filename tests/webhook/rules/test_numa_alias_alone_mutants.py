"""The rules of `webhook.rules.numa_alias`, each run alone (every other rule of the catalogue off), on the served path and on the
precise one (`precise_only`): the rule is then the first to read the slice, so nothing another rule computed
first stands in for its own reads. Devices the rule skips come before the ones it reports, so a loop that
stops early loses a finding. The findings in full."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest

from tests.webhook.rules.release_cases import devices_alone
from tests.webhook.rules.slice_cases import Found

CASES = [
    pytest.param('numa-node-alias-mismatch', [{'dra.net/numaNode': {'int': 1}}, {'resource.kubernetes.io/numaNode': {'string': '0'}, 'dra.net/numaNode': {'int': 1}}, {'resource.kubernetes.io/numaNode': {'ints': 5}, 'dra.net/numaNode': {'int': 1}}, {'resource.kubernetes.io/numaNode': {'int': '3'}, 'dra.net/numaNode': {'int': 1}}, {'resource.kubernetes.io/numaNode': {'int': 0}, 'dra.net/numaNode': {'int': 1}}], {},
                 [('numa-node-alias-mismatch', 'spec.devices[4].attributes[dra.net/numaNode].int', 'dra.net/numaNode is 1 but resource.kubernetes.io/numaNode says the device is on NUMA node 0', 'publish the same physical node in both; selectors on dra.net/numaNode and on the standard attribute would otherwise pick different devices')],
                 id='a mismatch after a device without a usable node'),
    pytest.param('numa-node-alias-mismatch', [{'resource.kubernetes.io/numaNode': {'ints': [1, 0]}, 'dra.net/numaNode': {'int': 1}}, {'resource.kubernetes.io/numaNode': {'ints': [1]}, 'dra.net/numaNode': {'int': 2}}], {},
                 [('numa-node-alias-mismatch', 'spec.devices[1].attributes[dra.net/numaNode].int', 'dra.net/numaNode is 2 but resource.kubernetes.io/numaNode says the device is on NUMA node 1', 'publish the same physical node in both; selectors on dra.net/numaNode and on the standard attribute would otherwise pick different devices')],
                 id='the physical node is the first of the list'),
    pytest.param('numa-node-alias-mismatch', [{'resource.kubernetes.io/numaNode': {'int': 0}, 'gpu.example.com/numa': 5, 'numa': {'int': 1}}], {},
                 [('numa-node-alias-mismatch', 'spec.devices[0].attributes[numa].int', 'gpu.example.com/numa is 1 but resource.kubernetes.io/numaNode says the device is on NUMA node 0', 'publish the same physical node in both; selectors on gpu.example.com/numa and on the standard attribute would otherwise pick different devices')],
                 id='a qualified alias that is not an object falls back to the bare one'),
    pytest.param('numa-node-alias-type', [{'resource.kubernetes.io/numaNode': {'int': 0}, 'dra.net/numaNode': {}}, {'resource.kubernetes.io/numaNode': {'int': 0}, 'dra.net/numaNode': {'string': 'a', 'bool': True}}, {'resource.kubernetes.io/numaNode': {'int': 0}, 'dra.net/numaNode': {'int': -1}}], {},
                 [('numa-node-alias-type', 'spec.devices[0].attributes[dra.net/numaNode]', 'NUMA alias dra.net/numaNode is an empty value, not an int', 'publish vendor NUMA aliases as `int: N`, like the standard attribute'), ('numa-node-alias-type', 'spec.devices[1].attributes[dra.net/numaNode]', 'NUMA alias dra.net/numaNode is a string/bool value, not an int', 'publish vendor NUMA aliases as `int: N`, like the standard attribute'), ('numa-node-alias-type', 'spec.devices[2].attributes[dra.net/numaNode].int', 'NUMA alias dra.net/numaNode is -1', 'omit the alias while the NUMA node is unknown instead of publishing a negative value; selectors comparing node ids would match it')],
                 id='empty and two-member aliases'),
    pytest.param('numa-node-standard-missing', [{'resource.kubernetes.io/numaNode': {'int': 0}, 'dra.net/numaNode': {'int': 0}}, {'dra.net/numaNode': {'int': 1}}], {},
                 [('numa-node-standard-missing', 'spec.devices[1].attributes[dra.net/numaNode]', 'the device publishes dra.net/numaNode but not resource.kubernetes.io/numaNode, so cross-driver matchAttribute cannot see its NUMA node', 'also publish resource.kubernetes.io/numaNode with the same node (KEP-6072)')],
                 id='an alias without the standard attribute after one with it'),
]


@pytest.mark.parametrize(("rule", "devices", "policy", "expected"), CASES)
@pytest.mark.parametrize("precise", [False, True], ids=["served", "precise"])
def test_rule_alone_in_full(rule: str, devices: list[dict[str, Any]], policy: dict[str, Any], expected: Found,
                            precise: bool) -> None:
    assert devices_alone(rule, devices, precise=precise, **policy) == expected
