"""Constants cel-go's planner folds when the program is built, and the errors that fail the build there.

Kubernetes' base environment evaluates with `cel.OptOptimize`, under which cel-go's planner
(interpreter/decorators.go) evaluates a type conversion (`int uint double string bytes bool duration timestamp dyn
type`) whose one argument is a constant: a failure fails the program's construction, so the DRA compiler refuses
the selector with `program instantiation failed: type conversion error from 'string' to 'int'` (`int("x")`) before
any device is seen; a success is a constant in turn (`int(string(1.5))` fails too). An index by a constant that
is no string, int, uint, bool or double is no qualifier there (interpreter/attributes.go newQualifier):
`program instantiation failed: invalid qualifier type: types.Null` (`dyn({})[null]`).

Constants here are literals, folded conversions and list literals of constants (cel-go also folds a map literal of
constants; a conversion or an index of one is left to the run time here, where it fails with the same text). The
conversions are the run time's own (celext.reference.operations.invoke).
"""

from __future__ import annotations

import re
from typing import Any

from celext import values as celvalues
from celext.check.ast import Call, Comprehension, CreateList, CreateMap, Expr, Literal, Select
from celext.check.regex import PROGRAM_FAILED
from celext.values import CELEvalError

CONVERSIONS = frozenset({"int", "uint", "double", "string", "bytes", "bool", "duration", "timestamp", "dyn", "type"})
INDEXES = frozenset({"_[_]", "_[?_]"})
# A text with none of these cannot hold a foldable conversion or a constant index that is no qualifier.
_MAY_FOLD = re.compile(r"\b(?:int|uint|double|string|bytes|bool|duration|timestamp|dyn|type|null)\b")

_NOT_CONSTANT: Any = object()
_LITERALS: dict[str, Any] = {"bool": celvalues.BoolType, "int": celvalues.IntType, "uint": celvalues.UintType,
                             "double": celvalues.DoubleType, "string": celvalues.StringType,
                             "bytes": celvalues.BytesType}


def instantiation_error(expression: str, root: Expr) -> str | None:
    """The DRA compiler's error for the first folded conversion or constant index that fails when the program is
    built (the planner's order: operands first, left to right), or None."""
    if _MAY_FOLD.search(expression) is None:
        return None
    from celext.lib.typenames import type_of
    from celext.reference.operations import error_message, index, invoke
    from celext.runtime.ops import FUNCTION_TABLE

    def fold(node: Expr) -> Any:
        if isinstance(node, Literal):
            return _LITERALS[node.kind](node.value) if node.kind in _LITERALS else None
        if isinstance(node, CreateList) and not node.optional:  # maybeBuildListLiteral
            items = [fold(element) for element in node.elements]
            return _NOT_CONSTANT if any(item is _NOT_CONSTANT for item in items) else celvalues.ListType(items)
        if not (isinstance(node, Call) and node.target is None):
            return _NOT_CONSTANT
        if node.function in CONVERSIONS and len(node.args) == 1:
            argument = fold(node.args[0])
            if argument is _NOT_CONSTANT or node.function == "dyn":
                return argument
            if node.function == "type":
                return type_of(argument)
            return invoke(FUNCTION_TABLE, node.function, [argument])
        if node.function in INDEXES:
            key = fold(node.args[1])
            if key is not _NOT_CONSTANT and not isinstance(key, CELEvalError | str | int | float):
                return index(None, key)  # (the key's refusal, whatever the member)
        return _NOT_CONSTANT

    for node in _walk(root):
        if isinstance(node, Call) and (node.function in CONVERSIONS or node.function in INDEXES):
            value = fold(node)
            if isinstance(value, CELEvalError):
                return PROGRAM_FAILED + error_message(value)
    return None


def _walk(node: Expr | None) -> Any:
    """The nodes in the planner's order: each node's operands before it, left to right."""
    if node is None:
        return
    children: list[Expr | None] = []
    if isinstance(node, Call):
        children = [node.target, *node.args]
    elif isinstance(node, Select):
        children = [node.operand]
    elif isinstance(node, CreateList):
        children = list(node.elements)
    elif isinstance(node, CreateMap):
        children = [part for entry in node.entries for part in entry]
    elif isinstance(node, Comprehension):
        children = [node.iter_range, node.accu_init, node.loop_condition, node.loop_step, node.result]
    for child in children:
        yield from _walk(child)
    yield node
