"""What real devices publish: the inventory `draguard lint --slices/--cluster` checks selectors against.

From ResourceSlices (files or the cluster) it tells, per fully-qualified attribute name, on how many
devices it is a list, a scalar, or absent, and it can evaluate a selector on every device to find
lookups that fail. DeviceClasses (from the same inputs) narrow a claim's candidates to the devices
its class selects, as the allocator does before it evaluates the request's own selectors.

`inventory_of(objects)` accepts a mix of ResourceSlices and DeviceClasses (other kinds are ignored)
and is cached per sequence object, so every rule of one lint run shares one inventory.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, overload

from celext.vocabulary import ELEMENT_OF, LIST_MEMBERS, SCALAR_MEMBERS, device_body, qualify
from webhook.errors import DraguardError
from webhook.wire import Obj, as_map, get_list, get_map, get_str, kind_of, name_of

if TYPE_CHECKING:
    from celext import Selector

# The CEL type of an attribute's elements, by its DeviceAttribute member.
TYPE_OF_MEMBER: Mapping[str, str] = {**{m: m for m in SCALAR_MEMBERS}, **ELEMENT_OF}
SHAPES = 4096  # distinct attribute layouts remembered (a fleet has a handful: one per driver and model)


@dataclass(frozen=True, slots=True)
class Device:
    driver: str
    pool: str
    name: str
    raw: Obj  # the wire-form device entry (`attributes`, `capacity`, ...)
    attributes: frozenset[str]  # fully-qualified names it publishes
    lists: frozenset[str]  # the subset published as a list
    types: Mapping[str, str] = field(default_factory=dict)  # name -> int, bool, string or version (elements)

    @property
    def label(self) -> str:
        return f"{self.driver}/{self.pool}/{self.name}"


@dataclass(slots=True)
class Inventory:
    devices: list[Device] = field(default_factory=list)
    classes: dict[str, list[str]] = field(default_factory=dict)  # DeviceClass name -> selector expressions
    sources: list[str] = field(default_factory=list)
    _class_devices: dict[str, list[Device]] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)  # per-inventory results rules may share (keyed by them)

    def __bool__(self) -> bool:
        return bool(self.devices)

    def list_devices(self, qualified: str) -> list[Device]:
        return [d for d in self.devices if qualified in d.lists]

    def candidates(self, device_class: str) -> list[Device]:
        """Devices the allocator would test a request's selectors on: those its class selects (all when
        the class is unknown here; a class selector that errors on a device excludes that device)."""
        expressions = self.classes.get(device_class)
        if not expressions:
            return self.devices
        if device_class not in self._class_devices:
            self._class_devices[device_class] = _selected(expressions, self.devices)
        return self._class_devices[device_class]


def _selected(expressions: Sequence[str], devices: list[Device]) -> list[Device]:
    """The devices every expression matches. A selector that does not compile selects nothing; one that fails
    on a device excludes that device (compiled once here, not once per device: fleets are large)."""
    import celext

    try:
        selectors = [celext.compile(expression) for expression in expressions]
    except celext.CELError:
        return []
    return [d for d in devices if _matches_all(selectors, d)]


def _matches_all(selectors: Sequence[Selector], device: Device) -> bool:
    import celext

    for selector in selectors:
        try:
            if not selector.matches(device.raw, device.driver):
                return False
        except celext.CELError:
            return False
    return True


def build(objects: Sequence[Obj]) -> Inventory:
    inventory = Inventory()
    for obj in objects:
        kind = kind_of(obj)
        if kind == "ResourceSlice":
            inventory.devices.extend(_devices(obj))
        elif kind == "DeviceClass":
            expressions = []
            for raw in get_list(obj, "spec", "selectors"):
                expression = get_str(as_map(raw), "cel", "expression")
                if expression:
                    expressions.append(expression)
            inventory.classes[name_of(obj)] = expressions
    return inventory


def _devices(slice_: Obj) -> Iterator[Device]:
    driver = get_str(slice_, "spec", "driver")
    pool = get_str(slice_, "spec", "pool", "name")
    for raw in get_list(slice_, "spec", "devices"):
        device = as_map(raw)
        if device is None:
            continue
        attributes = get_map(as_map(device_body(device)), "attributes")
        names, lists, types = shape(driver, tuple(attributes), tuple(map(members, attributes.values())))
        yield Device(driver, pool, get_str(device, "name"), device, names, lists, types)


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


Shape = tuple[frozenset[str], frozenset[str], Mapping[str, str]]


@functools.lru_cache(maxsize=SHAPES)
def shape(driver: str, keys: tuple[str, ...], members_: tuple[Members, ...]) -> Shape:
    """(qualified names, those published as lists, element types) of an attribute map with these keys and
    `members()`. Devices of one model share it (one object, computed once): the names, not the values, decide."""
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
    return frozenset(names), frozenset(lists), MappingProxyType(types)  # shared: read-only


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


def from_cluster() -> list[Obj]:
    """ResourceSlices and DeviceClasses of the current kube context (resource.k8s.io/v1).

    The kubeconfig is located when called ($KUBECONFIG, else ~/.kube/config), not when the client was
    imported, and the client configuration stays local to this call.
    """
    import os

    try:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException
        from urllib3.exceptions import HTTPError
    except ImportError as err:  # pragma: no cover - a declared dependency
        raise DraguardError(f"--cluster needs the kubernetes client: {err}") from None
    kubeconfig = os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
    try:
        api_client = config.new_client_from_config(config_file=kubeconfig)  # type: ignore[no-untyped-call]
    except (ConfigException, OSError, TypeError):
        configuration = client.Configuration()
        try:
            config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
        except ConfigException:
            raise DraguardError("--cluster: no kube context (set KUBECONFIG or run inside a cluster)") from None
        api_client = client.ApiClient(configuration)
    api = client.CustomObjectsApi(api_client)
    objects: list[Obj] = []
    try:
        for plural, kind in (("resourceslices", "ResourceSlice"), ("deviceclasses", "DeviceClass")):
            objects.extend(_list_all(api, plural, kind))
    except client.ApiException as err:
        raise DraguardError(f"--cluster: listing DRA objects failed: {err.status} {err.reason}") from None
    except (HTTPError, OSError) as err:
        raise DraguardError(f"--cluster: cannot reach the API server: {err}") from None
    finally:
        api_client.close()
    return objects


def _list_all(api: Any, plural: str, kind: str) -> Iterator[Obj]:
    token = None
    while True:
        page = api.list_cluster_custom_object("resource.k8s.io", "v1", plural, limit=500, _continue=token)
        for item in page.get("items", []):
            yield {"kind": kind, **item}
        token = page.get("metadata", {}).get("continue")
        if not token:
            return
