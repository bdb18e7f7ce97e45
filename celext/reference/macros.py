"""Comprehension macros with the results and errors cel-go's expansions give.

cel-go expands each macro into a comprehension (an accumulator, a step per element, a result); celext
runs the same steps directly, one iteration variable slot (or two) rebound per element:

- `all` / `exists` (one or two variables): `accu && p` / `accu || p`; an error or a non-bool is absorbed by
  a later decisive element, else it is the result;
- `exists_one` / `existsOne`: counts, no short-circuit, so any error is the result;
- `map(x, t)`, `map(x, f, t)`, `filter(x, f)`, `transformList(i, v, [f,] t)`: lists; an error is the result;
- `transformMap(k, v, [f,] t)`: a map from each key (list: index) to `t`;
- `transformMapEntry(k, v, [f,] m)`: the union of the maps `m`, `insert failed: key K already exists` on a
  repeated key;
- `sortBy(x, key)`: the list sorted by the keys, which must be comparable values of one type, as Go's
  sort.Slice sorts (stable up to 12 elements only);
- `optMap(x, e)` / `optFlatMap(x, e)` on an optional: none stays none, else optional.of(e) / e.
Two variables bind (index, element) on a list and (key, value) on a map; one variable binds the element
(list) or the key (map).

`run` is the one statement of these semantics: the reference engine hands it parse trees to visit, the compact
form of the compiled engine (celext.plan.closures) its closures, each with its own way to bind the variables.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from celext import values as celvalues
from celext.lib.gosort import go_sort
from celext.lib.ints import cel_int
from celext.lib.lists import cel_less
from celext.lib.operators import compare
from celext.lib.optional_value import OptionalValue, of
from celext.values import CELEvalError

Body = TypeVar("Body")  # what `visit` evaluates: a parse tree (reference engine) or a closure (compact form)
NO_OVERLOAD = "no such overload"


class Binder(Protocol):
    """Where a loop's iteration variables live: `rows(target)` the values each step binds, `bind(row)` binds them."""

    def rows(self, target: Any) -> list[tuple[Any, ...]]: ...

    def bind(self, row: tuple[Any, ...]) -> None: ...


def rows(target: Any, variables: int) -> list[tuple[Any, ...]]:
    """Each step's values of `variables` (1 or 2) iteration variables over a CEL list or map."""
    if variables == 1:
        return [(item,) for item in target]
    if isinstance(target, celvalues.MapType):
        return list(target.items())
    return [(cel_int(i), item) for i, item in enumerate(target)]


class Slots:
    """The iteration variables' slots in the loop's scope (cel-python `Referent`s)."""

    __slots__ = ("slots",)

    def __init__(self, slots: Sequence[Any]) -> None:
        self.slots = tuple(slots)

    def rows(self, target: Any) -> list[tuple[Any, ...]]:
        return rows(target, len(self.slots))

    def bind(self, row: tuple[Any, ...]) -> None:
        for slot, value in zip(self.slots, row, strict=True):
            slot.value = value


def run(name: str, target: Any, slots: Binder, bodies: Sequence[Body], *, visit: Callable[[Body], Any],
        step: Callable[[], None]) -> Any:
    """Evaluate macro `name` over `target` (a CEL list or map; an optional for optMap and optFlatMap); `step()`
    charges one iteration, before its variables are bound."""
    if name in ("optMap", "optFlatMap"):
        return _opt_map(name == "optFlatMap", target, slots, bodies[0], visit=visit)
    if name in ("all", "exists"):
        return _quantify(name == "exists", target, slots, bodies[0], visit=visit, step=step)
    if name == "sortBy" and not isinstance(target, celvalues.ListType):
        return CELEvalError(NO_OVERLOAD)
    *condition, last = bodies
    kept: list[Any] = []  # per kept element: its row and the value of the last body
    for row in slots.rows(target):
        step()
        slots.bind(row)
        if name == "filter" or condition:
            keep = visit(bodies[0])
            if isinstance(keep, CELEvalError):
                return keep
            if not isinstance(keep, celvalues.BoolType):
                return CELEvalError(NO_OVERLOAD)
            if not keep:
                continue
        if name == "filter":
            kept.append((row, None))
            continue
        value = visit(last)
        if isinstance(value, CELEvalError):
            return value
        if name in ("exists_one", "existsOne") and not isinstance(value, celvalues.BoolType):
            return CELEvalError(NO_OVERLOAD)
        kept.append((row, value))
    return _result(name, kept)


def _opt_map(flat: bool, target: OptionalValue, slots: Binder, body: Body, *, visit: Callable[[Body], Any]) -> Any:
    """`o.optMap(x, e)`: optional.of(e) with x = o.value() when o has a value; optFlatMap: e itself (an optional)."""
    if not target.present:
        return target
    slots.bind((target.value,))
    value = visit(body)
    if isinstance(value, CELEvalError) or not flat:
        return value if isinstance(value, CELEvalError) else of(value)
    return value if isinstance(value, OptionalValue) else CELEvalError(NO_OVERLOAD)


def _quantify(decisive: bool, target: Any, slots: Binder, body: Body, *, visit: Callable[[Body], Any],
              step: Callable[[], None]) -> Any:
    error: CELEvalError | None = None
    for row in slots.rows(target):
        step()
        slots.bind(row)
        value = visit(body)
        if isinstance(value, celvalues.BoolType):
            if bool(value) is decisive:
                return value
        elif error is None:  # `accu && x` with x an error or a non-bool: an error a later element can absorb
            error = value if isinstance(value, CELEvalError) else CELEvalError(NO_OVERLOAD)
    return error if error is not None else celvalues.BoolType(not decisive)


def _result(name: str, kept: list[tuple[tuple[Any, ...], Any]]) -> Any:
    if name in ("exists_one", "existsOne"):
        return celvalues.BoolType(sum(1 for _, value in kept if value) == 1)
    if name == "filter":
        return celvalues.ListType(row[0] for row, _ in kept)
    if name in ("map", "transformList"):
        return celvalues.ListType(value for _, value in kept)
    if name == "transformMap":
        return celvalues.MapType({row[0]: value for row, value in kept})
    if name == "transformMapEntry":
        return _merge(value for _, value in kept)
    return _sort_by(kept)


def _merge(parts: Any) -> Any:
    merged = celvalues.MapType()
    for part in parts:
        if not isinstance(part, celvalues.MapType):
            return CELEvalError(NO_OVERLOAD)
        for key, value in part.items():
            if key in merged:
                return CELEvalError(f"insert failed: key {_go_text(key)} already exists")
            merged[key] = value
    return merged


def _go_text(key: Any) -> str:
    """A map key as Go's %v prints it (`null` is 0, bytes a []byte, a timestamp time.Time's text)."""
    from celext.lib.format import go_value

    return go_value(key)


# Key types whose CEL order (celext.lib.operators.compare on two of one type) is a total order that Python's
# comparison of the values gives; not doubles, whose NaN compares equal to everything.
_TOTAL_ORDERS = frozenset({celvalues.IntType, celvalues.UintType, celvalues.StringType, celvalues.BoolType,
                           celvalues.BytesType})
_STABLE_UP_TO = 12  # Go's sort.Slice sorts runs this short by insertion, which is stable


def _key(kept: tuple[tuple[Any, ...], Any]) -> Any:
    return kept[1]


def _sort_by(kept: list[tuple[tuple[Any, ...], Any]]) -> Any:
    """The rows in the order Go's sort.Slice leaves them by their keys (celext.lib.gosort): past 12 rows equal keys
    do not keep their order."""
    if not kept:
        return celvalues.ListType()
    keys = [key for _, key in kept]
    if isinstance(compare(keys[0], keys[0]), CELEvalError):
        return CELEvalError("list elements must be comparable")
    if len(kept) > 1 and any(type(key) is not type(keys[0]) for key in keys):
        return CELEvalError("list elements must have the same type")
    if type(keys[0]) in _TOTAL_ORDERS and (len(kept) <= _STABLE_UP_TO or len(set(keys)) == len(keys)):
        # a stable sort of a total order is Go's result here: no comparison call per pair
        return celvalues.ListType(row[0] for row, _ in sorted(kept, key=_key))
    rows = list(kept)
    go_sort(rows, lambda a, b: cel_less(a[1], b[1]))
    return celvalues.ListType(row[0] for row, _ in rows)
