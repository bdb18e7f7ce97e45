"""API types as data: what the API server's JSON decoder expects at each field, and the walk that reports the rest.

A description is built from the decoder's `JsonType`s (`k8s.decode`: STRING, BOOLEAN, INTEGER, RAW) and:

    struct(name=STRING, count=INTEGER)   a Go struct: a JSON object; a key it lacks is dropped, never decoded
    ListOf(item)                         a Go slice: a JSON array
    MapOf(value)                         a Go map with string keys: a JSON object
    QUANTITY                             resource.Quantity: a quantity string (or a number)
    Strict(description)                  below here, a key a struct lacks is also reported

`decode(errs, value, description, path)` reports each value the decoder would refuse as one `k8s-wire-type`
error (`spec.devices.requests: Invalid value: "x": must be of type array`) and reads nothing below it. `null`
decodes to Go's zero value wherever it is (a field, a list item, a map value), so it is never an error.
Below a `Strict` description, a key its struct lacks is one `k8s-unknown-field` warning (`unknown field
"spec.devices.requests[0].exactly.selector"`, the API server's warning; the field is dropped, so a misspelt
`selectors` selects any device). The walk is as deep as the description, however deeply the object nests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import msgspec
from msgspec.structs import replace

from webhook.fieldpath import FieldPath
from webhook.rules.k8s.capacity import quantity_value
from webhook.rules.k8s.decode import ARRAY, OBJECT, JsonType
from webhook.rules.k8s.errors import unknown_field
from webhook.rules.k8s.ids import UNKNOWN_FIELD, Errors


class Struct(msgspec.Struct, frozen=True):
    """A Go struct by the JSON names of its fields (build one with `struct(...)`)."""

    fields: Mapping[str, Wire]

    def extended(self, **fields: Wire) -> Struct:
        """This struct with more fields (a Go struct that embeds or repeats another's fields)."""
        return struct(**self.fields, **fields)

    def without(self, *names: str) -> Struct:
        return struct(**{name: wire for name, wire in self.fields.items() if name not in names})


class ListOf(msgspec.Struct, frozen=True):
    """A Go slice of `item`."""

    item: Wire


class MapOf(msgspec.Struct, frozen=True):
    """A Go map from strings to `value`."""

    value: Wire


class Parsed(msgspec.Struct, frozen=True):
    """A leaf the decoder parses with its own rules (reports what it refuses at the path it is given)."""

    parse: Callable[[Errors, Any, FieldPath], object]


class Strict(msgspec.Struct, frozen=True):
    """`wire`, with the keys its structs (and theirs, all the way down) lack reported as unknown fields."""

    wire: Wire


Wire = JsonType | Struct | ListOf | MapOf | Parsed | Strict
DROPPED = "fix the field name's spelling, or move the field where this apiVersion has it: the API server drops it"
QUANTITY = Parsed(quantity_value)


def struct(**fields: Wire) -> Struct:
    return Struct(MappingProxyType(fields))


def decode(errs: Errors, value: Any, wire: Wire, path: FieldPath, *, strict: bool = False) -> None:
    """Append to `errs` every value under `value` (at `path`) that the decoder refuses for `wire`, and with
    `strict` (or below a `Strict`) every key a struct lacks."""
    if value is None:
        return
    if isinstance(wire, Struct):
        if OBJECT.check(errs, value, path):
            for key, item in value.items():
                field = wire.fields.get(key)
                if field is not None:
                    decode(errs, item, field, path.child(key), strict=strict)
                elif strict:
                    errs.append((UNKNOWN_FIELD, replace(unknown_field(path.child(str(key))), hint=DROPPED)))
    elif isinstance(wire, ListOf):
        if ARRAY.check(errs, value, path):
            for i, item in enumerate(value):
                decode(errs, item, wire.item, path.index(i), strict=strict)
    elif isinstance(wire, MapOf):
        if OBJECT.check(errs, value, path):
            for key, item in value.items():
                decode(errs, item, wire.value, path.key(str(key)), strict=strict)
    elif isinstance(wire, Strict):
        decode(errs, value, wire.wire, path, strict=True)
    elif isinstance(wire, Parsed):
        wire.parse(errs, value, path)
    else:
        wire.check(errs, value, path)


def semantic(value: Any, wire: Wire, pointers: frozenset[str] = frozenset()) -> Any:
    """`value` as apimachinery's Semantic.DeepEqual compares what the decoder makes of it: a key the struct lacks is
    gone (dropped), null and an empty list or map are one (nil), a quantity is its value, an integral float an int,
    and a field holding Go's zero value is unset unless it is a pointer (`pointers`, by JSON name: `adminAccess:
    false` is set, `count: 0` is not). A value the decoder refuses is kept as written."""
    if isinstance(wire, Strict):
        return semantic(value, wire.wire, pointers)
    if isinstance(wire, Struct) and isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            field = wire.fields.get(key)
            if field is None:
                continue
            kept = semantic(item, field, pointers)
            if kept is not None and (key in pointers or not _zero(kept)):
                out[key] = kept
        return out
    if isinstance(wire, ListOf) and isinstance(value, list):
        return [_item(semantic(item, wire.item, pointers)) for item in value] or None
    if isinstance(wire, MapOf) and isinstance(value, Mapping):
        return {key: _item(semantic(item, wire.value, pointers)) for key, item in value.items()} or None
    if isinstance(wire, Parsed) and value is not None:
        parsed = wire.parse([], value, FieldPath())
        return value if parsed is None else parsed
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def _item(value: Any) -> Any:
    """A list item or map value: null is the element type's zero value, so every zero value is one (None)."""
    return None if _zero(value) else value


def _zero(value: Any) -> bool:
    """Go's zero value of a non-pointer field (an empty struct included)."""
    return value is None or (value in ("", 0, {}) and not isinstance(value, bool)) or value is False
