"""includes() and its include() alias: one membership test for scalar and list attributes (KEP-5491).

    <list>.includes(<dyn>) -> bool     true at the first equal element; past 48 elements without a match
                                       it is the runtime error below (upstream checks the index first)
    <scalar>.includes(<dyn>) -> bool   equality; a type mismatch is false, never an error

Mirrors `includesFunc` in k8s.io/dynamic-resource-allocation/cel (overload `dra_includes_dyn_dyn`).
The API server knows only `includes()`; `include()` is the KEP text's spelling, accepted here (draguard's
own choice) so KEP examples evaluate; the selector lint rules warn about it.
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.lib.library import Library, overload
from celext.lib.operators import equal
from celext.values import CELEvalError

SCAN_LIMIT = 48  # ResourceSliceMaxAttributeValuesPerDevice
TOO_LONG = f"'includes' function cannot be applied to lists longer than {SCAN_LIMIT} values"


def includes(target: Any, item: Any) -> Any:
    if isinstance(target, celvalues.ListType):
        for index, element in enumerate(target):
            if index >= SCAN_LIMIT:
                return CELEvalError(TOO_LONG)
            if equal(element, item) is True:
                return celvalues.BoolType(True)
        return celvalues.BoolType(False)
    return celvalues.BoolType(equal(target, item) is True)


def library(*, include_alias: bool = True) -> Library:
    overloads = [overload("includes", "dra_includes_dyn_dyn", (object, object), includes)]
    if include_alias:
        overloads.append(overload("include", "draguard_include_dyn_dyn", (object, object), includes))
    return Library("dra.includes", tuple(overloads))
