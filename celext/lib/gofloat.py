"""A double as Go writes it, which is how cel-go turns one into text (`string()`, `format("%s")`)."""

from __future__ import annotations

import math
from decimal import Decimal


def go_float(number: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64): the shortest digits that read back as the same double, in exponent
    form when the decimal exponent is below -4 or at least 6 (Go fixes 6 for the shortest precision)."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    shortest = Decimal(repr(number)).normalize()  # repr is the shortest round-trip text
    sign, digits, exponent = shortest.as_tuple()
    assert isinstance(exponent, int)  # finite
    point = len(digits) + exponent - 1  # the decimal exponent of the first digit
    if number == 0 or -4 <= point < 6:
        return format(shortest, "f")
    mantissa = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
    return f"{'-' if sign else ''}{mantissa}e{'-' if point < 0 else '+'}{abs(point):02d}"


def go_fixed(number: float) -> str:
    """strconv.FormatFloat(f, 'f', -1, 64) of a finite double: the shortest round-trip digits, never an exponent."""
    return format(Decimal(repr(number)).normalize(), "f")
