"""CEL durations and timestamps to the nanosecond, as cel-go keeps them (Go's `time.Duration` and `time.Time`).

cel-python's DurationType and TimestampType are a timedelta and a datetime, precise to the microsecond: the
nanoseconds of `duration("1ns")` or `timestamp("...59.999999999Z")` would be lost, and with them equality,
order and text. The two classes here are those values (so cel-python's functions and every isinstance check
take them) carrying the exact count as well, and they compare, hash and print by it:

- `Duration(nanos)`: int64 nanoseconds (common/types/duration.go); the timedelta is the count cut toward zero
  to microseconds. Its getters are Go's (`Hours()`, `Minutes()`, `Seconds()` in float64, then truncated;
  `Milliseconds()` in integers) and its text `strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"`;
- `Timestamp.at(seconds, nanos, offset)`: Unix seconds and nanoseconds (0 to 999,999,999); the datetime is the
  instant in UTC cut down to microseconds. Like a Go time, it keeps the zone offset it was parsed with
  (`timestamp("2024-01-01T00:00:00+01:00")`, and what is added to it): its text is Go's `time.RFC3339Nano` in
  that offset (trailing zeros of the fraction dropped; `Z` for offset 0). The getters without a zone read the
  clock in UTC (celext.lib.timestamps: `getHours()` is 23 there). An offset of 0 is UTC, as Go parses
  `+00:00` on a machine whose local zone is UTC (the API server's and the scheduler's containers).

The arithmetic and its range checks are celext.lib.operators'.
"""

from __future__ import annotations

import datetime
import operator
from collections.abc import Callable
from typing import Any

from celext import values as celvalues
from celext.gotime import wall_clock
from celext.lib.gofloat import go_fixed
from celext.lib.ints import cel_int

__all__ = ["Duration", "Timestamp", "duration_nanos", "offset_of", "unix_nanos"]

_SECOND, _MINUTE, _HOUR = 1_000_000_000, 60_000_000_000, 3_600_000_000_000
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_MICROSECOND = datetime.timedelta(microseconds=1)


def _quotient(nanos: int, unit: int) -> tuple[int, int]:
    """Go's `d / unit` and `d % unit` (int64 division truncates toward zero; the remainder keeps d's sign)."""
    whole = abs(nanos) // unit * (1 if nanos >= 0 else -1)
    return whole, nanos - whole * unit


def duration_nanos(value: datetime.timedelta) -> int:
    """The nanoseconds of a duration (of any timedelta: microseconds times 1,000)."""
    if isinstance(value, Duration):
        return value.nanos
    return (value // _MICROSECOND) * 1000


def offset_of(value: datetime.datetime) -> int:
    """The zone offset a timestamp keeps, in seconds east of UTC (0 for any other datetime)."""
    return value.__dict__.get("offset", 0) if isinstance(value, Timestamp) else 0


def unix_nanos(value: datetime.datetime) -> int:
    """The nanoseconds since the Unix epoch of a timestamp (of any aware datetime: its microseconds)."""
    exact = value.__dict__.get("unix") if isinstance(value, Timestamp) else None
    return ((value - _EPOCH) // _MICROSECOND) * 1000 if exact is None else exact


def _by_exact(op: Callable[[int, int], bool]) -> Any:
    def compare(self: Any, other: object) -> Any:
        theirs = self._exact_of(other)
        return NotImplemented if theirs is None else op(self._exact, theirs)

    return compare


class _Exact:
    """Equality, order and hash by the exact count (`_exact`), against any value of the kind (`_exact_of`)."""

    __slots__ = ()
    __eq__ = _by_exact(operator.eq)
    __ne__ = _by_exact(operator.ne)
    __lt__ = _by_exact(operator.lt)
    __le__ = _by_exact(operator.le)
    __gt__ = _by_exact(operator.gt)
    __ge__ = _by_exact(operator.ge)

    def __hash__(self) -> int:
        return hash(self._exact)  # type: ignore[attr-defined]


class Duration(_Exact, celvalues.DurationType):
    """A CEL duration: `nanos`, an int64 count of nanoseconds (the caller checks the range)."""

    nanos: int

    def __new__(cls, nanos: int) -> Duration:
        self = datetime.timedelta.__new__(cls, microseconds=_quotient(nanos, 1000)[0])
        self.nanos = nanos
        return self

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:  # (copy and pickle: timedelta's would lose nanos)
        return Duration, (self.nanos,)

    @property
    def _exact(self) -> int:
        return self.nanos

    @staticmethod
    def _exact_of(other: object) -> int | None:
        return duration_nanos(other) if isinstance(other, datetime.timedelta) else None

    def _in(self, unit: int) -> float:
        """Go's `Hours()`, `Minutes()` and `Seconds()`: the whole units plus the rest as a fraction, in float64."""
        whole, rest = _quotient(self.nanos, unit)
        return float(whole) + float(rest) / float(unit)

    def __str__(self) -> str:
        return go_fixed(self._in(_SECOND)) + "s"

    def __repr__(self) -> str:
        return f"Duration({str(self)!r})"

    # cel-go's duration getters (durationZeroArgOverloads): the whole duration in the unit, toward zero
    def getHours(self, tz_name: Any = None) -> celvalues.IntType:
        return cel_int(int(self._in(_HOUR)))

    def getMinutes(self, tz_name: Any = None) -> celvalues.IntType:
        return cel_int(int(self._in(_MINUTE)))

    def getSeconds(self, tz_name: Any = None) -> celvalues.IntType:
        return cel_int(int(self._in(_SECOND)))

    def getMilliseconds(self, tz_name: Any = None) -> celvalues.IntType:
        return cel_int(_quotient(self.nanos, 1_000_000)[0])


class Timestamp(_Exact, celvalues.TimestampType):
    """A CEL timestamp, made by `at(seconds, nanos)`: `unix`, the nanoseconds since the Unix epoch (the caller
    checks the range), in UTC. (The constructor stays datetime's: datetime builds instances of a subclass with it,
    in `astimezone()` and `replace()`, which the getters use; those carry the microseconds only.)"""

    # set by at(); read through unix_nanos() and offset_of(), which also answer for instances datetime built
    unix: int
    offset: int

    @classmethod
    def at(cls, seconds: int, nanos: int = 0, offset: int = 0) -> Timestamp:
        """The timestamp `seconds` (Unix) and `nanos` (0 to 999,999,999) after the epoch, in a zone `offset`
        seconds east of UTC."""
        moment = _EPOCH + datetime.timedelta(seconds=seconds, microseconds=nanos // 1000)
        self = datetime.datetime.__new__(cls, moment.year, moment.month, moment.day, moment.hour, moment.minute,
                                         moment.second, moment.microsecond, datetime.UTC)
        self.unix = seconds * _SECOND + nanos
        self.offset = offset
        return self

    @classmethod
    def of_unix_nanos(cls, unix: int, offset: int = 0) -> Timestamp:
        seconds, nanos = divmod(unix, _SECOND)
        return cls.at(seconds, nanos, offset)

    @property
    def unix_seconds(self) -> int:
        """Go's `t.Unix()`: the seconds, rounded down (the nanoseconds of a second are never negative)."""
        return unix_nanos(self) // _SECOND

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:  # (copy and pickle: datetime's would lose nanos)
        return Timestamp.of_unix_nanos, (unix_nanos(self), offset_of(self))

    @property
    def _exact(self) -> int:
        return unix_nanos(self)

    @staticmethod
    def _exact_of(other: object) -> int | None:
        return unix_nanos(other) if isinstance(other, datetime.datetime) else None

    def __str__(self) -> str:
        """Go's `t.Format(time.RFC3339Nano)` in the timestamp's own zone: the fraction's trailing zeros dropped
        (none when whole), the zone `Z` or `+hh:mm`; the year as Go prints it, 0000 and 10000 included (an
        offset can carry the wall clock of an instant in range there)."""
        seconds, fraction = divmod(unix_nanos(self), _SECOND)
        offset = offset_of(self)
        wall = wall_clock(seconds + offset)
        text = f"{wall.year:04d}-{wall.month:02d}-{wall.day:02d}T{wall.hour:02d}:{wall.minute:02d}:{wall.second:02d}"
        if fraction:
            text += f".{fraction:09d}".rstrip("0")
        if not offset:
            return text + "Z"
        hours, minutes = divmod(abs(offset) // 60, 60)
        return f"{text}{'-' if offset < 0 else '+'}{hours:02d}:{minutes:02d}"

    def __repr__(self) -> str:
        return f"Timestamp({str(self)!r})"

