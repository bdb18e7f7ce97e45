"""Helpers the generated selector code calls: CEL operations over the reference engine's values.

The compiled engine computes with the same values as the reference engine (celext.values, Semver, Quantity,
OptionalValue, CELEvalError as an error value) and, for every operation it does not inline, calls the
reference engine's own rule for that one node with its operands already evaluated
(celext.reference.operations), so results and error texts stay identical by construction; what no rule there
decides falls back to the reference evaluator itself (`node()`, `subtree()`: they load cel-python). Only control
flow (`&&`, `||`, `?:`, comprehension loops), device reads and function dispatch are generated as Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from celext import values as celvalues
from celext.env import FUNCTIONS
from celext.gostrconv import INT64
from celext.lib.includes import includes as _includes
from celext.lib.ints import cel_int
from celext.lib.typenames import go_type_name
from celext.reference import operations
from celext.reference.operations import COST_EXCEEDED, RELATIONS, UNDECIDED, Budget, CostLimitExceeded
from celext.runtime.wire import converted
from celext.syntax.nodes import Meta, Token, Tree
from celext.values import CELEvalError

__all__ = ["BOOL", "FALSE", "FUNCTION_TABLE", "TRUE", "Budget", "CostLimitExceeded", "arith",
           "cost_exceeded", "invoke", "make_list", "no_key", "no_overload", "node", "not_iterable", "relation",
           "subtree"]

BOOL = celvalues.BoolType
TRUE = BOOL(True)
FALSE = BOOL(False)
# The function table, flattened: built once, read-only, shared by every evaluation of every selector.
FUNCTION_TABLE = dict(FUNCTIONS)
_UNLIMITED = 1 << 62  # operand-level evaluations never run out: the caller's budget is charged by the loops


_META = Meta(0, 0, 0, 0, 0, 0)  # cel-python's errors read a position from the node


def tree(data: str, children: list[Any]) -> Tree[Any]:
    return Tree(data, children, _META)


def const(value: Any) -> Tree[Any]:
    return tree("const", [value])


def node(root: Tree[Any]) -> Any:
    """The reference engine's result for one node whose operands are `const` trees (it loads cel-python: only for
    what no function of celext.reference.operations decides)."""
    from celext.reference.evaluator import DRAEvaluator, base_activation

    return DRAEvaluator(root, base_activation(), Budget(_UNLIMITED), FUNCTION_TABLE).visit(root)


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


def arith(operator: str, left: Any, right: Any) -> Any:
    """`+ - * / %` exactly as the reference engine computes them (celext.reference.operations)."""
    return operations.arithmetic(FUNCTION_TABLE, operator, left, right)


def unary(operator: str, value: Any) -> Any:
    """`-x` / `!x`. An int (but int64's minimum, whose negation overflows), a double or a bool is computed here:
    the reference engine's node costs ~30 us, a hot spot in loops such as `sortBy(x, -x)`."""
    kind = value.__class__
    if operator == "unary_neg":
        if kind is _INT and not int.__eq__(value, _INT64_MIN):  # (IntType's own operators check types: slow)
            return cel_int(int.__neg__(value))
        if kind is _DOUBLE:
            return _new_float(_DOUBLE, float.__neg__(value))
    elif kind is BOOL:
        return FALSE if value else TRUE
    return operations.unary(FUNCTION_TABLE, operator, value)


_INT, _DOUBLE = celvalues.IntType, celvalues.DoubleType
_INT64_MIN = INT64[0]
_new_float = float.__new__


def select(value: Any, name: str, optional: bool = False) -> Any:
    """`value.name` / `value.?name`; a value that is no CEL value (a type) as the reference engine's tree walk
    selects on it."""
    result = operations.select(value, name, optional)
    if result is UNDECIDED:
        return node(tree("member_dot", [const(value), Token("IDENT", name)]))
    return result


def index(value: Any, key: Any, optional: bool = False) -> Any:
    """`value[key]` / `value[?key]`."""
    return operations.index(value, key, optional)


def invoke(name: str, args: list[Any]) -> Any:
    """A function call with evaluated arguments (receiver first), dispatched as the reference engine does."""
    return operations.invoke(FUNCTION_TABLE, name, args)


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
    return celvalues.ListType(items)


def subtree(tree: Tree[Any], budget: Budget, device: Any, driver: str, variables: Mapping[str, Any]) -> Any:
    """A whole subtree evaluated by the reference engine (constructs the compiled engine leaves to it), with
    `device` converted and the comprehension variables in scope."""
    from celext.reference.evaluator import DRAEvaluator, base_activation

    scope = {"device": converted(device, driver), **variables}
    activation = base_activation().nested_activation(vars=scope)
    return DRAEvaluator(tree, activation, budget, FUNCTION_TABLE).visit(tree)
