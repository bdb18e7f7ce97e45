"""The audit's device inventory, built page by page from ResourceSlices and kept compact.

The selector rules need, per device, its driver, pool and name (for messages), which attributes it publishes,
which of them are lists, their element types, and what CEL reads (`attributes`, each capacity's `value`,
`allowMultipleAllocations`). That is all that is kept; a slice's other fields (node selection, taints,
counters, capacity request policies, the objects themselves) are dropped once its own rules have run.

Compactly: a device's attributes are a tuple of `(member, value)` pairs (`("int", 0)`, `("ints", (0, 1))`)
beside a key tuple shared by every device with the same attribute names; equal pairs, name sets and type
maps are one object; names, drivers and pools are interned. `CompactDevice` shows CEL the wire form again,
building the `attributes` map when a selector is evaluated on the device (rarely: results are memoized).
About 0.4 KB per GPU with a dozen attributes, two of them unique (uuid, PCI bus id), measured with tracemalloc.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from webhook.inventory import Device, Inventory, Prebuilt, _devices
from webhook.wire import Obj, as_map, get_list, get_str, name_of

Pair = tuple[str, Any]  # (DeviceAttribute member, value; a list as a tuple)


def _wire(pair: Pair) -> dict[str, Any]:
    member, value = pair
    return {member: list(value) if isinstance(value, tuple) else value}


class CompactDevice(Mapping[str, Any]):
    """A device entry as CEL reads it (`attributes`, `capacity`, `allowMultipleAllocations`), stored compactly."""

    __slots__ = ("_capacity", "_keys", "_multiple", "_values")

    def __init__(self, keys: tuple[str, ...], values: tuple[Any, ...], capacity: tuple[Pair, ...] | None,
                 multiple: bool) -> None:
        self._keys, self._values, self._capacity, self._multiple = keys, values, capacity, multiple

    def __getitem__(self, key: str) -> Any:
        if key == "attributes" and self._keys:
            return {k: _wire(v) if isinstance(v, tuple) else v for k, v in zip(self._keys, self._values, strict=True)}
        if key == "capacity" and self._capacity is not None:
            return {name: {"value": value} for name, value in self._capacity}
        if key == "allowMultipleAllocations" and self._multiple:
            return True
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        present = (("attributes", bool(self._keys)), ("capacity", self._capacity is not None),
                   ("allowMultipleAllocations", self._multiple))
        return (key for key, there in present if there)

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(slots=True)
class DeviceInventory:
    """`add_slice()` and `add_class()` as pages arrive; `rules_view()` is what `run_rules(slices=...)` takes."""

    inventory: Inventory = field(default_factory=Inventory)
    _pairs: dict[Hashable, Any] = field(default_factory=dict)  # one table per kind of value, so that no
    _keys: dict[Hashable, Any] = field(default_factory=dict)  # value of one kind stands in for an equal
    _sets: dict[Hashable, Any] = field(default_factory=dict)  # one of another
    _types: dict[Hashable, Any] = field(default_factory=dict)
    _capacities: dict[Hashable, Any] = field(default_factory=dict)

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

    def _value(self, value: Any) -> Any:
        """A `(member, value)` pair for a well-formed attribute, else the wire value as it is (CEL reports it)."""
        if type(value) is dict and len(value) == 1:
            ((member, inner),) = value.items()
            if type(inner) is list:
                inner = tuple(inner)
            try:
                return _one(self._pairs, (sys.intern(member), inner))
            except TypeError:  # a list of maps or alike: malformed, keep it
                return value
        return value

    def _compact(self, device: Device) -> Device:
        body = as_map(device.raw.get("basic")) or device.raw  # v1beta1 nests the fields under `basic`
        attributes = body.get("attributes")
        keys: tuple[str, ...] = ()
        values: tuple[Any, ...] = ()
        if type(attributes) is dict:
            keys = _one(self._keys, tuple(sys.intern(str(k)) for k in attributes))
            values = tuple(self._value(v) for v in attributes.values())
        capacity = body.get("capacity")
        pairs = None
        if type(capacity) is dict:  # CEL reads a capacity's value only
            pairs = tuple((sys.intern(str(k)), v.get("value") if type(v) is dict else v) for k, v in capacity.items())
            with contextlib.suppress(TypeError):  # a malformed value (a map) is kept, unshared
                pairs = _one(self._capacities, pairs)
        raw = CompactDevice(keys, values, pairs, body.get("allowMultipleAllocations") is True)
        return Device(sys.intern(device.driver), sys.intern(device.pool), device.name, raw,
                      _one(self._sets, device.attributes), _one(self._sets, device.lists),
                      _one(self._types, _Types(device.types)))


def _one(table: dict[Hashable, Any], value: Hashable) -> Any:
    """One object for equal values."""
    return table.setdefault(value, value)


class _Types(dict[str, str]):
    """A type map that can be shared: hashable by content (never changed after it is built)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))
