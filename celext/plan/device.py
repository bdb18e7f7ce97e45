"""Device reads the compiled engine turns into direct wire-form lookups.

`device.driver`, `device.allowMultipleAllocations` and `device.attributes|capacity[<domain>][<id>]` with
constant names (`.name` or `["name"]` at either step), plus the two forms around them that only ask whether
the entry exists: `has(device.attributes[d].id)` and `device.attributes[d].?id`. Anything else that reads
`device` gets the converted value (celext.reference.values.to_device) and the generic operations.
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct

from celext import values as celvalues
from celext.syntax.nodes import Tree

Kind = Literal["value", "has", "optional"]


class DevicePath(Struct, frozen=True):
    head: str  # driver | allowMultipleAllocations | attributes | capacity
    domain: str = ""
    ident: str = ""
    kind: Kind = "value"


def _is_device(node: Any, scope: dict[str, str]) -> bool:
    return (isinstance(node, Tree) and node.data == "primary" and node.children[0].data == "ident"
            and str(node.children[0].children[0]) == "device" and "device" not in scope)


def _name(node: Tree[Any]) -> str | None:
    """The constant name a `.name` or `["name"]` step selects (None for anything else)."""
    if node.data == "member_dot":
        return str(node.children[1])
    if node.data == "member_index":
        key = node.children[1]
        if isinstance(key, Tree) and key.data == "primary" and key.children[0].data == "const":
            value = key.children[0].children[0]
            if isinstance(value, celvalues.StringType):
                return str(value)
    return None


def _table_step(node: Any, scope: dict[str, str]) -> tuple[str, str] | None:
    """(attributes|capacity, domain) for `device.<table>[<domain>]`."""
    if not isinstance(node, Tree) or node.data not in ("member_dot", "member_index"):
        return None
    table = node.children[0]
    if not (isinstance(table, Tree) and table.data == "member_dot" and _is_device(table.children[0], scope)):
        return None
    head = str(table.children[1])
    domain = _name(node)
    if head not in ("attributes", "capacity") or domain is None:
        return None
    return head, domain


def device_path(node: Tree[Any], scope: dict[str, str]) -> DevicePath | None:
    data = node.data
    if data == "member_dot" and _is_device(node.children[0], scope):
        field = str(node.children[1])
        return DevicePath(field) if field in ("driver", "allowMultipleAllocations") else None
    if data in ("member_dot", "member_index", "member_dot_opt"):
        step = _table_step(node.children[0], scope)
        ident = str(node.children[1]) if data == "member_dot_opt" else _name(node)
        if step is None or ident is None:
            return None
        return DevicePath(step[0], step[1], ident, "optional" if data == "member_dot_opt" else "value")
    if data == "primary" and node.children[0].data == "ident_arg" and str(node.children[0].children[0]) == "has":
        call = node.children[0]
        args = call.children[1].children if len(call.children) == 2 else []
        if len(args) == 1 and isinstance(args[0], Tree) and args[0].data == "member_dot":
            inner = device_path(args[0], scope)
            if inner is not None and inner.head in ("attributes", "capacity"):
                return DevicePath(inner.head, inner.domain, inner.ident, "has")
    return None
