"""Timestamp getters with a time zone, as cel-go resolves the zone (common/types/timestamp.go `timeZone`): an
IANA name through Go's time.LoadLocation, or an `hours:minutes` offset read by strconv.Atoi; on both engines."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

T = 'timestamp("2024-01-01T00:00:00Z")'  # a Monday, 00:00 UTC


@pytest.mark.parametrize(("expression", "expected"), [
    (f'{T}.getHours("Asia/Kolkata") == 5 && {T}.getMinutes("Asia/Kolkata") == 30', True),
    (f'{T}.getDayOfWeek("America/New_York") == 0 && {T}.getDate("America/New_York") == 31', True),  # Sunday there
    (f'{T}.getFullYear("America/New_York") == 2023 && {T}.getMonth("America/New_York") == 11', True),
    (f'{T}.getDayOfYear("America/New_York") == 364 && {T}.getDayOfMonth("America/New_York") == 30', True),
    (f'{T}.getHours("UTC") == 0 && {T}.getHours("") == 0', True),  # LoadLocation("") is UTC
    (f'{T}.getMinutes("+05:30") == 30 && {T}.getHours("05:30") == 5', True),  # the sign is optional
    (f'{T}.getHours("-00:30") == 23 && {T}.getMinutes("-00:30") == 30', True),  # minutes count against the sign
    (f'{T}.getHours("+30:00") == 6 && {T}.getDate("+30:00") == 2', True),  # Go's FixedZone takes any offset
    (f'{T}.getSeconds("Europe/Berlin") == 0 && {T}.getMilliseconds("Europe/Berlin") == 0', True),
    (f'{T}.getHours("Mars/Base") == 0', "eval: unknown time zone Mars/Base"),
    (f'{T}.getHours("utc") == 0', "eval: unknown time zone utc"),  # names are case-sensitive, as Go's
    (f'{T}.getHours("../etc/passwd") == 0', "eval: time: invalid location name"),
    (f'{T}.getHours("x:00") == 0', 'eval: strconv.Atoi: parsing "x": invalid syntax'),
    (f'{T}.getHours("1:2:3") == 0', 'eval: strconv.Atoi: parsing "2:3": invalid syntax'),
    (f'{T}.getHours(" 1:00") == 0', 'eval: strconv.Atoi: parsing " 1": invalid syntax'),
    (f'{T}.getHours("99999999999999999999:00") == 0',
     'eval: strconv.Atoi: parsing "99999999999999999999": value out of range'),
    ('duration("90m").getMinutes() == 90 && duration("90m").getHours() == 1', True),  # durations: no zone
    ('dyn(duration("1h")).getHours("UTC") == 1', "eval: no such overload: getHours(google.protobuf.Duration, string)"),
    (f'{T}.getHours(dyn(1)) == 0', "eval: no such overload: getHours(google.protobuf.Timestamp, int)"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_timestamp_getters_in_a_zone(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


FIRST, LAST = 'timestamp("0001-01-01T00:00:00Z")', 'timestamp("9999-12-31T23:59:59.999Z")'
PLUS_ONE = 'timestamp("2024-01-01T00:00:00+01:00")'  # 2023-12-31T23:00:00Z, a Sunday


def _fields(t: str, zone: str = "") -> str:
    """The list of every getter of `t`, in `zone` (none: the zero-argument getters)."""
    arg = f'"{zone}"' if zone else ""
    names = ("getFullYear", "getMonth", "getDate", "getDayOfYear", "getDayOfWeek", "getHours", "getMinutes",
             "getSeconds", "getMilliseconds")
    return "[" + ", ".join(f"{t}.{name}({arg})" for name in names) + "]"


# Every field as Go's time.Time gives it (a Go program printing t.In(zone).Year(), ... for each case)
@pytest.mark.parametrize(("expression", "expected"), [
    # cel.DefaultUTCTimeZone(true): the getters without a zone read the clock in UTC, not in the offset the
    # timestamp was written with (which only its text keeps)
    (f'{_fields(PLUS_ONE)} == [2023, 11, 31, 364, 0, 23, 0, 0, 0]', True),
    (f'{_fields(PLUS_ONE)} == {_fields(PLUS_ONE, "UTC")}', True),
    (f'{_fields(PLUS_ONE, "+01:00")} == [2024, 0, 1, 0, 1, 0, 0, 0, 0]', True),
    ('timestamp("2024-01-01T00:00:00+05:30").getMinutes() == 30', True),
    ('timestamp(dyn("2024-06-30T23:30:00-01:00")).getMonth() == 6', True),  # July in UTC
    # Go's calendar has no end: a zone may carry the clock of an instant in range to year 0 or 10000
    (f'{_fields(FIRST, "-00:01")} == [0, 11, 31, 365, 0, 23, 59, 0, 0]', True),  # year 0 is a leap year
    (f'{_fields(FIRST, "America/New_York")} == [0, 11, 31, 365, 0, 19, 3, 58, 0]', True),  # local mean time
    (f'{_fields(FIRST, "Asia/Kolkata")} == [1, 0, 1, 0, 1, 5, 53, 28, 0]', True),
    (f'{_fields(FIRST)} == [1, 0, 1, 0, 1, 0, 0, 0, 0]', True),
    (f'{_fields(LAST, "+00:01")} == [10000, 0, 1, 0, 6, 0, 0, 59, 999]', True),
    (f'{_fields(LAST, "Pacific/Kiritimati")} == [10000, 0, 1, 0, 6, 13, 59, 59, 999]', True),
    (f'{_fields(LAST, "Australia/Sydney")} == [10000, 0, 1, 0, 6, 10, 59, 59, 999]', True),  # summer time
    (f'{_fields(LAST, "America/New_York")} == [9999, 11, 31, 364, 5, 18, 59, 59, 999]', True),
    # an offset of any size: the minutes as Go's time.Duration(offset) * time.Minute (int64, wrapping)
    ('timestamp("2024-01-01T00:00:00Z").getFullYear("+99999:00") == 2035', True),
    (f'{_fields("timestamp(0)", "+99999999999:00")} == [1759, 0, 14, 13, 0, 9, 11, 25, 0]', True),
    ('timestamp("2024-01-01T00:00:00Z").getHours("+99999999999:00") == 9', True),
    ('timestamp("2024-01-01T00:00:00Z").getFullYear("-9223372036854775808:00") == 2024', True),  # wraps to 0
    ('timestamp("2024-01-01T00:00:00Z").getDate("+153722867280912930:07") == 31', True),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_getters_read_utc_and_go_on_past_the_range(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


@pytest.mark.parametrize(("expression", "expected"), [
    # the instant is in range, its wall clock in the zone it keeps is not: Go prints the year as it is
    ('string(timestamp("9999-12-31T23:30:00+01:00") + duration("1h")) == "10000-01-01T00:30:00+01:00"', True),
    ('string(timestamp("0001-01-01T00:30:00-01:00") - duration("1h")) == "0000-12-31T23:30:00-01:00"', True),
    ('timestamp("0001-01-01T00:30:00-01:00") - duration("1h") == timestamp(-62135595000)', True),
    ('string(timestamp("9999-12-31T23:30:00+01:00") + duration("1h")).size() == 26', True),
    ('timestamp("9999-12-31T23:30:00+01:00") + duration("89m") > timestamp(0)', True),  # 9999-12-31T23:59Z
    ('timestamp("9999-12-31T23:30:00+01:00") + duration("90m") > timestamp(0)', "eval: timestamp overflow"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_text_of_a_wall_clock_past_the_range(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
