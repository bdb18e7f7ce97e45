"""What real devices publish: the inventory `draguard lint --slices/--cluster` checks selectors against.

From ResourceSlices (files or the cluster) it keeps each device with its `Layout`, shared by the devices of one
model (the attribute names it publishes, which are lists, their element types, its capacity names), so the
selector rules read a fleet per layout rather than per device. DeviceClasses (from the same inputs) narrow a
claim's candidates to the devices its class selects, as the allocator does before it evaluates the request's
own selectors (webhook.rules.selectors_outcomes.candidates).

`inventory_of(objects)` accepts a mix of ResourceSlices and DeviceClasses (other kinds are ignored)
and is cached per sequence object, so every rule of one lint run shares one inventory.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, overload

from msgspec import Struct, field

from celext.vocabulary import ELEMENT_OF, LIST_MEMBERS, SCALAR_MEMBERS, device_body, qualify, split
from webhook.wire import Obj, as_map, get_list, get_map, get_str, kind_of, name_of

# The CEL type of an attribute's elements, by its DeviceAttribute member.
TYPE_OF_MEMBER: Mapping[str, str] = {**{m: m for m in SCALAR_MEMBERS}, **ELEMENT_OF}
SHAPES = 4096  # distinct attribute layouts remembered (a fleet has a handful: one per driver and model)


class Layout(Struct, frozen=True, eq=False):
    """What every device of one model shares, computed once per layout (`layout()`): the attribute names it
    publishes (qualified), which of them are lists, their element types, and the (domain, id) pairs its attribute
    and capacity maps file entries under (what the CEL engine finds; `filed`). Compared by identity: devices are
    grouped by the layout object they share."""

    driver: str
    names: frozenset[str]  # qualified attribute names
    lists: frozenset[str]  # the subset published as a list
    types: Mapping[str, str]  # name -> int, bool, string or version (elements)
    attribute_pairs: frozenset[tuple[str, str]]
    capacities: frozenset[str]  # qualified capacity names
    capacity_pairs: frozenset[tuple[str, str]]


class Device(Struct, eq=False):
    driver: str
    pool: str
    name: str
    raw: Obj  # the wire-form device entry (`attributes`, `capacity`, ...)
    layout: Layout  # shared by the devices of one model
    clean: bool = False  # known to convert (the fast pass of celext's verdict accepts it); False: not known

    @property
    def label(self) -> str:
        return f"{self.driver}/{self.pool}/{self.name}"

    @property
    def attributes(self) -> frozenset[str]:
        """Fully-qualified names it publishes."""
        return self.layout.names

    @property
    def lists(self) -> frozenset[str]:
        return self.layout.lists

    @property
    def types(self) -> Mapping[str, str]:
        return self.layout.types


class Inventory(Struct):
    devices: list[Device] = field(default_factory=list)
    classes: dict[str, list[str]] = field(default_factory=dict)  # DeviceClass name -> selector expressions
    sources: list[str] = field(default_factory=list)
    memo: dict[Any, Any] = field(default_factory=dict)  # per-inventory results rules may share (keyed by them)

    def __bool__(self) -> bool:
        return bool(self.devices)

    def list_devices(self, qualified: str) -> list[Device]:
        return [d for d in self.devices if qualified in d.lists]


def build(objects: Sequence[Obj]) -> Inventory:
    from celext.runtime.verdict import clean

    inventory = Inventory()
    for obj in objects:
        kind = kind_of(obj)
        if kind == "ResourceSlice":
            inventory.devices.extend(_devices(obj, clean))
        elif kind == "DeviceClass":
            expressions = []
            for raw in get_list(obj, "spec", "selectors"):
                expression = get_str(as_map(raw), "cel", "expression")
                if expression:
                    expressions.append(expression)
            inventory.classes[name_of(obj)] = expressions
    return inventory


def _devices(slice_: Obj, clean: Callable[[Any, Any], bool]) -> Iterator[Device]:
    driver = get_str(slice_, "spec", "driver")
    pool = get_str(slice_, "spec", "pool", "name")
    for raw in get_list(slice_, "spec", "devices"):
        device = as_map(raw)
        if device is None:
            continue
        body = device_body(device)
        attributes = get_map(as_map(body), "attributes")
        capacity = get_map(as_map(body), "capacity")
        found = layout(driver, tuple(attributes), tuple(map(members, attributes.values())), tuple(capacity))
        # celext's verdict takes the fast pass on exactly these maps (a device that is not a dict, or whose
        # `basic` is not one, is left to the verdict itself)
        known = type(device) is dict and type(body) is dict and clean(body.get("attributes"), body.get("capacity"))
        yield Device(driver, pool, get_str(device, "name"), device, found, known)


Members = str | tuple[str, ...]


def members(value: Any) -> Members:
    """The DeviceAttribute members one wire attribute sets: its one member's name in the form drivers publish
    (`""` when its value is null), else a tuple of them (a malformed union, or none at all)."""
    if type(value) is dict and len(value) == 1:
        ((member, inner),) = value.items()
        return member if inner is not None else ""
    if not isinstance(value, Mapping):
        return ()
    return tuple(m for m, v in value.items() if v is not None and m in TYPE_OF_MEMBER)


def filed(keys: Iterable[Any], driver: str) -> frozenset[tuple[str, str]]:
    """The (domain, id) pairs `celext.runtime.wire.lookup(table, driver, domain, id)` finds an entry for, given
    the table's keys: a qualified name files under its domain (split at the first slash), a bare one under the
    driver's; other keys under none."""
    return frozenset(split(name, driver) for name in keys if isinstance(name, str))


@functools.lru_cache(maxsize=SHAPES)
def layout(driver: str, keys: tuple[Any, ...], members_: tuple[Members, ...],
           capacity_keys: tuple[Any, ...] = ()) -> Layout:
    """The layout of devices of `driver` whose attribute map has these keys and `members()`, and whose capacity
    map these keys. Devices of one model share it (one object, computed once): the names, not the values,
    decide."""
    names: set[str] = set()
    lists: set[str] = set()
    types: dict[str, str] = {}
    for key, found in zip(keys, members_, strict=True):
        set_ = ((found,) if found in TYPE_OF_MEMBER else ()) if isinstance(found, str) else found
        qualified = qualify(str(key), driver)
        names.add(qualified)
        if any(m in LIST_MEMBERS for m in set_):
            lists.add(qualified)
        if len(set_) == 1:
            types[qualified] = TYPE_OF_MEMBER[set_[0]]
    return Layout(driver, frozenset(names), frozenset(lists), MappingProxyType(types),  # shared: read-only
                  filed(keys, driver), frozenset(qualify(str(key), driver) for key in capacity_keys),
                  filed(capacity_keys, driver))


class Prebuilt(Sequence[Obj]):
    """An inventory built elsewhere (`draguard audit` builds one page by page, keeping only what the selector
    rules read), passed where the rules take slices. It holds no objects; it is true when it has devices."""

    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory

    def __len__(self) -> int:
        return len(self.inventory.devices)

    @overload
    def __getitem__(self, index: int) -> Obj: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Obj]: ...
    def __getitem__(self, index: int | slice) -> Obj | Sequence[Obj]:
        raise IndexError("a prebuilt inventory holds no objects")


_CACHE: dict[int, tuple[Sequence[Obj], Inventory]] = {}
_LOCK = threading.Lock()


def inventory_of(objects: Sequence[Obj]) -> Inventory:
    """The inventory of `objects`, built once per sequence object (one lint run passes one tuple)."""
    if isinstance(objects, Prebuilt):
        return objects.inventory
    with _LOCK:
        hit = _CACHE.get(id(objects))
        if hit is not None and hit[0] is objects:
            return hit[1]
        inventory = build(objects)
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[id(objects)] = (objects, inventory)
        return inventory


def from_cluster(kubeconfig: str | None = None, context: str | None = None) -> list[Obj]:
    """ResourceSlices and DeviceClasses (resource.k8s.io/v1) of the cluster `draguard audit` would read with the
    same `--kubeconfig`/`--context`: the same connection, paging, timeouts, retries and one-line errors
    (webhook.audit.client, webhook.audit.pager)."""
    from webhook.audit.client import Cluster
    from webhook.audit.kinds import DEVICE_CLASSES, RESOURCE_SLICES
    from webhook.audit.pager import Listing, pages

    cluster = Cluster.connect(kubeconfig, context)
    objects: list[Obj] = []
    try:
        for resource in (RESOURCE_SLICES, DEVICE_CLASSES):
            for page in pages(cluster, resource, 500, Listing()):
                objects += page
    finally:
        cluster.close()
    return objects
