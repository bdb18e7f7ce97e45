"""The rules of `webhook.rules.numa`, each run alone (every other rule of the catalogue off), on the served path and on the
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
    pytest.param('numa-node-type', [{'resource.kubernetes.io/numaNode': {'int': 0}}, {'resource.kubernetes.io/numaNode': {'string': '0'}}], {},
                 [('numa-node-type', 'spec.devices[1].attributes[resource.kubernetes.io/numaNode]', 'resource.kubernetes.io/numaNode is a string value; it must be int or ints', 'publish the physical NUMA node as `int: N`, or the KEP-6072 list as `ints: [N, ...]`')],
                 id='a string after an int'),
    pytest.param('numa-node-range', [{'resource.kubernetes.io/numaNode': {'ints': [0, 'x', -1, 1024, 1023]}}, {'resource.kubernetes.io/numaNode': {'int': 2000}}], {},
                 [('numa-node-range', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].ints[2]', 'numaNode -1 is negative', 'omit the attribute while the NUMA node is unknown (drivers publish -1 for unknown; the KEP-6072 helper publishes nothing then)'), ('numa-node-range', 'spec.devices[0].attributes[resource.kubernetes.io/numaNode].ints[3]', 'numaNode 1024 must be below 1024', 'publish the node id the kernel reports; NUMA node ids are below 1024'), ('numa-node-range', 'spec.devices[1].attributes[resource.kubernetes.io/numaNode].int', 'numaNode 2000 must be below 1024', 'publish the node id the kernel reports; NUMA node ids are below 1024')],
                 id='bad values amid good ones'),
    pytest.param('numa-node-duplicates', [{'resource.kubernetes.io/numaNode': {'int': 0}}, {'resource.kubernetes.io/numaNode': {'ints': 5}}, {'resource.kubernetes.io/numaNode': {'ints': [0, 1, 0]}}], {},
                 [('numa-node-duplicates', 'spec.devices[2].attributes[resource.kubernetes.io/numaNode].ints[2]', 'numaNode 0 appears twice in the list (also at index 0)', 'list each NUMA node once: matchAttribute treats the list as a set, CEL counts every entry')],
                 id='a repeat after a scalar and a list that is not ints'),
    pytest.param('numa-node-order', [{'resource.kubernetes.io/numaNode': {'ints': [0, 1]}}, {'resource.kubernetes.io/numaNode': {'ints': [0, 3, 2]}}], {},
                 [('numa-node-order', 'spec.devices[1].attributes[resource.kubernetes.io/numaNode].ints[2]', 'numaNode list [0, 3, 2] is not ascending after the physical node (3 comes before 2); KEP-6072 gives those nodes no order, so this is style only', 'for stable diffs, publish the others ascending (as draguard topology prints them): [0, 2, 3]')],
                 id='a descent after a short list'),
    pytest.param('numa-node-list-form', [{'resource.kubernetes.io/numaNode': {'int': 0}}, {'resource.kubernetes.io/numaNode': {'ints': [0, 1]}}], {'numaNode': {'listForm': 'warn'}},
                 [('numa-node-list-form', 'spec.devices[1].attributes[resource.kubernetes.io/numaNode].ints', "numaNode is a list, but policy numaNode.listForm is warn: this cluster's scheduler does not apply list semantics yet", 'publish the physical node as `int: N` until the scheduler supports DRAListTypeAttributes (Kubernetes 1.37)')],
                 id='a list after a scalar'),
]


@pytest.mark.parametrize(("rule", "devices", "policy", "expected"), CASES)
@pytest.mark.parametrize("precise", [False, True], ids=["served", "precise"])
def test_rule_alone_in_full(rule: str, devices: list[dict[str, Any]], policy: dict[str, Any], expected: Found,
                            precise: bool) -> None:
    assert devices_alone(rule, devices, precise=precise, **policy) == expected
