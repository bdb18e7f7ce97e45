"""celext's CEL values: the Python classes both engines compute with, and the error value.

They keep the names and the observable behaviour of the cel-python (`celpy.celtypes`) classes celext was first
built on, so the library's rules read the same, without importing cel-python (its package pulls in lark, its
evaluator and pendulum: tens of milliseconds of every start-up):

- numbers are `int`/`float` subclasses: `IntType` and `UintType` results past int64/uint64 raise
  `ValueError("overflow")` (`UintOverflow` for uint64), int division and remainder truncate toward zero as Go's,
  a double's `%` is refused (TypeError) and its division by zero is infinity; `BoolType` is an `int` (0 or 1),
  `BoolType(x)` one of the two singletons `TRUE`/`FALSE`;
- `==`/`!=` between numbers of unrelated kinds (`IntType(1) == UintType(1)`) raise TypeError, as do an int's
  orderings; lists and maps compare element by element (an element pair that cannot be compared raises unless
  another pair is unequal);
- a `MapType` is built from a mapping or from (key, value) pairs (a repeated pair key is a ValueError), and
  `m[k]` refuses keys no CEL map has (TypeError);
- texts: `repr` names the class (`IntType(1)`), `str` is the plain value (`True` for a bool).

`CELEvalError` is an evaluation error carried as a value: operators on it give it back; equal by its args.
celext.lib.timevalues subclasses `DurationType`/`TimestampType` with the nanosecond values the engines use.
"""

from __future__ import annotations

import datetime
import math
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["FALSE", "TRUE", "BoolType", "BytesType", "CELEvalError", "DoubleType", "DurationType", "IntType",
           "ListType", "MapType", "StringType", "TimestampType", "TypeType", "UintOverflow", "UintType"]

_INT64_MIN, _INT64_LIMIT, _UINT64_LIMIT = -(1 << 63), 1 << 63, 1 << 64
_new_int = int.__new__


class CELEvalError(Exception):
    """A CEL evaluation error as a value (`args[0]` its text). Arithmetic on it, or calling it, gives it back."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(*{self.args})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CELEvalError):
            return self.args == other.args
        return NotImplemented

    __hash__ = Exception.__hash__

    def _self(self, *_: Any) -> CELEvalError:
        return self

    __neg__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _self
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = _self
    __call__ = _self


class UintOverflow(ValueError):
    """A uint64 result out of range (a ValueError("overflow") that tells cel-go's uint text from the int one)."""


def _related(a: object, b: object) -> bool:
    return isinstance(b, type(a)) or isinstance(a, type(b))


def _mismatch(a: object, b: object) -> TypeError:
    return TypeError(f"no such overload: {a!r} {type(a)} != {b!r} {type(b)}")


def _matched(compare: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A comparison between values of one CEL type: another type is no such overload (TypeError)."""
    def method(self: Any, other: Any) -> Any:
        if not _related(self, other):
            raise _mismatch(self, other)
        return compare(self, other)
    return method


def _arithmetic(result: Callable[[int], Any], compute: Callable[[int, int], int], *,
                swapped: bool = False) -> Callable[[Any, Any], Any]:
    """An int or uint operator: an int operand or TypeError (no such overload), the result range-checked by
    `result` (`_int64`, `_uint64`); `swapped`, the reflected form (`other <op> self`)."""
    def method(self: Any, other: Any) -> Any:
        mine, theirs = int(self), _int_operand(other)
        return result(compute(theirs, mine) if swapped else compute(mine, theirs))
    return method


def _int64(value: int) -> IntType:
    if _INT64_MIN <= value < _INT64_LIMIT:
        return _new_int(IntType, value)
    raise ValueError("overflow")


def _uint64(value: int) -> UintType:
    if 0 <= value < _UINT64_LIMIT:
        return _new_int(UintType, value)
    raise UintOverflow("overflow")


def _hex(text: str) -> int | None:
    """The value of `0x...`/`-0x...` text, None for any other text."""
    if text[:2] in ("0x", "0X"):
        return int(text[2:], 16)
    if text[:3] in ("-0x", "-0X"):
        return -int(text[3:], 16)
    return None


def _integer(source: Any, *, signed: bool) -> int:
    """The integer an int or uint conversion takes from `source`: a double truncated, a timestamp's Unix seconds,
    decimal text or `0x` text (`-0x` only for a signed int), anything else as Python's int() reads it."""
    if isinstance(source, float):
        return math.trunc(source)
    if isinstance(source, datetime.datetime):
        return int(source.timestamp())
    if isinstance(source, str):
        found = _hex(source) if signed or source[:2] in ("0x", "0X") else None
        return int(source) if found is None else found
    return int(source)


def _go_quotient(a: int, b: int) -> int:
    """Go's integer division: toward zero."""
    whole = abs(a) // abs(b)
    return whole if (a < 0) == (b < 0) else -whole


def _go_remainder(a: int, b: int) -> int:
    """Go's `%`: the sign of the dividend."""
    rest = abs(a) % abs(b)
    return -rest if a < 0 else rest


class BoolType(int):
    """A CEL bool: `int` 1 or 0; `BoolType(x)` is `TRUE` or `FALSE` (strings `true`/`false`, `True`/`False`,
    `t`/`f`, `TRUE`/`FALSE`; any other value by its truth)."""

    def __new__(cls, source: Any = None) -> BoolType:
        if isinstance(source, str):
            if source in ("true", "True", "TRUE", "t"):
                source = True
            elif source in ("false", "False", "FALSE", "f"):
                source = False
            else:
                source = int(source)
        truth = bool(source) if source is not None else False
        if cls is BoolType:
            return TRUE if truth else FALSE
        return _new_int(cls, 1 if truth else 0)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({bool(self)})"

    def __str__(self) -> str:
        return "True" if self else "False"

    def __neg__(self) -> Any:
        raise TypeError("no such overload")

    __hash__ = int.__hash__


TRUE: BoolType = _new_int(BoolType, 1)
FALSE: BoolType = _new_int(BoolType, 0)


class IntType(int):
    """A CEL int: int64; results out of range raise ValueError("overflow")."""

    def __new__(cls, source: Any = None) -> IntType:
        if source is None:
            return _new_int(cls, 0)
        if isinstance(source, cls):
            return source
        number = _integer(source, signed=True)
        if not _INT64_MIN <= number < _INT64_LIMIT:
            raise ValueError("overflow")
        return _new_int(cls, number)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"

    def __str__(self) -> str:
        return int.__repr__(self)

    def __neg__(self) -> IntType:
        return _int64(-int(self))

    __add__ = _arithmetic(_int64, operator.add)
    __sub__ = _arithmetic(_int64, operator.sub)
    __mul__ = _arithmetic(_int64, operator.mul)
    __truediv__ = _arithmetic(_int64, _go_quotient)
    __mod__ = _arithmetic(_int64, _go_remainder)
    __radd__ = _arithmetic(_int64, operator.add, swapped=True)
    __rsub__ = _arithmetic(_int64, operator.sub, swapped=True)
    __rmul__ = _arithmetic(_int64, operator.mul, swapped=True)
    __rtruediv__ = _arithmetic(_int64, _go_quotient, swapped=True)
    __rmod__ = _arithmetic(_int64, _go_remainder, swapped=True)

    __floordiv__, __rfloordiv__ = __truediv__, __rtruediv__

    __eq__ = _matched(int.__eq__)
    __ne__ = _matched(int.__ne__)
    __lt__ = _matched(int.__lt__)
    __le__ = _matched(int.__le__)
    __gt__ = _matched(int.__gt__)
    __ge__ = _matched(int.__ge__)

    __hash__ = int.__hash__


def _int_operand(other: Any) -> int:
    """The other operand of int arithmetic: an int, else TypeError (no such overload)."""
    if isinstance(other, int):
        return int(other)
    raise TypeError(f"no such overload: int and {type(other).__name__}")


class UintType(int):
    """A CEL uint: uint64; results out of range raise UintOverflow("overflow")."""

    def __new__(cls, source: Any = None) -> UintType:
        if source is None:
            return _new_int(cls, 0)
        if isinstance(source, cls):
            return source
        number = _integer(source, signed=False)
        if not 0 <= number < _UINT64_LIMIT:
            raise UintOverflow("overflow")
        return _new_int(cls, number)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"

    def __str__(self) -> str:
        return int.__repr__(self)

    def __neg__(self) -> Any:
        raise TypeError("no such overload")

    __add__ = _arithmetic(_uint64, operator.add)
    __sub__ = _arithmetic(_uint64, operator.sub)
    __mul__ = _arithmetic(_uint64, operator.mul)
    __truediv__ = _arithmetic(_uint64, operator.floordiv)
    __mod__ = _arithmetic(_uint64, operator.mod)
    __radd__ = _arithmetic(_uint64, operator.add, swapped=True)
    __rsub__ = _arithmetic(_uint64, operator.sub, swapped=True)
    __rmul__ = _arithmetic(_uint64, operator.mul, swapped=True)
    __rtruediv__ = _arithmetic(_uint64, operator.floordiv, swapped=True)
    __rmod__ = _arithmetic(_uint64, operator.mod, swapped=True)

    __floordiv__, __rfloordiv__ = __truediv__, __rtruediv__

    __eq__ = _matched(int.__eq__)
    __ne__ = _matched(int.__ne__)

    __hash__ = int.__hash__


class DoubleType(float):
    """A CEL double: `%` is refused (TypeError), `x / 0.0` is infinity."""

    def __new__(cls, source: Any = None) -> DoubleType:
        return float.__new__(cls, 0.0 if source is None else source)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({float.__repr__(self)})"

    def __str__(self) -> str:
        return float.__repr__(self)

    def __neg__(self) -> DoubleType:
        return float.__new__(DoubleType, -float(self))

    def __mod__(self, other: Any) -> Any:
        raise TypeError(f"found no matching overload for '_%_' applied to '(double, {type(other)})'")

    def __rmod__(self, other: Any) -> Any:
        raise TypeError(f"found no matching overload for '_%_' applied to '({type(other)}, double)'")

    def __truediv__(self, other: Any) -> DoubleType:
        if other == 0.0:
            return float.__new__(DoubleType, math.inf)
        return float.__new__(DoubleType, float.__truediv__(self, other))

    def __rtruediv__(self, other: Any) -> DoubleType:
        if float(self) == 0.0:
            return float.__new__(DoubleType, math.inf)
        return float.__new__(DoubleType, float.__rtruediv__(self, other))

    __eq__ = _matched(float.__eq__)
    __ne__ = _matched(float.__ne__)

    __hash__ = float.__hash__


class StringType(str):
    """A CEL string (from bytes: their UTF-8 text)."""

    def __new__(cls, source: Any = "") -> StringType:
        if isinstance(source, bytes):
            return str.__new__(cls, source.decode("utf-8"))
        return str.__new__(cls, source)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str.__repr__(self)})"

    def contains(self, item: Any) -> BoolType:
        return BoolType(item in self)

    __hash__ = str.__hash__


class BytesType(bytes):
    """CEL bytes (from a string: its UTF-8 encoding)."""

    def __new__(cls, source: Any = b"") -> BytesType:
        if source is None:
            return bytes.__new__(cls, b"")
        if isinstance(source, str):
            return bytes.__new__(cls, source.encode("utf-8"))
        if isinstance(source, (bytes, Iterable)):
            return bytes.__new__(cls, source)
        raise TypeError(f"Invalid initial value type: {type(source)}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({bytes.__repr__(self)})"

    def contains(self, item: Any) -> BoolType:
        return BoolType(item in self)


def _pairs_verdict(answers: Iterable[Any], decisive: bool) -> bool:
    """Combine element answers (a bool, or a TypeError a pair raised): a `decisive` answer wins, else a TypeError
    is raised, else the other answer."""
    problem: TypeError | None = None
    for answer in answers:
        if isinstance(answer, TypeError):
            problem = problem or answer
        elif answer is decisive:
            return bool(answer)
    if problem is not None:
        raise problem
    return not decisive


def _compared(test: Any, a: Any, b: Any) -> Any:
    try:
        return bool(test(a, b))
    except TypeError as err:
        return err


def _eq(a: Any, b: Any) -> bool:
    return bool(a == b)


def _ne(a: Any, b: Any) -> bool:
    return bool(a != b)


class ListType(list[Any]):
    """A CEL list: no order; `==` element by element (None is unequal, a non-list raises TypeError)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list.__repr__(self)})"

    def _no_order(self, other: Any) -> Any:
        raise TypeError("no such overload")

    __lt__ = __le__ = __gt__ = __ge__ = _no_order

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        if not isinstance(other, list):
            raise TypeError(f"no such overload: ListType == {type(other)}")
        if len(self) != len(other):
            return False
        return _pairs_verdict((_compared(_eq, x, y) for x, y in zip(self, other, strict=True)), decisive=False)

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, list):
            raise TypeError(f"no such overload: ListType != {type(other)}")
        if len(self) != len(other):
            return True
        return _pairs_verdict((_compared(_ne, x, y) for x, y in zip(self, other, strict=True)), decisive=True)

    __hash__ = None

    def contains(self, item: Any) -> BoolType:
        return BoolType(item in self)


_KEY_TYPES = (IntType, UintType, BoolType, str)


class MapType(dict[Any, Any]):
    """A CEL map, from a mapping or from (key, value) pairs (a repeated key is a ValueError); `m[k]` with a key no
    CEL map has (a double, a list) raises TypeError."""

    def __init__(self, items: Mapping[Any, Any] | Iterable[tuple[Any, Any]] | None = None) -> None:
        super().__init__()
        if items is None:
            return
        if isinstance(items, Mapping):
            for key, value in items.items():
                self[key] = value
        elif isinstance(items, (list, tuple)):
            for key, value in items:
                if key in self:
                    raise ValueError(f"Duplicate key {key!r}")
                self[key] = value
        else:
            raise TypeError(f"Invalid initial value type: {type(items)}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict.__repr__(self)})"

    @staticmethod
    def valid_key_type(key: Any) -> bool:
        return isinstance(key, _KEY_TYPES)

    def __getitem__(self, key: Any) -> Any:
        if not isinstance(key, _KEY_TYPES):
            raise TypeError(f"unsupported key type: {type(key)}")
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        """The value at `key`; `default` when absent, KeyError when absent and no default."""
        if not isinstance(key, _KEY_TYPES):
            raise TypeError(f"unsupported key type: {type(key)}")
        if key in self:
            return dict.__getitem__(self, key)
        if default is not None:
            return default
        raise KeyError(key)

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        if not isinstance(other, Mapping):
            raise TypeError(f"no such overload: MapType == {type(other)}")
        if self.keys() != other.keys():
            return False
        return _pairs_verdict((_compared(_eq, self[k], other[k]) for k in self), decisive=False)

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            raise TypeError(f"no such overload: MapType != {type(other)}")
        if self.keys() != other.keys():
            return True
        return _pairs_verdict((_compared(_ne, self[k], other[k]) for k in self), decisive=True)

    __hash__ = None

    def contains(self, item: Any) -> BoolType:
        return BoolType(item in self)


class TimestampType(datetime.datetime):
    """A CEL timestamp: an aware datetime (UTC when built without a zone). Built from a datetime, from
    datetime's own arguments, or from ISO 8601 text."""

    def __new__(cls, source: Any, *args: Any, **kwargs: Any) -> TimestampType:
        if isinstance(source, datetime.datetime):
            return datetime.datetime.__new__(cls, source.year, source.month, source.day, source.hour,
                                             source.minute, source.second, source.microsecond,
                                             source.tzinfo or datetime.UTC)
        if isinstance(source, int) and len(args) >= 2:
            made = datetime.datetime.__new__(cls, source, *args, **kwargs)
            return made if made.tzinfo else made.replace(tzinfo=datetime.UTC)
        if isinstance(source, str):
            return cls(datetime.datetime.fromisoformat(source))
        raise TypeError(f"Cannot create {cls} from {source!r}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __str__(self) -> str:
        text = self.strftime("%Y-%m-%dT%H:%M:%S%z")
        if text.endswith("+0000"):
            return f"{text[:-5]}Z"
        return f"{text[:-2]}:{text[-2:]}"


class DurationType(datetime.timedelta):
    """A CEL duration: a timedelta, from a timedelta or from seconds (and nanoseconds), within cel-go's range of
    ±315,576,000,000 seconds."""

    _LIMIT = 315_576_000_000

    def __new__(cls, seconds: Any, nanos: int = 0) -> DurationType:
        if isinstance(seconds, datetime.timedelta):
            if not -cls._LIMIT <= seconds.total_seconds() <= cls._LIMIT:
                raise ValueError(f"range error: {seconds}")
            return datetime.timedelta.__new__(cls, seconds.days, seconds.seconds, seconds.microseconds)
        if isinstance(seconds, int):
            if not -cls._LIMIT <= seconds <= cls._LIMIT:
                raise ValueError(f"range error: {seconds}")
            return datetime.timedelta.__new__(cls, seconds=seconds, microseconds=nanos // 1000)
        raise TypeError(f"Invalid initial value type: {type(seconds)}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __str__(self) -> str:
        return f"{int(self.total_seconds())}s"


class TypeType(type):
    """CEL `type`: `TypeType(value)` is the value's class (`TypeType` itself for a class)."""

    def __new__(cls, instance: Any) -> type:
        return cls if type(instance) is type else type(instance)
