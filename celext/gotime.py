"""Go's duration and RFC 3339 timestamp parsers, as cel-go converts strings with them.

cel-go's `duration(string)` is `time.ParseDuration` and its `timestamp(string)` is
`time.Parse(time.RFC3339, s)` followed by a range check on the Unix seconds (common/types/string.go
`ConvertToType`); `timestamp(int)` checks the same range (common/types/int.go). Shared by the checker, which
judges constant arguments when a selector is compiled (celext.check.time_literals), and the conversions at run
time (celext.lib.operators); imports neither cel-python nor lark.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["MAX_UNIX", "MIN_UNIX", "WallClock", "parse_go_duration", "parse_rfc3339", "unix_in_range", "wall_clock"]

_GO_UNITS = {"ns": 1, "us": 1_000, "\u00b5s": 1_000, "\u03bcs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
             "m": 60_000_000_000, "h": 3_600_000_000_000}
_GO_DURATION_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)", re.ASCII)


def parse_go_duration(text: str) -> int | None:
    """Go `time.ParseDuration` (src/time/format.go) in nanoseconds; None where Go returns an error: units ns, us,
    µs, ms, s, m, h only (no `d`), every number with a unit, no blanks, within int64 nanoseconds."""
    rest, negative = text, False
    if rest[:1] in ("+", "-"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        return None
    total, limit = 0, 1 << 63
    while rest:
        part = _GO_DURATION_PART.match(rest)
        assert part is not None  # every group may be empty
        whole, fraction, unit = part.group(1), part.group(2), part.group(3)
        if (not whole and not fraction) or not unit or unit not in _GO_UNITS:
            return None  # no digits; missing unit; unknown unit (Go: "time: invalid duration" and the like)
        rest = rest[part.end():]
        if len(whole.lstrip("0")) > 19:  # leadingInt's overflow (before int(): Python refuses 4,300+ digits)
            return None
        value = int(whole) if whole else 0
        if value > limit:  # leadingInt's overflow
            return None
        scale = _GO_UNITS[unit]
        if value > limit // scale:
            return None
        value *= scale
        if fraction:
            # leadingFraction keeps digits while they fit in int64; the fraction is applied in float64, as Go does
            kept, overflow = 0, False
            digits_scale = 1.0
            for char in fraction:
                if overflow:
                    continue
                if kept > ((1 << 63) - 1) // 10:
                    overflow = True
                    continue
                bigger = kept * 10 + int(char)
                if bigger > limit:
                    overflow = True
                    continue
                kept, digits_scale = bigger, digits_scale * 10
            if kept > 0:
                value += int(float(kept) * (float(scale) / digits_scale))
                if value > limit:
                    return None
        total += value
        if total > limit:
            return None
    if negative:
        return -total
    return total if total <= limit - 1 else None


# cel-go's minUnixTime / maxUnixTime (common/types/timestamp.go): 0001-01-01T00:00:00Z, 9999-12-31T23:59:59Z
MIN_UNIX = -62_135_596_800
MAX_UNIX = 253_402_300_799


def unix_in_range(seconds: int) -> bool:
    """Does a timestamp at these Unix seconds (rounded down) exist in CEL? (outside: `timestamp overflow`)"""
    return MIN_UNIX <= seconds <= MAX_UNIX


_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})"  # Go's "2006-01-02T15:04:05"
    r"(?:[.,]([0-9]+))?"  # a fractional second the layout does not name, which Go's parser accepts anyway
    r"(?:(Z)|([+-])([0-9]{2}):([0-9]{2}))",  # "Z07:00"
    re.ASCII)


def parse_rfc3339(text: str) -> tuple[int, int, int] | None:
    """Go `time.Parse(time.RFC3339, text)` (src/time/format.go: `parseRFC3339`, then the general parser it falls
    back to, which is the more lenient of the two) as (Unix seconds, nanoseconds, the zone's offset in seconds east
    of UTC, which the time keeps); None where Go returns an error.

    What the general parser accepts beyond the strict form: a one-digit hour (`15` is not zero-padded), a comma
    before the fraction, and zone offsets up to 24:60 (it checks `> 24` and `> 60`, so that offsets people write
    as 24 hours or 60 minutes parse). Only the first nine fraction digits count. Years 0000 to 9999 parse; the
    instant may still lie outside CEL's range (`unix_in_range`)."""
    found = _DATE_TIME.fullmatch(text)
    if found is None:
        return None
    year, month, day, hour, minute, second = (int(found.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or hour > 23 or minute > 59 or second > 59:
        return None
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)  # year 0 too: Go's calendar is proleptic
    if not 1 <= day <= (29 if month == 2 and leap else _DAYS_IN_MONTH[month]):
        return None
    offset = 0
    if found.group(9) is not None:  # (group 8 is "Z")
        offset_hours, offset_minutes = int(found.group(10)), int(found.group(11))
        if offset_hours > 24 or offset_minutes > 60:
            return None
        offset = (offset_hours * 3600 + offset_minutes * 60) * (-1 if found.group(9) == "-" else 1)
    fraction = found.group(7) or ""
    nanoseconds = int(fraction[:9].ljust(9, "0")) if fraction else 0
    seconds = _days_since_epoch(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
    return seconds, nanoseconds, offset


_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_since_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 in the proleptic Gregorian calendar, for any year (Python's date stops at year 1):
    the civil-from-days count over 400-year eras, the year starting in March so that leap days come last."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


class WallClock(NamedTuple):
    """A Go time's calendar fields (`t.Year()`, `t.Month()` 1-12, `t.Day()`, ..., `t.Weekday()` with Sunday 0,
    `t.YearDay()` 1-based), for any year: Go's calendar goes on before year 1 and past 9999 (Python's stops)."""

    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    weekday: int
    year_day: int


def wall_clock(seconds: int) -> WallClock:
    """The calendar fields at `seconds` after 1970-01-01T00:00:00 on a wall clock (Unix seconds plus the zone's
    offset), in the proleptic Gregorian calendar: the inverse of `_days_since_epoch`."""
    days, rest = divmod(seconds, 86_400)
    era, day_of_era = divmod(days + 719_468, 146_097)
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153  # 0 = March
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    year = year_of_era + era * 400 + (month <= 2)
    hour, rest = divmod(rest, 3600)
    weekday = (days + 4) % 7  # 1970-01-01 was a Thursday
    return WallClock(year, month, day, hour, rest // 60, rest % 60, weekday,
                     days - _days_since_epoch(year, 1, 1) + 1)
