"""The API server's field errors, worded byte for byte (`k8s.io/apimachinery/pkg/util/validation/field`).

One constructor per upstream error type; the message is upstream's `ErrorBody()` (the text after
`<path>: `), with the bad value rendered the way Go renders it: `%v` for numbers and booleans, `%q` for
strings, JSON for anything else (Go's `json.Marshal`: compact, sorted map keys, `<`, `>`, `&` escaped).

    invalid(path, "", "exactly one value must be specified")  ->  Invalid value: "": exactly one value ...
    too_many(path, 129, 128)                                 ->  Too many: 129: must have at most 128 items
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct

from celext.gostrconv import go_quote
from webhook.fieldpath import FieldPath
from webhook.findings import Finding

OMIT = object()  # upstream's omitValue: the body names the error type only


class GoStruct(Struct, frozen=True):
    """A Go struct as a bad value: json.Marshal keeps the declaration order of its fields."""

    fields: Mapping[str, Any]


def go_json(value: Any, *, sort_keys: bool = True) -> str:
    """Go's `json.Marshal` of a decoded wire value (maps sorted by key; a struct keeps its field order)."""
    try:
        text = json.dumps(value, separators=(",", ":"), sort_keys=sort_keys, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):  # absurdly deep nesting or a circular value: say so, never raise
        return '"<value omitted>"'
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return go_json(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, GoStruct):
        return go_json(dict(value.fields), sort_keys=False)
    return go_json(value)


def _body(kind: str, value: Any, detail: str) -> str:
    text = kind if value is OMIT else f"{kind}: {render_value(value)}"
    return f"{text}: {detail}" if detail else text


def required(path: FieldPath, detail: str = "") -> Finding:
    return Finding(path, f"Required value: {detail}" if detail else "Required value")


def forbidden(path: FieldPath, detail: str) -> Finding:
    return Finding(path, f"Forbidden: {detail}" if detail else "Forbidden")


def invalid(path: FieldPath, value: Any, detail: str) -> Finding:
    return Finding(path, _body("Invalid value", value, detail))


def declarative_union(path: FieldPath, members: Sequence[str], specified: Sequence[str]) -> Finding | None:
    """Declarative validation's union (apimachinery `validate.Union`, `+k8s:unionMember`): none of `members` set,
    or more than one (`specified`, in member order); None when exactly one is."""
    names = ", ".join(f"`{member}`" for member in members)
    if len(specified) > 1:
        return invalid(path, "{" + ", ".join(specified) + "}", f"must specify exactly one of: {names}")
    return None if specified else invalid(path, "", f"must specify one of: {names}")


def type_invalid(path: FieldPath, value: Any, detail: str) -> Finding:
    """What the decoder says about a value of the wrong JSON type (the request fails before validation)."""
    return Finding(path, _body("Invalid value", value, detail))


def duplicate(path: FieldPath, value: Any) -> Finding:
    return Finding(path, _body("Duplicate value", value, ""))


def not_found(path: FieldPath, value: Any) -> Finding:
    return Finding(path, _body("Not found", value, ""))


def not_supported(path: FieldPath, value: Any, valid: Sequence[str]) -> Finding:
    detail = "supported values: " + ", ".join(go_quote(v) for v in valid) if valid else ""
    return Finding(path, _body("Unsupported value", value, detail))


def too_long(path: FieldPath, limit: int) -> Finding:
    """field.TooLong: a negative limit says only that the value is too long."""
    if limit < 0:
        return Finding(path, "Too long: value is too long")
    unit = "byte" if limit == 1 else "bytes"
    return Finding(path, f"Too long: may not be more than {limit} {unit}")


def too_many(path: FieldPath, actual: int, limit: int) -> Finding:
    """field.TooMany: a negative count is left out of the message, a negative limit is not named."""
    unit = "item" if limit == 1 else "items"
    detail = f"must have at most {limit} {unit}" if limit >= 0 else "has too many items"
    return Finding(path, _body("Too many", actual if actual >= 0 else OMIT, detail))


def unknown_field(path: FieldPath) -> Finding:
    """The API server's warning for a field its schema lacks (the field is dropped)."""
    return Finding(path, f"unknown field {go_quote(str(path))}")


def immutable(path: FieldPath, value: Any) -> Finding:
    """apimachinery ValidateImmutableField."""
    return invalid(path, value, "field is immutable")
