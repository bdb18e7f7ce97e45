"""A selector's outcome on many inventory devices, evaluated once per distinct projection of them.

What a selector says about a device (true, false, or an evaluation error) depends only on the device's
conversion verdict, its driver and the raw wire values at the paths the selector reads, when every read is a
constant path (`Selector.paths`). Fleets repeat their shapes heavily (eight GPUs of one model differ only in
names and ids a selector rarely reads), so `Projections.key()` gives each device a short tuple of interned
values and callers memoise on it; a selector whose reads are dynamic (`device.attributes[device.driver]`,
a whole map) has no key and is evaluated on every device.

Keys are built from the values exactly as the engines read them: `celext.runtime.wire.lookup` picks the
entry a qualified or bare attribute name files under (the later one when both exist), and a device that does
not convert carries its error in the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from celext import EvaluationError, Selector
from celext.compile import Path
from celext.runtime.wire import ABSENT, body, device_error, entries, lookup
from webhook.inventory import Device, Inventory

Outcome = bool | str  # the selector's answer, or the message of the EvaluationError it raises
_MEMO_KEY = "selector-projections"


def _frozen(value: Any) -> Any:
    """A hashable stand-in equal only for equal wire values of equal types (`1`, `True` and `1.0` differ)."""
    if isinstance(value, Mapping):
        return (dict, tuple((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (list, tuple(_frozen(v) for v in value))
    return (type(value), value)


class Projections:
    """Per inventory: each device's value at each path a selector reads, interned as a small int."""

    __slots__ = ("_ids", "_rows")

    def __init__(self) -> None:
        self._ids: dict[Any, int] = {ABSENT: 0}
        self._rows: dict[int, dict[Path | None, Any]] = {}  # id(device) -> path -> value id (None: the verdict)

    def key(self, device: Device, paths: tuple[Path, ...]) -> tuple[Any, ...]:
        """The device's projection on `paths`: devices with equal keys get the same outcome from a selector
        whose (constant) paths these are."""
        row = self._rows.get(id(device))
        if row is None:
            row = self._rows[id(device)] = {None: device_error(device.raw, device.driver)}
        values = [device.driver, row[None]]
        for path in paths:
            found = row.get(path)
            if found is None:
                found = row[path] = self._intern(self._read(device, path))
            values.append(found)
        return tuple(values)

    def _intern(self, raw: Any) -> int:
        if raw is ABSENT:
            return 0
        frozen = _frozen(raw)
        found = self._ids.get(frozen)
        if found is None:
            found = self._ids[frozen] = len(self._ids)
        return found

    @staticmethod
    def _read(device: Device, path: Path) -> Any:
        fields = body(device.raw)
        head = path[0]
        if head == "driver":
            return device.driver
        if head in ("attributes", "capacity") and len(path) == 3:
            return lookup(entries(fields, head), device.driver, path[1], path[2])
        return fields.get(head, ABSENT)  # allowMultipleAllocations


def projections(inventory: Inventory) -> Projections:
    """The inventory's projections, shared by every rule and selector of one run."""
    found = inventory.memo.get(_MEMO_KEY)
    if not isinstance(found, Projections):
        found = inventory.memo[_MEMO_KEY] = Projections()
    return found


def keyed(selector: Selector) -> tuple[Path, ...] | None:
    """The paths to key `selector`'s outcomes on, sorted; None when some read is dynamic."""
    paths = selector.paths
    return None if paths is None else tuple(sorted(paths))


def outcome(selector: Selector, device: Device) -> Outcome:
    """Evaluate once, without the selector's per-device memo (the caller keeps one per projection)."""
    try:
        return selector.evaluate(device.raw, device.driver)
    except EvaluationError as err:
        return err.message
