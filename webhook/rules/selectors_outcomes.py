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

`Projections.groups()` goes one step further for a whole candidate list: devices are sorted into shapes by
the `Layout` object they share (webhook.inventory: driver, published names, the (domain, id) pairs their
attribute and capacity maps file entries under), one pass per list without reading any device; layouts that
differ only in whether an attribute is a list are read as one shape. A path a shape files nothing under is
absent on all of its devices, and `driver` is the shape's own, so only shapes that publish something a
selector reads are split device by device; elsewhere only the conversion verdict splits them, and a device the
inventory knows to be clean (`Device.clean`) needs none. A selector then costs one step per group, not one per
device. `candidates()` selects a DeviceClass's devices the same way, once per group of the inventory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from celext import EvaluationError, Selector
from celext.compile import Path
from celext.runtime.wire import ABSENT, body, device_error, entries, lookup
from webhook.inventory import Device, Inventory, Layout

Outcome = bool | str  # the selector's answer, or the message of the EvaluationError it raises
_MEMO_KEY = "selector-projections"


def _frozen(value: Any) -> Any:
    """A hashable stand-in equal only for equal wire values of equal types (`1`, `True` and `1.0` differ)."""
    if isinstance(value, Mapping):
        return (dict, tuple((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (list, tuple(_frozen(v) for v in value))
    return (type(value), value)


class Group(NamedTuple):
    """Candidates with equal projection keys on a selector's paths and one layout: a selector gets one outcome on
    all of them and they lack the same attributes (`paths` None: one device per group)."""

    first: Device  # the first of them in candidate order
    key: tuple[Any, ...] | None  # Projections.key of each of them (None: dynamic reads, not keyed)
    indexes: tuple[int, ...]  # their positions among the candidates, ascending


Shapes = list[tuple[Layout, list[int]]]  # a candidate list's layouts, each with its positions, in order of first
Parts = list[tuple[tuple[Any, tuple[Any, ...]], tuple[int, ...]]]  # ((verdict, value ids), positions), by first


class Projections:
    """Per inventory: candidate lists sorted into layouts (once per list), and each device's value at each path a
    selector reads, interned as a small int (only for devices whose layout does not decide it)."""

    __slots__ = ("_groups", "_ids", "_merged", "_parts", "_rows", "_shapes", "_splits", "_verdicts")

    def __init__(self) -> None:
        self._ids: dict[Any, int] = {ABSENT: 0}
        self._rows: dict[int, dict[Path, Any]] = {}  # id(device) -> path -> value id
        self._verdicts: dict[int, str | None] = {}  # id(device) -> conversion error, for devices not known clean
        # id(candidates) -> (the list, kept so the id is not reused; its layouts with their positions; its length)
        self._shapes: dict[int, tuple[Sequence[Device], Shapes, int]] = {}
        self._merged: dict[int, tuple[Shapes, Shapes]] = {}  # id(shapes()) -> (it, its layouts merged: _coarse)
        self._groups: dict[tuple[int, tuple[Path, ...] | None], list[Group]] = {}
        # (id(candidates), a layout's place in their coarse shapes, the paths its devices must be read at) -> its
        # devices split by verdict and values there: selectors whose reads agree where the layout does not decide
        # them (most read a standard attribute or two) share the pass over its devices
        self._parts: dict[tuple[int, int, tuple[Path, ...]], Parts] = {}
        self._splits: dict[tuple[int, int, tuple[Path, ...] | None], list[Group]] = {}  # the same, per paths read

    def groups(self, candidates: Sequence[Device], paths: tuple[Path, ...] | None,
               where: Callable[[Layout], bool] | None = None) -> list[Group]:
        """`candidates` grouped for a selector reading `paths` (from `keyed`), in order of first member.

        `where`, a test of a layout (a device's driver and published names), leaves out the layouts that fail it
        before any of their devices is read: a fleet's devices mostly publish everything a selector reads, and
        reading them all is what the grouping saves. Results with `where` are not cached here (callers memoise
        per selector)."""
        shapes = self._coarse(candidates)
        cache_key = (id(candidates), paths)
        found = self._groups.get(cache_key) if where is None else None
        if found is not None:
            return found
        found = []
        for place, (shape, indexes) in enumerate(shapes):
            if where is not None and not where(shape):  # the shape's layouts agree on driver and names
                continue
            split = self._splits.get((id(candidates), place, paths))
            if split is None:
                split = self._splits[id(candidates), place, paths] = self._split(candidates, place, (shape, indexes),
                                                                                 paths)
            found += split
        if len(shapes) > 1:
            found.sort(key=lambda group: group.indexes[0])
        if where is None:
            self._groups[cache_key] = found
        return found

    def shapes(self, candidates: Sequence[Device]) -> Shapes:
        """The layouts of `candidates` with the positions of their devices, in order of first device: one pass
        over the list (each device carries its shared layout), remembered per list."""
        held = self._shapes.get(id(candidates))
        if held is not None and held[0] is candidates and held[2] == len(candidates):
            return held[1]
        # Another list of the same id before, or this one grown since (an inventory filled page by page).
        for cache_key in [k for k in list(self._groups) if k[0] == id(candidates)]:
            del self._groups[cache_key]
        for parts_key in [k for k in list(self._parts) if k[0] == id(candidates)]:
            del self._parts[parts_key]
        for split_key in [k for k in list(self._splits) if k[0] == id(candidates)]:
            del self._splits[split_key]
        by_layout: dict[Layout, list[int]] = {}
        for i, device in enumerate(candidates):
            by_layout.setdefault(device.layout, []).append(i)
        shapes = list(by_layout.items())
        self._shapes[id(candidates)] = (candidates, shapes, len(candidates))
        return shapes

    def _coarse(self, candidates: Sequence[Device]) -> Shapes:
        """`shapes()` with the layouts merged that agree on all that decides a read's absence (driver, published
        names, capacity names, filed pairs): `numaNode` an int on some devices and a list on others is one
        shape to read."""
        fine = self.shapes(candidates)
        held = self._merged.get(id(fine))
        if held is not None and held[0] is fine:
            return held[1]
        merged: dict[tuple[Any, ...], tuple[Layout, list[list[int]]]] = {}
        for shape, indexes in fine:
            alike = (shape.driver, shape.names, shape.attribute_pairs, shape.capacities, shape.capacity_pairs)
            merged.setdefault(alike, (shape, []))[1].append(indexes)
        coarse = [(shape, parts[0] if len(parts) == 1 else sorted(i for part in parts for i in part))
                  for shape, parts in merged.values()]
        self._merged[id(fine)] = (fine, coarse)
        return coarse

    def _split(self, candidates: Sequence[Device], place: int, shaped: tuple[Layout, list[int]],
               paths: tuple[Path, ...] | None) -> list[Group]:
        """The groups of the coarse shape at `place` (its layout, its devices' positions) for a selector reading
        `paths`, in order of first member."""
        shape, indexes = shaped
        if paths is None:
            return [Group(candidates[i], None, (i,)) for i in indexes]
        constant = [self._constant(shape, path) for path in paths]  # what the layout decides (None: read)
        read = tuple(path for path, value in zip(paths, constant, strict=True) if value is None)
        parts = self._parts.get((id(candidates), place, read))
        if parts is None:
            parts = self._parts[id(candidates), place, read] = self._partition(candidates, indexes, read)
        groups = []
        for (verdict, values), members in parts:
            found = iter(values)
            key = (shape.driver, verdict, *(next(found) if value is None else value for value in constant))
            groups.append(Group(candidates[members[0]], key, members))
        return groups

    def _partition(self, candidates: Sequence[Device], indexes: list[int], read: tuple[Path, ...]) -> Parts:
        """`indexes` split by each device's conversion verdict and value ids at `read`, in order of first."""
        parts: dict[tuple[Any, tuple[Any, ...]], list[int]] = {}
        if not read:  # the layout decides every read: only the verdict splits its devices
            verdict = self._verdict
            for i in indexes:
                parts.setdefault((verdict(candidates[i]), ()), []).append(i)
        else:
            for i in indexes:
                key = self.key(candidates[i], read)
                parts.setdefault((key[1], key[2:]), []).append(i)
        return [(part, tuple(members)) for part, members in parts.items()]

    def _constant(self, shape: Layout, path: Path) -> int | None:
        """The value id `path` has on every device of `shape`, when the layout decides it (else None)."""
        head = path[0]
        if head == "driver":
            return self._intern(shape.driver)
        if head in ("attributes", "capacity") and len(path) == 3:
            pairs = shape.attribute_pairs if head == "attributes" else shape.capacity_pairs
            return None if (path[1], path[2]) in pairs else 0  # 0: ABSENT
        return None

    def _verdict(self, device: Device) -> Any:
        if device.clean:
            return None
        found = self._verdicts.get(id(device), _UNKNOWN)
        if found is _UNKNOWN:
            found = self._verdicts[id(device)] = device_error(device.raw, device.driver)
        return found

    def key(self, device: Device, paths: tuple[Path, ...]) -> tuple[Any, ...]:
        """The device's projection on `paths`: devices with equal keys get the same outcome from a selector
        whose (constant) paths these are."""
        values = [device.driver, self._verdict(device)]
        row = self._rows.get(id(device))
        if row is None:
            row = self._rows[id(device)] = {}
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


_UNKNOWN: Any = object()


def projections(inventory: Inventory) -> Projections:
    """The inventory's projections, shared by every rule and selector of one run."""
    found = inventory.memo.get(_MEMO_KEY)
    if not isinstance(found, Projections):
        found = inventory.memo[_MEMO_KEY] = Projections()
    return found


def candidates(inventory: Inventory, device_class: str) -> Sequence[Device]:
    """Devices the allocator would test a request's selectors on: those its class selects (all when the class is
    unknown here; a class selector that errors on a device excludes that device, one that does not compile
    selects nothing). The class's selectors are evaluated once per group of the inventory's devices, not once
    per device (fleets are large); remembered per class."""
    import celext

    expressions = inventory.classes.get(device_class)
    if not expressions:
        return inventory.devices
    memo_key = ("class-candidates", device_class)
    found: list[Device] | None = inventory.memo.get(memo_key)
    if found is not None:
        return found
    try:
        selectors = [celext.compile(expression) for expression in expressions]
    except celext.CELError:
        selectors = []
    devices = inventory.devices
    selected: list[int] = []
    if selectors:
        read = [keyed(selector) for selector in selectors]
        paths = None if None in read else tuple(sorted({p for found_paths in read if found_paths for p in found_paths}))
        for group in projections(inventory).groups(devices, paths):
            if all(outcome(selector, group.first) is True for selector in selectors):
                selected += group.indexes
        selected.sort()
    found = inventory.memo[memo_key] = [devices[i] for i in selected]
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
