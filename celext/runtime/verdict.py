"""Will Kubernetes convert this device? The whole-device check behind every compiled selector.

Upstream `DeviceMatches` converts every attribute of a device before it evaluates any selector and fails on
the first attribute it cannot convert (Go map order; celext reports the first in the wire map, as
`celext.reference.values.to_device` does). So every selector needs the validity of the whole device, though not its
conversion. `device_error(device, driver)` answers with to_device's error text, or None:

- a fast pass accepts the shapes drivers publish (one member per attribute with a value of its type, ints in
  int64, strict semver versions, string quantities) without building a value. Version and quantity strings are
  judged once per distinct string (`TextVerdicts`), not once per device: a fleet repeats a handful of them;
- anything else is decided by to_device itself, so the verdict (and its text) is always to_device's;
- the verdict is remembered per device object (celext.runtime.memo) for fleets evaluated again and again.

The fast pass is a plain loop on purpose: bulk passes in C (`set(map(type, ...))` over the attribute maps)
were measured slower on real devices, which have a few to twenty attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from celext.quantity import is_quantity
from celext.reference.values import to_device
from celext.runtime.memo import DeviceMemo, storable
from celext.semver import is_semver

__all__ = ["QUANTITIES", "SEMVERS", "VERDICTS", "TextVerdicts", "clean", "device_error"]

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


VERDICTS = DeviceMemo(65_536)  # conversion verdicts (they do not depend on the driver)
_SEEN = VERDICTS.entries  # read and filled here directly: a call costs as much as checking an attribute
_NOT_CLEAN = "not clean"  # first_sight's answer to clean(): the fast pass refused something


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
    verdict = None if fast else to_device(device, driver).error
    if fast or storable(attributes, capacities):  # DeviceMemo.store, inlined (fast: both maps dicts or absent)
        if len(_SEEN) >= VERDICTS.limit:
            VERDICTS.clear()
        _SEEN[id(device)] = (device, attributes, capacities, len(attributes or ()), len(capacities or ()), verdict,
                             None)
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
    attributes, capacities = inner.get("attributes"), inner.get("capacity")
    seen = _SEEN.get(id(device))
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
