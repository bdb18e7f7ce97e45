"""The `device` variable read straight from a wire-form `spec.devices[i]` entry, as `celext.values.to_device`
would build it, without building it.

- `body(device)`: the v1 entry, or the v1beta1 `basic` wrapper's contents (same rule as to_device);
- `device_error(device, driver)`: the conversion error Kubernetes fails every selector with, or None. A fast
  pass accepts the shapes real drivers publish (one typed field per attribute, string quantities); anything
  else is decided by to_device itself, so the verdict is always to_device's;
- `lookup(entries, driver, domain, ident)`: the raw wire entry to_device would file under
  `attributes[domain][ident]` (qualified `domain/ident`, or the bare `ident` for the driver's own domain; when
  both exist the later one in the map wins, as to_device overwrites), else ABSENT;
- `attribute(raw)` / `capacity(raw)`: one entry's CEL value (only for devices that passed device_error).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from celpy import celtypes

from celext.quantity import Quantity, is_quantity, parse_quantity
from celext.semver import Semver, is_semver, parse_semver
from celext.values import ABSENT, attribute_value, to_device

__all__ = ["ABSENT", "attribute", "body", "capacity", "device_error", "entries", "lookup"]

_SCALARS: dict[str, type] = {"bool": bool, "string": str}
_LISTS: dict[str, type] = {"bools": bool, "strings": str}
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1  # celtypes.IntType refuses the rest


def body(device: Any) -> Mapping[str, Any]:
    if not isinstance(device, Mapping):
        return {}
    inner: Mapping[str, Any] = device.get("basic") or device
    return inner


def entries(body_: Mapping[str, Any], field: str) -> Mapping[str, Any]:
    raw = body_.get(field)
    return raw if isinstance(raw, Mapping) else {}


@functools.lru_cache(maxsize=8192)
def _semver_ok(text: str) -> bool:
    return is_semver(text)


@functools.lru_cache(maxsize=8192)
def _quantity_ok(text: str) -> bool:
    return is_quantity(text)


def _attribute_ok(raw: Any) -> bool:
    if type(raw) is not dict or len(raw) != 1:
        return False
    for field, value in raw.items():
        if field == "int":
            return type(value) is int and _INT64_MIN <= value <= _INT64_MAX
        if field == "ints":
            return type(value) is list and all(type(i) is int and _INT64_MIN <= i <= _INT64_MAX for i in value)
        kind = _SCALARS.get(field)
        if kind is not None:
            return type(value) is kind
        kind = _LISTS.get(field)
        if kind is not None:
            return type(value) is list and all(type(item) is kind for item in value)
        if field == "version":
            return type(value) is str and _semver_ok(value)
        if field == "versions":
            return type(value) is list and all(type(item) is str and _semver_ok(item) for item in value)
    return False


def _capacity_ok(raw: Any) -> bool:
    value = raw.get("value") if type(raw) is dict else raw
    return type(value) is str and _quantity_ok(value)


def device_error(device: Any, driver: str) -> str | None:
    """The error to_device records for this device (None when it converts cleanly)."""
    inner = body(device)
    attributes = inner.get("attributes")
    capacities = inner.get("capacity")
    if (attributes is None or type(attributes) is dict) and (capacities is None or type(capacities) is dict) \
            and all(_attribute_ok(a) for a in (attributes or {}).values()) \
            and all(_capacity_ok(c) for c in (capacities or {}).values()):
        return None
    return to_device(device, driver).error  # the rare shapes: ask the converter itself


def lookup(table: Mapping[str, Any], driver: str, domain: str, ident: str) -> Any:
    """The raw entry at [domain][ident] as to_device files it, else ABSENT."""
    qualified = table.get(f"{domain}/{ident}", ABSENT) if "/" not in domain else ABSENT
    if domain != driver or "/" in ident:
        return qualified
    bare = table.get(ident, ABSENT)
    if bare is ABSENT:
        return qualified
    if qualified is ABSENT:
        return bare
    for key in reversed(list(table)):  # both spellings present: to_device keeps the later one
        if key == ident:
            return bare
        if key == f"{domain}/{ident}":
            return qualified
    return bare  # pragma: no cover - both keys were found above


def has(table: Mapping[str, Any], driver: str, domain: str, ident: str) -> bool:
    return lookup(table, driver, domain, ident) is not ABSENT


_new_int = int.__new__
_new_str = str.__new__


@functools.lru_cache(maxsize=8192)
def _semver(text: str) -> Semver:
    return parse_semver(text)


@functools.lru_cache(maxsize=8192)
def _quantity(text: str) -> Quantity:
    return parse_quantity(text)


def attribute(raw: Any) -> Any:
    """The CEL value of a wire attribute of a device that converts cleanly."""
    if type(raw) is dict and len(raw) == 1:
        for field, value in raw.items():
            if field == "int":
                return _new_int(celtypes.IntType, value)
            if field == "string":
                return _new_str(celtypes.StringType, value)
            if field == "version":
                return _semver(value)
    return attribute_value(raw)


def capacity(raw: Any) -> Quantity:
    value = raw.get("value") if isinstance(raw, Mapping) else raw
    return _quantity(str(value))
