"""Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource.Quantity`): parse and compare exactly.

Syntax (`ParseQuantity`): an optional sign, digits with an optional fraction (`1.`, `.5`, even no digit at all
where upstream's int64 fast path reads it, as zero: `Gi` is 0, `Pi` and `e-10` are refused), then one suffix:
decimal SI (`n u m "" k M G T P E`), binary SI (`Ki Mi Gi Ti Pi Ei`) or a decimal exponent (`e3`, `E-2`).
Values are exact decimals; like upstream, a non-zero magnitude is rounded up (away from zero) to nano
precision and binary-SI values are capped at 2^63-1. Upstream also keeps an int64 fast-path representation
that decides `isInteger()`/`asInteger()` (`quantity("1000m").isInteger()` is false there); `int64_scale`
mirrors it, and `dec_scale` the scale of its inf.Dec form otherwise. Both representations decide what
`asApproximateFloat()` rounds to (upstream multiplies the unscaled value by `math.Pow10(exponent)`:
`quantity("0.3")` gives 0.30000000000000004) and what add() and sub() keep (int64Amount.Add returns an operand
unchanged when the other is zero).
No CEL evaluation in here: the ResourceSlice rules use it directly (`QuantityPointer` only marks what the CEL
library's add()/sub() return, for celext.lib.operators.equal).
"""

from __future__ import annotations

import decimal
import functools
import math
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
    """An exact quantity. `int64_scale` is the upstream int64 fast-path scale, or None for its inf.Dec form,
    whose scale (digits after the point: value = unscaled / 10**dec_scale) is `dec_scale`."""

    value: Decimal
    int64_scale: int | None = 0
    text: str = ""
    dec_scale: int = 9  # a parsed non-zero quantity's inf.Dec form is rounded to nano (scale 9)

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
        """Upstream AsApproximateFloat64: the unscaled value as a double times math.Pow10(exponent)."""
        exponent = -self.dec_scale if self.int64_scale is None else self.int64_scale
        unscaled = self._unscaled()
        try:
            base = float(unscaled)
        except OverflowError:  # big.Float.Float64 gives an infinity
            base = math.inf if unscaled > 0 else -math.inf
        return base if exponent == 0 else base * go_pow10(exponent)

    def _unscaled(self) -> int:
        """The integer the representation holds (value * 10**-scale)."""
        scale = -self.dec_scale if self.int64_scale is None else self.int64_scale
        return int(self.value.scaleb(-scale, _CTX))

    @property
    def inf_scale(self) -> int:
        """The scale of this quantity as an inf.Dec (`int64Amount.AsDec` negates the int64 scale)."""
        return self.dec_scale if self.int64_scale is None else -self.int64_scale

    def dec_text(self) -> str:
        """Upstream `AsDec().String()`: inf.Dec's text of this representation, which keeps the written scale, so
        equal values can differ (`1` is "1", `1.0` "1.0", `500m` "0.500", `1k` "1000")."""
        unscaled, scale = self._unscaled(), self.inf_scale
        digits = f"{Decimal(abs(unscaled))}"  # (Decimal: an int may have more digits than Python prints)
        sign = "-" if unscaled < 0 else ""
        if scale <= 0:
            return sign + digits + ("0" * -scale if unscaled else "")
        digits = digits.rjust(scale + 1, "0")
        return f"{sign}{digits[:-scale]}.{digits[-scale:]}"

    def add(self, other: Quantity) -> Quantity:
        return _combine(self, other, negate=False)

    def sub(self, other: Quantity) -> Quantity:
        return _combine(self, other, negate=True)

    def __str__(self) -> str:
        return self.text or format(self.value.normalize(_CTX), "f")

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


def _combine(a: Quantity, b: Quantity, *, negate: bool) -> Quantity:
    """Exact a + b or a - b in upstream's representation (Quantity.Add/Sub); ValueError when the result would need
    more than _MAX_DIGITS digits."""
    if a.int64_scale is not None and b.int64_scale is not None:
        fast = _int64_add(a, b, negate=negate)
        if fast is not None:
            return fast
    low = min(int(a.value.as_tuple().exponent), int(b.value.as_tuple().exponent))
    span = max(a.value.adjusted(), b.value.adjusted()) - low
    if span > _MAX_DIGITS:
        raise ValueError(f"quantity arithmetic needs more than {_MAX_DIGITS} digits")
    with decimal.localcontext(_CTX) as ctx:
        ctx.prec = span + 5
        value = a.value - b.value if negate else a.value + b.value
    # inf.Dec's Add and Sub keep the larger scale of the two
    return Quantity(value, None, dec_scale=max(a.inf_scale, b.inf_scale))


def _int64_add(a: Quantity, b: Quantity, *, negate: bool) -> Quantity | None:
    """int64Amount.Add (Sub adds the negated value): an operand returned unchanged when the other is zero, else the
    sum at the smaller scale; None where an int64 overflows on the way (the caller goes to inf.Dec)."""
    assert a.int64_scale is not None and b.int64_scale is not None
    a_value, b_value = a._unscaled(), b._unscaled()
    if negate:
        b_value = -b_value
        if b_value > _INT64_MAX:  # -mostNegative: exact through inf.Dec (Go's int64 would wrap)
            return None
    if b_value == 0:
        return Quantity(a.value, a.int64_scale)
    if a_value == 0:
        return Quantity(Decimal(b_value).scaleb(b.int64_scale, _CTX), b.int64_scale)
    scale = min(a.int64_scale, b.int64_scale)
    a_value *= 10 ** (a.int64_scale - scale)  # positiveScaleInt64: the operand at the larger scale is rescaled
    b_value *= 10 ** (b.int64_scale - scale)
    total = a_value + b_value
    if not (_INT64_MIN <= a_value <= _INT64_MAX and _INT64_MIN <= b_value <= _INT64_MAX
            and _INT64_MIN <= total <= _INT64_MAX):
        return None
    return Quantity(Decimal(total).scaleb(scale, _CTX), scale)


# math.Pow10 as Go computes it: a table product or quotient, not the correctly rounded power (10**-1 is 1/10 there).
_POW10 = tuple(float(f"1e{i}") for i in range(32))
_POW10_UP = tuple(float(f"1e{32 * i}") for i in range(10))
_POW10_DOWN = tuple(float(f"1e-{32 * i}") for i in range(11))


def go_pow10(n: int) -> float:
    if 0 <= n <= 308:
        return _POW10_UP[n // 32] * _POW10[n % 32]
    if -323 <= n <= 0:
        return _POW10_DOWN[-n // 32] / _POW10[-n % 32]
    return math.inf if n > 0 else 0.0


class QuantityPointer(Quantity, frozen=True, eq=False):
    """A quantity as the CEL library's `add()` and `sub()` return it. Upstream returns a `*cel.Quantity` there where
    every other quantity is a `cel.Quantity` value, and `cel.Quantity.Equal` takes only the value: so CEL `==` with
    such a result on its right (`q == q2.add(1)`) is `no such overload` in Kubernetes (celext.lib.operators.equal).
    In every other respect it is the quantity it holds."""


def pointer(q: Quantity) -> QuantityPointer:
    return QuantityPointer(q.value, q.int64_scale, q.text, q.dec_scale)


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
        # strconv.ParseInt(_, 10, 64), then int32(parsed): an exponent past int32 wraps (`1e4294967296` is 1e0)
        if body and set(body) <= _DIGITS and len(body.lstrip("0")) <= 19 and _INT64_MIN <= int(exponent) <= _INT64_MAX:
            return 10, (int(exponent) + 2**31) % 2**32 - 2**31, "DecimalExponent"
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
    # upstream reads the written number with inf.Dec's SetString here, which refuses one without a digit
    # (`Pi`, `-.Ei`, `e-10`: the int64 fast path above is what lets `Gi` or `.` read as zero)
    if not _DIGITS.intersection(text[:len(text) - len(suffix)]):
        raise ValueError(NUMERIC_ERROR)
    magnitude = Decimal(f"{num}.{denom or '0'}")
    if base == 10:
        with decimal.localcontext(_CTX) as ctx:  # exact, as upstream's inf.Dec: every written digit kept
            ctx.prec = max(ctx.prec, len(num) + len(denom) + 1)
            magnitude = magnitude.scaleb(exponent)
    else:
        with decimal.localcontext(_CTX) as ctx:
            ctx.prec = len(num) + len(denom) + 40
            magnitude = magnitude * (1 << exponent)
    # inf.Dec's scale: the fraction digits written, less the decimal exponent; a non-zero value is then rounded to
    # nano (scale 9), and a binary-SI value over the cap is set to the cap (scale 0)
    scale = len(denom) - (exponent if base == 10 else 0)
    if magnitude != 0:
        scale = -_NANO
        if int(magnitude.as_tuple().exponent) < _NANO:
            with decimal.localcontext(_CTX) as ctx:
                ctx.prec = max(magnitude.adjusted() + 20, 20)
                magnitude = magnitude.quantize(Decimal("1e-9"), rounding=decimal.ROUND_UP)
    if fmt == "BinarySI" and magnitude > _INT64_MAX:
        magnitude, scale = Decimal(_INT64_MAX), 0
    return Quantity(magnitude if positive else -magnitude, None, text, scale)


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except ValueError:
        return False
    return True
