"""Consumable capacity (DRAConsumableCapacity): does a device have room for a request's capacity.

Mirrors `structured/internal/experimental/consumable_capacity.go` (`CmpRequestOverCapacity`,
`requestsContainNonExistCapacity`, `calculateConsumedCapacity`, `fillEmptyRequest`, `roundUpRange`,
`roundUpValidValues`, `violatesPolicy`): every capacity the device publishes is consumed, by the
requested amount rounded up by the device's request policy, or else by the policy default or the whole
value; the sum with what earlier requests of the claim took from a shareable device must not pass the
value. Capacity names are map keys compared exactly, as upstream does: a request for
`gpu.example.com/memory` does not find a device capacity published as `memory` (nor the reverse), and a
request naming a capacity the device does not have skips the device.
Arithmetic is exact decimal (upstream switches between int64 and milli-value paths and aborts on values
they cannot represent; draguard does not model those aborts).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_CEILING, Decimal
from typing import Any

from celext.quantity import parse_quantity

Obj = Mapping[str, Any]
Consumed = dict[str, Decimal]  # fully qualified capacity name -> amount


def quantity(value: Any) -> Decimal | None:
    """A wire quantity (string or number) as an exact decimal, or None when it is not one."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    try:
        return parse_quantity(value).value
    except ValueError:
        return None


def _map(value: Any) -> Obj:
    return value if isinstance(value, Mapping) else {}


def device_capacity(device: Obj) -> dict[str, Obj]:
    """The device's capacities by name, exactly as published (upstream map keys)."""
    return {name: _map(spec) for name, spec in _map(device.get("capacity")).items() if isinstance(name, str)}


def _round_up(requested: Decimal, policy: Obj) -> Decimal:
    valid_range = _map(policy.get("validRange"))
    low = quantity(valid_range.get("min"))
    if low is not None:
        if requested < low:
            return low
        step = quantity(valid_range.get("step"))
        if step is None or step <= 0:
            return requested
        steps = ((requested - low) / step).to_integral_value(rounding=ROUND_CEILING)
        return low + step * steps
    values = policy.get("validValues")
    if isinstance(values, list) and values:
        for value in (quantity(v) for v in values):
            if value is not None and requested <= value:
                return value
    return requested


def _violates(amount: Decimal, policy: Obj) -> bool:
    if not policy:
        return False
    if quantity(policy.get("default")) == amount:
        return False
    valid_range = _map(policy.get("validRange"))
    if valid_range:
        high, step, low = (quantity(valid_range.get(k)) for k in ("max", "step", "min"))
        if high is not None and amount > high:
            return True
        return step is not None and step > 0 and (amount - (low or Decimal(0))) % step != 0
    values = policy.get("validValues")
    if isinstance(values, list) and values:
        return all(quantity(v) != amount for v in values)
    return False


def consume(requests: Obj, device: Obj, driver: str, taken: Consumed | None = None) -> Consumed | str:
    """What the device gives this request, or why it cannot (a one-line reason)."""
    published = device_capacity(device)
    wanted: dict[str, Decimal] = {}
    for name, value in requests.items():
        key = str(name)
        if key not in published:  # requestsContainNonExistCapacity: exact keys
            other = key.partition("/")[2] if "/" in key else f"{driver}/{key}"
            hint = (f" (it publishes {other}; the allocator compares capacity names exactly)"
                    if other in published else "")
            return f"publishes no capacity {name}{hint}"
        amount = quantity(value)
        if amount is None:
            return f"capacity request {name}: {value!r} is not a quantity"
        wanted[key] = amount
    consumed: Consumed = {}
    for key, spec in published.items():
        total, policy = quantity(spec.get("value")), _map(spec.get("requestPolicy"))
        if total is None:
            continue
        if key in wanted:
            amount = _round_up(wanted[key], policy) if policy else wanted[key]
        else:
            amount = quantity(policy.get("default"))
            amount = total if amount is None else amount
        if _violates(amount, policy):
            return f"{key}: {show_amount(amount)} is not allowed by the device's request policy"
        already = (taken or {}).get(key, Decimal(0))
        if already + amount > total:
            used = f" ({show_amount(already)} already taken by this claim)" if already else ""
            return f"{key}: needs {show_amount(amount)}, the device has {show_amount(total)}{used}"
        consumed[key] = amount
    return consumed


def show_amount(amount: Decimal) -> str:
    """The shortest exact spelling: `64Gi`, `6G`, `1500m`."""
    forms = [f"{amount.normalize():f}"]
    units = (("Ti", Decimal(2) ** 40), ("Gi", Decimal(2) ** 30), ("Mi", Decimal(2) ** 20), ("Ki", Decimal(1024)),
             ("T", Decimal(10) ** 12), ("G", Decimal(10) ** 9), ("M", Decimal(10) ** 6), ("k", Decimal(1000)),
             ("m", Decimal("0.001")))
    for suffix, unit in units:
        if amount and amount % unit == 0:
            forms.append(f"{(amount / unit).normalize():f}{suffix}")
    return min(forms, key=len)
