"""The CEL standard functions celext does not define in a library of its own: size, contains, startsWith,
endsWith, the logical operators as functions, negation, `*`, indexing, and the conversions' plain forms.

Each raises TypeError (or AttributeError) for a value it has no overload for: the caller's dispatch
(`celext.lib.library.invoke`) turns that into `no such overload`. celext.env lays its own operators, libraries
and conversions over this table.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from celext import values as celvalues
from celext.values import CELEvalError

__all__ = ["STANDARD"]


def _logical_not(value: Any) -> Any:
    if isinstance(value, CELEvalError):
        return value
    if isinstance(value, celvalues.BoolType):
        return celvalues.BoolType(not value)
    raise TypeError(f"not {type(value)}")


def _logical(decisive: bool) -> Callable[[Any, Any], Any]:
    """`&&` (decisive false) and `||` (decisive true) as functions: a decisive bool operand wins, else a non-bool
    operand (an error) is the result; two non-bools are a TypeError."""

    def combine(x: Any, y: Any) -> Any:
        x_bool, y_bool = isinstance(x, celvalues.BoolType), isinstance(y, celvalues.BoolType)
        if not x_bool and not y_bool:
            raise TypeError(f"{type(x)} {x!r} and {type(y)} {y!r}")
        if x_bool and bool(x) is decisive:
            return x
        if y_bool and bool(y) is decisive:
            return y
        if not x_bool:
            return x
        return y

    return combine


def _condition(test: Any, x: Any, y: Any) -> Any:
    if not isinstance(test, celvalues.BoolType):
        raise TypeError(f"Unexpected {type(test)} ? {type(x)} : {type(y)}")
    return x if test else y


def _size(value: Any) -> Any:
    return celvalues.IntType(0) if value is None else celvalues.IntType(len(value))


def _contains(container: Any, item: Any) -> Any:
    return celvalues.BoolType(container.contains(item))


def _starts_with(text: Any, prefix: Any) -> Any:
    return celvalues.BoolType(text.startswith(prefix))


def _ends_with(text: Any, suffix: Any) -> Any:
    return celvalues.BoolType(text.endswith(suffix))


STANDARD: dict[str, Any] = {
    "!_": _logical_not,
    "-_": operator.neg,
    "_*_": operator.mul,
    "_&&_": _logical(False),
    "_||_": _logical(True),
    "_?_:_": _condition,
    "_[_]": operator.getitem,
    "size": _size,
    "contains": _contains,
    "startsWith": _starts_with,
    "endsWith": _ends_with,
    "bool": celvalues.BoolType,
    "bytes": celvalues.BytesType,
    "double": celvalues.DoubleType,
    "duration": celvalues.DurationType,
    "int": celvalues.IntType,
    "uint": celvalues.UintType,
    "string": celvalues.StringType,
    "timestamp": celvalues.TimestampType,
    "list": celvalues.ListType,
    "map": celvalues.MapType,
    "null_type": type(None),
    "type": celvalues.TypeType,
}
