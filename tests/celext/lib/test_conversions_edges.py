"""Conversions and mixed arithmetic at their edges, as cel-go answers them: int() of strings (base 10 only,
as strconv.ParseInt(s, 10, 64)) and of values past int64, duration + timestamp in either order, int/uint/double
ordering across signs, `%e` precision, optional.none()."""

from __future__ import annotations

import pytest

from tests.celext.lib.engines import folded
from tests.celext.outcome import outcome


@pytest.mark.parametrize(("expression", "expected"), [
    ('int("0x1F") == 31', folded("type conversion error from 'string' to 'int'")),
    ('int("-0x10") == -16', folded("type conversion error from 'string' to 'int'")),
    ('int("010") == 10 && int("-10") == -10', True),
    ('int("9223372036854775807") == 9223372036854775807', True),
    ('int("9223372036854775808") == 0', folded("type conversion error from 'string' to 'int'")),  # ParseInt fails
    ("int(9223372036854775808.0) == 0", folded("integer overflow")),
    ("int(-9223372036854775808.0) == 0", folded("integer overflow")),  # cel-go refuses both ends
    ("int(-9223372036854774784.0) == -9223372036854774784", True),
    ('duration("1s") + timestamp("2020-01-01T00:00:00Z") == timestamp("2020-01-01T00:00:01Z")', True),
    ('timestamp("2020-01-01T00:00:00Z") + duration("1s") == timestamp("2020-01-01T00:00:01Z")', True),
    ('timestamp("2020-01-01T00:00:01Z") - duration("1s") == timestamp("2020-01-01T00:00:00Z")', True),
    ("-1 < -0.5 && !(-1 > -0.5) && -2 < -1.5", True),
    ("-9223372036854775808 > -9.3e18 && 9223372036854775807 < 9.3e18", True),
    ("dyn(-1) < 1u && dyn(-1.0) < 1u && 1u > -0.5", True),
    ('"%.3e".format([1234.5]) == "1.234500\u202f×\u202f10⁰³"', True),  # cel-go's v2 formatter reads `.3` as a width
    ('"%e".format([1234.5]) == "1.234500\u202f×\u202f10⁰³"', True),  # x/text's en-US scientific form
    ('"%s".format([b"\\xff"]) == "\\ufffd"', True),
    ("optional.none().orValue(3) == 3 && !optional.none().hasValue()", True),
])
def test_edges(expression: str, expected: bool | str) -> None:
    assert outcome(expression) == expected
