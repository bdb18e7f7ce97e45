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
