"""int() and uint() conversions and uint64 arithmetic with cel-go's texts (common/types: `errIntOverflow`,
`errUintOverflow`, String.ConvertToType's `type conversion error`), on both engines and at each range's ends.

Strings convert as Go's strconv in base 10: ParseInt takes one sign, ParseUint none; no base prefixes,
underscores or blanks; a number out of range is a conversion error, not an overflow."""

from __future__ import annotations

import pytest

import celext
from tests.celext.lib.engines import ENGINES, folded, outcome_on

INT_TEXT = "eval: type conversion error from 'string' to 'int'"
UINT_TEXT = "eval: type conversion error from 'string' to 'uint'"
UINT_OVERFLOW = "eval: unsigned integer overflow"
INT_OVERFLOW = "eval: integer overflow"

CASES = [
    # int(string): the int64 range at its ends, - 1 / = / + 1
    ('int("9223372036854775806") == 9223372036854775806', True),
    ('int("9223372036854775807") == 9223372036854775807', True),
    ('int("9223372036854775808") == 0', folded(INT_TEXT)),
    ('int("-9223372036854775808") == -9223372036854775807 - 1', True),
    ('int("-9223372036854775809") == 0', folded(INT_TEXT)),
    ('int("+7") == 7 && int("-7") == -7 && int("007") == 7', True),
    ('int("0x10") == 16', folded(INT_TEXT)),
    ('int("1_000") == 1000', folded(INT_TEXT)),
    ('int(" 1") == 1', folded(INT_TEXT)),
    ('int("") == 0', folded(INT_TEXT)),
    ('int("--1") == 1', folded(INT_TEXT)),
    ('int("\u0661") == 1', folded(INT_TEXT)),  # an Arabic-Indic digit: Python's int() takes it, Go's does not
    # uint(string): the uint64 range at its end, no sign at all
    ('uint("18446744073709551614") == 18446744073709551614u', True),
    ('uint("18446744073709551615") == 18446744073709551615u', True),
    ('uint("18446744073709551616") == 0u', folded(UINT_TEXT)),
    ('uint("0") == 0u', True),
    ('uint("+1") == 1u', folded(UINT_TEXT)),
    ('uint("-1") == 0u', folded(UINT_TEXT)),
    ('uint("0x1") == 1u', folded(UINT_TEXT)),
    # uint(int) and uint(double): below zero and past 2^64 overflow
    ("uint(0) == 0u && uint(1) == 1u", True),
    ("uint(-1) == 0u", folded(UINT_OVERFLOW)),
    ("uint(-0.5) == 0u", folded(UINT_OVERFLOW)),
    ("uint(0.0) == 0u && uint(1.9) == 1u", True),
    ("uint(18446744073709549568.0) == 18446744073709549568u", True),  # the largest double below 2^64
    ("uint(18446744073709551616.0) == 0u", folded(UINT_OVERFLOW)),  # 2^64
    ('uint(double("NaN")) == 0u', folded(UINT_OVERFLOW)),
    # reached through dyn, a type no declared overload takes: the dispatcher's decls.MaybeNoSuchOverload
    ("uint(dyn(true)) == 1u", folded("no such overload: uint(bool)")),
    ("int(dyn(true)) == 1 || double(dyn(true)) == 1.0", folded("no such overload: int(bool)")),
    ('string(dyn([1])) == "[1]"', folded("no such overload: string(list)")),
    ('string(dyn(null)) == "null"', folded("no such overload: string(null_type)")),
    ("bool(dyn(1)) || duration(dyn(true)) == duration('1s')", folded("no such overload: bool(int)")),
    ('bytes(dyn([1])) == b"\\x01"', folded("no such overload: bytes(list)")),
    ("int(dyn(b'a')) == 1", folded("no such overload: int(bytes)")),
    # int(uint): past int64's maximum
    ("int(9223372036854775807u) == 9223372036854775807", True),
    ("int(9223372036854775808u) == 0", folded(INT_OVERFLOW)),
    # uint64 arithmetic at its ends, - 1 / = / + 1
    ("18446744073709551614u + 1u == 18446744073709551615u", True),
    ("18446744073709551615u + 1u == 0u", UINT_OVERFLOW),
    ("1u - 1u == 0u", True),
    ("0u - 1u == 0u", UINT_OVERFLOW),
    ("4294967296u * 4294967295u == 18446744069414584320u", True),
    ("4294967296u * 4294967296u == 0u", UINT_OVERFLOW),
    # int64 arithmetic keeps its own text
    ("9223372036854775807 + 1 == 0", INT_OVERFLOW),
    ("-9223372036854775807 - 2 == 0", INT_OVERFLOW),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("expression", "expected"), CASES)
def test_conversions_and_overflow_as_cel_go(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


def test_uint_overflow_from_a_device_value() -> None:
    """The overflow text also when the operand comes from a device (the compiled engine's inline paths)."""
    selector = celext.compile('uint(device.attributes["example.com"].lanes) - 17u == 0u')
    device = {"name": "gpu-0", "attributes": {"example.com/lanes": {"int": 16}}}
    with pytest.raises(celext.EvaluationError, match=r"^unsigned integer overflow$"):
        selector.matches(device, "example.com")
    assert selector.matches({"name": "gpu-1", "attributes": {"example.com/lanes": {"int": 17}}}, "example.com")
