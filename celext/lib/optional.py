"""Optional values (cel-go `cel.OptionalTypes`, in the Kubernetes base environment since 1.28).

    <map>.?<field>, <map>[?<key>], <list>[?<index>] -> optional   (the syntax; evaluated in celext.reference.evaluator)
    optional.of(<dyn>) / optional.none() / optional.ofNonZeroValue(<dyn>) -> optional
    <optional>.hasValue() -> bool          <optional>.value() -> dyn  (`optional.none() dereference` when empty)
    <optional>.orValue(<dyn>) -> dyn       <optional>.or(<optional>) -> optional
    <optional>.optMap(x, <expr>), <optional>.optFlatMap(x, <expr>)   (macros; celext.reference.macros)
This is what the allocator's own hint suggests for a missing attribute:
`device.attributes["d"].?id.orValue(false)`. Optional list elements and map entries (`[?x]`, `{?k: v}`) are
not supported (cel-python's grammar has no room for them).
"""

from __future__ import annotations

from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from celext.lib.library import Library, overload
from celext.lib.optional_value import NONE, OptionalValue, of

_ZERO_TYPES = (celtypes.BoolType, celtypes.IntType, celtypes.UintType, celtypes.DoubleType, celtypes.StringType,
               celtypes.BytesType, celtypes.ListType, celtypes.MapType)


def _of_non_zero(value: Any) -> OptionalValue:
    if value is None or (isinstance(value, _ZERO_TYPES) and not value):
        return NONE
    return of(value)


def _value(optional: OptionalValue) -> Any:
    return optional.value if optional.present else CELEvalError("optional.none() dereference")


def library() -> Library:
    o = OptionalValue
    return Library("cel.optional", (
        overload("optional.of", "optional_of", (object,), of, member=False),
        overload("optional.none", "optional_none", (), lambda: NONE, member=False),
        overload("optional.ofNonZeroValue", "optional_of_non_zero_value", (object,), _of_non_zero, member=False),
        overload("hasValue", "optional_has_value", (o,), lambda v: celtypes.BoolType(v.present)),
        overload("value", "optional_value", (o,), _value),
        overload("orValue", "optional_or_value", (o, object), lambda v, other: v.value if v.present else other),
        overload("or", "optional_or_optional", (o, o), lambda v, other: v if v.present else other),
    ))
