"""The CEL `device` variable, built from one ResourceSlice device exactly as Kubernetes builds it.

Mirrors `CompilationResult.DeviceMatches` / `getAttributeValue` in k8s.io/dynamic-resource-allocation/cel
(master, where list attributes are always converted):
- `device.driver` is the slice's `spec.driver`; `device.allowMultipleAllocations` defaults to false;
- `device.attributes[domain][id]`: an unqualified name lives under the driver's domain; a missing domain is
  an empty map; a missing id is the runtime error `no such key: <id>`;
- values: `int/bool/string/version` scalars, `ints/bools/strings/versions` lists (list fields win when
  several are set, as upstream checks them first); versions are strict semver 2.0.0;
- the whole map is built eagerly: a bad version (`attribute <name>: parse semantic version: ...`) or a
  value-less attribute (`attribute <name>: unsupported attribute value`) fails every selector on the device;
- `device.capacity[domain][id]` are quantities (`{value: "16Gi"}`; the older plain-string form too).
The wire form may be v1/v1beta2 (`attributes` on the device) or v1beta1 (`basic.attributes`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from celext import values as celvalues
from celext.quantity import Quantity, parse_quantity
from celext.semver import Semver, parse_semver
from celext.vocabulary import ELEMENT_OF, LIST_MEMBERS, SCALAR_MEMBERS, device_body, split

ABSENT: Any = object()  # a path the device does not have (part of memo keys)


class IdMap(celvalues.MapType):
    """attributes[domain] / capacity[domain]: a missing id raises KeyError -> `no such key: <id>`."""


class DomainMap(celvalues.MapType):
    """attributes / capacity: a missing domain reads as an empty map (`mapper.Find` with a default), and so does
    a key of another type (`device.attributes[dyn(1)]`: the string-keyed map inside finds nothing)."""

    def __missing__(self, key: Any) -> Any:
        return IdMap()


_PLAIN: dict[type, Any] = {celvalues.StringType: str, celvalues.IntType: int, celvalues.BoolType: bool,
                           celvalues.DoubleType: float, celvalues.UintType: int}


def value_key(value: Any) -> Any:
    """A hashable key that tells apart every value a CEL function could tell apart (memo keys).

    The type is part of the key (celtypes refuse `==` across types); semvers and quantities keep their text
    (cel-python's `string()` shows it) and quantities their upstream int64 scale (`isInteger()` observes it).
    """
    kind = type(value)
    if kind is celvalues.ListType:
        return (kind, tuple(value_key(v) for v in value))
    if kind is Quantity:
        return (kind, value.value, value.int64_scale, value.text)
    if kind is Semver:
        return (kind, str(value))  # the full text: string() would show build metadata
    plain = _PLAIN.get(kind)
    # Plain builtins hash and compare in C; celtypes do it in Python (this is the memo's hot path).
    return (kind, plain(value) if plain else value)


_INTERNED: dict[Any, int] = {}
_NEXT_ID = itertools.count(1)
_INTERN_LIMIT = 1_000_000


def interned(key: Any) -> int:
    """A small int standing for a value key: memo keys then hash and compare in C, fast.

    Ids are never reused; when the table is full it is dropped, so later devices get fresh ids (memo misses,
    never wrong answers).
    """
    ident = _INTERNED.get(key)
    if ident is None:
        if len(_INTERNED) >= _INTERN_LIMIT:
            _INTERNED.clear()
        ident = _INTERNED.setdefault(key, next(_NEXT_ID))
    return ident


class Index(dict[str, int]):
    """Device path (joined by `path_key`) -> interned value id; None for a path the device does not have.

    String keys, because Python caches a string's hash and never a tuple's: the memo hit stays in C.
    """

    def __missing__(self, key: str) -> None:
        return None


def path_key(path: tuple[str, ...]) -> str:
    return "\x1f".join(path)


class Device(celvalues.MapType):
    """The CEL `device` value. `error` is set when Kubernetes would fail every selector on this device.

    `index` maps every device path (('driver',), ('attributes', domain, id), ...) to the interned id of its
    value key, built once so that a memo hit costs a few plain dict lookups.
    """

    error: str | None = None
    index: Index | None = None


_INT, _BOOL, _STR = celvalues.IntType, celvalues.BoolType, celvalues.StringType


# What the API server answers when a JSON number does not fit the attribute's Go int64 (the number itself left
# out: it may be megabytes long).
INT_OUT_OF_RANGE = "cannot unmarshal number into Go struct field DeviceAttribute.int of type int64"


def _scalar(kind: str, raw: Any) -> Any:
    if kind == "int" and type(raw) is float and raw.is_integer():
        # YAML's `1e3` or `1.0`: kubectl sends an integral float64 as a JSON integer (sigs.k8s.io/yaml), so the
        # API server stores 1000 (as webhook.rules.k8s.decode.is_int64 accepts it)
        raw = int(raw)
    if kind == "int" and isinstance(raw, int) and not isinstance(raw, bool):
        if not -(2**63) <= raw < 2**63:
            raise ValueError(INT_OUT_OF_RANGE)
        return _INT(raw)
    if kind == "bool" and isinstance(raw, bool):
        return _BOOL(raw)
    if kind == "string" and isinstance(raw, str):
        return _STR(raw)
    if kind == "version" and isinstance(raw, str):
        try:
            return parse_semver(raw)
        except ValueError as err:
            raise ValueError(f"parse semantic version: {err}") from None
    raise TypeError(kind)


def attribute_value(attribute: Any) -> Any:
    """One attribute's CEL value; ValueError with the upstream wording after `attribute <name>: `."""
    if not isinstance(attribute, Mapping):
        raise ValueError("unsupported attribute value")
    try:
        for field in LIST_MEMBERS:
            kind = ELEMENT_OF[field]
            items = attribute.get(field)
            if items is not None:
                if not isinstance(items, list):
                    raise ValueError("unsupported attribute value")
                return celvalues.ListType(_scalar(kind, item) for item in items)
        for kind in SCALAR_MEMBERS:
            raw = attribute.get(kind)
            if raw is not None:
                return _scalar(kind, raw)
    except TypeError:
        raise ValueError("unsupported attribute value") from None
    raise ValueError("unsupported attribute value")


def to_device(device: Mapping[str, Any], driver: str) -> Device:
    """Convert one `spec.devices[i]` entry (wire form) and the slice's `spec.driver` into the CEL `device`."""
    if isinstance(device, Device):
        return device
    body: Any = device_body(device) if isinstance(device, Mapping) else {}
    result = Device()
    if not isinstance(body, Mapping):  # Kubernetes cannot decode such an object; fail visibly, not with a traceback
        result.error = f"basic: expected a map, not {type(body).__name__}"
        body = {}
    result[_STR("driver")] = _STR(driver or "")
    result[_STR("allowMultipleAllocations")] = _BOOL(body.get("allowMultipleAllocations") is True)
    attributes, capacity = DomainMap(), DomainMap()
    raw_attributes = body.get("attributes")
    for name, attribute in (raw_attributes.items() if isinstance(raw_attributes, Mapping) else ()):
        try:
            value = attribute_value(attribute)
        except ValueError as err:
            if result.error is None:
                result.error = f"attribute {name}: {err}"
            continue
        domain, ident = split(str(name), driver)
        inner: Any = attributes.setdefault(_STR(domain), IdMap())
        inner[_STR(ident)] = value
    raw_capacity = body.get("capacity")
    for name, entry in (raw_capacity.items() if isinstance(raw_capacity, Mapping) else ()):
        raw = entry.get("value") if isinstance(entry, Mapping) else entry
        try:
            quantity = parse_quantity(str(raw))
        except ValueError as err:
            # Kubernetes cannot even decode such an object; draguard reports it on evaluation.
            if result.error is None:
                result.error = f"capacity {name}: {err}"
            continue
        domain, ident = split(str(name), driver)
        inner = capacity.setdefault(_STR(domain), IdMap())
        inner[_STR(ident)] = quantity
    result[_STR("attributes")] = attributes
    result[_STR("capacity")] = capacity
    index = Index({
        "driver": interned(value_key(result[_STR("driver")])),
        "allowMultipleAllocations": interned(value_key(result[_STR("allowMultipleAllocations")])),
    })
    tables: tuple[tuple[str, Any], ...] = (("attributes", attributes), ("capacity", capacity))
    for head, domains in tables:
        for domain, entries in domains.items():
            for ident, value in entries.items():
                index[path_key((head, str(domain), str(ident)))] = interned(value_key(value))
    # A device Kubernetes would refuse has no index: the memo must never answer for it.
    result.index = index if result.error is None else None
    return result
