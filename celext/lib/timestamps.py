"""The timestamp getters with a time zone argument, as cel-go resolves the zone (common/types/timestamp.go
`timeZone`): `t.getHours("Europe/Berlin")`, `t.getDayOfWeek("-05:30")`.

- a name without `:` is Go's `time.LoadLocation`: "" and "UTC" are UTC, "Local" the process's zone, anything else
  an IANA name, else `unknown time zone <name>` (names with `..` or a leading slash: `time: invalid location
  name`); names are case-sensitive (`utc` is unknown, as in Go);
- a name with `:` is an offset: the hours before the first `:` and the minutes after it, each read by
  `strconv.Atoi` (so `5:30`, `+05:30` and `-00:30` work, and a bad number is Go's `strconv.Atoi: parsing "x":
  invalid syntax`); the minutes count against the sign of the text.

Without a zone, a timestamp's getters read its wall clock in the zone it keeps (celext.lib.timevalues: UTC unless
it was parsed with an offset), and a duration's are its whole length in that unit, as cel-go's.
"""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Callable
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError, base_functions

from celext.gostrconv import parse_int
from celext.lib.library import no_such_overload
from celext.lib.timevalues import Timestamp

# The fields of a wall clock (cel-go timestamp.go `timestampGet*`: months and days of the year and of the month
# 0-based, `getDate` 1-based, Sunday 0)
_FIELDS: dict[str, Callable[[datetime.datetime], int]] = {
    "getFullYear": lambda t: t.year,
    "getMonth": lambda t: t.month - 1,
    "getDate": lambda t: t.day,
    "getDayOfMonth": lambda t: t.day - 1,
    "getDayOfWeek": lambda t: t.isoweekday() % 7,
    "getDayOfYear": lambda t: t.timetuple().tm_yday - 1,
    "getHours": lambda t: t.hour,
    "getMinutes": lambda t: t.minute,
    "getSeconds": lambda t: t.second,
    "getMilliseconds": lambda t: t.microsecond // 1000,
}


def in_zone(moment: datetime.datetime, name: str) -> datetime.datetime | str:
    """The wall-clock time of `moment` in the zone `name` (naive for an offset), or Go's error text."""
    if ":" in name:
        head, _, tail = name.partition(":")
        try:
            hours, minutes = parse_int(head, "Atoi"), parse_int(tail, "Atoi")
        except ValueError as err:
            return str(err)
        offset = hours * 60 - minutes if name.startswith("-") else hours * 60 + minutes
        # Go's FixedZone takes any offset; Python's timezone stops at 24 hours, so shift the UTC wall clock
        return moment.astimezone(datetime.UTC).replace(tzinfo=None) + datetime.timedelta(minutes=offset)
    if name in ("", "UTC"):
        return moment.astimezone(datetime.UTC)
    if name == "Local":
        return moment.astimezone()
    if ".." in name or name.startswith(("/", "\\")):
        return "time: invalid location name"
    try:
        return moment.astimezone(zoneinfo.ZoneInfo(name))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return f"unknown time zone {name}"


def _getter(name: str) -> Callable[..., Any]:
    default = base_functions[name]
    field = _FIELDS[name]

    def get(value: Any, zone: Any = None) -> Any:
        if zone is None and not isinstance(value, Timestamp):
            return default(value)  # a duration's (celext.lib.timevalues), or a wrong type's error
        if zone is not None and (not isinstance(value, celtypes.TimestampType) or not isinstance(zone, str)):
            return no_such_overload(name, (value, zone))  # (reached through dyn) a duration's getters take no zone
        try:
            local = value.wall_clock() if zone is None else in_zone(value, str(zone))
        except OverflowError:  # an offset carrying the wall clock past year 9999 (Go would still answer)
            return CELEvalError("timestamp overflow")
        return CELEvalError(local) if isinstance(local, str) else celtypes.IntType(field(local))

    get.__name__ = name
    return get


GETTERS: dict[str, Callable[..., Any]] = {name: _getter(name) for name in _FIELDS}
