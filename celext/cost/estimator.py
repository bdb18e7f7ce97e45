"""cel-go's static cost estimate (checker/cost.go) with Kubernetes' estimators, over a checked celext AST.

Walks the AST as cel-go's `coster` does: identifiers and selects on maps/structs cost 1, literals 0, list and
map literals 10 and 30, a call its arguments plus the cost of its overload, a comprehension its range,
initialiser and result plus (loop condition + step) times the range size, `cel.bind` its initialiser and body
plus an empty list. Sizes come from literals, from earlier results (`split()` yields at most as many parts as
the string has characters) and from field paths through the device (`celext.cost.sizes`). Each overload's
cost rule is named in `celext.overloads` (the `cost` column) and defined in `celext.cost.rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec import Struct

from celext.check import types as t
from celext.check.ast import ACCU, Call, Comprehension, CreateList, CreateMap, Expr, Ident, Literal, Select
from celext.check.checker import CheckedExpr
from celext.cost.rules import OWN_EQUALITY, RULES, Entry, Node, Path, compare_sizes, own_equality
from celext.cost.sizes import (
    LIST_CREATE,
    MAP_CREATE,
    ONE,
    U64,
    UNKNOWN,
    ZERO,
    Range,
    device_size,
    fixed,
)
from celext.overloads import BY_ID

__all__ = ["estimate"]

# Overloads whose cost rule reads no argument view (cel-go's default of one unit plus the arguments, and the
# logical operators' short-circuit range).
_COST_ONLY = frozenset(decl.id for decl in BY_ID.values() if decl.cost in ("fixed", "logical"))
_UNVIEWED: list[Node] = []
_LOGICAL = frozenset(decl.id for decl in BY_ID.values() if decl.cost == "logical")
_PLAIN = _COST_ONLY - {"index_list", "index_map"}  # (indexes also derive a path and an entry size)
_EQUALITY = frozenset(decl.id for decl in BY_ID.values() if decl.cost == "equality")
_FIXED = frozenset(decl.id for decl in BY_ID.values() if decl.cost == "fixed")
# Overloads `cost_compare` costs, when all that apply to a binary call are among them (index overloads are
# `fixed` too but derive a path and an entry size: left to the general path).
_COMPARES = (_EQUALITY | frozenset(decl.id for decl in BY_ID.values() if decl.cost == "compare_size")
             | _FIXED) - {"index_list", "index_map"}
_INDEXES = {"index_list": "@items", "index_map": "@values"}  # (`cost_index`: the path step each one takes)
assert all(BY_ID[overload_id].cost == "fixed" for overload_id in _INDEXES)


class Local(Struct):
    path: Path | None
    size: Range | None
    entry: Entry | None


class _Coster:
    def __init__(self, checked: CheckedExpr) -> None:
        self.checked = checked
        self.types = checked.types
        self.paths: dict[int, Path] = {}
        self.sizes: dict[int, Range] = {}
        self.entries: dict[int, Entry] = {}
        self.locals: dict[str, list[Local]] = {}
        self.costed: dict[int, Range] = {}  # cost_once

    # paths, sizes, local variables ---------------------------------------------------------------------------
    def type(self, e: Expr) -> t.Type:
        return self.types.get(e.id, t.DYN)  # CheckedExpr.type_of

    def local(self, name: str) -> Local | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def push(self, name: str, local: Local) -> None:
        self.locals.setdefault(name, []).append(local)

    def pop(self, name: str) -> None:
        self.locals[name].pop()

    def path(self, e: Expr) -> Path | None:
        if isinstance(e, Ident):
            found = self.local(e.name)
            if found is not None:
                return found.path
        return self.paths.get(e.id)

    def node(self, e: Expr) -> Node:
        path = self.path(e)
        if path and path[0] == ACCU:
            path = None  # cel-go only offers paths rooted at real variables
        return Node(e, self.type(e), path, self.size(e))

    def size(self, e: Expr) -> Range | None:
        known = self.sizes.get(e.id)
        if known is not None:
            return known
        kind = type(e)
        if kind is Literal or kind is CreateList or kind is CreateMap:
            literal = _literal_size(e)
            if literal is not None:
                return literal
        path = self.path(e) if kind is Ident else self.paths.get(e.id)
        estimated = device_size(path) if path else None
        if estimated is not None:
            self.sizes[e.id] = estimated
            return estimated
        if _is_scalar(self.types.get(e.id, t.DYN)):
            return ONE
        if isinstance(e, Ident):
            found = self.local(e.name)
            if found is not None and found.size is not None:
                return found.size
        return None

    def size_or_unknown(self, e: Expr | Node) -> Range:
        size = self.size(e) if isinstance(e, Expr) else e.size
        return size if size is not None else UNKNOWN

    def entry(self, e: Expr) -> Entry | None:
        if e.id in self.entries:
            return self.entries[e.id]
        if isinstance(e, Ident):
            found = self.local(e.name)
            if found is not None:
                return found.entry
        return None

    def set_entry(self, e: Expr, entry: Entry | None) -> None:
        if entry is not None:
            self.entries[e.id] = entry

    def copy_sizes(self, dst: Expr, src: Expr) -> None:
        size = self.size(src)
        if size is not None:
            self.sizes[dst.id] = size
        self.set_entry(dst, self.entry(src))

    # expressions ---------------------------------------------------------------------------------------------
    def cost(self, e: Expr | None) -> Range:
        walk = _WALKS.get(type(e))
        return ZERO if walk is None else walk(self, e)  # (ZERO: None, a literal)

    def cost_once(self, e: Expr | None) -> Range:
        """cost(e) for a call's target or a comprehension's range: the nodes a macro expansion holds twice
        (sortBy's target is sorted and mapped, optMap's is tested and read), walked once. A chain of such
        macros would otherwise be walked 2 ** length times; the cost is the same at both places (one scope)."""
        if e is None:
            return ZERO
        found = self.costed.get(e.id)
        if found is None:
            found = self.costed[e.id] = self.cost(e)
        return found

    def cost_ident(self, e: Ident) -> Range:
        stack = self.locals.get(e.name)
        found = stack[-1] if stack else None
        self.paths[e.id] = found.path if found is not None and found.path is not None else (e.name,)
        return ONE

    def cost_loop(self, e: Comprehension) -> Range:
        return self.cost_bind(e) if _is_bind(e) else self.cost_comprehension(e)

    def cost_select(self, e: Select) -> Range:
        operand: Any = e.operand
        walk = _WALKS.get(type(operand))  # (`cost`, inline)
        total = ZERO if walk is None else walk(self, operand)
        if e.test_only:  # Kubernetes' base environment: PresenceTestHasCost(false), so `has()` adds nothing
            return total
        if self.types.get(operand.id, t.DYN).kind in _SELECTED:
            low, high = total  # (`total.add(ONE)`, inline)
            total = _new(Range, (low + 1, high + 1)) if low < _U64_LESS_ONE > high else total.add(ONE)
        base = self.path(operand) if type(operand) is Ident else self.paths.get(operand.id)
        self.paths[e.id] = (*base, e.field) if base else (e.field,)
        return total

    def cost_call(self, e: Call) -> Range:
        if e.function == "dyn" and e.target is None and len(e.args) == 1:
            arg_cost = self.cost(e.args[0])
            self.copy_sizes(e, e.args[0])
            return ONE.add(arg_cost)
        operands = e.args
        if len(operands) == 2:  # (most calls are binary: `cost` inline, two frames fewer)
            first, second = operands
            walk = _WALKS.get(type(first))
            first_cost = ZERO if walk is None else walk(self, first)
            walk = _WALKS.get(type(second))
            arg_costs = [first_cost, ZERO if walk is None else walk(self, second)]
        elif len(operands) == 1:  # (`@not_strictly_false`, `!_`, size(): no comprehension frame)
            walk = _WALKS.get(type(operands[0]))
            arg_costs = [ZERO if walk is None else walk(self, operands[0])]
        else:
            arg_costs = [self.cost(a) for a in operands]
        ids = self.checked.overloads.get(e.id, ())
        if not ids:
            return ZERO
        if len(ids) == 1 and ids[0] in _PLAIN:  # most operators: the general path below, in short
            # (Sums of non-negative parts saturated once: the same as saturating after each part.)
            if ids[0] in _LOGICAL:
                (low, high), (_, right) = arg_costs  # the right side may be short-circuited
                high += right
            else:
                low = high = 1
                for arg_low, arg_high in arg_costs:
                    low += arg_low
                    high += arg_high
            if e.target is not None:
                target_low, target_high = self.cost_once(e.target)
                low += target_low
                high += target_high
            # (The call's own size is left to `size()` when something asks: it is the same then, as no path
            # is ever recorded for these calls.)
            return _new(Range, (low, high)) if high < U64 else _new(Range, (min(low, U64), U64))
        if e.target is None and len(arg_costs) == 2:
            if _COMPARES.issuperset(ids):
                return self.cost_compare(e, ids, arg_costs)
            if len(ids) == 1 and ids[0] in _INDEXES:
                return self.cost_index(e, ids[0], arg_costs)
        # The rules of most operators read only the arguments' costs: their view of the arguments (type, path,
        # size) is built only for the rules that read it.
        viewed = any(overload_id not in _COST_ONLY for overload_id in ids)
        args = [self.node(a) for a in e.args] if viewed else _UNVIEWED
        total = ZERO
        target: Node | None = None
        if e.target is not None:
            target_cost = self.cost_once(e.target)
            total = total.add(target_cost)
            target = self.node(e.target) if viewed else None
            if e.function == "@sortByAssociatedKeys" and _sorts_by(e):
                total = _bound_input(total, target_cost)
        fn_cost = Range(U64, 0)
        result: Range | None = None
        for overload_id in ids:
            call_cost, size = self.function_cost(e, overload_id, target, args, arg_costs)
            fn_cost = fn_cost.union(call_cost)
            if size is not None:
                result = size if result is None else result.union(size)
            if overload_id in ("index_list", "index_map") and e.args:
                found = self.entry(e.args[0])
                result = found.val if found is not None else None
                step = "@items" if overload_id == "index_list" else "@values"
                self.paths[e.id] = (*(self.path(e.args[0]) or ()), step)
            if result is None:
                result = self.size(e)
        if result is not None:
            self.sizes[e.id] = result
        return total.add(fn_cost)

    def cost_compare(self, e: Call, ids: tuple[str, ...], arg_costs: list[Range]) -> Range:
        """`cost_call` in short for binary operators whose overloads' rules read only the operands' sizes
        (`equality`, `compare_size`) or nothing (`fixed`): no argument views, no rule dispatch. The union of
        the overloads' costs, plus the operands'."""
        left, right = e.args
        compared: Range | None = None
        call: Range | None = None
        for overload_id in ids:
            if overload_id in _FIXED:
                found = ONE
            elif (overload_id in _EQUALITY and e.function == "_==_"
                  and (own := self.own_equality(left, right)) is not None):
                found = own  # (the `equality` rule: Kubernetes' equality of its own types)
            else:
                if compared is None:
                    compared = compare_sizes(self.size_or_unknown(left), self.size_or_unknown(right))
                found = compared
            call = found if call is None else call.union(found)
        assert call is not None  # (the call's size: as in the short path of `cost_call`)
        return _sum(call, arg_costs)

    def cost_index(self, e: Call, overload_id: str, arg_costs: list[Range]) -> Range:
        """`cost_call` in short for an index with one overload (`index_list`, `index_map`: a `fixed` cost, most
        attribute reads): one unit plus the operands', the path one step into the container, and the size of
        the container's entries (else what `size()` knows of the path)."""
        container = e.args[0]
        found = self.entry(container)
        self.paths[e.id] = (*(self.path(container) or ()), _INDEXES[overload_id])
        result = found.val if found is not None else None
        if result is None:
            result = self.size(e)
        if result is not None:
            self.sizes[e.id] = result
        return _sum(ONE, arg_costs)

    def own_equality(self, left: Expr, right: Expr) -> Range | None:
        left_type = self.type(left)
        if left_type not in OWN_EQUALITY:  # (most comparisons: no right operand's type or size looked up)
            return None
        return own_equality(left_type, self.type(right), self.size(right))

    def cost_list(self, e: CreateList) -> Range:
        if e.constant:  # literals cost nothing
            self.entries[e.id] = Entry("list", ONE, _literal_sizes(e.elements))
            return fixed(LIST_CREATE)
        total = ZERO
        item = Range(U64, 0) if e.elements else ZERO
        for element in e.elements:
            total = total.add(self.cost(element))
            item = item.union(self.size_or_unknown(element))
        self.entries[e.id] = Entry("list", ONE, item)
        return total.add(fixed(LIST_CREATE))

    def cost_map(self, e: CreateMap) -> Range:
        if e.constant:  # literals cost nothing
            key = _literal_sizes([k for k, _ in e.entries])
            self.entries[e.id] = Entry("map", key, _literal_sizes([v for _, v in e.entries]))
            return fixed(MAP_CREATE)
        total = ZERO
        key = Range(U64, 0) if e.entries else ZERO
        val = Range(U64, 0) if e.entries else ZERO
        for k, v in e.entries:
            total = total.add(self.cost(k)).add(self.cost(v))
            key = key.union(self.size_or_unknown(k))
            val = val.union(self.size_or_unknown(v))
        self.entries[e.id] = Entry("map", key, val)
        return total.add(fixed(MAP_CREATE))

    def push_local(self, name: str, e: Expr) -> None:
        self.push(name, Local(self.path(e), self.size(e), self.entry(e)))

    def push_iteration(self, e: Comprehension) -> None:
        assert e.iter_range is not None
        entry = self.entry(e.iter_range)
        container = entry.container if entry is not None else self.type(e.iter_range).kind
        base = self.path(e.iter_range) or ()
        if e.iter_var2:  # (key or index, value)
            self.push(e.iter_var, Local((*base, "@indices" if container == "list" else "@keys"),
                                        entry.key if entry is not None else None, None))
            self.push(e.iter_var2, Local((*base, "@items" if container == "list" else "@values"),
                                         entry.val if entry is not None else None, None))
            return
        if container == "list":
            self.push(e.iter_var, Local((*base, "@items"), entry.val if entry is not None else None, None))
        else:
            self.push(e.iter_var, Local((*base, "@keys"), entry.key if entry is not None else None, None))

    def cost_comprehension(self, e: Comprehension) -> Range:
        assert e.iter_range is not None and e.accu_init is not None
        walks = _WALKS  # (`cost`, inline: a frame fewer per part)
        total = self.cost_once(e.iter_range)
        walk = walks.get(type(e.accu_init))
        if walk is not None:
            total = total.add(walk(self, e.accu_init))
        self.push_local(e.accu_var, e.accu_init)
        self.push_iteration(e)
        walk = walks.get(type(e.loop_condition))
        loop = ZERO if walk is None else walk(self, e.loop_condition)
        walk = walks.get(type(e.loop_step))
        step = ZERO if walk is None else walk(self, e.loop_step)
        self.pop(e.iter_var)
        if e.iter_var2:
            self.pop(e.iter_var2)
        walk = walks.get(type(e.result))
        if walk is not None:
            total = total.add(walk(self, e.result))
        self.pop(e.accu_var)
        count = self.size_or_unknown(e.iter_range)
        total = total.add(count.mul(step.add(loop)))
        if isinstance(e.accu_init, Literal):
            size = self.size(e.accu_init)
            if size is not None:
                self.sizes[e.id] = size
        elif isinstance(e.accu_init, (CreateList, CreateMap)):
            self.sizes[e.id] = count
            assert e.loop_step is not None
            self.set_entry(e, self.entry(e.loop_step))
        return total

    def cost_bind(self, e: Comprehension) -> Range:
        assert e.accu_init is not None and e.result is not None
        total = self.cost_once(e.iter_range).add(self.cost(e.accu_init))
        self.push_local(e.accu_var, e.accu_init)
        total = total.add(self.cost(e.result))
        self.pop(e.accu_var)
        self.copy_sizes(e, e.result)
        return total

    def function_cost(self, e: Call, overload_id: str, target: Node | None, args: list[Node],
                      arg_costs: list[Range]) -> tuple[Range, Range | None]:
        arg_sum = ZERO
        for c in arg_costs:
            arg_sum = arg_sum.add(c)
        decl = BY_ID.get(overload_id)
        rule = RULES[decl.cost if decl is not None else "fixed"]
        found = rule(self, e, target, args, arg_costs)
        if found is None:
            return ONE.add(arg_sum), None
        cost, size, includes_args = found
        return (cost if includes_args else cost.add(arg_sum)), size


_WALKS: dict[type, Callable[[Any, Any], Range]] = {
    Call: _Coster.cost_call, Ident: _Coster.cost_ident, Select: _Coster.cost_select, CreateList: _Coster.cost_list,
    CreateMap: _Coster.cost_map, Comprehension: _Coster.cost_loop}
_new = tuple.__new__  # (a Range from a tuple in one call: the estimator's hot path)
_SELECTED = frozenset({"map", "struct", "param"})  # operand kinds whose field selection costs a unit
_U64_LESS_ONE = U64 - 1


def _sorts_by(e: Call) -> bool:
    """Is this the call `sortBy(x, key)` expands to (celext.syntax.build: the target both sorted and mapped)?"""
    keys = e.args[0] if len(e.args) == 1 else None
    return isinstance(keys, Comprehension) and keys.iter_range is e.target


def _bound_input(total: Range, target_cost: Range) -> Range:
    """cel-go's sortBy macro binds the target to `@__sortBy_input__` (a `cel.bind`: an empty list, 10) and
    reads that variable twice (1 each), where celext's expansion costs the target itself twice: the cost
    of the target once more becomes 12."""
    extra = LIST_CREATE + 2
    return Range(max(total.min + extra - target_cost.min, 0) if total.min < U64 else U64,
                 max(total.max + extra - target_cost.max, 0) if total.max < U64 else U64)


def _sum(own: Range, arg_costs: list[Range]) -> Range:
    """`own.add(arg_costs[0]).add(arg_costs[1])`: sums of non-negative parts saturated once (the same as
    saturating after each part)."""
    (low, high), (low0, high0), (low1, high1) = own, arg_costs[0], arg_costs[1]
    low += low0 + low1
    high += high0 + high1
    return _new(Range, (low, high)) if low < U64 > high else _new(Range, (min(low, U64), min(high, U64)))


def _literal_sizes(literals: list[Expr]) -> Range:
    """The size range of literals of one kind: strings as long as they are, any other literal one."""
    if isinstance(literals[0], Literal) and literals[0].kind == "string":
        sizes = [len(x.value) for x in literals if isinstance(x, Literal)]
        return Range(min(sizes), max(sizes))
    return ONE


def _literal_size(e: Expr) -> Range | None:
    if isinstance(e, Literal):
        if e.kind == "string":
            return fixed(len(e.value)) if isinstance(e.value, str) else None
        if e.kind == "bytes":
            return fixed(len(e.value)) if isinstance(e.value, bytes) else None
        return ONE
    if isinstance(e, CreateList):
        return fixed(len(e.elements))
    if isinstance(e, CreateMap):
        return fixed(len(e.entries))
    return None


def _is_scalar(x: t.Type) -> bool:
    if x.kind in ("bool", "double", "duration", "int", "timestamp", "uint"):
        return True
    return x.kind == "opaque" and x.name == "optional_type" and _is_scalar(x.params[0])


def _is_bind(e: Comprehension) -> bool:
    return (isinstance(e.iter_range, CreateList) and not e.iter_range.elements
            and isinstance(e.loop_condition, Literal) and e.loop_condition.value is False and e.accu_var != ACCU)


def estimate(checked: CheckedExpr) -> tuple[int, int]:
    """The (min, max) cost cel-go's estimator gives the expression in the DRA environment."""
    found = _Coster(checked).cost(checked.expr)
    return found.min, found.max
