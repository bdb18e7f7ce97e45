"""Optional values (cel-go `cel.OptionalTypes`, in the Kubernetes base environment since 1.28).

    <map>.?<field>, <map>[?<key>], <list>[?<index>] -> optional   (the syntax; evaluated in celext.reference.evaluator)
    optional.of(<dyn>) / optional.none() / optional.ofNonZeroValue(<dyn>) -> optional
    <optional>.hasValue() -> bool          <optional>.value() -> dyn  (`optional.none() dereference` when empty)
    <optional>.orValue(<dyn>) -> dyn       <optional>.or(<optional>) -> optional
    <optional>.optMap(x, <expr>), <optional>.optFlatMap(x, <expr>)   (macros; celext.reference.macros)
    <list>.first() / <list>.last() -> optional      (version 2: none for an empty list)
    optional.unwrap(<list of optionals>) / <list of optionals>.unwrapOpt() -> list   (the values present;
        an element that is not an optional is `value <v> is not optional`)
This is what the allocator's own hint suggests for a missing attribute:
`device.attributes["d"].?id.orValue(false)`. Optional list elements and map entries (`[?x]`, `{?k: v}`) are
not supported (cel-python's grammar has no room for them).
"""

from __future__ import annotations

import datetime
from typing import Any

from celext import values as celvalues
from celext.lib.format import go_value
from celext.lib.library import Library, no_such_overload, overload
from celext.lib.optional_value import NONE, OptionalValue, of
from celext.lib.timevalues import duration_nanos, unix_nanos
from celext.values import CELEvalError

_L = celvalues.ListType
_ZERO_TYPES = (celvalues.BoolType, celvalues.IntType, celvalues.UintType, celvalues.DoubleType, celvalues.StringType,
               celvalues.BytesType, celvalues.ListType, celvalues.MapType)


# Go's zero time.Time, January 1 of year 1, 00:00:00 UTC, in nanoseconds since the Unix epoch
_GO_ZERO_TIME = -62_135_596_800 * 10**9


def _of_non_zero(value: Any) -> OptionalValue:
    """cel-go's IsZeroValue: empty or zero scalars and aggregates, a zero duration, and Go's zero time (year 1, not
    the Unix epoch). `device.attributes` and `device.capacity` are never zero: upstream they are the DRA compiler's
    `mapper`, which embeds only traits.Mapper and so is no traits.Zeroer."""
    from celext.reference.values import DomainMap

    if value.__class__ is DomainMap:
        return of(value)
    if value is None or (isinstance(value, _ZERO_TYPES) and not value):
        return NONE
    if isinstance(value, datetime.timedelta) and duration_nanos(value) == 0:
        return NONE
    if isinstance(value, datetime.datetime) and unix_nanos(value) == _GO_ZERO_TIME:
        return NONE
    return of(value)


def _value(optional: OptionalValue) -> Any:
    return optional.value if optional.present else CELEvalError("optional.none() dereference")


def _unwrap(name: str) -> Any:
    """cel-go optUnwrap behind its runtime type guard, which looks at the first element only (common/types
    defaultIsAssignableRuntimeType): `no such overload: <name>(list)` when that one is not an optional."""
    def unwrap(items: celvalues.ListType) -> Any:
        if items and not isinstance(items[0], OptionalValue):
            return no_such_overload(name, (items,))
        return _unwrapped(items)
    return unwrap


def _unwrapped(items: celvalues.ListType) -> Any:
    """cel-go optUnwrap: the values of the optionals that hold one, in order."""
    values: list[Any] = []
    for item in items:
        if not isinstance(item, OptionalValue):
            return CELEvalError(f"value {go_value(item)} is not optional")
        if item.present:
            values.append(item.value)
    return celvalues.ListType(values)


def library() -> Library:
    o = OptionalValue
    return Library("cel.optional", (
        overload("optional.of", "optional_of", (object,), of, member=False),
        overload("optional.none", "optional_none", (), lambda: NONE, member=False),
        overload("optional.ofNonZeroValue", "optional_of_non_zero_value", (object,), _of_non_zero, member=False),
        overload("hasValue", "optional_has_value", (o,), lambda v: celvalues.BoolType(v.present)),
        overload("value", "optional_value", (o,), _value),
        overload("orValue", "optional_or_value", (o, object), lambda v, other: v.value if v.present else other),
        overload("or", "optional_or_optional", (o, o), lambda v, other: v if v.present else other),
        overload("first", "list_first", (_L,), lambda items: of(items[0]) if items else NONE),
        overload("last", "list_last", (_L,), lambda items: of(items[-1]) if items else NONE),
        overload("optional.unwrap", "optional_unwrap", (_L,), _unwrap("optional.unwrap"), member=False),
        overload("unwrapOpt", "optional_unwrapOpt", (_L,), _unwrap("unwrapOpt")),
    ))
