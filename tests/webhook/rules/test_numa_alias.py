"""Vendor NUMA aliases beside the standard attribute."""

from __future__ import annotations

from tests.builders import device, slice_with
from tests.webhook.rules.conftest import Check
from webhook.policy import Policy

ATTRS = "spec.devices[0].attributes"


def test_alias_equal_to_physical_node_passes(check: Check) -> None:
    obj = slice_with(device(numa=[1, 0], attributes={"dra.net/numaNode": 1, "dra.cpu/numaNodeID": 1}))
    for rule in ("numa-node-alias-mismatch", "numa-node-alias-type", "numa-node-standard-missing"):
        assert check(rule, obj) == []


def test_alias_different_from_physical_node_is_denied(check: Check) -> None:
    obj = slice_with(device(numa=1, attributes={"dra.net/numaNode": 0}))
    assert check("numa-node-alias-mismatch", obj) == [
        (f"{ATTRS}[dra.net/numaNode].int",
         "dra.net/numaNode is 0 but resource.kubernetes.io/numaNode says the device is on NUMA node 1")]


def test_driver_own_alias_written_unqualified_is_compared(check: Check) -> None:
    obj = slice_with(device(numa=[2, 3], attributes={"numa": 3}), driver="gpu.example.com")
    assert check("numa-node-alias-mismatch", obj) == [
        (f"{ATTRS}[numa].int",
         "gpu.example.com/numa is 3 but resource.kubernetes.io/numaNode says the device is on NUMA node 2")]


def test_alias_list_comes_from_the_policy(check: Check) -> None:
    obj = slice_with(device(numa=1, attributes={"acme.io/socketNuma": 0}))
    assert check("numa-node-alias-mismatch", obj) == []
    policy = Policy.from_mapping({"numaNode": {"aliases": ["acme.io/socketNuma"]}})
    assert check("numa-node-alias-mismatch", obj, policy) == [
        (f"{ATTRS}[acme.io/socketNuma].int",
         "acme.io/socketNuma is 0 but resource.kubernetes.io/numaNode says the device is on NUMA node 1")]


def test_negative_alias_is_a_warning(check: Check) -> None:
    obj = slice_with(device(attributes={"dra.net/numaNode": -1}))
    assert check("numa-node-alias-type", obj) == [
        (f"{ATTRS}[dra.net/numaNode].int", "NUMA alias dra.net/numaNode is -1")]


def test_string_alias_is_a_warning(check: Check) -> None:
    obj = slice_with(device(numa=0, attributes={"dra.memory/numaNode": "0"}))
    assert check("numa-node-alias-type", obj) == [
        (f"{ATTRS}[dra.memory/numaNode]", "NUMA alias dra.memory/numaNode is a string value, not an int")]


def test_alias_without_standard_attribute_is_a_warning(check: Check) -> None:
    obj = slice_with(device(attributes={"dra.net/numaNode": 1}))
    assert check("numa-node-standard-missing", obj) == [
        (f"{ATTRS}[dra.net/numaNode]",
         "the device publishes dra.net/numaNode but not resource.kubernetes.io/numaNode, so cross-driver "
         "matchAttribute cannot see its NUMA node")]


def test_unknown_alias_does_not_ask_for_the_standard_attribute(check: Check) -> None:
    assert check("numa-node-standard-missing", slice_with(device(attributes={"dra.net/numaNode": -1}))) == []


def test_alias_is_not_compared_with_an_out_of_range_standard_value(check: Check) -> None:
    # -1 means "unknown": numa-node-range reports it; claiming the device sits on node -1 would mislead.
    for numa in (-1, [-1, 0], 1024):
        obj = slice_with(device(numa=numa, attributes={"dra.net/numaNode": 2}))
        assert check("numa-node-alias-mismatch", obj) == []
