"""numaNode consistency across the devices of one slice."""

from __future__ import annotations

from tests.builders import device, slice_with
from tests.webhook.rules.conftest import Check


def test_same_physical_node_same_list_passes(check: Check) -> None:
    obj = slice_with(device("gpu-0", numa=[0, 1]), device("gpu-1", numa=[0, 1]), device("gpu-2", numa=[1, 0]))
    assert check("numa-node-list-consistency", obj) == []
    assert check("numa-node-mixed-form", obj) == []


def test_same_physical_node_different_lists_warns(check: Check) -> None:
    obj = slice_with(device("gpu-0", numa=[0, 1]), device("gpu-1", numa=[0]))
    assert check("numa-node-list-consistency", obj) == [
        ("spec.devices[1].attributes[resource.kubernetes.io/numaNode].ints",
         "gpu-1 publishes [0] but gpu-0, on the same physical node 0, publishes [0, 1]")]


def test_scalar_and_list_forms_mixed_warns(check: Check) -> None:
    obj = slice_with(device("gpu-0", numa=[0, 1]), device("gpu-1", numa=1))
    assert check("numa-node-mixed-form", obj) == [
        ("spec.devices[1].attributes[resource.kubernetes.io/numaNode].int",
         "gpu-1 publishes numaNode as int while gpu-0 uses ints")]


def test_mixed_form_reports_the_minority(check: Check) -> None:
    obj = slice_with(device("gpu-0", numa=[0, 1]), device("gpu-1", numa=1), device("gpu-2", numa=0))
    assert check("numa-node-mixed-form", obj) == [
        ("spec.devices[0].attributes[resource.kubernetes.io/numaNode].ints",
         "gpu-0 publishes numaNode as ints while gpu-1 uses int")]
