"""Python source for one prepared selector tree (see celext.plan).

`Emitter.emit(node, block, scope)` appends statements computing `node` to `block` and returns the name of
the local (or constant) holding the value: every intermediate value gets its own temporary, so the source
never nests expressions and its depth stays flat whatever the CEL nesting. Short-circuit operators and
comprehensions nest Python blocks; past `SPLIT_DEPTH` levels the subtree becomes a function of its own
(CPython limits statically nested blocks to 20 and indentation to 100 levels).

Each construct has one emitter method; calls and operators first ask the checked types (`self.typed`,
celext.plan.typed) for an overload with a code template to inline, and otherwise dispatch at run time as the
reference engine does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from celext import values as celvalues
from celext.env import MACRO_FORMS
from celext.plan import closures
from celext.plan.core import PARAMS, Block, call_args, chain_operands
from celext.plan.device import device_path
from celext.plan.emit_device import DeviceEmitter, device_table
from celext.plan.emit_loops import ONE_VARIABLE_LOOPS, LoopEmitter
from celext.plan.emit_typed import TypedEmitter
from celext.plan.overloads import resolve
from celext.runtime import ops
from celext.syntax.nodes import Token, Tree
from celext.values import CELEvalError

SPLIT_DEPTH = 12  # block levels before a subtree moves into a function of its own
_COMPARE = {"relation_eq": "__eq__", "relation_ne": "__ne__", "relation_lt": "__lt__", "relation_le": "__le__",
            "relation_gt": "__gt__", "relation_ge": "__ge__"}
_NOTHING: Any = object()
# Every library function is pure, so calls on constants are computed once at compile time; except these,
# whose results are large.
_NOT_FOLDED = frozenset({"lists.range"})
_INT_ARITH = {"addition_add": "__add__", "addition_sub": "__sub__", "multiplication_mul": "__mul__"}
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1
BOOL = celvalues.BoolType


class Emitter(DeviceEmitter, LoopEmitter, TypedEmitter):
    """The whole emitter: the grammar levels here, device reads and comprehensions in their mixins."""

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

    def _compact(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """The compact form evaluates this subtree (a macro form not generated as a loop here: two variables, a
        condition, the transforms, sortBy, optMap; a map literal, a list literal with `?` elements; has() of
        anything but a constant device path), on the selector's budget, with the variables in scope."""
        run, keys = closures.build_part(node, list(scope))
        variables = ", ".join(f"{key}: {py}" for key, py in zip(keys, scope.values(), strict=True))
        out = self.tmp()
        self.uses.add("budget")
        block.add(f"{out} = {self.const(run)}(FRAME(device, driver, B, budget, {{{variables}}}))")
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
            if any(isinstance(e, Tree) and e.data == "opt_expr" for e in _elements(child)):
                return self._compact(node, block, scope)  # `[?x]` elements: the compact form's general list
            return self._list(child, block, scope)
        if kind == "map_lit":
            return self._compact(node, block, scope)
        if kind == "ident_arg":
            if str(child.children[0]) == "has":  # over anything but a constant device path
                return self._compact(node, block, scope)
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
        items = [self.emit(c, block, scope) for c in call_args(node)]
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
        """A chain of `&&` (or of `||`) operands, however grouped, as one flat sequence: each operand's lines,
        then one line folding it into the running result `p` (celext.plan.steps) that leaves the chain when
        it decides. Operands after the first run inside `while True:` so that leaving is a `break`; the
        first runs before it, so what it reads stays known to the lines after the chain. Constant operands
        are folded at compile time."""
        operands = chain_operands(node)
        if operands is None:
            return self._fallback(node, block, scope)
        stop, go = ("TRUE", "FALSE") if decisive else ("FALSE", "TRUE")
        step = "rt_or" if decisive else "rt_and"
        out = self.tmp()
        body: Block | None = None  # the loop's block, once a run-time operand opened it
        certain = True  # every operand TRUE or FALSE itself: so is the result
        for operand in operands:
            atom = self.emit(operand, body or block, scope)
            value = self.constants.get(atom, _NOTHING)
            if type(value) is BOOL:  # a constant: decides the chain, or is left out
                if bool(value) is not decisive:
                    continue
                if body is None:
                    return self.const(ops.TRUE if decisive else ops.FALSE)  # decided before anything ran
                body.add(f"{out} = {stop}")
                break  # what follows never runs
            if body is None:
                block.add(f"{out} = {go}")
                block.add("while True:")
                body = block.inner()
            if self.kinds.get(atom) == "BOOL":  # TRUE or FALSE itself
                body.add(f"if {atom} is {stop}: {out} = {stop}; break")
            else:
                certain = False
                body.add(f"if {atom} is not {go} and ({atom} is {stop} or ({out} := {step}({out}, {atom})) "
                         f"is {stop}): {out} = {stop}; break")
        if body is None:
            return self.const(ops.FALSE if decisive else ops.TRUE)  # every operand a constant that does not decide
        body.add("break")
        if certain:
            self.kinds[out] = "BOOL"
        return out

    def _expr(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str:
        """`c ? a : b`: only the chosen branch of a constant condition is generated."""
        if len(node.children) != 3:
            return self._fallback(node, block, scope)
        condition = self.emit(node.children[0], block, scope)
        if condition in self.constants:
            value = self.constants[condition]
            if isinstance(value, BOOL):
                return self.emit(node.children[1 if value else 2], block, scope)
        out = self.tmp()
        if self.kinds.get(condition) == "BOOL":
            block.add(f"if {condition}:")
        else:
            block.add(f"if not isinstance({condition}, BOOL): {out} = rt_not_bool({condition})")
            block.add(f"elif {condition}:")
        yes = block.inner()
        yes.add(f"{out} = {self.emit(node.children[1], yes, scope)}")
        block.add("else:")
        no = block.inner()
        no.add(f"{out} = {self.emit(node.children[2], no, scope)}")
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
            self.kinds[out] = "BOOL"
            return out
        left = self.emit(op.children[0], block, scope)
        table = device_table(right_tree, scope)
        if op.data == "relation_in" and table and type(self.constants.get(left)) is celvalues.StringType:
            out, raw = self.tmp(), self.tmp()  # `"domain" in device.attributes`: a scan of the names
            block.add(f"{raw} = rt_entries(B, {table!r})")
            block.add(f"{out} = TRUE if rt_has_domain({raw}, driver, {left}) else FALSE")
            return out
        right = self.emit(right_tree, block, scope)
        folded = self._fold(ops.relation(str(op.data)), [left, right])
        if folded:
            return folded
        function = self.const(ops.relation(str(op.data)))
        general = f"{function}({left}, {right})"
        inlined = self._inline(node, [left, right], general, block) or self._typed_equality(
            str(op.data), [op.children[0], right_tree], [left, right], general, block)
        if inlined:
            return inlined
        out = self.tmp()
        fast = self._fast_relation(str(op.data), left, right)
        block.add(f"{out} = {fast} else {general}" if fast else f"{out} = {general}")
        return out

    def _fast_relation(self, operator: str, left: str, right: str) -> str | None:
        """`x op K` for a constant int or string K: builtin comparison when x has K's type (the same answer the
        reference's operators give for two values of one type), else the general operator."""
        symbol = _COMPARE.get(operator)
        constant = self.constants.get(right, _NOTHING)
        other = left
        if symbol is None:
            return None
        if type(constant) not in (celvalues.IntType, celvalues.StringType):
            constant, other = self.constants.get(left, _NOTHING), right
            if type(constant) not in (celvalues.IntType, celvalues.StringType):
                return None
        kind, base = ("INT", "int") if type(constant) is celvalues.IntType else ("STRING", "str")
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
        general = f"rt_arith({operator!r}, {left}, {right})"
        inlined = self._inline(node, [left, right], general, block)
        if inlined:
            return inlined
        out = self.tmp()
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
        general = f"rt_unary({str(op.data)!r}, {value})"
        inlined = self._inline(node, [value], general, block)
        if inlined:
            return inlined
        out = self.tmp()
        block.add(f"{out} = {general}")
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

    # --- calls and macros -----------------------------------------------------------------------------

    def _global_call(self, node: Tree[Any], block: Block, scope: dict[str, str]) -> str | None:
        name = str(node.children[0])
        args = [self.emit(a, block, scope) for a in call_args(node)]
        if name == "dyn":
            return args[0] if args else None
        return self._call(name, args, block, node)

    def _call(self, name: str, args: list[str], block: Block, node: Tree[Any], member: bool = False) -> str:
        """One function call: the checked overload's template inlined when it has one (celext.plan.typed); a
        member call with constant arguments calls its overload directly behind a receiver class guard
        (celext.plan.overloads); else dispatched at run time as the reference engine does."""
        if name not in _NOT_FOLDED:
            folded = self._fold(lambda *values: ops.invoke(name, list(values)), args)
            if folded:
                return folded
        general = f"rt_invoke({name!r}, [{', '.join(args)}])"
        inlined = self._inline(node, args, general, block)
        if inlined:
            return inlined
        out = self.tmp()
        resolved = None
        if member and all(a in self.constants for a in args[1:]):
            resolved = resolve(name, [self.constants[a] for a in args[1:]])
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
        args = call_args(node)
        if name in MACRO_FORMS and len(node.children) == 3:
            if name in ONE_VARIABLE_LOOPS and len(args) == 2 and args[0].data == "primary" \
                    and args[0].children[0].data == "ident":
                return self._comprehension(name, node, block, scope)
            return self._compact(node, block, scope)
        if name in ("includes", "include") and len(args) == 1:
            path = device_path(node.children[0], scope)
            value = self.emit(args[0], block, scope)
            if path is not None and path.kind == "value" and path.head == "attributes" \
                    and type(self.constants.get(value)) in (celvalues.IntType, celvalues.StringType):
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
        return self._call(name, [target, *values], block, node, member=True)


__all__ = ["PARAMS", "SPLIT_DEPTH", "Block", "Emitter", "Token", "celvalues"]


def _elements(node: Tree[Any]) -> list[Any]:
    """The element trees of a list literal (its exprlist, when it has one)."""
    last = node.children[-1] if node.children else None
    return list(last.children) if isinstance(last, Tree) and last.data == "exprlist" else []

