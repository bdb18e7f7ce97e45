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

`Projections.groups()` goes one step further for a whole candidate list: devices are first sorted into shapes
(driver, verdict, published names, the (domain, id) pairs their attribute and capacity maps file entries
under), once per list; a path a shape files nothing under is absent on all of its devices, and `driver` is
the shape's own, so only shapes that publish something a selector reads are split device by device. A
selector then costs one step per group, not one per device (most devices of a mixed fleet lack what a
selector of another driver reads).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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


def filed(table: Mapping[str, Any], driver: str) -> frozenset[tuple[str, str]]:
    """The (domain, id) pairs `lookup(table, driver, domain, id)` finds an entry for: a qualified name files
    under its domain (split at the first slash), a bare one under the driver's; other keys under none."""
    return frozenset((name.partition("/")[0], name.partition("/")[2]) if "/" in name else (driver, name)
                     for name in table if isinstance(name, str))


@dataclass(frozen=True, slots=True)
class _Shape:
    """Candidates alike in all that decides a read's absence: driver, published names, filed pairs. (The
    verdict is read only for the shapes a caller keeps: it costs a conversion check per device.)"""

    driver: str
    names: frozenset[str]  # Device.attributes: what `lacking` is computed from
    attributes: frozenset[tuple[str, str]]
    capacity: frozenset[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Group:
    """Candidates with equal projection keys on a selector's paths and equal published names: a selector gets
    one outcome on all of them and they lack the same attributes (`paths` None: one device per group)."""

    first: Device  # the first of them in candidate order
    key: tuple[Any, ...] | None  # Projections.key of each of them (None: dynamic reads, not keyed)
    indexes: tuple[int, ...]  # their positions among the candidates, ascending


class Projections:
    """Per inventory: each device's value at each path a selector reads, interned as a small int."""

    __slots__ = ("_filed", "_groups", "_ids", "_rows", "_shapes")

    def __init__(self) -> None:
        self._ids: dict[Any, int] = {ABSENT: 0}
        self._rows: dict[int, dict[Path | None, Any]] = {}  # id(device) -> path -> value id (None: the verdict)
        # id(candidates) -> (the list, kept so the id is not reused; its shapes with their positions; its length)
        self._shapes: dict[int, tuple[Sequence[Device], list[tuple[_Shape, list[int]]], int]] = {}
        self._groups: dict[tuple[int, tuple[Path, ...] | None], list[Group]] = {}
        self._filed: dict[tuple[str, tuple[Any, ...]], frozenset[tuple[str, str]]] = {}  # per key layout

    def groups(self, candidates: Sequence[Device], paths: tuple[Path, ...] | None,
               where: Callable[[Device], bool] | None = None) -> list[Group]:
        """`candidates` grouped for a selector reading `paths` (from `keyed`), in order of first member.

        `where`, a test that depends only on a device's driver and published names (equal across a shape),
        leaves out the shapes whose devices fail it before any of their devices is read: a fleet's devices
        mostly publish everything a selector reads, and reading them all is what the grouping saves. Results
        with `where` are not cached here (callers memoise per selector)."""
        shapes = self._shapes_of(candidates)
        cache_key = (id(candidates), paths)
        found = self._groups.get(cache_key) if where is None else None
        if found is not None:
            return found
        if paths is None:
            found = [Group(d, None, (i,)) for i, d in enumerate(candidates) if where is None or where(d)]
        else:
            found = []
            for shape, indexes in shapes:
                if where is not None and not where(candidates[indexes[0]]):
                    continue
                constant = [self._constant(shape, path) for path in paths]
                split: dict[tuple[Any, ...], list[int]] = {}
                if None not in constant:  # nothing to read: the shape's devices project alike but for the verdict
                    for i in indexes:
                        key = (shape.driver, self._verdict(candidates[i]), *constant)
                        split.setdefault(key, []).append(i)
                else:
                    for i in indexes:
                        split.setdefault(self.key(candidates[i], paths), []).append(i)
                found += [Group(candidates[ix[0]], key, tuple(ix)) for key, ix in split.items()]
            found.sort(key=lambda group: group.indexes[0])
        if where is None:
            self._groups[cache_key] = found
        return found

    def _shapes_of(self, candidates: Sequence[Device]) -> list[tuple[_Shape, list[int]]]:
        held = self._shapes.get(id(candidates))
        if held is not None and held[0] is candidates and held[2] == len(candidates):
            return held[1]
        # Another list of the same id before, or this one grown since (an inventory filled page by page).
        for cache_key in [k for k in list(self._groups) if k[0] == id(candidates)]:
            del self._groups[cache_key]
        # Keyed by plain tuples (a frozen dataclass per device costs more than the rest of this loop).
        shapes: dict[tuple[str, frozenset[str], frozenset[tuple[str, str]], frozenset[tuple[str, str]]], list[int]] = {}
        filed_of = self._filed_of
        for i, device in enumerate(candidates):
            fields = body(device.raw)
            driver = device.driver
            layout = (driver, device.attributes, filed_of(entries(fields, "attributes"), driver),
                      filed_of(entries(fields, "capacity"), driver))
            shapes.setdefault(layout, []).append(i)
        held_shapes = [(_Shape(*layout), indexes) for layout, indexes in shapes.items()]
        self._shapes[id(candidates)] = (candidates, held_shapes, len(candidates))
        return self._shapes[id(candidates)][1]

    def _filed_of(self, table: Mapping[str, Any], driver: str) -> frozenset[tuple[str, str]]:
        """`filed(table, driver)`, once per (driver, key layout): devices of one model list the same keys."""
        layout = (driver, tuple(table))
        found = self._filed.get(layout)
        if found is None:
            found = self._filed[layout] = filed(table, driver)
        return found

    def _constant(self, shape: _Shape, path: Path) -> int | None:
        """The value id `path` has on every device of `shape`, when the shape decides it (else None)."""
        head = path[0]
        if head == "driver":
            return self._intern(shape.driver)
        if head in ("attributes", "capacity") and len(path) == 3:
            pairs = shape.attributes if head == "attributes" else shape.capacity
            return None if (path[1], path[2]) in pairs else 0  # 0: ABSENT
        return None

    def _verdict(self, device: Device) -> Any:
        row = self._rows.get(id(device))
        if row is None:
            row = self._rows[id(device)] = {None: device_error(device.raw, device.driver)}
        return row[None]

    def key(self, device: Device, paths: tuple[Path, ...]) -> tuple[Any, ...]:
        """The device's projection on `paths`: devices with equal keys get the same outcome from a selector
        whose (constant) paths these are."""
        values = [device.driver, self._verdict(device)]
        row = self._rows[id(device)]
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
