"""Mixed list and map literals, refused after type-checking as Kubernetes refuses them.

Kubernetes' base environment sets `cel.HomogeneousAggregateLiterals()`, which in cel-go (v0.26, cel/validator.go
`ValidateHomogeneousAggregateLiterals`) is an AST validator, not a checker option: the checker joins mixed
elements to `dyn`, and after a clean check the validator requires every element of a list literal (every key,
and every value, of a map literal) to have a type *equivalent* to the first one's, so `[1, dyn(2)]` is refused
like `[1, "a"]` (`expected type 'int' but found 'dyn'`, at the element), and `[dyn(1), dyn("a")]` passes. A list
reports its first mismatch, a map every one. Literals anywhere inside a `format()` call are exempt (the strings
extension's argument list mixes types on purpose). The checker records the literals that could mix
(`CheckedExpr.aggregates`: two elements or more, not all literals of one kind, outside `format()`).
"""

from __future__ import annotations

from celext.check.ast import CreateList, CreateMap, Expr
from celext.check.types import Type, fmt

EXEMPT = frozenset({"format"})  # cel-go HomogeneousAggregateLiteralExemptFunctions, as the strings ext sets it


# draguard's own words: cel-go has none. Its validator takes an optional entry's type parameter, and a `dyn`
# entry (`[?dyn(x)]`, `[?device.attributes["d"].x]`, which the checker accepts) has none: the validator panics and
# the API server answers 500 Internal Server Error, refusing the object without a message.
OPTIONAL_DYN = ("an optional entry of type 'dyn' in a literal: cel-go's homogeneous-literal check fails on it "
                "(the API server answers 500 Internal Server Error)")


class _Panics(Exception):
    """cel-go's validator would panic at this element."""

    def __init__(self, node: Expr) -> None:
        self.node = node


def _element(types: dict[int, Type], node: Expr, optional: bool) -> Type:
    """The type an element contributes: an optional entry (`[?x]`, `{?k: x}`) adds what its optional holds."""
    found = types[node.id]
    if optional:
        if not found.params:
            raise _Panics(node)
        return found.params[0]
    return found


def mismatches(aggregates: list[CreateList | CreateMap], types: dict[int, Type]) -> list[tuple[Expr, str]]:
    """(element, message) for each mismatch the validator reports. Types are the final checked types (type
    parameters resolved, the rest `dyn`), so equivalence is equality. The validator stops at an optional `dyn`
    entry (OPTIONAL_DYN)."""
    found: list[tuple[Expr, str]] = []
    try:
        for node in aggregates:
            found += _list(node, types) if isinstance(node, CreateList) else _map(node, types)
    except _Panics as panic:
        found.append((panic.node, OPTIONAL_DYN))
    return found


def _list(node: CreateList, types: dict[int, Type]) -> list[tuple[Expr, str]]:
    first = _element(types, node.elements[0], 0 in node.optional)
    for i, item in enumerate(node.elements[1:], 1):
        current = _element(types, item, i in node.optional)
        if current != first:
            return [(item, f"expected type '{fmt(first)}' but found '{fmt(current)}'")]
    return []


def _map(node: CreateMap, types: dict[int, Type]) -> list[tuple[Expr, str]]:
    found: list[tuple[Expr, str]] = []
    (first_key, first_value), *rest = node.entries
    key_type, value_type = types[first_key.id], _element(types, first_value, 0 in node.optional)
    for i, (key, value) in enumerate(rest, 1):
        if types[key.id] != key_type:
            found.append((key, f"expected type '{fmt(key_type)}' but found '{fmt(types[key.id])}'"))
        current = _element(types, value, i in node.optional)
        if current != value_type:
            found.append((value, f"expected type '{fmt(value_type)}' but found '{fmt(current)}'"))
    return found
