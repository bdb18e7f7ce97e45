"""The audit's device inventory, built page by page from ResourceSlices and kept compact.

The selector rules need, per device, its driver, pool and name (for messages), which attributes it publishes,
which of them are lists, their element types, and what CEL reads (`attributes`, each capacity's `value`,
`allowMultipleAllocations`). That is all that is kept; a slice's other fields (node selection, taints,
counters, capacity request policies, the objects themselves) are dropped once its own rules have run.

Compactly: a device's attributes are a tuple of values beside a key tuple shared by every device with the
same attribute names. A value seen once (a uuid, a PCI address) is a `(member, value)` pair (`("string",
"GPU-1")`, `("ints", (0, 1))`); a value seen again is one wire map (`{"int": 0}`) shared by every device
that publishes it. Name sets and type maps are shared per attribute layout (`inventory.shape`); names,
drivers and pools are interned. `CompactDevice` shows CEL the wire form again, building the `attributes`
map of the device being evaluated (one device at a time), mostly from the shared maps.
About 0.4 KB per GPU with a dozen attributes, two of them unique (uuid, PCI bus id), measured with tracemalloc.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from celext.vocabulary import device_body
from webhook.inventory import Device, Inventory, Prebuilt, members, shape
from webhook.wire import Obj, as_map, get_list, get_str, name_of

Pair = tuple[str, Any]  # (DeviceAttribute member, value; a list as a tuple)
_ABSENT: Any = object()


def _wire(pair: Pair) -> dict[str, Any]:
    member, value = pair
    return {member: list(value) if isinstance(value, tuple) else value}


class CompactDevice(Mapping[str, Any]):
    """A device entry as CEL reads it (`attributes`, `capacity`, `allowMultipleAllocations`), stored compactly."""

    __slots__ = ("_capacity", "_keys", "_multiple", "_values")

    def __init__(self, keys: tuple[str, ...], values: tuple[Any, ...], capacity: tuple[Pair, ...] | None,
                 multiple: bool) -> None:
        self._keys, self._values, self._capacity, self._multiple = keys, values, capacity, multiple

    def get(self, key: str, default: Any = None) -> Any:
        # Not Mapping.get: CEL asks for `basic` on every evaluation, and a KeyError per miss costs more than
        # the lookup. The maps are built once per device in turn (_wire_view), however often they are read.
        if key == "attributes":
            return _wire_view(self)[1] if self._keys else default
        if key == "capacity":
            return _wire_view(self)[2] if self._capacity is not None else default
        if key == "allowMultipleAllocations":
            return True if self._multiple else default
        return default

    def __getitem__(self, key: str) -> Any:
        value = self.get(key, _ABSENT)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def __iter__(self) -> Iterator[str]:
        present = (("attributes", bool(self._keys)), ("capacity", self._capacity is not None),
                   ("allowMultipleAllocations", self._multiple))
        return (key for key, there in present if there)

    def __len__(self) -> int:
        return sum(1 for _ in self)


_View = tuple[CompactDevice | None, dict[str, Any] | None, dict[str, Any] | None]
_LAST: list[_View] = [(None, None, None)]  # one slot


def _wire_view(device: CompactDevice) -> _View:
    """The wire-form maps of the device evaluated last. One evaluation reads them several times (the
    conversion check, then each lookup); keeping one device's maps bounds memory by one device."""
    last = _LAST[0]  # read once: another thread may replace it, never change it
    if last[0] is device:
        return last
    attributes = {k: _wire(v) if type(v) is tuple else v
                  for k, v in zip(device._keys, device._values, strict=True)} if device._keys else None
    capacity = None if device._capacity is None else {name: {"value": value} for name, value in device._capacity}
    last = _LAST[0] = (device, attributes, capacity)
    return last


def _types(value: Any) -> Any:
    """What tells apart equal values of different JSON types (1, 1.0 and true are equal in Python, but
    `{"int": true}` is a conversion error where `{"int": 1}` is not): the type, or the element types."""
    return tuple(map(type, value)) if type(value) in (list, tuple) else type(value)


@dataclass(slots=True)
class DeviceInventory:
    """`add_slice()` and `add_class()` as pages arrive; `rules_view()` is what `run_rules(slices=...)` takes."""

    inventory: Inventory = field(default_factory=Inventory)
    _pairs: dict[Hashable, Any] = field(default_factory=dict)  # one table per kind of value, so that no
    _keys: dict[Hashable, Any] = field(default_factory=dict)  # value of one kind stands in for an equal
    _capacities: dict[Hashable, Any] = field(default_factory=dict)  # one of another

    def add_slice(self, slice_: Obj) -> int:
        """Keep the devices of one slice; answers how many."""
        driver = sys.intern(get_str(slice_, "spec", "driver"))
        pool = sys.intern(get_str(slice_, "spec", "pool", "name"))
        kept = self.inventory.devices
        count = len(kept)
        kept.extend(self._compact(raw, driver, pool) for raw in get_list(slice_, "spec", "devices")
                    if isinstance(raw, Mapping))
        return len(kept) - count

    def add_class(self, device_class: Obj) -> None:
        expressions = [e for raw in get_list(device_class, "spec", "selectors")
                       if (e := get_str(as_map(raw), "cel", "expression"))]
        self.inventory.classes[name_of(device_class)] = expressions

    def rules_view(self) -> Prebuilt:
        return Prebuilt(self.inventory)

    def _value(self, value: Any) -> Any:
        """A well-formed attribute as a `(member, value)` pair the first time it is seen, as one wire map shared
        by every device after that; a malformed one as it is (CEL reports it)."""
        if type(value) is not dict or len(value) != 1:
            return value
        ((member, inner),) = value.items()
        kind = type(inner)
        if kind is str:
            key = pair = (member, inner)
        else:
            pair = (member, tuple(inner) if kind is list else inner)
            key = (pair, _types(inner))
        try:
            seen = self._pairs.get(key)
        except TypeError:  # a list of maps or alike: malformed, keep it
            return value
        if seen is None:  # unique so far (a uuid, a PCI address): the small tuple
            self._pairs[key] = pair
            return pair
        if type(seen) is tuple:  # repeated: from now on the map CEL reads, built once
            seen = self._pairs[key] = _wire(seen)
        return seen

    def _compact(self, device: Mapping[str, Any], driver: str, pool: str) -> Device:
        body = as_map(device_body(device)) or {}
        attributes = body.get("attributes")
        keys: tuple[str, ...] = ()
        values: tuple[Any, ...] = ()
        kinds: tuple[tuple[str, ...], ...] = ()
        if type(attributes) is dict:
            raw_keys = tuple(attributes)
            keys = self._keys.get(raw_keys) or self._keys.setdefault(raw_keys, tuple(map(sys.intern, raw_keys)))
            values = tuple(map(self._value, attributes.values()))
            kinds = tuple(map(members, attributes.values()))
        names, lists, types = shape(driver, keys, kinds)
        capacity = body.get("capacity")
        pairs = None
        if type(capacity) is dict:  # CEL reads a capacity's value only
            pairs = tuple((sys.intern(str(k)), v.get("value") if type(v) is dict else v) for k, v in capacity.items())
            with contextlib.suppress(TypeError):  # a malformed value (a map) is kept, unshared
                pairs = self._capacities.setdefault((pairs, _types(tuple(v for _, v in pairs))), pairs)
        raw = CompactDevice(keys, values, pairs, body.get("allowMultipleAllocations") is True)
        return Device(driver, pool, sys.intern(get_str(device, "name")), raw, names, lists, types)
