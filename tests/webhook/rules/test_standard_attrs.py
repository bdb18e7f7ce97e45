"""pcieRoot and pciBusID."""

from __future__ import annotations

import pytest

from tests.builders import device, slice_with
from tests.webhook.rules.conftest import Check

ROOT = "spec.devices[0].attributes[resource.kubernetes.io/pcieRoot]"
BDF = "spec.devices[0].attributes[resource.kubernetes.io/pciBusID]"


@pytest.mark.parametrize("value", ["pci0000:00", ["pci0000:00", "pci0000:80"]])
def test_pcie_root_string_or_list_passes(check: Check, value: object) -> None:
    assert check("pcie-root-type", slice_with(device(attributes={"resource.kubernetes.io/pcieRoot": value}))) == []


def test_pcie_root_int_is_the_wrong_type(check: Check) -> None:
    assert check("pcie-root-type", slice_with(device(attributes={"resource.kubernetes.io/pcieRoot": 0}))) == [
        (ROOT, "resource.kubernetes.io/pcieRoot is an int value; it must be string or strings")]


def test_pcie_root_empty_string_and_entry(check: Check) -> None:
    assert check("pcie-root-type", slice_with(device(attributes={"resource.kubernetes.io/pcieRoot": ""}))) == [
        (f"{ROOT}.string", "resource.kubernetes.io/pcieRoot is empty")]
    assert check("pcie-root-type", slice_with(device(attributes={
        "resource.kubernetes.io/pcieRoot": ["pci0000:00", ""]}))) == [
        (f"{ROOT}.strings[1]", "resource.kubernetes.io/pcieRoot entry 1 is empty")]


@pytest.mark.parametrize("address", ["0000:3b:00.0", "0001:ff:1f.7"])
def test_pci_bus_id_lower_case_bdf_passes(check: Check, address: str) -> None:
    assert check("pci-bus-id-format", slice_with(device(attributes={"resource.kubernetes.io/pciBusID": address}))) == []


@pytest.mark.parametrize("address", ["0000:3B:00.0", "3b:00.0", "0000:3b:20.0", "0000:3b:00.8"])
def test_pci_bus_id_not_a_lower_case_bdf_is_denied(check: Check, address: str) -> None:
    obj = slice_with(device(attributes={"resource.kubernetes.io/pciBusID": address}))
    assert check("pci-bus-id-format", obj) == [
        (f"{BDF}.string", f'resource.kubernetes.io/pciBusID "{address}" is not a PCI address dddd:bb:dd.f in '
         "lower-case hex")]


def test_pci_bus_id_upper_case_hint_gives_the_fix() -> None:
    from webhook.policy import Policy
    from webhook.run import run_rules

    obj = slice_with(device(attributes={"resource.kubernetes.io/pciBusID": "0000:3B:00.0"}))
    [finding] = [f for f in run_rules(obj, Policy.default()).findings if f.rule == "pci-bus-id-format"]
    assert finding.hint == "use lower-case hex: 0000:3b:00.0"


def test_pci_bus_id_int_is_the_wrong_type(check: Check) -> None:
    assert check("pci-bus-id-format", slice_with(device(attributes={"resource.kubernetes.io/pciBusID": 5}))) == [
        (BDF, "resource.kubernetes.io/pciBusID must be a string value")]
