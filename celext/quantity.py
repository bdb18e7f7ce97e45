"""Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource.Quantity`): parse and compare exactly.

Syntax (`ParseQuantity`): an optional sign, digits with an optional fraction (`1.`, `.5`, even a bare sign
are accepted upstream), then one suffix: decimal SI (`n u m "" k M G T P E`), binary SI
(`Ki Mi Gi Ti Pi Ei`) or a decimal exponent (`e3`, `E-2`). Values are exact decimals; like upstream, a
non-zero magnitude is rounded up (away from zero) to nano precision and binary-SI values are capped at
2^63-1. Upstream also keeps an int64 fast-path representation that decides `isInteger()`/`asInteger()`
(`quantity("1000m").isInteger()` is false there); `int64_scale` mirrors it.
No CEL evaluation in here: the ResourceSlice rules use it directly (`QuantityPointer` only marks what the CEL
library's add()/sub() return, for celext.lib.operators.equal).
"""

from __future__ import annotations

import decimal
import functools
from decimal import Decimal

from msgspec import Struct

# Exact arithmetic: comparisons of Decimals are always exact; sums need enough digits, set per operation.
_CTX = decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, rounding=decimal.ROUND_HALF_EVEN,
                       traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow])
_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)
_NANO = -9
_MAX_DIGITS = 10_000  # draguard's own bound on exact arithmetic (upstream uses unbounded big ints)

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR = "unable to parse quantity's suffix"
NUMERIC_ERROR = "unable to parse numeric part of quantity"

_DECIMAL_SI = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SI = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")


@functools.total_ordering
class Quantity(Struct, frozen=True, eq=False):
    """An exact quantity. `int64_scale` is the upstream int64 fast-path scale, or None for its inf.Dec form."""

    value: Decimal
    int64_scale: int | None = 0
    text: str = ""

    def compare(self, other: Quantity) -> int:
        return (self.value > other.value) - (self.value < other.value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def as_int64(self) -> int | None:
        """Upstream `AsInt64`: only the int64 representation with a non-negative scale converts."""
        if self.int64_scale is None or self.int64_scale < 0:
            return None
        if self.value.adjusted() > 18:
            return None
        number = int(self.value)
        return number if _INT64_MIN <= number <= _INT64_MAX else None

    def as_approximate_float(self) -> float:
        try:
            return float(self.value)
        except OverflowError:  # float() of a huge Decimal gives inf normally; keep the guard for safety
            return float("inf") if self.value > 0 else float("-inf")

    def add(self, other: Quantity) -> Quantity:
        return _combine(self, other, negate=False)

    def sub(self, other: Quantity) -> Quantity:
        return _combine(self, other, negate=True)

    def __str__(self) -> str:
        return self.text or format(self.value.normalize(_CTX), "f")

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


def _combine(a: Quantity, b: Quantity, *, negate: bool) -> Quantity:
    """Exact a + b or a - b; ValueError when the result would need more than _MAX_DIGITS digits."""
    low = min(int(a.value.as_tuple().exponent), int(b.value.as_tuple().exponent))
    span = max(a.value.adjusted(), b.value.adjusted()) - low
    if span > _MAX_DIGITS:
        raise ValueError(f"quantity arithmetic needs more than {_MAX_DIGITS} digits")
    with decimal.localcontext(_CTX) as ctx:
        ctx.prec = span + 5
        value = a.value - b.value if negate else a.value + b.value
    scale: int | None = None
    if a.int64_scale is not None and b.int64_scale is not None:
        # int64Amount.Add works at the smaller scale and falls back to inf.Dec on overflow.
        scale = min(a.int64_scale, b.int64_scale)
        if not _INT64_MIN <= value.scaleb(-scale, _CTX) <= _INT64_MAX:
            scale = None
    return Quantity(value, scale)


class QuantityPointer(Quantity, frozen=True, eq=False):
    """A quantity as the CEL library's `add()` and `sub()` return it. Upstream returns a `*cel.Quantity` there where
    every other quantity is a `cel.Quantity` value, and `cel.Quantity.Equal` takes only the value: so CEL `==` with
    such a result on its right (`q == q2.add(1)`) is `no such overload` in Kubernetes (celext.lib.operators.equal).
    In every other respect it is the quantity it holds."""


def pointer(q: Quantity) -> QuantityPointer:
    return QuantityPointer(q.value, q.int64_scale, q.text)


def from_int(number: int) -> Quantity:
    """`resource.NewQuantity(n, DecimalExponent)`, used by `add(int)` / `sub(int)`."""
    return Quantity(Decimal(number), 0)


def _split(text: str) -> tuple[bool, str, str, str]:
    """Upstream `parseQuantityString`: sign, integer digits (leading zeros dropped), fraction digits, suffix."""
    positive, pos, end = True, 0, len(text)
    if text[0] in "+-":
        positive = text[0] == "+"
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    denom = ""
    if pos < end and text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise ValueError(FORMAT_ERROR)
    return positive, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) of a suffix, or ValueError(SUFFIX_ERROR)."""
    if suffix in _DECIMAL_SI:
        return 10, _DECIMAL_SI[suffix], "DecimalSI"
    if suffix in _BINARY_SI:
        return 2, _BINARY_SI[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = suffix[1:]
        body = exponent[1:] if exponent[0] in "+-" else exponent
        if body and set(body) <= _DIGITS and len(body.lstrip("0")) <= 10 and -(2**31) <= int(exponent) < 2**31:
            return 10, int(exponent), "DecimalExponent"
    raise ValueError(SUFFIX_ERROR)


@functools.lru_cache(maxsize=4096)
def parse_quantity(text: str) -> Quantity:
    """Parse a Kubernetes quantity ("16Gi", "1.5", "100m", "1e3"); ValueError carries the upstream message."""
    if not text:
        raise ValueError(FORMAT_ERROR)
    positive, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret(suffix)
    sign = 1 if positive else -1
    # Upstream's int64 fast path: few enough digits, scale not below nano, no binary fraction.
    if base == 10 and len(num) + len(denom) <= 18 and exponent - len(denom) >= _NANO:
        scale = exponent - len(denom)
        return Quantity(Decimal(sign * int(num + denom)).scaleb(scale, _CTX), scale, text)
    if base == 2 and not denom and 15 - len(num) - int(exponent * 3 / 10) - 1 >= 0:
        value = int(num) << exponent
        if value <= _INT64_MAX:
            return Quantity(Decimal(sign * value), 0, text)
    magnitude = Decimal(f"{num}.{denom or '0'}")
    if base == 10:
        with decimal.localcontext(_CTX) as ctx:  # exact, as upstream's inf.Dec: every written digit kept
            ctx.prec = max(ctx.prec, len(num) + len(denom) + 1)
            magnitude = magnitude.scaleb(exponent)
    else:
        with decimal.localcontext(_CTX) as ctx:
            ctx.prec = len(num) + len(denom) + 40
            magnitude = magnitude * (1 << exponent)
    if magnitude != 0 and int(magnitude.as_tuple().exponent) < _NANO:
        with decimal.localcontext(_CTX) as ctx:
            ctx.prec = max(magnitude.adjusted() + 20, 20)
            magnitude = magnitude.quantize(Decimal("1e-9"), rounding=decimal.ROUND_UP)
    if fmt == "BinarySI" and magnitude > _INT64_MAX:
        magnitude = Decimal(_INT64_MAX)
    return Quantity(magnitude if positive else -magnitude, None, text)


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except ValueError:
        return False
    return True
