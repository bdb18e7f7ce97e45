"""Shapes `celext.analysis` recognises in a parse tree: attribute reads and comprehension macros.

Pure functions of one node and the `cel.bind` variables in scope (`bound`), no other walk state:
`device.attributes` / `device.capacity` and the reads below them (plain, or optional with `.?id`, `[?"id"]`,
`[?"domain"]`; the domain a literal or `device.driver`; a read through a variable bound to a domain map, or a
variable bound to a read), an optional read turned back into the value (`.value()`, `.orValue(x)`), how many
variables a macro binds (one- and two-variable forms, transformList/Map, sortBy, optMap, ...) and how many
elements a comprehension may visit by the Kubernetes size bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple

from celext.analysis.facts import DRIVER_DOMAIN, Kind
from celext.syntax.nodes import Tree
from celext.syntax.tree import AST, Node, args_of, list_length, literal_value, unwrap

# Comprehension macros: they iterate their receiver. On a list attribute they are the right tool. `optMap` and
# `optFlatMap` bind their variable to an optional's value (at most one "iteration").
MACROS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap",
                    "transformMapEntry", "sortBy", "optMap", "optFlatMap"})
# Macros whose every form binds two variables (index/key, element/value); all/exists/existsOne do with 3 args.
TWO_VARIABLES = frozenset({"transformList", "transformMap", "transformMapEntry"})
QUANTIFIERS = frozenset({"all", "exists", "exists_one", "existsOne"})
# Upper bounds the Kubernetes cost estimator assumes for DRA values (dynamic-resource-allocation cel/compile.go).
MAX_MAP_ENTRIES = 32  # attribute and capacity maps per device
MAX_ATTRIBUTE_SIZE = 64  # an attribute value (list length) as the size estimator sees it

# kind, domain, its literal (or `device.driver`), whether optional, whether the driver's own domain
DomainShape = tuple[Kind, str, Node, bool, bool]
# kind, domain, its literal, id, its token or literal, whether optional, whether the driver's own domain
AttributeShape = tuple[Kind, str, Node, str, Node, bool, bool]


class Binding(NamedTuple):
    """What a `cel.bind` variable stands for: a domain map (`domain`), or an attribute read (`attribute`, the
    nodes those of the read where it is bound), optional or not, or an optional read's `.value()`/`.orValue(x)`
    (`unwrap`, with the `fallback` node): then the variable is the attribute value, no longer an optional."""

    domain: DomainShape | None = None
    attribute: AttributeShape | None = None
    unwrap: Literal["value", "orValue"] | None = None
    fallback: Node | None = None


Bindings = Mapping[str, Binding]  # the `cel.bind` variables in scope (a shadowed one is absent)
NO_BINDINGS: Bindings = MappingProxyType({})


def variable_count(name: str, args: int) -> int:
    """How many iteration variables macro `name` binds when called with `args` arguments (0: not a macro)."""
    if name not in MACROS or args < 2:
        return 0
    if name in TWO_VARIABLES or (name in QUANTIFIERS and args == 3):
        return 2
    return 1


def identifier(node: Node) -> str:
    """The name when `node` is a bare identifier (a comprehension variable), else ""."""
    inner = unwrap(node)
    if isinstance(inner, Tree) and inner.data == "ident" and inner.children:
        return str(inner.children[0])
    return ""


def is_device_map(node: Node) -> Kind | None:
    """`device.attributes` or `device.capacity` -> which one."""
    node = unwrap(node)
    if not (isinstance(node, Tree) and node.data == "member_dot" and len(node.children) == 2):
        return None
    base, field = node.children
    base = unwrap(base)
    if not (isinstance(base, Tree) and base.data == "ident" and str(base.children[0]) == "device"):
        return None
    return "attributes" if str(field) == "attributes" else "capacity" if str(field) == "capacity" else None


def is_device_driver(node: Node) -> bool:
    """`device.driver`: the domain index of the driver's own attributes."""
    node = unwrap(node)
    if not (isinstance(node, Tree) and node.data == "member_dot" and len(node.children) == 2):
        return False
    base = unwrap(node.children[0])
    return (isinstance(base, Tree) and base.data == "ident" and str(base.children[0]) == "device"
            and str(node.children[1]) == "driver")


def bound_to(node: Node, bound: Bindings) -> Binding | None:
    """What `node` stands for when it is a `cel.bind` variable in scope."""
    name = identifier(node) if bound else ""
    return bound.get(name) if name else None


def domain_shape(node: AST, bound: Bindings = NO_BINDINGS) -> DomainShape | None:
    """`device.attributes["d"]` (or `[?"d"]`, then optional; or `[device.driver]`, DRIVER_DOMAIN; or a variable
    bound to one) -> kind, domain, its literal, optional, whether it is the driver's domain."""
    binding = bound_to(node, bound)
    if binding is not None:
        return binding.domain
    if node.data not in ("member_index", "member_index_opt") or len(node.children) != 2:
        return None
    kind = is_device_map(node.children[0])
    by_driver = is_device_driver(node.children[1])
    domain = DRIVER_DOMAIN if by_driver else literal_value(node.children[1])
    if kind is None or not isinstance(domain, str):
        return None
    return kind, domain, node.children[1], node.data == "member_index_opt", by_driver


def attribute_shape(node: AST, bound: Bindings = NO_BINDINGS) -> AttributeShape | None:
    """A read (or a variable bound to one, or a read from a variable bound to a domain map) -> kind, domain, its
    literal, id, its token or literal, whether the read is optional, whether it reads the driver's own domain."""
    binding = bound_to(node, bound)
    if binding is not None:
        return binding.attribute if binding.unwrap is None else None  # an unwrapped one is a value, no read
    if node.data not in ("member_dot", "member_index", "member_dot_opt", "member_index_opt") or len(
            node.children) != 2:
        return None
    inner, key = node.children
    inner = unwrap(inner)
    if not isinstance(inner, Tree):
        return None
    found = domain_shape(inner, bound)
    if found is None:
        return None
    kind, domain, domain_node, optional_domain, by_driver = found
    optional = optional_domain or node.data in ("member_dot_opt", "member_index_opt")
    if node.data in ("member_dot", "member_dot_opt"):
        return kind, domain, domain_node, str(key), key, optional, by_driver
    name = literal_value(key)
    return (kind, domain, domain_node, name, key, optional, by_driver) if isinstance(name, str) else None


def unwrap_shape(node: AST, bound: Bindings = NO_BINDINGS
                 ) -> tuple[AST, Literal["value", "orValue"], Node | None] | None:
    """`<optional read>.value()` / `<optional read>.orValue(x)` -> the read, the method, the fallback."""
    if node.data != "member_dot_arg" or len(node.children) < 2:
        return None
    receiver, name, *rest = node.children
    args = args_of(rest[0]) if rest else []
    read = unwrap(receiver)
    if not isinstance(read, Tree) or (shape := attribute_shape(read, bound)) is None or not shape[5]:
        return None
    if str(name) == "value" and not args:
        return read, "value", None
    if str(name) == "orValue" and len(args) == 1:
        return read, "orValue", args[0]
    return None


def range_size(receiver: Node, bound: Bindings = NO_BINDINGS) -> int | None:
    """How many elements a comprehension over `receiver` may visit, by the Kubernetes size bounds."""
    inner = unwrap(receiver)
    if not isinstance(inner, Tree):
        return None
    if inner.data == "member_dot_arg" and str(inner.children[1]) == "range" and len(inner.children) == 3:
        size = literal_value(args_of(inner.children[2])[0]) if args_of(inner.children[2]) else None
        return size if isinstance(size, int) and not isinstance(size, bool) else None
    length = list_length(inner)
    if length is not None:
        return length
    if is_device_map(inner) is not None or domain_shape(inner, bound) is not None:
        return MAX_MAP_ENTRIES
    binding = bound_to(inner, bound)
    if (attribute_shape(inner, bound) is not None or unwrap_shape(inner, bound) is not None
            or (binding is not None and binding.unwrap is not None)):
        return MAX_ATTRIBUTE_SIZE
    return None
