"""Device capacity, mirroring upstream `validateMultiAllocatableCapacityMap` / `validateRequestPolicy` (v1.36).

A `requestPolicy` is only allowed on a device with `allowMultipleAllocations: true`. With one, exactly
one of `validValues` (at most 10, unique, ascending, each <= the capacity, containing `default`) and
`validRange` (`min` required; min, default, max within the capacity; step > 0; default and max reachable
from min in whole steps).

Limitation: upstream prints quantities in canonical form (`1024Mi` as `1Gi`); draguard prints them as written.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

from celext.quantity import Quantity, is_quantity, parse_quantity
from webhook.fieldpath import FieldPath
from webhook.rules import k8s_ids as ids
from webhook.rules.k8s_errors import duplicate, forbidden, invalid, required, too_many, type_invalid
from webhook.rules.k8s_ids import Errors, tag
from webhook.rules.k8s_names import qualified_name_ok, truncate_if_too_long, validate_qualified_name
from webhook.rules.k8s_wire import as_map, get_list, get_map, wrong_type

MAX_VALID_VALUES = 10  # CapacityRequestPolicyDiscreteMaxOptions
MAX_KEY_LENGTH = 63 + 1 + 32
ZERO = parse_quantity("0")
DEFAULT_NOT_VALID = "default value is not valid according to the requestPolicy"
BOTH_POLICIES = 'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time'


def quantity_at(errs: Errors, obj: Mapping[str, Any], key: str, path: FieldPath) -> Quantity | None:
    """obj[key] as a Quantity; None when absent; a value the decoder refuses is reported (k8s-wire-type)."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        wrong_type(errs, value, path.child(key), "quantity string")
        return None
    text = value if isinstance(value, str) else repr(value)
    try:
        return parse_quantity(text)
    except ValueError as err:
        errs.append((ids.WIRE_TYPE, type_invalid(path.child(key), text, str(err))))
        return None


def validate_capacity_map(capacity: Mapping[str, Any], multiple: bool, path: FieldPath, errs: Errors) -> None:
    """1.36 has no update exemption for capacity (the fractional-range one came later), so no old object."""
    for key, item in capacity.items():
        if not qualified_name_ok(key):
            errs += tag(ids.QUALIFIED_NAME, validate_qualified_name(key, path))
        if type(item) is dict and len(item) == 1 and type(item.get("value")) is str and is_quantity(item["value"]):
            continue  # the common case: a plain, valid capacity value
        key_path = path.key(truncate_if_too_long(key, MAX_KEY_LENGTH))
        entry = as_map(errs, item, key_path)
        value = quantity_at(errs, entry, "value", key_path) or ZERO
        policy = get_map(errs, entry, "requestPolicy", key_path)
        if policy is None:
            continue
        policy_path = key_path.child("requestPolicy")
        if not multiple:
            errs.append((ids.CAPACITY, forbidden(policy_path, "allowMultipleAllocations must be true")))
        else:
            _validate_request_policy(value, policy, policy_path, errs)


def _validate_request_policy(maximum: Quantity, policy: Mapping[str, Any], path: FieldPath, errs: Errors) -> None:
    raw_values = get_list(errs, policy, "validValues", path) or []
    valid_range = get_map(errs, policy, "validRange", path)
    default = quantity_at(errs, policy, "default", path)
    if raw_values and valid_range is not None:
        errs.append((ids.CAPACITY, forbidden(path, BOTH_POLICIES)))
    elif raw_values:
        if default is None:
            errs.append((ids.CAPACITY, required(path.child("default"), "required when validValues is defined")))
        else:
            _validate_valid_values(default, maximum, raw_values, path.child("validValues"), errs)
    elif valid_range is not None:
        if default is None:
            errs.append((ids.CAPACITY, required(path.child("default"), "required when validRange is defined")))
        else:
            _validate_range(default, maximum, valid_range, path.child("validRange"), errs)


def _validate_valid_values(
    default: Quantity, maximum: Quantity, raw: list[Any], path: FieldPath, errs: Errors
) -> None:
    values: list[Quantity | None] = []
    for i, item in enumerate(raw):
        values.append(quantity_at(errs, {"v": item}, "v", path.index(i)) if item is not None else None)
    options = [(i, v) for i, v in enumerate(values) if v is not None]
    for (_, a), (j, b) in itertools.pairwise(options):
        if a.compare(b) > 0:
            errs.append((ids.CAPACITY, invalid(path.index(j), str(b), "values must be sorted in ascending order")))
    found = False
    if len(raw) > MAX_VALID_VALUES:
        errs.append((ids.CAPACITY, too_many(path, len(raw), MAX_VALID_VALUES)))
    else:
        seen: set[str] = set()
        for i, option in options:
            if option.compare(maximum) > 0:
                errs.append((ids.CAPACITY, invalid(
                    path.index(i), str(option), f"option is larger than capacity value: {maximum}")))
            found = found or option.compare(default) == 0
            key = format(option.value.normalize(), "f")
            if key in seen:
                errs.append((ids.CAPACITY, duplicate(path.index(i), key)))
            seen.add(key)
    if not found:
        errs.append((ids.CAPACITY, invalid(path, str(default), DEFAULT_NOT_VALID)))


def _validate_range(
    default: Quantity, maximum: Quantity, valid_range: Mapping[str, Any], path: FieldPath, errs: Errors
) -> None:
    low = quantity_at(errs, valid_range, "min", path)
    high = quantity_at(errs, valid_range, "max", path)
    step = quantity_at(errs, valid_range, "step", path)
    if low is None:
        errs.append((ids.CAPACITY, required(path.child("min"), "required when validRange is defined")))
        return
    found: list[tuple[FieldPath, str, str]] = []
    if low.compare(maximum) > 0:
        found.append((path.child("min"), str(low), f"min is larger than capacity value: {maximum}"))
    if default.compare(low) < 0:
        found.append((path.child("min"), str(default), f"default is less than min: {low}"))
    if high is not None:
        if low.compare(high) > 0:
            found.append((path.child("max"), str(low), f"min is larger than max: {high}"))
        if high.compare(maximum) > 0:
            found.append((path.child("max"), str(high), f"max is larger than capacity value: {maximum}"))
        if default.compare(high) > 0:
            found.append((path.child("max"), str(default), f"default is more than max: {high}"))
    if step is not None:
        if step.sign() <= 0:
            found.append((path.child("step"), str(step), "must be greater than zero"))
        else:
            added = low.add(step)
            if added.compare(maximum) > 0:
                found.append((path.child("step"), str(step),
                              f"one step {_plain(added)} is larger than capacity value: {maximum}"))
            for value in (default, high):
                if value is not None and (_int_value(value) - _int_value(low)) % _int_value(step) != 0:
                    found.append((path.child("step"), str(value),
                                  f"value is not a multiple of a given step ({step}) from ({low})"))
    errs += [(ids.CAPACITY, invalid(p, v, d)) for p, v, d in found]


def _int_value(q: Quantity) -> int:
    """Upstream Quantity.Value(): the value rounded up to an integer."""
    return math.ceil(q.value)


def _plain(q: Quantity) -> str:
    return str(q) if q.text else format(q.value.normalize(), "f")
