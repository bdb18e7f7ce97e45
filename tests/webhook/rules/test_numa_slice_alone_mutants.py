"""The rules of `webhook.rules.numa_slice`, each run alone (every other rule of the catalogue off), on the served path and on the
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
    pytest.param('numa-node-list-consistency', [{'resource.kubernetes.io/numaNode': {'int': 0}}, {'resource.kubernetes.io/numaNode': {'ints': [0, 1]}}, {'resource.kubernetes.io/numaNode': {'ints': [0, 2]}}], {},
                 [('numa-node-list-consistency', 'spec.devices[2].attributes[resource.kubernetes.io/numaNode].ints', 'dev-2 publishes [0, 2] but dev-1, on the same physical node 0, publishes [0, 1]', "derive every device's list from the same SLIT row (the KEP-6072 helper does); the order after the physical node does not matter")],
                 id='lists on one node differ after a scalar'),
    pytest.param('numa-node-mixed-form', [{'resource.kubernetes.io/numaNode': {'ints': [0]}}, {'resource.kubernetes.io/numaNode': {'string': '0'}}, {'resource.kubernetes.io/numaNode': {'ints': [1]}}], {},
                 [],
                 id='a value of neither form is not counted'),
    pytest.param('numa-node-mixed-form', [{'resource.kubernetes.io/numaNode': {'ints': [0]}}, {'resource.kubernetes.io/numaNode': {'int': 1}}, {'resource.kubernetes.io/numaNode': {'ints': [1]}}], {},
                 [('numa-node-mixed-form', 'spec.devices[1].attributes[resource.kubernetes.io/numaNode].int', 'dev-1 publishes numaNode as int while dev-0 uses ints', 'publish one form across the slice, so one selector works on every device')],
                 id='a scalar among lists'),
]


@pytest.mark.parametrize(("rule", "devices", "policy", "expected"), CASES)
@pytest.mark.parametrize("precise", [False, True], ids=["served", "precise"])
def test_rule_alone_in_full(rule: str, devices: list[dict[str, Any]], policy: dict[str, Any], expected: Found,
                            precise: bool) -> None:
    assert devices_alone(rule, devices, precise=precise, **policy) == expected
