"""String conversions as cel-go v0.26 makes them, on both engines.

cel-go common/types/string.go `String.ConvertToType`: `double` is Go's strconv.ParseFloat (src/strconv/atof.go:
`special`, `readFloat`, `underscoreOK`; out of range is ErrRange), `bool` is strconv.ParseBool, `duration` is
time.ParseDuration (src/time/format.go; units ns us µs μs ms s m h); any error is `type conversion error from
'string' to '<type>'`. common/types/bytes.go `Bytes.ConvertToType`: invalid UTF-8 is its own error.
"""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import ENGINES, outcome_on

DOUBLE_ERROR = "eval: type conversion error from 'string' to 'double'"
BOOL_ERROR = "eval: type conversion error from 'string' to 'bool'"
DURATION_ERROR = "eval: type conversion error from 'string' to 'google.protobuf.Duration'"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('double("1.5") == 1.5 && double(".5") == 0.5 && double("5.") == 5.0 && double("-2e3") == -2000.0', True),
        ('double("0x1p3") == 8.0 && double("0x1.8p1") == 3.0', True),  # Go hexadecimal floats, `p` exponent
        ('double("1_0") == 10.0', True),  # underscoreOK: between digits
        ('double("inf") > 0.0 && double("-Infinity") < 0.0 && double("NaN") != double("NaN")', True),
        ('double("-1e-400") == 0.0', True),  # underflow is no error in Go
        ('double(" 1.0") == 1.0', DOUBLE_ERROR),  # no blanks
        ('double("1.5\\n") == 1.5', DOUBLE_ERROR),
        ('double("\u0661") == 1.0', DOUBLE_ERROR),  # ASCII digits only
        ('double("1e400") > 0.0', DOUBLE_ERROR),  # ErrRange
        ('double("0x1") == 1.0', DOUBLE_ERROR),  # hexadecimal needs an exponent
        ('double("1__0") == 10.0', DOUBLE_ERROR),
        ('double("+nan") != 0.0', DOUBLE_ERROR),  # `special`: only inf/infinity take a sign
        ('double(".") == 0.0', DOUBLE_ERROR),
        ('double("abc") == 0.0', DOUBLE_ERROR),
        ('bool("T") && !bool("F") && bool("1") && !bool("0") && bool("TRUE") && bool("True") && !bool("False")', True),
        ('bool("tRue")', BOOL_ERROR),
        ('bool("yes")', BOOL_ERROR),
        ('string(b"\\xff") == ""', "eval: invalid UTF-8 in bytes, cannot convert to string"),
        ('string(b"abc") == "abc"', True),
        ('duration("1.5h") == duration("90m") && duration("1h1h") == duration("2h")', True),
        ('duration("+5s") == duration("5s")', True),
        ('duration("0") == duration("0s") && duration("-0") == duration("0s") && duration(".5s") == duration("500ms")',
         True),
        ('duration("1\u00b5s") == duration("1us") && duration("1\u03bcs") == duration("1us")', True),
        ('duration("2562047h") > duration("0s")', True),
        ('duration("2562047h47m16.854775807s") + duration("0s") > duration("0s")', True),  # Go's largest
        ('duration("-2562047h47m16.854775808s") - duration("0s") < duration("0s")', True),  # Go's smallest
        ('duration("999999999ns") == duration("1s") && duration("1500ns") == duration("2us")', True),  # nearest µs
        ('duration("1d") > duration("0s")', DURATION_ERROR),  # no unit d
        ('duration("2562048h") > duration("0s")', DURATION_ERROR),  # beyond int64 nanoseconds
        ('duration("9999999999999h") > duration("0s")', DURATION_ERROR),
        ('duration("1") > duration("0s")', DURATION_ERROR),  # missing unit
        ('duration("") > duration("0s")', DURATION_ERROR),
        ('duration("1h ") > duration("0s")', DURATION_ERROR),
        ('duration(".s") > duration("0s")', DURATION_ERROR),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_go_string_conversions(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
