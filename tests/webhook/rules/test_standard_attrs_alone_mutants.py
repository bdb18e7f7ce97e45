"""The rules of `webhook.rules.standard_attrs`, each run alone (every other rule of the catalogue off), on the served path and on the
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
    pytest.param('pcie-root-type', [{'resource.kubernetes.io/pcieRoot': {'int': 1, 'bool': True}}, {'resource.kubernetes.io/pcieRoot': {'string': ''}}, {'resource.kubernetes.io/pcieRoot': {'strings': ['a', '']}}], {},
                 [('pcie-root-type', 'spec.devices[0].attributes[resource.kubernetes.io/pcieRoot]', 'resource.kubernetes.io/pcieRoot is an int and a bool value; it must be string or strings', 'publish the root complex name, e.g. `string: "pci0000:00"`'), ('pcie-root-type', 'spec.devices[1].attributes[resource.kubernetes.io/pcieRoot].string', 'resource.kubernetes.io/pcieRoot is empty', 'omit the attribute when the root complex is unknown'), ('pcie-root-type', 'spec.devices[2].attributes[resource.kubernetes.io/pcieRoot].strings[1]', 'resource.kubernetes.io/pcieRoot entry 1 is empty', 'list only known root complexes')],
                 id='two wrong members, then an empty string'),
    pytest.param('pci-bus-id-format', [{'resource.kubernetes.io/pciBusID': {'string': '0000:3b:00.0', 'int': 1}}, {'resource.kubernetes.io/pciBusID': {'int': 1}}, {'resource.kubernetes.io/pciBusID': {'string': '0000:3B:00.0'}}, {'resource.kubernetes.io/pciBusID': {'string': '3b:00.0'}}], {},
                 [('pci-bus-id-format', 'spec.devices[0].attributes[resource.kubernetes.io/pciBusID]', 'resource.kubernetes.io/pciBusID must be a string value', 'publish the address as a string, e.g. `string: "0000:3b:00.0"`'), ('pci-bus-id-format', 'spec.devices[1].attributes[resource.kubernetes.io/pciBusID]', 'resource.kubernetes.io/pciBusID must be a string value', 'publish the address as a string, e.g. `string: "0000:3b:00.0"`'), ('pci-bus-id-format', 'spec.devices[2].attributes[resource.kubernetes.io/pciBusID].string', 'resource.kubernetes.io/pciBusID "0000:3B:00.0" is not a PCI address dddd:bb:dd.f in lower-case hex', 'use lower-case hex: 0000:3b:00.0'), ('pci-bus-id-format', 'spec.devices[3].attributes[resource.kubernetes.io/pciBusID].string', 'resource.kubernetes.io/pciBusID "3b:00.0" is not a PCI address dddd:bb:dd.f in lower-case hex', 'write the address as sysfs names it, domain:bus:device.function, e.g. 0000:3b:00.0')],
                 id='a string next to another member'),
]


@pytest.mark.parametrize(("rule", "devices", "policy", "expected"), CASES)
@pytest.mark.parametrize("precise", [False, True], ids=["served", "precise"])
def test_rule_alone_in_full(rule: str, devices: list[dict[str, Any]], policy: dict[str, Any], expected: Found,
                            precise: bool) -> None:
    assert devices_alone(rule, devices, precise=precise, **policy) == expected
