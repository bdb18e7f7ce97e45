"""webhook.inventory: which attributes real devices publish, as lists or not at all."""

from __future__ import annotations

from tests.builders import device, device_class_with_selector, slice_with
from webhook.inventory import build, inventory_of, qualify


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
    assert inventory.candidates("unknown") == inventory.devices


def test_one_inventory_per_sequence() -> None:
    objects = (slice_with(),)
    assert inventory_of(objects) is inventory_of(objects)
