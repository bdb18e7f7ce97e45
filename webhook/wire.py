"""Wire objects (decoded JSON/YAML) and small typed accessors over them.

Objects from users are untrusted: any field may have any type. Accessors return a usable default
for a wrong type so rules can report the problem as a finding instead of raising.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Obj = Mapping[str, Any]


def as_map(value: object) -> Obj | None:
    return value if isinstance(value, Mapping) else None


def as_list(value: object) -> Sequence[Any] | None:
    return value if isinstance(value, list | tuple) else None


def get_map(obj: Obj | None, *keys: str) -> Obj:
    """`obj[k1][k2]...` as a mapping, or an empty mapping when absent or not a mapping."""
    current: object = obj
    for key in keys:
        current = current.get(key) if isinstance(current, Mapping) else None
    return current if isinstance(current, Mapping) else {}


def get_list(obj: Obj | None, *keys: str) -> Sequence[Any]:
    *head, last = keys
    value = get_map(obj, *head).get(last)
    return value if isinstance(value, list | tuple) else ()


def get_str(obj: Obj | None, *keys: str) -> str:
    *head, last = keys
    value = get_map(obj, *head).get(last)
    return value if isinstance(value, str) else ""


def kind_of(obj: Obj) -> str:
    kind = obj.get("kind")
    return kind if isinstance(kind, str) else ""


def name_of(obj: Obj) -> str:
    return get_str(obj, "metadata", "name")
