"""celext.alloc.pools.slice_devices: the devices of ResourceSlices among parsed documents."""

from __future__ import annotations

from celext.alloc.pools import slice_devices


def test_slice_devices_unpacks_lists_and_skips_other_objects() -> None:
    one = {"kind": "ResourceSlice", "spec": {"driver": "a", "devices": [{"name": "a0"}, "junk", {"name": "a1"}]}}
    two = {"kind": "ResourceSlice", "spec": {"driver": "b", "devices": [{"name": "b0"}]}}
    documents = [None, "text", {"kind": "DeviceClass"}, one, {"kind": "List", "items": [two, {"kind": "Node"}]},
                 {"kind": "ResourceSlice", "spec": 5}]
    assert [(d["name"], driver) for d, driver in slice_devices(documents)] == [("a0", "a"), ("a1", "a"), ("b0", "b")]
