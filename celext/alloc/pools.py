"""Which devices a node can use, in the allocator's order (upstream `GatherPools`, `NodeMatches`).

A node sees its own slices, slices for all nodes, slices whose node selector matches its labels and,
with `perDeviceNodeSelection`, the devices whose own node fields match. Per pool (driver, pool name)
only the newest generation counts; a pool missing slices is incomplete, one with a duplicate device
name, a counter set named twice or a device consuming a counter the pool does not publish invalid, and
both are skipped. Pools are ordered by driver then pool name, slices by name, and pools
with a device that has `bindingConditions` come after all others (upstream `poolHasBindingConditions`).
NodeSelector matching follows component-helpers nodeaffinity: terms are ORed, requirements inside a
term ANDed, a term without requirements selects nothing, `matchFields` knows only `metadata.name`
with `In`/`NotIn`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from msgspec import Struct, field

from celext.alloc.capacity import quantity
from celext.gostrconv import parse_int

Obj = Mapping[str, Any]
Counters = dict[str, dict[str, Decimal]]  # counter set name -> counter name -> value


class Device(Struct, frozen=True):
    """One device in allocation order; `id` is upstream's DeviceID, `driver/pool/device`."""

    driver: str
    pool: str
    slice: str
    wire: Obj
    name: str = ""
    id: str = ""
    shareable: bool = False  # allowMultipleAllocations (DRAConsumableCapacity)
    # (counter set, counter, amount) per counter it consumes, parsed once here; whether it has taints: the search
    # skips both checks for most devices
    consumes: tuple[tuple[str, str, Decimal], ...] = ()
    tainted: bool = False

    @classmethod
    def of(cls, driver: str, pool: str, slice_name: str, wire: Obj) -> Device:
        name = wire.get("name")
        name = name if isinstance(name, str) else ""
        return cls(driver, pool, slice_name, wire, name, f"{driver}/{pool}/{name}",
                   wire.get("allowMultipleAllocations") is True,
                   consumes_counters(wire) if wire.get("consumesCounters") else (), bool(wire.get("taints")))


class Node(Struct, frozen=True):
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)


def node_selector_matches(selector: Mapping[str, Any], node: Node) -> bool:
    terms = selector.get("nodeSelectorTerms")
    if not isinstance(terms, list):
        return False
    return any(_term(term, node) for term in terms if isinstance(term, Mapping))


def _term(term: Mapping[str, Any], node: Node) -> bool:
    expressions = _list(term.get("matchExpressions"))
    fields = _list(term.get("matchFields"))
    if not expressions and not fields:
        return False
    fields_of_node = {"metadata.name": node.name}
    return all(_requirement(r, node.labels) for r in expressions) and all(
        _requirement(r, fields_of_node, fields_only=True) for r in fields
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _requirement(req: Any, values: Mapping[str, str], *, fields_only: bool = False) -> bool:
    if not isinstance(req, Mapping):
        return False
    key, operator = req.get("key"), req.get("operator")
    wanted = [str(v) for v in req.get("values") or [] if isinstance(v, str | int)]
    if not isinstance(key, str) or (fields_only and (key not in values or operator not in ("In", "NotIn"))):
        return False
    present = key in values
    value = values.get(key, "")
    if operator == "In":
        return present and value in wanted
    if operator == "NotIn":
        return not present or value not in wanted
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(wanted) == 1:
        try:  # labels.Requirement.Matches: strconv.ParseInt, so `1_0` or ` 5` is no number (Python's int() reads both)
            mine, bound = parse_int(value), parse_int(wanted[0])
        except ValueError:
            return False
        return mine > bound if operator == "Gt" else mine < bound
    return False


def _map(value: Any) -> Obj:
    return value if isinstance(value, Mapping) else {}


def _strings(items: Any) -> list[Any]:
    return items if isinstance(items, list) else []


def device_on_node(device: Device, node: Node) -> bool:
    """perDeviceNodeSelection: the device's own nodeName / allNodes / nodeSelector must match."""
    wire = device.wire
    if not any(k in wire for k in ("nodeName", "allNodes", "nodeSelector")):
        return True
    return node_matches(wire, node)


def node_matches(spec: Obj, node: Node) -> bool:
    name = spec.get("nodeName")
    if isinstance(name, str) and name:
        return node.name == name
    if spec.get("allNodes") is True:
        return True
    selector = spec.get("nodeSelector")
    return isinstance(selector, Mapping) and node_selector_matches(selector, node)


class Gathered(Struct, frozen=True):
    """What GatherPools finds for one node."""

    devices: list[Device]  # in allocation order
    notes: list[str]  # on skipped pools
    skipped: dict[str, str]  # "driver/pool" -> "being updated" | "invalid"
    counters: dict[tuple[str, str], Counters]  # (driver, pool) -> its sharedCounters


def pools_for_node(slices: Sequence[Obj], node: Node) -> Gathered:
    """Devices the node can use, in allocation order, notes on skipped pools, those pools as GatherPools marks
    them, and the shared counters of each usable pool."""
    relevant: dict[tuple[str, str], list[Obj]] = {}
    by_pool: dict[tuple[str, str], list[Obj]] = {}  # every slice of each pool, this node's or not (counter sets)
    for s in slices:
        by_pool.setdefault(_pool_key(s), []).append(s)
        spec = _map(s.get("spec"))
        if spec.get("sharedCounters"):
            continue  # counter sets, no devices
        if spec.get("perDeviceNodeSelection") is True:
            ok = any(node_matches(d, node) for d in _strings(spec.get("devices")) if isinstance(d, Mapping))
        else:
            ok = node_matches(spec, node)
        if ok:
            _add_slice(relevant, s)
    devices, notes, skipped = [], [], {}
    counters: dict[tuple[str, str], Counters] = {}
    deferred: list[Device] = []  # pools with binding conditions: GatherPools appends them last
    for key in sorted(relevant):
        pool_slices = relevant[key]
        wanted, generation = _pool_numbers(pool_slices[0])
        same = by_pool[key]
        if len(pool_slices) != wanted:
            if any(_pool_numbers(s)[1] > generation for s in same):
                continue  # obsolete generation
            if sum(1 for s in same if _pool_numbers(s)[1] == generation) != wanted:
                notes.append(f"pool {key[0]}/{key[1]} is incomplete ({len(pool_slices)} of {wanted} slices): skipped")
                skipped[f"{key[0]}/{key[1]}"] = "being updated"
                continue
        ordered = sorted(pool_slices, key=lambda s: str(_map(s.get("metadata")).get("name", "")))
        names: set[str] = set()
        pool_devices = []
        for s in ordered:
            for d in _strings(_map(s.get("spec")).get("devices")):
                if isinstance(d, Mapping):
                    pool_devices.append(Device.of(key[0], key[1], str(_map(s.get("metadata")).get("name", "")), d))
        duplicate = None
        for d in pool_devices:
            if d.name in names:
                duplicate = d.name
                break
            names.add(d.name)
        sets = _counter_sets([s for s in same if _pool_numbers(s)[1] == generation])
        if duplicate is not None or isinstance(sets, str):
            problem = f"duplicate device name {duplicate}" if duplicate is not None else sets
            notes.append(f"pool {key[0]}/{key[1]} is invalid ({problem}): skipped")
            skipped[f"{key[0]}/{key[1]}"] = "invalid"
            continue
        counters[key] = sets
        if any(d.wire.get("bindingConditions") is not None for d in pool_devices):
            deferred += pool_devices
        else:
            devices += pool_devices
    return Gathered(devices + deferred, notes, skipped, counters)


def _counter_sets(generation: Sequence[Obj]) -> Counters | str:
    """The pool's counter sets (upstream getAndValidateCounterSets), or why the pool is invalid: a counter set
    named twice, or a device (on this node or not) consuming from a set or counter the pool does not have
    (validateDeviceCounterConsumption)."""
    sets: Counters = {}
    for s in sorted(generation, key=lambda s: str(_map(s.get("metadata")).get("name", ""))):
        for counter_set in _strings(_map(s.get("spec")).get("sharedCounters")):
            name = str(_map(counter_set).get("name") or "")
            if name in sets:
                return f"duplicate counter set name {name}"
            sets[name] = {str(k): counter_value(v) for k, v in _map(_map(counter_set).get("counters")).items()}
    for s in generation:
        for device in _strings(_map(s.get("spec")).get("devices")):
            try:  # (no isinstance(Mapping): this runs for every device of every pool on every node explained)
                consumptions = device.get("consumesCounters")
            except AttributeError:  # not an object
                continue
            for consumption in _strings(consumptions):
                name = str(_map(consumption).get("counterSet") or "")
                if name not in sets:
                    return f"counter set {name} not found"
                for counter in _map(_map(consumption).get("counters")):
                    if counter not in sets[name]:
                        return f"counter {counter} not found in counter set {name}"
    return sets


def counter_value(counter: Any) -> Decimal:
    """A Counter's `value`; an unreadable one counts as zero (API validation requires a quantity)."""
    value = quantity(_map(counter).get("value"))
    return Decimal(0) if value is None else value


def consumes_counters(device: Obj) -> tuple[tuple[str, str, Decimal], ...]:
    """(counter set, counter, amount) for each counter the device consumes."""
    out: list[tuple[str, str, Decimal]] = []
    for consumption in device.get("consumesCounters") or ():
        if isinstance(consumption, Mapping) and isinstance(consumption.get("counters"), Mapping):
            counter_set = str(consumption.get("counterSet") or "")
            out += [(counter_set, str(name), counter_value(counter))
                    for name, counter in consumption["counters"].items()]
    return tuple(out)


def _pool_key(s: Obj) -> tuple[str, str]:
    spec = _map(s.get("spec"))
    pool = _map(spec.get("pool"))
    return str(spec.get("driver") or ""), str(pool.get("name") or "")


def _pool_numbers(s: Obj) -> tuple[int, int]:
    pool = _map(_map(s.get("spec")).get("pool"))
    count, generation = pool.get("resourceSliceCount", 1), pool.get("generation", 0)
    return (count if isinstance(count, int) else 1), (generation if isinstance(generation, int) else 0)


def _add_slice(pools: dict[tuple[str, str], list[Obj]], s: Obj) -> None:
    key = _pool_key(s)
    current = pools.get(key)
    if current is None or _pool_numbers(s)[1] > _pool_numbers(current[0])[1]:
        pools[key] = [s]
    elif _pool_numbers(s)[1] == _pool_numbers(current[0])[1]:
        current.append(s)


def nodes_of(slices: Sequence[Obj], nodes: Sequence[Obj]) -> list[Node]:
    """Every node the inputs name: Node objects (with labels) and the nodeName of slices and devices, sorted."""
    known: dict[str, Node] = {}
    for n in nodes:
        meta = _map(n.get("metadata"))
        labels = _map(meta.get("labels"))
        if isinstance(meta.get("name"), str):
            known[meta["name"]] = Node(meta["name"], {str(k): str(v) for k, v in labels.items()})
    for s in slices:
        spec = _map(s.get("spec"))
        # the slice's node, and with perDeviceNodeSelection each device's
        for owner in (spec, *(d for d in _strings(spec.get("devices")) if isinstance(d, Mapping))):
            name = owner.get("nodeName")
            if isinstance(name, str) and name and name not in known:
                known[name] = Node(name, {})
    return [known[k] for k in sorted(known)] or [Node("", {})]


def slice_devices(documents: Iterable[Any]) -> Iterator[tuple[Obj, str]]:
    """(device, driver) for each device of each ResourceSlice among parsed YAML/JSON documents, in order
    (`kind: List` unpacked; anything else skipped)."""
    for document in documents:
        if not isinstance(document, Mapping):
            continue
        items = _strings(document.get("items")) if document.get("kind") == "List" else [document]
        for obj in items:
            if isinstance(obj, Mapping) and obj.get("kind") == "ResourceSlice":
                spec = _map(obj.get("spec"))
                driver = str(spec.get("driver") or "")
                yield from ((d, driver) for d in _strings(spec.get("devices")) if isinstance(d, Mapping))
