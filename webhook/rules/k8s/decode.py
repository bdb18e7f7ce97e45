"""Reading untrusted wire values the way the API server's decoder would, reporting what it would refuse.

The decoder rejects a request whose field has the wrong JSON type before any validation runs. draguard
reports such a field as one `k8s-wire-type` finding and then reads it as Go's zero value, so the rest of
the object is still checked (one finding per problem, not a cascade). The `JsonType`s below are what the
ResourceSlice validators read fields with and what the declarative API descriptions (`k8s.schema`) are made of.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from msgspec import Struct

from webhook.fieldpath import FieldPath
from webhook.rules.k8s.errors import type_invalid
from webhook.rules.k8s.ids import WIRE_TYPE, Errors

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def wrong_type(errs: Errors, value: Any, path: FieldPath, expected: str) -> None:
    errs.append((WIRE_TYPE, type_invalid(path, value, f"must be of type {expected}")))


def is_int64(value: object) -> bool:
    """Whether an int64 field decodes `value`. A float with an integral value does too: YAML's `1.0` or `2e0` is
    float64(1) to kubectl (sigs.k8s.io/yaml), which sends it as JSON `1` (Go prints an integral float64 below 1e21
    without a fraction), and so does the API server for a YAML body; `1.5` stays a wrong type."""
    if type(value) is int:
        return INT64_MIN <= value <= INT64_MAX
    return type(value) is float and value.is_integer() and INT64_MIN <= value <= INT64_MAX


def as_int64(value: Any) -> Any:
    """`value` as the int the decoder makes of it (an integral float -> int); anything else unchanged."""
    return int(value) if type(value) is float and is_int64(value) else value


class JsonType(Struct, frozen=True):
    """A JSON type the decoder accepts for a Go type, named as `must be of type <name>` names it."""

    name: str
    accepts: Callable[[Any], bool]

    def check(self, errs: Errors, value: Any, path: FieldPath) -> bool:
        """Whether `value` decodes: null always does (Go's zero value); a wrong type is reported."""
        if value is None or self.accepts(value):
            return True
        wrong_type(errs, value, path, self.name)
        return False


STRING = JsonType("string", lambda value: isinstance(value, str))
BOOLEAN = JsonType("boolean", lambda value: isinstance(value, bool))
INTEGER = JsonType("integer", is_int64)  # not isinstance: a bool is no integer, nor is a number beyond int64
OBJECT = JsonType("object", lambda value: isinstance(value, Mapping))
ARRAY = JsonType("array", lambda value: isinstance(value, list))
RAW = JsonType("any JSON value", lambda value: True)  # runtime.RawExtension: the decoder keeps whatever it is


def _get(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath, json_type: JsonType) -> Any:
    """obj[key] when absent (None) or of `json_type`; a wrong type is reported and read as None (Go's zero)."""
    value = obj.get(key)
    return value if json_type.check(errs, value, path.child(key)) else None


def decode_str(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath) -> str | None:
    value: str | None = _get(errs, obj, key, path, STRING)
    return value


def decode_bool(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath) -> bool | None:
    value: bool | None = _get(errs, obj, key, path, BOOLEAN)
    return value


def decode_int(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath) -> int | None:
    value: int | None = as_int64(_get(errs, obj, key, path, INTEGER))
    return value


def decode_map(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath) -> Mapping[str, Any] | None:
    value: Mapping[str, Any] | None = _get(errs, obj, key, path, OBJECT)
    return value


def decode_list(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath) -> list[Any] | None:
    value: list[Any] | None = _get(errs, obj, key, path, ARRAY)
    return value


def decode_item_map(errs: Errors, value: Any, path: FieldPath) -> Mapping[str, Any]:
    """A list item or map value that must be an object; null is the zero struct and anything else is reported,
    both read as empty."""
    if isinstance(value, Mapping):
        return value
    if value is not None:
        wrong_type(errs, value, path, OBJECT.name)
    return {}


def zero_structs(items: list[Any]) -> list[Any]:
    """A list of structs as the decoder fills it: a null item is the zero struct, read as an empty object
    (sigs.k8s.io/json leaves a null struct, string or number at Go's zero value)."""
    return [{} if item is None else item for item in items] if None in items else items


def unknown_fields(errs: Errors, obj: Mapping[str, Any], known: frozenset[str], path: FieldPath) -> None:
    """The API server's field-validation warning for every key of `obj` its schema lacks."""
    if not known.issuperset(obj):
        from webhook.rules.k8s.errors import unknown_field
        from webhook.rules.k8s.ids import UNKNOWN_FIELD

        errs += [(UNKNOWN_FIELD, unknown_field(path.child(str(key)))) for key in obj if key not in known]


def go_len(text: str) -> int:
    """Go's len() of a string: its UTF-8 bytes. A lone surrogate (draguard's readers make JSON's `\\ud800` U+FFFD,
    as Go's decoder does, and YAML refuses it; a caller's object may still hold one) counts its 3 bytes instead of
    failing to encode."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def strings(errs: Errors, values: list[Any] | None, path: FieldPath) -> list[str | None]:
    """A []string field: null is Go's zero value ""; any other non-string is reported and left as None in its
    place, so that later checks still name each string by the index it has in the object."""
    out: list[str | None] = []
    for i, item in enumerate(values or ()):
        if isinstance(item, str) or item is None:
            out.append(item or "")
        else:
            wrong_type(errs, item, path.index(i), STRING.name)
            out.append(None)
    return out
