"""List functions: the Kubernetes lists library and cel-go's lists extension (version 3).

Kubernetes `library.Lists`:
    <list>.isSorted() -> bool      <list>.sum() -> int|double|duration     <list>.min() / .max() -> element
    <list>.indexOf(<elem>) -> int  <list>.lastIndexOf(<elem>) -> int       (-1 when absent)
cel-go `ext.Lists` v3 (Kubernetes >= 1.34):
    <list>.slice(<int>, <int>)  <list>.flatten([<int>])  <list>.distinct()  <list>.reverse()  <list>.sort()
    lists.range(<int>)
`sortBy(x, key)` is a macro: it runs with the other comprehension macros in `celext.reference.macros`.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from celext.lib.library import Library, overload
from celext.lib.operators import compare, equal

_L = celtypes.ListType
_I = celtypes.IntType


def _ordered(items: _L) -> list[Any] | CELEvalError:
    """The elements sorted by CEL ordering, or an error when two of them have no order."""
    failure: list[CELEvalError] = []

    def cmp(a: Any, b: Any) -> int:
        order = compare(a, b)
        if isinstance(order, CELEvalError):
            failure.append(order)
            return 0
        return 0 if order == 2 else order

    result = sorted(items, key=functools.cmp_to_key(cmp))
    return failure[0] if failure else result


def _is_sorted(items: _L) -> Any:
    for a, b in itertools.pairwise(items):
        order = compare(a, b)
        if isinstance(order, CELEvalError):
            return order
        if order == 1:
            return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _sum(items: _L) -> Any:
    if not items:
        return _I(0)
    total: Any = items[0]
    item: Any
    for item in items[1:]:
        if type(item) is not type(total):
            return CELEvalError("no such overload")
        total = type(total)(total + item)
    return total


def _extreme(name: str, pick: int) -> Any:
    def fn(items: _L) -> Any:
        if not items:
            return CELEvalError(f"{name} called on empty list")
        best = items[0]
        for item in items[1:]:
            order = compare(item, best)
            if isinstance(order, CELEvalError):
                return order
            if order == pick:
                best = item
        return best

    return fn


def _index_of(items: _L, item: Any) -> Any:
    for i, element in enumerate(items):
        if equal(element, item) is True:
            return _I(i)
    return _I(-1)


def _last_index_of(items: _L, item: Any) -> Any:
    for i in range(len(items) - 1, -1, -1):
        if equal(items[i], item) is True:
            return _I(i)
    return _I(-1)


def _slice(items: _L, start: int, end: int) -> Any:
    if start < 0 or end < 0:
        return CELEvalError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        return CELEvalError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(items):
        return CELEvalError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return _L(items[start:end])


def _flatten(items: _L, depth: int = 1) -> Any:
    if depth < 0:
        return CELEvalError("level must be non-negative")
    out: list[Any] = []
    for item in items:
        if isinstance(item, _L) and depth > 0:
            out.extend(_flatten(item, depth - 1))
        else:
            out.append(item)
    return _L(out)


def _distinct(items: _L) -> Any:
    out: list[Any] = []
    for item in items:
        if not any(equal(seen, item) is True for seen in out):
            out.append(item)
    return _L(out)


def _sort(items: _L) -> Any:
    kinds = {type(i) for i in items}
    if len(kinds) > 1:
        return CELEvalError("list elements must have the same type")
    ordered = _ordered(items)
    return ordered if isinstance(ordered, CELEvalError) else _L(ordered)


def _range(n: int) -> Any:
    if n > 1_000_000:
        return CELEvalError("lists.range: size exceeds the supported maximum of 1000000")
    return _L(_I(i) for i in range(max(int(n), 0)))


def library() -> Library:
    return Library("kubernetes.lists+ext.lists", (
        overload("isSorted", "list_is_sorted", (_L,), _is_sorted),
        overload("sum", "list_sum", (_L,), _sum),
        overload("min", "list_min", (_L,), _extreme("min", -1)),
        overload("max", "list_max", (_L,), _extreme("max", 1)),
        overload("indexOf", "list_index_of", (_L, object), _index_of),
        overload("lastIndexOf", "list_last_index_of", (_L, object), _last_index_of),
        overload("slice", "list_slice", (_L, _I, _I), _slice),
        overload("flatten", "list_flatten", (_L,), _flatten),
        overload("flatten", "list_flatten_int", (_L, _I), _flatten),
        overload("distinct", "list_distinct", (_L,), _distinct),
        overload("reverse", "list_reverse", (_L,), lambda items: _L(reversed(items))),
        overload("sort", "list_sort", (_L,), _sort),
        overload("lists.range", "lists_range", (_I,), _range, member=False),
    ))
