"""List and map literals as cel-go builds them (interpreter/interpretable.go evalList, evalMap), over any kind of
element: the reference engine hands its parse trees to visit, the compact form of the compiled engine its
closures (celext.plan.closures), so both build literals by these rules, stated once.

- elements and entries are evaluated in order, an entry's key before its value; the first error is the result;
- `[?x]`: x must be an optional (else `cannot initialize optional list element from non-optional value ...`);
  an empty one adds nothing, a present one its value;
- `{?k: v}`: v must be an optional (else `cannot initialize optional entry 'k' from non-optional value ...`);
  an empty one removes k, a present one stores its value;
- a repeated key keeps its last value; keys of different kinds stay apart (celext.lib.operators.map_put); a list
  or map key is `unsupported key type: ...` (draguard's own rule: cel-go keys a Go map by its identity).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from celext import values as celvalues
from celext.lib.format import as_string
from celext.lib.operators import map_delete, map_put
from celext.lib.optional_value import OptionalValue
from celext.lib.typenames import cel_type_name
from celext.values import CELEvalError

__all__ = ["build_list", "build_map"]

Part = TypeVar("Part")  # what `evaluate` takes: a parse tree or a closure


def build_list(elements: Sequence[tuple[bool, Part]], evaluate: Callable[[Part], Any]) -> Any:
    """A list literal from its elements, each (is it an optional element `?x`, x)."""
    values = []
    for optional_element, element in elements:
        value = evaluate(element)
        if isinstance(value, CELEvalError):
            return value
        if optional_element:
            if not isinstance(value, OptionalValue):  # (interpretable.go invalidOptionalElementInit)
                return CELEvalError(f"cannot initialize optional list element from non-optional value "
                                    f"{as_string(value)}")
            if not value.present:
                continue
            value = value.value
        values.append(value)
    return celvalues.ListType(values)


def build_map(entries: Sequence[tuple[bool, Part, Part]], evaluate: Callable[[Part], Any]) -> Any:
    """A map literal from its entries, each (is it an optional entry `?k: v`, k, v)."""
    built = celvalues.MapType()
    for optional_entry, key_part, value_part in entries:
        key = evaluate(key_part)
        if isinstance(key, CELEvalError):
            return key
        value = evaluate(value_part)
        if isinstance(value, CELEvalError):
            return value
        if optional_entry:
            if not isinstance(value, OptionalValue):  # (interpretable.go invalidOptionalEntryInit)
                return CELEvalError(f"cannot initialize optional entry '{as_string(key)}' from non-optional "
                                    f"value {as_string(value)}")
            if not value.present:
                map_delete(built, key)
                continue
            value = value.value
        try:
            map_put(built, key, value)
        except TypeError:
            return CELEvalError(f"unsupported key type: {cel_type_name(key)}")
    return built
