"""The `device` variable read straight from a wire-form `spec.devices[i]` entry, as `celext.reference.values.to_device`
would build it, without building it.

- `body(device)`: the v1 entry, or the v1beta1 `basic` wrapper's contents (same rule as to_device);
- `device_error(device, driver)`: the conversion error Kubernetes fails every selector with, or None
  (celext.runtime.verdict);
- `lookup(entries, driver, domain, ident)`: the raw wire entry to_device would file under
  `attributes[domain][ident]` (qualified `domain/ident`, or the bare `ident` for the driver's own domain; when
  both exist the later one in the map wins, as to_device overwrites), else ABSENT;
- `attribute(raw)` / `capacity(raw)`: one entry's CEL value (only for devices that passed device_error).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from celext import values as celvalues
from celext.lib.includes import SCAN_LIMIT, TOO_LONG
from celext.lib.includes import includes as lib_includes
from celext.quantity import Quantity, parse_quantity
from celext.reference.values import ABSENT, Device, attribute_value, to_device
from celext.runtime.memo import MISS, DeviceMemo
from celext.runtime.verdict import VERDICTS, device_error
from celext.semver import Semver, parse_semver
from celext.values import CELEvalError
from celext.vocabulary import device_body, split

__all__ = ["ABSENT", "VERDICTS", "attribute", "body", "capacity", "converted", "device_error", "entries",
           "has_domain", "lookup"]


def body(device: Any) -> Mapping[str, Any]:
    inner = device_body(device) if isinstance(device, Mapping) else None
    return inner if isinstance(inner, Mapping) else {}  # a bad `basic` is device_error's to report


def entries(body_: Mapping[str, Any], field: str) -> Mapping[str, Any]:
    raw = body_.get(field)
    return raw if type(raw) is dict or isinstance(raw, Mapping) else {}


CONVERTED = DeviceMemo(16_384)  # to_device values, per driver


def converted(device: Any, driver: str) -> Device:
    """to_device(device, driver), remembered per device object and driver (for the constructs the compiled
    engine hands to the reference engine, and for reads of whole maps)."""
    value = CONVERTED.get(device, driver)
    if value is MISS:
        value = to_device(device, driver)
        CONVERTED.put(device, value, driver)
    return value  # type: ignore[no-any-return]


def has_domain(table: Mapping[str, Any], driver: str, domain: str) -> bool:
    """`domain in device.attributes` (or capacity): some entry is filed under that domain."""
    return any(split(str(name), driver)[0] == domain for name in table)


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


_new_int = int.__new__
_new_str = str.__new__


@functools.lru_cache(maxsize=8192)
def _semver(text: str) -> Semver:
    return parse_semver(text)


@functools.lru_cache(maxsize=8192)
def _quantity(text: str) -> Quantity:
    return parse_quantity(text)


_INT, _STR, _BOOL = celvalues.IntType, celvalues.StringType, celvalues.BoolType
_TRUE, _FALSE = _BOOL(True), _BOOL(False)


def attribute(raw: Any) -> Any:
    """The CEL value of a wire attribute of a device that converts cleanly (values already range-checked)."""
    if type(raw) is dict and len(raw) == 1:
        ((field, value),) = raw.items()
        if field == "int":
            return _new_int(_INT, value)
        if field == "string":
            return _new_str(_STR, value)
        if field == "bool":
            return _TRUE if value else _FALSE
        if field == "version":
            return _semver(value)
        if field == "ints":
            return celvalues.ListType([_new_int(_INT, v) for v in value])
        if field == "strings":
            return celvalues.ListType([_new_str(_STR, v) for v in value])
        if field == "bools":
            return celvalues.ListType([_TRUE if v else _FALSE for v in value])
        if field == "versions":
            return celvalues.ListType([_semver(v) for v in value])
    return attribute_value(raw)


def includes(raw: Any, item: Any) -> Any:
    """`<attribute>.includes(<constant int or string>)` on the wire entry (celext.lib.includes semantics:
    true at the first equal element, past SCAN_LIMIT elements without a match the upstream error)."""
    if type(raw) is dict and len(raw) == 1:
        ((field, value),) = raw.items()
        kind = type(item)
        plain = int(item) if kind is _INT else str(item)  # builtin equality, in C
        if (field == "ints" and kind is _INT) or (field == "strings" and kind is _STR):
            if plain in value[:SCAN_LIMIT]:
                return _TRUE
            return CELEvalError(TOO_LONG) if len(value) > SCAN_LIMIT else _FALSE
        if (field == "int" and kind is _INT) or (field == "string" and kind is _STR):
            return _TRUE if value == plain else _FALSE
    return lib_includes(attribute(raw), item)


def capacity(raw: Any) -> Quantity:
    value = raw.get("value") if raw.__class__ is dict or isinstance(raw, Mapping) else raw
    return _quantity(value if value.__class__ is str else str(value))
