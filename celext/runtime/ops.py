"""Helpers the generated selector code calls: CEL operations over the reference engine's values.

The compiled engine computes with the same values as the reference engine (celtypes, Semver, Quantity,
OptionalValue, CELEvalError as an error value) and, for every operation it does not inline, calls the
reference engine's own implementation of that one node with its operands already evaluated (`node()`),
so results and error texts stay identical by construction. Only control flow (`&&`, `||`, `?:`,
comprehension loops), device reads and function dispatch are generated as Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from celpy import celtypes
from celpy.evaluation import Activation, CELEvalError

from celext.env import FUNCTIONS
from celext.gostrconv import INT64
from celext.lib.includes import includes as _includes
from celext.lib.ints import cel_int
from celext.reference.evaluator import COST_EXCEEDED, RELATIONS, Budget, CostLimitExceeded, DRAEvaluator, go_type_name
from celext.runtime.wire import converted
from celext.syntax.nodes import Meta, Token, Tree

__all__ = ["ACTIVATION", "BOOL", "FALSE", "FUNCTION_TABLE", "TRUE", "Budget", "CostLimitExceeded", "arith",
           "cost_exceeded", "invoke", "make_list", "no_key", "no_overload", "node", "not_iterable", "relation",
           "subtree"]

BOOL = celtypes.BoolType
TRUE = BOOL(True)
FALSE = BOOL(False)
# The reference engine's base scope and its function table flattened (cel-python's Activation keeps a ChainMap):
# built once, read-only, shared by every evaluation of every selector.
ACTIVATION = Activation(functions=dict(FUNCTIONS))
FUNCTION_TABLE = dict(ACTIVATION.functions)
_UNLIMITED = 1 << 62  # operand-level evaluations never run out: the caller's budget is charged by the loops


def _evaluator(tree: Tree[Any], budget: Budget | None = None) -> DRAEvaluator:
    return DRAEvaluator(tree, ACTIVATION, budget or Budget(_UNLIMITED), FUNCTION_TABLE)


_META = Meta(0, 0, 0, 0, 0, 0)  # cel-python's errors read a position from the node


def tree(data: str, children: list[Any]) -> Tree[Any]:
    return Tree(data, children, _META)


def const(value: Any) -> Tree[Any]:
    return tree("const", [value])


def node(root: Tree[Any]) -> Any:
    """The reference engine's result for one node whose operands are `const` trees."""
    return _evaluator(root).visit(root)


def cost_exceeded() -> None:
    raise CostLimitExceeded(COST_EXCEEDED)


def no_overload() -> CELEvalError:
    return CELEvalError("no such overload")


def no_key(key: str) -> CELEvalError:
    return CELEvalError(f"no such key: {key}")


def not_iterable(value: Any) -> CELEvalError:
    return CELEvalError(f"got '{go_type_name(value)}', expected iterable type")


def relation(name: str) -> Any:
    return RELATIONS[name]


_ARITH_PARENT = {"addition_add": "addition", "addition_sub": "addition", "multiplication_mul": "multiplication",
                 "multiplication_div": "multiplication", "multiplication_mod": "multiplication"}


def arith(operator: str, left: Any, right: Any) -> Any:
    """`+ - * / %` exactly as the reference engine computes them (cel-python's operators, cel-go's texts)."""
    return node(tree(_ARITH_PARENT[operator], [tree(operator, [const(left)]), const(right)]))


def unary(operator: str, value: Any) -> Any:
    """`-x` / `!x`. An int (but int64's minimum, whose negation overflows), a double or a bool is computed here:
    the reference engine's node costs ~30 us, a hot spot in loops such as `sortBy(x, -x)`."""
    kind = value.__class__
    if operator == "unary_neg":
        if kind is _INT and not int.__eq__(value, _INT64_MIN):  # (celtypes' own operators check types: slow)
            return cel_int(int.__neg__(value))
        if kind is _DOUBLE:
            return _new_float(_DOUBLE, float.__neg__(value))
    elif kind is BOOL:
        return FALSE if value else TRUE
    return node(tree("unary", [tree(operator, []), const(value)]))


_INT, _DOUBLE = celtypes.IntType, celtypes.DoubleType
_INT64_MIN = INT64[0]
_new_float = float.__new__


def select(value: Any, name: str, optional: bool = False) -> Any:
    """`value.name` / `value.?name`."""
    return node(tree("member_dot_opt" if optional else "member_dot", [const(value), Token("IDENT", name)]))


def index(value: Any, key: Any, optional: bool = False) -> Any:
    """`value[key]` / `value[?key]`."""
    return node(tree("member_index_opt" if optional else "member_index", [const(value), const(key)]))


_EMPTY = tree("exprlist", [])
# A function call with evaluated arguments (receiver first), dispatched as the reference engine does; its
# `_invoke` reads only the function table, so one shared instance serves every thread.
invoke = _evaluator(_EMPTY)._invoke


def includes(target: Any, item: Any) -> Any:
    """`target.includes(item)` (its only overload takes any two values): errors first, as every call."""
    if isinstance(target, CELEvalError):
        return target
    if isinstance(item, CELEvalError):
        return item
    return _includes(target, item)


def make_list(items: list[Any]) -> Any:
    for item in items:
        if isinstance(item, CELEvalError):
            return item
    return celtypes.ListType(items)


def subtree(tree: Tree[Any], budget: Budget, device: Any, driver: str, variables: Mapping[str, Any]) -> Any:
    """A whole subtree evaluated by the reference engine (constructs the compiled engine leaves to it), with
    `device` converted and the comprehension variables in scope."""
    scope = {"device": converted(device, driver), **variables}
    activation = ACTIVATION.nested_activation(vars=scope)
    return DRAEvaluator(tree, activation, budget, FUNCTION_TABLE).visit(tree)
