"""List functions: the Kubernetes lists library and cel-go's lists extension (version 3).

Kubernetes `library.Lists`:
    <list>.isSorted() -> bool      <list>.sum() -> int|uint|double|duration <list>.min() / .max() -> element
    <list>.indexOf(<elem>) -> int  <list>.lastIndexOf(<elem>) -> int       (-1 when absent)
cel-go `ext.Lists` v3 (Kubernetes >= 1.34):
    <list>.slice(<int>, <int>)  <list>.flatten([<int>])  <list>.distinct()  <list>.reverse()  <list>.sort()
    lists.range(<int>)
`sortBy(x, key)` is a macro: it runs with the other comprehension macros in `celext.reference.macros`.

The Kubernetes functions follow k8s.io/apiserver/pkg/cel/library/lists.go as cel-go runs them on values whose
element type is only known at run time (`dyn(...)`, list attributes):
- the overload is picked by the list's FIRST element (cel-go common/types/types.go
  `defaultIsAssignableRuntimeType` looks at no other; an empty list takes the first overload, int): a first
  element of another type is `no such overload: sum(list)` (common/decls/decls.go `MaybeNoSuchOverload`);
- `sum` starts from that overload's zero and adds with the accumulator's `Add` (`[dyn(1), dyn(2.0)]` is
  `no such overload`; a duration plus a timestamp is a timestamp; overflow is `integer overflow`);
- `isSorted`, `min`, `max` refuse an element that is not comparable (`no such overload`) but ignore a failed
  comparison (`[dyn(1), dyn("a")].max()` is 1, a NaN never wins), as lists.go does with `Compare`'s error.
"""

from __future__ import annotations

from typing import Any

from celext import values as celvalues
from celext.gostrconv import INT64, UINT64_MAX
from celext.lib.gosort import go_sort
from celext.lib.ints import cel_int
from celext.lib.library import Library, no_such_overload, overload
from celext.lib.operators import INT_OVERFLOW, OPERATORS, UINT_OVERFLOW, compare, equal
from celext.lib.timevalues import Duration
from celext.values import CELEvalError

_L = celvalues.ListType
_I = celvalues.IntType
_U = celvalues.UintType
_D = celvalues.DoubleType
_DURATION = celvalues.DurationType
_TIMESTAMP = celvalues.TimestampType

# lists.go `comparableTypes`: also exactly the cel-go types implementing traits.Comparer.
_COMPARABLE = (_I, _U, _D, celvalues.BoolType, _DURATION, _TIMESTAMP, celvalues.StringType, celvalues.BytesType)
# lists.go `summableTypes` in declaration order, each with `zeroValuesOfSummableTypes`.
_SUMMABLE: tuple[tuple[type, Any], ...] = (
    (_I, _I(0)), (_U, _U(0)), (_D, _D(0.0)), (_DURATION, Duration(0)))
_NO_SUCH_OVERLOAD = "no such overload"  # cel-go types.MaybeNoSuchOverloadErr of a plain value


# Element types whose equal elements cannot be told apart and whose CEL order is Python's own: any sort gives Go's
# result. Not doubles (NaN has no order, -0.0 equals 0.0) nor timestamps (equal instants in other zones).
_INDISTINCT = (_I, _U, celvalues.StringType, celvalues.BoolType, celvalues.BytesType, _DURATION)


def cel_less(a: Any, b: Any) -> bool:
    """sortListByAssociatedKeys' `less`: `Compare` is -1 (an error, such as NaN's, is false)."""
    order = compare(a, b)
    return not isinstance(order, CELEvalError) and order == -1


def _ordered(items: _L) -> list[Any]:
    """The elements in the order Go's sort.Slice leaves them (celext.lib.gosort)."""
    if isinstance(items[0], _INDISTINCT):
        return sorted(items)
    result = list(items)
    go_sort(result, cel_less)
    return result


def _is_sorted(items: _L) -> Any:
    """lists.go `isSorted`: false at the first pair whose `Compare` is 1; a failed comparison is passed over."""
    if items and not isinstance(items[0], _COMPARABLE):
        return no_such_overload("isSorted", (items,))
    previous = None
    for item in items:
        if not isinstance(item, _COMPARABLE):
            return CELEvalError(_NO_SUCH_OVERLOAD)
        if previous is not None and compare(previous, item) == 1:
            return celvalues.BoolType(False)
        previous = item
    return celvalues.BoolType(True)


def _add(total: Any, item: Any) -> Any:
    """`total.Add(item)` as cel-go's types do it, for the accumulators `sum` can hold (int, uint, double,
    duration, and a timestamp once a duration met one)."""
    if isinstance(total, _I):
        if not isinstance(item, _I):
            return CELEvalError(_NO_SUCH_OVERLOAD)
        value = int(total) + int(item)
        return cel_int(value) if INT64[0] <= value <= INT64[1] else CELEvalError(INT_OVERFLOW)
    if isinstance(total, _U):
        if not isinstance(item, _U):
            return CELEvalError(_NO_SUCH_OVERLOAD)
        value = int(total) + int(item)
        return int.__new__(_U, value) if value <= UINT64_MAX else CELEvalError(UINT_OVERFLOW)  # (range checked)
    if isinstance(total, _D):
        return _D(float(total) + float(item)) if isinstance(item, _D) else CELEvalError(_NO_SUCH_OVERLOAD)
    if isinstance(total, _DURATION | _TIMESTAMP) and isinstance(item, _DURATION | _TIMESTAMP) \
            and not (isinstance(total, _TIMESTAMP) and isinstance(item, _TIMESTAMP)):
        # Duration.Add / Timestamp.Add, as `+` does them: `integer overflow` past int64 nanoseconds, a timestamp
        # past year 9999 `timestamp overflow`
        return OPERATORS["_+_"](total, item)
    return CELEvalError(_NO_SUCH_OVERLOAD)


def _sum(items: _L) -> Any:
    """lists.go `sum`: the zero of the overload the first element picks, then each element added to it."""
    total = _SUMMABLE[0][1] if not items else next((z for k, z in _SUMMABLE if isinstance(items[0], k)), None)
    if total is None:
        return no_such_overload("sum", (items,))
    for item in items:
        total = _add(total, item)
        if isinstance(total, CELEvalError):
            return total
    return total


def _extreme(name: str, prefer: int) -> Any:
    """lists.go `cmp`: keep the first element, replace it by the next one when `Compare` answers `prefer`."""

    def fn(items: _L) -> Any:
        if items and not isinstance(items[0], _COMPARABLE):
            return no_such_overload(name, (items,))
        best = None
        for item in items:
            if not isinstance(item, _COMPARABLE):
                return CELEvalError(_NO_SUCH_OVERLOAD)
            if best is None or compare(best, item) == prefer:
                best = item
        return CELEvalError(f"{name} called on empty list") if best is None else best

    return fn


def _index_of(items: _L, item: Any) -> Any:
    for i, element in enumerate(items):
        if equal(element, item) is True:
            return cel_int(i)
    return cel_int(-1)


def _last_index_of(items: _L, item: Any) -> Any:
    for i in range(len(items) - 1, -1, -1):
        if equal(items[i], item) is True:
            return cel_int(i)
    return cel_int(-1)


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
    """cel-go's sortListByAssociatedKeys: the first element must have an order (a version, a quantity, a list has
    none), then every element its type."""
    if not items:
        return items
    if not isinstance(items[0], _COMPARABLE):
        return CELEvalError("list elements must be comparable")
    if len({type(i) for i in items}) > 1:
        return CELEvalError("list elements must have the same type")
    return _L(_ordered(items))


def _range(n: int) -> Any:
    if n > 1_000_000:
        return CELEvalError("lists.range: size exceeds the supported maximum of 1000000")
    return _L(cel_int(i) for i in range(max(int(n), 0)))


def library() -> Library:
    return Library("kubernetes.lists+ext.lists", (
        overload("isSorted", "list_is_sorted", (_L,), _is_sorted),
        overload("sum", "list_sum", (_L,), _sum),
        overload("min", "list_min", (_L,), _extreme("min", 1)),
        overload("max", "list_max", (_L,), _extreme("max", -1)),
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
