"""Will Kubernetes convert this device? The whole-device check behind every compiled selector.

Upstream `DeviceMatches` converts every attribute of a device before it evaluates any selector and fails on
the first attribute it cannot convert (Go map order; celext reports the first in the wire map, as
`celext.reference.values.to_device` does). So every selector needs the validity of the whole device, though not its
conversion. `device_error(device, driver)` answers with to_device's error text, or None:

- a fast pass accepts the shapes drivers publish (one member per attribute with a value of its type, ints in
  int64, strict semver versions, string quantities) without building a value. Version and quantity strings are
  judged once per distinct string (`TextVerdicts`), not once per device: a fleet repeats a handful of them;
- anything else is decided by to_device itself, so the verdict (and its text) is always to_device's;
- the verdict is remembered for fleets evaluated again and again (`VERDICTS`): a map the fast pass accepted is
  remembered by itself (its identity and its size), every other verdict per device object (celext.runtime.memo).

Why clean maps are remembered by the map and not in a per-device entry: a verdict depends only on the two maps,
and remembering a map takes two dict stores of objects that exist already (the map, its size), where a device
entry is a new tuple. Tuples are containers the cyclic collector tracks: 10,000 of them on a first pass over a
fleet set off a dozen collections, each walking back into devices long out of the CPU caches (up to a quarter
of the first pass's data cache misses in valgrind's cache simulation, depending on what ran before).

The fast pass is a plain loop on purpose: bulk passes in C (`set(map(type, ...))` over the attribute maps)
were measured slower on real devices, which have a few to twenty attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from celext.quantity import is_quantity
from celext.reference.values import to_device
from celext.runtime.memo import MISS, DeviceMemo
from celext.semver import is_semver
from celext.vocabulary import device_body

__all__ = ["QUANTITIES", "SEMVERS", "VERDICTS", "TextVerdicts", "Verdicts", "clean", "device_error"]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INTS, _BOOLS = frozenset({int}), frozenset({bool})
_SHORT = 8  # int lists up to this length are checked item by item


class TextVerdicts(dict[str, bool]):
    """string -> is it valid, computed on first sight; `verdicts[text]` hashes and looks up in C. Bounded:
    dropped when full (verdicts are recomputed, never wrong)."""

    def __init__(self, judge: Callable[[str], bool], limit: int = 16_384) -> None:
        super().__init__()
        self._judge = judge
        self._limit = limit

    def __missing__(self, text: str) -> bool:
        if len(self) >= self._limit:
            self.clear()
        verdict = self[text] = self._judge(text)
        return verdict


SEMVERS = TextVerdicts(is_semver)
QUANTITIES = TextVerdicts(is_quantity)


def _list_ok(member: str, items: list[Any]) -> bool:
    """A list attribute's items, in passes that run in C: `str.join` refuses anything but strings (to_device
    takes any str, as `isinstance` does) at a quarter of the cost of collecting the classes."""
    if member in {"strings", "versions"}:
        try:
            "".join(items)
        except TypeError:
            return False
        return member == "strings" or all(map(SEMVERS.__getitem__, items))
    if member == "ints" and len(items) <= _SHORT:
        # Lists this short (a numaNode pair) cost less in a loop than in the passes below (and than all() over a
        # generator, which starts a frame).
        for item in items:  # noqa: SIM110
            if item.__class__ is not int or not _INT64_MIN <= item <= _INT64_MAX:
                return False
        return True
    if not items:
        return member in ("ints", "bools")
    kinds = set(map(type, items))
    if member == "ints":
        return kinds == _INTS and min(items) >= _INT64_MIN and max(items) <= _INT64_MAX
    return member == "bools" and kinds == _BOOLS


class Verdicts:
    """The conversion verdicts remembered (they do not depend on the driver), `limit` maps and `limit` devices
    at most (each table is dropped when full; verdicts are recomputed, never wrong).

    - maps the fast pass accepted, each kind in two tables keyed by `id(map)`: the map itself (held, so the id is
      not reused while the entry lives, and compared by identity) and its size then (a map grown or shrunk in
      place is judged again). The size is stored before the map and a hit needs both, so a table dropped between
      the two stores by another thread loses the entry, never pairs a map with another's size;
    - `devices`: every other device's verdict (to_device's), under the device (celext.runtime.memo).

    The hot paths below read and fill the tables directly (the same dicts for the memo's whole life)."""

    __slots__ = ("_limit", "attribute_sizes", "attributes", "capacities", "capacity_sizes", "devices")

    def __init__(self, limit: int) -> None:
        self.attributes: dict[int, Any] = {}
        self.attribute_sizes: dict[int, int] = {}
        self.capacities: dict[int, Any] = {}
        self.capacity_sizes: dict[int, int] = {}
        self.devices = DeviceMemo(limit)
        self._limit = limit  # read by the hot path below (a property costs a call)

    @property
    def limit(self) -> int:
        return self._limit

    @limit.setter
    def limit(self, value: int) -> None:
        self._limit = self.devices.limit = value

    def get(self, device: Any) -> Any:
        """The verdict remembered for a device (None: it converts cleanly), else MISS."""
        inner = device_body(device) if device.__class__ is dict else None
        if inner.__class__ is not dict:
            return MISS
        attributes, capacities = inner.get("attributes"), inner.get("capacity")
        if _known(attributes, self.attributes, self.attribute_sizes) \
                and _known(capacities, self.capacities, self.capacity_sizes):
            return None
        return self.devices.get(device)

    def clear(self) -> None:
        for table in (self.attributes, self.attribute_sizes, self.capacities, self.capacity_sizes):
            table.clear()
        self.devices.clear()

    def __len__(self) -> int:
        """How many maps and devices are remembered."""
        return len(self.attributes) + len(self.capacities) + len(self.devices)


def _known(table: Any, held: dict[int, Any], sizes: dict[int, int]) -> bool:
    """Is this map absent, or remembered clean at its present size? (device_error writes this out inline.)"""
    return table is None or (table.__class__ is dict and held.get(key := id(table)) is table
                             and sizes.get(key) == len(table))  # type: ignore[arg-type]


VERDICTS = Verdicts(65_536)
# The tables, read and filled here directly: a call costs as much as checking an attribute.
_ATTRIBUTES, _ATTRIBUTE_SIZES = VERDICTS.attributes, VERDICTS.attribute_sizes
_CAPACITIES, _CAPACITY_SIZES = VERDICTS.capacities, VERDICTS.capacity_sizes
_SEEN = VERDICTS.devices.entries
_NOT_CLEAN = "not clean"  # first_sight's answer to clean(): the fast pass refused something


def _forget(table: Any, held: dict[int, Any], sizes: dict[int, int]) -> None:
    """Drop a map's clean verdict, if remembered (off the hot path: only for devices to_device judges)."""
    key = id(table)
    held.pop(key, None)
    sizes.pop(key, None)


def first_sight(device: Any, driver: str, attributes: Any, capacities: Any) -> str | None:
    """The verdict of a device the memo does not hold, remembered: the fast pass over its attribute map and
    its capacity map (read by the caller from the device's body), else to_device's own error.

    Written out as one function on purpose: on this path a Python call costs about as much as checking one
    attribute. With `device` None it only answers clean()'s question (None or _NOT_CLEAN, nothing stored)."""
    fast = False
    if attributes is None or attributes.__class__ is dict:
        semvers = SEMVERS
        for raw in () if attributes is None else attributes.values():
            # One member holding a value of its type. With one member, `raw.get(member)` finds it: a few
            # lookups in the order of frequency cost less than unpacking the item.
            if raw.__class__ is not dict or len(raw) != 1:
                break
            value = raw.get("string")
            if value is not None:
                if value.__class__ is str:
                    continue
                break
            value = raw.get("int")
            if value is not None:
                if value.__class__ is int and _INT64_MIN <= value <= _INT64_MAX:
                    continue
                break
            value = raw.get("bool")
            if value is not None:
                if value.__class__ is bool:
                    continue
                break
            value = raw.get("version")
            if value is not None:
                if value.__class__ is str and semvers[value]:
                    continue
                break
            ((member, value),) = raw.items()
            if value.__class__ is list and _list_ok(member, value):
                continue
            break
        else:
            fast = True
    if fast and capacities is not None:
        fast = False
        if capacities.__class__ is dict:
            quantities = QUANTITIES
            for raw in capacities.values():
                value = raw.get("value") if raw.__class__ is dict else raw
                if value.__class__ is not str or not quantities[value]:
                    break
            else:
                fast = True
    if device is None:
        return None if fast else _NOT_CLEAN
    if fast:  # both maps dicts or absent: each remembered by itself
        if _SEEN:  # the verdict this device had while it was not clean must not answer for it again: its maps
            # could return to the sizes of then (a value dropped, then another added) and look unchanged
            seen = _SEEN.get(id(device))
            if seen is not None and seen[0] is device:
                del _SEEN[id(device)]
        # Written out for each map, not a helper called twice: the calls measured +5.8 % instructions per device
        # on a cold pass (callgrind, the bench's fleet).
        if attributes is not None:
            if len(_ATTRIBUTES) >= VERDICTS._limit:
                _ATTRIBUTES.clear()
                _ATTRIBUTE_SIZES.clear()
            key = id(attributes)
            _ATTRIBUTE_SIZES[key] = len(attributes)
            _ATTRIBUTES[key] = attributes
        if capacities is not None:
            if len(_CAPACITIES) >= VERDICTS._limit:
                _CAPACITIES.clear()
                _CAPACITY_SIZES.clear()
            key = id(capacities)
            _CAPACITY_SIZES[key] = len(capacities)
            _CAPACITIES[key] = capacities
        return None
    # Not clean now: a map remembered clean (at another size, before it changed in place) must not answer for it
    # later, when a change back to that size would look like the map then.
    if attributes is not None:
        _forget(attributes, _ATTRIBUTES, _ATTRIBUTE_SIZES)
    if capacities is not None:
        _forget(capacities, _CAPACITIES, _CAPACITY_SIZES)
    verdict = to_device(device, driver).error
    VERDICTS.devices.store(device, attributes, capacities, verdict)
    return verdict


def clean(attributes: Any, capacities: Any) -> bool:
    """True when both maps hold only what the fast pass accepts (False: ask to_device, it may still be fine)."""
    return first_sight(None, "", attributes, capacities) is None


def device_error(device: Any, driver: str) -> str | None:
    """The error to_device records for this device (None when it converts cleanly)."""
    # vocabulary.device_body and DeviceMemo.get, inlined: every compiled evaluation starts here
    inner = device.get("basic") or device if device.__class__ is dict else None
    if inner.__class__ is not dict:
        if isinstance(device, Mapping):  # another Mapping, such as an inventory's compact device
            return _mapping_error(device, driver)
        return to_device(device, driver).error  # a `basic` that is not a map
    attributes: Any = inner.get("attributes")
    capacities: Any = inner.get("capacity")
    # _known() twice, written out: both maps absent or remembered clean at their present sizes (mypy reads
    # `table.get(key) is x` as x possibly None; the checks before rule that out)
    if (
        (attributes is None or (attributes.__class__ is dict and _ATTRIBUTES.get(key := id(attributes)) is attributes
                                and _ATTRIBUTE_SIZES.get(key) == len(attributes)))  # type: ignore[arg-type]
        and (capacities is None or (capacities.__class__ is dict
                                    and _CAPACITIES.get(key := id(capacities)) is capacities
                                    and _CAPACITY_SIZES.get(key) == len(capacities)))  # type: ignore[arg-type]
    ):
        return None
    seen = _SEEN.get(id(device)) if _SEEN else None  # devices the fast pass left to to_device (few)
    if seen is not None:
        held, held_attributes, held_capacities, attribute_count, capacity_count, verdict, _ = seen  # one unpack
        if held is device and held_attributes is attributes and held_capacities is capacities \
                and attribute_count == len(attributes or ()) and capacity_count == len(capacities or ()):
            return verdict  # type: ignore[no-any-return]
    return first_sight(device, driver, attributes, capacities)


READ_ONLY_VERDICTS = 131_072  # read-only devices whose verdict is remembered; the table is dropped when full
_READ_ONLY: dict[int, tuple[Any, str | None]] = {}


def _mapping_error(device: Mapping[str, Any], driver: str) -> str | None:
    """device_error for a Mapping that is not a dict. A read-only one (not a MutableMapping) cannot change under
    the caller, so its verdict is remembered by identity (holding the device, so the id is not reused)."""
    read_only = not isinstance(device, MutableMapping)
    if read_only:
        seen = _READ_ONLY.get(id(device))
        if seen is not None and seen[0] is device:
            return seen[1]
    fields = device.get("basic") or device
    if isinstance(fields, Mapping) and clean(fields.get("attributes"), fields.get("capacity")):
        verdict = None
    else:
        verdict = to_device(device, driver).error
    if read_only:
        if len(_READ_ONLY) >= READ_ONLY_VERDICTS:
            _READ_ONLY.clear()
        _READ_ONLY[id(device)] = (device, verdict)
    return verdict


def forget() -> None:
    """Drop the remembered verdicts of read-only devices (and the references that keep those devices alive)."""
    _READ_ONLY.clear()


def remembered() -> int:
    """How many read-only devices' verdicts are remembered now."""
    return len(_READ_ONLY)
