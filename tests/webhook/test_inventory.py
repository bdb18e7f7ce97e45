"""webhook.inventory: which attributes real devices publish, as lists or not at all."""

from __future__ import annotations

from tests.builders import device, device_class_with_selector, slice_with
from webhook.inventory import build, inventory_of, qualify
from webhook.rules.selectors_outcomes import candidates


def test_lists_and_qualified_names() -> None:
    inventory = build([
        slice_with(device("gpu-0", numa=[0, 1], attributes={"model": "A100"}), device("gpu-1", numa=2)),
        {"kind": "ConfigMap"},
    ])
    assert [d.label for d in inventory.devices] == ["gpu.example.com/pool-0/gpu-0", "gpu.example.com/pool-0/gpu-1"]
    assert inventory.devices[0].attributes == {"resource.kubernetes.io/numaNode", "gpu.example.com/model"}
    assert [d.name for d in inventory.list_devices("resource.kubernetes.io/numaNode")] == ["gpu-0"]
    assert qualify("numa", "gpu.nvidia.com") == "gpu.nvidia.com/numa"


def test_element_types_and_broken_unions() -> None:
    inventory = build([slice_with(device("gpu-0", numa=[0, 1], attributes={
        "model": "A100", "v": {"version": "1.2.3"}, "flags": [True], "broken": {"int": 1, "string": "x"}}))])
    assert inventory.devices[0].types == {"resource.kubernetes.io/numaNode": "int", "gpu.example.com/model": "string",
                                          "gpu.example.com/v": "version", "gpu.example.com/flags": "bool"}


def test_classes_are_kept_and_unknown_classes_mean_every_device() -> None:
    inventory = build([slice_with(), device_class_with_selector('device.driver == "x.io"', name="x")])
    assert inventory.classes == {"x": ['device.driver == "x.io"']}
    assert candidates(inventory, "unknown") == inventory.devices


def test_one_inventory_per_sequence() -> None:
    objects = (slice_with(),)
    assert inventory_of(objects) is inventory_of(objects)


def test_a_class_selects_the_devices_every_selector_matches() -> None:
    slices = slice_with(device("gpu-0", numa=0, attributes={"model": "A100"}), device("gpu-1", numa=1,
                        attributes={"model": "A100"}), device("gpu-2", attributes={"model": "H100"}))
    inventory = build([slices, {"kind": "DeviceClass", "metadata": {"name": "a100-numa0"}, "spec": {"selectors": [
        {"cel": {"expression": 'device.attributes["gpu.example.com"].model == "A100"'}},
        {"cel": {"expression": 'device.attributes["resource.kubernetes.io"].numaNode == 0'}}]}}])
    assert [d.name for d in candidates(inventory, "a100-numa0")] == ["gpu-0"]


def test_a_selector_failing_on_a_device_excludes_it_and_one_that_does_not_compile_selects_nothing() -> None:
    slices = slice_with(device("gpu-0", numa=0), device("gpu-1"))
    inventory = build([slices, device_class_with_selector('device.attributes["resource.kubernetes.io"].numaNode >= 0',
                                                          name="numa"),
                       device_class_with_selector("device.nope(", name="broken")])
    assert [d.name for d in candidates(inventory, "numa")] == ["gpu-0"]  # gpu-1: no such key
    assert candidates(inventory, "broken") == []
