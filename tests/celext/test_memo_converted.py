"""Converted devices remembered per device object and driver (celext.runtime.memo, celext.runtime.wire.converted).

A remembered value is given back while the device, its attribute map and its capacity map are the same objects
with the same sizes, and only for the driver it was made for; any other device (a Mapping that is not a dict, a
`basic` that is not a map) is converted every time. The table is dropped when full.
"""

from __future__ import annotations

from collections import UserDict
from typing import Any

import pytest

from celext.runtime import wire
from celext.runtime.memo import MISS, DeviceMemo


def _device(body: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A device and the map holding its attributes and capacities (the device itself, or its `basic`)."""
    fields: dict[str, Any] = {"attributes": {"x": {"int": 1}}, "capacity": {"m": {"value": "1"}}}
    if body == "v1":
        fields["name"] = "d"
        return fields, fields
    return {"name": "d", "basic": fields}, fields


@pytest.mark.parametrize("body", ["v1", "v1beta1"])
def test_a_converted_device_is_given_back_until_its_maps_change(body: str) -> None:
    wire.CONVERTED.clear()
    device, fields = _device(body)
    first = wire.converted(device, "d")
    assert wire.converted(device, "d") is first
    assert len(wire.CONVERTED) == 1
    other = wire.converted(device, "e")  # another driver: converted again, and remembered for that driver
    assert other is not first
    assert wire.converted(device, "e") is other
    assert wire.converted(device, "d") is not first
    changes = [
        lambda: fields["attributes"].update(y={"int": 2}),
        lambda: fields.update(attributes={"x": {"int": 1}}),
        lambda: fields["capacity"].update(n={"value": "2"}),
        lambda: fields.update(capacity={"m": {"value": "1"}}),
        lambda: fields.pop("capacity"),
        lambda: fields.pop("attributes"),
    ]
    for change in changes:
        before = wire.converted(device, "d")
        assert wire.converted(device, "d") is before
        change()
        assert wire.converted(device, "d") is not before


def test_a_device_that_is_not_a_dict_is_converted_every_time() -> None:
    wire.CONVERTED.clear()
    for device in (UserDict({"name": "d", "attributes": {"x": {"int": 1}}}), {"name": "d", "basic": 5}):
        assert wire.converted(device, "d") is not wire.converted(device, "d")
    assert len(wire.CONVERTED) == 0


def test_a_remembered_value_belongs_to_its_device_its_key_and_its_maps() -> None:
    memo = DeviceMemo(8)
    device, fields = _device("v1beta1")
    twin = {"name": "d", "basic": fields}  # the same maps under another device object
    memo.put(device, "answer", "k")
    assert memo.get(device, "k") == "answer"
    assert memo.get(twin, "k") is MISS
    assert memo.get(device, "other") is MISS
    assert memo.get(device) is MISS
    assert memo.get(UserDict(device), "k") is MISS
    device["basic"] = dict(fields)  # another body holding the same two maps: still the remembered device
    assert memo.get(device, "k") == "answer"
    device["basic"] = {**fields, "attributes": dict(fields["attributes"])}  # an equal map, not the same one
    assert memo.get(device, "k") is MISS
    device["basic"] = {**fields, "capacity": dict(fields["capacity"])}
    assert memo.get(device, "k") is MISS
    device["basic"] = fields
    assert memo.get(device, "k") == "answer"
    device["basic"] = 5
    assert memo.get(device, "k") is MISS


def test_a_device_with_maps_that_are_not_dicts_is_not_remembered() -> None:
    memo = DeviceMemo(8)
    for device in ({"name": "d", "attributes": UserDict()}, {"name": "d", "capacity": UserDict()},
                   {"name": "d", "basic": UserDict({"attributes": {}})}, UserDict({"name": "d"})):
        memo.put(device, "answer")
        assert memo.get(device) is MISS
    assert len(memo) == 0
    bare: dict[str, Any] = {"name": "d"}  # no maps at all: remembered, sizes read as 0
    memo.put(bare, "answer")
    assert memo.get(bare) == "answer"
    bare["attributes"] = {}
    assert memo.get(bare) is MISS


@pytest.mark.parametrize(("devices", "kept"), [(2, 2), (3, 3), (4, 1)])
def test_the_table_is_dropped_when_full(devices: int, kept: int) -> None:
    memo = DeviceMemo(3)
    made = [{"name": f"d{i}"} for i in range(devices)]
    for number, device in enumerate(made):
        memo.put(device, number)
    assert len(memo) == kept
    assert memo.get(made[-1]) == devices - 1
    memo.clear()
    assert len(memo) == 0
