"""Answers remembered per wire-form device object, for the fleets that are evaluated again and again.

A `DeviceMemo` maps a device dict (by identity, and a key such as the driver) to a value while the device,
its attribute map and its capacity map are the same objects and the two maps have the same sizes (a device
whose maps are neither dicts nor absent is not remembered, so a hit reads a size as `len(m or ())`). That
catches every edit that replaces or grows a map; an attribute value replaced in place under the same name
is not seen (copy a device to edit it). Entries hold their device alive, so the table is bounded: when full
it is dropped and refilled (answers are recomputed, never wrong).
"""

from __future__ import annotations

import threading
from typing import Any

from celext.vocabulary import device_body

MISS: Any = object()
# (device, its attribute map, its capacity map, their sizes (0 when absent), the value, the key)
Entry = tuple[Any, Any, Any, int, int, Any, Any]


def storable(attributes: Any, capacities: Any) -> bool:
    """May a device with these maps be remembered? Only dicts and absent maps: their sizes are `len(m or ())`
    (the hit path reads them so, without a class check: the identity check before it pins the class)."""
    return (attributes is None or attributes.__class__ is dict) and (capacities is None or capacities.__class__ is dict)


class DeviceMemo:
    __slots__ = ("_entries", "_lock", "limit")

    def __init__(self, limit: int) -> None:
        self._entries: dict[int, Entry] = {}
        self.limit = limit
        self._lock = threading.Lock()

    @property
    def entries(self) -> dict[int, Entry]:
        """The table itself (id(device) -> Entry), for a hot path that writes get()/store() out inline; the
        same dict for the memo's whole life (clear() empties it)."""
        return self._entries

    def get(self, device: Any, key: Any = None) -> Any:
        """The remembered value, or MISS (also for anything but a plain dict)."""
        seen = self._entries.get(id(device)) if device.__class__ is dict else None
        if seen is None or seen[0] is not device or seen[6] != key:
            return MISS
        inner = device.get("basic") or device  # vocabulary.device_body, inlined: matches() hits land here
        if inner.__class__ is not dict:
            return MISS
        attributes, capacities = inner.get("attributes"), inner.get("capacity")
        if seen[1] is attributes and seen[2] is capacities and seen[3] == len(attributes or ()) \
                and seen[4] == len(capacities or ()):
            return seen[5]
        return MISS

    def put(self, device: Any, value: Any, key: Any = None) -> None:
        if device.__class__ is not dict:
            return
        inner = device_body(device)
        if inner.__class__ is dict:
            self.store(device, inner.get("attributes"), inner.get("capacity"), value, key)

    def store(self, device: Any, attributes: Any, capacities: Any, value: Any, key: Any = None) -> None:
        """put() for a caller that already read the device's two maps."""
        if not storable(attributes, capacities):
            return
        entries = self._entries
        if len(entries) >= self.limit:
            with self._lock:
                entries.clear()
        entries[id(device)] = (device, attributes, capacities, len(attributes or ()), len(capacities or ()), value, key)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
