"""The fast accept's `Digest`, value by value: which attributes it calls plain (so their rule family is skipped)
and which it leaves to the precise rules. A value wrongly called plain hides a finding; a plain value wrongly
refused only costs time, which no finding shows, so the digest is asserted here directly, on the slice as the
rule runner gives it (`digest(slice, RuleContext)`)."""

from __future__ import annotations

from typing import Any

import pytest

from webhook.policy import Policy
from webhook.rules.base import RuleContext
from webhook.rules.k8s.fast import precise_only
from webhook.rules.plain import (
    NOTHING_PROVEN,
    Digest,
    alias_keys,
    alias_names,
    bus_plain,
    digest,
    numa_plain,
    root_plain,
)

NUMA = "resource.kubernetes.io/numaNode"
PCIE = "resource.kubernetes.io/pcieRoot"
BUS = "resource.kubernetes.io/pciBusID"
DRIVER = "gpu.example.com"
ALL = Digest(numa=True, numa_alike=True, aliases=True, pcie_root=True, pci_bus_id=True)


def _slice(*attributes: dict[str, Any] | None) -> dict[str, Any]:
    devices = [{"name": f"dev-{i}"} if attrs is None else {"name": f"dev-{i}", "attributes": attrs}
               for i, attrs in enumerate(attributes)]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": DRIVER, "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
                     "devices": devices}}


def _digest(*attributes: dict[str, Any] | None) -> Digest:
    return digest(_slice(*attributes), RuleContext(policy=Policy.default()))


def _only(**false: bool) -> Digest:
    return Digest(**{**dict.fromkeys(("numa", "numa_alike", "aliases", "pcie_root", "pci_bus_id"), True), **false})


@pytest.mark.parametrize(("attribute", "plain"), [
    ({"int": 0}, True), ({"int": 1}, True), ({"int": 1023}, True), ({"int": 1024}, False), ({"int": -1}, False),
    ({"int": True}, False), ({"int": "1"}, False), ({"int": 1, "bool": True}, False), ({}, False),
    ({"string": "1"}, False),
    ({"ints": [0]}, True), ({"ints": [1]}, True), ({"ints": [1, 0, 2]}, True), ({"ints": [1023, 0]}, True),
    ({"ints": [0, 1024]}, False), ({"ints": [-1]}, False), ({"ints": [1, 0, 0]}, False),
    ({"ints": [1, 2, 0]}, False), ({"ints": []}, False), ({"ints": 1}, False), ({"ints": [1, "2"]}, False),
    ({"ints": [True]}, False), ({"ints": [0], "int": 0}, False),
])
def test_numa_plain(attribute: dict[str, Any], plain: bool) -> None:
    assert numa_plain(attribute) is plain


@pytest.mark.parametrize(("attribute", "plain"), [
    ({"string": "pci0000:00"}, True), ({"string": ""}, False), ({"string": 1}, False),
    ({"string": "a", "strings": ["a"]}, False), ({}, False),
    ({"strings": ["a", "b"]}, True), ({"strings": []}, True), ({"strings": ["a", ""]}, False),
    ({"strings": "a"}, False), ({"int": 1}, False),
])
def test_root_plain(attribute: dict[str, Any], plain: bool) -> None:
    assert root_plain(attribute) is plain


@pytest.mark.parametrize(("attribute", "plain"), [
    ({"string": "0000:3b:00.0"}, True), ({"string": "0000:3b:1f.7"}, True), ({"string": "0000:3B:00.0"}, False),
    ({"string": "0000:3b:20.0"}, False), ({"string": "0000:3b:00.8"}, False), ({"string": 1}, False),
    ({"string": "0000:3b:00.0", "strings": []}, False), ({"STRING": "0000:3b:00.0"}, False), ({}, False),
])
def test_bus_plain(attribute: dict[str, Any], plain: bool) -> None:
    assert bus_plain(attribute) is plain


def test_alias_names_and_keys() -> None:
    assert alias_names(DRIVER, ("dra.net/numaNode", NUMA, "dra.net/numaNode")) == [
        "dra.net/numaNode", f"{DRIVER}/numaNode", f"{DRIVER}/numa"]
    assert alias_names("", ("dra.net/numaNode",)) == ["dra.net/numaNode"]
    assert alias_names("bad\tdriver", ()) == []
    assert alias_keys(DRIVER, ("dra.net/numaNode",)) == [
        ("dra.net/numaNode", None), (f"{DRIVER}/numaNode", "numaNode"), (f"{DRIVER}/numa", "numa")]


@pytest.mark.parametrize(("devices", "expected"), [
    ((), ALL),
    ((None, {}), ALL),
    (({NUMA: {"int": 0}}, {NUMA: {"int": 1}}), ALL),
    (({NUMA: {"ints": [0, 1]}}, {NUMA: {"ints": [1, 0]}}), ALL),
    (({NUMA: {"ints": [0, 1]}}, {NUMA: {"ints": [0, 2]}}), _only(numa_alike=False)),
    (({NUMA: {"int": 0}}, {NUMA: {"ints": [1]}}), _only(numa_alike=False)),
    (({NUMA: {"int": 1024}},), _only(numa=False, numa_alike=False)),
    (({NUMA: {"string": "0"}},), _only(numa=False, numa_alike=False)),
    (({NUMA: {"int": 0}}, {NUMA: {"int": -1}}), _only(numa=False, numa_alike=False)),
    # An alias is plain only as an `{int: n}` naming the node of a plain standard attribute.
    (({NUMA: {"int": 1}, "dra.net/numaNode": {"int": 1}},), ALL),
    (({NUMA: {"int": 1}, "numaNode": {"int": 1}},), ALL),
    (({NUMA: {"ints": [1, 0]}, f"{DRIVER}/numa": {"int": 1}},), ALL),
    (({NUMA: {"int": 1}, "dra.net/numaNode": {"int": 2}},), _only(aliases=False)),
    (({NUMA: {"int": 1}, "numa": {"int": 0}},), _only(aliases=False)),
    (({"dra.net/numaNode": {"int": 1}},), _only(aliases=False)),
    (({NUMA: {"int": 1}, "dra.net/numaNode": {"int": 1, "bool": True}},), _only(aliases=False)),
    (({NUMA: {"int": 1}, "dra.net/numaNode": {"ints": [1]}},), _only(aliases=False)),
    (({NUMA: {"int": 1}, "dra.net/numaNode": {"int": True}},), _only(aliases=False)),
    (({NUMA: {"int": 1}, "dra.net/numaNode": 1},), _only(aliases=False)),
    (({NUMA: {"int": 1}, "dra.cpu/numaNodeID": {"int": 1}, "numaNodeID": {"string": "x"}},), ALL),
    (({PCIE: {"string": "pci0000:00"}, BUS: {"string": "0000:3b:00.0"}},), ALL),
    (({PCIE: {"string": ""}},), _only(pcie_root=False)),
    (({PCIE: "pci0000:00"},), ALL),
    (({NUMA: 5}, {NUMA: None}), ALL),
    (({BUS: {"string": "0000:3B:00.0"}},), _only(pci_bus_id=False)),
    (({BUS: "0000:3B:00.0"},), ALL),
    (({PCIE: {"string": "a"}}, {PCIE: {"string": ""}}, {PCIE: {"string": "b"}}), _only(pcie_root=False)),
    (({BUS: {"string": "0000:3b:00.0"}}, {BUS: {"string": "x"}}, {BUS: {"string": "0000:3b:00.1"}}),
     _only(pci_bus_id=False)),
])
def test_digest(devices: tuple[dict[str, Any] | None, ...], expected: Digest) -> None:
    assert _digest(*devices) == expected


def test_digest_of_an_attribute_map_subclass_is_not_plain() -> None:
    class Attr(dict[str, Any]):
        pass

    assert _digest({NUMA: Attr(int=0)}) == _only(numa=False, numa_alike=False)
    assert _digest({PCIE: Attr(string="a")}) == _only(pcie_root=False)
    assert _digest({BUS: Attr(string="0000:3b:00.0")}) == _only(pci_bus_id=False)


def test_precise_only_proves_nothing() -> None:
    with precise_only():
        assert _digest({NUMA: {"int": 0}}) == NOTHING_PROVEN
    assert _digest({NUMA: {"int": 0}}) == ALL
