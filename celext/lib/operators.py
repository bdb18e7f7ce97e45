"""CEL operators with the semantics Kubernetes runs (cel-go, CrossTypeNumericComparisons on).

They replace cel-python's `_==_`, `_!=_`, `_<_`, `_<=_`, `_>_`, `_>=_` and `_in_`, whose equality raises on
mixed types (`IntType(4) == StringType("4")`) and whose ordering errors on `1 < 1.5`:
- equality is heterogeneous: values of different types are unequal, int/uint/double compare numerically,
  lists and maps compare element by element;
- `==` asks the left operand, as cel-go's `types.Equal` (common/types/util.go) does after deciding null:
  `kubernetes.Semver.Equal` and `kubernetes.Quantity.Equal` answer `no such overload` for any other type
  (apiserver pkg/cel/semver.go, quantity.go: MaybeNoSuchOverloadErr), and an int, string, bool, list, ... on
  the left answers false for a semver or quantity; lists and maps (`baseList.Equal`, `baseMap.Equal`) are
  unequal only when an element pair is false: an element pair's error does not make them unequal;
- `!=` is `Equal(a, b) != true` (interpreter/interpretable.go `evalNe.Eval`): an error of `Equal` is true;
- ordering accepts int/uint/double across types, and same-type string, bytes, bool, timestamp, duration.
"""

from __future__ import annotations

import contextlib
import math
import operator
import re
from typing import Any

from celext import values as celvalues
from celext.gostrconv import INT64, UINT64_MAX, parse_int, parse_uint
from celext.gotime import parse_go_duration, parse_rfc3339, unix_in_range
from celext.lib.gofloat import go_float
from celext.lib.timevalues import Duration, Timestamp, duration_nanos, offset_of, unix_nanos
from celext.mapkeys import DoubleKey, UintKey, stored_key
from celext.netaddr import Addr, Prefix
from celext.neturl import URL
from celext.quantity import Quantity
from celext.semver import Semver
from celext.values import CELEvalError

_NUMBERS = (celvalues.IntType, celvalues.UintType, celvalues.DoubleType)
_OPAQUE = (Semver, Quantity, Addr, Prefix, URL)
_ORDERED_SAME_TYPE = (celvalues.StringType, celvalues.BytesType, celvalues.TimestampType, celvalues.DurationType)


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBERS) and not isinstance(value, celvalues.BoolType)


def _plain(value: Any) -> int | float:
    """celtypes numbers refuse to compare across types; builtin int/float compare exactly."""
    return float(value) if isinstance(value, celvalues.DoubleType) else int(value)


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
        low, high = (0.0, _UINT_MAX_AS_DOUBLE) if isinstance(a, celvalues.UintType) else _INT_AS_DOUBLE
        if y < low:
            return 1
        if y > high:
            return -1
        x = float(x)
    return int((x > y) - (x < y))


def equal(a: Any, b: Any, pairs: dict[tuple[int, int], Any] | None = None) -> bool | CELEvalError:
    """CEL `==` at runtime (cel-go `types.Equal`); a CELEvalError when a semver on the left meets another type.

    `pairs` (callers leave it out) remembers, within one comparison, the answer for each pair of lists or maps
    compared: `cel.bind(b, [a, a], cel.bind(c, [b, b], ...))` shares each level's list twice, so `c == c` would
    compare 2 ** depth pairs, and compares one per level (every value is alive during the comparison, so no id
    is reused; the answer for a pair never changes)."""
    if isinstance(a, CELEvalError):
        return a
    if isinstance(b, CELEvalError):
        return b
    if a is None or b is None:  # cel-go types.Equal: null is decided before either side is asked
        return a is None and b is None
    if isinstance(a, _OPAQUE):
        # a quantity's Equal takes the cel.Quantity value only, not the pointer add()/sub() return (QuantityPointer)
        if type(b) is (Quantity if isinstance(a, Quantity) else type(a)):
            return bool(a == b)
        # pkg/cel/semver.go Semver.Equal and pkg/cel/quantity.go Quantity.Equal: MaybeNoSuchOverloadErr
        return CELEvalError("no such overload")
    if isinstance(b, _OPAQUE):  # every other left operand's Equal answers false for another type
        return False
    if isinstance(a, celvalues.BoolType) or isinstance(b, celvalues.BoolType):
        return isinstance(a, celvalues.BoolType) and isinstance(b, celvalues.BoolType) and int(a) == int(b)
    if _is_number(a):
        return _is_number(b) and _number_order(a, b) == 0
    if isinstance(a, list | dict):
        if pairs is None:
            pairs = {}
        pair = (id(a), id(b))
        found = pairs.get(pair)
        if found is None:
            found = pairs[pair] = _aggregate_equal(a, b, pairs)
        return found
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and str.__eq__(a, b)
    if isinstance(a, bytes) or isinstance(b, bytes):
        return isinstance(a, bytes) and isinstance(b, bytes) and bytes.__eq__(a, b)
    answers = getattr(type(a), "cel_equal", None)  # a value whose Equal answers itself (an optional)
    if answers is not None:
        return answers(a, b)  # type: ignore[no-any-return]
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _aggregate_equal(a: list[Any] | dict[Any, Any], b: Any, pairs: dict[tuple[int, int], Any]) -> bool | CELEvalError:
    """`equal` of a list or a map on the left."""
    if isinstance(a, list):  # cel-go baseList.Equal: only a false element pair decides
        if not isinstance(b, list) or len(a) != len(b):
            return False
        if isinstance(a, ConcatList):  # concatList.Equal: else the first pair's error, if any
            found: bool | CELEvalError = True
            for x, y in zip(a, b, strict=True):
                same = equal(x, y, pairs)
                if same is False:
                    return False
                if found is True and isinstance(same, CELEvalError):
                    found = same
            return found
        return all(equal(x, y, pairs) is not False for x, y in zip(a, b, strict=True))
    if not isinstance(b, dict) or len(a) != len(b):
        return False
    for key, value in a.items():
        other = map_get(b, key)
        if other is MISSING:
            return False
        if equal(value, other, pairs) is False:  # cel-go baseMap.Equal, as baseList.Equal
            return False
    return True


def _equal_value(a: Any, b: Any) -> Any:
    same = equal(a, b)
    return same if isinstance(same, CELEvalError) else celvalues.BoolType(same)


def _not_equal_value(a: Any, b: Any) -> Any:
    """cel-go evalNe: an operand's error is the result; else `types.Equal(a, b) != types.True`."""
    if isinstance(a, CELEvalError):
        return a
    if isinstance(b, CELEvalError):
        return b
    return celvalues.BoolType(equal(a, b) is not True)


def compare(a: Any, b: Any) -> int | CELEvalError:
    """-1/0/1 for CEL ordering; `no such overload` for types without an order between them."""
    if isinstance(a, CELEvalError):
        return a
    if isinstance(b, CELEvalError):
        return b
    numbers = _is_number(a) and _is_number(b)
    bools = isinstance(a, celvalues.BoolType) and isinstance(b, celvalues.BoolType)
    if not (numbers or bools or (isinstance(a, _ORDERED_SAME_TYPE) and type(a) is type(b))):
        return CELEvalError("no such overload")
    if numbers:
        return _number_order(a, b)  # 2 for NaN: every ordering is false
    return int((a > b) - (a < b))


NAN_ORDER = "NaN values cannot be ordered"  # cel-go common/types double.go, int.go, uint.go Compare


def _ordering(test: str) -> Any:
    """`<`, `<=`, `>`, `>=` as cel-go's standard bindings: the left operand's `Compare`, whose error is the
    result. A NaN on either side of a numeric comparison is `NaN values cannot be ordered`, and a NaN on the
    left is that error whatever the right operand (`Double.Compare` looks at itself first)."""
    def op(a: Any, b: Any) -> Any:
        order = compare(a, b)
        if isinstance(order, CELEvalError):
            if isinstance(a, celvalues.DoubleType) and math.isnan(a) and not isinstance(b, CELEvalError):
                return CELEvalError(NAN_ORDER)
            return order
        if order == 2:
            return CELEvalError(NAN_ORDER)
        return celvalues.BoolType({"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[test])

    op.__name__ = f"_{test}_"
    return op


MISSING: Any = object()


def map_put(mapping: Any, key: Any, value: Any) -> None:
    """cel-go's `entries[key] = value` in a map literal: a repeated key keeps the last value. Raises TypeError for
    a list or map key (cel-go keys a Go map by such a value's identity; celext cannot: its own rule)."""
    mapping[stored_key(key)] = value


def map_delete(mapping: Any, key: Any) -> None:
    """cel-go's `delete(entries, key)` (an optional entry `{?k: v}` whose v is empty)."""
    with contextlib.suppress(TypeError):  # (a key map_put refused is not there)
        mapping.pop(stored_key(key), None)


# cel-go refValMapAccessor.Find: the key's own kind first, then the other number kinds of the same value
_FIND_ORDER: dict[type, tuple[type, ...]] = {
    celvalues.IntType: (celvalues.IntType, UintKey),
    celvalues.UintType: (UintKey, celvalues.IntType),
    celvalues.DoubleType: (DoubleKey, celvalues.IntType, UintKey),
}


def map_get(mapping: Any, key: Any) -> Any:
    """`mapping[key]` as cel-go looks a key up (refValMapAccessor.Find): the key of its own kind, then for a
    number the other number kinds of the same value (`{1u: 'a'}[1]`, `{2: 'b'}[2.0]`); a bool only a bool.
    `MISSING` when absent. Raises TypeError for a key type no map has (a list, a map)."""
    if isinstance(key, celvalues.StringType):
        try:
            return mapping[key]  # (a device's attribute map answers a missing domain with an empty map)
        except KeyError:
            return MISSING
    from celext.reference.values import DomainMap

    if mapping.__class__ is DomainMap:  # the DRA compiler's mapper: string keys only, its default for any other
        return mapping.__missing__(key)
    # Other keys through dict's own get: cel-python's MapType.get refuses double keys
    if isinstance(key, celvalues.BoolType):
        return dict.get(mapping, stored_key(key), MISSING)
    if not _is_number(key):
        return dict.get(mapping, key, MISSING)
    number: int | float = float(key) if isinstance(key, celvalues.DoubleType) else int(key)
    for kind in _FIND_ORDER[next(k for k in _FIND_ORDER if isinstance(key, k))]:
        probe = _number_key(kind, number)
        if probe is not None:
            found = dict.get(mapping, probe, MISSING)
            if found is not MISSING:
                return found
    return MISSING


def _number_key(kind: type, number: int | float) -> Any:
    """The stored key of `kind` with this value, None where the value has none (a fraction, out of range)."""
    if kind is DoubleKey:
        return DoubleKey(number)
    if isinstance(number, float) and not number.is_integer():
        return None
    whole = int(number)
    if kind is celvalues.IntType:
        return celvalues.IntType(whole) if INT64[0] <= whole <= INT64[1] else None
    return UintKey(whole) if 0 <= whole <= UINT64_MAX else None


def contained(item: Any, container: Any) -> Any:
    """CEL `in`: list membership by CEL equality (cel-go baseList.Contains asks the item's Equal, element by
    element: only a true answer counts); map membership by key."""
    if isinstance(item, CELEvalError):
        return item
    if isinstance(container, CELEvalError):
        return container
    if isinstance(container, list):
        return celvalues.BoolType(any(equal(item, element) is True for element in container))
    if isinstance(container, dict):
        if isinstance(item, celvalues.StringType):
            return celvalues.BoolType(item in container)
        return celvalues.BoolType(any(equal(key, item) is True for key in container))
    return CELEvalError("no such overload")


def _duration(nanos: int) -> Any:
    """A duration result of `+`/`-` (Go's time.Duration: int64 nanoseconds); beyond them cel-go's
    addDurationChecked/subtractTimeChecked fail with addInt64Checked's error (`integer overflow`: its
    errDurationOverflow is never used)."""
    if not INT64[0] <= nanos <= INT64[1]:
        return CELEvalError(INT_OVERFLOW)
    return Duration(nanos)


def _timestamp(unix: int, zone_of: Any) -> Any:
    """A timestamp result at `unix` nanoseconds, in cel-go's range of Unix seconds (years 1 to 9999), in the zone
    of the timestamp operand (addTimeDurationChecked: `time.Unix(sec, nsec).In(x.Location())`)."""
    if not unix_in_range(unix // 1_000_000_000):
        return CELEvalError("timestamp overflow")
    return Timestamp.of_unix_nanos(unix, offset_of(zone_of))


def _time_arithmetic(a: Any, b: Any, subtract: bool) -> Any:
    """Timestamps and durations as cel-go adds and subtracts them, to the nanosecond: results range-checked
    (durations fit int64 nanoseconds, timestamps years 1 to 9999), duration - duration a duration."""
    sign = -1 if subtract else 1
    if isinstance(a, celvalues.DurationType) and isinstance(b, celvalues.DurationType):
        return _duration(duration_nanos(a) + sign * duration_nanos(b))
    if isinstance(a, celvalues.TimestampType) and isinstance(b, celvalues.TimestampType) and subtract:
        return _duration(unix_nanos(a) - unix_nanos(b))
    if isinstance(a, celvalues.TimestampType) and isinstance(b, celvalues.DurationType):
        if subtract and duration_nanos(b) == INT64[0]:  # subtractTimeDurationChecked negates it first
            return CELEvalError(INT_OVERFLOW)
        return _timestamp(unix_nanos(a) + sign * duration_nanos(b), a)
    if isinstance(a, celvalues.DurationType) and isinstance(b, celvalues.TimestampType) and not subtract:
        return _timestamp(unix_nanos(b) + duration_nanos(a), b)
    return None


class ConcatList(celvalues.ListType):
    """The list `a + b` makes of two non-empty lists: cel-go's `concatList` (common/types/list.go), whose `Equal`
    differs from a literal's: with no element pair false, the first pair's error is the answer (see `equal`)."""


# draguard's own limit: cel-go concatenates lists without copying them (a concatList costs 1 and holds its two
# operands), so `cel.bind(b, a + a, cel.bind(c, b + b, ...))` is cheap for its estimator, and each level doubles a
# list celext copies; 40 levels would take terabytes. A concatenation past this many elements is an error value.
MAX_CONCATENATED = 1 << 20
TOO_LONG = "list concatenation of {:,} and {:,} elements exceeds celext's limit of {:,} (draguard's own limit)"


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, celvalues.ListType) and isinstance(b, celvalues.ListType):
        # baseList.Add / concatList.Add: an empty operand gives the other one itself
        if len(a) + len(b) > MAX_CONCATENATED:
            return CELEvalError(TOO_LONG.format(len(a), len(b), MAX_CONCATENATED))
        return b if not a else a if not b else ConcatList([*a, *b])
    timed = _time_arithmetic(a, b, subtract=False)
    return timed if timed is not None else operator.add(a, b)


def _subtract(a: Any, b: Any) -> Any:
    timed = _time_arithmetic(a, b, subtract=True)
    return timed if timed is not None else operator.sub(a, b)


def _divide(a: Any, b: Any) -> Any:
    """Doubles divide as IEEE 754 does (`0.0/0.0` is NaN, `1.0/0.0` infinity); the rest as cel-python does."""
    if isinstance(a, celvalues.DoubleType) and isinstance(b, celvalues.DoubleType) and float(b) == 0.0:
        x = float(a)
        if x == 0.0 or math.isnan(x):
            return celvalues.DoubleType(math.nan)
        return celvalues.DoubleType(math.copysign(math.inf, x) * math.copysign(1.0, float(b)))
    return operator.truediv(a, b)


def _modulo(a: Any, b: Any) -> Any:
    """As cel-python computes it, but int64's least value `% -1` overflows, as cel-go's moduloInt64Checked says
    (the quotient does not fit; Python's remainder is 0)."""
    if isinstance(a, celvalues.IntType) and isinstance(b, celvalues.IntType) and int(b) == -1 and int(a) == INT64[0]:
        return CELEvalError(INT_OVERFLOW)
    return operator.mod(a, b)


def to_timestamp(value: Any) -> Any:
    """CEL `timestamp()`: of a string as cel-go converts it (Go's `time.Parse(time.RFC3339, s)`, celext.gotime), of a
    timestamp (itself), of an int (Unix seconds); outside years 1 to 9999 `timestamp overflow`."""
    if isinstance(value, Timestamp):
        return value
    if isinstance(value, celvalues.TimestampType):
        return Timestamp.of_unix_nanos(unix_nanos(value), offset_of(value))
    if isinstance(value, celvalues.IntType) and not isinstance(value, celvalues.BoolType):
        return _unix_timestamp(int(value), 0)
    if isinstance(value, celvalues.StringType):
        parsed = parse_rfc3339(str(value))
        if parsed is None:
            return CELEvalError("type conversion error from 'string' to 'google.protobuf.Timestamp'")
        return _unix_timestamp(*parsed)  # in the zone it was written in, as Go's time keeps it
    return celvalues.TimestampType(value)


def _unix_timestamp(seconds: int, nanoseconds: int, offset: int = 0) -> Any:
    """The timestamp at Unix `seconds` and `nanoseconds` in a zone `offset` seconds east of UTC, as cel-go
    range-checks it (the Unix seconds)."""
    if not unix_in_range(seconds):
        return CELEvalError("timestamp overflow")
    return Timestamp.at(seconds, nanoseconds, offset)


_STRING, _DOUBLE, _BOOL = celvalues.StringType, celvalues.DoubleType, celvalues.BoolType
_DURATION = celvalues.DurationType


def to_string(value: Any) -> Any:
    """CEL `string()` as cel-go writes it: a double as strconv.FormatFloat(f, 'g', -1, 64), a bool as `true` or
    `false`, a duration and a timestamp as Go writes them (celext.lib.timevalues); the rest as cel-python."""
    if isinstance(value, (Duration, Timestamp)):
        return celvalues.StringType(str(value))
    if isinstance(value, celvalues.BoolType):
        return celvalues.StringType("true" if value else "false")
    if isinstance(value, (Addr, Prefix)):  # the IP and CIDR libraries' ip_to_string / cidr_to_string
        return celvalues.StringType(str(value))
    if isinstance(value, celvalues.DoubleType):
        return celvalues.StringType(go_float(float(value)))
    if isinstance(value, celvalues.BytesType):  # cel-go common/types/bytes.go ConvertToType: utf8.Valid first
        try:
            return celvalues.StringType(bytes(value).decode("utf-8"))
        except UnicodeDecodeError:
            return CELEvalError("invalid UTF-8 in bytes, cannot convert to string")
    return _STRING(value)


OPERATORS: dict[str, Any] = {
    "_+_": _add,
    "_-_": _subtract,
    "_/_": _divide,
    "_%_": _modulo,
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


INT_OVERFLOW = "integer overflow"  # cel-go's errIntOverflow
UINT_OVERFLOW = "unsigned integer overflow"  # cel-go's errUintOverflow


def to_int(value: Any) -> Any:
    """CEL `int()` as cel-go converts: strings in base 10 (out of range is a conversion error, as ParseInt
    fails), doubles truncated within (-2^63, 2^63), uints up to 2^63 - 1."""
    if isinstance(value, CELEvalError):
        return value
    if isinstance(value, celvalues.StringType):
        try:
            number = parse_int(str(value))  # out of range too is ParseInt's error
        except ValueError:
            return CELEvalError("type conversion error from 'string' to 'int'")
    elif isinstance(value, (celvalues.IntType, celvalues.UintType)):
        number = int(value)
    elif isinstance(value, celvalues.DoubleType):
        if math.isnan(value) or not _INT_AS_DOUBLE[0] < float(value) < _INT_AS_DOUBLE[1]:
            return CELEvalError(INT_OVERFLOW)  # cel-go refuses both ends, -2^63 included
        number = math.trunc(value)
    elif isinstance(value, Duration):
        number = value.nanos  # cel-go: Int(d.Duration)
    elif isinstance(value, Timestamp):
        number = value.unix_seconds  # cel-go: Int(t.Unix())
    else:
        return celvalues.IntType(value)
    if not INT64[0] <= number <= INT64[1]:
        return CELEvalError(INT_OVERFLOW)
    return _new_int(celvalues.IntType, number)  # range checked above; IntType() would wrap a checker per call


def to_uint(value: Any) -> Any:
    """CEL `uint()` as cel-go converts: strings in base 10 without a sign (out of range is a conversion error),
    negative ints and doubles outside [0, 2^64) are `unsigned integer overflow`."""
    if isinstance(value, CELEvalError):
        return value
    if isinstance(value, celvalues.StringType):
        try:
            number = parse_uint(str(value))
        except ValueError:
            return CELEvalError("type conversion error from 'string' to 'uint'")
    elif isinstance(value, (celvalues.IntType, celvalues.UintType)):
        number = int(value)
    elif isinstance(value, celvalues.DoubleType):
        if math.isnan(value) or not 0.0 <= float(value) < _UINT_MAX_AS_DOUBLE:
            return CELEvalError(UINT_OVERFLOW)
        number = math.trunc(value)
    else:
        return CELEvalError("no such overload")  # cel-go: uint() has no overload for any other type
    if not 0 <= number <= UINT64_MAX:
        return CELEvalError(UINT_OVERFLOW)
    return _new_int(celvalues.UintType, number)


_new_int = int.__new__


_GO_DECIMAL = re.compile(r"[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?", re.ASCII)
_GO_HEX = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9][0-9_]*", re.ASCII)
_GO_SPECIAL = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf, "+infinity": math.inf,
               "-infinity": -math.inf, "nan": math.nan}


def _go_underscores_ok(text: str) -> bool:
    """Go strconv `underscoreOK`: an underscore only between digits (or after a base prefix)."""
    saw, i = "^", 0
    if text[:1] in ("+", "-"):
        text = text[1:]
    hexadecimal = len(text) >= 2 and text[0] == "0" and text[1] in "xX"
    if hexadecimal:
        saw, i = "0", 2
    digits = "0123456789abcdefABCDEF" if hexadecimal else "0123456789"
    for char in text[i:]:
        if char in digits:
            saw = "0"
        elif char == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def parse_go_float(text: str) -> float | None:
    """Go `strconv.ParseFloat(s, 64)` (src/strconv/atof.go: `special`, `readFloat`, `underscoreOK`); None where Go
    returns an error: no blanks, no non-ASCII digits, hexadecimal only with a `p` exponent, `NaN` unsigned, and
    out of range (Go's ErrRange, ±Inf) is an error too."""
    special = _GO_SPECIAL.get(text.lower())
    if special is not None:
        return special
    hexadecimal = _GO_HEX.fullmatch(text) is not None
    if not hexadecimal and (_GO_DECIMAL.fullmatch(text) is None or not any(c.isdigit() for c in text)):
        return None
    if "_" in text:
        if not _go_underscores_ok(text):
            return None
        text = text.replace("_", "")
    try:
        value = float.fromhex(text) if hexadecimal else float(text)
    except (OverflowError, ValueError):
        return None
    return None if math.isinf(value) else value


def to_double(value: Any) -> Any:
    """CEL `double()`: a string as cel-go's `String.ConvertToType` parses it (Go's strconv.ParseFloat; any error
    is `type conversion error from 'string' to 'double'`), the rest as cel-python."""
    if isinstance(value, celvalues.StringType):
        number = parse_go_float(value)
        if number is None:
            return CELEvalError("type conversion error from 'string' to 'double'")
        return celvalues.DoubleType(number)
    return _DOUBLE(value)


_GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
             "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def to_bool(value: Any) -> Any:
    """CEL `bool()`: a string as Go's strconv.ParseBool reads it (common/types/string.go `ConvertToType`)."""
    if isinstance(value, celvalues.StringType):
        answer = _GO_BOOLS.get(str(value))
        if answer is None:
            return CELEvalError("type conversion error from 'string' to 'bool'")
        return celvalues.BoolType(answer)
    return _BOOL(value)


def to_duration(value: Any) -> Any:
    """CEL `duration()`: a string as cel-go converts it (Go's time.ParseDuration; any error is `type conversion
    error from 'string' to 'google.protobuf.Duration'`), to the nanosecond."""
    if isinstance(value, celvalues.StringType):
        nanoseconds = parse_go_duration(str(value))
        if nanoseconds is None:
            return CELEvalError("type conversion error from 'string' to 'google.protobuf.Duration'")
        return Duration(nanoseconds)
    if isinstance(value, Duration):
        return value
    if isinstance(value, celvalues.DurationType):
        return Duration(duration_nanos(value))
    if isinstance(value, celvalues.IntType) and not isinstance(value, celvalues.BoolType):
        # cel-go declares duration(int) (int64_to_duration) but Int.ConvertToType has no duration case
        return CELEvalError("type conversion error from 'int' to 'google.protobuf.Duration'")
    return _DURATION(value)
