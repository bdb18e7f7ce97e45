"""celext.values: the CEL value classes both engines compute with (what cel-python's celtypes did for celext)."""

from __future__ import annotations

import datetime
import math

import pytest

from celext.values import (
    FALSE,
    TRUE,
    BoolType,
    BytesType,
    CELEvalError,
    DoubleType,
    DurationType,
    IntType,
    ListType,
    MapType,
    StringType,
    TimestampType,
    TypeType,
    UintOverflow,
    UintType,
)

INT64_MAX, INT64_MIN, UINT64_MAX = 2**63 - 1, -(2**63), 2**64 - 1


def test_int64_limits_at_each_side() -> None:
    assert IntType(INT64_MAX - 1) + IntType(1) == IntType(INT64_MAX)
    with pytest.raises(ValueError, match="overflow"):
        IntType(INT64_MAX) + IntType(1)
    assert IntType(INT64_MIN + 1) - IntType(1) == IntType(INT64_MIN)
    with pytest.raises(ValueError, match="overflow"):
        IntType(INT64_MIN) - IntType(1)
    with pytest.raises(ValueError, match="overflow"):
        -IntType(INT64_MIN)
    with pytest.raises(ValueError, match="overflow"):
        IntType(INT64_MAX + 1)
    assert IntType(INT64_MIN) == IntType(INT64_MIN)


def test_uint64_limits_raise_their_own_overflow() -> None:
    assert UintType(UINT64_MAX - 1) + UintType(1) == UintType(UINT64_MAX)
    with pytest.raises(UintOverflow, match="overflow"):
        UintType(UINT64_MAX) + UintType(1)
    with pytest.raises(UintOverflow):
        UintType(0) - UintType(1)
    with pytest.raises(UintOverflow):
        UintType(-1)
    with pytest.raises(TypeError):
        -UintType(1)


def test_int_division_and_remainder_truncate_as_go() -> None:
    assert (IntType(-7) / IntType(2), IntType(-7) % IntType(2)) == (IntType(-3), IntType(-1))
    assert (IntType(7) / IntType(-2), IntType(7) % IntType(-2)) == (IntType(-3), IntType(1))
    assert type(IntType(7) / IntType(2)) is IntType
    with pytest.raises(ZeroDivisionError):
        IntType(1) / IntType(0)
    with pytest.raises(TypeError):
        IntType(1) + DoubleType(1.0)


def test_doubles_divide_by_zero_to_infinity_and_refuse_modulus() -> None:
    assert DoubleType(1.0) / DoubleType(0.0) == DoubleType(math.inf)
    with pytest.raises(TypeError):
        DoubleType(1.0) % DoubleType(1.0)
    assert type(-DoubleType(1.5)) is DoubleType


def test_numbers_of_different_kinds_refuse_to_compare() -> None:
    for a, b in ((IntType(1), UintType(1)), (IntType(1), DoubleType(1.0)), (UintType(1), DoubleType(1.0))):
        with pytest.raises(TypeError, match="no such overload"):
            _ = a == b
    with pytest.raises(TypeError):
        _ = IntType(1) < UintType(2)


def test_bools_are_two_singletons() -> None:
    assert BoolType(True) is TRUE and BoolType("false") is FALSE and BoolType(None) is FALSE
    assert (repr(TRUE), str(FALSE), int(TRUE)) == ("BoolType(True)", "False", 1)
    with pytest.raises(TypeError):
        _ = -TRUE


def test_lists_compare_element_by_element() -> None:
    assert ListType([IntType(1)]) == ListType([IntType(1)])
    assert ListType([IntType(1)]) != ListType([IntType(1), IntType(2)])
    assert ListType([IntType(1)]).__eq__(None) is False  # (CEL's null)
    # an unequal pair decides; otherwise a pair that cannot be compared is an error
    unequal_pair = ListType([IntType(1), StringType("a")]).__eq__(ListType([UintType(1), StringType("b")]))
    assert unequal_pair is False
    with pytest.raises(TypeError):
        _ = ListType([IntType(1)]) == ListType([UintType(1)])
    with pytest.raises(TypeError):
        _ = ListType([]) == MapType()
    with pytest.raises(TypeError):
        _ = ListType([]) < ListType([])


def test_maps_from_pairs_or_mappings_with_cel_keys_only() -> None:
    built = MapType([(StringType("a"), IntType(1))])
    assert built == MapType({StringType("a"): IntType(1)})
    with pytest.raises(ValueError, match="Duplicate key"):
        MapType([(StringType("a"), IntType(1)), (StringType("a"), IntType(2))])
    with pytest.raises(TypeError, match="unsupported key type"):
        built[DoubleType(1.0)]
    with pytest.raises(KeyError):
        built.get(StringType("b"))
    assert repr(built) == "MapType({StringType('a'): IntType(1)})"


def test_texts_and_conversions() -> None:
    assert (repr(IntType(-3)), str(UintType(3)), repr(DoubleType(0.5))) == ("IntType(-3)", "3", "DoubleType(0.5)")
    assert (StringType(b"\xc3\xa9"), BytesType("é")) == ("é", b"\xc3\xa9")
    assert IntType("0x10") == IntType(16) and IntType(-2.7) == IntType(-2) and UintType("0X10") == UintType(16)
    assert str(TimestampType("2024-01-02T03:04:05Z")) == "2024-01-02T03:04:05Z"
    assert str(TimestampType(datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone(datetime.timedelta(hours=1))))) \
        == "2024-01-02T00:00:00+01:00"
    assert str(DurationType(90)) == "90s"
    with pytest.raises(ValueError, match="range error"):
        DurationType(315_576_000_001)
    assert TypeType(IntType(1)) is IntType and TypeType(IntType) is TypeType


def test_an_error_value_absorbs_arithmetic_and_compares_by_text() -> None:
    error = CELEvalError("division by zero")
    assert -error is error and error + IntType(1) is error and error() is error
    assert error == CELEvalError("division by zero") and error != CELEvalError("other")
    assert repr(error) == "CELEvalError(*('division by zero',))"
