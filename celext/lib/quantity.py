"""The Kubernetes quantity library (apiserver `library.Quantity`).

    quantity(<string>) -> Quantity             a bad string is a runtime error with the upstream text
    isQuantity(<string>) -> bool
    sign(<Quantity>) -> int                    a global function only, as upstream declares it (`q.sign()` does not
                                               compile there: found no matching overload)
    <Quantity>.isGreaterThan(<Quantity>) / .isLessThan(<Quantity>) -> bool
    <Quantity>.compareTo(<Quantity>) -> int
    <Quantity>.add(<Quantity | int>) / .sub(<Quantity | int>) -> Quantity
    <Quantity>.asInteger() -> int              error `cannot convert value to integer` unless isInteger()
    <Quantity>.isInteger() -> bool             upstream AsInt64 semantics (see celext.quantity)
    <Quantity>.asApproximateFloat() -> double
`mul`, `div` and `divInt` (newer than the Kubernetes releases DRA targets here) are not provided.
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.lib.ints import cel_int
from celext.lib.library import Library, overload, parsing
from celext.quantity import Quantity, from_int, is_quantity, parse_quantity, pointer
from celext.values import CELEvalError

_S = celvalues.StringType
_B = celvalues.BoolType
_I = celvalues.IntType


_quantity = parsing(parse_quantity)


def _as_integer(q: Quantity) -> Any:
    value = q.as_int64()
    if value is None:
        return CELEvalError("cannot convert value to integer")
    return cel_int(value)  # (as_int64: in range or None)


def _int_arg(value: Any) -> Quantity:
    return from_int(int(value))


def library() -> Library:
    return Library("kubernetes.quantity", (
        overload("quantity", "string_to_quantity", (_S,), _quantity, member=False),
        overload("isQuantity", "is_quantity_string", (_S,), lambda s: _B(is_quantity(str(s))), member=False),
        overload("sign", "quantity_sign", (Quantity,), lambda q: cel_int(q.sign()), member=False),
        overload("isGreaterThan", "quantity_is_greater_than", (Quantity, Quantity), lambda a, b: _B(a.compare(b) == 1)),
        overload("isLessThan", "quantity_is_less_than", (Quantity, Quantity), lambda a, b: _B(a.compare(b) == -1)),
        overload("compareTo", "quantity_compare_to", (Quantity, Quantity), lambda a, b: cel_int(a.compare(b))),
        overload("asApproximateFloat", "quantity_get_float", (Quantity,),
                 lambda q: celvalues.DoubleType(q.as_approximate_float())),
        overload("asInteger", "quantity_get_int", (Quantity,), _as_integer),
        overload("isInteger", "quantity_is_integer", (Quantity,), lambda q: _B(q.as_int64() is not None)),
        # (upstream returns a *cel.Quantity from these: celext.quantity.QuantityPointer)
        overload("add", "quantity_add", (Quantity, Quantity), lambda a, b: pointer(a.add(b))),
        overload("add", "quantity_add_int", (Quantity, _I), lambda a, b: pointer(a.add(_int_arg(b)))),
        overload("sub", "quantity_sub", (Quantity, Quantity), lambda a, b: pointer(a.sub(b))),
        overload("sub", "quantity_sub_int", (Quantity, _I), lambda a, b: pointer(a.sub(_int_arg(b)))),
    ))
