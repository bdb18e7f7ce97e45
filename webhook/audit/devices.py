"""The audit's device inventory, built page by page from ResourceSlices and kept compact.

The selector rules need, per device, its driver, pool and name (for messages), which attributes it publishes,
which of them are lists, their element types, and what CEL can read (`attributes`, `capacity` values,
`allowMultipleAllocations`). That is all that is kept: a slice's other fields (node selection, taints,
counters, capacity request policies) are dropped once its own rules have run, attribute names and drivers
are interned, and equal attribute values, name sets and type maps are shared between devices. DeviceClasses
contribute their CEL selector expressions only.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from webhook.inventory import Device, Inventory, Prebuilt, _devices
from webhook.wire import Obj, as_map, get_list, get_str, name_of


def _frozen(value: Any) -> Hashable:
    if isinstance(value, Mapping):
        return tuple((str(k), _frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return ("[]", *(_frozen(v) for v in value))
    return (type(value).__name__, value)


@dataclass(slots=True)
class DeviceInventory:
    """`add_slice()` and `add_class()` as pages arrive; `rules_view()` is what `run_rules(slices=...)` takes."""

    inventory: Inventory = field(default_factory=Inventory)
    _shared: dict[Hashable, Any] = field(default_factory=dict)

    def _share(self, value: Any) -> Any:
        """One object for equal values (attribute values, name sets, type maps)."""
        try:
            key = (type(value).__name__, _frozen(value))
        except TypeError:  # unhashable leaf: keep the value as it is
            return value
        return self._shared.setdefault(key, value)

    def add_slice(self, slice_: Obj) -> int:
        """Keep the devices of one slice; answers how many."""
        count = 0
        for device in _devices(slice_):
            self.inventory.devices.append(self._compact(device))
            count += 1
        return count

    def add_class(self, device_class: Obj) -> None:
        expressions = [e for raw in get_list(device_class, "spec", "selectors")
                       if (e := get_str(as_map(raw), "cel", "expression"))]
        self.inventory.classes[name_of(device_class)] = expressions

    def rules_view(self) -> Prebuilt:
        return Prebuilt(self.inventory)

    def _compact(self, device: Device) -> Device:
        body = as_map(device.raw.get("basic")) or device.raw  # v1beta1 nests the fields under `basic`
        raw: dict[str, Any] = {}
        attributes = body.get("attributes")
        if isinstance(attributes, Mapping):
            raw["attributes"] = {sys.intern(str(k)): self._share(v) for k, v in attributes.items()}
        capacity = body.get("capacity")
        if isinstance(capacity, Mapping):  # CEL reads a capacity's value only
            raw["capacity"] = {sys.intern(str(k)): self._share({"value": v.get("value")} if isinstance(v, Mapping)
                                                                else v) for k, v in capacity.items()}
        if body.get("allowMultipleAllocations") is True:
            raw["allowMultipleAllocations"] = True
        return Device(sys.intern(device.driver), sys.intern(device.pool), device.name, raw,
                      self._share(device.attributes), self._share(device.lists), self._share(dict(device.types)))
