"""CEL operators with the semantics Kubernetes runs (cel-go, CrossTypeNumericComparisons on).

They replace cel-python's `_==_`, `_!=_`, `_<_`, `_<=_`, `_>_`, `_>=_` and `_in_`, whose equality raises on
mixed types (`IntType(4) == StringType("4")`) and whose ordering errors on `1 < 1.5`:
- equality is heterogeneous: values of different types are unequal, int/uint/double compare numerically,
  lists and maps compare element by element;
- `kubernetes.Semver` and `kubernetes.Quantity` only compare with their own type; against anything else
  `==` is the runtime error `no such overload` (their `Equal` returns that error upstream);
- ordering accepts int/uint/double across types, and same-type string, bytes, bool, timestamp, duration.
"""

from __future__ import annotations

import math
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from celext.quantity import Quantity
from celext.semver import Semver

_NUMBERS = (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)
_OPAQUE = (Semver, Quantity)
_ORDERED_SAME_TYPE = (celtypes.StringType, celtypes.BytesType, celtypes.TimestampType, celtypes.DurationType)


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBERS) and not isinstance(value, celtypes.BoolType)


def _plain(value: Any) -> int | float:
    """celtypes numbers refuse to compare across types; builtin int/float compare exactly."""
    return float(value) if isinstance(value, celtypes.DoubleType) else int(value)


def equal(a: Any, b: Any) -> bool | CELEvalError:
    """CEL `==` at runtime; a CELEvalError when an opaque type meets another type."""
    if isinstance(a, CELEvalError):
        return a
    if isinstance(b, CELEvalError):
        return b
    if isinstance(a, _OPAQUE) or isinstance(b, _OPAQUE):
        if type(a) is type(b):
            return bool(a == b)
        return CELEvalError("no such overload")
    if isinstance(a, celtypes.BoolType) or isinstance(b, celtypes.BoolType):
        return isinstance(a, celtypes.BoolType) and isinstance(b, celtypes.BoolType) and int(a) == int(b)
    if _is_number(a):
        return _is_number(b) and _plain(a) == _plain(b)  # Python compares int and float exactly
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            same = equal(x, y)
            if same is not True:
                return same
        return True
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for key, value in a.items():
            if key not in b:
                return False
            same = equal(value, b[key])
            if same is not True:
                return same
        return True
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and str.__eq__(a, b)
    if isinstance(a, bytes) or isinstance(b, bytes):
        return isinstance(a, bytes) and isinstance(b, bytes) and bytes.__eq__(a, b)
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _equal_value(a: Any, b: Any) -> Any:
    same = equal(a, b)
    return same if isinstance(same, CELEvalError) else celtypes.BoolType(same)


def _not_equal_value(a: Any, b: Any) -> Any:
    same = equal(a, b)
    return same if isinstance(same, CELEvalError) else celtypes.BoolType(not same)


def compare(a: Any, b: Any) -> int | CELEvalError:
    """-1/0/1 for CEL ordering; `no such overload` for types without an order between them."""
    if isinstance(a, CELEvalError):
        return a
    if isinstance(b, CELEvalError):
        return b
    numbers = _is_number(a) and _is_number(b)
    bools = isinstance(a, celtypes.BoolType) and isinstance(b, celtypes.BoolType)
    if not (numbers or bools or (isinstance(a, _ORDERED_SAME_TYPE) and type(a) is type(b))):
        return CELEvalError("no such overload")
    if numbers:
        a, b = _plain(a), _plain(b)
        if math.isnan(a) or math.isnan(b):  # NaN: every ordering is false
            return 2
    return int((a > b) - (a < b))


def _ordering(test: str) -> Any:
    def op(a: Any, b: Any) -> Any:
        order = compare(a, b)
        if isinstance(order, CELEvalError):
            return order
        if order == 2:
            return celtypes.BoolType(False)
        return celtypes.BoolType({"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[test])

    op.__name__ = f"_{test}_"
    return op


def contained(item: Any, container: Any) -> Any:
    """CEL `in`: list membership by CEL equality; map membership by key."""
    if isinstance(item, CELEvalError):
        return item
    if isinstance(container, CELEvalError):
        return container
    if isinstance(container, list):
        return celtypes.BoolType(any(equal(element, item) is True for element in container))
    if isinstance(container, dict):
        if isinstance(item, celtypes.StringType):
            return celtypes.BoolType(item in container)
        return celtypes.BoolType(any(equal(key, item) is True for key in container))
    return CELEvalError("no such overload")


OPERATORS: dict[str, Any] = {
    "_==_": _equal_value,
    "_!=_": _not_equal_value,
    "_<_": _ordering("<"),
    "_<=_": _ordering("<="),
    "_>_": _ordering(">"),
    "_>=_": _ordering(">="),
    "_in_": contained,
}


_INT64 = (-(2**63), 2**63 - 1)


def to_int(value: Any) -> Any:
    """CEL `int()`: cel-python's version rebuilds a decorator per call; same results, range-checked."""
    if isinstance(value, CELEvalError):
        return value
    try:
        if isinstance(value, celtypes.StringType):
            number = int(value, 0) if value[:2].lower() in ("0x", "-0") and "x" in value[:3].lower() else int(value)
        elif isinstance(value, celtypes.BoolType):
            return CELEvalError("found no matching overload for 'int' applied to '(bool)'")
        elif isinstance(value, (celtypes.IntType, celtypes.UintType)):
            number = int(value)
        elif isinstance(value, celtypes.DoubleType):
            if math.isnan(value) or math.isinf(value):
                return CELEvalError("double is out of range for int")
            number = math.trunc(value)
        else:
            return celtypes.IntType(value)
    except ValueError:
        return CELEvalError(f"type conversion error from 'string' to 'int': {value!r}")
    if not _INT64[0] <= number <= _INT64[1]:
        return CELEvalError("integer overflow")
    return _new_int(celtypes.IntType, number)  # range checked above; IntType() would wrap a checker per call


_new_int = int.__new__
