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

import datetime
import math
import operator
import re
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError, base_functions

from celext.lib.gofloat import go_float
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


_INT_AS_DOUBLE = (float(-(2**63)), float(2**63))  # math.MinInt64 / math.MaxInt64 as Go converts them to float64
_UINT_MAX_AS_DOUBLE = float(2**64)


def _number_order(a: Any, b: Any) -> int:
    """cel-go's cross-type numeric comparison (-1/0/1, 2 when a NaN is involved): ints and uints compare exactly;
    an int or uint against a double is converted to double unless the double lies outside its range, so
    `9223372036854775807 == 9223372036854775808.0` as upstream."""
    x, y = _plain(a), _plain(b)
    if isinstance(x, float) and isinstance(y, float):
        if math.isnan(x) or math.isnan(y):
            return 2
        return int((x > y) - (x < y))
    if isinstance(x, float):
        return -_number_order(b, a) if not math.isnan(x) else 2
    if isinstance(y, float):
        if math.isnan(y):
            return 2
        low, high = (0.0, _UINT_MAX_AS_DOUBLE) if isinstance(a, celtypes.UintType) else _INT_AS_DOUBLE
        if y < low:
            return 1
        if y > high:
            return -1
        x = float(x)
    return int((x > y) - (x < y))


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
        return _is_number(b) and _number_order(a, b) == 0
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
            other = map_get(b, key)
            if other is MISSING:
                return False
            same = equal(value, other)
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
        return _number_order(a, b)  # 2 for NaN: every ordering is false
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


MISSING: Any = object()


def map_get(mapping: Any, key: Any) -> Any:
    """`mapping[key]` as cel-go looks a key up: numeric keys match across int, uint and double by value
    (`{1u: 'a'}[1]`, `{2: 'b'}[2.0]`); `MISSING` when absent. Raises TypeError for a key type no map has."""
    double = isinstance(key, celtypes.DoubleType)
    if not double:  # a double never is a map key in CEL; it finds an int or uint key of the same value
        try:
            return mapping[key]
        except KeyError:
            pass
        except TypeError:  # cel-python's numbers refuse to compare across types inside the dict lookup
            if not _is_number(key):
                raise
    if _is_number(key):
        for candidate, value in mapping.items():
            if _is_number(candidate) and not isinstance(candidate, celtypes.DoubleType) \
                    and _number_order(candidate, key) == 0:
                return value
    return MISSING


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


_MAX_DURATION = datetime.timedelta(microseconds=(2**63 - 1) // 1000)  # cel-go: time.Duration, int64 nanoseconds
_MIN_TIME = datetime.datetime(1, 1, 1, tzinfo=datetime.UTC)  # 0001-01-01T00:00:00Z ... 9999-12-31T23:59:59.999999Z
_MAX_TIME = datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.UTC)


def _duration(value: datetime.timedelta) -> Any:
    if abs(value) > _MAX_DURATION:
        return CELEvalError("duration overflow")
    return celtypes.DurationType(value)


def _timestamp(value: datetime.datetime) -> Any:
    if not _MIN_TIME <= value <= _MAX_TIME:
        return CELEvalError("timestamp overflow")
    return value if isinstance(value, celtypes.TimestampType) else celtypes.TimestampType(value)


def _time_arithmetic(a: Any, b: Any, subtract: bool) -> Any:
    """Timestamps and durations as cel-go adds and subtracts them: results range-checked (durations fit int64
    nanoseconds, timestamps years 1 to 9999), duration - duration a duration."""
    try:
        if isinstance(a, celtypes.DurationType) and isinstance(b, celtypes.DurationType):
            return _duration(a - b if subtract else a + b)
        if isinstance(a, celtypes.TimestampType) and isinstance(b, celtypes.TimestampType) and subtract:
            return _duration(datetime.datetime.__sub__(a, b))
        if isinstance(a, celtypes.TimestampType) and isinstance(b, celtypes.DurationType):
            return _timestamp(datetime.datetime.__sub__(a, b) if subtract else datetime.datetime.__add__(a, b))
        if isinstance(a, celtypes.DurationType) and isinstance(b, celtypes.TimestampType) and not subtract:
            return _timestamp(datetime.datetime.__add__(b, a))
    except OverflowError:
        return CELEvalError("timestamp overflow")
    return None


def _add(a: Any, b: Any) -> Any:
    timed = _time_arithmetic(a, b, subtract=False)
    return timed if timed is not None else operator.add(a, b)


def _subtract(a: Any, b: Any) -> Any:
    timed = _time_arithmetic(a, b, subtract=True)
    return timed if timed is not None else operator.sub(a, b)


def _divide(a: Any, b: Any) -> Any:
    """Doubles divide as IEEE 754 does (`0.0/0.0` is NaN, `1.0/0.0` infinity); the rest as cel-python does."""
    if isinstance(a, celtypes.DoubleType) and isinstance(b, celtypes.DoubleType) and float(b) == 0.0:
        x = float(a)
        if x == 0.0 or math.isnan(x):
            return celtypes.DoubleType(math.nan)
        return celtypes.DoubleType(math.copysign(math.inf, x) * math.copysign(1.0, float(b)))
    return operator.truediv(a, b)


def to_timestamp(value: Any) -> Any:
    """CEL `timestamp()`: of a string (RFC 3339), of a timestamp (itself), of an int (Unix seconds)."""
    if isinstance(value, celtypes.TimestampType):
        return value
    if isinstance(value, celtypes.IntType) and not isinstance(value, celtypes.BoolType):
        try:
            moment = datetime.datetime.fromtimestamp(int(value), tz=datetime.UTC)
        except (OverflowError, ValueError, OSError):
            return CELEvalError("timestamp overflow")
        return _timestamp(moment)
    return celtypes.TimestampType(value)


_STRING = base_functions["string"]


def to_string(value: Any) -> Any:
    """CEL `string()` as cel-go writes it: a double as strconv.FormatFloat(f, 'g', -1, 64), a bool as `true` or
    `false`; the rest as cel-python."""
    if isinstance(value, celtypes.BoolType):
        return celtypes.StringType("true" if value else "false")
    if isinstance(value, celtypes.DoubleType):
        return celtypes.StringType(go_float(float(value)))
    return _STRING(value)


OPERATORS: dict[str, Any] = {
    "_+_": _add,
    "_-_": _subtract,
    "_/_": _divide,
    "_==_": _equal_value,
    "_!=_": _not_equal_value,
    "_<_": _ordering("<"),
    "_<=_": _ordering("<="),
    "_>_": _ordering(">"),
    "_>=_": _ordering(">="),
    "_in_": contained,
    "timestamp": to_timestamp,  # not an operator: cel-python's conversion lacks the int and timestamp overloads
    "string": to_string,  # not an operator: cel-python writes a double as Python does, cel-go as Go's %g
}


_INT64 = (-(2**63), 2**63 - 1)
_UINT64_MAX = 2**64 - 1
# Go's strconv.ParseInt / ParseUint in base 10: ASCII digits, a sign only for ParseInt; no underscores, blanks or
# base prefixes, which Python's int() would take.
_DECIMAL_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL_UINT = re.compile(r"[0-9]+", re.ASCII)
INT_OVERFLOW = "integer overflow"  # cel-go's errIntOverflow
UINT_OVERFLOW = "unsigned integer overflow"  # cel-go's errUintOverflow


def to_int(value: Any) -> Any:
    """CEL `int()` as cel-go converts: strings in base 10 (out of range is a conversion error, as ParseInt
    fails), doubles truncated within (-2^63, 2^63), uints up to 2^63 - 1."""
    if isinstance(value, CELEvalError):
        return value
    if isinstance(value, celtypes.StringType):
        if not _DECIMAL_INT.fullmatch(value) or not _INT64[0] <= (number := int(value)) <= _INT64[1]:
            return CELEvalError("type conversion error from 'string' to 'int'")
    elif isinstance(value, celtypes.BoolType):
        return CELEvalError("found no matching overload for 'int' applied to '(bool)'")
    elif isinstance(value, (celtypes.IntType, celtypes.UintType)):
        number = int(value)
    elif isinstance(value, celtypes.DoubleType):
        if math.isnan(value) or not _INT_AS_DOUBLE[0] < float(value) < _INT_AS_DOUBLE[1]:
            return CELEvalError(INT_OVERFLOW)  # cel-go refuses both ends, -2^63 included
        number = math.trunc(value)
    else:
        return celtypes.IntType(value)
    if not _INT64[0] <= number <= _INT64[1]:
        return CELEvalError(INT_OVERFLOW)
    return _new_int(celtypes.IntType, number)  # range checked above; IntType() would wrap a checker per call


def to_uint(value: Any) -> Any:
    """CEL `uint()` as cel-go converts: strings in base 10 without a sign (out of range is a conversion error),
    negative ints and doubles outside [0, 2^64) are `unsigned integer overflow`."""
    if isinstance(value, CELEvalError):
        return value
    if isinstance(value, celtypes.StringType):
        if not _DECIMAL_UINT.fullmatch(value) or (number := int(value)) > _UINT64_MAX:
            return CELEvalError("type conversion error from 'string' to 'uint'")
    elif isinstance(value, celtypes.BoolType):
        return CELEvalError("found no matching overload for 'uint' applied to '(bool)'")
    elif isinstance(value, (celtypes.IntType, celtypes.UintType)):
        number = int(value)
    elif isinstance(value, celtypes.DoubleType):
        if math.isnan(value) or not 0.0 <= float(value) < _UINT_MAX_AS_DOUBLE:
            return CELEvalError(UINT_OVERFLOW)
        number = math.trunc(value)
    else:
        return CELEvalError("no such overload")  # cel-go: uint() has no overload for any other type
    if not 0 <= number <= _UINT64_MAX:
        return CELEvalError(UINT_OVERFLOW)
    return _new_int(celtypes.UintType, number)


_new_int = int.__new__
