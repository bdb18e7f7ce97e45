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


def _element(types: dict[int, Type], node: Expr, optional: bool) -> Type:
    """The type an element contributes: an optional entry (`[?x]`, `{?k: x}`) adds what its optional holds."""
    found = types[node.id]
    return found.params[0] if optional and found.params else found


def mismatches(aggregates: list[CreateList | CreateMap], types: dict[int, Type]) -> list[tuple[Expr, str]]:
    """(element, message) for each mismatch the validator reports. Types are the final checked types (type
    parameters resolved, the rest `dyn`), so equivalence is equality."""
    found: list[tuple[Expr, str]] = []
    for node in aggregates:
        if isinstance(node, CreateList):
            first = _element(types, node.elements[0], 0 in node.optional)
            for i, item in enumerate(node.elements[1:], 1):
                current = _element(types, item, i in node.optional)
                if current != first:
                    found.append((item, f"expected type '{fmt(first)}' but found '{fmt(current)}'"))
                    break
            continue
        (first_key, first_value), *rest = node.entries
        key_type, value_type = types[first_key.id], _element(types, first_value, 0 in node.optional)
        for i, (key, value) in enumerate(rest, 1):
            if types[key.id] != key_type:
                found.append((key, f"expected type '{fmt(key_type)}' but found '{fmt(types[key.id])}'"))
            current = _element(types, value, i in node.optional)
            if current != value_type:
                found.append((value, f"expected type '{fmt(value_type)}' but found '{fmt(current)}'"))
    return found
