"""`<string>.format(<list>)` as Kubernetes has it: cel-go's strings extension at version 2, whose formatter is
`ext/formatting.go` (strings v4 and later switched to another formatter, the one cel-spec's tests describe).

Clauses: `%s` any value (`null`, a type's name, bytes as text, lists and maps as CEL-like literals: strings
quoted, doubles `%.6f`, timestamps `timestamp("...")`, map entries `key:value` sorted by key text), `%d` ints and
uints, `%f`/`%e` doubles (precision `%.3f`), `%b` ints, uints and bools, `%o` ints and uints, `%x`/`%X` ints, uints,
strings and bytes (hex of the bytes), `%%`. Any other clause, a wrong argument type or too few arguments is an
error, as upstream.
"""

from __future__ import annotations

import math
from typing import Any

from celext import values as celvalues
from celext.goformat import FormatError, FormatFailure, interpolate
from celext.gostrconv import go_quote
from celext.lib.gofloat import go_float
from celext.lib.operators import to_string
from celext.lib.typenames import cel_type_name, type_value_name
from celext.values import CELEvalError


def _type_name(value: Any) -> str:
    return cel_type_name(value)


def as_string(value: Any) -> str:
    """cel-go's `FormatString`: what `%s` prints."""
    if value is None:
        return "null"
    if isinstance(value, celvalues.BoolType):
        return "true" if value else "false"
    if isinstance(value, celvalues.ListType):
        return "[" + ", ".join(_quoted(v, _in_aggregate(v)) for v in value) + "]"
    if isinstance(value, celvalues.MapType):
        return _map_text(value)
    if isinstance(value, celvalues.DoubleType):
        return go_float(float(value))
    if isinstance(value, celvalues.BytesType):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, (celvalues.TimestampType, celvalues.DurationType)):
        return str(to_string(value))  # Go's text (celext.lib.timevalues): "2009-02-13T23:31:30.5Z", "7200.5s"
    if isinstance(value, type):
        return type_value_name(value)
    if isinstance(value, (celvalues.IntType, celvalues.UintType, celvalues.StringType)):
        return str(value)
    raise FormatError(f"string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
                      f"types, durations, and timestamps, was given {_type_name(value)}")


def go_value(value: Any) -> str:
    """Go's `%v` of a CEL value, as cel-go's error texts print one (`no such key: %v`, `join: invalid input: %v`):
    the value's own String() where its Go type has one (time.Time's, time.Duration's, a list's `[a, b]`, a map's
    `{k: v}`, an optional's `optional(v)`, a semver's, an address's), else the Go value itself (`null` is
    types.Null, an int32: `0`; bytes are a []byte: `[104 105]`)."""
    from celext.lib.optional_value import OptionalValue

    if value is None:
        return "0"
    if isinstance(value, celvalues.BoolType):
        return "true" if value else "false"
    if isinstance(value, celvalues.BytesType):
        return "[" + " ".join(str(b) for b in bytes(value)) + "]"
    if isinstance(value, celvalues.TimestampType):
        return _go_time_text(value)
    if isinstance(value, celvalues.DurationType):
        from celext.lib.timevalues import duration_nanos

        return _go_duration_text(duration_nanos(value))
    if isinstance(value, celvalues.ListType):  # baseList.String
        return "[" + ", ".join(go_value(v) for v in value) + "]"
    if isinstance(value, celvalues.MapType):  # baseMap.String (Go's own map order; here the map's)
        return "{" + ", ".join(f"{go_value(k)}: {go_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, OptionalValue):
        return f"optional({go_value(value.value)})" if value.present else "optional.none()"
    try:
        return as_string(value)
    except FormatError:
        return str(value)


def _go_time_text(value: Any) -> str:
    """time.Time.String(): `2006-01-02 15:04:05.999999999 -0700 MST`; a zone of offset 0 is UTC (Go's parse of
    `Z` or `+00:00` where the local zone is UTC), any other a fixed zone without a name, printed as its offset."""
    from celext.gotime import wall_clock
    from celext.lib.timevalues import offset_of, unix_nanos

    unix, offset = unix_nanos(value), offset_of(value)
    seconds, nanos = divmod(unix, 1_000_000_000)
    clock = wall_clock(seconds + offset)
    year = f"-{-clock.year:04d}" if clock.year < 0 else f"{clock.year:04d}"
    fraction = f".{nanos:09d}".rstrip("0") if nanos else ""
    sign, minutes = ("-", -offset // 60) if offset < 0 else ("+", offset // 60)
    zone = f"{sign}{minutes // 60:02d}{minutes % 60:02d}"
    return (f"{year}-{clock.month:02d}-{clock.day:02d} {clock.hour:02d}:{clock.minute:02d}:{clock.second:02d}"
            f"{fraction} {zone} {'UTC' if offset == 0 else zone}")


def _go_duration_text(nanos: int) -> str:
    """time.Duration.String(): `1h2m3.5s`, `1.5ms`, `2µs`, `0s`."""
    sign, u = ("-", -nanos) if nanos < 0 else ("", nanos)
    if u == 0:
        return "0s"
    if u < 1_000_000_000:
        unit, scale = (("ns", 1) if u < 1_000 else ("µs", 1_000) if u < 1_000_000 else ("ms", 1_000_000))
        return sign + _go_fraction(u, scale) + unit
    whole, rest = divmod(u, 1_000_000_000)
    text = _go_fraction(whole % 60 * 1_000_000_000 + rest, 1_000_000_000) + "s"
    minutes = whole // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        if minutes // 60:
            text = f"{minutes // 60}h{text}"
    return sign + text


def _go_fraction(value: int, scale: int) -> str:
    """`value / scale` with the fraction's trailing zeros (and a bare point) left out, as Go's fmtFrac does."""
    whole, rest = divmod(value, scale)
    digits = len(str(scale)) - 1
    fraction = f".{rest:0{digits}d}".rstrip("0") if rest else ""
    return f"{whole}{fraction}"


def _in_aggregate(value: Any) -> str:
    """cel-go's `clauseForType` inside a list or map (before quoting)."""
    if isinstance(value, (celvalues.IntType, celvalues.UintType)) and not isinstance(value, celvalues.BoolType):
        return str(int(value))
    if isinstance(value, celvalues.TimestampType):
        return f"timestamp({go_quote(as_string(value))})"
    if isinstance(value, celvalues.DurationType):
        return f"duration({go_quote(as_string(value))})"
    if isinstance(value, celvalues.DoubleType):
        number = float(value)
        return go_float(number) if not math.isfinite(number) else f"{number:.6f}"
    return as_string(value)


def _quoted(value: Any, text: str) -> str:
    """cel-go's `quoteForCEL`."""
    if isinstance(value, celvalues.StringType):
        return go_quote(text)
    if isinstance(value, celvalues.BytesType):
        return "b" + go_quote(text)
    if isinstance(value, celvalues.DoubleType) and not math.isfinite(float(value)):
        return go_quote(text)
    return text


def _map_text(value: celvalues.MapType) -> str:
    entries = []
    for key, item in value.items():
        if isinstance(key, (celvalues.StringType, celvalues.BoolType)):
            key_text = as_string(key)
        elif isinstance(key, (celvalues.IntType, celvalues.UintType)):
            key_text = str(int(key))
        else:
            raise FormatError(f"no formatting function for map key of type {_type_name(key)}")
        entries.append((_quoted(key, key_text), _quoted(item, _in_aggregate(item))))
    entries.sort(key=lambda entry: entry[0])
    return "{" + ", ".join(f"{k}:{v}" for k, v in entries) + "}"


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _localized(number: float, digits: int, verb: str) -> str:
    """%f and %e as cel-go v2's formatter prints them: through golang.org/x/text's message printer for its
    default locale, en-US: digits grouped by three (`1,234.500000`), and the exponent as `× 10` with superscript
    digits, at least two (`1.234500 × 10⁰³`, narrow no-break spaces around the ×; ext/formatting_test.go)."""
    if verb == "f":
        return format(number, f",.{digits}f")
    mantissa, _, exponent = format(number, f".{digits}e").partition("e")
    power = int(exponent)
    return f"{mantissa}\u202f×\u202f10{'⁻' if power < 0 else ''}{f'{abs(power):02d}'.translate(_SUPERSCRIPT)}"


def _is(value: Any, *kinds: type) -> bool:
    return isinstance(value, kinds) and (celvalues.BoolType in kinds or not isinstance(value, celvalues.BoolType))


def _clause(verb: str, precision: int | None, value: Any) -> str:
    if verb == "s":
        return as_string(value)
    if verb == "d":
        if not _is(value, celvalues.IntType, celvalues.UintType):
            raise FormatError(f"decimal clause can only be used on integers, was given {_type_name(value)}")
        return str(int(value))
    if verb in ("f", "e"):
        name = "fixed-point" if verb == "f" else "scientific"
        special = isinstance(value, celvalues.StringType) and str(value) in ("NaN", "Infinity", "-Infinity")
        if not special and not isinstance(value, celvalues.DoubleType):
            raise FormatError(f"{name} clause can only be used on doubles, was given {_type_name(value)}")
        number = float(str(value).replace("Infinity", "inf")) if special else float(value)
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "∞" if number > 0 else "-∞"
        digits = 6 if precision is None or verb == "e" else precision  # v2 reads `%.3e` as a width
        return _localized(number, digits, verb)
    if verb == "b":
        if not _is(value, celvalues.IntType, celvalues.UintType, celvalues.BoolType):
            raise FormatError(f"only integers and bools can be formatted as binary, was given {_type_name(value)}")
        return format(int(value), "b")
    if verb == "o":
        if not _is(value, celvalues.IntType, celvalues.UintType):
            raise FormatError(f"octal clause can only be used on integers, was given {_type_name(value)}")
        return format(int(value), "o")
    # x or X (goformat.interpolate passes no other verb)
    if isinstance(value, (celvalues.StringType, celvalues.BytesType)):
        raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        text = raw.hex()
    elif _is(value, celvalues.IntType, celvalues.UintType):
        text = format(int(value), "x")
    else:
        raise FormatError(f"only integers, byte buffers, and strings can be formatted as hex, "
                          f"was given {_type_name(value)}")
    return text.upper() if verb == "X" else text


def format_string(template: str, args: celvalues.ListType) -> Any:
    """`template.format(args)`: the string, or a CELEvalError with upstream's text (celext.goformat)."""

    def clause(index: int, verb: str, precision: int | None) -> str:
        try:
            return _clause(verb, precision, args[index])
        except FormatError:
            raise
        except (ValueError, TypeError, OverflowError) as err:  # (a value Python cannot print so large)
            raise FormatError(str(err)) from None

    try:
        text, _used = interpolate(str(template), len(args), clause, arguments_first=True)
    except FormatFailure as failure:
        return CELEvalError(failure.message)
    return celvalues.StringType(text)
