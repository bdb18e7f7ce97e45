"""Python source for one prepared selector tree (see celext.plan).

`Emitter.emit(node, block, scope)` appends statements computing `node` to `block` and returns the name of
the local (or constant) holding the value: every intermediate value gets its own temporary, so the source
never nests expressions and its depth stays flat whatever the CEL nesting. Short-circuit operators and
comprehensions nest Python blocks; past `SPLIT_DEPTH` levels the subtree becomes a function of its own
(CPython limits statically nested blocks to 20 and indentation to 100 levels).

Each construct has one emitter method; calls go through `_call(name, args, overload)`, where a later type
checker can pass a resolved overload id to specialise (today every call dispatches at run time as the
reference engine does).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError
from lark import Token, Tree

from celext.env import MACRO_FORMS
from celext.evaluator import _FREE, ITERATION_COST
from celext.plan.device import DevicePath, device_path
from celext.plan.overloads import by_id, resolve
from celext.runtime import ops

SPLIT_DEPTH = 12  # block levels before a subtree moves into a function of its own
_NATIVE_MACROS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter"})
_COMPARE = {"relation_eq": "__eq__", "relation_ne": "__ne__", "relation_lt": "__lt__", "relation_le": "__le__",
            "relation_gt": "__gt__", "relation_ge": "__ge__"}
_NOTHING: Any = object()
# Every library function is pure, so calls on constants are computed once at compile time; except these,
# whose results are large.
_NOT_FOLDED = frozenset({"lists.range"})
_INT_ARITH = {"addition_add": "__add__", "addition_sub": "__sub__", "multiplication_mul": "__mul__"}
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


@dataclass
class Block:
    lines: list[str]
    depth: int

    def add(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def inner(self) -> Block:
        return Block(self.lines, self.depth + 1)


# Parameters every generated function takes (the split-off ones too): the wire device, its driver, the cost
# budget and the device body.
PARAMS = ("device", "driver", "budget", "B")


@dataclass
class Emitter:
    constants: dict[str, Any] = field(default_factory=dict)
    functions: list[list[str]] = field(default_factory=list)
    uses: set[str] = field(default_factory=set)  # "budget" when cost is metered
    kinds: dict[str, str] = field(default_factory=dict)  # locals whose class is certain (INT / STRING)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def tmp(self) -> str:
        return f"t{next(self._ids)}"

    def const(self, value: Any) -> str:
        name = f"K{next(self._ids)}"
        self.constants[name] = value
        return name

    # --- dispatch -------------------------------------------------------------------------------------

    def emit(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        if block.depth >= SPLIT_DEPTH and node.children:
            return self._split(node, block, scope)
        data = str(node.data)
        if data == "const":
            return self.const(node.children[0])
        path = device_path(node, scope)
        if path is not None:
            return self._device(path, node, block, scope)
        method = getattr(self, f"_{data}", None)
        if method is None:
            return self._fallback(node, block, scope)
        result: str = method(node, block, scope)
        return result

    def _split(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        name = f"_f{next(self._ids)}"
        params = [*PARAMS, *scope.values()]
        lines = [f"def {name}({', '.join(params)}):"]
        inner = Block(lines, 1)
        atom = self.emit(node, inner, scope)
        inner.add(f"return {atom}")
        self.functions.append(lines)
        out = self.tmp()
        block.add(f"{out} = {name}({', '.join(params)})")
        return out

    def _fallback(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """The reference engine evaluates this subtree (constructs not generated as Python)."""
        tree = self.const(node)
        variables = ", ".join(f"{cel!r}: {py}" for cel, py in scope.items())
        out = self.tmp()
        self.uses.add("budget")
        block.add(f"{out} = rt_subtree({tree}, budget, device, driver, {{{variables}}})")
        return out

    # --- grammar levels -------------------------------------------------------------------------------

    def _primary(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        child = node.children[0]
        kind = str(child.data)
        if kind == "const":
            return self.const(child.children[0])
        if kind == "paren_expr":
            return self.emit(child.children[0], block, scope)
        if kind == "ident":
            name = str(child.children[0])
            if name in scope:
                return scope[name]
            if name == "device":  # the whole value: converted (once per device object)
                out = self.tmp()
                block.add(f"{out} = rt_converted(device, driver)")
                return out
            return self._fallback(node, block, scope)
        if kind == "list_lit":
            return self._list(child, block, scope)
        if kind == "ident_arg":
            return self._global_call(child, block, scope) or self._fallback(node, block, scope)
        return self._fallback(node, block, scope)

    def _fold(self, compute: Callable[..., Any], atoms: list[str]) -> str | None:
        """A constant for an operation on constants when it succeeds (an error stays a run-time error, raised
        where the reference engine raises it; cost is charged per comprehension step either way)."""
        if not all(a in self.constants for a in atoms):
            return None
        try:
            value = compute(*(self.constants[a] for a in atoms))
        except Exception:
            return None
        return None if isinstance(value, CELEvalError) else self.const(value)

    def _list(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        items = [self.emit(c, block, scope) for c in _args_of(node)]
        folded = self._fold(lambda *values: ops.make_list(list(values)), items)
        if folded:
            return folded
        out = self.tmp()
        block.add(f"{out} = rt_make_list([{', '.join(items)}])")
        return out

    # --- logic ----------------------------------------------------------------------------------------

    def _conditionaland(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        return self._logic(node, block, scope, decisive=False)

    def _conditionalor(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        return self._logic(node, block, scope, decisive=True)

    def _logic(self, node: Tree[Any], block: Block, scope: dict[str, str], *, decisive: bool) -> str:
        if len(node.children) != 2:
            return self._fallback(node, block, scope)
        left = self.emit(node.children[0], block, scope)
        out = self.tmp()
        test = left if decisive else f"not {left}"
        block.add(f"if {left}.__class__ is BOOL and {test}:")
        block.inner().add(f"{out} = {left}")
        block.add("else:")
        inner = block.inner()
        right = self.emit(node.children[1], inner, scope)
        # Here the left operand is not decisive: with two bools the right one is the result.
        inner.add(f"{out} = {right} if {left}.__class__ is BOOL and {right}.__class__ is BOOL "
                  f"else rt_logic({left}, {right}, {decisive})")
        return out

    def _expr(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        if len(node.children) != 3:
            return self._fallback(node, block, scope)
        condition = self.emit(node.children[0], block, scope)
        out = self.tmp()
        block.add(f"if isinstance({condition}, BOOL):")
        inner = block.inner()
        inner.add(f"if {condition}:")
        yes = inner.inner()
        yes.add(f"{out} = {self.emit(node.children[1], yes, scope)}")
        inner.add("else:")
        no = inner.inner()
        no.add(f"{out} = {self.emit(node.children[2], no, scope)}")
        block.add(f"elif isinstance({condition}, ERROR):")
        block.inner().add(f"{out} = {condition}")
        block.add("else:")
        block.inner().add(f"{out} = rt_no_overload()")
        return out

    # --- operators ------------------------------------------------------------------------------------

    def _relation(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        if len(node.children) != 2:
            return self._fallback(node, block, scope)
        op, right_tree = node.children
        driver_test = self._driver_relation(str(op.data), op.children[0], right_tree, scope)
        if driver_test:
            out = self.tmp()
            block.add(f"{out} = {driver_test}")
            return out
        left = self.emit(op.children[0], block, scope)
        table = _device_table(right_tree, scope)
        if op.data == "relation_in" and table and type(self.constants.get(left)) is celtypes.StringType:
            out, raw = self.tmp(), self.tmp()  # `"domain" in device.attributes`: a scan of the names
            block.add(f"{raw} = rt_entries(B, {table!r})")
            block.add(f"{out} = TRUE if rt_has_domain({raw}, driver, {left}) else FALSE")
            return out
        right = self.emit(right_tree, block, scope)
        folded = self._fold(ops.relation(str(op.data)), [left, right])
        if folded:
            return folded
        function = self.const(ops.relation(str(op.data)))
        out = self.tmp()
        general = f"{function}({left}, {right})"
        fast = self._fast_relation(str(op.data), left, right)
        block.add(f"{out} = {fast} else {general}" if fast else f"{out} = {general}")
        return out

    def _driver_relation(self, operator: str, left_tree: Tree[Any], right_tree: Tree[Any],
                         scope: dict[str, str]) -> str | None:
        """`device.driver == "x"` / `!=`: the driver string compared as it comes (no CEL value built)."""
        path = device_path(left_tree, scope)
        if path is None or path.head != "driver" or right_tree.data != "primary" \
                or right_tree.children[0].data != "const" \
                or type(right_tree.children[0].children[0]) is not celtypes.StringType:
            return None
        if operator not in ("relation_eq", "relation_ne"):
            return None
        constant = self.const(right_tree.children[0].children[0])
        symbol = "==" if operator == "relation_eq" else "!="
        return f"TRUE if (driver or '') {symbol} {constant} else FALSE"

    def _fast_relation(self, operator: str, left: str, right: str) -> str | None:
        """`x op K` for a constant int or string K: builtin comparison when x has K's type (the same answer the
        reference's operators give for two values of one type), else the general operator."""
        symbol = _COMPARE.get(operator)
        constant = self.constants.get(right, _NOTHING)
        other = left
        if symbol is None:
            return None
        if type(constant) not in (celtypes.IntType, celtypes.StringType):
            constant, other = self.constants.get(left, _NOTHING), right
            if type(constant) not in (celtypes.IntType, celtypes.StringType):
                return None
        kind, base = ("INT", "int") if type(constant) is celtypes.IntType else ("STRING", "str")
        guard = "True" if self.kinds.get(other) == kind else f"{other}.__class__ is {kind}"
        return f"(TRUE if {base}.{symbol}({left}, {right}) else FALSE) if {guard}"

    def _addition(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        if len(node.children) != 2:
            return self._fallback(node, block, scope)
        op, right_tree = node.children
        left = self.emit(op.children[0], block, scope)
        right = self.emit(right_tree, block, scope)
        operator = str(op.data)
        folded = self._fold(functools.partial(ops.arith, operator), [left, right])
        if folded:
            return folded
        out = self.tmp()
        general = f"rt_arith({operator!r}, {left}, {right})"
        native = _INT_ARITH.get(operator)
        if native is None:
            block.add(f"{out} = {general}")
            return out
        # int op int in range: the builtin operation (what cel-python's IntType computes); else the general path
        block.add(f"if {left}.__class__ is INT and {right}.__class__ is INT:")
        inner = block.inner()
        inner.add(f"{out} = int.{native}({left}, {right})")
        inner.add(f"{out} = NEW_INT(INT, {out}) if {_INT_MIN} <= {out} <= {_INT_MAX} else {general}")
        block.add("else:")
        block.inner().add(f"{out} = {general}")
        return out

    _multiplication = _addition

    def _unary(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        if len(node.children) != 2:
            return self._fallback(node, block, scope)
        op, operand = node.children
        value = self.emit(operand, block, scope)
        folded = self._fold(functools.partial(ops.unary, str(op.data)), [value])
        if folded:
            return folded
        out = self.tmp()
        block.add(f"{out} = rt_unary({str(op.data)!r}, {value})")
        return out

    # --- selection ------------------------------------------------------------------------------------

    def _member_dot(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        return self._select(node, block, scope, optional=False)

    def _member_dot_opt(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        return self._select(node, block, scope, optional=True)

    def _select(self, node: Tree[Any], block: Block, scope: dict[str, str], *, optional: bool) -> str:
        member = self.emit(node.children[0], block, scope)
        out = self.tmp()
        block.add(f"{out} = rt_select({member}, {str(node.children[1])!r}, {optional})")
        return out

    def _member_index(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        return self._index(node, block, scope, optional=False)

    def _member_index_opt(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        return self._index(node, block, scope, optional=True)

    def _index(self, node: Tree[Any], block: Block, scope: dict[str, str], *, optional: bool) -> str:
        member = self.emit(node.children[0], block, scope)
        key = self.emit(node.children[1], block, scope)
        out = self.tmp()
        block.add(f"{out} = rt_index({member}, {key}, {optional})")
        return out

    def _device(self, path: DevicePath, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """A constant device path read from the wire form (see celext.plan.device)."""
        out = self.tmp()
        head = path.head
        if head == "driver":
            block.add(f"{out} = NEW_STR(STRING, driver or '')")
            self.kinds[out] = "STRING"
            return out
        if head == "allowMultipleAllocations":
            block.add(f"{out} = TRUE if B.get('allowMultipleAllocations') is True else FALSE")
            return out
        table = "A" if head == "attributes" else "C"
        decode = "rt_attribute" if head == "attributes" else "rt_capacity"
        raw = self._lookup(path, table, block)
        if path.kind == "has":
            block.add(f"{out} = FALSE if {raw} is ABSENT else TRUE")
        elif path.kind == "optional":
            block.add(f"{out} = OPT_NONE if {raw} is ABSENT else OPT_OF({decode}({raw}))")
        else:
            block.add(f"{out} = rt_no_key({path.ident!r}) if {raw} is ABSENT else {decode}({raw})")
        return out

    def _lookup(self, path: DevicePath, table: str, block: Block) -> str:
        """The raw wire entry (or ABSENT): one dict lookup unless the domain is the driver's own. The table is
        fetched here, where it is needed (a short-circuit may never get here)."""
        raw = self.tmp()
        field = "attributes" if table == "A" else "capacity"
        block.add(f"{raw} = B.get({field!r})")
        block.add(f"if type({raw}) is not dict:")
        block.inner().add(f"{raw} = rt_entries(B, {field!r})")
        general = f"rt_lookup({raw}, driver, {path.domain!r}, {path.ident!r})"
        if "/" in path.domain:
            block.add(f"{raw} = {general}")
        else:
            qualified = f"{path.domain}/{path.ident}"
            block.add(f"{raw} = {general} if driver == {path.domain!r} else {raw}.get({qualified!r}, ABSENT)")
        return raw

    # --- calls and macros -----------------------------------------------------------------------------

    def _global_call(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str | None:
        name = str(node.children[0])
        if name == "has":
            return None  # has() over anything but a constant device path: the reference engine
        args = [self.emit(a, block, scope) for a in _args_of(node)]
        if name == "dyn":
            return args[0] if args else None
        return self._call(name, args, block)

    def _call(self, name: str, args: list[str], block: Block, overload: str | None = None,
              member: bool = False) -> str:
        """One function call, dispatched at run time as the reference engine does; a member call with
        constant arguments calls its overload directly behind a receiver class guard (celext.plan.overloads).
        `overload` is a checked overload id: the type checker's answer, not yet wired in."""
        if name not in _NOT_FOLDED:
            folded = self._fold(lambda *values: ops.invoke(name, list(values)), args)
            if folded:
                return folded
        out = self.tmp()
        general = f"rt_invoke({name!r}, [{', '.join(args)}])"
        resolved = None
        if member and all(a in self.constants for a in args[1:]):
            resolved = resolve(name, [self.constants[a] for a in args[1:]])
        known = by_id(overload) if overload else None
        if known is not None and resolved is not None and resolved[1] is not known:
            resolved = None
        if resolved is None:
            block.add(f"{out} = {general}")
            return out
        receiver, chosen = resolved
        kind, impl = self.const(receiver), self.const(chosen.impl)
        block.add(f"if {args[0]}.__class__ is {kind}:")
        inner = block.inner()
        inner.add("try:")
        inner.inner().add(f"{out} = {impl}({', '.join(args)})")
        inner.add("except Exception as err:")
        inner.inner().add(f"{out} = rt_impl_error({name!r}, err)")
        block.add("else:")
        block.inner().add(f"{out} = {general}")
        return out

    def _member_dot_arg(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        name = str(node.children[1])
        args = _args_of(node)
        if name in MACRO_FORMS and len(node.children) == 3:
            if name in _NATIVE_MACROS and len(args) == 2 and args[0].data == "primary" \
                    and args[0].children[0].data == "ident":
                return self._comprehension(name, node, block, scope)
            return self._fallback(node, block, scope)
        if name in ("includes", "include") and len(args) == 1:
            path = device_path(node.children[0], scope)
            value = self.emit(args[0], block, scope)
            if path is not None and path.kind == "value" and path.head == "attributes" \
                    and type(self.constants.get(value)) in (celtypes.IntType, celtypes.StringType):
                raw = self._lookup(path, "A", block)
                out = self.tmp()
                block.add(f"{out} = rt_no_key({path.ident!r}) if {raw} is ABSENT else rt_includes_raw({raw}, {value})")
                return out
            target = self.emit(node.children[0], block, scope)
            out = self.tmp()
            block.add(f"{out} = rt_includes({target}, {value})")
            return out
        target = self.emit(node.children[0], block, scope)
        values = [self.emit(a, block, scope) for a in args]
        return self._call(name, [target, *values], block, member=True)

    def _comprehension(self, name: str, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """all / exists / exists_one / map / filter with one iteration variable, as celext.macros runs them."""
        variable_tree, body_tree = _args_of(node)
        variable = str(variable_tree.children[0].children[0])
        target = self.emit(node.children[0], block, scope)
        out, var, acc = self.tmp(), f"v{next(self._ids)}", self.tmp()
        inner_scope = {**scope, variable: var}
        step = ITERATION_COST + _size(body_tree)
        block.add(f"if isinstance({target}, ERROR):")
        block.inner().add(f"{out} = {target}")
        block.add(f"elif not isinstance({target}, (LIST, MAP)):")
        block.inner().add(f"{out} = rt_not_iterable({target})")
        block.add("else:")
        outer = block.inner()
        start = "0" if name in ("exists_one", "existsOne") else "None" if name in ("all", "exists") else "[]"
        outer.add(f"{acc} = {start}")
        outer.add(f"for {var} in {target}:")
        loop = outer.inner()
        self.uses.add("budget")
        loop.add(f"budget.left -= {step}")
        loop.add("if budget.left < 0:")
        loop.inner().add("rt_cost_exceeded()")
        value = self.emit(body_tree, loop, inner_scope)
        if name in ("all", "exists"):
            decisive = name == "exists"
            loop.add(f"if isinstance({value}, BOOL):")
            loop.inner().add(f"if {'' if decisive else 'not '}{value}:")
            loop.inner().inner().add(f"{out} = {value}")
            loop.inner().inner().add("break")
            loop.add(f"elif {acc} is None:")
            loop.inner().add(f"{acc} = {value} if isinstance({value}, ERROR) else rt_no_overload()")
            outer.add("else:")
            outer.inner().add(f"{out} = {acc} if {acc} is not None else {'FALSE' if decisive else 'TRUE'}")
            return out
        loop.add(f"if isinstance({value}, ERROR):")
        loop.inner().add(f"{out} = {value}")
        loop.inner().add("break")
        if name in ("exists_one", "existsOne", "filter"):
            loop.add(f"if not isinstance({value}, BOOL):")
            loop.inner().add(f"{out} = rt_no_overload()")
            loop.inner().add("break")
        if name in ("exists_one", "existsOne"):
            loop.add(f"if {value}:")
            loop.inner().add(f"{acc} += 1")
            result = f"TRUE if {acc} == 1 else FALSE"
        elif name == "filter":
            loop.add(f"if {value}:")
            loop.inner().add(f"{acc}.append({var})")
            result = f"LIST({acc})"
        else:
            loop.add(f"{acc}.append({value})")
            result = f"LIST({acc})"
        outer.add("else:")
        outer.inner().add(f"{out} = {result}")
        return out


def _device_table(node: Tree[Any], scope: dict[str, str]) -> str | None:
    """"attributes" / "capacity" for `device.attributes` / `device.capacity`, else None."""
    if node.data == "member_dot" and str(node.children[1]) in ("attributes", "capacity"):
        target = node.children[0]
        if target.data == "primary" and target.children[0].data == "ident" \
                and str(target.children[0].children[0]) == "device" and "device" not in scope:
            return str(node.children[1])
    return None


def _args_of(node: Tree[Any]) -> list[Tree[Any]]:
    last = node.children[-1] if node.children else None
    if isinstance(last, Tree) and last.data == "exprlist":
        return [c for c in last.children if isinstance(c, Tree)]
    return []


def _size(node: Tree[Any]) -> int:
    """Cost units of one evaluation of a comprehension body at most, counted as the reference engine charges
    (one per node that is not a mere grammar level); a nested comprehension's steps are charged by its own
    loop, so only its target counts here."""
    pending, count = [node], 0
    while pending:
        current = pending.pop()
        if current.data not in _FREE and not str(current.data).startswith("relation_"):
            count += 1
        children = [c for c in current.children if isinstance(c, Tree)]
        if current.data == "member_dot_arg" and str(current.children[1]) in MACRO_FORMS:
            children = children[:1]
        pending.extend(children)
    return count


__all__ = ["PARAMS", "SPLIT_DEPTH", "Block", "Emitter", "Token", "celtypes"]
