"""The audit's device inventory, built page by page from ResourceSlices and kept compact.

The selector rules need, per device, its driver, pool and name (for messages), which attributes it publishes,
which of them are lists, their element types, and what CEL reads (`attributes`, each capacity's `value`,
`allowMultipleAllocations`). That is all that is kept; a slice's other fields (node selection, taints,
counters, capacity request policies, the objects themselves) are dropped once its own rules have run.

Compactly: a device's attribute values are a tuple beside a key tuple shared by every device with the same
attribute names. Each value is the wire map of the first device that published it (`{"int": 0}`), shared by
every later device whose value has the same JSON text (msgspec's encoding: equal values of different JSON
types stay apart); a device's capacities are one `{name: {"value": v}}` map, shared likewise. Looking a value
up by its text runs in C (`map`), which is what makes the inventory cheap next to decoding. Name sets, type
maps and capacity names are one `inventory.Layout` per attribute layout; names, drivers and pools are interned.
Whether celext's fast conversion check accepts a value is judged once per shared value, so each device comes
out marked `clean` (no verdict needed when a selector is evaluated on it) at no cost per device.
`CompactDevice` shows CEL the wire form again: the `attributes` map of the device being evaluated is zipped
from the two tuples (one device at a time). About 0.8 KB per GPU with a dozen attributes, two of them unique
(uuid, PCI bus id; their texts are kept as the table's keys).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import msgspec
from msgspec import Struct, field

from celext.runtime.verdict import clean
from celext.vocabulary import device_body
from webhook.inventory import Device, Inventory, Members, Prebuilt, layout, members
from webhook.wire import Obj, as_map, get_list, get_str, name_of

_ABSENT: Any = object()
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


class CompactDevice(Mapping[str, Any]):
    """A device entry as CEL reads it (`attributes`, `capacity`, `allowMultipleAllocations`), stored compactly."""

    __slots__ = ("_capacity", "_keys", "_multiple", "_values")

    def __init__(self, keys: tuple[str, ...], values: tuple[Any, ...], capacity: dict[str, Any] | None,
                 multiple: bool) -> None:
        self._keys, self._values, self._capacity, self._multiple = keys, values, capacity, multiple

    def get(self, key: str, default: Any = None) -> Any:
        # Not Mapping.get: CEL asks for `basic` on every evaluation, and a KeyError per miss costs more than
        # the lookup.
        if key == "attributes":
            return _attributes(self) if self._keys else default
        if key == "capacity":
            return self._capacity if self._capacity is not None else default
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


_LAST: list[tuple[CompactDevice | None, dict[str, Any]]] = [(None, {})]  # one slot


def _attributes(device: CompactDevice) -> dict[str, Any]:
    """The `attributes` map of the device evaluated last. One evaluation reads it several times (the
    conversion check, then each lookup); keeping one device's map bounds memory by one device."""
    last = _LAST[0]  # read once: another thread may replace it, never change it
    if last[0] is not device:
        last = _LAST[0] = (device, dict(zip(device._keys, device._values, strict=True)))
    return last[1]


def _faithful(key: bytes, value: Any) -> bool:
    """Whether a value's JSON text says all of it, so that values with equal texts may share one map: true of
    anything decoded from JSON. Not of NaN or infinities (written `null`), nor of Python-only types (a tuple
    or set is written as a list), which stay unshared."""
    try:
        return bool(_decode(key) == value)
    except (msgspec.DecodeError, RecursionError):  # pragma: no cover - msgspec reads what it wrote
        return False


class DeviceInventory(Struct):
    """`add_slice()` and `add_class()` as pages arrive; `rules_view()` is what `run_rules(slices=...)` takes."""

    inventory: Inventory = field(default_factory=Inventory)
    # Shared values by their JSON text, which tells apart equal values of different JSON types (1, 1.0 and
    # true are equal in Python, but `{"int": true}` is a conversion error where `{"int": 1}` is not): text ->
    # (the first wire map published with it, its inventory.members(), whether celext's fast verdict accepts it).
    _values_seen: dict[bytes, tuple[Any, Members, bool]] = field(default_factory=dict)
    _keys: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)
    # by JSON text, as values: (the shared map, its capacity names, whether the fast verdict accepts it)
    _capacities: dict[bytes, tuple[dict[str, Any], tuple[str, ...], bool]] = field(default_factory=dict)

    def add_slice(self, slice_: Obj) -> int:
        """Keep the devices of one slice; answers how many."""
        driver = sys.intern(get_str(slice_, "spec", "driver"))
        pool = sys.intern(get_str(slice_, "spec", "pool", "name"))
        kept = self.inventory.devices
        count = len(kept)
        compact = self._compact
        kept.extend([compact(raw, driver, pool) for raw in get_list(slice_, "spec", "devices")
                     if type(raw) is dict or isinstance(raw, Mapping)])
        return len(kept) - count

    def add_class(self, device_class: Obj) -> None:
        expressions = [e for raw in get_list(device_class, "spec", "selectors")
                       if (e := get_str(as_map(raw), "cel", "expression"))]
        self.inventory.classes[name_of(device_class)] = expressions

    def rules_view(self) -> Prebuilt:
        return Prebuilt(self.inventory)

    def _values(self, attributes: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Members, ...], bool]:
        """Each value as the first wire map published with its JSON text (`{"int": 0}`), `inventory.members()`
        of each, and whether celext's fast verdict accepts them all. The hot loop of the inventory, so it runs
        in C (map) when every value was seen before; a value seen first goes through `_first_sight`."""
        raw = attributes.values()
        try:
            texts = list(map(_encode, raw))
        except (TypeError, ValueError, OverflowError):  # pragma: no cover - not from JSON: nothing shared
            return tuple(raw), tuple(map(members, raw)), clean(attributes, None)
        found = list(map(self._values_seen.get, texts))
        if not all(found):  # some value seen for the first time (a uuid: every time); `all`: no __eq__ calls
            self._first_sight(found, texts, raw)
        if not found:
            return (), (), True
        values, kinds, accepted = zip(*found, strict=False)  # triples by construction; strict=True costs more
        return values, kinds, all(accepted)

    def _first_sight(self, found: list[Any], texts: list[bytes], raw: Iterable[Any]) -> None:
        """Fills in `found` where a value was not seen before, and remembers it. (celext's fast verdict checks
        an attribute map value by value, so a map passes it when each of its values alone does.)"""
        seen = self._values_seen
        for i, (known, text, value) in enumerate(zip(found, texts, raw, strict=True)):
            if known is not None:
                continue
            entry = seen.get(text)  # seen earlier in this device
            if entry is None:
                if type(value) is dict and len(value) == 1 and type(value.get("string")) is str:
                    # The commonest unique value (a uuid): one string member, which its JSON text says exactly
                    # and the fast verdict accepts.
                    entry = seen[text] = (value, "string", True)
                else:
                    entry = (value, members(value), clean({"": value}, None))
                    if _faithful(text, value):
                        seen[text] = entry
            found[i] = entry

    def _capacity(self, capacity: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...], bool]:
        """`{name: {"value": "80Gi"}}`, shared by JSON text: CEL reads a capacity's value only. Anything else
        (a value that is not a string, an entry that is not a map) is kept as it is, for CEL to report. With
        its names and whether celext's fast verdict accepts it."""
        try:
            text = _encode(capacity)
        except (TypeError, ValueError, OverflowError):  # pragma: no cover - not from JSON
            return capacity, tuple(capacity), clean(None, capacity)
        shared = self._capacities.get(text)
        if shared is None:
            if not all(type(v) is dict and type(v.get("value")) is str for v in capacity.values()):
                return capacity, tuple(capacity), clean(None, capacity)
            kept = {sys.intern(name): {"value": entry["value"]} for name, entry in capacity.items()}
            shared = (kept, tuple(kept), clean(None, kept))
            if _faithful(text, capacity):
                self._capacities[text] = shared
        return shared

    def _compact(self, device: Mapping[str, Any], driver: str, pool: str) -> Device:
        body: Any = device.get("basic") or device  # device_body(), inlined: this runs once per device
        if type(body) is not dict:
            body = as_map(device_body(device)) or {}
        attributes = body.get("attributes")
        keys: tuple[str, ...] = ()
        values: tuple[Any, ...] = ()
        kinds: tuple[Members, ...] = ()
        accepted = True  # by celext's fast verdict: the compact device converts (CEL sees what it holds)
        if type(attributes) is dict:
            raw_keys = tuple(attributes)
            keys = self._keys.get(raw_keys) or self._keys.setdefault(raw_keys, tuple(map(sys.intern, raw_keys)))
            values, kinds, accepted = self._values(attributes)
        capacity = body.get("capacity")
        kept: dict[str, Any] | None = None
        capacity_keys: tuple[str, ...] = ()
        if type(capacity) is dict:
            kept, capacity_keys, capacity_ok = self._capacity(capacity)
            accepted = accepted and capacity_ok
        raw = CompactDevice(keys, values, kept, body.get("allowMultipleAllocations") is True)
        name = device.get("name")
        return Device(driver, pool, sys.intern(name) if type(name) is str else "", raw,
                      layout(driver, keys, kinds, capacity_keys), accepted)
