"""Device capacity, mirroring upstream `validateMultiAllocatableCapacityMap` / `validateRequestPolicy`.

A `requestPolicy` is only allowed on a device with `allowMultipleAllocations: true`. With one, exactly
one of `validValues` (at most 10, unique, ascending, each <= the capacity, containing `default`) and
`validRange` (`min` required; min, default, max within the capacity; step > 0; default and max reachable
from min in whole steps).

With `DRAFractionalCapacityRange` (1.37, beta, on) a range with a fractional bound, step or default is
checked in milli-units (each value must be a whole number of milli-units: "value cannot be represented as a
milli value"), and validValues are unique by exact value; without it, step arithmetic and uniqueness use
`Quantity.Value()` (rounded up to an integer), so `0.5` and `1` are duplicates.

Quantities in messages are printed in upstream's canonical form (`Quantity.String()`: `1024Mi` as `1Gi`,
`1000` as `1k`, `0.5` as `500m`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from celext.quantity import Quantity, is_quantity, parse_quantity
from webhook.fieldpath import FieldPath
from webhook.profiles import Profile, load_profile
from webhook.rules.k8s import ids
from webhook.rules.k8s.decode import INT64_MAX, decode_item_map, decode_list, decode_map, unknown_fields, wrong_type
from webhook.rules.k8s.errors import duplicate, forbidden, invalid, required, too_many, type_invalid
from webhook.rules.k8s.ids import Errors, tag
from webhook.rules.k8s.names import key_error_path, qualified_name_ok, truncate_if_too_long, validate_qualified_name

CAPACITY_FIELDS = frozenset({"value", "requestPolicy"})
POLICY_FIELDS = frozenset({"default", "validValues", "validRange"})
MAX_VALID_VALUES = 10  # CapacityRequestPolicyDiscreteMaxOptions
MAX_KEY_LENGTH = 63 + 1 + 32
ZERO = parse_quantity("0")
NOT_SORTED = "values must be sorted in ascending order"
DEFAULT_NOT_VALID = "default value is not valid according to the requestPolicy"
BOTH_POLICIES = 'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time'


def quantity_at(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath) -> Quantity | None:
    """obj[key] as a Quantity; None when absent; a value the decoder refuses is reported (k8s-wire-type)."""
    value = obj.get(key)
    return None if value is None else quantity_value(errs, value, path.child(key))


def quantity_value(errs: Errors, value: Any, path: FieldPath) -> Quantity | None:
    """A decoded wire value as a Quantity, or None with the decoder's refusal reported at `path`."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        wrong_type(errs, value, path, "quantity string")
        return None
    text = value if isinstance(value, str) else repr(value)
    try:
        return parse_quantity(text)
    except ValueError as err:
        errs.append((ids.WIRE_TYPE, type_invalid(path, text, str(err))))
        return None


def validate_capacity_map(
    capacity: Mapping[str, Any], multiple: bool, path: FieldPath, errs: Errors, profile: Profile | None = None
) -> None:
    """No update exemption: unchanged capacity is validated again (see docs/rules.md, left out)."""
    profile = profile or load_profile()
    for key, item in capacity.items():
        if not qualified_name_ok(key):
            at = key_error_path(path, key, MAX_KEY_LENGTH, profile)
            errs += tag(ids.QUALIFIED_NAME, validate_qualified_name(key, at, profile.qualified_name_empty))
        if type(item) is dict and len(item) == 1 and type(item.get("value")) is str and is_quantity(item["value"]):
            continue  # the common case: a plain, valid capacity value
        key_path = path.key(truncate_if_too_long(key, MAX_KEY_LENGTH))
        entry = decode_item_map(errs, item, key_path)
        unknown_fields(errs, entry, _capacity_fields(profile.version), key_path)
        value = quantity_at(errs, entry, "value", key_path) or ZERO
        policy = decode_map(errs, entry, "requestPolicy", key_path)
        if policy is None:
            continue
        unknown_fields(errs, policy, POLICY_FIELDS, key_path.child("requestPolicy"))
        policy_path = key_path.child("requestPolicy")
        if not multiple:
            errs.append((ids.CAPACITY, forbidden(policy_path, "allowMultipleAllocations must be true")))
        else:
            _validate_request_policy(value, policy, policy_path, errs, profile)


@functools.cache
def _capacity_fields(version: str) -> frozenset[str]:
    return frozenset({"value"} | load_profile(version).field_names("capacity"))


def _validate_request_policy(
    maximum: Quantity, policy: Mapping[str, Any], path: FieldPath, errs: Errors, profile: Profile
) -> None:
    fractional = profile.enabled("DRAFractionalCapacityRange")
    raw_values = decode_list(errs, policy, "validValues", path) or []
    valid_range = decode_map(errs, policy, "validRange", path)
    default = quantity_at(errs, policy, "default", path)
    if raw_values and valid_range is not None:
        errs.append((ids.CAPACITY, forbidden(path, BOTH_POLICIES)))
    elif raw_values:
        if default is None:
            errs.append((ids.CAPACITY, required(path.child("default"), "required when validValues is defined")))
        else:
            _validate_valid_values(default, maximum, raw_values, path.child("validValues"), errs, fractional=fractional,
                                   short_circuit=profile.short_circuit_max_items)
    elif valid_range is not None:
        if default is None:
            errs.append((ids.CAPACITY, required(path.child("default"), "required when validRange is defined")))
        else:
            _validate_range(default, maximum, valid_range, path.child("validRange"), errs, fractional=fractional,
                            profile=profile)


def _validate_valid_values(
    default: Quantity, maximum: Quantity, raw: list[Any], path: FieldPath, errs: Errors, *, fractional: bool,
    short_circuit: bool = True,
) -> None:
    """validateRequestPolicyValidValues: the order, validateSet (options, at most 10, unique), the default. Over the
    limit, 1.35+ reports TooMany alone (no option seen: the default is not found either); 1.34 (`short_circuit`
    False) checks every option, then TooMany, then the duplicates."""
    values: list[Quantity | None] = []
    for i, item in enumerate(raw):  # a null option is Quantity's zero: its UnmarshalJSON reads null as 0
        values.append(quantity_value(errs, item, path.index(i)) if item is not None else ZERO)
    options = [(i, v) for i, v in enumerate(values) if v is not None]
    for (_, a), (j, b) in itertools.pairwise(options):
        if a.compare(b) > 0:
            errs.append((ids.CAPACITY, invalid(path.index(j), canonical(b), NOT_SORTED)))
    found = False
    if short_circuit and len(raw) > MAX_VALID_VALUES:
        errs.append((ids.CAPACITY, too_many(path, len(raw), MAX_VALID_VALUES)))
    else:
        seen: set[str] = set()
        repeated: Errors = errs if short_circuit else []  # 1.34: the duplicates after TooMany
        for i, option in options:
            if option.compare(maximum) > 0:
                errs.append((ids.CAPACITY, invalid(
                    path.index(i), canonical(option), f"option is larger than capacity value: {canonical(maximum)}")))
            found = found or option.compare(default) == 0
            # quantityKeyAsDec with the gate (inf.Dec's text: `1` and `1.0` differ, `1k` and `1000` do not),
            # quantityKeyInt (Value(), rounded up) without it
            key = option.dec_text() if fractional else str(_int_value(option))
            if key in seen:
                repeated.append((ids.CAPACITY, duplicate(path.index(i), key)))
            seen.add(key)
        if not short_circuit:
            if len(raw) > MAX_VALID_VALUES:
                errs.append((ids.CAPACITY, too_many(path, len(raw), MAX_VALID_VALUES)))
            errs += repeated
    if not found:
        errs.append((ids.CAPACITY, invalid(path, canonical(default), DEFAULT_NOT_VALID)))


def _validate_range(
    default: Quantity, maximum: Quantity, valid_range: Mapping[str, Any], path: FieldPath, errs: Errors, *,
    fractional: bool, profile: Profile,
) -> None:
    low = quantity_at(errs, valid_range, "min", path)
    high = quantity_at(errs, valid_range, "max", path)
    step = quantity_at(errs, valid_range, "step", path)
    if low is None:
        errs.append((ids.CAPACITY, required(path.child("min"), "required when validRange is defined")))
        return
    found: list[tuple[FieldPath, str, str]] = []
    cap, lo, default_text = canonical(maximum), canonical(low), canonical(default)
    if low.compare(maximum) > 0:
        found.append((path.child("min"), lo, f"min is larger than capacity value: {cap}"))
    below, above = ("default", "default") if profile.range_default_path == "default" else ("min", "max")
    if default.compare(low) < 0:
        found.append((path.child(below), default_text, f"default is less than min: {lo}"))
    if high is not None:
        hi = canonical(high)
        if low.compare(high) > 0:
            found.append((path.child("max"), lo, f"min is larger than max: {hi}"))
        if high.compare(maximum) > 0:
            found.append((path.child("max"), hi, f"max is larger than capacity value: {cap}"))
        if default.compare(high) > 0:
            found.append((path.child(above), default_text, f"default is more than max: {hi}"))
    milli = fractional and any(_fractional(q) for q in (low, high, step, default) if q is not None)
    if milli:
        named = (("default", default), ("min", low), ("max", high), ("step", step))
        unsafe = [(path.child(n), canonical(q), NOT_MILLI) for n, q in named if q is not None and not _whole_milli(q)]
        if unsafe:  # upstream returns here: the milli arithmetic would be wrong
            errs += [(ids.CAPACITY, invalid(p, v, d)) for p, v, d in found + unsafe]
            return
    if step is not None:
        step_text = canonical(step)
        if step.sign() == 0 or (step.sign() < 0 and profile.range_step_positive):
            # Before 1.37 the server has no such check: a negative step passes, a zero one makes validation divide
            # by zero (kubernetes#139653), an internal error: still refused, reported here in 1.37's words.
            found.append((path.child("step"), step_text, "must be greater than zero"))
        else:
            added = low.add(step)
            if added.compare(maximum) > 0:
                # Go's Quantity.Add keeps the receiver's format (min's), or the addend's when min is zero
                form = _format_of((step if low.sign() == 0 else low).text)
                found.append((path.child("step"), step_text,
                              f"one step {canonical(added, form)} is larger than capacity value: {cap}"))
            # 1.37 reads an integer range with Quantity.Value() only where that holds the bound: [0, MaxInt64]
            named = (("default", default), ("min", low), ("max", high), ("step", step))
            unsafe = [(path.child(n), canonical(q), NEGATIVE if q.sign() < 0 else OVER_INT64)
                      for n, q in named if q is not None and not _in_int64(q)] \
                if profile.range_bounds_int64 and not milli else []
            found += unsafe
            scaled = _milli_value if milli else _int_value
            for value in (default, high) if not unsafe else ():
                if value is not None and (scaled(value) - scaled(low)) % scaled(step) != 0:
                    found.append((path.child("step"), canonical(value),
                                  f"value is not a multiple of a given step ({step_text}) from ({lo})"))
    errs += [(ids.CAPACITY, invalid(p, v, d)) for p, v, d in found]


NOT_MILLI = "value cannot be represented as a milli value"
NEGATIVE = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg
OVER_INT64 = f"must not be larger than {INT64_MAX}"


def _in_int64(q: Quantity) -> bool:
    """In [0, MaxInt64], where upstream's Quantity.Value() reads the bound back as it is."""
    return 0 <= q.value <= INT64_MAX


def _fractional(q: Quantity) -> bool:
    """isFractionalQuantity: the value has digits after the decimal point."""
    return q.value != q.value.to_integral_value(rounding="ROUND_DOWN")


def _whole_milli(q: Quantity) -> bool:
    """The quantity equals NewMilliQuantity(q.MilliValue()): a whole number of milli-units."""
    scaled = q.value * 1000
    return scaled == scaled.to_integral_value()


def _milli_value(q: Quantity) -> int:
    """Upstream Quantity.MilliValue(): the value in milli-units, rounded up."""
    return math.ceil(q.value * 1000)


def _int_value(q: Quantity) -> int:
    """Upstream Quantity.Value(): the value rounded up to an integer."""
    return math.ceil(q.value)


_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIX = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def canonical(q: Quantity, form: str | None = None) -> str:
    """Upstream `Quantity.String()` (CanonicalizeBytes): the format of the written suffix, smallest mantissa.

    Binary SI stays binary when the value is a whole number of at least 1024 in magnitude; otherwise
    decimal SI with the exponent a multiple of 3; an `e` exponent stays an exponent.
    """
    value = q.value
    if value == 0:
        return "0"
    form = form or _format_of(q.text)
    # (digits as text, never a Python int's str(): a quantity may have more digits than Python prints as an int)
    if form == "BinarySI" and abs(value) >= 1024 and value == value.to_integral_value():
        number, exponent = abs(int(value)), 0
        while number % 1024 == 0 and exponent < len(_BINARY_SUFFIX) - 1:
            number, exponent = number // 1024, exponent + 1
        return f"{'-' if value < 0 else ''}{Decimal(number)}{_BINARY_SUFFIX[exponent]}"
    sign, digits, exp = value.as_tuple()
    written = "".join(map(str, digits))
    mantissa = written.rstrip("0")
    exponent = int(exp) + len(written) - len(mantissa)
    shift = exponent % 3  # lower the exponent to a multiple of 3, as upstream does
    mantissa, exponent = mantissa + "0" * shift, exponent - shift
    if form == "DecimalExponent":
        suffix = f"e{exponent}" if exponent else ""
    else:
        suffix = _DECIMAL_SUFFIX.get(exponent, f"e{exponent}")
    return f"{'-' if sign else ''}{mantissa}{suffix}"


def _format_of(text: str) -> str:
    suffix = text.lstrip("+-").lstrip("0123456789.")
    if suffix in _BINARY_SUFFIX[1:]:
        return "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        return "DecimalExponent"
    return "DecimalSI"
