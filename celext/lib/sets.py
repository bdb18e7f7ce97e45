"""cel-go's sets extension (`ext.Sets`), part of the Kubernetes base environment.

    sets.contains(<list>, <list>) -> bool     every element of the second list is in the first
    sets.equivalent(<list>, <list>) -> bool   both lists hold the same elements (duplicates ignored)
    sets.intersects(<list>, <list>) -> bool   at least one common element
The dotted names are kept as written: celext's compiler turns `sets.contains(a, b)` into a call of the
function named "sets.contains" (cel-python would read it as a method on a variable `sets`).
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.lib.library import Library, overload
from celext.lib.operators import equal

_L = celvalues.ListType


def _has(items: _L, item: Any) -> bool:
    return any(equal(element, item) is True for element in items)


def _contains(a: _L, b: _L) -> Any:
    return celvalues.BoolType(all(_has(a, item) for item in b))


def library() -> Library:
    return Library("ext.sets", (
        overload("sets.contains", "list_sets_contains_list", (_L, _L), _contains, member=False),
        overload("sets.equivalent", "list_sets_equivalent_list", (_L, _L),
                 lambda a, b: celvalues.BoolType(bool(_contains(a, b)) and bool(_contains(b, a))), member=False),
        overload("sets.intersects", "list_sets_intersects_list", (_L, _L),
                 lambda a, b: celvalues.BoolType(any(_has(a, item) for item in b)), member=False),
    ))
