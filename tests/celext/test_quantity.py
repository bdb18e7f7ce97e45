"""celext.quantity: Kubernetes resource.Quantity syntax and exact comparison."""

from __future__ import annotations

import math
import re
from decimal import Decimal

import pytest

from celext.quantity import FORMAT_ERROR, NUMERIC_ERROR, SUFFIX_ERROR, from_int, go_pow10, is_quantity, parse_quantity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("16Gi", 16 * 2**30), ("1Ki", 1024), ("1Ei", 2**60), ("8Gi", 8 * 2**30), ("16384Mi", 16 * 2**30),
        ("17179869184", 17179869184), ("32G", 32 * 10**9), ("1k", 1000), ("1M", 10**6), ("1E", 10**18),
        ("100m", Decimal("0.1")), ("1n", Decimal("1e-9")), ("5u", Decimal("5e-6")), ("1.5", Decimal("1.5")),
        ("1e3", 1000), ("1E3", 1000), ("2e-3", Decimal("0.002")), ("+5k", 5000), ("-1.5Gi", -1610612736),
        (".5", Decimal("0.5")), ("1.", 1), ("0", 0), ("000", 0), ("1.5Ki", 1536),
        # upstream parseQuantityString quirks: no digits at all reads as zero
        (".", 0), ("-", 0), ("Gi", 0),
        # ... as long as the int64 fast path takes it: binary up to Ti, decimal down to nano (e-9)
        ("Ti", 0), ("-.Ti", 0), ("e-9", 0), (".n", 0), ("0Ei", 0), ("0e-10", 0), ("+.0e-10", 0),
    ],
)
def test_valid_quantities(text: str, value: int | Decimal) -> None:
    assert parse_quantity(text).value == value
    assert is_quantity(text)


def test_sub_nano_values_round_up_away_from_zero() -> None:
    assert parse_quantity("0.0000000001").value == Decimal("1e-9")
    assert parse_quantity("-0.0000000001").value == Decimal("-1e-9")
    assert parse_quantity("1.0000000001").value == Decimal("1.000000001")


def test_binary_si_is_capped_at_int64_max() -> None:
    assert parse_quantity("100000000Ei").value == 2**63 - 1


@pytest.mark.parametrize(
    ("text", "message"),
    [("", FORMAT_ERROR), ("1x", FORMAT_ERROR), ("Gi1", SUFFIX_ERROR), ("1 Gi", FORMAT_ERROR),
     ("1mi", SUFFIX_ERROR), ("1e", SUFFIX_ERROR), ("1k2", SUFFIX_ERROR), ("1KB", FORMAT_ERROR), ("1K", SUFFIX_ERROR),
     # no digit, and past the int64 fast path (Pi/Ei: too little precision left; e-10: below nano): upstream reads
     # the number with inf.Dec's SetString, which finds no digit
     ("Pi", NUMERIC_ERROR), ("Ei", NUMERIC_ERROR), ("-.Ei", NUMERIC_ERROR), ("+Pi", NUMERIC_ERROR),
     ("e-10", NUMERIC_ERROR), (".e-10", NUMERIC_ERROR), ("-E-10", NUMERIC_ERROR), ("+.e-99", NUMERIC_ERROR)],
)
def test_invalid_quantities(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        parse_quantity(text)
    assert not is_quantity(text)


def test_comparison_is_exact_across_suffixes() -> None:
    assert parse_quantity("200M") == parse_quantity("0.2G")
    assert parse_quantity("1Gi") > parse_quantity("1000M")
    assert parse_quantity("50M").compare(parse_quantity("50Mi")) == -1
    assert parse_quantity("1024Mi") == parse_quantity("1Gi")
    assert hash(parse_quantity("1024Mi")) == hash(parse_quantity("1Gi"))
    # A float would lose the last unit here; Decimal does not.
    assert parse_quantity("9007199254740993").compare(parse_quantity("9007199254740992")) == 1


@pytest.mark.parametrize(
    ("text", "integer"),
    # Upstream AsInt64 converts only its int64 representation with a non-negative scale.
    [("1k", 1000), ("1Ki", 1024), ("5", 5), ("1.5", None), ("1000m", None), ("1.5Ki", None),
     ("123456789012345678901", None), ("1e999999999", None)],
)
def test_as_int64_mirrors_upstream_representation(text: str, integer: int | None) -> None:
    assert parse_quantity(text).as_int64() == integer


def test_arithmetic_and_float() -> None:
    assert parse_quantity("50k").add(parse_quantity("20k")) == parse_quantity("70k")
    assert parse_quantity("50k").sub(from_int(20000)) == parse_quantity("30k")
    assert parse_quantity("50k").add(from_int(20)).as_int64() == 50020
    assert parse_quantity("100m").as_approximate_float() == 0.1
    assert parse_quantity("-3").sign() == -1 and parse_quantity("0").sign() == 0
    with pytest.raises(ValueError, match="more than 10000 digits"):
        parse_quantity("1e999999").add(parse_quantity("1n"))


@pytest.mark.parametrize(("n", "expected"), [
    (0, 1.0), (-1, 0.1), (31, 1e31), (32, 1e32), (-32, 1e-32), (308, 1e308), (309, math.inf),
    (-323, 1e-323), (-324, 0.0), (-3, 1 / 1e3),
])
def test_go_pow10_is_the_table_product_go_computes(n: int, expected: float) -> None:
    assert go_pow10(n) == expected


def test_go_pow10_differs_from_the_correctly_rounded_power_where_go_does() -> None:
    # 10**-23 as Go computes it: 1e-0 / 1e23 (both exact doubles), one ulp off the nearest double of 1e-23
    assert go_pow10(-23) == 1 / 1e23 != 1e-23


@pytest.mark.parametrize(("text", "value"), [
    ("1e2147483647", Decimal("1e2147483647")),  # int32's largest: as written
    ("1e4294967296", Decimal(1)),  # 2**32 wraps to 0 (suffix.go: int32(ParseInt(..., 64)))
    ("1e4294967297", Decimal(10)),
    ("1e9223372036854775807", Decimal("0.1")),  # int64's largest wraps to -1
])
def test_an_exponent_past_int32_wraps_as_upstream(text: str, value: Decimal) -> None:
    assert parse_quantity(text).value == value


def test_an_exponent_past_int64_is_no_suffix() -> None:
    assert not is_quantity("1e9223372036854775808")


@pytest.mark.parametrize(("text", "dec"), [
    ("0", "0"), ("1", "1"), ("1.0", "1.0"), ("0.0", "0.0"), ("500m", "0.500"), ("0.5", "0.5"), ("-0.5", "-0.5"),
    ("2000m", "2.000"), ("1k", "1000"), ("-1k", "-1000"), ("1e3", "1000"), ("1Gi", "1073741824"),
    # past the int64 fast path: inf.Dec, rounded up to nano scale (values checked against Go's gopkg.in/inf.v0)
    ("1.5Gi", "1610612736.000000000"), ("1Ei", "1152921504606846976.000000000"), ("0.000000000001", "0.000000001"),
    ("12345678901234567890", "12345678901234567890.000000000"),
])
def test_dec_text_is_upstream_as_dec_string(text: str, dec: str) -> None:
    """`Quantity.AsDec().String()` (validValues' key with DRAFractionalCapacityRange) keeps the representation's
    scale: equal values written at another scale are other texts."""
    assert parse_quantity(text).dec_text() == dec
