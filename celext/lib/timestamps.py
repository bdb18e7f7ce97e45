"""The timestamp getters, as cel-go (common/stdlib/standard.go `inTimeZone`) resolves the zone:
`t.getHours("Europe/Berlin")`, `t.getDayOfWeek("-05:30")`, and `t.getHours()`, which reads the clock in UTC
whatever offset the timestamp was written with (Kubernetes' environment sets cel.DefaultUTCTimeZone(true), so
the zero-argument getters are `inTimeZone(ts, "UTC")`).

- a name without `:` is Go's `time.LoadLocation`: "" and "UTC" are UTC, "Local" the process's zone, anything else
  an IANA name, else `unknown time zone <name>` (names with `..` or a leading slash: `time: invalid location
  name`); names are case-sensitive (`utc` is unknown, as in Go);
- a name with `:` is an offset: the hours before the first `:` and the minutes after it, each read by
  `strconv.Atoi` (so `5:30`, `+05:30` and `-00:30` work, and a bad number is Go's `strconv.Atoi: parsing "x":
  invalid syntax`); the minutes count against the sign of the text; any size (Go's FixedZone takes it; the
  minutes to nanoseconds in int64 as Go multiplies them).

Go's calendar has no end, so a zone may carry the wall clock to year 0 or 10000 (`timestamp("0001-01-01T00:00:00Z")
.getFullYear("-01:00")` is 0): no error. A duration's getters are its whole length in the unit, as cel-go's.
"""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Callable
from typing import Any

from celext import values as celvalues
from celext.gostrconv import parse_int
from celext.gotime import MAX_UNIX, MIN_UNIX, WallClock, wall_clock
from celext.lib.library import no_such_overload
from celext.lib.timevalues import Duration, unix_nanos
from celext.values import CELEvalError

# The fields of a wall clock (cel-go `timestampGet*`: months and days of the year and of the month 0-based,
# `getDate` 1-based, Sunday 0); milliseconds come from the nanoseconds
_FIELDS: dict[str, Callable[[WallClock, int], int]] = {
    "getFullYear": lambda t, _: t.year,
    "getMonth": lambda t, _: t.month - 1,
    "getDate": lambda t, _: t.day,
    "getDayOfMonth": lambda t, _: t.day - 1,
    "getDayOfWeek": lambda t, _: t.weekday,
    "getDayOfYear": lambda t, _: t.year_day - 1,
    "getHours": lambda t, _: t.hour,
    "getMinutes": lambda t, _: t.minute,
    "getSeconds": lambda t, _: t.second,
    "getMilliseconds": lambda _, nanos: nanos // 1_000_000,
}
_INT64 = 1 << 64
_MINUTE_NANOS = 60_000_000_000
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_DAYS = 2 * 86_400  # (no zone changes its offset in the first or last two days of the year)


def _wrap64(value: int) -> int:
    """Go's int64 arithmetic, which wraps."""
    return (value + (1 << 63)) % _INT64 - (1 << 63)


def zone_offset(seconds: int, name: str) -> int | str:
    """The offset, in seconds east of UTC, of the zone `name` at Unix `seconds`, or Go's error text."""
    if ":" in name:
        head, _, tail = name.partition(":")
        try:
            hours, minutes = parse_int(head, "Atoi"), parse_int(tail, "Atoi")
        except ValueError as err:
            return str(err)
        offset = _wrap64(hours * 60 - minutes if name.startswith("-") else hours * 60 + minutes)
        # int((time.Duration(offset) * time.Minute).Seconds())
        return int(Duration(_wrap64(offset * _MINUTE_NANOS))._in(1_000_000_000))
    if name in ("", "UTC"):
        return 0
    if name != "Local" and (".." in name or name.startswith(("/", "\\"))):
        return "time: invalid location name"
    try:
        zone = None if name == "Local" else zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return f"unknown time zone {name}"
    # Python's datetime stops at years 1 and 9999, so the offset is read a little inside them
    moment = _EPOCH + datetime.timedelta(seconds=min(max(seconds, MIN_UNIX + _DAYS), MAX_UNIX - _DAYS))
    local = moment.astimezone(zone).utcoffset()
    return 0 if local is None else int(local.total_seconds())


def _getter(name: str) -> Callable[..., Any]:
    field = _FIELDS[name]

    def get(value: Any, zone: Any = None) -> Any:
        if zone is None and not isinstance(value, celvalues.TimestampType):
            # a duration's (celext.lib.timevalues); any other value has no such method: the caller's
            # dispatch makes the AttributeError `no such overload`
            return celvalues.IntType(getattr(value, name)())
        if zone is not None and (not isinstance(value, celvalues.TimestampType) or not isinstance(zone, str)):
            return no_such_overload(name, (value, zone))  # (reached through dyn) a duration's getters take no zone
        seconds, nanos = divmod(unix_nanos(value), 1_000_000_000)
        offset = zone_offset(seconds, "UTC" if zone is None else str(zone))
        if isinstance(offset, str):
            return CELEvalError(offset)
        return celvalues.IntType(field(wall_clock(seconds + offset), nanos))

    get.__name__ = name
    return get


GETTERS: dict[str, Callable[..., Any]] = {name: _getter(name) for name in _FIELDS}
