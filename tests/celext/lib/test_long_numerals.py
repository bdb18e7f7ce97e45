"""Numerals longer than any 64-bit value: Go's parsers overflow and say so; Python refuses to convert more than
4,300 digits (sys.get_int_max_str_digits()), which must never reach a user as Python's words."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from celext.gostrconv import parse_int, parse_uint
from tests.celext.lib.engines import ENGINES, outcome_on

LONG = "9" * (sys.get_int_max_str_digits() + 1)
RANGE = "value out of range"


@pytest.mark.parametrize(("parse", "name", "text", "expected"), [
    (parse_uint, "ParseUint", "18446744073709551615", 2**64 - 1),  # the largest uint64, 20 digits
    (parse_uint, "ParseUint", "18446744073709551616", RANGE),
    (parse_uint, "ParseUint", "0" * 40 + "18446744073709551615", 2**64 - 1),  # leading zeros are not the value's
    (parse_uint, "ParseUint", "9" * 21, RANGE),
    (parse_uint, "ParseUint", LONG, RANGE),
    (parse_int, "ParseInt", "-9223372036854775808", -(2**63)),
    (parse_int, "ParseInt", "-9223372036854775809", RANGE),
    (parse_int, "ParseInt", "9223372036854775807", 2**63 - 1),
    (parse_int, "ParseInt", "9223372036854775808", RANGE),
    (parse_int, "ParseInt", "-" + "0" * 40 + "1", -1),
    (parse_int, "ParseInt", "-" + LONG, RANGE),
    (parse_int, "ParseInt", "+" + LONG, RANGE),
    # more leading zeros than Python's int() converts (4,300 digits counted with them): still the value 1 / -1
    (parse_int, "ParseInt", "0" * len(LONG) + "1", 1),
    (parse_uint, "ParseUint", "0" * len(LONG) + "1", 1),
    (parse_int, "ParseInt", "-" + "0" * len(LONG) + "1", -1),
])
def test_go_parsers_at_their_range(parse: Callable[[str], int], name: str, text: str, expected: int | str) -> None:
    try:
        assert parse(text) == expected
    except ValueError as err:
        assert str(err) == f'strconv.{name}: parsing "{text}": {expected}'


@pytest.mark.parametrize(("expression", "expected"), [
    (f'quantity("{LONG}").compareTo(quantity("1")) == 1 && !quantity("{LONG}").isInteger()', True),
    (f'isQuantity("{LONG}") && !isQuantity("1e{LONG}")', True),
    # exact beyond any fixed precision, as upstream's inf.Dec (a 60-digit context rounded these equal)
    (f'quantity("1{"0" * 70}1").compareTo(quantity("1{"0" * 71}")) == 1', True),
    (f'isSemver("{LONG}.0.0") || isSemver("1.0.0-{LONG}")', False),
    (f'semver("1.0.0-{LONG}").major() == 1', f'eval: strconv.ParseUint: parsing "{LONG}": value out of range'),
    # a constant argument is converted when the program is built (cel-go's planner): the selector is refused
    (f'int("{LONG}") == 1', "compile: program instantiation failed: type conversion error from 'string' to 'int'"),
    (f'uint(["{LONG}"][0]) == 1u', "eval: type conversion error from 'string' to 'uint'"),
    (f'duration(dyn(["{LONG}s"][0])) == duration("1s")', "eval: type conversion error from 'string' to "
                                                    "'google.protobuf.Duration'"),
    (f'duration("{LONG}s") == duration("1s")', "compile: invalid duration argument"),
    (f'cidr(dyn("1.1.1.1/{LONG}")) == cidr("1.1.1.1/32")',
     "eval: network address parse error during conversion from string: network address parse error during "
     f'conversion from string: netip.ParsePrefix("1.1.1.1/{LONG}"): bad bits after slash: "{LONG}"'),
    (f'"%.{LONG}f".format(dyn([1.0])) == ""',
     "eval: could not parse formatting clause: error while parsing precision: error while converting precision "
     f'to integer: strconv.Atoi: parsing "{LONG}": value out of range'),
    (f'"%.{"0" * len(LONG)}1f".format(dyn([1.5])) == "1.5"', True),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_long_numerals_in_cel(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected
