"""String conversions as cel-go v0.26 makes them, on both engines.

cel-go common/types/string.go `String.ConvertToType`: `double` is Go's strconv.ParseFloat (src/strconv/atof.go:
`special`, `readFloat`, `underscoreOK`; out of range is ErrRange), `bool` is strconv.ParseBool, `duration` is
time.ParseDuration (src/time/format.go; units ns us µs μs ms s m h), `timestamp` is time.Parse(time.RFC3339) then
a range check; any error is `type conversion error from 'string' to '<type>'` (`timestamp overflow` out of range).
common/types/bytes.go `Bytes.ConvertToType`: invalid UTF-8 is its own error. A constant argument of
`duration`/`timestamp` is judged at compile time by the base environment's validators (cel-go
ValidateDurationLiterals/ValidateTimestampLiterals: `invalid duration argument` at the literal) exactly where the
conversion fails at run time, so each of those cases runs both ways.
"""

from __future__ import annotations

import pytest

import celext
from tests.celext.lib.engines import ENGINES, folded, outcome_on

DOUBLE_ERROR = "eval: type conversion error from 'string' to 'double'"
BOOL_ERROR = "eval: type conversion error from 'string' to 'bool'"
DURATION_ERROR = "eval: type conversion error from 'string' to 'google.protobuf.Duration'"
TIMESTAMP_ERROR = "eval: type conversion error from 'string' to 'google.protobuf.Timestamp'"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('double("1.5") == 1.5 && double(".5") == 0.5 && double("5.") == 5.0 && double("-2e3") == -2000.0', True),
        ('double("0x1p3") == 8.0 && double("0x1.8p1") == 3.0', True),  # Go hexadecimal floats, `p` exponent
        ('double("1_0") == 10.0', True),  # underscoreOK: between digits
        ('double("inf") > 0.0 && double("-Infinity") < 0.0 && double("NaN") != double("NaN")', True),
        ('double("-1e-400") == 0.0', True),  # underflow is no error in Go
        ('double(" 1.0") == 1.0', folded(DOUBLE_ERROR)),  # no blanks
        ('double("1.5\\n") == 1.5', folded(DOUBLE_ERROR)),
        ('double("\u0661") == 1.0', folded(DOUBLE_ERROR)),  # ASCII digits only
        ('double("1e400") > 0.0', folded(DOUBLE_ERROR)),  # ErrRange
        ('double("0x1") == 1.0', folded(DOUBLE_ERROR)),  # hexadecimal needs an exponent
        ('double("1__0") == 10.0', folded(DOUBLE_ERROR)),
        ('double("+nan") != 0.0', folded(DOUBLE_ERROR)),  # `special`: only inf/infinity take a sign
        ('double(".") == 0.0', folded(DOUBLE_ERROR)),
        ('double("abc") == 0.0', folded(DOUBLE_ERROR)),
        ('bool("T") && !bool("F") && bool("1") && !bool("0") && bool("TRUE") && bool("True") && !bool("False")', True),
        ('bool("tRue")', folded(BOOL_ERROR)),
        ('bool("yes")', folded(BOOL_ERROR)),
        ('string(b"\\xff") == ""', folded("invalid UTF-8 in bytes, cannot convert to string")),
        ('string(b"abc") == "abc"', True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_go_string_conversions(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


# (argument as CEL source, a CEL expression the converted value `v` must satisfy, or None: the conversion fails)
DURATIONS = [
    ('"1.5h"', 'v == duration("90m")'),
    ('"1h1h"', 'v == duration("2h")'),
    ('"+5s"', 'v == duration("5s")'),
    ('"0"', 'v == duration("0s")'),
    ('"-0"', 'v == duration("0s")'),
    ('".5s"', 'v == duration("500ms")'),
    ('"1\u00b5s"', 'v == duration("1us")'),
    ('"1\u03bcs"', 'v == duration("1us")'),
    ('"2562047h"', 'v > duration("0s")'),
    ('"2562047h47m16.854775807s"', 'v + duration("0s") > duration("0s")'),  # Go's largest: limit
    ('"2562047h47m16.854775806s"', 'v + duration("0s") > duration("0s")'),  # limit - 1
    ('"2562047h47m16.854775808s"', None),  # limit + 1: beyond int64 nanoseconds
    ('"-2562047h47m16.854775808s"', 'v - duration("0s") < duration("0s")'),  # Go's smallest
    ('"-2562047h47m16.854775809s"', None),
    ('"999999999ns"', 'v < duration("1s") && v + duration("1ns") == duration("1s")'),  # to the nanosecond
    ('"1500ns"', 'v == duration("1.5us") && v != duration("2us") && v > duration("1us")'),
    ('"1d"', None),  # no unit d
    ('"2562048h"', None),
    ('"9999999999999h"', None),
    ('"1"', None),  # missing unit
    ('""', None),
    ('"1h "', None),
    ('".s"', None),
]

TIMESTAMPS = [
    ('"2024-02-29T12:30:00Z"', 'v == timestamp(1709209800)'),
    ('"2024-02-29T12:30:00.5Z"', 'v.getMilliseconds() == 500'),
    ('"2024-02-29T12:30:00,25Z"', 'v.getMilliseconds() == 250'),  # Go's parser takes a comma before a fraction
    ('"2024-02-29T12:30:00.123456789123Z"', 'v.getMilliseconds() == 123'),  # digits past nine are read, not kept
    ('"2024-02-29T2:30:00Z"', 'v == timestamp(1709173800)'),  # a one-digit hour (layout `15` is not padded)
    # the zone is kept (Go's time.Parse): for the text, not for the instant nor the getters without a zone (UTC)
    ('"2024-01-01T00:30:00+01:00"', 'string(v) == "2024-01-01T00:30:00+01:00" && v.getHours() == 23 '
                                    '&& v == timestamp("2023-12-31T23:30:00Z") && v.getHours("UTC") == 23'),
    # zone offsets up to 24:60 (Go checks > 24 and > 60): here 25 hours
    ('"2024-01-01T00:00:00+24:60"', 'v == timestamp(1703977200) && string(v) == "2024-01-01T00:00:00+25:00"'),
    ('"2024-01-01T00:00:00+25:00"', None),
    ('"2024-01-01T00:00:00+24:61"', None),
    ('"0001-01-01T00:00:00Z"', 'v == timestamp(-62135596800)'),  # the smallest: limit
    ('"0001-01-01T00:00:01Z"', 'v == timestamp(-62135596799)'),
    ('"0000-12-31T23:59:59Z"', None),  # limit - 1 second: year 0 parses, then `timestamp overflow`
    ('"0001-01-01T00:59:59+01:00"', None),
    ('"9999-12-31T23:59:59.999999999Z"', 'v > timestamp(253402300798)'),  # the largest: the seconds are checked
    ('"9999-12-31T23:59:59-00:01"', None),  # 10000-01-01T00:00:59Z
    ('"2023-02-29T00:00:00Z"', None),  # not a leap year
    ('"2024-13-01T00:00:00Z"', None),
    ('"2024-01-01T24:00:00Z"', None),
    ('"2024-01-01T00:00:60Z"', None),  # no leap seconds
    ('"2024-01-01"', None),  # RFC 3339 only: a date alone, no zone, a blank, lower case are refused
    ('"2024-01-01T00:00:00"', None),
    ('"2024-01-01 00:00:00Z"', None),
    ('"2024-01-01t00:00:00z"', None),
    ('"2024-01-01T00:00:00.Z"', None),
    ('"now"', None),
    ('253402300799', 'v == timestamp("9999-12-31T23:59:59Z")'),  # timestamp(int): Unix seconds, the same range
    ('253402300800', None),
    ('-62135596800', 'v == timestamp("0001-01-01T00:00:00Z")'),
    ('-62135596801', None),
]


def _conversion_cases(function: str, cases: list[tuple[str, str | None]]) -> list[tuple[str, str, str | None]]:
    return [(function, argument, check) for argument, check in cases]


@pytest.mark.parametrize(("function", "argument", "check"),
                         _conversion_cases("duration", DURATIONS) + _conversion_cases("timestamp", TIMESTAMPS))
@pytest.mark.parametrize("engine", ENGINES)
def test_a_conversion_fails_at_run_time_exactly_where_its_constant_is_refused(
        engine: str, function: str, argument: str, check: str | None) -> None:
    # (an index is no constant: cel-go's planner folds a conversion of a constant, `dyn(x)` included)
    at_run_time = outcome_on(engine, f"cel.bind(v, {function}(dyn([{argument}][0])), {check or 'v == v'})")
    constant = outcome_on(engine, f"cel.bind(v, {function}({argument}), {check or 'v == v'})")
    if check is not None:
        assert (at_run_time, constant) == (True, True)
        return
    overflow = argument.lstrip("-").isdigit() or argument[1:5] in ("0000", "9999", "0001")
    assert at_run_time == ("eval: timestamp overflow" if overflow and function == "timestamp" else
                           TIMESTAMP_ERROR if function == "timestamp" else DURATION_ERROR)
    assert constant == f"compile: invalid {function} argument"
    with pytest.raises(celext.CompileError) as refused:
        celext.compile(f"{function}({argument}) == {function}({argument})", engine=engine)
    assert (refused.value.line, refused.value.column) == (1, len(function) + 2)  # at the (first) literal


@pytest.mark.parametrize(("expression", "expected"), [
    # cel-go runs its AST validators only on a clean type check: the checker's error is the one reported
    ('1 + "a" == 2 && duration("1d") > duration("0s")',
     "compile: found no matching overload for '_+_' applied to '(int, string)'"),
    # every refused literal is reported; the first by position is the compile error
    ('timestamp("x") > timestamp(0) || duration("1d") > duration("0s") || "a".matches("(")',
     "compile: invalid timestamp argument"),
    ('duration("1s") > duration("1d") || "a".matches("(")', "compile: invalid duration argument"),
    ('"a".matches("(") || duration("1d") > duration("0s")', "compile: invalid matches argument"),
    # an unused binding's initialiser is in the AST the validators read, so it is judged too
    ('cel.bind(unused, timestamp("2024-01-01"), true)', "compile: invalid timestamp argument"),
    # not a literal: judged when evaluated
    ('duration(device.driver) > duration("0s")', DURATION_ERROR),
    # cel-go declares duration(int) (int64_to_duration), but converting an int to a duration always fails
    ('duration(1) > duration("0s")', "compile: invalid duration argument"),
    ('duration(-1) > duration("0s")', "compile: invalid duration argument"),
    ('duration(dyn(1)) > duration("0s")', folded("type conversion error from 'int' to 'google.protobuf.Duration'")),
    ('duration(1u) > duration("0s")', "compile: found no matching overload for 'duration' applied to '(uint)'"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_the_literal_validators_in_order(engine: str, expression: str, expected: str) -> None:
    assert outcome_on(engine, expression) == expected
